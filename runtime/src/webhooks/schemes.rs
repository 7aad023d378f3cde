//! The signing schemes a spec can name for its deliveries: Standard Webhooks, and the
//! schemes of services that sign their own way (Stripe's `Stripe-Signature`, GitHub's
//! `X-Hub-Signature-256`, Slack's `v0` signatures). Each is HMAC-SHA256; what is signed,
//! where it travels and how the secret's text becomes the key differ.

use super::{
    DEFAULT_TOLERANCE, ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, WebhookError, WebhookSecret,
    hmac_sha256, recent,
};
use std::fmt::Write as _;
use std::time::Duration;
use subtle::ConstantTimeEq;

pub const STRIPE_HEADER: &str = "stripe-signature";
pub const GITHUB_SIGNATURE_HEADER: &str = "x-hub-signature-256";
pub const GITHUB_DELIVERY_HEADER: &str = "x-github-delivery";
pub const SLACK_SIGNATURE_HEADER: &str = "x-slack-signature";
pub const SLACK_TIMESTAMP_HEADER: &str = "x-slack-request-timestamp";

/// How a spec's deliveries are signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SigningScheme {
    /// `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` over
    /// `{id}.{timestamp}.{body}`, keyed by the base64 key of a `whsec_` secret.
    StandardWebhooks,
    /// `Stripe-Signature: t=<timestamp>,v1=<hex>` over `{timestamp}.{body}`, keyed by the
    /// secret's text.
    Stripe,
    /// `X-Hub-Signature-256: sha256=<hex>` over the body, keyed by the secret's text; the
    /// delivery's id in `X-GitHub-Delivery`. No timestamp: GitHub signs none.
    GitHub,
    /// `X-Slack-Signature: v0=<hex>` over `v0:{timestamp}:{body}`, with
    /// `X-Slack-Request-Timestamp`, keyed by the signing secret's text.
    Slack,
}

impl SigningScheme {
    pub const ALL: [SigningScheme; 4] = [
        SigningScheme::StandardWebhooks,
        SigningScheme::Stripe,
        SigningScheme::GitHub,
        SigningScheme::Slack,
    ];

    /// The scheme's name in a spec: `@signed(stripe)`.
    pub fn name(self) -> &'static str {
        match self {
            SigningScheme::StandardWebhooks => "standard_webhooks",
            SigningScheme::Stripe => "stripe",
            SigningScheme::GitHub => "github",
            SigningScheme::Slack => "slack",
        }
    }

    pub fn from_name(name: &str) -> Option<SigningScheme> {
        SigningScheme::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The headers that carry a delivery's signature, as a receiver reads them.
    pub fn headers(self) -> &'static [&'static str] {
        match self {
            SigningScheme::StandardWebhooks => &[ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER],
            SigningScheme::Stripe => &[STRIPE_HEADER],
            SigningScheme::GitHub => &[GITHUB_SIGNATURE_HEADER, GITHUB_DELIVERY_HEADER],
            SigningScheme::Slack => &[SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER],
        }
    }

    /// The header naming the delivery, the same on every attempt, where the scheme sends one.
    pub fn id_header(self) -> Option<&'static str> {
        match self {
            SigningScheme::StandardWebhooks => Some(ID_HEADER),
            SigningScheme::GitHub => Some(GITHUB_DELIVERY_HEADER),
            SigningScheme::Stripe | SigningScheme::Slack => None,
        }
    }

    /// The secret a receiver is given, as this scheme reads it: a `whsec_` secret's base64
    /// key for Standard Webhooks, the text itself for the others.
    pub fn secret(self, text: &str) -> Result<WebhookSecret, WebhookError> {
        match self {
            SigningScheme::StandardWebhooks => WebhookSecret::parse(text),
            _ if text.is_empty() => Err(WebhookError::BadSecret),
            _ => Ok(WebhookSecret::from_text_key(text.as_bytes().to_vec())),
        }
    }

    /// The headers signing `body`, delivery `id` sent at `timestamp` (Unix seconds), by
    /// every secret given (several while a secret is rotated, where the scheme allows).
    pub fn sign(
        self,
        secrets: &[&WebhookSecret],
        id: &str,
        timestamp: i64,
        body: &[u8],
    ) -> Vec<(&'static str, String)> {
        let each = |parts: &[&[u8]], prefix: &str| -> Vec<String> {
            secrets
                .iter()
                .map(|s| format!("{prefix}{}", hex(&hmac_sha256(s.key(), parts))))
                .collect()
        };
        let ts = timestamp.to_string();
        match self {
            SigningScheme::StandardWebhooks => super::sign(secrets, id, timestamp, body)
                .headers()
                .into_iter()
                .collect(),
            SigningScheme::Stripe => {
                let signatures = each(&[ts.as_bytes(), b".", body], "v1=");
                let value = format!("t={ts},{}", signatures.join(","));
                vec![(STRIPE_HEADER, value)]
            }
            SigningScheme::GitHub => {
                let signature = each(&[body], "sha256=").into_iter().next();
                vec![
                    (GITHUB_SIGNATURE_HEADER, signature.unwrap_or_default()),
                    (GITHUB_DELIVERY_HEADER, id.to_string()),
                ]
            }
            SigningScheme::Slack => {
                let signature = each(&[b"v0:", ts.as_bytes(), b":", body], "v0=");
                vec![
                    (
                        SLACK_SIGNATURE_HEADER,
                        signature.into_iter().next().unwrap_or_default(),
                    ),
                    (SLACK_TIMESTAMP_HEADER, ts),
                ]
            }
        }
    }

    /// Checks a delivery: its timestamp within `tolerance` of `now` where the scheme signs
    /// one, and a signature by `secret` over what the scheme signs, compared in constant
    /// time. Answers the delivery's id where the scheme sends one.
    pub fn verify<'h>(
        self,
        secret: &WebhookSecret,
        headers: &'h http::HeaderMap,
        body: &[u8],
        now: i64,
        tolerance: Duration,
    ) -> Result<Option<&'h str>, WebhookError> {
        let text = |name: &'static str| {
            headers
                .get(name)
                .ok_or(WebhookError::MissingHeader(name))?
                .to_str()
                .map_err(|_| WebhookError::MissingHeader(name))
        };
        match self {
            SigningScheme::StandardWebhooks => {
                super::verify(secret, headers, body, now, tolerance).map(Some)
            }
            SigningScheme::Stripe => {
                let header = text(STRIPE_HEADER)?;
                let entries = || header.split(',').filter_map(|e| e.trim().split_once('='));
                let ts = entries()
                    .find(|(k, _)| *k == "t")
                    .map(|(_, v)| v)
                    .ok_or(WebhookError::BadTimestamp)?;
                recent(ts, now, tolerance)?;
                let expected = hex(&hmac_sha256(secret.key(), &[ts.as_bytes(), b".", body]));
                let given = entries().filter(|(k, _)| *k == "v1").map(|(_, v)| v);
                matches(given, &expected).map(|()| None)
            }
            SigningScheme::GitHub => {
                let given = text(GITHUB_SIGNATURE_HEADER)?;
                let expected = hex(&hmac_sha256(secret.key(), &[body]));
                matches(given.strip_prefix("sha256=").into_iter(), &expected)?;
                Ok(headers
                    .get(GITHUB_DELIVERY_HEADER)
                    .and_then(|v| v.to_str().ok()))
            }
            SigningScheme::Slack => {
                let ts = text(SLACK_TIMESTAMP_HEADER)?;
                recent(ts, now, tolerance)?;
                let parts: [&[u8]; 4] = [b"v0:", ts.as_bytes(), b":", body];
                let expected = hex(&hmac_sha256(secret.key(), &parts));
                let given = text(SLACK_SIGNATURE_HEADER)?.strip_prefix("v0=");
                matches(given.into_iter(), &expected).map(|()| None)
            }
        }
    }

    /// As [`SigningScheme::verify`], on this machine's clock and the default tolerance.
    pub fn verify_now<'h>(
        self,
        secret: &WebhookSecret,
        headers: &'h http::HeaderMap,
        body: &[u8],
    ) -> Result<Option<&'h str>, WebhookError> {
        self.verify(secret, headers, body, super::now(), DEFAULT_TOLERANCE)
    }
}

/// Whether one of the given hex signatures is `expected`, compared in constant time (and
/// in any case, as hex may be written).
fn matches<'g>(given: impl Iterator<Item = &'g str>, expected: &str) -> Result<(), WebhookError> {
    let found = given
        .map(|g| g.trim().to_ascii_lowercase())
        .any(|g| bool::from(g.as_bytes().ct_eq(expected.as_bytes())));
    if found {
        Ok(())
    } else {
        Err(WebhookError::NoMatchingSignature)
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, String)]) -> http::HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (http::HeaderName::from_static(k), v.parse().unwrap()))
            .collect()
    }

    /// GitHub's own example ("Validating webhook deliveries"): the secret
    /// `It's a Secret to Everybody` and the payload `Hello, World!`.
    #[test]
    fn github_signs_as_its_documentation_shows() {
        let secret = SigningScheme::GitHub
            .secret("It's a Secret to Everybody")
            .unwrap();
        let signed = SigningScheme::GitHub.sign(&[&secret], "d1", 0, b"Hello, World!");
        assert_eq!(
            signed[0].1,
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
        let signed = headers(&signed);
        let id = SigningScheme::GitHub
            .verify(&secret, &signed, b"Hello, World!", 0, DEFAULT_TOLERANCE)
            .unwrap();
        assert_eq!(id, Some("d1"));
    }

    /// Stripe's and Slack's layouts, against HMACs computed apart (Python's `hmac`).
    #[test]
    fn stripe_and_slack_sign_what_their_documentation_says() {
        let stripe = SigningScheme::Stripe.secret("whsec_test").unwrap();
        let signed =
            SigningScheme::Stripe.sign(&[&stripe], "", 1_700_000_000, br#"{"id":"evt_1"}"#);
        assert_eq!(
            signed,
            [(
                STRIPE_HEADER,
                "t=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
                    .to_string()
            )]
        );
        let slack = SigningScheme::Slack
            .secret("8f742231b10e8888abcd99yyyzzz85a5")
            .unwrap();
        let signed =
            SigningScheme::Slack.sign(&[&slack], "", 1_531_420_618, b"token=xyz&team_id=T1");
        assert_eq!(
            signed[0].1,
            "v0=71b0a7e79a0e37393adc80ac96f8aeffcbcdbf0ff8a0506259cf6bd02e6e13f2"
        );
        assert_eq!(
            signed[1],
            (SLACK_TIMESTAMP_HEADER, "1531420618".to_string())
        );
    }

    #[test]
    fn each_scheme_verifies_what_it_signs_and_refuses_a_changed_body_or_an_old_one() {
        for scheme in SigningScheme::ALL {
            let secret = match scheme {
                SigningScheme::StandardWebhooks => WebhookSecret::generate(),
                _ => scheme.secret("s3cret").unwrap(),
            };
            let other = scheme.secret(&WebhookSecret::generate().to_text()).unwrap();
            let now = 1_700_000_000;
            let signed = headers(&scheme.sign(&[&secret], "msg_1", now, b"{\"a\":1}"));
            let check = |secret: &WebhookSecret, body: &[u8], at: i64| {
                scheme.verify(secret, &signed, body, at, DEFAULT_TOLERANCE)
            };
            assert!(check(&secret, b"{\"a\":1}", now).is_ok(), "{scheme:?}");
            assert_eq!(
                check(&secret, b"{\"a\":2}", now),
                Err(WebhookError::NoMatchingSignature),
                "{scheme:?}"
            );
            assert_eq!(
                check(&other, b"{\"a\":1}", now),
                Err(WebhookError::NoMatchingSignature),
                "{scheme:?}"
            );
            let later = now + 6 * 60;
            let replayed = check(&secret, b"{\"a\":1}", later);
            if scheme == SigningScheme::GitHub {
                assert!(replayed.is_ok(), "GitHub signs no timestamp");
            } else {
                assert_eq!(replayed, Err(WebhookError::TooOld), "{scheme:?}");
            }
        }
    }

    #[test]
    fn a_stripe_header_with_a_signature_per_secret_verifies_by_either() {
        let (old, new) = (
            SigningScheme::Stripe.secret("whsec_old").unwrap(),
            SigningScheme::Stripe.secret("whsec_new").unwrap(),
        );
        let signed = SigningScheme::Stripe.sign(&[&old, &new], "", 5, b"{}");
        assert!(signed[0].1.starts_with("t=5,v1="));
        let signed = headers(&signed);
        for secret in [&old, &new] {
            let verified =
                SigningScheme::Stripe.verify(secret, &signed, b"{}", 5, DEFAULT_TOLERANCE);
            assert_eq!(verified, Ok(None));
        }
    }

    #[test]
    fn scheme_names_read_back() {
        for scheme in SigningScheme::ALL {
            assert_eq!(SigningScheme::from_name(scheme.name()), Some(scheme));
        }
        assert_eq!(SigningScheme::from_name("hub"), None);
    }
}
