//! The runner checks the headers a response declares, over real HTTP: a required header
//! missing, a value that is no integer, one below its minimum and an unknown value of a
//! closed enum each fail as a header failure naming the header; a response with them all
//! right passes.

use crate::support;

use axum::Json;
use axum::extract::Path;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use covenant_conformance::outcome::{FailureKind, Report, Verdict};
use covenant_conformance::template::Globals;
use serde_json::json;
use std::time::Duration;

/// One fault per note id.
async fn get_note(Path(id): Path<i64>) -> Response {
    let headers: Vec<(&str, &str)> = match id {
        1 => vec![
            ("ETag", "\"a\""),
            ("X-RateLimit-Remaining", "5"),
            ("X-RateLimit-Bucket", "reads"),
        ],
        2 => vec![("ETag", "\"a\"")],
        3 => vec![("ETag", "\"a\""), ("X-RateLimit-Remaining", "many")],
        4 => vec![("ETag", "\"a\""), ("x-ratelimit-remaining", "-1")],
        _ => vec![
            ("ETag", "\"a\""),
            ("X-RateLimit-Remaining", "5"),
            ("X-RateLimit-Bucket", "deletes"),
        ],
    };
    let mut response = Json(json!({ "id": id, "text": "a" })).into_response();
    for (name, value) in headers {
        response.headers_mut().insert(
            axum::http::HeaderName::try_from(name).unwrap(),
            value.parse().unwrap(),
        );
    }
    response
}

async fn run() -> Report {
    let dir = tempfile::tempdir().unwrap();
    for id in 1..=5 {
        let scenario = json!({
            "id": format!("note-{id}"),
            "title": format!("note {id}"),
            "headers": {"X-Api-Key": "{{credentials.key}}"},
            "exchanges": [{
                "endpoint": "get_note",
                "request": {"path": format!("/v1/notes/{id}")},
                "expect": {"status": 200}
            }]
        });
        std::fs::write(
            dir.path().join(format!("note-{id}.json")),
            scenario.to_string(),
        )
        .unwrap();
    }
    let globals = Globals {
        credentials: [("key", "k")].into_iter().collect(),
        ..Globals::default()
    };
    let base = support::serve(axum::Router::new().route("/v1/notes/{id}", get(get_note))).await;
    let contract = support::regression_contract("response_headers.covenant");
    support::replay(contract, dir.path(), globals, base, Duration::from_secs(5)).await
}

#[tokio::test]
async fn declared_headers_are_checked_by_name_and_type() {
    let report = run().await;
    let header_failures = |id: &str| -> (Verdict, Vec<String>) {
        let s = report.scenarios.iter().find(|s| s.id == id).unwrap();
        let paths = s
            .exchanges
            .iter()
            .flat_map(|e| &e.failures)
            .map(|f| {
                assert_eq!(f.kind, FailureKind::Header, "{f:?}");
                f.path.clone()
            })
            .collect();
        (s.verdict, paths)
    };
    assert_eq!(header_failures("note-1"), (Verdict::Passed, vec![]));
    for (id, header) in [
        ("note-2", "header x-ratelimit-remaining"),
        ("note-3", "header x-ratelimit-remaining"),
        ("note-4", "header x-ratelimit-remaining"),
        ("note-5", "header x-ratelimit-bucket"),
    ] {
        assert_eq!(
            header_failures(id),
            (Verdict::Failed, vec![header.to_string()]),
            "{id}"
        );
    }
}
