//! Every event of a corpus spec as a service sends it and a receiver reads it: a delivery
//! built from the spec's samples is read by the generated `events::read_delivery` as that
//! event, and `events::delivery` writes the same JSON back. Stripe's type travels in the
//! envelope's `type` field, GitHub's in the `X-GitHub-Event` header.

use covenant_codegen::ir::shapes::Shape;
use covenant_codegen::ir::{Event, EventTypeCarrier, Spec};
use covenant_codegen::samples::Samples;
use serde_json::{Map, Value};
use std::path::Path;

fn spec(relative: &str) -> Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let (_, checked) = covenant_codegen::check_path(&path).expect("read the spec");
    checked.spec.expect("a valid spec")
}

/// A delivery of `event` as the spec describes it: its event type (each placeholder its
/// enum's first value) and the envelope's fields, typed ones from the event.
fn delivery(spec: &Spec, event: &Event) -> (String, Value) {
    let samples = Samples::new(spec);
    let envelope = spec.envelope.expect("an envelope");
    let mut body = samples.instance(envelope, Shape::Response, true, 0);
    let values: Vec<&str> = event
        .placeholders
        .iter()
        .map(|(_, id)| spec.enum_(*id).values[0].name.as_str())
        .collect();
    let event_type = covenant_runtime::events::fill_event_type(&event.pattern, &values);
    let fields: &mut Map<String, Value> = body.as_object_mut().expect("an object");
    for f in &event.fields {
        fields.insert(f.name.clone(), samples.field_example(f, Shape::Response));
    }
    if let Some(EventTypeCarrier::Field(name)) = &spec.event_type {
        fields.insert(name.clone(), Value::String(event_type.clone()));
    }
    (event_type, body)
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
