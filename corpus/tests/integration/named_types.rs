//! Named types over real sockets: the constraints a `type` declaration carries are checked
//! on each list item and map value by the router and by `validate()`, a list's items are
//! kept unique, a map's entries counted, and a union that contains itself travels both ways.

use crate::support::serve;
use covenant_corpus::regressions::named_types as api;
use covenant_runtime::Validate;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

use api::models::{ErrorDetails, ErrorItem, InnerErrors, Problem, Thing};
use api::operations::*;
use api::server::{Answer, Context, NamedTypesServer};

/// Echoes a thing; a thing whose id is `0` is refused with nested error details.
struct Server;

impl NamedTypesServer for Server {
    crate::support::accepts_key!("key");

    async fn create_thing(
        &self,
        _: Context<(), Self>,
        input: CreateThingInput,
    ) -> Answer<CreateThingResponse> {
        if input.body.id == "0" {
            return Ok(CreateThingResponse::BadRequest(nested_problem()));
        }
        Ok(CreateThingResponse::Created(input.body))
    }

    async fn find_things(
        &self,
        _: Context<(), Self>,
        input: FindThingsInput,
    ) -> Answer<FindThingsResponse> {
        Ok(FindThingsResponse::Ok(
            input.owner.map(|owners| vec![thing(owners)]),
        ))
    }
}

fn thing(owners: Vec<String>) -> Thing {
    Thing {
        id: "42".into(),
        tags: vec!["red".into(), "blue".into()],
        owners,
        labels: None,
    }
}

/// `{"name": {"first": {"_errors": [...]}}}`: the union holding itself twice over.
fn nested_problem() -> Problem {
    let leaf = ErrorDetails::InnerErrors(InnerErrors {
        errors: vec![ErrorItem {
            code: "BASE_TYPE_REQUIRED".into(),
            message: "This field is required".into(),
        }],
    });
    let first = ErrorDetails::ErrorDetailsMap(BTreeMap::from([("first".to_string(), leaf)]));
    Problem {
        code: 50035,
        message: "Invalid Form Body".into(),
        errors: Some(ErrorDetails::ErrorDetailsMap(BTreeMap::from([(
            "name".to_string(),
            first,
        )]))),
    }
}

async fn started() -> String {
    serve(api::server::router(Arc::new(Server), Default::default())).await
}

async fn post(url: &str, body: Value) -> (u16, Value) {
    crate::support::post_json(&format!("{url}/things"), &body).await
}

/// Each problem's location, as the router's 422 lists them.
fn locations(body: &Value) -> Vec<String> {
    body["detail"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|issue| {
            let parts: Vec<String> = issue["loc"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p.to_string().trim_matches('"').to_string())
                .collect();
            format!(
                "{}: {}",
                parts.join("."),
                issue["msg"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[tokio::test]
async fn a_valid_thing_travels_with_its_named_types() {
    let url = started().await;
    let body = json!({"id": "42", "tags": ["red", "blue"], "owners": ["7"], "labels": {"a": "x"}});
    assert_eq!(post(&url, body.clone()).await, (201, body));
}

#[tokio::test]
async fn every_item_and_value_is_checked_against_its_named_type() {
    let url = started().await;
    let body = json!({
        "id": "042",
        "tags": ["red", "red", "far-too-long"],
        "owners": ["7", "x7"],
        "labels": {"a": "x", "b": "", "c": "z"},
    });
    let (status, answer) = post(&url, body).await;
    assert_eq!(status, 422, "{answer}");
    let found = locations(&answer);
    let expected = [
        "body.id: String should match pattern '^(0|[1-9][0-9]*)$'",
        "body.tags.2: String should have at most 8 characters",
        "body.tags: List should have unique items: items 0 and 1 are equal",
        "body.owners.1: String should match pattern '^(0|[1-9][0-9]*)$'",
        "body.labels.b: String should have at least 1 characters",
        "body.labels: Object should have at most 2 entries",
    ];
    for problem in expected {
        assert!(
            found.iter().any(|f| f == problem),
            "{problem} not in {found:#?}"
        );
    }
}

#[tokio::test]
async fn query_items_are_checked_against_their_named_type() {
    let url = started().await;
    let answer = reqwest::Client::new()
        .get(format!("{url}/things?owner=7&owner=abc"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 422);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(
        locations(&body),
        ["query.owner.1: String should match pattern '^(0|[1-9][0-9]*)$'"]
    );
}

#[tokio::test]
async fn the_client_reads_a_union_that_contains_itself() {
    let url = started().await;
    let config = api::client::Config::new(url).with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    let refused = client
        .create_thing(CreateThingInput {
            body: Thing {
                id: "0".into(),
                ..thing(vec![])
            },
        })
        .await
        .unwrap();
    assert_eq!(refused, CreateThingResponse::BadRequest(nested_problem()));
    let found = client
        .find_things(FindThingsInput {
            owner: Some(vec!["9".into()]),
        })
        .await
        .unwrap();
    assert_eq!(
        found,
        FindThingsResponse::Ok(Some(vec![thing(vec!["9".into()])]))
    );
    let none = client
        .find_things(FindThingsInput { owner: None })
        .await
        .unwrap();
    assert_eq!(none, FindThingsResponse::Ok(None));
}

#[tokio::test]
async fn a_body_that_may_be_null_travels_as_null() {
    let url = started().await;
    let answer = reqwest::Client::new()
        .get(format!("{url}/things"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.text().await.unwrap(), "null");
}

#[test]
fn validate_finds_what_the_router_finds() {
    let broken = Thing {
        id: "1".into(),
        tags: vec!["a".into(), "a".into()],
        owners: vec!["x".into()],
        labels: Some(BTreeMap::from([("k".into(), String::new())])),
    };
    let issues = broken.validate().unwrap_err();
    let found: Vec<String> = issues.iter().map(ToString::to_string).collect();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(
        serde_json::to_value(nested_problem()).unwrap()["errors"],
        json!({"name": {"first": {"_errors": [{"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}}})
    );
}

/// HEAD is answered by the GET of the same path: its status and headers, no body.
#[tokio::test]
async fn head_is_answered_by_the_get_without_a_body() {
    let url = started().await;
    let answer = reqwest::Client::new()
        .head(format!("{url}/things?owner=7"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.headers()["content-type"], "application/json");
    assert_eq!(answer.bytes().await.unwrap().len(), 0);
}
