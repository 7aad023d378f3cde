//! `conform`: replay the cassettes against an implementation and judge every response: the
//! one `--target` and `--credentials` name, or with neither the reference server on a fresh
//! embedded database in a temporary folder, started in this process. The run itself is
//! `covenant_conformance::session`; this turns the arguments into its settings.

use clap::Args;
use covenant_conformance::select::{Filter, Shard};
use covenant_conformance::session::{self, Settings, StartReference};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct ConformArgs {
    /// Cassette files or folders (searched for `*.json`); the project's suite by default.
    #[arg(value_name = "CASSETTE_OR_DIR")]
    paths: Vec<PathBuf>,
    /// Where the implementation is: `URL` for the main API (`{base_url}`), `NAME=URL` for
    /// another API by its name or its base's name (`management=URL`). Repeatable. Bases
    /// not given come from the credentials file. Without either, the reference server is
    /// started on a fresh embedded database in a temporary folder.
    #[arg(long = "target", value_name = "URL|NAME=URL")]
    targets: Vec<String>,
    /// A JSON object of values cassettes name as `{{credentials.KEY}}` (keys are never
    /// written to a report); `*_url` values give the API bases --target does not.
    #[arg(long, value_name = "FILE")]
    credentials: Option<PathBuf>,
    /// The spec the cassettes are checked against.
    #[command(flatten)]
    spec: super::project::SpecArg,
    /// Scenarios an implementation knowingly fails, with reasons (TOML). Default, for the
    /// reference server's own run only: conformance/expected-failures.toml.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
    /// Where report.json, junit.xml, report.html and transcripts/ are written.
    #[arg(long, default_value = DEFAULT_REPORT_DIR)]
    report_dir: PathBuf,
    /// Scenarios replayed at once, at least 1 (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only scenarios matching: an id, `tag:NAME` or `endpoint:NAME`; `*` is a wildcard.
    /// Repeatable: a scenario matching any runs. Each must match something.
    #[arg(long, value_name = "FILTER")]
    filter: Vec<Filter>,
    /// Start no scenario after the first failure.
    #[arg(long)]
    fail_fast: bool,
    /// A skipped scenario fails the run (a run where every scenario was skipped always does).
    #[arg(long)]
    fail_on_skip: bool,
    /// Run only the scenarios that failed in the last report of --report-dir.
    #[arg(long)]
    rerun_failed: bool,
    /// Run only the scenarios exercising a change of the spec since this git ref (`main`,
    /// `HEAD~1`): those calling a changed endpoint or awaiting a changed event, as
    /// `covenant diff --against REF` names them. Nothing to run is a success.
    #[arg(long, value_name = "REF")]
    changed_since: Option<String>,
    /// Run the i-th of n deterministic parts of the suite, as `2/4`: split by id, or with
    /// --durations balanced by time.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// The report.json of an earlier run: --shard splits the suite so each part takes
    /// about as long (longest first; a scenario the report lacks counts as the median).
    #[arg(long, value_name = "FILE", requires = "shard")]
    durations: Option<PathBuf>,
    /// Attempts again for a request whose connection fails (never for an answer).
    #[arg(long, default_value_t = 2)]
    retries: u32,
    /// Seconds one response may take.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Compare each scenario's normalized transcript with DIR/<id>.snap (insta's format):
    /// a missing one is written (it fails when CI is set), a differing one is written as
    /// .snap.new and fails the run.
    #[arg(long, value_name = "DIR")]
    snapshots: Option<PathBuf>,
    /// Accept the transcripts: overwrite differing and missing snapshots.
    #[arg(long, requires = "snapshots")]
    update_snapshots: bool,
    /// The longest response body read (bytes, or with KiB, MiB, GiB); a longer one fails
    /// its exchange and is read no further.
    #[arg(long, value_name = "SIZE", default_value = "10MiB", value_parser = parse_size)]
    max_body: usize,
    /// Listen for the target's webhooks on ADDR (`127.0.0.1:0` picks a free port), subscribe
    /// through the spec's `@registers_webhooks` endpoint (or print the address to configure,
    /// with the signing secret in COVENANT_WEBHOOK_SECRET), and check every delivery.
    /// Scenarios that await events need it; a run of the reference server listens by itself
    /// when one is selected.
    #[arg(long, value_name = "ADDR")]
    webhooks: Option<std::net::SocketAddr>,
    /// The address the target sends deliveries to, when it reaches this machine by another
    /// name than --webhooks (a container, another host).
    #[arg(long, value_name = "URL", requires = "webhooks")]
    webhooks_url: Option<String>,
    /// Seconds to keep listening after the last scenario, for deliveries still on their way
    /// (0 to 600).
    #[arg(long, value_name = "SECONDS", default_value = "1", value_parser = parse_settle)]
    webhooks_settle: Duration,
}

/// Seconds from 0 to 600, fractions allowed.
fn parse_settle(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=600.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("`{text}` is no wait: give seconds from 0 to 600")),
    }
}

/// `4096`, `512KiB`, `10MiB`, `1GiB` (also `K`, `M`, `G`, binary multiples).
fn parse_size(text: &str) -> Result<usize, String> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let multiple: usize = match unit {
        "" | "B" => 1,
        "K" | "KiB" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        _ => return Err(format!("`{unit}` is not a size unit: use KiB, MiB or GiB")),
    };
    let amount: usize = digits.parse().map_err(|_| {
        format!("`{text}` is not a size: write bytes, or a number with KiB, MiB or GiB")
    })?;
    match amount.checked_mul(multiple) {
        Some(0) => Err("a size of 0 reads no body at all".into()),
        Some(size) => Ok(size),
        None => Err(format!("`{text}` is too large")),
    }
}

/// Where the reports go unless `--report-dir` says otherwise.
const DEFAULT_REPORT_DIR: &str = "target/conform";

/// A command line clap refused: the reports it would have written are cleared and replaced
/// by one saying why, as for any other usage error, so no earlier green report survives a
/// mistyped option. `args` are the words after `conform`.
pub fn refused_command_line(args: &[String], message: &str) {
    let mut report_dir = PathBuf::from(DEFAULT_REPORT_DIR);
    for (i, arg) in args.iter().enumerate() {
        if let Some(dir) = arg.strip_prefix("--report-dir=") {
            report_dir = PathBuf::from(dir);
        } else if arg == "--report-dir"
            && let Some(dir) = args.get(i + 1)
        {
            report_dir = PathBuf::from(dir);
        }
    }
    session::stopped_before_start(&report_dir, message);
}

pub fn run(args: ConformArgs) -> ExitCode {
    let settings = Settings {
        spec: args.spec.path(),
        paths: args.paths,
        targets: args.targets,
        credentials: args.credentials,
        expected_failures: args.expected_failures,
        report_dir: args.report_dir,
        jobs: args.jobs,
        filter: args.filter,
        fail_fast: args.fail_fast,
        fail_on_skip: args.fail_on_skip,
        rerun_failed: args.rerun_failed,
        changed_since: args.changed_since,
        shard: args.shard,
        durations: args.durations,
        retries: args.retries,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        max_body: args.max_body,
        webhooks: args.webhooks,
        webhooks_url: args.webhooks_url,
        webhooks_settle: args.webhooks_settle,
        snapshots: args.snapshots,
        update_snapshots: args.update_snapshots,
        reference: reference(),
    };
    ExitCode::from(session::run(settings))
}

/// The reference server this build carries, started in process for a run that names no
/// target: on a fresh embedded database in a temporary folder, stopped and removed when the
/// run is done.
#[cfg(feature = "reference")]
fn reference() -> Option<StartReference> {
    Some(Box::new(|| {
        Box::pin(async {
            let started = health_server::launch::start().await?;
            Ok(session::Started {
                credentials: started.credentials.clone(),
                stop: Box::new(move || Box::pin(started.stop())),
            })
        })
    }))
}

#[cfg(not(feature = "reference"))]
fn reference() -> Option<StartReference> {
    None
}
