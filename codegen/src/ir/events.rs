//! Events in the IR: each event type, how deliveries are signed, and where a delivery names
//! its type.

use super::*;

/// `@registers_webhooks`: the endpoint subscribes a receiver to the spec's events, so a
/// tool can subscribe itself knowing only the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookRegistration {
    /// The body field that takes the receiver's address.
    pub url: String,
    /// The fields leading through the success answer to the signing secret.
    pub secret: Option<Vec<String>>,
    /// The fields leading through the success answer to the registration's id.
    pub id: Option<Vec<String>>,
    /// The endpoint that removes a registration, taking its id as its path parameter.
    pub remove: Option<EndpointId>,
}

#[derive(Clone, Debug)]
pub struct Event {
    pub name: String,
    pub doc: Option<String>,
    /// The event type, with `{placeholder}`s.
    pub pattern: String,
    pub placeholders: Vec<(String, EnumId)>,
    /// Envelope fields given a type for this event, usually `data`.
    pub fields: Vec<Field>,
    pub deprecated: Option<Deprecation>,
    pub provenance: Provenance,
    pub not_shown: Vec<String>,
}

/// How a sender signs its deliveries, so a consumer knows one is the sender's.
pub use covenant_runtime::webhooks::SigningScheme as EventSigning;

/// The scheme in words, for documents.
pub fn signing_title(scheme: EventSigning) -> &'static str {
    match scheme {
        EventSigning::StandardWebhooks => "Standard Webhooks",
        EventSigning::Stripe => "Stripe's `Stripe-Signature`",
        EventSigning::GitHub => "GitHub's `X-Hub-Signature-256`",
        EventSigning::Slack => "Slack's `v0` signature",
    }
}

/// The headers that sign a delivery under `scheme`, as written on the wire, each with what
/// it holds.
pub fn signing_headers(scheme: EventSigning) -> &'static [(&'static str, &'static str)] {
    match scheme {
        EventSigning::StandardWebhooks => &[
            (
                "webhook-id",
                "The delivery's id: the same on every attempt, so a receiver drops a repeat.",
            ),
            (
                "webhook-timestamp",
                "When the attempt was signed, in Unix seconds.",
            ),
            (
                "webhook-signature",
                "`v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` by the endpoint's `whsec_` secret; several, space-separated, while a secret is rotated.",
            ),
        ],
        EventSigning::Stripe => &[(
            "Stripe-Signature",
            "`t=` and the Unix seconds of signing, then `v1=` and the hex HMAC-SHA256 of `{t}.{body}` keyed by the secret's text; one `v1` per secret while a secret is rotated.",
        )],
        EventSigning::GitHub => &[
            (
                "X-Hub-Signature-256",
                "`sha256=` and the hex HMAC-SHA256 of the body keyed by the secret's text.",
            ),
            (
                "X-GitHub-Delivery",
                "The delivery's id, so a receiver drops a repeat.",
            ),
        ],
        EventSigning::Slack => &[
            (
                "X-Slack-Signature",
                "`v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{body}` keyed by the signing secret's text.",
            ),
            (
                "X-Slack-Request-Timestamp",
                "When the request was signed, in Unix seconds.",
            ),
        ],
    }
}

/// Where a delivery names its event type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventTypeCarrier {
    /// A field of the envelope, by name.
    Field(String),
    /// A header of the delivery, by name.
    Header(String),
}
