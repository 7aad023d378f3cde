//! Shapes met in published OpenAPI documents, served by the generated router over a real
//! socket: what a request that does not fit is told.

use crate::support::serve;
use covenant_corpus::regressions::imported_shapes as api;
use std::sync::Arc;

async fn started() -> String {
    let mock = api::mock::MockServer::new().with_key("k", api::operations::AuthScheme::Key);
    serve(api::server::router(Arc::new(mock), Default::default())).await
}

async fn send(
    url: &str,
    method: reqwest::Method,
    path: &str,
    media: &str,
    body: &str,
) -> (u16, String) {
    let response = reqwest::Client::new()
        .request(method, format!("{url}{path}"))
        .bearer_auth("k")
        .header("content-type", media)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn a_member_named_by_its_tag_reports_its_own_missing_field() {
    let url = started().await;
    let body = r#"{"method": {"object": "bank_account"}}"#;
    let (status, text) = send(
        &url,
        reqwest::Method::POST,
        "/payments",
        "application/json",
        body,
    )
    .await;
    assert_eq!(status, 422, "{text}");
    assert!(
        text.contains("bank_name"),
        "the bank account's own field is named: {text}"
    );
    assert!(!text.contains("matches none"), "{text}");
}

#[tokio::test]
async fn json_sent_to_a_form_endpoint_is_another_media_type() {
    let url = started().await;
    let (status, text) = send(
        &url,
        reqwest::Method::POST,
        "/messages",
        "application/json",
        r#"{"channel": "c"}"#,
    )
    .await;
    assert_eq!(status, 415, "{text}");
    let (status, text) = send(
        &url,
        reqwest::Method::POST,
        "/messages",
        "application/x-www-form-urlencoded",
        "channel=c",
    )
    .await;
    assert_eq!(status, 200, "{text}");
}

#[tokio::test]
async fn a_delete_takes_its_options_in_a_body() {
    let url = started().await;
    let (status, text) = send(
        &url,
        reqwest::Method::DELETE,
        "/replies/r1",
        "application/json",
        r#"{"grace_period_seconds": 5}"#,
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = send(
        &url,
        reqwest::Method::DELETE,
        "/replies/r1",
        "application/json",
        r#"{"grace_period_seconds": "soon"}"#,
    )
    .await;
    assert_eq!(status, 422, "{text}");
    assert!(text.contains("grace_period_seconds"), "{text}");
}
