//! The language is not tied to one service: a second, unrelated spec checks cleanly and
//! lowers to the IR it says.

use covenant_codegen::ir::*;
use std::path::Path;

#[test]
fn bookshop_spec_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/examples/bookshop.covenant");
    let (file, checked) = covenant_codegen::check_path(&path).unwrap();
    assert!(
        checked.diagnostics.items.is_empty(),
        "{}",
        checked.diagnostics.render(&file)
    );
    let spec = checked.spec.unwrap();
    assert_eq!(spec.service.title.as_deref(), Some("Bookshop API"));
    let health = spec.endpoint_named("health").unwrap();
    assert!(health.auth.public && health.auth.any_of.is_empty());
    let add = spec.endpoint_named("add_book").unwrap();
    assert_eq!(
        add.responses[0].status,
        covenant_codegen::ir::StatusPattern::Exact(201)
    );
    assert!(!add.idempotent, "POST is not idempotent unless marked");
    assert!(spec.endpoint_named("get_book").unwrap().idempotent);
    let format = spec.enum_named("Format").unwrap();
    assert_eq!(format.repr, EnumRepr::Int);
    assert!(!format.open);
    let book = spec.model_named("Book").unwrap();
    assert_eq!(
        book.field("translator").unwrap().presence,
        Presence::Nullable
    );
    assert_eq!(
        book.field("series").unwrap().presence,
        Presence::OptionalNullable
    );
    assert_eq!(
        spec.endpoint_named("list_books").unwrap().paging,
        Some(Paging::Page {
            page: "page".into(),
            size: "per_page".into(),
            items: vec!["books".into()]
        })
    );
    assert!(
        spec.events
            .iter()
            .any(|e| spec.event_produces(e, "stock.sold_out"))
    );
    assert!(
        !spec
            .events
            .iter()
            .any(|e| spec.event_produces(e, "stock.lost"))
    );
}

/// The envelope says where the event type travels, and the event schemas follow it.
#[test]
fn event_schemas_follow_the_envelopes_event_type() {
    use covenant_codegen::emit::schema::{RefStyle, SchemaBuilder};
    use covenant_codegen::ir::shapes::Shapes;
    let load = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../corpus/specs/{name}"));
        covenant_codegen::check_path(&path).unwrap().1.spec.unwrap()
    };
    let github = load("github.covenant");
    assert_eq!(
        github.event_type,
        Some(EventTypeCarrier::Header("X-GitHub-Event".into()))
    );
    let shapes = Shapes::new(&github);
    let builder = SchemaBuilder {
        spec: &github,
        shapes: &shapes,
        style: RefStyle::Components,
    };
    let issues = builder.event_schema(&github.events[0]);
    assert_eq!(issues["x-event-type-header"]["name"], "X-GitHub-Event");
    assert!(issues["properties"]["action"].get("pattern").is_none());

    let payments = load("payments.covenant");
    assert_eq!(
        payments.event_type,
        Some(EventTypeCarrier::Field("type".into()))
    );
    let shapes = Shapes::new(&payments);
    let builder = SchemaBuilder {
        spec: &payments,
        shapes: &shapes,
        style: RefStyle::Components,
    };
    let created = builder.event_schema(&payments.events[0]);
    assert_eq!(
        created["properties"]["type"]["pattern"],
        "^customer\\.created$"
    );
}

/// `check`'s count of deprecations takes in every deprecated thing: an enum value, a model,
/// a field, an endpoint and a parameter.
#[test]
fn every_kind_of_deprecation_is_counted() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions/deprecated_use.covenant");
    let (_, checked) = covenant_codegen::check_path(&path).unwrap();
    let spec = checked.spec.unwrap();
    let marked: Vec<String> = spec
        .deprecations()
        .into_iter()
        .map(|(what, _)| what)
        .collect();
    assert_eq!(
        marked,
        [
            "Colour.crimson",
            "model OldThing",
            "Thing.label",
            "endpoint old_thing",
            "endpoint old_thing verbose",
        ]
    );
    assert_eq!(
        covenant_codegen::summary::Summary::of(&spec).deprecations,
        5
    );
}
