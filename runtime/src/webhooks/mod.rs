//! Signed webhook deliveries by the Standard Webhooks scheme (standardwebhooks.com): a
//! delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
//! `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>` over
//! `{id}.{timestamp}.{body}` keyed by the secret (`whsec_<base64 key>`). A sender signs with
//! [`sign`]; a consumer checks with [`verify`]. Other services' schemes are in
//! [`SigningScheme`], which is what a generated `verify_delivery` calls before it reads the
//! payload.

mod schemes;

pub use schemes::{
    GITHUB_DELIVERY_HEADER, GITHUB_SIGNATURE_HEADER, SLACK_SIGNATURE_HEADER,
    SLACK_TIMESTAMP_HEADER, STRIPE_HEADER, SigningScheme,
};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use std::fmt;
use std::time::Duration;
use subtle::ConstantTimeEq;

pub const ID_HEADER: &str = "webhook-id";
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";
pub const SIGNATURE_HEADER: &str = "webhook-signature";
/// How far a delivery's timestamp may be from the receiver's clock, either way: a replay
/// of a captured delivery later than this is refused.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(5 * 60);
/// The prefix of a secret's text.
const SECRET_PREFIX: &str = "whsec_";
/// Bytes of key in a secret this module makes (the scheme asks for 24 to 64).
const KEY_BYTES: usize = 32;

/// A signing key. Its `Debug` never shows the key.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret {
    key: Vec<u8>,
    /// The key is the secret's text itself (Stripe, GitHub, Slack), not a `whsec_` key.
    as_text: bool,
}

impl WebhookSecret {
    /// Reads `whsec_<base64>`; the prefix may be left out, as the scheme's libraries allow.
    pub fn parse(text: &str) -> Result<WebhookSecret, WebhookError> {
        let encoded = text.strip_prefix(SECRET_PREFIX).unwrap_or(text);
        let key = STANDARD
            .decode(encoded)
            .map_err(|_| WebhookError::BadSecret)?;
        if key.is_empty() {
            return Err(WebhookError::BadSecret);
        }
        Ok(WebhookSecret {
            key,
            as_text: false,
        })
    }

    /// A secret whose text is the key, as Stripe's, GitHub's and Slack's are.
    fn from_text_key(key: Vec<u8>) -> WebhookSecret {
        WebhookSecret { key, as_text: true }
    }

    fn key(&self) -> &[u8] {
        &self.key
    }

    /// A new random secret.
    pub fn generate() -> WebhookSecret {
        let mut key = Vec::with_capacity(KEY_BYTES);
        while key.len() < KEY_BYTES {
            key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        }
        key.truncate(KEY_BYTES);
        WebhookSecret {
            key,
            as_text: false,
        }
    }

    /// The secret's text as a consumer configures it: `whsec_<base64>`, or the text that is
    /// the key.
    pub fn to_text(&self) -> String {
        if self.as_text {
            return String::from_utf8_lossy(&self.key).into_owned();
        }
        format!("{SECRET_PREFIX}{}", STANDARD.encode(&self.key))
    }

    fn mac(&self, id: &str, timestamp: i64, body: &[u8]) -> Vec<u8> {
        let timestamp = timestamp.to_string();
        hmac_sha256(
            &self.key,
            &[id.as_bytes(), b".", timestamp.as_bytes(), b".", body],
        )
    }
}

/// HMAC-SHA256 of the parts, one after another, keyed by `key`.
fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes a key of any size");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(..)")
    }
}

/// The headers that sign one delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub id: String,
    pub timestamp: i64,
    /// `v1,<base64>` per secret, space-separated.
    pub signature: String,
}

impl Signature {
    /// The three headers, by name.
    pub fn headers(&self) -> [(&'static str, String); 3] {
        [
            (ID_HEADER, self.id.clone()),
            (TIMESTAMP_HEADER, self.timestamp.to_string()),
            (SIGNATURE_HEADER, self.signature.clone()),
        ]
    }
}

/// Signs `body` as delivery `id` sent at `timestamp` (Unix seconds), by every secret given:
/// while a secret is being rotated, a delivery carries a signature by the old and the new.
pub fn sign(secrets: &[&WebhookSecret], id: &str, timestamp: i64, body: &[u8]) -> Signature {
    let signature = secrets
        .iter()
        .map(|secret| format!("v1,{}", STANDARD.encode(secret.mac(id, timestamp, body))))
        .collect::<Vec<_>>()
        .join(" ");
    Signature {
        id: id.to_string(),
        timestamp,
        signature,
    }
}

/// Checks a delivery: its timestamp within `tolerance` of `now` (Unix seconds), and one of
/// its `v1` signatures made by `secret` over its id, timestamp and body, compared in
/// constant time. Answers the delivery's id, which a consumer keeps to drop a repeat (a
/// delivery is sent at least once).
pub fn verify<'h>(
    secret: &WebhookSecret,
    headers: &'h http::HeaderMap,
    body: &[u8],
    now: i64,
    tolerance: Duration,
) -> Result<&'h str, WebhookError> {
    let text = |name: &'static str| {
        headers
            .get(name)
            .ok_or(WebhookError::MissingHeader(name))?
            .to_str()
            .map_err(|_| WebhookError::MissingHeader(name))
    };
    let id = text(ID_HEADER)?;
    let timestamp = recent(text(TIMESTAMP_HEADER)?, now, tolerance)?;
    let expected = secret.mac(id, timestamp, body);
    let matched = text(SIGNATURE_HEADER)?
        .split(' ')
        .filter_map(|entry| entry.strip_prefix("v1,"))
        .filter_map(|encoded| STANDARD.decode(encoded).ok())
        .any(|given| bool::from(given.ct_eq(&expected)));
    if matched {
        Ok(id)
    } else {
        Err(WebhookError::NoMatchingSignature)
    }
}

/// A signed timestamp (Unix seconds) read, when it is within `tolerance` of `now` either
/// way: a replay of a captured delivery later than that is refused.
fn recent(text: &str, now: i64, tolerance: Duration) -> Result<i64, WebhookError> {
    let timestamp: i64 = text
        .trim()
        .parse()
        .map_err(|_| WebhookError::BadTimestamp)?;
    let tolerance = i64::try_from(tolerance.as_secs()).unwrap_or(i64::MAX);
    if timestamp < now.saturating_sub(tolerance) {
        return Err(WebhookError::TooOld);
    }
    if timestamp > now.saturating_add(tolerance) {
        return Err(WebhookError::TooNew);
    }
    Ok(timestamp)
}

/// The receiver's clock in Unix seconds.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Why a delivery was not accepted as ours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WebhookError {
    /// A signing header is missing or not text.
    MissingHeader(&'static str),
    /// `webhook-timestamp` is not Unix seconds.
    BadTimestamp,
    /// Sent longer ago than the tolerance: a replay, or a clock far behind.
    TooOld,
    /// Sent later than the tolerance allows: a clock far ahead.
    TooNew,
    /// No `v1` signature is the secret's over this body.
    NoMatchingSignature,
    /// The secret is not `whsec_` and base64.
    BadSecret,
}

impl fmt::Display for WebhookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebhookError::MissingHeader(name) => write!(f, "the delivery has no `{name}` header"),
            WebhookError::BadTimestamp => {
                write!(f, "`{TIMESTAMP_HEADER}` is not a Unix time in seconds")
            }
            WebhookError::TooOld => f.write_str("the delivery is older than the tolerance"),
            WebhookError::TooNew => f.write_str("the delivery is dated ahead of the tolerance"),
            WebhookError::NoMatchingSignature => {
                f.write_str("no signature of the delivery matches the secret")
            }
            WebhookError::BadSecret => f.write_str("the secret is not `whsec_` and base64"),
        }
    }
}

impl std::error::Error for WebhookError {}

/// Why a generated `verify_delivery` refused a delivery: its signature, or its body.
#[derive(Debug)]
pub enum DeliveryError {
    Signature(WebhookError),
    Event(crate::events::EventError),
}

impl fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeliveryError::Signature(e) => write!(f, "not a delivery signed by the sender: {e}"),
            DeliveryError::Event(e) => write!(f, "a signed delivery that is no event: {e}"),
        }
    }
}

impl std::error::Error for DeliveryError {}

impl From<WebhookError> for DeliveryError {
    fn from(e: WebhookError) -> Self {
        DeliveryError::Signature(e)
    }
}

impl From<crate::events::EventError> for DeliveryError {
    fn from(e: crate::events::EventError) -> Self {
        DeliveryError::Event(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scheme's published example.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1_614_265_330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn headers(signature: &Signature) -> http::HeaderMap {
        signature
            .headers()
            .iter()
            .map(|(name, value)| {
                (
                    http::HeaderName::from_static(name),
                    http::HeaderValue::from_str(value).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn the_published_example_signs_and_verifies() {
        let secret = WebhookSecret::parse(SECRET).unwrap();
        let signed = sign(&[&secret], ID, TIMESTAMP, BODY);
        assert_eq!(signed.signature, SIGNATURE);
        let headers = headers(&signed);
        let verified = verify(&secret, &headers, BODY, TIMESTAMP, DEFAULT_TOLERANCE);
        assert_eq!(verified, Ok(ID));
    }

    #[test]
    fn a_changed_body_id_or_secret_is_refused() {
        let secret = WebhookSecret::parse(SECRET).unwrap();
        let signed = headers(&sign(&[&secret], ID, TIMESTAMP, BODY));
        let refused = |secret: &WebhookSecret, headers: &http::HeaderMap, body: &[u8]| {
            verify(secret, headers, body, TIMESTAMP, DEFAULT_TOLERANCE).unwrap_err()
        };
        let other_body = br#"{"test": 2432232315}"#;
        assert_eq!(
            refused(&secret, &signed, other_body),
            WebhookError::NoMatchingSignature
        );
        let mut other_id = signed.clone();
        other_id.insert(ID_HEADER, http::HeaderValue::from_static("msg_other"));
        assert_eq!(
            refused(&secret, &other_id, BODY),
            WebhookError::NoMatchingSignature
        );
        let other = WebhookSecret::generate();
        assert_eq!(
            refused(&other, &signed, BODY),
            WebhookError::NoMatchingSignature
        );
    }

    #[test]
    fn a_delivery_outside_the_tolerance_is_refused_either_way() {
        let secret = WebhookSecret::parse(SECRET).unwrap();
        let signed = headers(&sign(&[&secret], ID, TIMESTAMP, BODY));
        let at = |now: i64| verify(&secret, &signed, BODY, now, DEFAULT_TOLERANCE);
        assert_eq!(at(TIMESTAMP + 300), Ok(ID));
        assert_eq!(at(TIMESTAMP + 301), Err(WebhookError::TooOld));
        assert_eq!(at(TIMESTAMP - 301), Err(WebhookError::TooNew));
    }

    #[test]
    fn during_a_rotation_either_secret_verifies() {
        let (old, new) = (WebhookSecret::generate(), WebhookSecret::generate());
        let signed = headers(&sign(&[&old, &new], ID, TIMESTAMP, BODY));
        for secret in [&old, &new] {
            assert_eq!(
                verify(secret, &signed, BODY, TIMESTAMP, DEFAULT_TOLERANCE),
                Ok(ID)
            );
        }
    }

    #[test]
    fn missing_or_malformed_headers_are_named() {
        let secret = WebhookSecret::generate();
        let mut headers = headers(&sign(&[&secret], ID, TIMESTAMP, BODY));
        headers.insert(TIMESTAMP_HEADER, http::HeaderValue::from_static("soon"));
        assert_eq!(
            verify(&secret, &headers, BODY, TIMESTAMP, DEFAULT_TOLERANCE),
            Err(WebhookError::BadTimestamp)
        );
        headers.remove(ID_HEADER);
        assert_eq!(
            verify(&secret, &headers, BODY, TIMESTAMP, DEFAULT_TOLERANCE),
            Err(WebhookError::MissingHeader(ID_HEADER))
        );
    }

    #[test]
    fn a_secret_round_trips_its_text_and_hides_in_debug() {
        let secret = WebhookSecret::generate();
        let text = secret.to_text();
        assert!(text.starts_with("whsec_"));
        assert_eq!(WebhookSecret::parse(&text).unwrap(), secret);
        assert!(!format!("{secret:?}").contains(&text[6..]));
        assert_eq!(
            WebhookSecret::parse("whsec_!!"),
            Err(WebhookError::BadSecret)
        );
    }
}
