//! The generated router against bare axum handlers, side by side in one run, in process (no
//! sockets, so only routing, auth, input reading and checks, and serialization are measured):
//!
//! - `GET /v2/user/resolve/{client_user_id}`: the bare handler answers the same JSON.
//! - `POST /v2/link/bulk_import` with 100 connections, and `PATCH /v2/user/{user_id}/info`:
//!   the bare handler deserializes the same body with serde (`Json<T>`) and answers the same
//!   JSON; the generated router also authenticates, checks every constraint and reads the
//!   query and path.
//!
//! Targets: at least 0.85 of the bare handler on the GET, 0.70 on the POSTs. The bulk import
//! runs twice: against `Json<T>` and against a handler calling `serde_json::from_slice`.
//! Run: `cargo bench -p health-api --bench router` (ROUNDS and REQUESTS to change the load).

use covenant_codegen::samples::Samples;
use covenant_runtime::server::axum::{
    self, Json, Router,
    body::Body,
    extract::Path,
    http::{Method, Request},
    response::IntoResponse,
    routing,
};
use health_api::mock::MockServer;
use health_api::models::{BulkImportRequest, PatientInfoRequest};
use health_api::operations::{
    AuthScheme, BulkImportResponse, ResolveUserResponse, UpdatePatientInfoResponse,
};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use tower::ServiceExt;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One request, sent again and again.
struct Scenario {
    name: &'static str,
    target: f64,
    method: Method,
    uri: &'static str,
    body: Option<Vec<u8>>,
    /// What both routers answer.
    status: u16,
    bare: Router,
}

async fn requests_per_second(router: &Router, s: &Scenario, requests: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..requests {
        let body = s.body.clone().map_or_else(Body::empty, Body::from);
        let request = Request::builder()
            .method(s.method.clone())
            .uri(s.uri)
            .header("x-service-api-key", "team-key")
            .header("content-type", "application/json")
            .body(body)
            .unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), s.status, "{}", s.name);
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        std::hint::black_box(body);
    }
    requests as f64 / started.elapsed().as_secs_f64()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The mock's answer to an endpoint as its typed response, which the bare handler serves
/// too, so both sides serialize the same value the same way.
fn answer<T>(endpoint: &str, read: fn(u16, &[u8]) -> Result<T, String>) -> (u16, T) {
    let (status, body) = MockServer::example(endpoint).expect("an example");
    let typed = read(status, &serde_json::to_vec(&body).unwrap()).expect("the example fits");
    (status, typed)
}

fn scenarios() -> Vec<Scenario> {
    let file = covenant_codegen::source::SourceFile::new(
        "health.covenant",
        include_str!("../../spec/health.covenant"),
    );
    let spec = covenant_codegen::check_source(&file)
        .spec
        .expect("the service spec is valid");
    let samples = Samples::new(&spec);
    let input = |name: &str| {
        samples.endpoint_input(spec.endpoints.iter().find(|e| e.name == name).unwrap())
    };

    let (resolve_status, user) = answer("resolve_user", ResolveUserResponse::from_status_bytes);
    let resolve = Router::new().route(
        "/v2/user/resolve/{client_user_id}",
        routing::get(move |Path(_id): Path<String>| {
            let user = user.clone();
            async move { user.into_response() }
        }),
    );

    let mut bulk = input("bulk_import")["body"].clone();
    let connection = bulk["connections"][0].clone();
    bulk["connections"] = Value::Array(vec![connection; 100]);
    let (bulk_status, bulk_answer) = answer("bulk_import", BulkImportResponse::from_status_bytes);
    let bulk_bare = Router::new().route(
        "/v2/link/bulk_import",
        routing::post(move |Json(body): Json<BulkImportRequest>| {
            let answer = bulk_answer.clone();
            async move {
                std::hint::black_box(body);
                answer.into_response()
            }
        }),
    );

    // axum's `Json<T>` tracks the path of a serde error; a handler may also read the bytes
    // with serde_json directly, which is the faster baseline.
    let (_, slice_answer) = answer("bulk_import", BulkImportResponse::from_status_bytes);
    let bulk_slice = Router::new().route(
        "/v2/link/bulk_import",
        routing::post(move |body: axum::body::Bytes| {
            let answer = slice_answer.clone();
            async move {
                let parsed: BulkImportRequest = serde_json::from_slice(&body).unwrap();
                std::hint::black_box(parsed);
                answer.into_response()
            }
        }),
    );

    let info = input("update_patient_info")["body"].clone();
    let (info_status, info_answer) = answer(
        "update_patient_info",
        UpdatePatientInfoResponse::from_status_bytes,
    );
    let info_bare = Router::new().route(
        "/v2/user/{user_id}/info",
        routing::patch(
            move |Path(_id): Path<String>, Json(body): Json<PatientInfoRequest>| {
                let answer = info_answer.clone();
                async move {
                    std::hint::black_box(body);
                    answer.into_response()
                }
            },
        ),
    );

    vec![
        Scenario {
            name: "GET resolve_user",
            target: 0.85,
            method: Method::GET,
            uri: "/v2/user/resolve/patient-17",
            body: None,
            status: resolve_status,
            bare: resolve,
        },
        Scenario {
            name: "POST bulk_import (100 connections)",
            target: 0.70,
            method: Method::POST,
            uri: "/v2/link/bulk_import",
            body: Some(serde_json::to_vec(&bulk).unwrap()),
            status: bulk_status,
            bare: bulk_bare,
        },
        Scenario {
            name: "POST bulk_import (100 connections), bare handler on serde_json::from_slice",
            target: 0.70,
            method: Method::POST,
            uri: "/v2/link/bulk_import",
            body: Some(serde_json::to_vec(&bulk).unwrap()),
            status: bulk_status,
            bare: bulk_slice,
        },
        Scenario {
            name: "PATCH update_patient_info",
            target: 0.70,
            method: Method::PATCH,
            uri: "/v2/user/0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a/info",
            body: Some(serde_json::to_vec(&info).unwrap()),
            status: info_status,
            bare: info_bare,
        },
    ]
}

fn main() {
    let (rounds, requests) = (env("ROUNDS", 9), env("REQUESTS", 10_000));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mock = MockServer::new().with_key("team-key", AuthScheme::TeamApiKey);
    let generated = health_api::server::router(Arc::new(mock), Default::default());
    for s in scenarios() {
        // Fewer requests for the large body, so each scenario takes a similar time.
        let n = if s.body.as_ref().is_some_and(|b| b.len() > 4096) {
            requests / 10
        } else {
            requests
        };
        let (mut bare_rates, mut generated_rates) = (Vec::new(), Vec::new());
        runtime.block_on(async {
            requests_per_second(&s.bare, &s, n / 10).await;
            requests_per_second(&generated, &s, n / 10).await;
            // Alternate so drifts of a shared machine hit both sides alike.
            for _ in 0..rounds {
                bare_rates.push(requests_per_second(&s.bare, &s, n).await);
                generated_rates.push(requests_per_second(&generated, &s, n).await);
            }
        });
        let (bare, generated) = (median(bare_rates), median(generated_rates));
        println!("{} (median of {rounds} rounds of {n})", s.name);
        println!("  bare axum handler: {bare:>9.0} requests/s");
        println!("  generated router:  {generated:>9.0} requests/s");
        println!(
            "  ratio:             {:>9.2} (target: at least {:.2})",
            generated / bare,
            s.target
        );
    }
}
