//! Webhook delivery throughput and latency: events emitted through the outbox, in
//! transactions of 200 as a bulk operation's batch emits them, for 1,000 users, delivered by
//! the process's delivery loop to a local receiver over real sockets. Prints, per round and
//! as medians of the rounds: events per second from the first commit to the last delivery,
//! and the latency from an event's commit to its arrival (p50, p99).
//!
//! `cargo bench -p health-server --bench deliveries` (SQLite; PostgreSQL too when
//! `COVENANT_TEST_POSTGRES_URL` names a server).

mod support;

use axum::body::Bytes;
use axum::http::HeaderMap;
use health_api::events::Payload;
use health_api::models::{ConnectionCreatedData, ConnectionProvider};
use health_server::events::{Outbox, Subject};
use health_server::store::Location;
use health_server::webhooks::targets::Targets;
use health_server::{ReferenceServer, Settings};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{fresh_database, median};

const EVENTS: usize = 10_000;
const USERS: usize = 1_000;
const PER_TRANSACTION: usize = 200;
const ROUNDS: usize = 3;

type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

#[tokio::main]
async fn main() {
    let receiver = Arc::new(Mutex::new(HashMap::new()));
    let url = receive(receiver.clone()).await;
    let dir = std::env::temp_dir().join(format!("health-deliveries-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut targets = vec![("SQLite", Location::Sqlite(dir.join("health.db")))];
    if let Ok(admin) = std::env::var("COVENANT_TEST_POSTGRES_URL") {
        targets.push(("PostgreSQL", Location::Url(fresh_database(&admin).await)));
    }
    println!("{EVENTS} events of {USERS} users per round, {ROUNDS} rounds, one endpoint");
    for (name, location) in targets {
        // The bench's receiver listens on loopback.
        let mut settings = Settings::new(location, "http://127.0.0.1");
        settings.webhook_targets = Targets::AnyAddress;
        let server = ReferenceServer::open(settings).await.expect("open");
        let team_id = match server.bootstrap(None).await.expect("bootstrap") {
            health_server::bootstrap::Outcome::Created(keys) => keys.team_id,
            health_server::bootstrap::Outcome::Existing { team_id, .. } => team_id,
        };
        register(&server, &team_id, &url).await;
        let _workers = server.start_workers();
        let mut rates = Vec::new();
        let mut p99s = Vec::new();
        for round in 0..ROUNDS {
            receiver.lock().unwrap().clear();
            let (rate, p50, p99) = run(&server, &team_id, &receiver).await;
            println!(
                "{name:<10} round {round}: {rate:>7.0} events/s   latency p50 {:>6.1} ms   p99 {:>6.1} ms",
                p50.as_secs_f64() * 1e3,
                p99.as_secs_f64() * 1e3
            );
            rates.push(rate);
            p99s.push(p99.as_secs_f64() * 1e3);
        }
        println!(
            "{name:<10} median: {:>7.0} events/s   p99 {:>6.1} ms",
            median(&mut rates),
            median(&mut p99s)
        );
        server.store().close().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Emits the round's events and waits for every one to arrive.
async fn run(
    server: &ReferenceServer,
    team_id: &str,
    arrivals: &Arrivals,
) -> (f64, Duration, Duration) {
    let started = Instant::now();
    let mut committed: Vec<(String, Instant)> = Vec::with_capacity(EVENTS);
    let payload = payload();
    for chunk in (0..EVENTS).collect::<Vec<_>>().chunks(PER_TRANSACTION) {
        let mut tx = server.store().write().await.expect("write");
        let outbox = Outbox::open(&mut tx, team_id).await.expect("outbox");
        let mut ids = Vec::new();
        for n in chunk {
            let subject = Subject {
                team_id: team_id.to_string(),
                user_id: uuid::Uuid::from_u128((n % USERS) as u128 + 1).to_string(),
                client_user_id: format!("bench-{}", n % USERS),
            };
            ids.push(
                outbox
                    .emit(&mut tx, &subject, &payload, 0)
                    .await
                    .expect("emit"),
            );
        }
        tx.commit().await.expect("commit");
        let at = Instant::now();
        committed.extend(ids.into_iter().map(|id| (id, at)));
    }
    loop {
        if arrivals.lock().unwrap().len() >= EVENTS {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let arrived = arrivals.lock().unwrap();
    let last = arrived.values().max().copied().unwrap_or(started);
    let mut latencies: Vec<Duration> = committed
        .iter()
        .filter_map(|(id, at)| {
            arrived
                .get(id)
                .map(|got| got.saturating_duration_since(*at))
        })
        .collect();
    latencies.sort();
    let rate = EVENTS as f64 / last.duration_since(started).as_secs_f64();
    let p = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    (rate, p(0.5), p(0.99))
}

fn payload() -> Payload {
    let provider = ConnectionProvider {
        extra: serde_json::Map::from_iter([("slug".to_string(), "oura".into())]),
    };
    #[allow(deprecated)]
    let data = ConnectionCreatedData {
        source: provider.clone(),
        provider,
        extra: serde_json::Map::new(),
    };
    Payload::ProviderConnectionCreated { data }
}

async fn register(server: &ReferenceServer, team_id: &str, url: &str) {
    let now = chrono::Utc::now().timestamp_micros();
    sqlx::query(
        "INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, headers, \
         disabled, secret, created_at, updated_at) VALUES ($1, $2, $3, NULL, '[]', '{}', 0, $4, $5, $5)",
    )
    .bind(uuid::Uuid::new_v4().to_string())
    .bind(team_id)
    .bind(url)
    .bind(covenant_runtime::webhooks::WebhookSecret::generate().to_text())
    .bind(now)
    .execute(server.store().pool())
    .await
    .expect("register the receiver");
}

/// A receiver that notes when each `webhook-id` first arrived.
async fn receive(arrivals: Arrivals) -> String {
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, _body: Bytes| {
            let arrivals = arrivals.clone();
            async move {
                let id = headers["webhook-id"]
                    .to_str()
                    .unwrap_or_default()
                    .to_string();
                arrivals
                    .lock()
                    .unwrap()
                    .entry(id)
                    .or_insert_with(Instant::now);
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}
