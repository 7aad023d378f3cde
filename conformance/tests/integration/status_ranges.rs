//! Responses declared for a class (`4XX`) or as `default`, over real HTTP: an answer of any
//! status the class covers is checked against the class's schema and counted in the
//! coverage matrix under the class; a body that does not fit it fails; a status no
//! response covers fails as a status failure.

use crate::support;

use axum::Json;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use covenant_conformance::outcome::{FailureKind, Report, Verdict};
use covenant_conformance::template::Globals;
use serde_json::json;
use std::time::Duration;

/// Pet `n` answers status `n` with a problem; 4091 a 409 whose body is no problem.
async fn get_pet(Path(id): Path<u16>) -> Response {
    match id {
        404 => StatusCode::NOT_FOUND.into_response(),
        4091 => (StatusCode::CONFLICT, Json(json!({"message": 1}))).into_response(),
        400..=599 => {
            let status = StatusCode::from_u16(id).unwrap();
            let problem = json!({"message": "no", "code": id});
            (status, [("retry-after", "3")], Json(problem)).into_response()
        }
        _ => Json(json!({"id": id, "name": "Rex"})).into_response(),
    }
}

/// `list_pets` declares only the api's `default`: any status fits it.
async fn list_pets() -> Response {
    let problem = json!({"message": "busy", "code": 302});
    (StatusCode::FOUND, Json(problem)).into_response()
}

async fn run() -> Report {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = [
        ("ok", "get_pet", "/pets/1", 200),
        ("not-found", "get_pet", "/pets/404", 404),
        ("conflict", "get_pet", "/pets/409", 409),
        ("teapot", "get_pet", "/pets/418", 418),
        ("unavailable", "get_pet", "/pets/503", 503),
        ("conflict-misshapen", "get_pet", "/pets/4091", 409),
        ("listed-elsewhere", "list_pets", "/pets", 302),
    ];
    for (id, endpoint, path, status) in scenarios {
        let scenario = json!({
            "id": id,
            "title": id,
            "headers": {"Authorization": "Bearer {{credentials.key}}"},
            "exchanges": [{
                "endpoint": endpoint,
                "request": {"path": path},
                "expect": {"status": status}
            }]
        });
        std::fs::write(dir.path().join(format!("{id}.json")), scenario.to_string()).unwrap();
    }
    let globals = Globals {
        credentials: [("key", "k")].into_iter().collect(),
        ..Globals::default()
    };
    let router = axum::Router::new()
        .route("/pets/{id}", get(get_pet))
        .route("/pets", get(list_pets));
    let base = support::serve(router).await;
    let contract = support::regression_contract("status_ranges.covenant");
    support::replay(contract, dir.path(), globals, base, Duration::from_secs(5)).await
}

#[tokio::test]
async fn answers_are_checked_against_the_response_that_covers_their_status() {
    let report = run().await;
    let outcome = |id: &str| {
        let s = report.scenarios.iter().find(|s| s.id == id).unwrap();
        let failures: Vec<(FailureKind, String)> = s
            .exchanges
            .iter()
            .flat_map(|e| &e.failures)
            .map(|f| (f.kind, f.path.clone()))
            .collect();
        (s.verdict, failures)
    };
    for id in [
        "ok",
        "not-found",
        "conflict",
        "teapot",
        "unavailable",
        "listed-elsewhere",
    ] {
        assert_eq!(outcome(id), (Verdict::Passed, vec![]), "{id}");
    }
    let (verdict, failures) = outcome("conflict-misshapen");
    assert_eq!(verdict, Verdict::Failed);
    assert!(
        failures
            .iter()
            .any(|(kind, _)| *kind == FailureKind::Schema),
        "a 409 is checked against 4XX's schema: {failures:?}"
    );

    let get_pet = &report.coverage.matrix["get_pet"];
    let keys: Vec<&str> = get_pet.keys().map(String::as_str).collect();
    assert_eq!(keys, ["200", "404", "4XX", "5XX", "default"]);
    let mut client_errors = get_pet["4XX"].clone();
    client_errors.sort();
    assert_eq!(client_errors, ["conflict", "conflict-misshapen", "teapot"]);
    assert_eq!(get_pet["5XX"], ["unavailable"]);
    assert!(get_pet["default"].is_empty(), "nothing else was answered");
    assert_eq!(
        report.coverage.matrix["list_pets"]["default"],
        ["listed-elsewhere"]
    );
}
