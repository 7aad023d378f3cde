//! Headers every endpoint of an api takes, over real sockets: the router reads them into each
//! endpoint's input and refuses a missing or wrong one, naming it; the client sends them; an
//! endpoint that declares the header itself (required there) has its own way.

use crate::support::{self, problems};
use covenant_corpus::regressions::api_headers as api;
use serde_json::Value;
use std::sync::Arc;

use api::operations::*;
use api::server::{Answer, ApiHeadersServer, Context};

/// Answers what it read from the headers.
struct Server;

impl ApiHeadersServer for Server {
    support::accepts_key!("key");

    async fn list_things(
        &self,
        _: Context<(), Self>,
        input: ListThingsInput,
    ) -> Answer<ListThingsResponse> {
        Ok(ListThingsResponse::Ok(api::models::Seen {
            project: input.example_project,
            version: input.example_version,
        }))
    }

    async fn create_thing(
        &self,
        _: Context<(), Self>,
        input: CreateThingInput,
    ) -> Answer<CreateThingResponse> {
        Ok(CreateThingResponse::Created(api::models::Seen {
            project: Some(input.example_project),
            version: input.example_version,
        }))
    }
}

async fn serve() -> String {
    support::serve(api::server::router(Arc::new(Server), Default::default())).await
}

fn client(url: &str) -> api::client::Client {
    let config = api::client::Config::new(url.to_string())
        .with_credential(AuthScheme::Key, "key".to_string());
    api::client::Client::new(config).unwrap()
}

#[tokio::test]
async fn the_client_sends_the_apis_headers_and_the_router_reads_them() {
    let url = serve().await;
    let listed = client(&url)
        .list_things(ListThingsInput {
            example_project: None,
            example_version: "2025-01-01".into(),
        })
        .await
        .unwrap();
    let ListThingsResponse::Ok(seen) = listed;
    assert_eq!((seen.project, seen.version.as_str()), (None, "2025-01-01"));

    let created = client(&url)
        .create_thing(CreateThingInput {
            example_project: "apollo".into(),
            example_version: "2024-01-01".into(),
            body: api::models::CreateThingRequest {
                name: "rocket".into(),
            },
        })
        .await
        .unwrap();
    let CreateThingResponse::Created(seen) = created;
    assert_eq!(seen.project.as_deref(), Some("apollo"));
}

#[tokio::test]
async fn a_missing_or_wrong_api_header_is_named_by_the_router() {
    let url = serve().await;
    let http = reqwest::Client::new();
    let answer = |request: reqwest::RequestBuilder| async move {
        let answer = request.bearer_auth("key").send().await.unwrap();
        let status = answer.status().as_u16();
        (status, answer.json::<Value>().await.unwrap_or_default())
    };

    let (status, body) = answer(http.get(format!("{url}/things"))).await;
    assert_eq!(status, 422, "{body}");
    let named = problems(&body);
    assert_eq!(named.len(), 1, "{body}");
    assert!(named[0].0.contains("Example-Version"), "{body}");

    let (status, body) = answer(
        http.get(format!("{url}/things"))
            .header("example-version", "1999-01-01"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(problems(&body)[0].0.contains("Example-Version"), "{body}");

    let (status, body) = answer(
        http.get(format!("{url}/things"))
            .header("example-version", "2024-01-01")
            .header("example-project", "apollo"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["project"], "apollo");

    // Required where the endpoint says so.
    let (status, body) = answer(
        http.post(format!("{url}/things"))
            .header("example-version", "2024-01-01")
            .json(&serde_json::json!({"name": "rocket"})),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(problems(&body)[0].0.contains("Example-Project"), "{body}");
}

/// The OpenAPI document states the headers on every operation, as the spec's endpoints hold
/// them.
#[test]
fn every_operation_states_the_apis_headers() {
    let spec = support::regression_spec("api_headers");
    let documents = covenant_codegen::emit::openapi::documents(&spec);
    let (_, text) = documents.iter().next().expect("an OpenAPI document");
    let document: Value = serde_json::from_str(text).unwrap();
    for (path, method) in [("/things", "get"), ("/things", "post")] {
        let params = document["paths"][path][method]["parameters"]
            .as_array()
            .unwrap();
        let headers: Vec<(&str, bool)> = params
            .iter()
            .filter(|p| p["in"] == "header")
            .map(|p| (p["name"].as_str().unwrap(), p["required"] == true))
            .collect();
        let project_required = method == "post";
        assert!(
            headers.contains(&("Example-Project", project_required)),
            "{path} {method}: {headers:?}"
        );
        assert!(headers.contains(&("Example-Version", true)), "{headers:?}");
    }
}
