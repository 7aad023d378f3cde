//! Every event of a corpus spec as a service sends it and a receiver reads it: a delivery
//! built from the spec's samples is read by the generated `events::read_delivery` as that
//! event, and `events::delivery` writes the same JSON back. Stripe's type travels in the
//! envelope's `type` field, GitHub's in the `X-GitHub-Event` header. Deliveries signed the
//! vendors' ways (`Stripe-Signature`, `X-Hub-Signature-256`) are sent over real sockets to a
//! receiver that checks them with the generated `events::verify_delivery`.

use covenant_codegen::ir::{Event, Spec};
use covenant_codegen::samples::Samples;
use covenant_runtime::server::axum;
use serde_json::Value;
use std::path::Path;

fn spec(relative: &str) -> Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let (_, checked) = covenant_codegen::check_path(&path).expect("read the spec");
    checked.spec.expect("a valid spec")
}

fn delivery(spec: &Spec, event: &Event) -> (String, Value) {
    Samples::new(spec)
        .event_delivery(event)
        .expect("a spec with an envelope")
}

#[test]
fn stripe_events_are_read_by_their_type_field_and_written_back_alike() {
    use covenant_corpus::payments::events;
    let spec = spec("specs/payments.covenant");
    for event in &spec.events {
        let (event_type, body) = delivery(&spec, event);
        let bytes = serde_json::to_vec(&body).unwrap();
        let (envelope, payload) =
            events::read_delivery(&bytes).unwrap_or_else(|e| panic!("{} reads: {e}", event.name));
        assert_eq!(payload.name(), event.name);
        assert_eq!(payload.event_type(), event_type);
        assert_eq!(
            events::delivery(&envelope, &payload),
            body,
            "{}",
            event.name
        );
    }
    let unknown = br#"{"id": "evt_1", "object": "event", "type": "invoice.paid", "created": 1, "livemode": false, "data": {}}"#;
    assert_eq!(
        events::read_delivery(unknown).unwrap_err(),
        covenant_runtime::events::EventError::UnknownType("invoice.paid".into())
    );
}

#[test]
fn github_events_are_read_by_their_header_and_written_back_alike() {
    use covenant_corpus::github::events;
    let spec = spec("specs/github.covenant");
    assert_eq!(events::EVENT_TYPE_HEADER, "X-GitHub-Event");
    for event in &spec.events {
        let (event_type, body) = delivery(&spec, event);
        let bytes = serde_json::to_vec(&body).unwrap();
        let (envelope, payload) = events::read_delivery(&event_type, &bytes)
            .unwrap_or_else(|e| panic!("{} reads: {e}", event.name));
        assert_eq!(payload.name(), event.name);
        assert_eq!(payload.event_type(), event_type);
        assert_eq!(
            events::delivery(&envelope, &payload),
            body,
            "{}",
            event.name
        );
    }
    // `issues.{action}` takes only the enum's actions.
    let (_, body) = delivery(&spec, &spec.events[0]);
    let bytes = serde_json::to_vec(&body).unwrap();
    assert!(events::read_delivery("issues.transferred", &bytes).is_err());
    let broken = events::read_delivery("issues.opened", br#"{"action": "opened"}"#);
    assert!(
        matches!(
            broken,
            Err(covenant_runtime::events::EventError::Envelope(_))
        ),
        "{broken:?}"
    );
}

/// A receiver that answers 204 to a delivery `verify` accepts and 400 to any other.
async fn receiver(verify: fn(&axum::http::HeaderMap, &[u8]) -> bool) -> String {
    let route = axum::routing::post(
        move |headers: axum::http::HeaderMap, body: axum::body::Bytes| async move {
            if verify(&headers, &body) {
                axum::http::StatusCode::NO_CONTENT
            } else {
                axum::http::StatusCode::BAD_REQUEST
            }
        },
    );
    crate::support::serve(axum::Router::new().route("/hook", route)).await
}

/// Sends `body` to `url` signed by `scheme` with `secret`, with `extra` headers; answers the
/// receiver's status.
async fn send_signed(
    url: &str,
    scheme: covenant_runtime::webhooks::SigningScheme,
    secret: &str,
    body: &[u8],
    extra: &[(&str, &str)],
) -> u16 {
    let secret = scheme.secret(secret).unwrap();
    let now = covenant_runtime::webhooks::now();
    let mut request = reqwest::Client::new().post(format!("{url}/hook"));
    for (name, value) in scheme.sign(&[&secret], "delivery-1", now, body) {
        request = request.header(name, value);
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let answer = request.body(body.to_vec()).send().await.unwrap();
    answer.status().as_u16()
}

const SECRET: &str = "whsec_receivers_own_secret";

#[tokio::test]
async fn stripe_signed_deliveries_are_verified_by_the_generated_receiver() {
    use covenant_corpus::payments::events;
    assert_eq!(
        events::SIGNING,
        covenant_runtime::webhooks::SigningScheme::Stripe
    );
    let url = receiver(|headers, body| {
        let secret = events::SIGNING.secret(SECRET).unwrap();
        events::verify_delivery(&secret, headers, body).is_ok()
    })
    .await;
    let spec = spec("specs/payments.covenant");
    let (_, body) = delivery(&spec, &spec.events[0]);
    let body = serde_json::to_vec(&body).unwrap();
    let scheme = events::SIGNING;
    assert_eq!(send_signed(&url, scheme, SECRET, &body, &[]).await, 204);
    assert_eq!(
        send_signed(&url, scheme, "whsec_another", &body, &[]).await,
        400
    );
    let mut changed = body.clone();
    changed.push(b' ');
    let forged = reqwest::Client::new()
        .post(format!("{url}/hook"))
        .header("stripe-signature", "t=1,v1=00")
        .body(changed)
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 400);
}

#[tokio::test]
async fn github_signed_deliveries_are_verified_by_the_generated_receiver() {
    use covenant_corpus::github::events;
    assert_eq!(
        events::SIGNING,
        covenant_runtime::webhooks::SigningScheme::GitHub
    );
    let url = receiver(|headers, body| {
        let secret = events::SIGNING.secret(SECRET).unwrap();
        events::verify_delivery(&secret, headers, body).is_ok()
    })
    .await;
    let spec = spec("specs/github.covenant");
    let (event_type, body) = delivery(&spec, &spec.events[0]);
    let body = serde_json::to_vec(&body).unwrap();
    let typed = [("x-github-event", event_type.as_str())];
    let scheme = events::SIGNING;
    assert_eq!(send_signed(&url, scheme, SECRET, &body, &typed).await, 204);
    assert_eq!(
        send_signed(&url, scheme, "another", &body, &typed).await,
        400
    );
    // Signed, but of no event of the spec.
    let unknown = [("x-github-event", "issues.transferred")];
    assert_eq!(
        send_signed(&url, scheme, SECRET, &body, &unknown).await,
        400
    );
}

/// The OpenAPI document lists each scheme's own headers on every webhook.
#[test]
fn webhooks_state_the_headers_of_their_signing_scheme() {
    for (file, headers, name) in [
        (
            "specs/payments.covenant",
            vec!["Stripe-Signature"],
            "stripe",
        ),
        (
            "specs/github.covenant",
            vec!["X-Hub-Signature-256", "X-GitHub-Delivery"],
            "github",
        ),
    ] {
        let spec = spec(file);
        let documents = covenant_codegen::emit::openapi::documents(&spec);
        for (_, text) in documents.iter() {
            let openapi: Value = serde_json::from_str(text).unwrap();
            let Some(webhooks) = openapi["webhooks"].as_object() else {
                continue;
            };
            for (event, item) in webhooks {
                let op = &item["post"];
                assert_eq!(op["x-webhook-signing"], name, "{event}");
                let names: Vec<&str> = op["parameters"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p["name"].as_str().unwrap())
                    .collect();
                assert_eq!(names, headers, "{event}");
            }
        }
    }
}
