//! The runner writes and reads bodies other than JSON, over real HTTP: a cassette's object
//! goes out as multipart parts (a file from its base64), text and bytes as they are; a raw
//! response is checked for its declared media type and compared as text (base64 for bytes).

use crate::support;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use covenant_conformance::outcome::{FailureKind, Report, Verdict};
use covenant_conformance::template::Globals;
use serde_json::{Value, json};
use std::time::Duration;

/// Answers an upload only when it came as parts holding the file's bytes and its purpose.
async fn upload(headers: HeaderMap, body: Bytes) -> Response {
    let content_type = headers[header::CONTENT_TYPE].to_str().unwrap_or("");
    let text = String::from_utf8_lossy(&body);
    let as_parts = content_type.starts_with("multipart/form-data; boundary=")
        && text.contains("name=\"file\"; filename=\"scan.png\"\r\nContent-Type: image/png\r\n\r\n\u{1}\u{2}\u{3}\r\n")
        && text.contains("name=\"purpose\"\r\n\r\nevidence\r\n");
    if !as_parts {
        return (StatusCode::BAD_REQUEST, text.into_owned()).into_response();
    }
    axum::Json(json!({"purpose": "evidence", "filename": "scan.png", "size": 3, "attachments": 0}))
        .into_response()
}

async fn render(body: String) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        format!("<p>{body}</p>"),
    )
        .into_response()
}

/// The wrong media type for a CSV export.
async fn export() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/plain"),
            (header::CONTENT_DISPOSITION, "attachment"),
        ],
        "id\n1\n",
    )
        .into_response()
}

async fn mirror(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "image/png")], body).into_response()
}

fn scenario(id: &str, exchange: Value) -> Value {
    json!({
        "id": id,
        "title": id,
        "headers": {"X-Api-Key": "{{credentials.key}}"},
        "exchanges": [exchange],
    })
}

async fn run() -> Report {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = [
        scenario(
            "upload",
            json!({
                "endpoint": "upload",
                "request": {"path": "/v1/uploads", "body": {
                    "file": {"filename": "scan.png", "content_type": "image/png", "content": "AQID"},
                    "purpose": "evidence"
                }},
                "expect": {"status": 200, "body": {"size": 3, "filename": "scan.png"}}
            }),
        ),
        scenario(
            "render",
            json!({
                "endpoint": "render",
                "request": {"path": "/v1/render", "body": "héllo"},
                "expect": {"status": 200, "body": "<p>héllo</p>"}
            }),
        ),
        scenario(
            "export",
            json!({
                "endpoint": "export",
                "request": {"path": "/v1/export"},
                "expect": {"status": 200}
            }),
        ),
        scenario(
            "mirror",
            json!({
                "endpoint": "mirror_image",
                "request": {"path": "/v1/images/logo", "body": "iVBORw0KGgr/AA=="},
                "expect": {"status": 200, "body": "iVBORw0KGgr/AA=="}
            }),
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
        .route("/v1/uploads", post(upload))
        .route("/v1/render", post(render))
        .route("/v1/export", get(export))
        .route("/v1/images/{name}", put(mirror));
    let base = support::serve(router).await;
    let contract = support::regression_contract("media.covenant");
    support::replay(contract, dir.path(), globals, base, Duration::from_secs(5)).await
}

#[tokio::test]
async fn bodies_go_out_as_their_endpoints_take_them_and_come_back_as_declared() {
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
    for id in ["upload", "render", "mirror"] {
        assert_eq!(outcome(id), (Verdict::Passed, vec![]), "{id}");
    }
    assert_eq!(
        outcome("export"),
        (
            Verdict::Failed,
            vec![(
                FailureKind::ContentType,
                "body: Content-Type text/plain".into()
            )]
        )
    );
}
