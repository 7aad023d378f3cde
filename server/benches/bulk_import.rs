//! A bulk import of 100,000 connections over real HTTP, on SQLite (and PostgreSQL when
//! `COVENANT_TEST_POSTGRES_URL` names a server): how long until it is accepted (the 202),
//! and what it costs other writers meanwhile: the latency of user creations sent while the
//! import's background operation runs, against the same creations on an idle server.
//! Prints medians of several rounds.
//!
//! `cargo bench -p health-server --bench bulk_import`

mod support;

use covenant_runtime::server::spawn_on;
use covenant_runtime::server::transport::Transport;
use health_server::launch;
use health_server::store::Location;
use health_server::webhooks::targets::Targets;
use std::path::Path;
use std::time::{Duration, Instant};
use support::{fresh_database, median};

const CONNECTIONS: usize = 100_000;
const ROUNDS: usize = 5;
/// User creations timed per round, one after another.
const WRITES: usize = 200;

#[tokio::main]
async fn main() {
    let dir = std::env::temp_dir().join(format!("health-bulk-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let body = import_body();
    println!(
        "bulk import of {CONNECTIONS} connections ({:.1} MiB), {ROUNDS} rounds, medians",
        body.len() as f64 / (1 << 20) as f64
    );
    let sqlite = reference_server(Location::Sqlite(dir.join("health.db")), &dir).await;
    measure("SQLite", &sqlite, &body).await;
    if let Ok(admin) = std::env::var("COVENANT_TEST_POSTGRES_URL") {
        let database = Location::Url(fresh_database(&admin).await);
        let postgres = reference_server(database, &dir.join("postgres")).await;
        measure("PostgreSQL", &postgres, &body).await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}

async fn measure(name: &str, (base, key): &(String, String), body: &[u8]) {
    let client = reqwest::Client::new();
    let mut accepted = Vec::new();
    let mut idle_p50 = Vec::new();
    let mut idle_p99 = Vec::new();
    let mut busy_p50 = Vec::new();
    let mut busy_p99 = Vec::new();
    for round in 0..ROUNDS {
        // Side by side: the idle writes, then the import and the writes during it.
        let (p50, p99) = writes(&client, base, key, &format!("idle-{round}")).await;
        idle_p50.push(p50);
        idle_p99.push(p99);
        let started = Instant::now();
        let response = client
            .post(format!("{base}/v2/link/bulk_import"))
            .header("x-service-api-key", key)
            .header("content-type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        accepted.push(started.elapsed().as_secs_f64());
        assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
        let (p50, p99) = writes(&client, base, key, &format!("busy-{round}")).await;
        busy_p50.push(p50);
        busy_p99.push(p99);
        wait_for_idle(&client, base, key).await;
    }
    let accepted = median(&mut accepted);
    println!(
        "{name:<10} accepted in        {:>8.0} ms   (target < 2000 ms)",
        accepted * 1e3
    );
    let (i50, i99) = (median(&mut idle_p50), median(&mut idle_p99));
    let (b50, b99) = (median(&mut busy_p50), median(&mut busy_p99));
    println!(
        "{name:<10} create user, idle   p50 {:>6.1} ms   p99 {:>6.1} ms",
        i50 * 1e3,
        i99 * 1e3
    );
    println!(
        "{name:<10} create user, import p50 {:>6.1} ms   p99 {:>6.1} ms   ratio p50 {:.2}, p99 {:.2}",
        b50 * 1e3,
        b99 * 1e3,
        b50 / i50,
        b99 / i99
    );
}

/// `WRITES` user creations one after another; their p50 and p99 latency in seconds.
async fn writes(client: &reqwest::Client, base: &str, key: &str, tag: &str) -> (f64, f64) {
    let mut latencies = Vec::with_capacity(WRITES);
    for n in 0..WRITES {
        let started = Instant::now();
        let response = client
            .post(format!("{base}/v2/user"))
            .header("x-service-api-key", key)
            .json(&serde_json::json!({ "client_user_id": format!("{tag}-{n}-{}", uuid::Uuid::new_v4().simple()) }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        latencies.push(started.elapsed().as_secs_f64());
    }
    latencies.sort_by(f64::total_cmp);
    (
        latencies[WRITES / 2],
        latencies[(WRITES * 99 / 100).min(WRITES - 1)],
    )
}

/// Until no bulk operation is in progress, so rounds do not overlap.
async fn wait_for_idle(client: &reqwest::Client, base: &str, key: &str) {
    let deadline = Instant::now() + Duration::from_secs(600);
    while Instant::now() < deadline {
        let page: serde_json::Value = client
            .get(format!("{base}/v2/link/bulk_op?page_size=100"))
            .header("x-service-api-key", key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let busy = page["data"]
            .as_array()
            .is_some_and(|ops| ops.iter().any(|op| op["status"] == "in_progress"));
        if !busy {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("a bulk import did not finish within 10 minutes");
}

/// 100,000 connections of users the team does not have: each is tried and fails, so the
/// background operation does its whole work.
fn import_body() -> Vec<u8> {
    let connections: Vec<serde_json::Value> = (0..CONNECTIONS)
        .map(|n| {
            serde_json::json!({
                "user_id": uuid::Uuid::new_v4().to_string(),
                "access_token": format!("access-{n:0>64}"),
                "refresh_token": format!("refresh-{n:0>64}"),
                "provider_id": format!("fitbit-{n}"),
                "expires_at": 2_147_483_647,
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({ "provider": "fitbit", "connections": connections }))
        .unwrap()
}

/// A reference server on a free port, served as `covenant serve` serves it, its workers
/// running; its address and team key.
async fn reference_server(database: Location, data_dir: &Path) -> (String, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let opened = launch::open(database, &base, data_dir, Targets::PublicOnly)
        .await
        .unwrap();
    let credentials = opened.credentials.expect("a fresh database");
    let key = credentials.get("team_api_key").unwrap().to_string();
    health_server::admin::set_feature(&opened.server, &opened.team_id, "bulk_import", true)
        .await
        .unwrap();
    health_server::admin::set_every_custom_credential(opened.server.store(), &opened.team_id)
        .await
        .unwrap();
    std::mem::forget(opened.server.start_workers());
    let router = health_server::router(opened.server);
    spawn_on(listener, router, Transport::default())
        .unwrap()
        .detach();
    (base, key)
}
