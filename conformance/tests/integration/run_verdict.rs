//! A run's verdict as CI reads it, over real sockets: a target that dies midway stops the
//! run with exit 3 and names where, the scenarios before it keep their verdicts; a run
//! where every scenario was skipped is never green; every cause reaches JUnit and HTML.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use covenant_conformance::known_failures::ExpectedFailures;
use covenant_conformance::outcome::{Report, Verdict};
use covenant_conformance::progress::Progress;
use covenant_conformance::report::{html, junit};
use covenant_conformance::template::Globals;
use covenant_conformance::verdict::{Cause, EXIT_UNREACHABLE, EXIT_USAGE};
use covenant_conformance::{Contract, RunSettings, Target, cassette, plan, runner};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn contract() -> Arc<Contract> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    let (_, checked) = covenant_codegen::check_path(&path).unwrap();
    Arc::new(Contract::new(checked.spec.unwrap()).unwrap())
}

/// A scenario reading user `n` twice.
fn scenario(n: usize) -> String {
    let path = format!("/v2/user/00000000-0000-4000-8000-{n:012}");
    let exchange = |label: &str| {
        json!({"id": label, "endpoint": "get_user", "request": {"path": path},
               "expect": {"status": 200}})
    };
    json!({
        "id": format!("read-{n}"),
        "title": format!("read user {n}"),
        "headers": {"x-service-api-key": "{{credentials.team_api_key}}"},
        "exchanges": [exchange("first"), exchange("again")]
    })
    .to_string()
}

/// The server's state: requests answered, and the shutdown it sends after the last.
#[derive(Clone)]
struct Dying {
    answered: Arc<AtomicUsize>,
    last: usize,
    shutdown: Arc<Mutex<Option<tokio::sync::oneshot::Sender<()>>>>,
}

async fn get_user(State(dying): State<Dying>) -> impl IntoResponse {
    let n = dying.answered.fetch_add(1, Ordering::SeqCst) + 1;
    if n == dying.last
        && let Some(shutdown) = dying.shutdown.lock().unwrap().take()
    {
        let _ = shutdown.send(());
    }
    let user = json!({
        "user_id": "00000000-0000-4000-8000-000000000001",
        "team_id": "9e0c1a4e-2f4b-4c8e-9a57-0c2d8f1e6b3a",
        "client_user_id": "patient-1",
        "created_on": "2026-01-01T00:00:00Z",
        "connected_sources": [],
        "fallback_time_zone": {"id": "UTC", "source_slug": "default", "updated_at": "2026-01-01T00:00:00Z"}
    });
    // Each answer closes its connection, so the next request needs the listener.
    ([(header::CONNECTION, "close")], Json(user))
}

/// Serves `last` requests, then stops listening; answers the address.
async fn serve_then_die(last: usize) -> String {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let dying = Dying {
        answered: Arc::new(AtomicUsize::new(0)),
        last,
        shutdown: Arc::new(Mutex::new(Some(tx))),
    };
    let router = axum::Router::new()
        .route("/v2/user/{user_id}", get(get_user))
        .with_state(dying);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await
            .unwrap();
    });
    format!("http://{addr}")
}

async fn replay(dir: &std::path::Path, base: String, jobs: usize) -> Report {
    let contract = contract();
    let globals = Globals {
        credentials: [("team_api_key", "sk_team_verdict_secret")]
            .into_iter()
            .collect(),
        ..Globals::default()
    };
    let cassettes = cassette::read_all(&[dir.to_path_buf()]).unwrap();
    let (plans, problems) = plan::compile_all(cassettes, &contract, &globals);
    assert!(problems.is_empty(), "{problems:#?}");
    let target = Target {
        bases: contract
            .spec
            .apis
            .iter()
            .map(|api| (api.base_name(), base.clone()))
            .collect(),
    };
    let settings = RunSettings {
        jobs,
        timeout: Duration::from_secs(5),
        retries: 1,
        ..RunSettings::default()
    };
    runner::run(
        contract,
        plans,
        Arc::new(globals),
        target,
        ExpectedFailures::default(),
        settings,
        Progress::Quiet,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_lost_midway_stops_the_run_with_exit_3_naming_where() {
    let dir = tempfile::tempdir().unwrap();
    for n in 1..=5 {
        std::fs::write(dir.path().join(format!("read-{n}.json")), scenario(n)).unwrap();
    }
    // Two scenarios whole, then the first exchange of the third: its second finds no one.
    let base = serve_then_die(5).await;
    let report = replay(dir.path(), base, 1).await;
    let verdicts: Vec<(&str, Verdict)> = report
        .scenarios
        .iter()
        .map(|s| (s.id.as_str(), s.verdict))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("read-1", Verdict::Passed),
            ("read-2", Verdict::Passed),
            ("read-3", Verdict::Skipped),
            ("read-4", Verdict::Skipped),
            ("read-5", Verdict::Skipped),
        ]
    );
    let stopped = report.stopped.as_ref().expect("a stopped record");
    assert_eq!(stopped.exit, EXIT_UNREACHABLE);
    assert!(
        stopped
            .reason
            .contains("the target was lost at read-3 / again"),
        "{}",
        stopped.reason
    );
    let third = &report.scenarios[2];
    assert_eq!(third.exchanges[0].verdict, Verdict::Passed);
    assert_eq!(third.exchanges[1].verdict, Verdict::Skipped);
    assert!(third.exchanges.iter().all(|e| e.failures.is_empty()));
    assert!(
        report.scenarios[3]
            .skip_reason
            .as_deref()
            .is_some_and(|r| r.contains("the run stopped")),
        "{:?}",
        report.scenarios[3].skip_reason
    );
    let verdict = report.verdict();
    assert_eq!(verdict.exit(), EXIT_UNREACHABLE);
    assert!(!verdict.causes.contains(&Cause::Failed(3)), "{verdict:?}");
    // Every report says it: the summary, JUnit (an error), the page.
    let summary = covenant_conformance::report::console::summary(&report);
    assert!(summary.contains("conform: stopped midway: the target was lost at read-3 / again"));
    assert!(summary.contains("2 passed, 0 failed"), "{summary}");
    let xml = junit::render(&report);
    assert!(
        xml.contains("errors=\"1\"") && xml.contains("type=\"exit-3\""),
        "{xml}"
    );
    assert!(
        xml.contains("<skipped message=\"not run: the run stopped"),
        "{xml}"
    );
    let page = html::render(&report, dir.path());
    assert!(page.contains("✗ Failed (exit status 3)"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_skips_every_scenario_is_not_green() {
    let dir = tempfile::tempdir().unwrap();
    // A scenario that awaits an event, replayed without a receiver: skipped.
    let awaiting = json!({
        "id": "awaits", "title": "awaits an event",
        "headers": {"x-service-api-key": "{{credentials.team_api_key}}"},
        "exchanges": [{"endpoint": "get_user",
            "request": {"path": "/v2/user/00000000-0000-4000-8000-000000000001"},
            "expect": {"status": 200},
            "events": [{"event_type": "daily.data.sleep.created", "within": "1s"}]}]
    });
    std::fs::write(dir.path().join("awaits.json"), awaiting.to_string()).unwrap();
    let base = serve_then_die(100).await;
    let mut report = replay(dir.path(), base.clone(), 2).await;
    assert_eq!(report.scenarios[0].verdict, Verdict::Skipped);
    let verdict = report.verdict();
    assert!(!verdict.passed());
    assert_eq!(verdict.exit(), EXIT_USAGE);
    assert!(
        verdict.headline().contains("nothing was exercised"),
        "{}",
        verdict.headline()
    );
    let xml = junit::render(&report);
    assert!(
        xml.contains("<skipped message=\"it awaits events: run with --webhooks ADDR"),
        "{xml}"
    );
    assert!(
        xml.contains("name=\"run\"") && xml.contains("failures=\"1\""),
        "{xml}"
    );

    // With a scenario that ran, skips pass, unless the run fails on them.
    std::fs::write(dir.path().join("read-1.json"), scenario(1)).unwrap();
    report = replay(dir.path(), base, 2).await;
    assert!(report.passed(), "{}", report.verdict().headline());
    report.fail_on_skip = true;
    assert_eq!(report.verdict().causes, [Cause::Skipped(1)]);
    assert_eq!(report.verdict().exit(), 1);
}
