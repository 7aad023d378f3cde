//! A reference server on a real socket and a real database for each test: a fresh SQLite
//! file, or a fresh database on the PostgreSQL server named by `COVENANT_TEST_POSTGRES_URL`.
//! Tests drive it through the generated client, with the server's clock in their hands.

use chrono::{TimeZone, Utc};
use health_api::client::{Client, Config};
use health_api::models::{CreateTeamRequest, Region, Team};
use health_api::operations::{
    AuthScheme, CreateTeamApiKeyInput, CreateTeamApiKeyResponse, CreateTeamInput,
    CreateTeamResponse,
};
use health_server::bootstrap::{Bootstrap, Outcome};
use health_server::clock::ManualClock;
use health_server::store::Location;
use health_server::webhooks::targets::Targets;
use health_server::{ReferenceServer, Settings};
use sqlx::Connection;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The PostgreSQL server the suite also runs on. In CI (`CI` set) it must be given.
pub const POSTGRES_URL_VAR: &str = "COVENANT_TEST_POSTGRES_URL";

pub struct Harness {
    pub base_url: String,
    pub keys: Bootstrap,
    /// The features the first start gave its team, before the harness enabled the bulk
    /// operations the tests use (and set the team's OAuth applications they need).
    pub initial_features: Vec<String>,
    pub clock: Arc<ManualClock>,
    pub server: Arc<ReferenceServer>,
    /// The database, for a second process on it.
    pub database: Location,
    /// The server's background work (webhook delivery), stopped with the harness.
    _workers: health_server::Workers,
    dir: PathBuf,
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "health-server-test-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// A fresh, empty PostgreSQL database; `None` when no server is configured outside CI.
pub async fn fresh_postgres_database() -> Option<String> {
    let admin = match std::env::var(POSTGRES_URL_VAR) {
        Ok(url) => url,
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!("{POSTGRES_URL_VAR} must name a PostgreSQL server in CI")
        }
        Err(_) => {
            eprintln!("skipped on PostgreSQL: set {POSTGRES_URL_VAR} to run it there too");
            return None;
        }
    };
    sqlx::any::install_default_drivers();
    let name = format!("health_test_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::AnyConnection::connect(&admin)
        .await
        .expect("connect to the test PostgreSQL server");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create a test database");
    let base = admin
        .rsplit_once('/')
        .map_or(admin.as_str(), |(base, _)| base);
    Some(format!("{base}/{name}"))
}

impl Harness {
    /// `None` when the backend is not available here (PostgreSQL outside CI). Its webhooks
    /// may go to loopback, where the tests' receivers listen.
    pub async fn start(backend: Backend) -> Option<Harness> {
        Harness::start_with(backend, Targets::AnyAddress).await
    }

    /// As [`Harness::start`], delivering webhooks to `targets` only.
    pub async fn start_with(backend: Backend, targets: Targets) -> Option<Harness> {
        // The database is asked for before the scratch folder is made: a run without
        // PostgreSQL leaves no folder behind.
        let postgres = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(fresh_postgres_database().await?),
        };
        let dir = scratch_dir();
        let database = match postgres {
            None => Location::Sqlite(dir.join("health.db")),
            Some(url) => Location::Url(url),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base_url = format!("http://{}", listener.local_addr().expect("address"));
        let clock = Arc::new(ManualClock::new(
            Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap(),
        ));
        let mut settings = Settings::new(database.clone(), &base_url);
        settings.clock = clock.clone();
        settings.bulk_wait = Duration::from_secs(5);
        settings.webhook_targets = targets;
        let server = ReferenceServer::open(settings)
            .await
            .expect("open the server");
        let keys = match server.bootstrap(None).await.expect("bootstrap") {
            Outcome::Created(keys) => keys,
            Outcome::Existing { .. } => panic!("a fresh database was set up already"),
        };
        let router = health_server::router(server.clone());
        let transport = covenant_runtime::server::transport::Transport::default();
        let spawned = covenant_runtime::server::spawn_on(listener, router, transport);
        spawned.expect("serve").detach();
        let workers = server.start_workers();
        let initial_features = health_server::admin::features_of(server.store(), &keys.team_id)
            .await
            .expect("the team's features");
        for feature in ["bulk_import", "bulk_historical_pull"] {
            health_server::admin::set_feature(&server, &keys.team_id, feature, true)
                .await
                .expect("enable a feature");
        }
        health_server::admin::set_every_custom_credential(server.store(), &keys.team_id)
            .await
            .expect("set the team's OAuth applications");
        Some(Harness {
            base_url,
            keys,
            initial_features,
            clock,
            server,
            database,
            _workers: workers,
            dir,
        })
    }

    /// A client that sends inputs unchecked: these tests are of the server's own checks. It
    /// sends a request again after a 503 as a careful client does, after its `Retry-After`:
    /// the service promises a 503 kept nothing, and a test machine under load can make a
    /// write wait longer than the service waits for its turn.
    pub fn client(&self, credentials: &[(AuthScheme, &str)]) -> Client {
        let retry = covenant_runtime::client::RetryPolicy {
            max_retries: 3,
            retry_non_idempotent: true,
            max_retry_after: Duration::from_secs(2),
            ..Default::default()
        };
        let mut config = Config::new(&self.base_url)
            .with_retry(retry)
            .with_input_checks(false);
        for (scheme, key) in credentials {
            config = config.with_credential(*scheme, *key);
        }
        Client::new(config).expect("client")
    }

    /// The bootstrap team's client.
    pub fn team(&self) -> Client {
        self.client(&[(AuthScheme::TeamApiKey, &self.keys.team_api_key)])
    }

    /// The org management key's client.
    pub fn management(&self) -> Client {
        self.client(&[(AuthScheme::ManagementKey, &self.keys.management_key)])
    }

    /// A new team of the organization, made through the management API.
    pub async fn new_team(&self, name: &str, region: Region) -> Team {
        let input = CreateTeamInput {
            org_id: self.org_id(),
            body: CreateTeamRequest {
                name: name.into(),
                region,
                enabled_features: None,
            },
        };
        match self.management().create_team(input).await.unwrap() {
            CreateTeamResponse::Created(team) => team,
            other => panic!("create team: {other:?}"),
        }
    }

    /// A client with a new team API key of a team, made through the management API.
    pub async fn team_client(&self, team_id: covenant_runtime::Uuid) -> Client {
        let key = self.new_team_key(team_id).await;
        self.client(&[(AuthScheme::TeamApiKey, &key)])
    }

    /// A new team API key of a team, made through the management API.
    pub async fn new_team_key(&self, team_id: covenant_runtime::Uuid) -> String {
        let input = CreateTeamApiKeyInput {
            org_id: self.org_id(),
            team_id,
        };
        match self.management().create_team_api_key(input).await.unwrap() {
            CreateTeamApiKeyResponse::Created(key) => key.key,
            other => panic!("create team API key: {other:?}"),
        }
    }

    pub fn org_id(&self) -> covenant_runtime::Uuid {
        covenant_runtime::Uuid(self.keys.org_id.parse().unwrap())
    }

    pub fn http(&self) -> reqwest::Client {
        reqwest::Client::new()
    }
}

/// Each test runs on both databases: `on_both_backends!(name, …)` makes `sqlite::name` and
/// `postgres::name` from `async fn name(h: Harness)`.
#[macro_export]
macro_rules! on_both_backends {
    (targets = $targets:expr; $($test:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    let backend = $crate::harness::Backend::Sqlite;
                    let h = $crate::harness::Harness::start_with(backend, $targets)
                        .await
                        .expect("SQLite is always available");
                    super::$test(h).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    let backend = $crate::harness::Backend::Postgres;
                    if let Some(h) = $crate::harness::Harness::start_with(backend, $targets).await {
                        super::$test(h).await;
                    }
                }
            )*
        }
    };
    ($($test:ident),* $(,)?) => {
        $crate::on_both_backends!(
            targets = health_server::webhooks::targets::Targets::AnyAddress;
            $($test),*
        );
    };
}

/// A JSON request with the team key, as any client would send it: the status and the body.
pub async fn send(
    h: &Harness,
    method: &str,
    path: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    send_as(h, &h.keys.team_api_key, method, path, body).await
}

/// A JSON request with a team API key of the caller's choosing.
pub async fn send_as(
    h: &Harness,
    key: &str,
    method: &str,
    path: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    send_with(h, ("x-service-api-key", key), method, path, body).await
}

/// A JSON request carrying one credential header (`name`, `value`).
pub async fn send_with(
    h: &Harness,
    (name, value): (&str, &str),
    method: &str,
    path: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = h
        .http()
        .request(method, format!("{}{path}", h.base_url))
        .header(name, value);
    if !body.is_null() {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (
        status,
        response.json().await.unwrap_or(serde_json::Value::Null),
    )
}
