//! `serve`: the reference server of the service on its embedded SQLite database (default) or
//! on PostgreSQL (`--database-url`), or `--mock`, the generated mock of the spec. Both write
//! `DATA_DIR/credentials.json` with where the service is and the keys to call it with.

use super::EXIT_USAGE;
use clap::Args;
use covenant_runtime::credentials::{CREDENTIALS_FILE, Credentials};
use covenant_runtime::server::transport;
use health_api::mock::MockServer;
use health_api::operations::AuthScheme;
use health_server::ReferenceServer;
use health_server::bootstrap::Bootstrap;
use health_server::launch;
use health_server::store::Location;
use health_server::webhooks::targets::Targets;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

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
    /// Let webhook endpoints be on loopback and private addresses, such as a receiver on
    /// this machine (`conform --target … --webhooks`). Off by default: an endpoint's address
    /// must be public, checked when it is registered and at every delivery.
    #[arg(long)]
    allow_private_webhooks: bool,
    #[command(flatten)]
    limits: super::limits::ServeLimits,
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

pub fn run(args: &ServeArgs) -> ExitCode {
    super::init_logging();
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
    // The keys of an earlier start, when its file holds them all; else new ones.
    let earlier = Credentials::read_in(&args.data_dir)
        .as_ref()
        .and_then(Bootstrap::from_credentials);
    let new_keys = earlier.is_none();
    let credentials = earlier
        .unwrap_or_else(Bootstrap::fresh)
        .credentials(&base_url);
    let path = credentials
        .write_in(&args.data_dir)
        .map_err(|e| format!("cannot write {}: {e}", args.data_dir.display()))?;
    let key = |name: &str| credentials.get(name).unwrap_or_default();
    let mock = MockServer::new()
        .with_key(key("team_api_key"), AuthScheme::TeamApiKey)
        .with_key(key("management_key"), AuthScheme::ManagementKey);
    let config = covenant_runtime::server::Config {
        limits: args.limits.request(),
        ..Default::default()
    };
    let router = health_api::server::router(Arc::new(mock), config);
    print_start(
        "the mock of the service spec",
        &credentials,
        &path,
        new_keys,
    );
    transport::serve(
        listener,
        router,
        args.limits.transport(),
        super::shutdown_signal(),
    )
    .await
    .map_err(|e| format!("server error: {e}"))
}

async fn serve_reference(args: &ServeArgs) -> Result<(), String> {
    let (listener, base_url) = super::listen(args.listen).await?;
    let database = match &args.database_url {
        Some(url) => Location::Url(url.clone()),
        None => Location::Sqlite(args.data_dir.join(launch::DATABASE_FILE)),
    };
    let targets = match args.allow_private_webhooks {
        true => Targets::AnyAddress,
        false => Targets::PublicOnly,
    };
    let opened = launch::open(database, &base_url, &args.data_dir, targets).await?;
    match &opened.credentials {
        Some(credentials) => {
            let path = args.data_dir.join(CREDENTIALS_FILE);
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
    apply_admin_flags(&server, args, (&opened.org_id, &opened.team_id)).await?;
    launch::keep_recovering(server.clone());
    let workers = server.start_workers();
    let router = health_server::router_with(server.clone(), args.limits.request());
    let served = transport::serve(
        listener,
        router,
        args.limits.transport(),
        super::shutdown_signal(),
    )
    .await
    .map_err(|e| format!("server error: {e}"));
    drop(workers);
    server.store().close().await;
    served
}

/// `--enable-feature`, `--disable-feature` and `--plan`: the same rows the management API
/// changes.
async fn apply_admin_flags(
    server: &ReferenceServer,
    args: &ServeArgs,
    (org_id, team_id): (&str, &str),
) -> Result<(), String> {
    for (flags, enabled) in [(&args.enable_feature, true), (&args.disable_feature, false)] {
        for flag in flags {
            let (feature, team) = match flag.split_once('=') {
                Some((feature, team)) => (feature, team),
                None => (flag.as_str(), team_id),
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
