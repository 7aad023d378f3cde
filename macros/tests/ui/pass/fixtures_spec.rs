// A spec next to the invoking file, with the three field states.
mod api {
    covenant_macros::include_spec!("fixtures/patch.covenant");
}

fn main() {
    let leave: api::models::UpdateRequest = serde_json::from_str("{}").unwrap();
    let clear: api::models::UpdateRequest = serde_json::from_str(r#"{"note": null}"#).unwrap();
    let set: api::models::UpdateRequest = serde_json::from_str(r#"{"note": "hi"}"#).unwrap();
    assert!(leave.note.is_absent() && clear.note.is_null());
    assert_eq!(set.note.value().map(String::as_str), Some("hi"));
    assert_eq!(serde_json::to_string(&leave).unwrap(), "{}");
}
