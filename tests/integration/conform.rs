//! `covenant conform` and `covenant record` as users run them: real processes, real HTTP,
//! the reference server on SQLite and PostgreSQL, the generated mock, a recorded session of
//! the generated client, and a HAR import.

use crate::common;

use common::tap;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

fn covenant(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run covenant")
}

fn report(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    serde_json::from_str(&text).unwrap()
}

fn explain(out: &Output) -> String {
    format!(
        "exit {:?}\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Declared statuses the suite does not provoke, besides 413 (a body past the server's
/// limit, a setting rather than the spec's) and 503 (an unavailable database) everywhere.
/// The API-wide 404 and 422 of endpoints that name no resource or have no constraint to
/// break, a 404 the reference server has no way to give yet, a 200 of data it never
/// receives, and the 409 of a team's twenty-first webhook endpoint (the suite's team is
/// shared by every scenario of the run; the server's tests provoke it).
const NOT_PROVOKED: &[&str] = &[
    "bulk_import 404",
    "bulk_trigger_historical_pull 404",
    "create_lab_order 404",
    "create_user 404",
    "create_webhook_endpoint 404",
    "create_webhook_endpoint 409",
    "get_oauth_provider 404",
    "get_workout_stream 200",
    "list_bulk_ops 404",
    "list_markers 404",
    "list_order_set_markers 404",
    "list_orders 404",
    "list_orders 422",
    "list_providers 404",
    "list_providers 422",
    "list_webhook_endpoints 404",
    "list_webhook_endpoints 422",
    "resolve_user 422",
    "undo_delete_user 404",
];

/// The main job: the whole suite against a fresh reference server, every declared status of
/// the spec exercised but those no request can provoke (a body too large for the limit a
/// suite's server runs with, a fault of the service, a database down), and each scenario's transcript a
/// reviewed snapshot, compared by `conform --snapshots` as any user's are. Snapshots are
/// rewritten only when `COVENANT_UPDATE_SNAPSHOTS=1` (or insta's `INSTA_UPDATE=always`).
/// Run one scenario at a time so the shared server's state, and so every transcript, is the
/// same on every run.
#[test]
fn the_suite_passes_against_the_reference_server_and_matches_its_snapshots() {
    let reports_scratch = scratch_dir("conform-main");
    let reports = reports_scratch.path();
    let update = std::env::var("COVENANT_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1")
        || std::env::var("INSTA_UPDATE").is_ok_and(|v| v == "always");
    let mut args = vec![
        "conform",
        "--jobs",
        "1",
        "--report-dir",
        reports.to_str().unwrap(),
        "--snapshots",
        "conformance/snapshots",
    ];
    if update {
        args.push("--update-snapshots");
    }
    let out = covenant(&args);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let report = report(reports);
    // A 415 (a body of the wrong media type) is declared API-wide but can only answer a body.
    let bodiless: std::collections::BTreeSet<String> = openapi_operations()
        .into_iter()
        .filter(|(_, has_body)| !has_body)
        .map(|(id, _)| id)
        .collect();
    let uncovered: Vec<String> = report["coverage"]["matrix"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(endpoint, statuses)| {
            statuses
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, ids)| ids.as_array().unwrap().is_empty())
                .map(move |(status, _)| format!("{endpoint} {status}"))
        })
        .filter(|cell| {
            let unprovokable_415 =
                cell.ends_with(" 415") && bodiless.contains(cell.split(' ').next().unwrap());
            let unprovokable = NOT_PROVOKED.contains(&cell.as_str())
                || unprovokable_415
                || [" 413", " 500", " 503"].iter().any(|s| cell.ends_with(s));
            !unprovokable
        })
        .collect();
    assert!(
        uncovered.is_empty(),
        "declared but not exercised: {uncovered:#?}"
    );
    let snapshots = report["snapshots"].as_array().unwrap();
    assert_eq!(
        snapshots.len(),
        report["scenarios"].as_array().unwrap().len()
    );
}

/// `conform --snapshots DIR` for a team's own suite: the first run writes the snapshots, the
/// second matches them, an edited one fails with a diff and a `.snap.new` for `cargo insta
/// review`, and `--update-snapshots` accepts.
#[test]
fn snapshots_of_any_suite_are_written_matched_and_diffed() {
    let dir_scratch = scratch_dir("conform-snapshots");
    let dir = dir_scratch.path();
    let snapshots = dir.join("snapshots");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--filter",
            "users/create-get-resolve",
            "--filter",
            "linking/link-token-create",
            "--snapshots",
            snapshots.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let mut command = Command::new(env!("CARGO_BIN_EXE_covenant"));
        command
            .arg("conform")
            .arg("--report-dir")
            .arg(dir.join("reports"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("CI");
        command.output().unwrap()
    };
    for _ in 0..2 {
        let out = run(&[]);
        assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    }
    let file = snapshots.join("users_create-get-resolve.snap");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("---\n") && text.contains("## create create_user: POST /v2/user"));
    std::fs::write(&file, text.replace("POST /v2/user", "POST /v2/users")).unwrap();
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("SNAPSHOT DIFFERS users/create-get-resolve"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-## create create_user: POST /v2/users"),
        "{stdout}"
    );
    assert!(
        stdout.contains("+## create create_user: POST /v2/user\n"),
        "{stdout}"
    );
    assert!(snapshots.join("users_create-get-resolve.snap.new").exists());
    // Every report says why the run is red, not only the exit status.
    assert!(
        stdout.contains("conform: FAILED: 1 snapshot differs"),
        "{stdout}"
    );
    let junit = std::fs::read_to_string(dir.join("reports/junit.xml")).unwrap();
    assert!(junit.contains("failures=\"1\""), "{junit}");
    assert!(
        junit.contains("type=\"snapshot\">")
            && junit.contains("+## create create_user: POST /v2/user\n"),
        "{junit}"
    );
    let html = std::fs::read_to_string(dir.join("reports/report.html")).unwrap();
    assert!(html.contains("✗ Failed (exit status 1)"), "{html}");
    assert!(html.contains("1 snapshot differs"), "{html}");
    assert!(
        html.find("Snapshots").unwrap() < html.find("id=\"coverage\"").unwrap(),
        "the snapshots come before the coverage matrix"
    );
    let out = run(&["--update-snapshots"]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert!(!snapshots.join("users_create-get-resolve.snap.new").exists());
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    // No key of the run is in a snapshot.
    let link = std::fs::read_to_string(snapshots.join("linking_link-token-create.snap")).unwrap();
    assert!(link.contains("[secret:link_token#1]"), "{link}");
}

/// Another server's run names the expected-failure list: the default one is the reference
/// server's own. `target` names the server; without it, the credentials file does.
fn conform_against(target: Option<&Served>, data_dir: &Path, reports: &Path) -> Output {
    let credentials = data_dir.join("credentials.json");
    let mut args = vec![
        "conform",
        "--expected-failures",
        "conformance/expected-failures.toml",
        "--credentials",
        credentials.to_str().unwrap(),
        "--report-dir",
        reports.to_str().unwrap(),
    ];
    if let Some(served) = target {
        args.extend(["--target", &served.base_url]);
    }
    covenant(&args)
}

#[test]
fn the_suite_passes_against_a_separately_started_server_on_sqlite() {
    let dir_scratch = scratch_dir("conform-sqlite");
    let dir = dir_scratch.path();
    let served = serve(dir, &[]);
    // No --target: the bases are the credentials file's, and no server is started.
    let out = conform_against(None, dir, &dir.join("reports"));
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let report = report(&dir.join("reports"));
    assert_eq!(
        report["target"].as_str(),
        Some(served.base_url.as_str()),
        "{report:#}"
    );
    // The server names itself, so the project's expected failures judge it as they judge
    // the default run; a list for another implementation does not.
    assert!(
        report["implementation"]
            .as_str()
            .is_some_and(|name| name.starts_with("health-server/")),
        "{report:#}"
    );
    assert_eq!(report["expected_failures"]["applied"], true, "{report:#}");
    let credentials = dir.join("credentials.json");
    for (implementation, exit, applied) in
        [("health-server", 1, true), ("another-server", 0, false)]
    {
        let list = dir.join(format!("{implementation}.toml"));
        std::fs::write(
            &list,
            format!(
                "implementation = \"{implementation}\"\n[[expected]]\nid = \"users/create-get-resolve\"\nreason = \"listed to see it apply\"\n"
            ),
        )
        .unwrap();
        let reports = dir.join(format!("{implementation}-reports"));
        let out = conform_into(
            &reports,
            &[
                "--credentials",
                credentials.to_str().unwrap(),
                "--expected-failures",
                list.to_str().unwrap(),
                "--filter",
                "users/create-get-resolve",
            ],
        );
        assert_eq!(out.status.code(), Some(exit), "{}", explain(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let said = if applied {
            "): applied"
        } else {
            "): not applied"
        };
        assert!(stdout.contains(said), "{stdout}");
    }
    // A run that exercises nothing (its one scenario awaits events, and no receiver listens)
    // is never green, and every report says why.
    let reports = dir.join("skipped");
    let mut args = vec![
        "--credentials",
        credentials.to_str().unwrap(),
        "--filter",
        "webhooks/bulk-import-events",
    ];
    let out = conform_into(&reports, &args);
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("conform: FAILED: nothing was exercised"),
        "{stdout}"
    );
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    assert!(
        junit.contains("<skipped message=\"it awaits events: run with --webhooks ADDR"),
        "{junit}"
    );
    assert!(junit.contains("failures=\"1\""), "{junit}");
    // With one scenario exercised, a skip fails the run only under --fail-on-skip.
    args.extend(["--filter", "users/create-get-resolve"]);
    let out = conform_into(&reports, &args);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    args.push("--fail-on-skip");
    let out = conform_into(&reports, &args);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 scenario skipped (--fail-on-skip)"),
        "{}",
        explain(&out)
    );
}

#[test]
fn the_suite_passes_against_a_separately_started_server_on_postgres() {
    let Some(url) = fresh_postgres_database() else {
        return;
    };
    let dir_scratch = scratch_dir("conform-postgres");
    let dir = dir_scratch.path();
    let served = serve(dir, &["--database-url", &url]);
    let out = conform_against(Some(&served), dir, &dir.join("reports"));
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
}

/// A mock answers the spec's examples: every response fits its schema, and the behaviours
/// (a conflict, a deletion, a filter) are not there.
#[test]
fn the_mock_passes_the_schema_checks_and_fails_the_behavioural_ones() {
    let dir_scratch = scratch_dir("conform-mock");
    let dir = dir_scratch.path();
    let served = serve(dir, &["--mock"]);
    let reports = dir.join("reports");
    let out = conform_against(Some(&served), dir, &reports);
    assert_eq!(out.status.code(), Some(1), "{}", explain(&out));
    let report = report(&reports);
    let kinds: Vec<&str> = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["exchanges"].as_array().unwrap())
        .flat_map(|e| e["failures"].as_array().unwrap())
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(
        !kinds.contains(&"schema"),
        "the mock's answers fit the schemas: {kinds:?}"
    );
    assert!(!kinds.contains(&"content_type"));
    assert!(
        kinds.contains(&"status") && kinds.contains(&"body"),
        "{kinds:?}"
    );
    // Redaction that is exact: the mock's example text is no secret, so it stays visible,
    // no failure reads as though a credential had leaked, and no curl line sends a
    // secret's reference as a key. (Secrets the mock minted stay hidden.)
    let actuals: Vec<&str> = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["exchanges"].as_array().unwrap())
        .flat_map(|e| e["failures"].as_array().unwrap())
        .filter_map(|f| f["actual"].as_str())
        .collect();
    assert!(
        !actuals.iter().any(|a| a.contains("{{credentials.")),
        "{actuals:#?}"
    );
    assert!(
        actuals.contains(&"\"text\""),
        "ordinary text stays: {actuals:#?}"
    );
    let text = std::fs::read_to_string(reports.join("report.json")).unwrap();
    assert!(
        !text.contains("$WEBHOOK_SECRET"),
        "a secret's reference sent as a key"
    );
}

/// `conform` with its reports written to `reports`.
fn conform_into(reports: &Path, args: &[&str]) -> Output {
    let mut all = vec!["conform", "--report-dir", reports.to_str().unwrap()];
    all.extend_from_slice(args);
    covenant(&all)
}

/// The reason a stopped run's report gives, after checking it holds no results.
fn stopped_reason(reports: &Path, exit: u64) -> String {
    let report = report(reports);
    assert_eq!(report["stopped"]["exit"], exit, "{report}");
    assert_eq!(report["scenarios"], serde_json::json!([]));
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    assert!(
        junit.contains("errors=\"1\"") && junit.contains("<error "),
        "{junit}"
    );
    report["stopped"]["reason"].as_str().unwrap().to_string()
}

/// CI reads the exit status and the reports: a run that stops early (exit 2 or 3) replaces
/// an earlier green report with one saying why, and a selection of nothing is never green.
#[test]
fn a_run_that_stops_leaves_no_green_report_and_selects_something_or_fails() {
    let dir_scratch = scratch_dir("conform-exits");
    let dir = dir_scratch.path();
    let reports = dir.join("reports");
    let out = conform_into(&reports, &["--filter", "users/create-get-resolve"]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_eq!(report(&reports)["scenarios"].as_array().unwrap().len(), 1);

    std::fs::write(
        dir.join("bad.json"),
        r#"{"id": "bad", "title": "t", "exchanges": [{"endpoint": "nope", "request": {"path": "/"}, "expect": {"status": 200}}]}"#,
    )
    .unwrap();
    let out = conform_into(&reports, &[dir.join("bad.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json:1:"));
    assert!(stopped_reason(&reports, 2).contains("bad.json:1:"));
    assert!(
        !reports
            .join("transcripts")
            .join("users_create-get-resolve.txt")
            .exists()
    );

    let refused: &[(&[&str], &str)] = &[
        (&["--filter", "tag:user"], "did you mean `users`?"),
        (
            &["--filter", "endpoint:create_usr"],
            "did you mean `create_user`?",
        ),
        (
            &["--filter", "users/create-get-resolve", "--shard", "2/200"],
            "--shard 2/200 holds none",
        ),
        (&["--jobs", "0"], "--jobs 0"),
        (&["--shard", "0/3"], "is not a shard"),
        (&["--max-body", "lots"], "is not a size"),
        (
            &[
                "--target",
                "http://127.0.0.1:9",
                "--target",
                "managment=http://127.0.0.1:9",
            ],
            "did you mean `management`?",
        ),
        (
            &[
                "--target",
                "http://127.0.0.1:9",
                "--filter",
                "users/another-team-isolated",
            ],
            "pass --target management=URL",
        ),
    ];
    for (args, says) in refused {
        let out = conform_into(&reports, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", explain(&out));
        assert!(
            stopped_reason(&reports, 2).contains(says),
            "{args:?}: {}",
            explain(&out)
        );
    }

    let green = conform_into(&reports, &["--filter", "users/create-get-resolve"]);
    assert_eq!(green.status.code(), Some(0), "{}", explain(&green));
    let out = conform_into(&reports, &["--rerun-failed"]);
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no scenario failed"));

    let out = conform_into(
        &reports,
        &[
            "--target",
            "http://127.0.0.1:9",
            "--target",
            "management=http://127.0.0.1:9",
            "--filter",
            "users/*",
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", explain(&out));
    assert!(stopped_reason(&reports, 3).contains("cannot reach"));
    assert_eq!(
        report(&reports)["bases"]["management_url"],
        "http://127.0.0.1:9"
    );
}

/// Fields of the service's responses that hold keys and tokens, and the headers requests
/// carry them in.
const SECRET_FIELDS: &[&str] = &["key", "link_token", "access_token", "refresh_token"];
const CREDENTIAL_HEADERS: &[&str] = &[
    "x-service-api-key",
    "x-service-link-token",
    "x-management-key",
    "x-service-org-key",
    "authorization",
];

/// Every key and token that crossed the tap, but values a cassette writes as they are
/// (a deliberately wrong key is no secret).
fn secrets_seen(seen: &[tap::Seen], literals: &str) -> Vec<String> {
    fn strings_under(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(fields) => {
                for (name, v) in fields {
                    match v {
                        serde_json::Value::String(s) if SECRET_FIELDS.contains(&name.as_str()) => {
                            out.push(s.clone())
                        }
                        other => strings_under(other, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| strings_under(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for exchange in seen {
        for (name, value) in &exchange.request_headers {
            if CREDENTIAL_HEADERS.contains(&name.as_str()) {
                out.push(value.clone());
            }
        }
        for body in [&exchange.request_body, &exchange.response_body] {
            if let Ok(json) = serde_json::from_slice(body) {
                strings_under(&json, &mut out);
            }
        }
    }
    out.retain(|s| !s.is_empty() && !literals.contains(&format!("\"{s}\"")));
    out.sort();
    out.dedup();
    out
}

/// Every file under a folder with its text.
fn files_under(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            out.push((path.display().to_string(), text));
        }
    }
}

/// No key or token of a run, the credentials' or one the run minted (team API keys,
/// management keys, link tokens), is in any file the run writes or in its console output:
/// on a green run, and on one where every answer minting a key fails, so the failure paths
/// (console, JUnit, HTML, curl lines) show them.
#[test]
fn no_key_seen_during_a_run_is_written_anywhere() {
    let dir_scratch = scratch_dir("conform-secrets");
    let dir = dir_scratch.path();
    let served = serve(&dir.join("server"), &[]);
    let creds = dir.join("server").join("credentials.json");
    let mut literals = String::new();
    let mut cassettes = Vec::new();
    files_under(Path::new("conformance/suite"), &mut cassettes);
    cassettes
        .iter()
        .for_each(|(_, text)| literals.push_str(text));
    let runs = [
        ("green", tap::Answers::AsTheyAre, 0),
        ("broken", tap::Answers::BreakThoseHolding(SECRET_FIELDS), 1),
    ];
    for (name, answers, exit) in runs {
        let tap = tap::start(&served.base_url, answers);
        let reports = dir.join(name);
        let out = covenant(&[
            "conform",
            "--target",
            &tap.url,
            "--target",
            &format!("management={}", tap.url),
            "--credentials",
            creds.to_str().unwrap(),
            "--expected-failures",
            "conformance/expected-failures.toml",
            "--report-dir",
            reports.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(exit), "{name}: {}", explain(&out));
        let secrets = secrets_seen(&tap.seen.lock().unwrap(), &literals);
        assert!(
            secrets.len() >= 10,
            "{name}: only {} secrets seen",
            secrets.len()
        );
        let mut written = vec![
            (
                "stdout".to_string(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            ),
            (
                "stderr".to_string(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ),
        ];
        files_under(&reports, &mut written);
        for secret in &secrets {
            for (file, text) in &written {
                assert!(
                    !text.contains(secret.as_str()),
                    "{name}: `{secret}` is written in {file}"
                );
            }
        }
    }
}

/// A session of the generated client through `record`, replayed against a fresh server.
#[test]
fn a_recorded_client_session_replays_green() {
    use covenant_runtime::client::Config;
    use health_api::client::Client;
    use health_api::models::BulkProvider;
    use health_api::operations::*;

    let dir_scratch = scratch_dir("conform-record");
    let dir = dir_scratch.path();
    let served = serve(&dir.join("upstream"), &[]);
    let creds = credentials(&dir.join("upstream"));
    let key = creds["team_api_key"].as_str().unwrap().to_string();
    let cassettes = dir.join("cassettes");
    let mut command = Command::new(env!("CARGO_BIN_EXE_covenant"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "record",
            "--upstream",
            &served.base_url,
            "--listen",
            "127.0.0.1:0",
        ])
        .arg("--out")
        .arg(&cassettes)
        .arg("--credentials")
        .arg(dir.join("upstream/credentials.json"));
    let (mut proxy, proxy_url) = spawn_printing_url(command, "recording: ");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let minted = runtime.block_on(async {
        let config = Config::new(&proxy_url).with_credential(AuthScheme::TeamApiKey, key.clone());
        let client = Client::new(config).unwrap();
        let body =
            serde_json::from_value(serde_json::json!({"client_user_id": "recorded-patient"}))
                .unwrap();
        let created = match client.create_user(CreateUserInput { body }).await.unwrap() {
            CreateUserResponse::Ok(created) => created,
            other => panic!("{other:?}"),
        };
        match client
            .get_user(GetUserInput {
                user_id: created.user_id,
            })
            .await
            .unwrap()
        {
            GetUserResponse::Ok(user) => assert_eq!(user.client_user_id, "recorded-patient"),
            other => panic!("{other:?}"),
        }
        // A deliberately wrong key keeps its meaning on replay: a 401.
        let wrong = Config::new(&proxy_url)
            .with_credential(AuthScheme::TeamApiKey, "not-the-team-key".to_string());
        let wrong = Client::new(wrong).unwrap();
        let answer = wrong
            .get_user(GetUserInput {
                user_id: created.user_id,
            })
            .await
            .unwrap();
        assert!(
            matches!(answer, GetUserResponse::Unauthorized(_)),
            "{answer:?}"
        );
        // A link token minted by one answer and used by the next request.
        let body = serde_json::from_value(serde_json::json!({"user_id": created.user_id})).unwrap();
        let token = match client
            .create_link_token(CreateLinkTokenInput { body })
            .await
            .unwrap()
        {
            CreateLinkTokenResponse::Ok(result) => result.link_token,
            other => panic!("{other:?}"),
        };
        let linked = Config::new(&proxy_url)
            .with_credential(AuthScheme::TeamApiKey, key.clone())
            .with_credential(AuthScheme::LinkToken, token.clone());
        let linked = Client::new(linked).unwrap();
        let answer = linked
            .get_oauth_provider(GetOauthProviderInput {
                oauth_provider: BulkProvider::Oura,
            })
            .await
            .unwrap();
        assert!(
            matches!(answer, GetOauthProviderResponse::Ok(_)),
            "{answer:?}"
        );
        token
    });
    let _ = proxy.kill();
    let _ = proxy.wait();
    let text = std::fs::read_to_string(cassettes.join("session.json")).unwrap();
    assert!(!text.contains(&key), "the key is not written");
    assert!(
        !text.contains(&minted),
        "the link token is not written: {text}"
    );
    assert!(
        text.contains("{{credentials.team_api_key}}") && text.contains("{{user_id}}"),
        "{text}"
    );
    assert!(
        text.contains("\"not-the-team-key\""),
        "the wrong key stays: {text}"
    );
    assert!(
        text.contains("\"x-service-link-token\": \"{{link_token}}\""),
        "the link token is captured where it was minted: {text}"
    );
    let out = covenant(&[
        "conform",
        "--report-dir",
        dir.join("reports").to_str().unwrap(),
        cassettes.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}\n{text}", explain(&out));
}

/// The HAR Schemathesis wrote of its run against the reference server (the fixture:
/// examples and coverage phases, keys hidden as `[Filtered]`, fuzzed strings, negative auth
/// tests, methods no endpoint has), recorded and replayed against a fresh server with no
/// edits: green.
#[test]
fn a_schemathesis_har_replays_green_against_a_fresh_server() {
    let scratch = scratch_dir("conform-schemathesis");
    let dir = scratch.path();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conformance/fixtures/schemathesis.har");
    let out = covenant(&[
        "record",
        "--from-har",
        fixture.to_str().unwrap(),
        "--out",
        dir.join("cassettes").to_str().unwrap(),
        "--name",
        "schemathesis",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let written: usize = stdout
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(written >= 100, "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refused (401); written as recorded"),
        "negative auth tests keep their meaning: {stderr}"
    );
    assert!(
        stderr.lines().count() < 40,
        "warnings about many requests are said once: {stderr}"
    );
    let out = covenant(&[
        "conform",
        "--report-dir",
        dir.join("reports").to_str().unwrap(),
        dir.join("cassettes").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
}

/// A HAR file, as browsers and Schemathesis write them, imported and replayed.
#[test]
fn an_imported_har_file_replays_green() {
    let dir_scratch = scratch_dir("conform-har");
    let dir = dir_scratch.path();
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "browser", "version": "1"}, "entries": [
        {
            "request": {"method": "POST", "url": "https://api.example.test/v2/user", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "x-service-api-key", "value": "sk_team_from_a_browser"}, {"name": "content-type", "value": "application/json"}, {"name": ":authority", "value": "api.example.test"}],
                "postData": {"mimeType": "application/json", "text": "{\"client_user_id\": \"har-patient\"}"}},
            "response": {"status": 200, "headers": [{"name": "content-type", "value": "application/json"}],
                "content": {"mimeType": "application/json", "text": "{\"user_id\": \"5d3b1c2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d\", \"client_user_id\": \"har-patient\"}"}}
        },
        {
            "request": {"method": "GET", "url": "https://api.example.test/v2/user/5d3b1c2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d", "headers": [{"name": "x-service-api-key", "value": "[Filtered]"}]},
            "response": {"status": 200, "headers": [{"name": "content-type", "value": "application/json"}],
                "content": {"mimeType": "application/json", "encoding": "base64", "text": "eyJjbGllbnRfdXNlcl9pZCI6ICJoYXItcGF0aWVudCJ9"}}
        },
        {
            "request": {"method": "GET", "url": "https://api.example.test/favicon.ico", "headers": []},
            "response": {"status": 404, "headers": [], "content": {}}
        }
    ]}});
    std::fs::write(dir.join("browser.har"), har.to_string()).unwrap();
    // The key the browser used is the recording's credential; the tool hid it the second
    // time, which stands for the same credential.
    let creds = dir.join("recorded-credentials.json");
    std::fs::write(&creds, r#"{"team_api_key": "sk_team_from_a_browser"}"#).unwrap();
    let out = covenant(&[
        "record",
        "--from-har",
        dir.join("browser.har").to_str().unwrap(),
        "--credentials",
        creds.to_str().unwrap(),
        "--out",
        dir.join("cassettes").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("favicon.ico: no endpoint of the spec"),
        "{stderr}"
    );
    assert!(stderr.contains("hidden by the tool"), "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 exchanges written, 1 left out"),
        "{}",
        explain(&out)
    );
    let text = std::fs::read_to_string(dir.join("cassettes/browser.json")).unwrap();
    assert!(!text.contains("sk_team_from_a_browser"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("cassettes/browser.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "a cassette is its owner's alone");
    }
    let out = covenant(&[
        "conform",
        "--report-dir",
        dir.join("reports").to_str().unwrap(),
        dir.join("cassettes").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}\n{text}", explain(&out));
}
