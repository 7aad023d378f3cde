//! `covenant mock` (descriptors built from the spec at start) side by side with the generated
//! router serving the generated mock (`serve --mock`), and with Prism when `PRISM` names its
//! command: each a process on a real socket, the same requests from the same load generator,
//! rounds alternating between targets. Prints medians of requests per second, their ratios,
//! and each process's peak resident memory.
//!
//! `cargo bench --bench mock_throughput`; with Prism installed from the npm registry
//! (`npm install --prefix DIR @stoplight/prism-cli@5`):
//! `PRISM=DIR/node_modules/.bin/prism cargo bench --bench mock_throughput`.

use covenant_runtime::credentials::Credentials;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const CONNECTIONS: usize = 64;
const ROUND: Duration = Duration::from_secs(3);
const ROUNDS: usize = 5;

/// A server under load: its process, address and team key.
struct Target {
    name: &'static str,
    child: Child,
    base_url: String,
    key: String,
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The requests measured: a path parameter, and a JSON body, each checked before the answer.
const REQUESTS: &[(&str, &str, Option<&str>)] = &[
    ("GET", "/v2/user/resolve/bench-user", None),
    (
        "POST",
        "/v2/user",
        Some(r#"{"client_user_id": "bench-user"}"#),
    ),
];

#[tokio::main]
async fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::Builder::new()
        .prefix("covenant-mock-bench-")
        .tempdir()
        .unwrap();
    let mut targets = vec![
        covenant_target("generated router", &["serve", "--mock"], scratch.path()),
        covenant_target(
            "covenant mock",
            &["mock", root.join("spec/health.covenant").to_str().unwrap()],
            scratch.path(),
        ),
    ];
    if let Ok(prism) = std::env::var("PRISM") {
        targets.push(prism_target(&prism, &root.join("generated/openapi/main.json")).await);
    }
    for t in &targets {
        wait_until_up(t).await;
    }
    println!(
        "{CONNECTIONS} connections, {ROUNDS} rounds of {}s per target, medians",
        ROUND.as_secs()
    );
    for (method, path, body) in REQUESTS {
        let mut rates: Vec<Vec<f64>> = vec![Vec::new(); targets.len()];
        for _ in 0..ROUNDS {
            for (t, rates) in targets.iter().zip(&mut rates) {
                rates.push(rate(t, method, path, *body).await);
            }
        }
        let medians: Vec<f64> = rates.iter_mut().map(|r| median(r)).collect();
        for (t, m) in targets.iter().zip(&medians) {
            println!(
                "{method:<5}{path:<30} {:<17} {m:>9.0} req/s   {:.2}× the generated router",
                t.name,
                m / medians[0]
            );
        }
        if medians.len() > 2 {
            println!(
                "{:<35} covenant mock / Prism: {:.1}×",
                "",
                medians[1] / medians[2]
            );
        }
    }
    for t in &targets {
        println!(
            "peak resident memory   {:<17} {:>5} MiB",
            t.name,
            peak_rss_mib(t.child.id())
        );
    }
}

/// Starts `covenant ARGS` with its own data folder; reads its address and key from the
/// credentials it writes.
fn covenant_target(name: &'static str, args: &[&str], scratch: &Path) -> Target {
    let dir = scratch.join(name.replace(' ', "-"));
    let child = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start covenant");
    let started = Instant::now();
    let credentials = loop {
        if let Some(credentials) = Credentials::read_in(&dir) {
            break credentials;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{name} started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    Target {
        name,
        child,
        base_url: credentials.get("base_url").unwrap().to_string(),
        key: credentials.get("team_api_key").unwrap().to_string(),
    }
}

/// Prism mocking the service's OpenAPI document on a free port.
async fn prism_target(prism: &str, openapi: &Path) -> Target {
    let port = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(prism)
        .args(["mock", "--host", "127.0.0.1", "--port", &port.to_string()])
        .arg(openapi)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start Prism");
    Target {
        name: "Prism",
        child,
        base_url: format!("http://127.0.0.1:{port}"),
        key: "any-key".to_string(),
    }
}

async fn wait_until_up(t: &Target) {
    let started = Instant::now();
    while reqwest::get(format!("{}/", t.base_url)).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} answers",
            t.name
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Successful answers per second over one round.
async fn rate(t: &Target, method: &str, path: &str, body: Option<&'static str>) -> f64 {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CONNECTIONS)
        .build()
        .unwrap();
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + ROUND;
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let workers: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let (client, done) = (client.clone(), done.clone());
            let (url, key, method) = (
                format!("{}{path}", t.base_url),
                t.key.clone(),
                method.clone(),
            );
            tokio::spawn(async move {
                while Instant::now() < deadline {
                    let mut request = client
                        .request(method.clone(), &url)
                        .header("x-service-api-key", &key);
                    if let Some(body) = body {
                        request = request
                            .header("content-type", "application/json")
                            .body(body);
                    }
                    if let Ok(response) = request.send().await {
                        let ok = response.status().is_success();
                        let _ = response.bytes().await;
                        if ok {
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    let started = Instant::now();
    for worker in workers {
        worker.await.unwrap();
    }
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The peak resident memory of a process (`VmHWM`), in MiB.
fn peak_rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}
