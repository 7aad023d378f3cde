//! Serving the service on a listener until shutdown, or the generated mock of its spec: what
//! `covenant serve` runs. Both write `DATA_DIR/credentials.json` with where the service is
//! and the keys to call it with, and say so on standard output.

use crate::background::webhooks::targets::Targets;
use crate::domain::bootstrap::Bootstrap;
use crate::infra::store::Location;
use crate::launch;
use crate::{ReferenceServer, router_with};
use covenant_runtime::credentials::{CREDENTIALS_FILE, Credentials};
use covenant_runtime::server::RequestLimits;
use covenant_runtime::server::transport::{self, Transport};
use health_api::mock::MockServer;
use health_api::operations::AuthScheme;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::net::TcpListener;

/// How the service is served.
pub struct ServeOptions {
    /// Where `credentials.json` is written (and read again on the next start), and where the
    /// embedded database lives.
    pub data_dir: PathBuf,
    /// PostgreSQL instead of the embedded database.
    pub database_url: Option<String>,
    /// `FEATURE` (for the first team) or `FEATURE=TEAM_ID`, enabled or disabled at start.
    pub enable_features: Vec<String>,
    pub disable_features: Vec<String>,
    /// The plan the first organization is put on.
    pub plan: Option<String>,
    /// Webhook endpoints may be on loopback and private addresses.
    pub allow_private_webhooks: bool,
    pub request_limits: RequestLimits,
    pub transport: Transport,
}

/// Serves the reference server at `base_url` on `listener` until `shutdown`, then closes
/// its database.
pub async fn serve_reference(
    listener: TcpListener,
    base_url: &str,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), String> {
    let database = match &options.database_url {
        Some(url) => Location::Url(url.clone()),
        None => Location::Sqlite(options.data_dir.join(launch::DATABASE_FILE)),
    };
    let targets = match options.allow_private_webhooks {
        true => Targets::AnyAddress,
        false => Targets::PublicOnly,
    };
    let opened = launch::open(database, base_url, &options.data_dir, targets).await?;
    match &opened.credentials {
        Some(credentials) => {
            let path = options.data_dir.join(CREDENTIALS_FILE);
            let what = if opened.created {
                "the reference server (a new database)"
            } else {
                "the reference server"
            };
            print_start(what, credentials, &path, opened.new_keys);
        }
        None => {
            println!("serving the reference server at {base_url}");
            println!(
                "  the database was set up by an earlier start, which printed its keys and \
                 wrote them to its credentials.json; this data folder has none"
            );
        }
    }
    let server = opened.server;
    apply_admin_flags(&server, &options, (&opened.org_id, &opened.team_id)).await?;
    launch::keep_recovering(server.clone());
    let workers = server.start_workers();
    let router = router_with(server.clone(), options.request_limits);
    let served = transport::serve(listener, router, options.transport, shutdown)
        .await
        .map_err(|e| format!("server error: {e}"));
    drop(workers);
    server.store().close().await;
    served
}

/// Serves the generated mock of the service spec: every endpoint answers an example, and
/// nothing is stored. The keys of an earlier start are kept when its file holds them all.
pub async fn serve_mock(
    listener: TcpListener,
    base_url: &str,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), String> {
    let earlier = Credentials::read_in(&options.data_dir)
        .as_ref()
        .and_then(Bootstrap::from_credentials);
    let new_keys = earlier.is_none();
    let credentials = earlier
        .unwrap_or_else(Bootstrap::fresh)
        .credentials(base_url);
    let path = credentials
        .write_in(&options.data_dir)
        .map_err(|e| format!("cannot write {}: {e}", options.data_dir.display()))?;
    let key = |name: &str| credentials.get(name).unwrap_or_default();
    let mock = MockServer::new()
        .with_key(key("team_api_key"), AuthScheme::TeamApiKey)
        .with_key(key("management_key"), AuthScheme::ManagementKey);
    let config = covenant_runtime::server::Config {
        limits: options.request_limits,
        ..Default::default()
    };
    let router = health_api::server::router(Arc::new(mock), config);
    let what = "the mock of the service spec";
    print_start(what, &credentials, &path, new_keys);
    transport::serve(listener, router, options.transport, shutdown)
        .await
        .map_err(|e| format!("server error: {e}"))
}

/// What a start tells: the addresses, the keys when they were just made (once; later starts
/// say where they are, so a terminal's scrollback or a log holds them once at most), and the
/// credentials file.
fn print_start(what: &str, credentials: &Credentials, path: &Path, new_keys: bool) {
    let value = |key: &str| credentials.get(key).unwrap_or_default();
    println!("serving {what} at {}", value("base_url"));
    println!(
        "  management API: {} (same address, paths under /v1)",
        value("management_url")
    );
    if new_keys {
        println!("  team API key:   {}", value("team_api_key"));
        println!("  management key: {}", value("management_key"));
        println!(
            "  credentials:    {} (the keys are shown this once)",
            path.display()
        );
    } else {
        println!("  credentials:    {} (the keys are there)", path.display());
    }
}

/// The features enabled or disabled and the plan set at start: the same rows the
/// management API changes.
async fn apply_admin_flags(
    server: &ReferenceServer,
    options: &ServeOptions,
    (org_id, team_id): (&str, &str),
) -> Result<(), String> {
    let flags = [
        (&options.enable_features, true),
        (&options.disable_features, false),
    ];
    for (flags, enabled) in flags {
        for flag in flags {
            let (feature, team) = match flag.split_once('=') {
                Some((feature, team)) => (feature, team),
                None => (flag.as_str(), team_id),
            };
            crate::domain::admin::set_feature(server, team, feature, enabled).await?;
            let verb = if enabled { "enabled" } else { "disabled" };
            println!("  {verb} {feature} for team {team}");
        }
    }
    if let Some(plan) = &options.plan {
        crate::domain::admin::set_plan(server, org_id, plan).await?;
        println!("  organization {org_id} is on the {plan} plan");
    }
    Ok(())
}
