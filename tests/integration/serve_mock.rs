//! `serve --mock`: a real process on a real socket, its credentials file, and a clean stop.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Waits for the credentials file the server writes once it listens.
fn credentials(dir: &Path) -> serde_json::Value {
    let started = Instant::now();
    loop {
        if let Ok(bytes) = std::fs::read(dir.join("credentials.json"))
            && let Ok(value) = serde_json::from_slice(&bytes)
        {
            return value;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no credentials.json"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One HTTP/1.1 request; the status line and body.
fn get(base_url: &str, path: &str, key: &str) -> (String, String) {
    let host = base_url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nx-service-api-key: {key}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or_default().to_string(),
        body.to_string(),
    )
}

#[test]
fn the_mock_serves_with_the_keys_it_writes_and_stops_on_sigterm() {
    let scratch = tempfile::Builder::new()
        .prefix("covenant-mock-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let mut child = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(["serve", "--mock", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the mock");
    let creds = credentials(dir);
    let keys: Vec<&str> = creds
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "base_url",
            "management_url",
            "org_id",
            "team_id",
            "team_api_key",
            "management_key"
        ]
    );
    let base = creds["base_url"].as_str().unwrap();
    let team_key = creds["team_api_key"].as_str().unwrap();

    let (status, body) = get(base, "/v2/user/resolve/patient-17", team_key);
    assert!(status.contains(" 200 "), "{status}: {body}");
    let (status, _) = get(base, "/v2/user/resolve/patient-17", "not-a-key");
    assert!(status.contains(" 401 "), "{status}");
    let management_key = creds["management_key"].as_str().unwrap();
    let (status, _) = get(base, "/v2/user/resolve/patient-17", management_key);
    assert!(
        status.contains(" 403 "),
        "a management key is of another kind: {status}"
    );

    // Every answer mints its `@secret` strings afresh: no two callers get one key, and no
    // key is a word of ordinary text a report would then hide everywhere.
    let secret_path = "/v2/webhook/endpoint/00000000-0000-4000-8000-000000000001/secret";
    let minted: Vec<String> = (0..2)
        .map(|_| {
            let (status, body) = get(base, secret_path, team_key);
            assert!(status.contains(" 200 "), "{status}: {body}");
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            json["secret"].as_str().unwrap().to_string()
        })
        .collect();
    assert_ne!(minted[0], minted[1]);
    assert!(
        minted.iter().all(|s| s.len() >= 32),
        "realistic secrets: {minted:?}"
    );

    let killed = Command::new("sh")
        .args(["-c", &format!("kill -TERM {}", child.id())])
        .status()
        .expect("send SIGTERM");
    assert!(killed.success());
    let status = child.wait().expect("the mock stops");
    assert!(status.success(), "exit status after SIGTERM: {status}");
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(out.contains(team_key), "the keys are printed: {out}");

    // A second start reuses the keys.
    let mut again = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(["serve", "--mock", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the mock again");
    let started = Instant::now();
    let reread = loop {
        let reread = credentials(dir);
        if reread["base_url"] != creds["base_url"] || started.elapsed() > Duration::from_secs(30) {
            break reread;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    again.kill().ok();
    again.wait().ok();
    assert_ne!(
        reread["base_url"], creds["base_url"],
        "the second start wrote its address"
    );
    assert_eq!(reread["team_api_key"], creds["team_api_key"]);
}
