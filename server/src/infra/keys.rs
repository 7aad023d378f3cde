//! Secrets: team API keys, management keys and link tokens. The database keeps only their
//! SHA-256, so a leaked database leaks no usable key; a key is 256 random bits, so a fast
//! hash is enough (there is no password to guess). Stored and presented digests are compared
//! in constant time.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The kinds of secret, told apart by their prefix so a key pasted in the wrong header is
/// recognisable in logs and support requests without being readable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretKind {
    TeamApiKey,
    ManagementKey,
    LinkToken,
}

impl SecretKind {
    fn prefix(self) -> &'static str {
        match self {
            SecretKind::TeamApiKey => "sk_team_",
            SecretKind::ManagementKey => "sk_mgmt_",
            SecretKind::LinkToken => "lt_",
        }
    }
}

/// A fresh secret of a kind.
pub fn generate(kind: SecretKind) -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{}{}", kind.prefix(), URL_SAFE_NO_PAD.encode(bytes))
}

/// The digest the database keeps, in hex.
pub fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Bytes as lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a stored digest is the digest of the presented secret, in constant time.
pub fn matches(stored_digest: &str, presented: &str) -> bool {
    let presented = digest(presented);
    stored_digest.as_bytes().ct_eq(presented.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_random_prefixed_and_hashed() {
        let a = generate(SecretKind::TeamApiKey);
        let b = generate(SecretKind::TeamApiKey);
        assert_ne!(a, b);
        assert!(a.starts_with("sk_team_"));
        assert_eq!(digest(&a).len(), 64);
        assert!(!digest(&a).contains(&a[8..]));
        assert!(matches(&digest(&a), &a));
        assert!(!matches(&digest(&a), &b));
    }
}
