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
    assert_eq!(add.responses[0].status, 201);
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
            items: "books".into()
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
