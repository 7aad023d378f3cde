//! `mock [SPEC]`: serves any spec at once, without generating or compiling code. Requests are
//! checked as the generated router checks them and answered with the spec's examples;
//! `DATA_DIR/credentials.json` names the address and a key for every auth scheme.

use clap::Args;
use covenant_conformance::cassette::credentials;
use covenant_runtime::credentials::Credentials;
use covenant_runtime::server::mock;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct MockArgs {
    /// The spec to serve (default: `spec` in ./covenant.toml).
    spec: Option<PathBuf>,
    /// The address to listen on (port 0 picks a free port; credentials.json names it).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Where `credentials.json` is written; keys found there from an earlier start are kept.
    #[arg(long, default_value = "data")]
    data_dir: PathBuf,
    /// Cassettes (files or folders) whose `{{credentials.NAME}}` values the credentials file
    /// must also hold (an `org_id`, a `team_id`): each gets a value of the type the spec
    /// gives a parameter or field of that name. Default: the project's suite
    /// (`conformance/suite`) when there is one.
    #[arg(long = "cassettes", value_name = "CASSETTE_OR_DIR")]
    cassettes: Vec<PathBuf>,
    #[command(flatten)]
    limits: super::limits::ServeLimits,
}

pub fn run(args: &MockArgs) -> ExitCode {
    let named = super::project::SpecArg {
        spec: args.spec.clone(),
    };
    match named.load() {
        Ok((path, spec)) => super::run_server(serve(&spec, &path, args)),
        Err(code) => code,
    }
}

async fn serve(
    spec: &covenant_codegen::Spec,
    path: &std::path::Path,
    args: &MockArgs,
) -> Result<(), String> {
    let (listener, base_url) = super::listen(args.listen).await?;
    let contract = covenant_codegen::contract::build_static(spec);
    let mut credentials = Credentials::read_in(&args.data_dir).unwrap_or_default();
    // `base_url` always, for a runner's --target; then each API's base by its name.
    credentials.set("base_url", &base_url);
    for api in contract.apis {
        credentials.set(api.base_name(), &base_url);
    }
    let (keys, printed_keys) = mock::keys_for(&contract, &mut credentials);
    credentials::fill_named(&mut credentials, spec, &args.cassettes);
    let written = credentials
        .write_in(&args.data_dir)
        .map_err(|e| format!("cannot write {}: {e}", args.data_dir.display()))?;
    let config = covenant_runtime::server::Config {
        limits: args.limits.request(),
        ..Default::default()
    };
    let arena = bumpalo::Bump::new();
    let examples = covenant_codegen::contract::examples(spec, &arena);
    let served = mock::router(&contract, examples, keys, config);
    print_start(&contract, &served, path, &base_url, &printed_keys, &written);
    let mut transport = args.limits.transport();
    transport.rejections = served.rejections.clone();
    covenant_runtime::server::transport::serve(
        listener,
        served.router,
        transport,
        super::shutdown_signal(),
    )
    .await
    .map_err(|e| format!("server error: {e}"))
}

/// What a start tells: the address of each API, the keys (each shown once, when made), the
/// endpoints one router cannot serve, and the credentials file.
fn print_start(
    contract: &covenant_runtime::contract::Contract<'static>,
    served: &mock::Mock,
    path: &std::path::Path,
    base_url: &str,
    printed_keys: &[String],
    written: &std::path::Path,
) {
    println!(
        "serving the mock of {} at {base_url} ({} endpoints)",
        path.display(),
        contract.endpoints.len() - served.skipped.len()
    );
    let mut named = Vec::new();
    for api in contract.apis {
        let name = api.base_name();
        if !named.contains(&name) {
            println!("  {name}: {base_url} (the spec's {})", api.base);
            named.push(name);
        }
    }
    for line in printed_keys {
        println!("  {line}");
    }
    for endpoint in &served.skipped {
        println!(
            "  not served (one router cannot hold it with an endpoint of another API): {endpoint}"
        );
    }
    println!("  credentials: {}", written.display());
}
