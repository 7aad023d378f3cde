//! The generated router against a bare axum handler, side by side in one run: both serve
//! `GET /v2/user/resolve/{client_user_id}` with the same JSON, in process (no sockets, so
//! only routing, auth, input checks and serialization are measured). Target: the generated
//! router at no less than 70% of the bare handler's throughput.
//! Run: `cargo bench -p health-api --bench router` (ROUNDS and REQUESTS to change the load).

use covenant_runtime::server::axum::{
    self, Json, Router, body::Body, extract::Path, http::Request, routing,
};
use health_api::mock::MockServer;
use health_api::models::User;
use health_api::operations::AuthScheme;
use std::sync::Arc;
use std::time::Instant;
use tower::ServiceExt;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn requests_per_second(router: &Router, requests: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..requests {
        let request = Request::get("/v2/user/resolve/patient-17")
            .header("x-service-api-key", "team-key")
            .body(Body::empty())
            .unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200);
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

fn main() {
    let (rounds, requests) = (env("ROUNDS", 9), env("REQUESTS", 20_000));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mock = MockServer::new().with_key("team-key", AuthScheme::TeamApiKey);
    let generated = health_api::server::router(Arc::new(mock), Default::default());
    let (_, example) = MockServer::example("resolve_user").unwrap();
    let user: User = serde_json::from_value(example).unwrap();
    let bare = Router::new().route(
        "/v2/user/resolve/{client_user_id}",
        routing::get(move |Path(_id): Path<String>| {
            let user = user.clone();
            async move { Json(user) }
        }),
    );
    let (mut bare_rates, mut generated_rates) = (Vec::new(), Vec::new());
    runtime.block_on(async {
        requests_per_second(&bare, requests / 10).await;
        requests_per_second(&generated, requests / 10).await;
        // Alternate so drifts of a shared machine hit both sides alike.
        for _ in 0..rounds {
            bare_rates.push(requests_per_second(&bare, requests).await);
            generated_rates.push(requests_per_second(&generated, requests).await);
        }
    });
    let (bare, generated) = (median(bare_rates), median(generated_rates));
    println!(
        "bare axum handler:  {bare:>9.0} requests/s (median of {rounds} rounds of {requests})"
    );
    println!("generated router:   {generated:>9.0} requests/s");
    println!(
        "ratio:              {:>9.2} (target: at least 0.70)",
        generated / bare
    );
}
