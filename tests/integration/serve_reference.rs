//! `covenant serve` as users run it: a real process, its embedded database file, its keys,
//! a crash, and two processes on one PostgreSQL database.

use crate::common;

use common::*;
use std::process::Command;

#[test]
fn serve_sets_up_once_and_later_starts_reuse_the_keys() {
    let dir_scratch = scratch_dir("serve-restart");
    let dir = dir_scratch.path();
    let first = serve(dir, &[]);
    let creds = credentials(dir);
    let mut keys: Vec<&str> = creds
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "base_url",
            "management_key",
            "management_url",
            "org_id",
            "team_api_key",
            "team_id"
        ]
    );
    assert_eq!(creds["base_url"], first.base_url.as_str());
    let key = creds["team_api_key"].as_str().unwrap().to_string();
    assert_eq!(create_user(&first.base_url, &key, "kept").0, 200);
    assert!(
        dir.join("health.db").exists(),
        "the embedded database lives in the data folder"
    );

    // A graceful stop, then a second start on the same folder.
    let pid = first.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let mut first = first;
    let status = first.child.wait().unwrap();
    assert!(status.success(), "SIGTERM stops cleanly: {status}");

    let second = serve(dir, &[]);
    let again = credentials(dir);
    assert_eq!(again["team_api_key"], creds["team_api_key"]);
    assert_eq!(again["management_key"], creds["management_key"]);
    assert_eq!(again["org_id"], creds["org_id"]);
    let (status, user) = call(&second.base_url, "GET", "/v2/user/resolve/kept", &key, None);
    assert_eq!(status, 200, "{user}");
}

/// The keys are secrets on disk and on screen: the data folder a start makes is 0700, the
/// credentials file 0600, and only the first start prints the keys.
#[cfg(unix)]
#[test]
fn keys_are_readable_by_their_owner_only_and_printed_once() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = scratch_dir("serve-secrets");
    let dir = scratch.path().join("data");
    let start = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_covenant"));
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(&dir);
        let (child, base_url, printed) = spawn_keeping_output(command, "serving ");
        let served = Served { child, base_url };
        // The first answer comes after everything a start prints.
        let (status, _) = call(&served.base_url, "GET", "/v2/providers", "", None);
        assert_eq!(status, 401);
        while !printed.lock().unwrap().contains("credentials:") {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let text = printed.lock().unwrap().clone();
        (served, text)
    };
    let (first, printed) = start();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700, "the data folder");
    assert_eq!(
        mode(&dir.join("credentials.json")),
        0o600,
        "the credentials"
    );
    let key = credentials(&dir)["team_api_key"]
        .as_str()
        .unwrap()
        .to_string();
    let management = credentials(&dir)["management_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        printed.contains(&key),
        "the first start shows the keys: {printed}"
    );
    drop(first);

    let (_second, printed) = start();
    assert!(
        !printed.contains(&key) && !printed.contains(&management),
        "a later start does not print the keys again: {printed}"
    );
    assert!(printed.contains("credentials.json"), "{printed}");
    assert_eq!(mode(&dir.join("credentials.json")), 0o600);
}

#[test]
fn kill_9_loses_no_acknowledged_write() {
    let dir_scratch = scratch_dir("serve-kill9");
    let dir = dir_scratch.path();
    let mut served = serve(dir, &[]);
    let key = credentials(dir)["team_api_key"]
        .as_str()
        .unwrap()
        .to_string();
    let base_url = served.base_url.clone();
    // A writer keeps creating users; every 200 it receives is a promise.
    let writer = {
        let key = key.clone();
        std::thread::spawn(move || {
            let mut acknowledged = Vec::new();
            for i in 0.. {
                let id = format!("durable-{i}");
                let stream_ok = std::panic::catch_unwind(|| create_user(&base_url, &key, &id));
                match stream_ok {
                    Ok((200, _)) => acknowledged.push(id),
                    _ => break,
                }
            }
            acknowledged
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    served.child.kill().expect("kill -9");
    served.child.wait().unwrap();
    let acknowledged = writer.join().unwrap();
    assert!(
        acknowledged.len() > 20,
        "the writer got going: {}",
        acknowledged.len()
    );

    let restarted = serve(dir, &[]);
    for id in &acknowledged {
        let (status, _) = call(
            &restarted.base_url,
            "GET",
            &format!("/v2/user/resolve/{id}"),
            &key,
            None,
        );
        assert_eq!(status, 200, "acknowledged user {id} survived the crash");
    }
}

/// Deliveries a receiver got: each `webhook-id` with every body it came with.
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>;

/// An HTTP endpoint on a loopback port, in a thread of its own, that takes a while to answer
/// each delivery (so a crash finds some in flight) and notes each.
fn slow_receiver() -> (String, Received) {
    let received: Received = Default::default();
    let noted = received.clone();
    let (address_tx, address_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let app = axum::Router::new().route(
                "/hook",
                axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
                    let noted = noted.clone();
                    async move {
                        let id = headers["webhook-id"].to_str().unwrap().to_string();
                        noted.lock().unwrap().push((id, body));
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        axum::http::StatusCode::NO_CONTENT
                    }
                }),
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            address_tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    let address = address_rx.recv().unwrap();
    (format!("http://{address}/hook"), received)
}

/// A server whose webhooks may reach this machine's receivers, with bulk import enabled for
/// its first team.
const DELIVERING: &[&str] = &[
    "--allow-private-webhooks",
    "--enable-feature",
    "bulk_import",
];

#[test]
fn kill_9_during_delivery_loses_no_event_and_repeats_only_with_the_same_id() {
    const USERS: usize = 300;
    let dir_scratch = scratch_dir("serve-kill9-deliveries");
    let dir = dir_scratch.path();
    let mut served = serve(dir, DELIVERING);
    let key = credentials(dir)["team_api_key"]
        .as_str()
        .unwrap()
        .to_string();
    let (url, received) = slow_receiver();
    let endpoint = format!(r#"{{"url": "{url}"}}"#);
    let (status, _) = call(
        &served.base_url,
        "POST",
        "/v2/webhook/endpoint",
        &key,
        Some(&endpoint),
    );
    assert_eq!(status, 201);
    let mut users = std::collections::BTreeSet::new();
    for n in 0..USERS {
        let (status, created) = create_user(&served.base_url, &key, &format!("hooked-{n}"));
        assert_eq!(status, 200);
        users.insert(created["user_id"].as_str().unwrap().to_string());
    }
    let connections: Vec<String> = users
        .iter()
        .map(|u| {
            format!(
                r#"{{"user_id": "{u}", "access_token": "a", "refresh_token": "r", "provider_id": "p", "expires_at": 2147483647}}"#
            )
        })
        .collect();
    let import = format!(
        r#"{{"provider": "oura", "connections": [{}], "wait_for_completion": true}}"#,
        connections.join(", ")
    );
    // The team's own OAuth application for the provider, which an import needs beforehand.
    let creds = credentials(dir);
    let app = format!(
        "/v1/org/{}/team/{}/custom_credentials/oura",
        creds["org_id"].as_str().unwrap(),
        creds["team_id"].as_str().unwrap()
    );
    let management = [(
        "X-Management-Key",
        creds["management_key"].as_str().unwrap(),
    )];
    let app_body = r#"{"client_id": "app", "client_secret": "app-secret"}"#;
    let (status, _) = call_with(&served.base_url, "PUT", &app, &management, Some(app_body));
    assert_eq!(status, 200);
    let (status, _) = call(
        &served.base_url,
        "POST",
        "/v2/link/bulk_import",
        &key,
        Some(&import),
    );
    assert_eq!(status, 200);

    // Crash once some deliveries have arrived and others are in flight.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while received.lock().unwrap().len() < 30 {
        assert!(std::time::Instant::now() < deadline, "deliveries began");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    served.child.kill().expect("kill -9");
    served.child.wait().unwrap();
    let before_restart = received.lock().unwrap().len();
    assert!(
        before_restart < USERS,
        "the crash came mid-delivery: {before_restart}"
    );

    let _restarted = serve(dir, DELIVERING);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let ids: std::collections::BTreeSet<String> = received
            .lock()
            .unwrap()
            .iter()
            .map(|(id, _)| id.clone())
            .collect();
        if ids.len() == USERS {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} of {USERS} delivered",
            ids.len()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let received = received.lock().unwrap();
    let mut bodies: std::collections::BTreeMap<&str, &str> = Default::default();
    for (id, body) in received.iter() {
        let first = bodies.entry(id).or_insert(body);
        assert_eq!(first, body, "a repeat of {id} is the same delivery");
    }
    let delivered: std::collections::BTreeSet<String> = bodies
        .values()
        .map(|body| {
            let event: serde_json::Value = serde_json::from_str(body).unwrap();
            assert_eq!(event["event_type"], "provider.connection.created");
            event["user_id"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(delivered, users, "one event per connection, none lost");
}

#[test]
fn two_processes_on_one_postgres_database_are_one_service() {
    let Some(url) = fresh_postgres_database() else {
        return;
    };
    let dir_a_scratch = scratch_dir("pg-a");
    let dir_a = dir_a_scratch.path();
    let dir_b_scratch = scratch_dir("pg-b");
    let dir_b = dir_b_scratch.path();
    let a = serve(dir_a, &["--database-url", &url]);
    let b = serve(dir_b, &["--database-url", &url]);
    let key = credentials(dir_a)["team_api_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        !dir_b.join("credentials.json").exists(),
        "the second process shows no keys it never made"
    );

    let (status, created) = create_user(&a.base_url, &key, "shared");
    assert_eq!(status, 200);
    let user_id = created["user_id"].as_str().unwrap().to_string();
    let (status, resolved) = call(&b.base_url, "GET", "/v2/user/resolve/shared", &key, None);
    assert_eq!(
        (status, resolved["user_id"].as_str()),
        (200, Some(user_id.as_str()))
    );
    assert_eq!(
        call(
            &b.base_url,
            "DELETE",
            &format!("/v2/user/{user_id}"),
            &key,
            None
        )
        .0,
        200
    );
    assert_eq!(
        call(
            &a.base_url,
            "GET",
            &format!("/v2/user/{user_id}"),
            &key,
            None
        )
        .0,
        404
    );
    let undo = format!("/v2/user/undo_delete?user_id={user_id}");
    assert_eq!(call(&a.base_url, "POST", &undo, &key, None).0, 200);
    assert_eq!(
        call(&b.base_url, "GET", "/v2/user/resolve/shared", &key, None).0,
        200
    );

    // Concurrent creates of one client_user_id across both processes: one user.
    let racers: Vec<_> = (0..16)
        .map(|i| {
            let base = if i % 2 == 0 {
                a.base_url.clone()
            } else {
                b.base_url.clone()
            };
            let key = key.clone();
            std::thread::spawn(move || create_user(&base, &key, "raced"))
        })
        .collect();
    let outcomes: Vec<(u16, serde_json::Value)> =
        racers.into_iter().map(|t| t.join().unwrap()).collect();
    let winners: Vec<_> = outcomes.iter().filter(|(s, _)| *s == 200).collect();
    assert_eq!(winners.len(), 1, "{outcomes:?}");
    let winner = winners[0].1["user_id"].as_str().unwrap();
    for (status, body) in &outcomes {
        if *status != 200 {
            assert_eq!(*status, 400);
            assert_eq!(body["detail"]["user_id"].as_str(), Some(winner));
        }
    }
}

/// The webhook scenarios against two processes sharing one PostgreSQL database: the runner
/// subscribes through one, the bulk import and its pulls run on whichever process takes
/// them, and every awaited event arrives signed, once per id, matching its schema.
#[test]
fn the_event_scenarios_pass_against_two_processes_on_one_postgres_database() {
    let Some(url) = fresh_postgres_database() else {
        return;
    };
    let dir_a_scratch = scratch_dir("pg-events-a");
    let dir_a = dir_a_scratch.path();
    let dir_b_scratch = scratch_dir("pg-events-b");
    // The runner's receiver listens on loopback, which a server refuses unless told.
    let flags = ["--database-url", &url, "--allow-private-webhooks"];
    let _a = serve(dir_a, &flags);
    let _b = serve(dir_b_scratch.path(), &flags);
    let reports_scratch = scratch_dir("pg-events-reports");
    let reports = reports_scratch.path();
    let out = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(["conform", "--webhooks", "127.0.0.1:0", "--report-dir"])
        .arg(reports)
        .arg("--credentials")
        .arg(dir_a.join("credentials.json"))
        .arg("conformance/suite/webhooks")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("report.json")).unwrap())
            .unwrap();
    let events = &report["coverage"]["events"];
    assert!(
        events["provider_connection_created"].as_u64() >= Some(1),
        "{events}"
    );
    assert!(
        events["historical_data_created"].as_u64() >= Some(2),
        "{events}"
    );
    let received = report["events"]["received"].as_array().unwrap();
    assert!(
        received
            .iter()
            .all(|e| e["failures"].as_array().unwrap().is_empty()),
        "{received:#?}"
    );
}
