//! Running `covenant serve` as a real process and talking HTTP/1.1 to it over a socket.

#![allow(dead_code)]

pub mod tap;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct Served {
    pub child: Child,
    pub base_url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A scratch folder removed when the test ends, pass or fail.
pub fn scratch_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("covenant-{name}-"))
        .tempdir()
        .expect("scratch folder")
}

/// Starts `covenant serve` with these arguments on a port the system picks and waits until
/// it answers. The address comes from what serve prints, so no other process can take the
/// port between choosing and binding it.
pub fn serve(data_dir: &Path, extra: &[&str]) -> Served {
    let mut command = Command::new(env!("CARGO_BIN_EXE_covenant"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .args(extra);
    let (child, base_url) = spawn_printing_url(command, "serving ");
    // The socket is bound before the database is ready; the first answer means ready.
    let (status, _) = call(&base_url, "GET", "/v2/providers", "", None);
    assert_eq!(status, 401, "serve answers");
    Served { child, base_url }
}

/// Spawns a command that prints its address (`http://…`) on a line starting with `marker`,
/// and answers the child and that address. Standard output is drained for the child's life.
pub fn spawn_printing_url(command: Command, marker: &str) -> (Child, String) {
    let (child, url, _) = spawn_keeping_output(command, marker);
    (child, url)
}

/// [`spawn_printing_url`], also answering everything the child prints, as it prints it.
pub fn spawn_keeping_output(
    mut command: Command,
    marker: &str,
) -> (Child, String, std::sync::Arc<std::sync::Mutex<String>>) {
    use std::io::BufRead;
    let printed = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let kept = printed.clone();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start covenant");
    let stdout = child.stdout.take().unwrap();
    let (found, address) = std::sync::mpsc::channel();
    let marker = marker.to_string();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let mut all = kept.lock().unwrap();
            all.push_str(&line);
            all.push('\n');
            drop(all);
            if line.starts_with(&marker)
                && let Some(at) = line.find("http://")
            {
                let url: String = line[at..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_string();
                let _ = found.send(url);
            }
        }
    });
    let url = address
        .recv_timeout(Duration::from_secs(60))
        .expect("the command printed its address");
    (child, url.trim_end_matches(';').to_string(), printed)
}

pub fn credentials(dir: &Path) -> serde_json::Value {
    let bytes = std::fs::read(dir.join("credentials.json")).expect("credentials.json");
    serde_json::from_slice(&bytes).expect("credentials.json is JSON")
}

/// One request with the team key header; the status and the body as JSON (null when empty
/// or not JSON).
pub fn call(
    base_url: &str,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&str>,
) -> (u16, serde_json::Value) {
    call_with(base_url, method, path, &[("x-service-api-key", key)], body)
}

/// One request with these headers; the status and the body as JSON (null when empty or not
/// JSON).
pub fn call_with(
    base_url: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, serde_json::Value) {
    let host = base_url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("connect");
    let body = body.unwrap_or("");
    let headers: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{headers}\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (
        status,
        serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    )
}

pub fn create_user(base_url: &str, key: &str, client_user_id: &str) -> (u16, serde_json::Value) {
    let body = format!(r#"{{"client_user_id": "{client_user_id}"}}"#);
    call(base_url, "POST", "/v2/user", key, Some(&body))
}

/// A fresh database on the PostgreSQL server of `COVENANT_TEST_POSTGRES_URL`; `None` outside
/// CI when none is configured.
pub fn fresh_postgres_database() -> Option<String> {
    let admin = match std::env::var("COVENANT_TEST_POSTGRES_URL") {
        Ok(url) => url,
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!("COVENANT_TEST_POSTGRES_URL must name a PostgreSQL server in CI")
        }
        Err(_) => {
            eprintln!("skipped: set COVENANT_TEST_POSTGRES_URL to run it");
            return None;
        }
    };
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let name = format!(
        "covenant_cli_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let status = Command::new("psql")
        .args([&admin, "-qc", &format!("CREATE DATABASE {name}")])
        .status()
        .expect("psql");
    assert!(status.success(), "create a test database");
    let base = admin
        .rsplit_once('/')
        .map_or(admin.as_str(), |(base, _)| base);
    Some(format!("{base}/{name}"))
}

/// Every operation of the generated OpenAPI documents (one per endpoint of the spec): its
/// `operationId`, and whether it takes a request body.
pub fn openapi_operations() -> Vec<(String, bool)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/openapi");
    let mut operations = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        for methods in doc["paths"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.values())
        {
            for operation in methods.as_object().into_iter().flat_map(|m| m.values()) {
                if let Some(id) = operation["operationId"].as_str() {
                    operations.push((id.to_string(), operation.get("requestBody").is_some()));
                }
            }
        }
    }
    operations
}
