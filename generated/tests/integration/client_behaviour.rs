//! The generated client's behaviour against purpose-built servers: retries and their limits,
//! `Retry-After`, timeouts, paging streams, waiting for queued work, and tolerance of what
//! the service may add.

use crate::support;

use covenant_runtime::client::{ClientError, Config, RetryPolicy, StreamExt};
use covenant_runtime::server::axum::{
    self, Json, Router, extract::State, http::StatusCode, response::IntoResponse, routing,
};
use health_api::client::Client;
use health_api::operations::*;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

type Hits = Arc<AtomicUsize>;

fn user_json() -> Value {
    json!({
        "user_id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a", "team_id": "1c5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a",
        "client_user_id": "patient-17", "created_on": "2024-03-01T09:30:00Z", "connected_sources": [],
        "fallback_time_zone": {"id": "Europe/Paris", "source_slug": "manual", "updated_at": "2024-03-01T09:30:00Z"}
    })
}

fn client(base: &str, retry: RetryPolicy) -> Client {
    let config = Config::new(base)
        .with_credential(AuthScheme::TeamApiKey, "k")
        .with_credential(AuthScheme::ManagementKey, "m")
        .with_retry(RetryPolicy {
            initial_backoff: Duration::from_millis(5),
            ..retry
        });
    Client::new(config).unwrap()
}

/// Fails `failures` times with `status` (and `Retry-After: retry_after` when given), then
/// answers the user.
fn flaky(hits: Hits, failures: usize, status: u16, retry_after: Option<&'static str>) -> Router {
    let handler = move |State(hits): State<Hits>| async move {
        let n = hits.fetch_add(1, Ordering::SeqCst);
        if n < failures {
            let mut response = (
                StatusCode::from_u16(status).unwrap(),
                Json(json!({"detail": "try later"})),
            )
                .into_response();
            if let Some(after) = retry_after {
                response
                    .headers_mut()
                    .insert("retry-after", after.parse().unwrap());
            }
            return response;
        }
        Json(user_json()).into_response()
    };
    Router::new()
        .route("/v2/user/resolve/{id}", routing::get(handler))
        .route("/v2/user", routing::post(handler))
        .with_state(hits)
}

#[tokio::test]
async fn idempotent_calls_are_retried_on_429_and_5xx_honouring_retry_after() {
    let hits = Hits::default();
    let base = support::serve(flaky(hits.clone(), 2, 429, Some("1"))).await;
    let started = Instant::now();
    let response = client(&base, RetryPolicy::default())
        .resolve_user(ResolveUserInput {
            client_user_id: "p".into(),
        })
        .await
        .unwrap();
    assert!(matches!(response, ResolveUserResponse::Ok(_)));
    assert_eq!(hits.load(Ordering::SeqCst), 3);
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "Retry-After: 1 was honoured twice"
    );

    let hits = Hits::default();
    let base = support::serve(flaky(hits.clone(), 5, 503, None)).await;
    let last = client(
        &base,
        RetryPolicy {
            max_retries: 2,
            ..RetryPolicy::default()
        },
    )
    .resolve_user(ResolveUserInput {
        client_user_id: "p".into(),
    })
    .await
    .unwrap();
    assert_eq!(hits.load(Ordering::SeqCst), 3, "one try and two retries");
    // 503 is a declared status: the last answer arrives typed, with its detail.
    let ResolveUserResponse::ServiceUnavailable(last) = last else {
        panic!("the last 503 is answered: {last:?}");
    };
    assert_eq!(last.detail, "try later");
}

#[tokio::test]
async fn non_idempotent_calls_are_retried_only_when_asked() {
    let body = || CreateUserInput {
        body: serde_json::from_value(json!({"client_user_id": "p"})).unwrap(),
    };
    let hits = Hits::default();
    let base = support::serve(flaky(hits.clone(), 1, 503, None)).await;
    let answer = client(&base, RetryPolicy::default())
        .create_user(body())
        .await
        .unwrap();
    assert!(matches!(answer, CreateUserResponse::ServiceUnavailable(_)));
    assert_eq!(hits.load(Ordering::SeqCst), 1, "a POST is not repeated");

    let hits = Hits::default();
    let base = support::serve(flaky(hits.clone(), 1, 503, None)).await;
    let asked = RetryPolicy {
        retry_non_idempotent: true,
        ..RetryPolicy::default()
    };
    let result = client(&base, asked).create_user(body()).await;
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    // The user body carries the creation result's two fields; the rest is tolerated.
    assert!(
        matches!(result, Ok(CreateUserResponse::Ok(_))),
        "{result:?}"
    );
}

#[tokio::test]
async fn slow_answers_time_out() {
    let slow = Router::new().route(
        "/v2/user/resolve/{id}",
        routing::get(|| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Json(user_json())
        }),
    );
    let base = support::serve(slow).await;
    let config = Config::new(&base)
        .with_credential(AuthScheme::TeamApiKey, "k")
        .with_timeout(Duration::from_millis(100))
        .with_retry(RetryPolicy::never());
    let error = Client::new(config)
        .unwrap()
        .resolve_user(ResolveUserInput {
            client_user_id: "p".into(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ClientError::Timeout {
                endpoint: "resolve_user"
            }
        ),
        "{error:?}"
    );
}

fn marker(id: i64) -> Value {
    json!({"id": id, "name": "m", "slug": "m", "description": "", "lab_id": 1, "provider_id": "p", "type": "biomarker",
           "unit": null, "price": "N/A", "expected_results": []})
}

#[tokio::test]
async fn page_numbered_listings_stream_until_a_short_page() {
    let pages = Router::new().route(
        "/v3/lab_tests/markers",
        routing::get(|axum::extract::Query(q): axum::extract::Query<std::collections::HashMap<String, String>>| async move {
            let page: i64 = q["page"].parse().unwrap();
            let size: i64 = q["size"].parse().unwrap();
            let count = if page < 3 { size } else { 1 };
            let markers: Vec<Value> = (0..count).map(|i| marker(page * 100 + i)).collect();
            Json(json!({"markers": markers, "total": null, "page": page, "size": size, "pages": null}))
        }),
    );
    let base = support::serve(pages).await;
    let input: ListMarkersInput = serde_json::from_value(json!({"size": 2})).unwrap();
    let client = client(&base, RetryPolicy::default());
    let got: Vec<_> = client.list_markers_pages(input).collect().await;
    let ids: Vec<Vec<i64>> = got
        .into_iter()
        .map(|p| p.unwrap().markers.iter().map(|m| m.id).collect())
        .collect();
    assert_eq!(ids, [vec![100, 101], vec![200, 201], vec![300]]);
}

#[tokio::test]
async fn cursor_listings_stream_until_the_cursor_runs_out() {
    let teams = Router::new().route(
        "/v1/org/{org}/team",
        routing::get(|axum::extract::Query(q): axum::extract::Query<std::collections::HashMap<String, String>>| async move {
            let (name, next) = match q.get("next_cursor").map(String::as_str) {
                None => ("first", json!("c2")),
                Some("c2") => ("second", json!("c3")),
                _ => ("third", Value::Null),
            };
            Json(json!({"teams": [{"id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a", "name": name, "created_on": "2024-04-01T08:00:00Z", "region": "eu"}], "next_cursor": next}))
        }),
    );
    let base = support::serve(teams).await;
    let input: ListTeamsInput =
        serde_json::from_value(json!({"org_id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a"})).unwrap();
    let client = client(&base, RetryPolicy::default());
    let names: Vec<String> = client
        .list_teams_pages(input)
        .map(|p| p.unwrap().teams[0].name.clone())
        .collect()
        .await;
    assert_eq!(names, ["first", "second", "third"]);
}

#[tokio::test]
async fn queued_bulk_work_is_waited_for_through_the_listing() {
    let polls = Hits::default();
    let app = Router::new()
        .route(
            "/v2/link/bulk_import",
            routing::post(|| async { (StatusCode::ACCEPTED, Json(json!({"user_ids_imported": [], "user_ids_failed": []}))) }),
        )
        .route(
            "/v2/link/bulk_op",
            routing::get(|State(polls): State<Hits>| async move {
                let status = if polls.fetch_add(1, Ordering::SeqCst) < 2 { "in_progress" } else { "success" };
                Json(json!({"data": [{"type": "link_bulk_import", "status": status, "provider": "oura", "pending": 0, "processed": 3, "started_at": "2025-05-01T00:00:00Z"}]}))
            }),
        )
        .with_state(polls.clone());
    let base = support::serve(app).await;
    let input: BulkImportInput =
        serde_json::from_value(json!({"body": {"provider": "oura", "connections": []}})).unwrap();
    let client = client(&base, RetryPolicy::default());
    let finished =
        |op: &health_api::models::BulkOp| op.status != health_api::models::BulkOpStatus::InProgress;
    let (first, done) = client
        .bulk_import_and_wait(
            input,
            finished,
            Duration::from_millis(10),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(matches!(first, BulkImportResponse::Accepted(_)));
    assert_eq!(
        done.unwrap().status,
        health_api::models::BulkOpStatus::Success
    );
    assert_eq!(polls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn unknown_enum_values_and_extra_fields_are_tolerated() {
    let mut user = user_json();
    user["connected_sources"] = json!([{"created_on": "2024-03-01T09:30:00Z", "source": {"logo": "l", "name": "n", "slug": "s"},
                                        "provider": {"logo": "l", "name": "n", "slug": "s"}, "brand_new": true}]);
    user["added_later"] = json!({"nested": [1, 2]});
    let providers = json!([{"name": "X", "slug": "x", "description": "d", "logo": null, "auth_type": "carrier_pigeon", "supported_resources": ["dreams"]}]);
    let app = Router::new()
        .route(
            "/v2/user/resolve/{id}",
            routing::get(move || async move { Json(user) }),
        )
        .route(
            "/v2/providers",
            routing::get(move || async move { Json(providers) }),
        );
    let base = support::serve(app).await;
    let client = client(&base, RetryPolicy::default());
    let response = client
        .resolve_user(ResolveUserInput {
            client_user_id: "p".into(),
        })
        .await
        .unwrap();
    assert!(matches!(response, ResolveUserResponse::Ok(_)));
    let ListProvidersResponse::Ok(list) = client
        .list_providers(serde_json::from_value(json!({})).unwrap())
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(
        list[0].auth_type.value().unwrap().as_str(),
        "carrier_pigeon"
    );
}

#[tokio::test]
async fn calls_without_a_matching_credential_fail_before_sending() {
    let client = Client::new(Config::new("http://127.0.0.1:9")).unwrap();
    let error = client
        .resolve_user(ResolveUserInput {
            client_user_id: "p".into(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ClientError::NoCredential {
                endpoint: "resolve_user",
                ..
            }
        ),
        "{error:?}"
    );
    let _ = axum::Router::<()>::new();
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_ends_the_retries() {
    let hits = Hits::default();
    let base = support::serve(flaky(hits.clone(), 5, 429, Some("3600"))).await;
    let error = client(&base, RetryPolicy::default())
        .resolve_user(ResolveUserInput {
            client_user_id: "p".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "an hour's wait is not shortened into a retry"
    );
    assert!(matches!(
        error,
        ClientError::UnexpectedStatus { status: 429, .. }
    ));
}

#[tokio::test]
async fn retry_after_dates_are_read_against_the_injected_clock() {
    // The server asks to come back at a fixed instant; the client's clock says that instant
    // is one second away, whatever the machine's clock says.
    fn one_second_before() -> std::time::SystemTime {
        std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }
    let hits = Hits::default();
    let base = support::serve(flaky(
        hits.clone(),
        1,
        503,
        Some("Tue, 14 Nov 2023 22:13:21 GMT"),
    ))
    .await;
    let config = Config {
        now: one_second_before,
        ..Config::new(&base).with_credential(AuthScheme::TeamApiKey, "k")
    };
    let started = Instant::now();
    let response = Client::new(config)
        .unwrap()
        .resolve_user(ResolveUserInput {
            client_user_id: "p".into(),
        })
        .await
        .unwrap();
    assert!(matches!(response, ResolveUserResponse::Ok(_)));
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(1) && waited < Duration::from_secs(10),
        "waited {waited:?}"
    );
}

#[tokio::test]
async fn dot_segments_cannot_redirect_a_call() {
    let client = client("http://127.0.0.1:9", RetryPolicy::never());
    for bad in ["..", ".", ""] {
        let error = client
            .resolve_user(ResolveUserInput {
                client_user_id: bad.into(),
            })
            .await
            .unwrap_err();
        assert!(
            matches!(error, ClientError::Encode(_)),
            "{bad:?}: {error:?}"
        );
    }
}

#[tokio::test]
async fn any_2xx_answers_an_update_whose_body_is_not_shown() {
    let app = Router::new().route(
        "/v2/user/{id}",
        routing::patch(|| async { StatusCode::NO_CONTENT }),
    );
    let base = support::serve(app).await;
    let input: UpdateUserInput = serde_json::from_value(
        json!({"user_id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a", "body": {}}),
    )
    .unwrap();
    let response = client(&base, RetryPolicy::default())
        .update_user(input)
        .await
        .unwrap();
    assert_eq!(response, UpdateUserResponse::Ok(Value::Null));
}
