//! The keys a mock of a spec accepts: one per auth scheme, kept across starts in the
//! credentials file so its users keep theirs.

use super::Keys;
use crate::contract::{Carrier, Contract, Scheme, SchemeRef};
use crate::credentials::Credentials;

/// A key for each scheme that is not a second header of another: the one `credentials`
/// holds from an earlier start, else a fresh one, written back. Answers the keys and a line
/// naming each; a key is shown once, when it is made, and later starts say where it is.
pub fn keys_for(
    contract: &Contract<'static>,
    credentials: &mut Credentials,
) -> (Keys, Vec<String>) {
    let mut keys = Keys::default();
    let mut lines = Vec::new();
    for scheme in contract.scheme_refs().filter(|s| !s.is_alias()) {
        let (key, shown) = match credentials.get(scheme.name()) {
            Some(key) if !key.is_empty() => (key.to_string(), "in the credentials".to_string()),
            _ => {
                let key = new_key(scheme);
                (key.clone(), key)
            }
        };
        credentials.set(scheme.name(), &key);
        lines.push(format!(
            "{} ({}): {shown}",
            scheme.name(),
            scheme.carrier().describe()
        ));
        keys.insert_key(key, scheme);
    }
    (keys, lines)
}

/// A fresh key for `scheme`: `user:password` for a Basic scheme, a token otherwise.
fn new_key(scheme: SchemeRef<'static>) -> String {
    let secret = uuid::Uuid::new_v4().simple();
    match scheme.carrier() {
        Carrier::Basic => format!("{}:{secret}", scheme.name()),
        _ => format!("{}_{secret}", scheme.name()),
    }
}
