//! `conform`: replay the cassettes against an implementation and judge every response. With
//! no `--target`, against the reference server on a fresh embedded database in a temporary
//! folder, started in this process.

use super::{DEFAULT_SPEC, EXIT_USAGE};
use clap::Args;
use covenant_conformance::expected::ExpectedFailures;
use covenant_conformance::progress::Progress;
use covenant_conformance::select::{Filter, Shard};
use covenant_conformance::template::Globals;
use covenant_conformance::{Contract, RunSettings, Target, cassette, report, resolve, select};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Exit status when conformance failures were found.
pub const EXIT_FAILURES: u8 = 1;
/// Exit status when the target cannot be reached.
pub const EXIT_UNREACHABLE: u8 = 3;

/// The suite `conform` replays when given no cassettes.
const DEFAULT_SUITE: &str = "conformance/suite";
/// The expected-failure list read when it exists and none is named.
const DEFAULT_EXPECTED: &str = "conformance/expected-failures.toml";

#[derive(Args)]
pub struct ConformArgs {
    /// Cassette files or folders (searched for `*.json`); the project's suite by default.
    #[arg(value_name = "CASSETTE_OR_DIR")]
    paths: Vec<PathBuf>,
    /// The implementation's base URL (`{base_url}` of the spec's API bases). Without it, the
    /// reference server is started on a fresh embedded database in a temporary folder.
    #[arg(long, value_name = "URL")]
    target: Option<String>,
    /// A JSON object of values cassettes name as `{{credentials.KEY}}` (keys are never
    /// written to a report); `*_url` values give the API bases not set by --target.
    #[arg(long, value_name = "FILE")]
    credentials: Option<PathBuf>,
    /// The spec the cassettes are checked against.
    #[arg(long, default_value = DEFAULT_SPEC)]
    spec: PathBuf,
    /// Scenarios an implementation knowingly fails, with reasons (TOML). Default:
    /// conformance/expected-failures.toml when it exists.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
    /// Where report.json, junit.xml, report.html and transcripts/ are written.
    #[arg(long, default_value = "target/conform")]
    report_dir: PathBuf,
    /// Scenarios replayed at once (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only scenarios matching: an id, `tag:NAME` or `endpoint:NAME`; `*` is a wildcard.
    /// Repeatable: a scenario matching any runs.
    #[arg(long, value_name = "FILTER")]
    filter: Vec<Filter>,
    /// Start no scenario after the first failure.
    #[arg(long)]
    fail_fast: bool,
    /// Run only the scenarios that failed in the last report of --report-dir.
    #[arg(long)]
    rerun_failed: bool,
    /// Run the i-th of n deterministic parts of the suite, as `2/4`.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Attempts again for a request whose connection fails (never for an answer).
    #[arg(long, default_value_t = 2)]
    retries: u32,
    /// Seconds one response may take.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
}

pub fn run(args: &ConformArgs) -> ExitCode {
    match conform(args) {
        Ok(code) => code,
        Err(Stop::Usage(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
        Err(Stop::Unreachable(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_UNREACHABLE)
        }
    }
}

enum Stop {
    Usage(String),
    Unreachable(String),
}

fn conform(args: &ConformArgs) -> Result<ExitCode, Stop> {
    let contract = load_contract(&args.spec)?;
    let expected = load_expected(args.expected_failures.as_deref())?;
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(DEFAULT_SUITE)]
    } else {
        args.paths.clone()
    };
    let cassettes = cassette::read_all(&paths).map_err(|errors| Stop::Usage(listed(&errors)))?;
    let credentials = match &args.credentials {
        Some(path) => read_credentials(path).map_err(Stop::Usage)?,
        None => HashMap::new(),
    };
    // Cassettes are checked before a server starts or a request is sent.
    let mut globals = Globals::new(credentials.clone());
    let problems = resolve::check_all(&cassettes, &contract, &globals);
    if !problems.is_empty() {
        return Err(Stop::Usage(listed(&problems)));
    }
    let only = if args.rerun_failed {
        Some(last_failures(&args.report_dir)?)
    } else {
        None
    };
    let selected = select::select(cassettes, &args.filter, args.shard, only.as_deref());
    let settings = RunSettings {
        jobs: args.jobs.unwrap_or(RunSettings::default().jobs).max(1),
        fail_fast: args.fail_fast,
        retries: args.retries,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| Stop::Usage(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async {
        let _reference;
        let target = match &args.target {
            Some(url) => {
                let target = target_of(url, &credentials);
                check_reachable(&contract, &target).await?;
                target
            }
            None => {
                let started = super::reference::start().await.map_err(Stop::Usage)?;
                globals.credentials = started.credentials.clone();
                let target = target_of(&started.base_url, &started.credentials);
                _reference = started;
                target
            }
        };
        let report = covenant_conformance::runner::run(
            Arc::new(contract),
            selected,
            Arc::new(globals),
            target,
            expected,
            settings,
            Progress::for_terminal(),
        )
        .await;
        print!("{}", report::console::summary(&report));
        match report::write_all(&args.report_dir, &report) {
            Ok(_) => println!("  reports: {}", args.report_dir.display()),
            Err(e) => eprintln!("error: cannot write the reports: {e}"),
        }
        Ok(if report.passed() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_FAILURES)
        })
    })
}

fn load_contract(spec: &Path) -> Result<Contract, Stop> {
    let (file, checked) = covenant_codegen::check_path(spec)
        .map_err(|e| Stop::Usage(format!("cannot read {}: {e}", spec.display())))?;
    let spec = checked
        .spec
        .ok_or_else(|| Stop::Usage(checked.diagnostics.render(&file)))?;
    Contract::new(spec).map_err(Stop::Usage)
}

fn load_expected(path: Option<&Path>) -> Result<ExpectedFailures, Stop> {
    match path {
        Some(p) => ExpectedFailures::read(p).map_err(Stop::Usage),
        None if Path::new(DEFAULT_EXPECTED).exists() => {
            ExpectedFailures::read(Path::new(DEFAULT_EXPECTED)).map_err(Stop::Usage)
        }
        None => Ok(ExpectedFailures::default()),
    }
}

/// A credentials file: a JSON object whose string (or number) values cassettes can name.
pub(super) fn read_credentials(path: &Path) -> Result<HashMap<String, String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
    let object = value
        .as_object()
        .ok_or_else(|| format!("{}: expected a JSON object", path.display()))?;
    Ok(object
        .iter()
        .filter_map(|(k, v)| match v {
            serde_json::Value::String(s) => Some((k.clone(), s.clone())),
            serde_json::Value::Number(n) => Some((k.clone(), n.to_string())),
            _ => None,
        })
        .collect())
}

/// `--target` is `{base_url}`; other `*_url` credentials name the other API bases, which
/// default to the target.
fn target_of(url: &str, credentials: &HashMap<String, String>) -> Target {
    let url = url.trim_end_matches('/').to_string();
    let mut bases: HashMap<String, String> = credentials
        .iter()
        .filter(|(k, _)| k.ends_with("_url"))
        .map(|(k, v)| (k.clone(), v.trim_end_matches('/').to_string()))
        .collect();
    bases.insert("base_url".into(), url);
    Target { bases }
}

/// Exit 3 before any scenario when a base URL does not accept connections.
async fn check_reachable(contract: &Contract, target: &Target) -> Result<(), Stop> {
    let mut bases: Vec<String> = contract
        .routes()
        .iter()
        .map(|r| target.resolve(&r.base))
        .collect::<Result<_, _>>()
        .map_err(Stop::Usage)?;
    bases.sort();
    bases.dedup();
    for base in bases {
        let url = reqwest::Url::parse(&base)
            .map_err(|e| Stop::Usage(format!("`{base}` is not a URL: {e}")))?;
        let host = url.host_str().unwrap_or("localhost").to_string();
        let port = url.port_or_known_default().unwrap_or(80);
        let connect = tokio::net::TcpStream::connect((host.as_str(), port));
        match tokio::time::timeout(Duration::from_secs(5), connect).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(Stop::Unreachable(format!("cannot reach {base}: {e}"))),
            Err(_) => {
                return Err(Stop::Unreachable(format!(
                    "cannot reach {base}: no answer in 5 s"
                )));
            }
        }
    }
    Ok(())
}

fn last_failures(dir: &Path) -> Result<Vec<String>, Stop> {
    let report = report::read_json(dir).map_err(Stop::Usage)?;
    Ok(report
        .scenarios
        .into_iter()
        .filter(|s| s.verdict.fails_run())
        .map(|s| s.id)
        .collect())
}

fn listed(errors: &[impl std::fmt::Display]) -> String {
    let mut text = String::new();
    for e in errors {
        text.push_str(&format!("{e}\n"));
    }
    text.push_str(&format!(
        "{} cassette error{}; nothing was sent",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    ));
    text
}
