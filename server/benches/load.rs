//! Load against the reference server over real sockets, side by side with a bare axum handler
//! serving the same JSON, on SQLite (and PostgreSQL when `COVENANT_TEST_POSTGRES_URL` names a
//! server). Prints medians of several rounds and their ratios:
//!
//! - GET /v2/user/resolve/{id}: requests per second, against the bare handler's;
//! - POST /v2/user: users created per second, and the 99th percentile of their latency;
//! - on PostgreSQL, how soon a user changed through a second process on the same database
//!   is answered changed by the first (its kept users dropped by LISTEN/NOTIFY);
//! - the process's resident memory after the runs at 64 connections.
//!
//! `cargo bench -p health-server --bench load` (RUST_LOG unset: the per-request log line is
//! off in a benchmark, as it would be behind a log level in production).

mod support;

use covenant_runtime::server::spawn_on;
use covenant_runtime::server::transport::Transport;
use health_server::launch;
use health_server::store::Location;
use health_server::webhooks::targets::Targets;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use support::{fresh_database, median};

const CONNECTIONS: usize = 64;
const ROUND: Duration = Duration::from_secs(3);
const ROUNDS: usize = 5;

#[tokio::main]
async fn main() {
    let bare = bare_server().await;
    let sqlite_dir = std::env::temp_dir().join(format!("health-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&sqlite_dir);
    let sqlite =
        reference_server(Location::Sqlite(sqlite_dir.join("health.db")), &sqlite_dir).await;
    let postgres_url = match std::env::var("COVENANT_TEST_POSTGRES_URL") {
        Ok(admin) => Some(fresh_database(&admin).await),
        Err(_) => None,
    };
    let postgres = match &postgres_url {
        Some(url) => {
            let database = Location::Url(url.clone());
            Some(reference_server(database, &sqlite_dir.join("postgres")).await)
        }
        None => None,
    };

    println!(
        "{CONNECTIONS} connections, {ROUNDS} rounds of {}s each, medians",
        ROUND.as_secs()
    );
    let mut resolve_bare = Vec::new();
    let mut resolve_sqlite = Vec::new();
    let mut resolve_postgres = Vec::new();
    for _ in 0..ROUNDS {
        // Side by side: each round measures every target in turn.
        resolve_bare.push(rate(&bare.0, "/v2/user/resolve/bench-user", &bare.1, None).await);
        resolve_sqlite.push(rate(&sqlite.0, "/v2/user/resolve/bench-user", &sqlite.1, None).await);
        if let Some(pg) = &postgres {
            resolve_postgres.push(rate(&pg.0, "/v2/user/resolve/bench-user", &pg.1, None).await);
        }
    }
    let bare_rps = median(&mut resolve_bare);
    let sqlite_rps = median(&mut resolve_sqlite);
    println!("GET resolve   bare axum handler   {bare_rps:>9.0} req/s");
    println!(
        "GET resolve   reference, SQLite   {sqlite_rps:>9.0} req/s   ratio {:.2}",
        sqlite_rps / bare_rps
    );
    if postgres.is_some() {
        let pg_rps = median(&mut resolve_postgres);
        println!(
            "GET resolve   reference, Postgres {pg_rps:>9.0} req/s   ratio {:.2}",
            pg_rps / bare_rps
        );
    }

    let mut create_sqlite = Vec::new();
    let mut create_postgres = Vec::new();
    for _ in 0..ROUNDS {
        create_sqlite.push(rated(&sqlite.0, "/v2/user", &sqlite.1, Some(())).await);
        if let Some(pg) = &postgres {
            create_postgres.push(rated(&pg.0, "/v2/user", &pg.1, Some(())).await);
        }
    }
    let (rate, p99) = rate_and_p99(&mut create_sqlite);
    println!("POST create   reference, SQLite   {rate:>9.0} users/s   p99 {p99:.1} ms");
    if postgres.is_some() {
        let (rate, p99) = rate_and_p99(&mut create_postgres);
        println!("POST create   reference, Postgres {rate:>9.0} users/s   p99 {p99:.1} ms");
    }
    if let (Some(url), Some(pg)) = (&postgres_url, &postgres) {
        let second =
            reference_server_on(Location::Url(url.clone()), &sqlite_dir.join("pg-2")).await;
        let mut waits = seen_by_the_other_process(pg, &second).await;
        let median_ms = median(&mut waits);
        let worst = waits.iter().copied().fold(0.0, f64::max);
        println!(
            "PATCH through one process, answered changed by another (Postgres): median \
             {median_ms:.1} ms, slowest of {} {worst:.1} ms",
            waits.len()
        );
    }
    println!(
        "RSS after the runs (server and load generator in one process): {} MiB",
        rss_mib()
    );
    let _ = std::fs::remove_dir_all(&sqlite_dir);
}

/// A reference server on a free port with one user to resolve; its address and team key.
async fn reference_server(database: Location, data_dir: &Path) -> (String, String) {
    let (base, team_api_key) = reference_server_on(database, data_dir).await;
    let created = reqwest::Client::new()
        .post(format!("{base}/v2/user"))
        .header("x-service-api-key", &team_api_key)
        .json(&serde_json::json!({"client_user_id": "bench-user", "fallback_time_zone": "Europe/Paris"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 200);
    (base, team_api_key)
}

/// A reference server on a free port on `database`, set up by this start or an earlier one;
/// its address and the team key of `data_dir`'s credentials (empty for a database another
/// start set up).
async fn reference_server_on(database: Location, data_dir: &Path) -> (String, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let opened = launch::open(database, &base, data_dir, Targets::PublicOnly)
        .await
        .unwrap();
    let team_api_key = opened
        .credentials
        .and_then(|c| c.get("team_api_key").map(str::to_string))
        .unwrap_or_default();
    // Served as `covenant serve` serves it: the watched transport, with its default limits.
    let router = health_server::router(opened.server);
    spawn_on(listener, router, Transport::default())
        .unwrap()
        .detach();
    (base, team_api_key)
}

/// Milliseconds from each change through `second` (a fallback time zone, alternating) until
/// `first`, which keeps the user between reads, answers it changed.
async fn seen_by_the_other_process(
    first: &(String, String),
    second: &(String, String),
) -> Vec<f64> {
    let client = reqwest::Client::new();
    let (base, key) = first;
    let resolve = format!("{base}/v2/user/resolve/bench-user");
    let read_zone = || {
        let request = client.get(&resolve).header("x-service-api-key", key);
        async move {
            let user: serde_json::Value = request.send().await.unwrap().json().await.unwrap();
            user["fallback_time_zone"]["id"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        }
    };
    let user: serde_json::Value = client
        .get(&resolve)
        .header("x-service-api-key", key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let user_id = user["user_id"].as_str().unwrap().to_string();
    let mut waits = Vec::new();
    for n in 0..50 {
        let zone = ["Europe/Berlin", "Asia/Tokyo"][n % 2];
        // Kept by the first process before the change.
        read_zone().await;
        let changed = client
            .patch(format!("{}/v2/user/{user_id}", second.0))
            .header("x-service-api-key", key)
            .json(&serde_json::json!({ "fallback_time_zone": zone }))
            .send()
            .await
            .unwrap();
        assert!(changed.status().is_success());
        let written = Instant::now();
        while read_zone().await != zone {
            assert!(written.elapsed() < Duration::from_secs(5), "never seen");
        }
        waits.push(written.elapsed().as_secs_f64() * 1000.0);
    }
    waits
}

/// A bare axum handler answering what resolve answers, with no database and no checks.
async fn bare_server() -> (String, String) {
    let user = serde_json::json!({
        "user_id": "0b507ca2-ecdd-41f6-b293-809bec4b3f02",
        "team_id": "b9523ab0-c538-4c18-b20f-6460a6bb8aa0",
        "client_user_id": "bench-user",
        "created_on": "2026-11-21T10:15:24.043012Z",
        "connected_sources": [],
        "fallback_time_zone": {"id": "Europe/Paris", "source_slug": "manual", "updated_at": "2026-11-21T10:15:24.043012Z"},
        "ingestion_start": null,
        "ingestion_end": null,
    });
    let router = axum::Router::new().route(
        "/v2/user/resolve/{client_user_id}",
        axum::routing::get(move || {
            let user = user.clone();
            async move { axum::Json(user) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (base, String::new())
}

/// One round's successful requests per second and each request's latency in milliseconds.
struct Round {
    rate: f64,
    latencies: Vec<f64>,
}

/// The median rate of the rounds, and the 99th percentile of all their latencies.
fn rate_and_p99(rounds: &mut [Round]) -> (f64, f64) {
    let mut rates: Vec<f64> = rounds.iter().map(|r| r.rate).collect();
    let mut latencies: Vec<f64> = rounds
        .iter_mut()
        .flat_map(|r| r.latencies.drain(..))
        .collect();
    latencies.sort_by(f64::total_cmp);
    let p99 = latencies
        .get(latencies.len().saturating_sub(1) * 99 / 100)
        .copied()
        .unwrap_or(0.0);
    (median(&mut rates), p99)
}

/// Successful requests per second over one round at `CONNECTIONS` concurrent connections;
/// `create` makes each request a POST creating a fresh user.
async fn rate(base: &str, path: &str, key: &str, create: Option<()>) -> f64 {
    rated(base, path, key, create).await.rate
}

/// As [`rate`], with each successful request's latency.
async fn rated(base: &str, path: &str, key: &str, create: Option<()>) -> Round {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CONNECTIONS)
        .build()
        .unwrap();
    let done = Arc::new(AtomicU64::new(0));
    let counter = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + ROUND;
    let workers: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let (client, done, counter) = (client.clone(), done.clone(), counter.clone());
            let (url, key) = (format!("{base}{path}"), key.to_string());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    let sent = Instant::now();
                    let request = match create {
                        Some(()) => {
                            let n = counter.fetch_add(1, Ordering::Relaxed);
                            let id = format!("load-{}-{n}", uuid::Uuid::new_v4().simple());
                            client
                                .post(&url)
                                .json(&serde_json::json!({ "client_user_id": id }))
                        }
                        None => client.get(&url),
                    };
                    let response = request.header("x-service-api-key", &key).send().await;
                    if let Ok(response) = response {
                        let ok = response.status().is_success();
                        let _ = response.bytes().await;
                        if ok {
                            done.fetch_add(1, Ordering::Relaxed);
                            latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
                        }
                    }
                }
                latencies
            })
        })
        .collect();
    let started = Instant::now();
    let mut latencies = Vec::new();
    for worker in workers {
        latencies.extend(worker.await.unwrap());
    }
    Round {
        rate: done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64(),
        latencies,
    }
}

fn rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}
