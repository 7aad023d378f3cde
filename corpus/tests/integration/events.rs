//! Every event of a corpus spec as a service sends it and a receiver reads it: a delivery
//! built from the spec's samples is read by the generated `events::read_delivery` as that
//! event, and `events::delivery` writes the same JSON back. Stripe's type travels in the
//! envelope's `type` field, GitHub's in the `X-GitHub-Event` header.

use covenant_codegen::ir::{Event, Spec};
use covenant_codegen::samples::Samples;
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
