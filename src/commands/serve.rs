//! `serve`: the reference server of the service on its embedded SQLite database (default) or
//! on PostgreSQL (`--database-url`), or `--mock`, the generated mock of the spec. What
//! serving does is `health_server::serve`; this turns the arguments into its options.

use clap::Args;
use health_server::serve::{ServeOptions, serve_mock, serve_reference};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

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

pub fn run(args: ServeArgs) -> ExitCode {
    super::run_server(serve(args))
}

async fn serve(args: ServeArgs) -> Result<(), String> {
    let (listener, base_url) = super::listen(args.listen).await?;
    let options = ServeOptions {
        data_dir: args.data_dir,
        database_url: args.database_url,
        enable_features: args.enable_feature,
        disable_features: args.disable_feature,
        plan: args.plan,
        allow_private_webhooks: args.allow_private_webhooks,
        request_limits: args.limits.request(),
        transport: args.limits.transport(),
    };
    let shutdown = super::shutdown_signal();
    match args.mock {
        true => serve_mock(listener, &base_url, options, shutdown).await,
        false => serve_reference(listener, &base_url, options, shutdown).await,
    }
}
