//! `record`: a recording proxy in front of a live implementation, or `--from-har`, turning
//! a HAR file into a cassette. Either way the cassette replays as it is with `conform`.

use super::EXIT_USAGE;
use clap::Args;
use covenant_conformance::Contract;
use covenant_conformance::record::{HarRecording, Summary, checked_name, proxy, record_har};
use covenant_conformance::template::{Credentials, Globals};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args)]
pub struct RecordArgs {
    /// The live implementation to forward to.
    #[arg(
        long,
        value_name = "URL",
        required_unless_present = "from_har",
        conflicts_with = "from_har"
    )]
    upstream: Option<String>,
    /// Read this HAR file instead of proxying.
    #[arg(long, value_name = "FILE.har")]
    from_har: Option<PathBuf>,
    /// The folder the cassette is written to.
    #[arg(long)]
    out: PathBuf,
    /// Where the proxy listens.
    #[arg(long, default_value = "127.0.0.1:8081")]
    listen: SocketAddr,
    /// The cassette's name: the scenario is `recorded/NAME`, the file `NAME.json`. Default:
    /// the HAR file's name, or `session`.
    #[arg(long)]
    name: Option<String>,
    /// A credentials file whose values are secrets: written as `{{credentials.KEY}}`.
    #[arg(long, value_name = "FILE")]
    credentials: Option<PathBuf>,
    /// The path the API's base URL has in the HAR's URLs (`/api` of `https://host/api`).
    #[arg(long, default_value = "")]
    base_path: String,
    /// The spec exchanges are matched against.
    #[command(flatten)]
    spec: super::project::SpecArg,
}

pub fn run(args: &RecordArgs) -> ExitCode {
    match record(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn record(args: &RecordArgs) -> Result<(), String> {
    let spec = covenant_codegen::load(&args.spec.path()?).map_err(|e| e.to_string())?;
    let contract = Arc::new(Contract::new(spec)?);
    if let Some(name) = &args.name {
        checked_name(name)?;
    }
    let secrets = match &args.credentials {
        Some(path) => Globals::new(Credentials::read(path)?).secrets(),
        None => Vec::new(),
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    match (&args.from_har, &args.upstream) {
        (Some(har_file), _) => from_har(args, har_file, &contract, secrets),
        (None, Some(upstream)) => proxy_session(args, upstream, contract, secrets),
        (None, None) => Err("give --upstream URL or --from-har FILE".into()),
    }
}

fn from_har(
    args: &RecordArgs,
    har_file: &Path,
    contract: &Contract,
    secrets: Vec<(String, String)>,
) -> Result<(), String> {
    let recording = HarRecording {
        har_file,
        base_path: &args.base_path,
        name: args.name.as_deref(),
        out: &args.out,
        secrets,
    };
    let (out, summary) = record_har(contract, recording)?;
    print_summary(&out, &summary);
    Ok(())
}

/// What a recording wrote and what it left out, and why.
fn print_summary(out: &Path, summary: &Summary) {
    for w in &summary.warnings {
        eprintln!("warning: {w}");
    }
    println!(
        "{}: {} exchanges written, {} left out, {} warnings",
        out.display(),
        summary.written,
        summary.left_out,
        summary.warnings.len()
    );
}

fn proxy_session(
    args: &RecordArgs,
    upstream: &str,
    contract: Arc<Contract>,
    secrets: Vec<(String, String)>,
) -> Result<(), String> {
    let name = args.name.clone().unwrap_or_else(|| "session".into());
    let out = args.out.join(format!("{name}.json"));
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async {
        let (listener, address) = super::listen(args.listen).await?;
        println!("recording: {address} forwards to {upstream}; each exchange is written to {} (Ctrl-C stops)", out.display());
        let (router, recording) = proxy::router(proxy::Session {
            contract,
            upstream: upstream.to_string(),
            secrets,
            out: out.clone(),
            scenario_id: format!("recorded/{name}"),
        });
        let transport = covenant_runtime::server::transport::Transport::default();
        let stopped = super::shutdown_signal();
        let served = covenant_runtime::server::transport::serve(listener, router, transport, stopped)
            .await
            .map_err(|e| format!("proxy error: {e}"));
        print_summary(&out, &recording.summary());
        served
    })
}
