//! A deprecated endpoint with a removal date (`@deprecated(…, sunset: "YYYY-MM-DD")`), end
//! to end: the generated router and `covenant mock` both answer it with a `Sunset` header
//! (RFC 8594), refusals included, other endpoints without one, the OpenAPI document states
//! the date, and a date that is no date is a diagnostic.

use crate::support::{self, serve};
use covenant_codegen::contract::build_static;
use covenant_corpus::petstore;
use std::sync::Arc;

const PETSTORE: &str = include_str!("../../specs/petstore.covenant");
const SUNSET: &str = "Wed, 30 Jun 2027 00:00:00 GMT";

fn petstore_spec() -> covenant_codegen::ir::Spec {
    let file = covenant_codegen::SourceFile::new("petstore.covenant", PETSTORE);
    covenant_codegen::check_source(&file)
        .spec
        .expect("the corpus spec is valid")
}

/// The `Sunset` header of `GET path` with the store's key.
async fn sunset_of(url: &str, path: &str) -> Option<String> {
    let response = reqwest::Client::new()
        .get(format!("{url}{path}"))
        .header("api_key", "store-key")
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    let value = response.headers().get("sunset")?;
    Some(value.to_str().unwrap().to_string())
}

#[tokio::test]
async fn the_generated_router_and_the_spec_mock_answer_the_removal_date() {
    let mock = petstore::mock::MockServer::new()
        .with_key("store-key", petstore::operations::AuthScheme::ApiKey);
    let generated = serve(petstore::server::router(Arc::new(mock), Default::default())).await;

    let spec = petstore_spec();
    let from_spec = serve(support::spec_mock(&spec, |_, name| {
        (name == "api_key").then(|| "store-key".to_string())
    }))
    .await;

    for url in [&generated, &from_spec] {
        let tagged = sunset_of(url, "/v3/pet/findByTags?tags=a").await;
        assert_eq!(tagged.as_deref(), Some(SUNSET), "{url}");
        let by_status = sunset_of(url, "/v3/pet/findByStatus?status=available").await;
        assert_eq!(
            by_status, None,
            "{url}: an endpoint that stays says nothing"
        );
        let refused = reqwest::get(format!("{url}/v3/pet/findByTags?tags=a"))
            .await
            .unwrap();
        assert_eq!(refused.status(), 401, "{url}: no key");
        assert_eq!(
            refused.headers()["sunset"],
            SUNSET,
            "{url}: a refusal says it too"
        );
    }
}

#[test]
fn the_contract_and_the_documents_state_the_date() {
    let spec = petstore_spec();
    let contract = build_static(&spec);
    let endpoint = contract.endpoint("findPetsByTags").unwrap();
    assert_eq!(endpoint.sunset, Some("2027-06-30"));
    assert_eq!(
        petstore::descriptors::ENDPOINT_FIND_PETS_BY_TAGS.sunset,
        Some("2027-06-30")
    );

    let documents = covenant_codegen::emit::openapi::documents(&spec);
    let (_, text) = documents.iter().next().expect("an OpenAPI document");
    let openapi: serde_json::Value = serde_json::from_str(text).unwrap();
    let operation = &openapi["paths"]["/v3/pet/findByTags"]["get"];
    assert_eq!(operation["deprecated"], true);
    assert_eq!(operation["x-deprecation"]["sunset"], "2027-06-30");
}

#[test]
fn a_sunset_that_is_no_date_is_refused_where_it_is_written() {
    let text = PETSTORE.replace("sunset: \"2027-06-30\"", "sunset: \"2027-06-31\"");
    let file = covenant_codegen::SourceFile::new("petstore.covenant", &text);
    let checked = covenant_codegen::check_source(&file);
    assert!(checked.spec.is_none());
    let rendered = checked.diagnostics.render(&file);
    assert!(rendered.contains("E0113"), "{rendered}");
    assert!(rendered.contains("`sunset` is the date"), "{rendered}");
    let line = PETSTORE
        .lines()
        .position(|l| l.contains("sunset:"))
        .unwrap()
        + 1;
    assert!(
        rendered.contains(&format!("petstore.covenant:{line}:")),
        "{rendered}"
    );
}
