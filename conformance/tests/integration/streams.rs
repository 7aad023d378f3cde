//! Streamed answers, over real HTTP: the runner reads server-sent events and JSON lines into
//! their items, compares them with the cassette's list and validates each against the item's
//! schema; another media type, an item that is no JSON and an item of the wrong shape fail.

use crate::support;

use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use covenant_conformance::outcome::{FailureKind, Report, Verdict};
use covenant_conformance::template::Globals;
use serde_json::{Value, json};
use std::time::Duration;

/// Chat answers by the prompt: a good stream, a chunk without its delta, a broken event.
async fn chat(body: String) -> Response {
    let prompt: Value = serde_json::from_str(&body).unwrap_or_default();
    let stream = match prompt["prompt"].as_str().unwrap_or("") {
        "good" => ": ping\n\ndata: {\"index\":0,\"delta\":\"hi\"}\n\ndata: [DONE]\n\n",
        "shapeless" => "data: {\"index\":0}\n\n",
        _ => "data: {\"index\":0,\n\n",
    };
    ([(header::CONTENT_TYPE, "text/event-stream")], stream).into_response()
}

/// Lines, but labelled as JSON.
async fn export() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        "{\"index\":0,\"delta\":\"a\"}\n",
    )
        .into_response()
}

fn scenario(id: &str, exchange: Value) -> Value {
    json!({
        "id": id,
        "title": id,
        "headers": {"Authorization": "Bearer {{credentials.key}}"},
        "exchanges": [exchange],
    })
}

fn chat_scenario(id: &str, prompt: &str, expect: Value) -> Value {
    scenario(
        id,
        json!({
            "endpoint": "chat",
            "request": {"path": "/chat", "body": {"prompt": prompt}},
            "expect": expect
        }),
    )
}

async fn run() -> Report {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = [
        chat_scenario(
            "good",
            "good",
            json!({"status": 200, "body": [{"index": 0, "delta": "hi"}]}),
        ),
        chat_scenario("shapeless", "shapeless", json!({"status": 200})),
        chat_scenario("broken", "broken", json!({"status": 200})),
        scenario(
            "export",
            json!({"endpoint": "export", "request": {"path": "/export"}, "expect": {"status": 200}}),
        ),
    ];
    for s in &scenarios {
        let path = dir
            .path()
            .join(format!("{}.json", s["id"].as_str().unwrap()));
        std::fs::write(path, s.to_string()).unwrap();
    }
    let globals = Globals {
        credentials: [("key", "k")].into_iter().collect(),
        ..Globals::default()
    };
    let router = axum::Router::new()
        .route("/chat", post(chat))
        .route("/export", get(export));
    let base = support::serve(router).await;
    let contract = support::regression_contract("streams.covenant");
    support::replay(contract, dir.path(), globals, base, Duration::from_secs(5)).await
}

#[tokio::test]
async fn streams_are_read_into_their_items_and_each_is_checked() {
    let report = run().await;
    let outcome = |id: &str| {
        let s = report.scenarios.iter().find(|s| s.id == id).unwrap();
        let failures: Vec<(FailureKind, String)> = s
            .exchanges
            .iter()
            .flat_map(|e| &e.failures)
            .map(|f| (f.kind, format!("{}: {}", f.path, f.actual)))
            .collect();
        (s.verdict, failures)
    };
    assert_eq!(outcome("good"), (Verdict::Passed, vec![]));
    let (verdict, failures) = outcome("shapeless");
    assert_eq!(verdict, Verdict::Failed);
    assert!(
        failures.iter().any(|(_, f)| f.contains("delta")),
        "{failures:?}"
    );
    assert_eq!(
        outcome("broken"),
        (
            Verdict::Failed,
            vec![(
                FailureKind::ContentType,
                "body: event 1 holds no JSON value: EOF while parsing a value at line 1 column 11"
                    .into()
            )]
        )
    );
    assert_eq!(
        outcome("export"),
        (
            Verdict::Failed,
            vec![(
                FailureKind::ContentType,
                "body: Content-Type application/json".into()
            )]
        )
    );
}
