// The second spec expands into types that parse, validate and keep unknown enum values, and
// into a server trait and client that compile against them.
mod shop {
    covenant_macros::include_spec!("../../../../spec/examples/bookshop.covenant", server, client);
}

use covenant_runtime::Validate;

fn main() {
    let book: shop::models::Book = serde_json::from_str(
        r#"{"isbn": "978-0", "title": "Ode", "genre": "satire", "price": 1200,
            "translator": null, "formats": [1, 2], "stock": 3}"#,
    )
    .unwrap();
    assert_eq!(book.genre, shop::models::Genre::UnknownValue("satire".into()));
    assert!(book.validate().is_ok());
    assert_eq!(book.shelf, shop::models::StringOrInt::String("new".into()));
    let negative = shop::models::Book { price: -1, ..book };
    assert_eq!(negative.validate().unwrap_err()[0].json_path(), "$.price");
    assert!(shop::models::parse_and_validate("Book", &serde_json::json!([])).unwrap().is_err());
    let _router = shop::server::router(std::sync::Arc::new(shop::mock::MockServer::new()), Default::default());
    let _client = shop::client::Client::new(shop::client::Config::new("http://localhost:1"));
}
