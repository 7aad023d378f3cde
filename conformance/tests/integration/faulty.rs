//! The runner against a deliberately faulty implementation over real HTTP: each fault gets
//! the right failure, with its JSON path and where the rule comes from.

use crate::support;

use axum::Json;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use covenant_conformance::Contract;
use covenant_conformance::outcome::{FailureKind, Report, Verdict};
use covenant_conformance::template::Globals;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn user(id: &str) -> Value {
    json!({
        "user_id": id,
        "team_id": "9e0c1a4e-2f4b-4c8e-9a57-0c2d8f1e6b3a",
        "client_user_id": "patient-1",
        "created_on": "2026-01-01T00:00:00Z",
        "connected_sources": [],
        "fallback_time_zone": {"id": "UTC", "source_slug": "default", "updated_at": "2026-01-01T00:00:00Z"}
    })
}

/// One fault per user id's last digit.
async fn get_user(Path(id): Path<String>) -> Response {
    let mut body = user(&id);
    match id.chars().last() {
        Some('1') => Json(body).into_response(),
        Some('2') => (StatusCode::BAD_GATEWAY, Json(json!({"detail": "boom"}))).into_response(),
        Some('3') => {
            body.as_object_mut().unwrap().remove("client_user_id");
            Json(body).into_response()
        }
        Some('4') => {
            body["created_on"] = json!(5);
            Json(body).into_response()
        }
        Some('5') => ([(header::CONTENT_TYPE, "text/plain")], body.to_string()).into_response(),
        Some('6') => StatusCode::NOT_FOUND.into_response(),
        Some('7') => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            Json(body).into_response()
        }
        Some('8') => {
            body["client_user_id"] = json!("x".repeat(HUGE));
            Json(body).into_response()
        }
        Some('9') => {
            // No Content-Length: the size shows only while reading.
            let chunks = (0..HUGE / 65_536 + 1).map(|_| Ok::<_, std::io::Error>(bytes_of(65_536)));
            let stream = futures_util::stream::iter(chunks);
            (
                [(header::CONTENT_TYPE, "application/json")],
                axum::body::Body::from_stream(stream),
            )
                .into_response()
        }
        Some('0') => {
            body["connected_sources"] = json!(vec![7; 5_000]);
            Json(body).into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// More than the runner reads by default (10 MiB).
const HUGE: usize = 11 * 1024 * 1024;

fn bytes_of(n: usize) -> axum::body::Bytes {
    axum::body::Bytes::from(vec![b' '; n])
}

/// `region` is a closed enum: `mars` is not one of its values.
async fn list_teams() -> Response {
    Json(json!({
        "teams": [{
            "id": "9e0c1a4e-2f4b-4c8e-9a57-0c2d8f1e6b3a", "name": "Lab", "created_on": "2026-01-01T00:00:00Z", "region": "mars"
        }],
        "next_cursor": null
    }))
    .into_response()
}

async fn serve_faulty() -> String {
    let router = axum::Router::new()
        .route("/v2/user/{user_id}", get(get_user))
        .route("/v1/org/{org_id}/team", get(list_teams));
    support::serve(router).await
}

fn contract() -> Arc<Contract> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    let (_, checked) = covenant_codegen::check_path(&path).unwrap();
    Arc::new(Contract::new(checked.spec.unwrap()).unwrap())
}

fn scenario(id: &str, endpoint: &str, path: &str, status: u16) -> String {
    json!({
        "id": id,
        "title": id,
        "headers": {"x-service-api-key": "{{credentials.team_api_key}}"},
        "exchanges": [{
            "endpoint": endpoint,
            "request": {"path": path},
            "expect": {"status": status, "body": if status == 200 && endpoint == "get_user" {
                json!({"client_user_id": "patient-1"})
            } else {
                Value::Null
            }}
        }]
    })
    .to_string()
    .replace(",\"body\":null", "")
}

async fn run_against_faulty() -> Report {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "ok",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000001",
            200,
        ),
        (
            "wrong-status",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000002",
            200,
        ),
        (
            "missing-field",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000003",
            200,
        ),
        (
            "wrong-type",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000004",
            200,
        ),
        (
            "wrong-content-type",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000005",
            200,
        ),
        (
            "empty-error-body",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000006",
            404,
        ),
        (
            "slow",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000007",
            200,
        ),
        (
            "huge-body",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000008",
            200,
        ),
        (
            "huge-streamed-body",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000009",
            200,
        ),
        (
            "unknown-enum-value",
            "list_teams",
            "/v1/org/9e0c1a4e-2f4b-4c8e-9a57-0c2d8f1e6b3a/team",
            200,
        ),
        (
            "thousands-of-schema-errors",
            "get_user",
            "/v2/user/00000000-0000-4000-8000-000000000010",
            200,
        ),
    ];
    for (id, endpoint, path, status) in cases {
        std::fs::write(
            dir.path().join(format!("{id}.json")),
            scenario(id, endpoint, path, status),
        )
        .unwrap();
    }
    let globals = Globals {
        credentials: [("team_api_key", "sk_team_faulty_secret")]
            .into_iter()
            .collect(),
        ..Globals::default()
    };
    let base = serve_faulty().await;
    // Well above what a bodiless 404 takes, even beside the huge bodies built meanwhile in a
    // debug build, and well below the slow answer's 3 s.
    support::replay(
        contract(),
        dir.path(),
        globals,
        base,
        Duration::from_millis(1500),
    )
    .await
}

fn failures(report: &Report, id: &str) -> Vec<(FailureKind, String, String)> {
    let s = report.scenarios.iter().find(|s| s.id == id).unwrap();
    s.exchanges
        .iter()
        .flat_map(|e| &e.failures)
        .map(|f| (f.kind, f.path.clone(), f.source.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_fault_gets_its_failure() {
    let report = run_against_faulty().await;
    let verdict = |id: &str| {
        report
            .scenarios
            .iter()
            .find(|s| s.id == id)
            .unwrap()
            .verdict
    };
    assert_eq!(verdict("ok"), Verdict::Passed);
    for id in [
        "wrong-status",
        "missing-field",
        "wrong-type",
        "wrong-content-type",
        "empty-error-body",
        "slow",
        "huge-body",
        "huge-streamed-body",
        "unknown-enum-value",
    ] {
        assert_eq!(verdict(id), Verdict::Failed, "{id}");
    }
    // Each failure carries where the spec says its rule comes from.
    let contract = contract();
    let source_of_200 = contract
        .route("get_user")
        .unwrap()
        .response(200)
        .unwrap()
        .provenance
        .word();
    let status = failures(&report, "wrong-status");
    assert!(
        status.contains(&(FailureKind::Status, "status".into(), source_of_200.into())),
        "{status:?}"
    );
    assert!(
        status.iter().filter(|f| f.0 == FailureKind::Status).count() == 2,
        "expected 200 and undeclared 502: {status:?}"
    );

    // Each run-time failure names where the cassette writes what failed.
    let exchange = |id: &str| {
        report
            .scenarios
            .iter()
            .find(|s| s.id == id)
            .unwrap()
            .exchanges[0]
            .clone()
    };
    let at = exchange("wrong-status").failures[0].at.clone().unwrap();
    assert!(at.file.ends_with("wrong-status.json"), "{at}");
    assert!(at.excerpt[at.col - 1..].starts_with("200"), "{at:?}");
    assert!(
        exchange("wrong-status").failures[0]
            .actual
            .contains("with body {\"detail\":\"boom\"}")
    );
    let body_at = exchange("missing-field")
        .failures
        .iter()
        .find(|f| f.kind == FailureKind::Body)
        .and_then(|f| f.at.clone())
        .unwrap();
    assert!(
        body_at.excerpt[body_at.col - 1..].starts_with("\"patient-1\""),
        "{body_at:?}"
    );

    let missing = failures(&report, "missing-field");
    assert!(
        missing
            .iter()
            .any(|f| f.0 == FailureKind::Schema && f.1 == "$"),
        "{missing:?}"
    );
    assert!(
        missing
            .iter()
            .any(|f| f.0 == FailureKind::Body && f.1 == "$.client_user_id"),
        "{missing:?}"
    );

    let wrong_type = failures(&report, "wrong-type");
    assert_eq!(
        wrong_type,
        vec![(
            FailureKind::Schema,
            "$.created_on".into(),
            source_of_200.into()
        )]
    );

    assert_eq!(
        failures(&report, "wrong-content-type")[0].0,
        FailureKind::ContentType
    );
    let empty = failures(&report, "empty-error-body");
    assert_eq!(empty[0].0, FailureKind::ContentType, "{empty:?}");
    assert_eq!(
        empty[0].2, "deployed_client",
        "404 bodies come from the deployed client"
    );

    assert_eq!(failures(&report, "slow")[0].0, FailureKind::Timeout);
    for id in ["huge-body", "huge-streamed-body"] {
        let exchange = &report
            .scenarios
            .iter()
            .find(|s| s.id == id)
            .unwrap()
            .exchanges[0];
        assert_eq!(exchange.failures[0].kind, FailureKind::Transport, "{id}");
        assert!(exchange.failures[0].actual.contains("--max-body"), "{id}");
    }
    let json = serde_json::to_string(&report).unwrap();
    assert!(
        json.len() < 200_000,
        "a huge body is not copied into the report"
    );
    let many = failures(&report, "thousands-of-schema-errors");
    assert!(
        many.len() <= 25,
        "a body with thousands of schema errors lists a few: {}",
        many.len()
    );
    let last = &report
        .scenarios
        .iter()
        .find(|s| s.id == "thousands-of-schema-errors")
        .unwrap()
        .exchanges[0]
        .failures;
    assert!(
        last.iter()
            .any(|f| f.actual.ends_with("more errors, not listed")),
        "{last:#?}"
    );
    let enum_value = failures(&report, "unknown-enum-value");
    assert_eq!(enum_value[0].0, FailureKind::Schema);
    assert_eq!(enum_value[0].1, "$.teams[0].region");
}

#[tokio::test]
async fn reports_name_the_exchange_and_never_the_secret() {
    let report = run_against_faulty().await;
    let summary = covenant_conformance::report::console::summary(&report);
    assert!(summary.contains("FAIL wrong-type"), "{summary}");
    assert!(summary.contains("$.created_on"), "{summary}");
    assert!(
        summary.contains("\"$TEAM_API_KEY\""),
        "the curl line names the key by variable: {summary}"
    );
    let dir = tempfile::tempdir().unwrap();
    covenant_conformance::report::write_all(dir.path(), &report).unwrap();
    for file in ["report.json", "junit.xml", "report.html"] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(
            !text.contains("sk_team_faulty_secret"),
            "{file} leaks the key"
        );
    }
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), 11);
    assert_eq!(junit.matches("<failure ").count(), 10);
    assert!(
        junit.contains("exchange 1 (get_user): schema $.created_on"),
        "{junit}"
    );
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"coverage\">Coverage</h2>") && html.contains("list_teams"));
    // The page opens on the verdict and the failures, each linked; the matrix comes after.
    let verdict = html.find("✗ Failed (exit status 1)").expect("the verdict");
    let failures = html.find("id=\"failures\"").expect("the failures");
    let coverage = html.find("id=\"coverage\"").unwrap();
    assert!(verdict < failures && failures < coverage, "{html}");
    assert!(
        html.contains("<a href=\"#scenario-wrong-status\">"),
        "{html}"
    );
    assert!(
        html.contains("href=\"transcripts/wrong-status.txt\""),
        "{html}"
    );
}
