//! `mock [SPEC]`: serves any spec at once, without generating or compiling code. Requests are
//! checked as the generated router checks them and answered with the spec's examples;
//! `DATA_DIR/credentials.json` names the address and a key for every auth scheme.

use super::{DEFAULT_SPEC, EXIT_USAGE, read_valid_spec};
use clap::Args;
use covenant::mock::{self, Keys};
use covenant_codegen::ir::Spec;
use covenant_runtime::Scheme;
use covenant_runtime::contract::{Contract, SchemeRef};
use covenant_runtime::desc::Carrier;
use serde_json::{Map, Value};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct MockArgs {
    /// The spec to serve.
    #[arg(default_value = DEFAULT_SPEC)]
    spec: PathBuf,
    /// The address to listen on (port 0 picks a free port; credentials.json names it).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Where `credentials.json` is written; keys found there from an earlier start are kept.
    #[arg(long, default_value = "data")]
    data_dir: PathBuf,
    #[command(flatten)]
    limits: super::limits::ServeLimits,
}

const CREDENTIALS_FILE: &str = "credentials.json";

pub fn run(args: &MockArgs) -> ExitCode {
    let spec = match read_valid_spec(&args.spec) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    super::serve::init_logging();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match runtime.block_on(serve(&spec, args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

async fn serve(spec: &Spec, args: &MockArgs) -> Result<(), String> {
    let (listener, base_url) = super::listen(args.listen).await?;
    let contract = covenant_codegen::contract::build_static(spec);
    let mut credentials = earlier_credentials(&args.data_dir);
    let (keys, printed_keys) = keys_of(&contract, &mut credentials);
    let bases = base_names(spec);
    // `base_url` always, for a runner's --target; then each API's base by its name.
    credentials.insert("base_url".to_string(), Value::String(base_url.clone()));
    for (name, _) in &bases {
        credentials.insert(name.clone(), Value::String(base_url.clone()));
    }
    let path = super::write_json_file(&args.data_dir, CREDENTIALS_FILE, &credentials)
        .map_err(|e| format!("cannot write {}: {e}", args.data_dir.display()))?;
    let config = covenant_runtime::server::Config {
        limits: args.limits.request(),
        ..Default::default()
    };
    let served = mock::mock(spec, &contract, keys, config);
    println!(
        "serving the mock of {} at {base_url} ({} endpoints)",
        args.spec.display(),
        spec.endpoints.len() - served.skipped.len()
    );
    for (name, base) in &bases {
        println!("  {name}: {base_url} (the spec's {base})");
    }
    for line in &printed_keys {
        println!("  {line}");
    }
    for endpoint in &served.skipped {
        println!(
            "  not served (one router cannot hold it with an endpoint of another API): {endpoint}"
        );
    }
    println!("  credentials: {}", path.display());
    let mut transport = args.limits.transport();
    transport.rejections = served.rejections.clone();
    covenant_runtime::server::transport::serve(
        listener,
        served.router,
        transport,
        super::serve::shutdown_signal(),
    )
    .await
    .map_err(|e| format!("server error: {e}"))
}

/// A key for each scheme that is not a second header of another: the one `credentials`
/// holds from an earlier start, else a fresh one, written back. Answers the keys and a line
/// naming each.
fn keys_of(
    contract: &Contract<'static>,
    credentials: &mut Map<String, Value>,
) -> (Keys, Vec<String>) {
    let mut keys = Keys::default();
    let mut lines = Vec::new();
    for scheme in contract.scheme_refs().filter(|s| !s.is_alias()) {
        let (key, shown) = match credentials.get(scheme.name()) {
            Some(Value::String(key)) if !key.is_empty() => {
                (key.clone(), "in the credentials".to_string())
            }
            _ => {
                let key = new_key(scheme);
                (key.clone(), key)
            }
        };
        credentials.insert(scheme.name().to_string(), Value::String(key.clone()));
        // A key is shown once, when it is made; later starts say where it is.
        lines.push(format!(
            "{} ({}): {shown}",
            scheme.name(),
            scheme.carrier().describe()
        ));
        keys.insert_key(key, scheme);
    }
    (keys, lines)
}

/// A fresh key for `scheme`: `user:password` for a Basic scheme, a token otherwise.
fn new_key(scheme: SchemeRef<'static>) -> String {
    let secret = uuid::Uuid::new_v4().simple();
    match scheme.carrier() {
        Carrier::Basic => format!("{}:{secret}", scheme.name()),
        _ => format!("{}_{secret}", scheme.name()),
    }
}

/// The name each API's base is given in credentials.json: its placeholder (`{base_url}`
/// names `base_url`), or `<api>_url` for a literal address.
fn base_names(spec: &Spec) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = Vec::new();
    for api in &spec.apis {
        let name = api.base_name();
        if !names.iter().any(|(n, _)| *n == name) {
            names.push((name, api.base_url.clone()));
        }
    }
    names
}

/// The values an earlier start (of this mock, or of another server) wrote: kept, so keys
/// stay the same from one start to the next.
fn earlier_credentials(dir: &Path) -> Map<String, Value> {
    std::fs::read(dir.join(CREDENTIALS_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}
