//! `serve --mock`: the generated mock of the service spec over HTTP, so front ends and tools
//! can work before the service exists. It writes the same `credentials.json` the reference
//! server will, so every tool that reads one reads the other.

use super::EXIT_USAGE;
use clap::Args;
use health_api::mock::MockServer;
use health_api::operations::AuthScheme;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args)]
pub struct ServeArgs {
    /// Serve the generated mock: every endpoint answers an example derived from the spec.
    #[arg(long, required = true)]
    mock: bool,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Where `credentials.json` is written (and read again on the next start).
    #[arg(long, default_value = "data")]
    data_dir: PathBuf,
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
    /// The keys of an earlier start in `dir`, at this address; fresh ones when there are none.
    fn load_or_create(dir: &Path, base_url: &str) -> Credentials {
        let earlier = std::fs::read(dir.join(CREDENTIALS_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Credentials>(&bytes).ok());
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
        credentials
    }

    /// Writes the file whole or not at all: a reader never sees half of it.
    fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(CREDENTIALS_FILE);
        let partial = dir.join(format!("{CREDENTIALS_FILE}.partial"));
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, &path)?;
        Ok(path)
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
    match runtime.block_on(serve_mock(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

async fn serve_mock(args: &ServeArgs) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let credentials = Credentials::load_or_create(&args.data_dir, &format!("http://{address}"));
    let path = credentials
        .write(&args.data_dir)
        .map_err(|e| format!("cannot write {}: {e}", args.data_dir.display()))?;
    let mock = MockServer::new()
        .with_key(&credentials.team_api_key, AuthScheme::TeamApiKey)
        .with_key(&credentials.management_key, AuthScheme::ManagementKey);
    let router = health_api::server::router(Arc::new(mock), Default::default());
    println!(
        "serving the mock of the service spec at {}",
        credentials.base_url
    );
    println!("  management API: {}", credentials.management_url);
    println!("  team API key:   {}", credentials.team_api_key);
    println!("  management key: {}", credentials.management_key);
    println!("  credentials:    {}", path.display());
    covenant_runtime::server::axum::serve(listener, router)
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|e| format!("server error: {e}"))
}

/// Ctrl-C or SIGTERM: stop accepting, finish requests in flight, then return.
async fn shutdown_signal() {
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
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
