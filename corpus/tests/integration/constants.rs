//! Boolean and number constants over real sockets: the router and `validate()` refuse
//! another value, and the client reads the member of `Posted | Failed` that `ok` names.

use crate::support::serve;
use covenant_corpus::regressions::constants as api;
use covenant_runtime::Validate;
use serde_json::{Value, json};
use std::sync::Arc;

use api::models::{Failed, Message, PostMessageResponse200, Posted};
use api::operations::*;
use api::server::{Answer, ConstantsServer, Context};

/// Posts a message, and refuses an empty one.
struct Server;

impl ConstantsServer for Server {
    crate::support::accepts_key!("key");

    async fn post_message(
        &self,
        _: Context<(), Self>,
        input: PostMessageInput,
    ) -> Answer<PostMessageResponse> {
        if input.body.text.is_empty() {
            let failed = Failed {
                ok: false,
                error: "no_text".into(),
            };
            return Ok(PostMessageResponse::Ok(PostMessageResponse200::Failed(
                failed,
            )));
        }
        let posted = Posted {
            ok: true,
            ts: "1503435956.000247".into(),
            edited: (),
        };
        Ok(PostMessageResponse::Ok(PostMessageResponse200::Posted(
            posted,
        )))
    }

    async fn allowed_methods(
        &self,
        _: Context<(), Self>,
        _: AllowedMethodsInput,
    ) -> Answer<AllowedMethodsResponse> {
        Ok(AllowedMethodsResponse::NoContent {
            headers: AllowedMethodsNoContentHeaders {
                allow: "OPTIONS, POST".into(),
            },
        })
    }
}

async fn started() -> String {
    serve(api::server::router(Arc::new(Server), Default::default())).await
}

async fn post(url: &str, body: Value) -> (u16, Value) {
    crate::support::post_json(&format!("{url}/chat.postMessage"), &body).await
}

#[tokio::test]
async fn the_router_refuses_any_other_value_of_a_constant() {
    let url = started().await;
    let (status, body) = post(&url, json!({"version": 3, "confirm": false, "text": "hi"})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        crate::support::problems(&body),
        [
            (
                r#"["body","version"]"#.to_string(),
                "Input should be 2".to_string()
            ),
            (
                r#"["body","confirm"]"#.to_string(),
                "Input should be true".to_string()
            ),
        ]
    );
    let (status, _) = post(&url, json!({"version": 2, "confirm": true, "text": "hi"})).await;
    assert_eq!(status, 200);
}

/// A field that is always null: the router takes it null or absent and refuses any value,
/// the answer writes it, and the client reads a present null apart from an absent one.
#[tokio::test]
async fn a_null_field_holds_null_and_nothing_else() {
    let url = started().await;
    let message = json!({"version": 2, "confirm": true, "text": "hi", "thread": 1});
    let (status, body) = post(&url, message).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        crate::support::problems(&body),
        [(
            r#"["body","thread"]"#.to_string(),
            "Input should be None".to_string()
        )]
    );
    let message = json!({"version": 2, "confirm": true, "text": "hi", "thread": null});
    let (status, body) = post(&url, message).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["edited"], Value::Null);
    assert!(body.as_object().unwrap().contains_key("edited"), "{body}");

    let sent: Message =
        serde_json::from_value(json!({"version": 2, "confirm": true, "text": "a", "thread": null}))
            .unwrap();
    assert_eq!(sent.thread, Some(()));
    assert_eq!(serde_json::to_value(&sent).unwrap()["thread"], Value::Null);
    let absent: Message =
        serde_json::from_value(json!({"version": 2, "confirm": true, "text": "a"})).unwrap();
    assert_eq!(absent.thread, None);
    assert!(serde_json::from_value::<Posted>(json!({"ok": true, "ts": "1"})).is_err());
}

/// The schemas and the OpenAPI document say `{"type": "null"}`, and the field is required
/// where the spec says so.
#[test]
fn a_null_field_is_type_null_in_the_schemas() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/regressions/constants.covenant"
    );
    let (_, checked) = covenant_codegen::check_path(std::path::Path::new(path)).unwrap();
    let spec = checked.spec.unwrap();
    let files = covenant_codegen::emit::openapi::documents(&spec);
    let document: Value = serde_json::from_str(&files["openapi/main.json"]).unwrap();
    let posted = &document["components"]["schemas"]["Posted"];
    assert_eq!(posted["properties"]["edited"], json!({"type": "null"}));
    assert!(
        posted["required"]
            .as_array()
            .unwrap()
            .contains(&json!("edited"))
    );
}

#[tokio::test]
async fn the_client_reads_the_member_ok_names() {
    let url = started().await;
    let config = api::client::Config::new(url).with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    // The builder fills the constants in.
    let message = |text: &str| Message::builder().text(text).build().unwrap();
    let posted = client
        .post_message(PostMessageInput {
            body: message("hi"),
        })
        .await
        .unwrap();
    assert!(
        matches!(&posted, PostMessageResponse::Ok(PostMessageResponse200::Posted(p)) if p.ok),
        "{posted:?}"
    );
    let failed = client
        .post_message(PostMessageInput { body: message("") })
        .await
        .unwrap();
    assert!(
        matches!(&failed, PostMessageResponse::Ok(PostMessageResponse200::Failed(f)) if !f.ok && f.error == "no_text"),
        "{failed:?}"
    );
}

/// OPTIONS is routed beside the POST of the same path, and the client sends it.
#[tokio::test]
async fn an_options_endpoint_answers_beside_a_post() {
    let url = started().await;
    let answer = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, format!("{url}/chat.postMessage"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 204);
    assert_eq!(answer.headers()["allow"], "OPTIONS, POST");
    let config = api::client::Config::new(url).with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    let allowed = client
        .allowed_methods(AllowedMethodsInput {})
        .await
        .unwrap();
    assert!(
        matches!(&allowed, AllowedMethodsResponse::NoContent { headers } if headers.allow == "OPTIONS, POST"),
        "{allowed:?}"
    );
}

#[test]
fn a_constant_is_checked_and_tells_the_members_apart() {
    let wrong = Message {
        version: 2,
        confirm: false,
        text: "hi".into(),
        channel: None,
        thread: None,
    };
    let issues = wrong.validate().unwrap_err();
    assert_eq!(issues.len(), 1, "{issues:?}");
    let read: PostMessageResponse200 =
        serde_json::from_value(json!({"ok": false, "error": "x"})).unwrap();
    assert!(matches!(read, PostMessageResponse200::Failed(_)));
    let unknown = serde_json::from_value::<PostMessageResponse200>(json!({"ok": "yes", "ts": "1"}));
    assert!(
        unknown
            .unwrap_err()
            .to_string()
            .contains("expected one of true, false")
    );
}
