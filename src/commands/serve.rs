//! `serve`: the reference server of the service on its embedded SQLite database (default) or
//! on PostgreSQL (`--database-url`), or `--mock`, the generated mock of the spec. Both write
//! `DATA_DIR/credentials.json` with where the service is and the keys to call it with.

use super::EXIT_USAGE;
use clap::Args;
use covenant_runtime::server::transport;
use health_api::mock::MockServer;
use health_api::operations::AuthScheme;
use health_server::bootstrap::{Bootstrap, Outcome};
use health_server::store::Location;
use health_server::{ReferenceServer, Settings};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    /// Serve the generated mock instead: every endpoint answers an example derived from the
    /// spec, and nothing is stored.
    #[arg(long, conflicts_with_all = ["database_url", "enable_feature", "disable_feature", "plan"])]
    mock: bool,
    /// The address to listen on (port 0 picks a free port; credentials.json names it).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Where `credentials.json` is written (and read again on the next start), and where the
    /// embedded database lives (`health.db`).
    #[arg(long, default_value = "data")]
    data_dir: PathBuf,
    /// Run on this database instead of the embedded one: `postgres://user:password@host/db`.
    /// Several `serve` processes on one PostgreSQL database are one service.
    #[arg(long)]
    database_url: Option<String>,
    /// Enable a closed-beta feature (`bulk_import`, `bulk_historical_pull`) for a team:
    /// `FEATURE` for the first team, or `FEATURE=TEAM_ID`. Repeatable.
    #[arg(long, value_name = "FEATURE[=TEAM_ID]")]
    enable_feature: Vec<String>,
    /// Disable a feature for a team, as `--enable-feature` names it. Repeatable.
    #[arg(long, value_name = "FEATURE[=TEAM_ID]")]
    disable_feature: Vec<String>,
    /// Put the first organization on a plan (`highest` opens the management API).
    #[arg(long)]
    plan: Option<String>,
    #[command(flatten)]
    limits: super::limits::ServeLimits,
}

/// What `credentials.json` holds: where the service is and the keys to call it with.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Credentials {
    pub base_url: String,
    /// The management API; served by the same process, at the same address.
    pub management_url: String,
    pub org_id: String,
    pub team_id: String,
    pub team_api_key: String,
    pub management_key: String,
}

impl Credentials {
    /// The keys of an earlier start in `dir`, at this address; fresh ones when there are
    /// none, and whether they are.
    fn load_or_create(dir: &Path, base_url: &str) -> (Credentials, bool) {
        let earlier = Credentials::earlier(dir);
        let created = earlier.is_none();
        let fresh = || uuid::Uuid::new_v4().simple().to_string();
        let mut credentials = earlier.unwrap_or_else(|| Credentials {
            base_url: String::new(),
            management_url: String::new(),
            org_id: uuid::Uuid::new_v4().to_string(),
            team_id: uuid::Uuid::new_v4().to_string(),
            team_api_key: format!("team_{}", fresh()),
            management_key: format!("mgmt_{}", fresh()),
        });
        credentials.base_url = base_url.to_string();
        credentials.management_url = base_url.to_string();
        (credentials, created)
    }

    /// The keys an earlier start wrote, if any.
    fn earlier(dir: &Path) -> Option<Credentials> {
        let bytes = std::fs::read(dir.join(CREDENTIALS_FILE)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn from_bootstrap(b: &Bootstrap, base_url: &str) -> Credentials {
        Credentials {
            base_url: base_url.to_string(),
            management_url: base_url.to_string(),
            org_id: b.org_id.clone(),
            team_id: b.team_id.clone(),
            team_api_key: b.team_api_key.clone(),
            management_key: b.management_key.clone(),
        }
    }

    fn keys(&self) -> Bootstrap {
        Bootstrap {
            org_id: self.org_id.clone(),
            team_id: self.team_id.clone(),
            team_api_key: self.team_api_key.clone(),
            management_key: self.management_key.clone(),
        }
    }

    /// What a start tells: the addresses, the keys when they were just made (once; later
    /// starts say where they are, so a terminal's scrollback or a log holds them once at
    /// most), and the credentials file.
    fn print(&self, what: &str, path: &Path, new_keys: bool) {
        println!("serving {what} at {}", self.base_url);
        println!(
            "  management API: {} (same address, paths under /v1)",
            self.management_url
        );
        if new_keys {
            println!("  team API key:   {}", self.team_api_key);
            println!("  management key: {}", self.management_key);
            println!(
                "  credentials:    {} (the keys are shown this once)",
                path.display()
            );
        } else {
            println!("  credentials:    {} (the keys are there)", path.display());
        }
    }

    fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        super::write_json_file(dir, CREDENTIALS_FILE, self)
    }
}

const CREDENTIALS_FILE: &str = "credentials.json";

pub fn run(args: &ServeArgs) -> ExitCode {
    init_logging();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let served = if args.mock {
        runtime.block_on(serve_mock(args))
    } else {
        runtime.block_on(serve_reference(args))
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

async fn serve_mock(args: &ServeArgs) -> Result<(), String> {
    let (listener, base_url) = super::listen(args.listen).await?;
    let (credentials, created) = Credentials::load_or_create(&args.data_dir, &base_url);
    let path = credentials
        .write(&args.data_dir)
        .map_err(|e| format!("cannot write {}: {e}", args.data_dir.display()))?;
    let mock = MockServer::new()
        .with_key(&credentials.team_api_key, AuthScheme::TeamApiKey)
        .with_key(&credentials.management_key, AuthScheme::ManagementKey);
    let config = covenant_runtime::server::Config {
        limits: args.limits.request(),
        ..Default::default()
    };
    let router = health_api::server::router(Arc::new(mock), config);
    credentials.print("the mock of the service spec", &path, created);
    transport::serve(listener, router, args.limits.transport(), shutdown_signal())
        .await
        .map_err(|e| format!("server error: {e}"))
}

/// The embedded database's file in the data folder.
const DATABASE_FILE: &str = "health.db";
/// How often users past their deletion grace period are removed for good.
const PURGE_EVERY: Duration = Duration::from_secs(3600);

async fn serve_reference(args: &ServeArgs) -> Result<(), String> {
    let (listener, base_url) = super::listen(args.listen).await?;
    super::private_folder(&args.data_dir)
        .map_err(|e| format!("cannot create {}: {e}", args.data_dir.display()))?;
    let database = match &args.database_url {
        Some(url) => Location::Url(url.clone()),
        None => Location::Sqlite(args.data_dir.join(DATABASE_FILE)),
    };
    let server = ReferenceServer::open(Settings::new(database, &base_url)).await?;
    let earlier = Credentials::earlier(&args.data_dir);
    let first_team = match server
        .bootstrap(earlier.as_ref().map(Credentials::keys))
        .await?
    {
        Outcome::Created(keys) => {
            let credentials = Credentials::from_bootstrap(&keys, &base_url);
            let path = write_credentials(&credentials, &args.data_dir)?;
            credentials.print("the reference server (a new database)", &path, true);
            (keys.org_id, keys.team_id)
        }
        Outcome::Existing { org_id, team_id } => {
            match earlier.filter(|c| c.org_id == org_id) {
                Some(mut credentials) => {
                    credentials.base_url = base_url.clone();
                    credentials.management_url = base_url.clone();
                    let path = write_credentials(&credentials, &args.data_dir)?;
                    credentials.print("the reference server", &path, false);
                }
                None => {
                    println!("serving the reference server at {base_url}");
                    println!(
                        "  the database was set up by an earlier start, which printed its keys and \
                         wrote them to its credentials.json; this data folder has none"
                    );
                }
            }
            (org_id, team_id)
        }
    };
    apply_admin_flags(&server, args, &first_team).await?;
    let recovering = server.clone();
    tokio::spawn(async move {
        loop {
            if let Err(error) = recovering.recover().await {
                tracing::warn!(%error, "recovery pass failed; retrying later");
            }
            tokio::time::sleep(PURGE_EVERY).await;
        }
    });
    let router = health_server::router_with(server.clone(), args.limits.request());
    let served = transport::serve(listener, router, args.limits.transport(), shutdown_signal())
        .await
        .map_err(|e| format!("server error: {e}"));
    server.store().close().await;
    served
}

fn write_credentials(credentials: &Credentials, dir: &Path) -> Result<PathBuf, String> {
    credentials
        .write(dir)
        .map_err(|e| format!("cannot write {}: {e}", dir.join(CREDENTIALS_FILE).display()))
}

/// `--enable-feature`, `--disable-feature` and `--plan`: the same rows the management API
/// changes.
async fn apply_admin_flags(
    server: &ReferenceServer,
    args: &ServeArgs,
    (org_id, team_id): &(String, String),
) -> Result<(), String> {
    for (flags, enabled) in [(&args.enable_feature, true), (&args.disable_feature, false)] {
        for flag in flags {
            let (feature, team) = match flag.split_once('=') {
                Some((feature, team)) => (feature, team),
                None => (flag.as_str(), team_id.as_str()),
            };
            health_server::admin::set_feature(server.store(), team, feature, enabled).await?;
            let verb = if enabled { "enabled" } else { "disabled" };
            println!("  {verb} {feature} for team {team}");
        }
    }
    if let Some(plan) = &args.plan {
        health_server::admin::set_plan(server.store(), org_id, plan).await?;
        println!("  organization {org_id} is on the {plan} plan");
    }
    Ok(())
}

/// Ctrl-C or SIGTERM: stop accepting, finish requests in flight, then return.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => drop(signal.recv().await),
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`).
pub(crate) fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
