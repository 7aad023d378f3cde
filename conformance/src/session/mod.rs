//! A whole conformance run, as `covenant conform` drives it: read and check the cassettes,
//! select the scenarios, find (or start) the implementation, replay, receive its events,
//! redact once with everything the run learnt, check the snapshots and write the reports.
//! The command line only turns its arguments into [`Settings`]; the session says on the
//! terminal what the run does as it goes (progress, notices, the summary, why it stopped).

mod inputs;
mod targets;

use targets::target_of;

use crate::changes::exercises;
use crate::progress::Progress;
use crate::select::{Filter, Shard};
use crate::snapshot::SnapshotSettings;
use crate::template::{Credentials, Globals};
use crate::verdict::{EXIT_UNREACHABLE, EXIT_USAGE};
use crate::{Contract, Report, RunSettings, Target, cassette, events, plan, report, select};
use covenant_project::versions::{VersionError, changes_since};
use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

pub use crate::cassette::DEFAULT_SUITE;

/// A future a caller hands the session.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T>>>;

/// An implementation the session starts itself when no target is named (the reference
/// server of a project), with the credentials it was started with.
pub struct Started {
    pub credentials: Credentials,
    /// Stops it once its requests are done.
    pub stop: Box<dyn FnOnce() -> BoxFuture<()>>,
}

/// Starts the implementation a run with no target replays against.
pub type StartReference = Box<dyn FnOnce() -> BoxFuture<Result<Started, String>>>;

/// Everything a run is told.
pub struct Settings {
    /// The spec the cassettes are checked against, or why the command line names none
    /// (told as the run's usage error, in its reports too).
    pub spec: Result<PathBuf, String>,
    /// Cassette files or folders; [`DEFAULT_SUITE`] when empty.
    pub paths: Vec<PathBuf>,
    /// `URL` or `NAME=URL` per API base.
    pub targets: Vec<String>,
    /// A JSON object of the values cassettes name as `{{credentials.KEY}}`.
    pub credentials: Option<PathBuf>,
    /// The expected-failure list; [`inputs::DEFAULT_EXPECTED`] when it exists and none is named.
    pub expected_failures: Option<PathBuf>,
    /// Where the reports are written, the last run's cleared first.
    pub report_dir: PathBuf,
    /// Scenarios replayed at once; the number of cores when not given.
    pub jobs: Option<usize>,
    /// A scenario runs when it matches any.
    pub filter: Vec<Filter>,
    /// Start no scenario after the first failure.
    pub fail_fast: bool,
    /// A skipped scenario fails the run.
    pub fail_on_skip: bool,
    /// Only the scenarios that failed in the last report of `report_dir`.
    pub rerun_failed: bool,
    /// Only the scenarios exercising a change of the spec since this git ref.
    pub changed_since: Option<String>,
    /// The part of the suite this run replays.
    pub shard: Option<Shard>,
    /// An earlier report.json, to balance the shards by time.
    pub durations: Option<PathBuf>,
    /// Attempts again for a request whose connection fails.
    pub retries: u32,
    /// How long one response may take.
    pub timeout: Duration,
    /// The longest response body read.
    pub max_body: usize,
    /// Where to receive the target's webhooks, and the address it sends them to.
    pub webhooks: Option<std::net::SocketAddr>,
    pub webhooks_url: Option<String>,
    /// How long to keep listening after the last scenario.
    pub webhooks_settle: Duration,
    /// The folder of each scenario's reviewed transcript.
    pub snapshots: Option<PathBuf>,
    /// Accept the transcripts as the snapshots.
    pub update_snapshots: bool,
    /// Started when neither targets nor credentials are given; `None` when the build
    /// carries no implementation of its own.
    pub reference: Option<StartReference>,
}

impl Settings {
    /// Neither targets nor credentials name the implementation: the run starts its own.
    fn reference_run(&self) -> bool {
        self.targets.is_empty() && self.credentials.is_none()
    }
}

/// Why a run stopped before judging anything.
enum Stop {
    /// Exit 2.
    Usage(String),
    /// Exit 3: the target could not be reached.
    Unreachable(String),
}

impl Stop {
    fn exit(&self) -> u8 {
        match self {
            Stop::Usage(_) => EXIT_USAGE,
            Stop::Unreachable(_) => EXIT_UNREACHABLE,
        }
    }

    fn message(&self) -> &str {
        match self {
            Stop::Usage(m) | Stop::Unreachable(m) => m,
        }
    }
}

/// What a stopped run's report can still say.
#[derive(Default)]
struct Context {
    spec_name: String,
    bases: BTreeMap<String, String>,
}

/// Runs the session and answers its exit status. A run that stops says why on standard
/// error and in reports that replace the last run's.
pub fn run(settings: Settings) -> u8 {
    // The last report is read before the reports are cleared, and an earlier report's
    // durations too: it may be the one about to be cleared.
    let rerun = match settings.rerun_failed {
        true => match inputs::last_failures(&settings.report_dir) {
            Ok(ids) => Some(ids),
            Err(message) => return usage(&message),
        },
        false => None,
    };
    let durations = match settings.durations.as_deref().map(inputs::read_durations) {
        Some(Err(message)) => return usage(&message),
        durations => durations.and_then(Result::ok),
    };
    if let Err(e) = report::clear(&settings.report_dir) {
        let dir = settings.report_dir.display();
        return usage(&format!("cannot clear the reports in {dir}: {e}"));
    }
    let report_dir = settings.report_dir.clone();
    let mut context = Context::default();
    let stop = match conform(settings, rerun, durations, &mut context) {
        Ok(exit) => return exit,
        Err(stop) => stop,
    };
    eprintln!("error: {}", stop.message());
    let stopped = Report::stopped(
        &context.spec_name,
        context.bases,
        stop.exit(),
        stop.message(),
    );
    if let Err(e) = report::write_all(&report_dir, &stopped) {
        eprintln!("error: cannot write the reports: {e}");
    }
    stop.exit()
}

/// A run that stops before its reports are cleared: it says why and leaves them.
fn usage(message: &str) -> u8 {
    eprintln!("error: {message}");
    EXIT_USAGE
}

/// Clears the reports of `report_dir` and writes one saying the run stopped before it
/// began (a command line refused), so no earlier green report survives a mistake.
pub fn stopped_before_start(report_dir: &std::path::Path, message: &str) {
    let stopped = Report::stopped("", BTreeMap::new(), EXIT_USAGE, message);
    if report::clear(report_dir).is_ok() {
        let _ = report::write_all(report_dir, &stopped);
    }
}

/// The cassettes read, checked and selected: what will be sent.
struct Selection {
    plans: Vec<plan::ScenarioPlan>,
    /// Every scenario id read, to judge the expected-failure list's entries stale.
    read: Vec<String>,
    globals: Globals,
    credentials: Credentials,
}

fn conform(
    mut settings: Settings,
    rerun: Option<Vec<String>>,
    durations: Option<select::Durations>,
    context: &mut Context,
) -> Result<u8, Stop> {
    if settings.jobs == Some(0) {
        return Err(Stop::Usage(
            "--jobs 0 would run nothing: give at least 1".into(),
        ));
    }
    let path = settings.spec.clone().map_err(Stop::Usage)?;
    let spec = covenant_codegen::load(&path).map_err(|e| Stop::Usage(e.to_string()))?;
    let contract = Contract::new(spec).map_err(Stop::Usage)?;
    context.spec_name = contract.spec.service.name.clone();
    let list = inputs::load_expected(settings.expected_failures.as_deref())?;
    let Some(selection) = select_scenarios(&mut settings, &contract, rerun, durations)? else {
        return Ok(0);
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| Stop::Usage(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(replay(
        settings,
        Arc::new(contract),
        selection,
        list,
        context,
    ))
}

/// Reads and checks every cassette (every file's problems told in one pass, before a
/// server starts or a request is sent) and selects the scenarios to run; `None` when a
/// `--changed-since` run has nothing to run, which is a success.
fn select_scenarios(
    settings: &mut Settings,
    contract: &Contract,
    rerun: Option<Vec<String>>,
    durations: Option<select::Durations>,
) -> Result<Option<Selection>, Stop> {
    let paths = if settings.paths.is_empty() {
        vec![PathBuf::from(DEFAULT_SUITE)]
    } else {
        settings.paths.clone()
    };
    let (cassettes, mut problems) = cassette::read_each(&paths);
    let credentials = match &settings.credentials {
        Some(path) => Credentials::read(path).map_err(Stop::Usage)?,
        None => Credentials::default(),
    };
    let globals = Globals::new(credentials.clone());
    let (plans, mut meaning) = plan::compile_all(cassettes, contract, &globals);
    problems.append(&mut meaning);
    problems.sort();
    if !problems.is_empty() {
        return Err(Stop::Usage(inputs::listed(&problems)));
    }
    let endpoints: Vec<&str> = contract.routes().iter().map(|r| r.name).collect();
    select::check_filters(&settings.filter, &plans, &endpoints).map_err(Stop::Usage)?;
    let read: Vec<String> = plans.iter().map(|p| p.id().to_string()).collect();
    let mut plans = select::select(
        plans,
        &settings.filter,
        settings.shard,
        durations.as_ref(),
        rerun.as_deref(),
    );
    if plans.is_empty() {
        return Err(Stop::Usage(inputs::nothing_selected(settings)));
    }
    if let Some(reference) = &settings.changed_since
        && !keep_changed(&mut plans, contract, reference, &settings.spec)?
    {
        return Ok(None);
    }
    Ok(Some(Selection {
        plans,
        read,
        globals,
        credentials,
    }))
}

/// Keeps the scenarios exercising a change since the ref; false when none does.
fn keep_changed(
    plans: &mut Vec<plan::ScenarioPlan>,
    contract: &Contract,
    reference: &str,
    spec: &Result<PathBuf, String>,
) -> Result<bool, Stop> {
    let path = spec.clone().map_err(Stop::Usage)?;
    let changes = changes_since(reference, &path).map_err(|e| match e {
        VersionError::Usage(m) => Stop::Usage(format!("--changed-since: {m}")),
        VersionError::Invalid(m) => Stop::Usage(format!(
            "--changed-since {reference}: a version of the spec does not check:\n{m}"
        )),
    })?;
    // `None`: the spec is new since the ref, so every scenario exercises a change.
    if let Some((before, touched)) = changes {
        // A removed event is known by its old pattern only.
        plans.retain(|p| {
            exercises(p.as_ref(), &contract.spec, &touched)
                || exercises(p.as_ref(), &before, &touched)
        });
    }
    if plans.is_empty() {
        eprintln!(
            "conform: no scenario exercises a change of the spec since {reference}: nothing to run"
        );
        return Ok(false);
    }
    let one = plans.len() == 1;
    eprintln!(
        "conform: {} scenario{} exercise{} the spec's changes since {reference}",
        plans.len(),
        if one { "" } else { "s" },
        if one { "s" } else { "" },
    );
    Ok(true)
}

/// Finds or starts the target, replays the selection against it, receives its events, and
/// finishes the report.
async fn replay(
    mut settings: Settings,
    contract: Arc<Contract>,
    mut selection: Selection,
    list: Option<(PathBuf, crate::known_failures::ExpectedFailures)>,
    context: &mut Context,
) -> Result<u8, Stop> {
    let reference_run = settings.reference_run();
    let (target, started) = if reference_run {
        let started = start_reference(settings.reference.take()).await?;
        let target = target_of(&contract, &[], &started.credentials).map_err(Stop::Usage)?;
        selection.globals.credentials = started.credentials.clone();
        (target, Some(started))
    } else {
        let target =
            target_of(&contract, &settings.targets, &selection.credentials).map_err(Stop::Usage)?;
        context.bases = target.bases.clone();
        targets::check_reachable(&selection.plans, &target).await?;
        (target, None)
    };
    context.bases = target.bases.clone();
    let implementation = targets::identify(&target).await;
    let named_list = settings.expected_failures.is_some();
    let (expected, list_use) =
        inputs::applicable(list, implementation.as_deref(), named_list, reference_run);
    // An entry of the list is stale when no scenario read has its id; the default list
    // speaks of the default suite only, so another folder's run says nothing of it.
    let stale: Vec<String> = if settings.paths.is_empty() || named_list {
        let read: Vec<&str> = selection.read.iter().map(String::as_str).collect();
        expected
            .stale(&read)
            .into_iter()
            .map(String::from)
            .collect()
    } else {
        Vec::new()
    };
    let events = match open_events(&settings, &contract, &target, &mut selection).await {
        Ok(events) => events,
        Err(stop) => {
            if let Some(started) = started {
                (started.stop)().await;
            }
            return Err(stop);
        }
    };
    let mut report = run_scenarios(&settings, contract, selection, target, expected, events).await;
    if let Some(started) = started {
        (started.stop)().await;
    }
    report.implementation = implementation;
    report.expected_failures = list_use;
    report.stale_expected_failures = stale;
    finish(&settings, report)
}

/// Starts the implementation the build carries; a usage error when it carries none.
async fn start_reference(reference: Option<StartReference>) -> Result<Started, Stop> {
    let Some(start) = reference else {
        return Err(Stop::Usage(
            "no --target or --credentials given, and this build carries no reference server \
             to start: name the implementation with --target URL, or with --credentials FILE \
             whose base_url names it"
                .into(),
        ));
    };
    start().await.map_err(Stop::Usage)
}

/// The run's webhook receiver, when it listens: a run of the reference server receives its
/// events when a scenario awaits them, as it controls both ends; any other run subscribes
/// nothing unless told to, so a recording replays against the state it was recorded in.
async fn open_events(
    settings: &Settings,
    contract: &Arc<Contract>,
    target: &Target,
    selection: &mut Selection,
) -> Result<Option<events::Session>, Stop> {
    let reference_run = settings.reference_run();
    let awaited = selection.plans.iter().any(|p| p.awaits_events());
    let listen = (settings.webhooks)
        .or_else(|| (reference_run && awaited).then(|| ([127, 0, 0, 1], 0).into()));
    let Some(addr) = listen else {
        return Ok(None);
    };
    let globals = &mut selection.globals;
    let configured = std::env::var(events::SECRET_VARIABLE).ok();
    if let Some(secret) = &configured {
        // A credential like any other: never shown.
        globals.credentials.set("webhook_secret", secret);
    }
    let listen = events::Listen {
        addr,
        public_url: settings.webhooks_url.clone(),
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
    Ok(Some(session))
}

/// Replays the scenarios, then closes the receiver; every secret the run learnt, the
/// receiver's too, is redacted from the report once.
async fn run_scenarios(
    settings: &Settings,
    contract: Arc<Contract>,
    selection: Selection,
    target: Target,
    expected: crate::known_failures::ExpectedFailures,
    events: Option<events::Session>,
) -> Report {
    let run = RunSettings {
        jobs: settings.jobs.unwrap_or(RunSettings::default().jobs),
        fail_fast: settings.fail_fast,
        retries: settings.retries,
        timeout: settings.timeout,
        max_body: settings.max_body,
        events: events.as_ref().map(|e| e.hub.clone()),
    };
    let secrets = selection.globals.secrets();
    let mut report = crate::runner::run(
        contract,
        selection.plans,
        Arc::new(selection.globals),
        target,
        expected,
        run,
        Progress::for_terminal(),
    )
    .await;
    if let Some(events) = events {
        if let Some(problem) = events.close(settings.webhooks_settle, &mut report).await {
            eprintln!("warning: {problem}");
        }
        // The run redacted what it held; what the receiver adds is redacted here.
        report.redact(&crate::secrets::Redactor::new(secrets));
    }
    report
}

/// Checks the snapshots, prints the summary and writes the reports; answers the exit
/// status the run calls for.
fn finish(settings: &Settings, mut report: Report) -> Result<u8, Stop> {
    report.fail_on_skip = settings.fail_on_skip;
    if let Some(dir) = &settings.snapshots {
        let snapshots = SnapshotSettings {
            dir: dir.clone(),
            update: settings.update_snapshots,
            ci: SnapshotSettings::ci_from_env(),
        };
        report.snapshots = crate::snapshot::check_all(&report, &snapshots).map_err(|e| {
            Stop::Usage(format!(
                "cannot read or write the snapshots in {}: {e}",
                dir.display()
            ))
        })?;
    }
    print!("{}", report::console::summary(&report));
    match report::write_all(&settings.report_dir, &report) {
        Ok(_) => println!("  reports: {}", settings.report_dir.display()),
        Err(e) => eprintln!("error: cannot write the reports: {e}"),
    }
    Ok(report.verdict().exit())
}
