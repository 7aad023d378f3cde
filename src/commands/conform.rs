//! `conform`: replay the cassettes against an implementation and judge every response: the
//! one `--target` and `--credentials` name, or with neither the reference server on a fresh
//! embedded database in a temporary folder, started in this process.

use super::EXIT_USAGE;
use clap::Args;
use covenant_conformance::changes::exercises;
use covenant_conformance::expected::ExpectedFailures;
use covenant_conformance::outcome::ExpectedList;
use covenant_conformance::progress::Progress;
use covenant_conformance::select::{Filter, Shard};
use covenant_conformance::snapshot::SnapshotSettings;
use covenant_conformance::template::{Credentials, Globals};
use covenant_conformance::{
    Contract, Report, RunSettings, Target, cassette, events, plan, report, select, snapshot,
    suggest,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use covenant_conformance::verdict::EXIT_UNREACHABLE;

/// The suite `conform` replays when given no cassettes.
pub const DEFAULT_SUITE: &str = "conformance/suite";
/// The expected-failure list read when it exists and none is named.
const DEFAULT_EXPECTED: &str = "conformance/expected-failures.toml";

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
    let stopped = Report::stopped("", BTreeMap::new(), EXIT_USAGE, message);
    if report::clear(&report_dir).is_ok() {
        let _ = report::write_all(&report_dir, &stopped);
    }
}

pub fn run(args: &ConformArgs) -> ExitCode {
    // The last report is read before the reports are cleared.
    let rerun = if args.rerun_failed {
        match last_failures(&args.report_dir) {
            Ok(ids) => Some(ids),
            Err(Stop::Usage(m) | Stop::Unreachable(m)) => {
                eprintln!("error: {m}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    } else {
        None
    };
    // An earlier report's durations too: it may be the one about to be cleared.
    let durations = match args.durations.as_deref().map(read_durations).transpose() {
        Ok(durations) => durations,
        Err(m) => {
            eprintln!("error: {m}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Err(e) = report::clear(&args.report_dir) {
        eprintln!(
            "error: cannot clear the reports in {}: {e}",
            args.report_dir.display()
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let mut context = Context::default();
    let stop = match conform(args, rerun, durations, &mut context) {
        Ok(code) => return code,
        Err(stop) => stop,
    };
    let (exit, message) = match stop {
        Stop::Usage(message) => (EXIT_USAGE, message),
        Stop::Unreachable(message) => (EXIT_UNREACHABLE, message),
    };
    eprintln!("error: {message}");
    let stopped = Report::stopped(&context.spec_name, context.bases, exit, &message);
    if let Err(e) = report::write_all(&args.report_dir, &stopped) {
        eprintln!("error: cannot write the reports: {e}");
    }
    ExitCode::from(exit)
}

enum Stop {
    Usage(String),
    Unreachable(String),
}

/// What a stopped run's report can still say.
#[derive(Default)]
struct Context {
    spec_name: String,
    bases: BTreeMap<String, String>,
}

fn conform(
    args: &ConformArgs,
    rerun: Option<Vec<String>>,
    durations: Option<select::Durations>,
    context: &mut Context,
) -> Result<ExitCode, Stop> {
    if args.jobs == Some(0) {
        return Err(Stop::Usage(
            "--jobs 0 would run nothing: give at least 1".into(),
        ));
    }
    let contract = load_contract(&args.spec)?;
    context.spec_name = contract.spec.service.name.clone();
    let reference_run = args.targets.is_empty() && args.credentials.is_none();
    let list = load_expected(args.expected_failures.as_deref())?;
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(DEFAULT_SUITE)]
    } else {
        args.paths.clone()
    };
    let (cassettes, mut problems) = cassette::read_each(&paths);
    let credentials = match &args.credentials {
        Some(path) => Credentials::read(path).map_err(Stop::Usage)?,
        None => Credentials::default(),
    };
    // Cassettes are checked before a server starts or a request is sent; every file's
    // problems, of shape and of meaning, are told in one pass.
    let mut globals = Globals::new(credentials.clone());
    let (plans, mut meaning) = plan::compile_all(cassettes, &contract, &globals);
    problems.append(&mut meaning);
    problems.sort();
    if !problems.is_empty() {
        return Err(Stop::Usage(listed(&problems)));
    }
    let endpoints: Vec<&str> = contract.routes().iter().map(|r| r.name).collect();
    select::check_filters(&args.filter, &plans, &endpoints).map_err(Stop::Usage)?;
    // An entry of the list is stale when no scenario read has its id; the default list
    // speaks of the default suite only, so another folder's run says nothing of it.
    let judge_staleness = args.paths.is_empty() || args.expected_failures.is_some();
    let read: Vec<String> = plans.iter().map(|p| p.id().to_string()).collect();
    let mut selected = select::select(
        plans,
        &args.filter,
        args.shard,
        durations.as_ref(),
        rerun.as_deref(),
    );
    if selected.is_empty() {
        return Err(Stop::Usage(nothing_selected(args)));
    }
    if let Some(reference) = &args.changed_since {
        // `None`: the spec is new since the ref, so every scenario exercises a change.
        if let Some((before, touched)) = changed_since(reference, &args.spec)? {
            // A removed event is known by its old pattern only.
            selected.retain(|p| {
                exercises(p.as_ref(), &contract.spec, &touched)
                    || exercises(p.as_ref(), &before, &touched)
            });
        }
        if selected.is_empty() {
            eprintln!(
                "conform: no scenario exercises a change of the spec since {reference}: nothing to run"
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "conform: {} scenario{} exercise{} the spec's changes since {reference}",
            selected.len(),
            if selected.len() == 1 { "" } else { "s" },
            if selected.len() == 1 { "s" } else { "" },
        );
    }
    let settings = RunSettings {
        jobs: args.jobs.unwrap_or(RunSettings::default().jobs),
        fail_fast: args.fail_fast,
        retries: args.retries,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        max_body: args.max_body,
        events: None,
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| Stop::Usage(format!("cannot start the async runtime: {e}")))?;
    let mut settings = settings;
    let contract = Arc::new(contract);
    runtime.block_on(async {
        let mut reference = None;
        let target = if reference_run {
            let (started, credentials) = start_reference().await.map_err(Stop::Usage)?;
            reference = Some(started);
            let target = target_of(&contract, &[], &credentials).map_err(Stop::Usage)?;
            globals.credentials = credentials;
            target
        } else {
            let target = target_of(&contract, &args.targets, &credentials).map_err(Stop::Usage)?;
            context.bases = target.bases.clone();
            check_reachable(&selected, &target).await?;
            target
        };
        context.bases = target.bases.clone();
        let implementation = identify(&target).await;
        let (expected, list_use) = applicable(list, implementation.as_deref(), args, reference_run);
        let stale: Vec<String> = if judge_staleness {
            let read: Vec<&str> = read.iter().map(String::as_str).collect();
            expected
                .stale(&read)
                .into_iter()
                .map(String::from)
                .collect()
        } else {
            Vec::new()
        };
        // A run of the reference server receives its events when a scenario awaits them: it
        // controls both ends. Otherwise it subscribes nothing, so a recording replays against
        // the state it was recorded in.
        let awaited = selected.iter().any(|p| p.awaits_events());
        let listen = args
            .webhooks
            .or_else(|| (reference_run && awaited).then(|| ([127, 0, 0, 1], 0).into()));
        let mut session = None;
        if let Some(addr) = listen {
            match open_events(&contract, addr, args, &target, &mut globals).await {
                Ok(opened) => {
                    settings.events = Some(opened.hub.clone());
                    session = Some(opened);
                }
                Err(stop) => {
                    if let Some(reference) = reference {
                        stop_reference(reference).await;
                    }
                    return Err(stop);
                }
            }
        }
        let secrets = globals.secrets();
        let mut report = covenant_conformance::runner::run(
            contract,
            selected,
            Arc::new(globals),
            target,
            expected,
            settings,
            Progress::for_terminal(),
        )
        .await;
        if let Some(session) = session {
            if let Some(problem) = session.close(args.webhooks_settle, &mut report).await {
                eprintln!("warning: {problem}");
            }
            // The run redacted what it held; what the receiver adds is redacted here.
            report.redact(&covenant_conformance::secrets::Redactor::new(secrets));
        }
        if let Some(reference) = reference {
            stop_reference(reference).await;
        }
        report.implementation = implementation;
        report.expected_failures = list_use;
        finish(args, report, stale)
    })
}

/// Starts the webhook receiver and subscribes it; the subscription's secret (or the one
/// configured) becomes the credential `webhook_secret`, redacted like any other.
async fn open_events(
    contract: &Arc<Contract>,
    addr: std::net::SocketAddr,
    args: &ConformArgs,
    target: &Target,
    globals: &mut Globals,
) -> Result<events::Session, Stop> {
    let configured = std::env::var(events::SECRET_VARIABLE).ok();
    if let Some(secret) = &configured {
        // A credential like any other: never shown.
        globals.credentials.set("webhook_secret", secret);
    }
    let listen = events::Listen {
        addr,
        public_url: args.webhooks_url.clone(),
        secret: configured,
    };
    // The target was reached (or not) by the subscription: exit 3 when it fails.
    let session = events::Session::open(contract.clone(), listen, target, &globals.credentials)
        .await
        .map_err(|e| Stop::Unreachable(format!("cannot receive the target's events: {e}")))?;
    if let Some(instructions) = session.instructions() {
        println!("conform: {instructions}");
    }
    if let Some(secret) = session.secret() {
        globals.credentials.set("webhook_secret", secret);
    }
    Ok(session)
}

/// Checks the snapshots, prints the summary and writes the reports; answers the exit
/// status the run calls for.
fn finish(args: &ConformArgs, mut report: Report, stale: Vec<String>) -> Result<ExitCode, Stop> {
    report.stale_expected_failures = stale;
    report.fail_on_skip = args.fail_on_skip;
    if let Some(dir) = &args.snapshots {
        let settings = SnapshotSettings {
            dir: dir.clone(),
            update: args.update_snapshots,
            ci: SnapshotSettings::ci_from_env(),
        };
        report.snapshots = snapshot::check_all(&report, &settings).map_err(|e| {
            Stop::Usage(format!(
                "cannot read or write the snapshots in {}: {e}",
                dir.display()
            ))
        })?;
    }
    print!("{}", report::console::summary(&report));
    match report::write_all(&args.report_dir, &report) {
        Ok(_) => println!("  reports: {}", args.report_dir.display()),
        Err(e) => eprintln!("error: cannot write the reports: {e}"),
    }
    Ok(ExitCode::from(report.verdict().exit()))
}

/// The reference server this build carries, started in process for a run that names no
/// target: on a fresh embedded database in a temporary folder, stopped and removed when the
/// handle is dropped.
#[cfg(feature = "reference")]
async fn start_reference() -> Result<(health_server::launch::InProcess, Credentials), String> {
    let started = health_server::launch::start().await?;
    let credentials = started.credentials.clone();
    Ok((started, credentials))
}

/// Stops the reference server once its requests are done, and closes its database.
#[cfg(feature = "reference")]
async fn stop_reference(reference: health_server::launch::InProcess) {
    reference.stop().await;
}

#[cfg(not(feature = "reference"))]
async fn start_reference() -> Result<((), Credentials), String> {
    Err(
        "no --target or --credentials given, and this build carries no reference server to \
         start: name the implementation with --target URL, or with --credentials FILE whose \
         base_url names it"
            .into(),
    )
}

#[cfg(not(feature = "reference"))]
async fn stop_reference((): ()) {}

/// The spec at `reference`, and the endpoints and events a change since then touches; `None`
/// when the spec did not exist then.
fn changed_since(
    reference: &str,
    spec: &super::project::SpecArg,
) -> Result<Option<(covenant_codegen::Spec, std::collections::BTreeSet<String>)>, Stop> {
    let stop = |e: super::diff::Stop| match e {
        super::diff::Stop::Usage(m) => Stop::Usage(format!("--changed-since: {m}")),
        super::diff::Stop::Invalid(m) => Stop::Usage(format!(
            "--changed-since {reference}: a version of the spec does not check:\n{m}"
        )),
    };
    let path = spec.path().map_err(Stop::Usage)?;
    let new = super::diff::from_file(&path).map_err(stop)?;
    let old = super::diff::at_ref(reference, &path, super::diff::Absent::New).map_err(stop)?;
    if old.absent {
        return Ok(None);
    }
    let touched = super::diff::changes(&old, &new)
        .into_iter()
        .flat_map(|f| f.carriers)
        .collect();
    Ok(Some((old.spec, touched)))
}

/// Why the selection is empty, in the words of the options that made it so.
fn nothing_selected(args: &ConformArgs) -> String {
    let mut why = Vec::new();
    if args.rerun_failed {
        why.push(format!(
            "--rerun-failed: no scenario failed in the last report of {}",
            args.report_dir.display()
        ));
    }
    if let Some(shard) = args.shard {
        why.push(format!(
            "--shard {}/{} holds none of the scenarios selected",
            shard.index, shard.count
        ));
    }
    if why.is_empty() {
        why.push("no scenario matches the filters".into());
    }
    format!("no scenario selected, nothing to run: {}", why.join("; "))
}

fn load_contract(spec: &super::project::SpecArg) -> Result<Contract, Stop> {
    let path = spec.path().map_err(Stop::Usage)?;
    let spec = covenant_codegen::load(&path).map_err(|e| Stop::Usage(e.to_string()))?;
    Contract::new(spec).map_err(Stop::Usage)
}

/// The list named, else the project's own list when there is one, with its file.
fn load_expected(path: Option<&Path>) -> Result<Option<(PathBuf, ExpectedFailures)>, Stop> {
    let path = match path {
        Some(p) => p.to_path_buf(),
        None if Path::new(DEFAULT_EXPECTED).exists() => PathBuf::from(DEFAULT_EXPECTED),
        None => return Ok(None),
    };
    let list = ExpectedFailures::read(&path).map_err(Stop::Usage)?;
    Ok(Some((path, list)))
}

/// The list that judges this run: one describes the implementation it names, whoever
/// started it. A list naming none describes the target it is named for, and the project's
/// own list (read unnamed) the reference server's own run only.
fn applicable(
    list: Option<(PathBuf, ExpectedFailures)>,
    implementation: Option<&str>,
    args: &ConformArgs,
    reference_run: bool,
) -> (ExpectedFailures, Option<ExpectedList>) {
    let Some((path, list)) = list else {
        return (ExpectedFailures::default(), None);
    };
    let applied = match &list.implementation {
        Some(_) => list.describes(implementation),
        None => args.expected_failures.is_some() || reference_run,
    };
    let used = ExpectedList {
        file: path.display().to_string(),
        describes: list.implementation.clone(),
        applied,
    };
    let list = if applied {
        list
    } else {
        ExpectedFailures::default()
    };
    (list, Some(used))
}

/// The name the target gives itself: the `Server` header of its answer to `GET /` on its
/// main base (any status); `None` when it sends none or does not answer in 5 s.
async fn identify(target: &Target) -> Option<String> {
    let base = target
        .bases
        .get("base_url")
        .or_else(|| target.bases.values().next())?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .ok()?;
    let answer = client.get(format!("{base}/")).send().await.ok()?;
    let server = answer
        .headers()
        .get(reqwest::header::SERVER)?
        .to_str()
        .ok()?;
    Some(server.to_string())
}

/// Every API base by name: from `--target` (`URL` is `base_url`; `NAME=URL` names an API
/// or a base), else from the credentials' `*_url` values. A name that is neither an API nor
/// a base of the spec is an error, with the closest one.
fn target_of(
    contract: &Contract,
    targets: &[String],
    credentials: &Credentials,
) -> Result<Target, String> {
    let apis: Vec<(String, String)> = contract
        .spec
        .apis
        .iter()
        .map(|a| (a.name.clone(), a.base_name()))
        .collect();
    let mut bases: BTreeMap<String, String> = credentials
        .iter()
        .filter(|(k, _)| apis.iter().any(|(_, base)| base == k))
        .map(|(k, v)| (k.to_string(), v.trim_end_matches('/').to_string()))
        .collect();
    let mut given_main = false;
    for target in targets {
        let (name, url) = match named_target(target) {
            Some((name, url)) => {
                let base = apis
                    .iter()
                    .find(|(api, base)| api == name || base == name)
                    .map(|(_, base)| base.clone())
                    .ok_or_else(|| unknown_base(name, &apis))?;
                (base, url)
            }
            None if given_main => {
                return Err(format!(
                    "--target `{target}`: the main URL is given twice; name the others as NAME=URL"
                ));
            }
            None => {
                given_main = true;
                ("base_url".to_string(), target.as_str())
            }
        };
        reqwest::Url::parse(url).map_err(|e| format!("--target `{target}`: not a URL: {e}"))?;
        bases.insert(name, url.trim_end_matches('/').to_string());
    }
    Ok(Target { bases })
}

/// `NAME=URL`, where NAME is a word; a bare URL (which may hold `=` in its query) is not.
fn named_target(target: &str) -> Option<(&str, &str)> {
    let (name, url) = target.split_once('=')?;
    let word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    word.then_some((name, url))
}

fn unknown_base(name: &str, apis: &[(String, String)]) -> String {
    let mut known: Vec<&str> = Vec::new();
    for name in apis
        .iter()
        .flat_map(|(api, base)| [api.as_str(), base.as_str()])
    {
        if !known.contains(&name) {
            known.push(name);
        }
    }
    let help = suggest::closest(name, known.iter().copied(), suggest::Likeness::Loose)
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    format!(
        "--target `{name}=…`: the spec has no API or base `{name}` (known: {}){help}",
        known.join(", ")
    )
}

/// Exit 3 before any scenario when a base the selected scenarios use does not accept
/// connections; a usage error when one has no URL.
async fn check_reachable(selected: &[plan::ScenarioPlan], target: &Target) -> Result<(), Stop> {
    let mut bases: Vec<String> = Vec::new();
    for exchange in selected.iter().flat_map(|p| &p.exchanges) {
        bases.push(target.resolve(exchange.route).map_err(Stop::Usage)?);
    }
    bases.sort();
    bases.dedup();
    for base in bases {
        let url = reqwest::Url::parse(&base)
            .map_err(|e| Stop::Usage(format!("`{base}` is not a URL: {e}")))?;
        covenant_conformance::runner::connect(&url, Duration::from_secs(5))
            .await
            .map_err(|e| Stop::Unreachable(format!("cannot reach {base}: {e}")))?;
    }
    Ok(())
}

/// Each scenario's duration in the report.json at `path`.
fn read_durations(path: &Path) -> Result<select::Durations, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--durations {}: cannot read: {e}", path.display()))?;
    let report: Report = serde_json::from_str(&text).map_err(|e| {
        format!(
            "--durations {}: not a report.json of conform: {e}",
            path.display()
        )
    })?;
    Ok(report
        .scenarios
        .into_iter()
        .map(|s| (s.id, s.duration_ms))
        .collect())
}

fn last_failures(dir: &Path) -> Result<Vec<String>, Stop> {
    let report = report::read_json(dir).map_err(Stop::Usage)?;
    if let Some(stopped) = &report.stopped {
        return Err(Stop::Usage(format!(
            "--rerun-failed: the last run judged nothing ({}); run the suite first",
            stopped.reason.lines().last().unwrap_or_default()
        )));
    }
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
