// The second spec expands into types that parse, validate and keep unknown enum values.
mod shop {
    covenant_macros::include_spec!("../../../../spec/examples/bookshop.covenant");
}

use covenant_runtime::Validate;

fn main() {
    let book: shop::Book = serde_json::from_str(
        r#"{"isbn": "978-0", "title": "Ode", "genre": "satire", "price": 1200,
            "translator": null, "formats": [1, 2], "stock": 3}"#,
    )
    .unwrap();
    assert_eq!(book.genre, shop::Genre::UnknownValue("satire".into()));
    assert!(book.validate().is_ok());
    let negative = shop::Book { price: -1, ..book };
    assert_eq!(negative.validate().unwrap_err()[0].json_path(), "$.price");
    assert!(shop::parse_and_validate("Book", &serde_json::json!([])).unwrap().is_err());
}
