//! Memory of a run against a hostile target, as the number of exchanges grows: every
//! response is a 1 MiB JSON body the schema refuses. Each size runs in a process of its
//! own, which reports its peak resident memory and the size of the reports it wrote; a run
//! is bounded when ten times the exchanges cost about the same.
//!
//! `cargo bench --bench conform_memory`

use covenant_conformance::known_failures::ExpectedFailures;
use covenant_conformance::progress::Progress;
use covenant_conformance::template::Globals;
use covenant_conformance::{Contract, RunSettings, Target, cassette, plan, report, runner};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

const SIZES: [usize; 2] = [100, 1000];
/// The body of every answer.
const BODY_BYTES: usize = 1024 * 1024;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--exchanges") {
        let exchanges: usize = args[at + 1].parse().expect("a number of exchanges");
        return measure(exchanges);
    }
    let mut peaks = Vec::new();
    for exchanges in SIZES {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exchanges", &exchanges.to_string()])
            .output()
            .expect("the bench runs itself");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let (peak, reports) = text.split_once(' ').expect("`PEAK_KIB REPORT_BYTES`");
        let peak: f64 = peak.parse().unwrap();
        let reports: f64 = reports.parse().unwrap();
        println!(
            "{exchanges} exchanges of 1 MiB each against a hostile target: peak memory {:.0} MiB, reports {:.1} MiB",
            peak / 1024.0,
            reports / 1024.0 / 1024.0
        );
        peaks.push(peak);
    }
    println!(
        "peak memory at {}x the exchanges: {:.2}x",
        SIZES[1] / SIZES[0],
        peaks[1] / peaks[0]
    );
}

/// Runs `exchanges` one-exchange scenarios against a target answering every request with a
/// 1 MiB body, writes the reports, and prints the peak resident memory (KiB) and the
/// reports' size (bytes).
fn measure(exchanges: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (_, checked) = covenant_codegen::check_path(&root.join("spec/health.covenant")).unwrap();
    let contract = Arc::new(Contract::new(checked.spec.unwrap()).unwrap());
    let route = contract
        .routes()
        .iter()
        .find(|r| r.method == "GET" && r.path.params().next().is_none())
        .expect("a GET endpoint with a fixed path");
    let folder = tempfile::tempdir().unwrap();
    let cassettes = (0..exchanges)
        .map(|i| {
            let text = serde_json::to_string_pretty(&json!({
                "id": format!("hostile/{i}"),
                "title": "a huge answer",
                "exchanges": [{
                    "endpoint": route.name,
                    "request": {"path": route.path.as_str()},
                    "expect": {"status": 200}
                }]
            }))
            .unwrap();
            cassette::parse(&folder.path().join(format!("{i}.json")), text).unwrap()
        })
        .collect();
    let (plans, problems) = plan::compile_all(cassettes, &contract, &Globals::default());
    assert!(problems.is_empty(), "{problems:#?}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let report = runtime.block_on(async {
        let url = serve_hostile().await;
        let target = Target {
            bases: contract
                .spec
                .apis
                .iter()
                .map(|api| (api.base_name(), url.clone()))
                .collect(),
        };
        runner::run(
            contract.clone(),
            plans,
            Arc::new(Globals::default()),
            target,
            ExpectedFailures::default(),
            RunSettings {
                jobs: 8,
                retries: 0,
                ..RunSettings::default()
            },
            Progress::Quiet,
        )
        .await
    });
    assert_eq!(report.tally().failed, exchanges, "every answer fails");
    let written = report::write_all(&folder.path().join("reports"), &report).unwrap();
    let bytes: u64 = written.iter().map(|p| size_of_path(p)).sum();
    println!("{} {bytes}", peak_kib());
}

/// A server answering every request with a 1 MiB JSON array the schema refuses.
async fn serve_hostile() -> String {
    let body: Arc<[u8]> = {
        let item = format!("\"{}\",", "x".repeat(1022));
        let mut text = String::from("[");
        while text.len() + item.len() < BODY_BYTES {
            text.push_str(&item);
        }
        text.push_str("\"x\"]");
        Arc::from(text.into_bytes())
    };
    let router = covenant_runtime::server::axum::Router::new().fallback(move || {
        let body = body.clone();
        async move {
            (
                [(
                    covenant_runtime::server::axum::http::header::CONTENT_TYPE,
                    "application/json",
                )],
                body.to_vec(),
            )
        }
    });
    let spawned = covenant_runtime::server::spawn(router).await.unwrap();
    spawned.detach()
}

fn size_of_path(path: &Path) -> u64 {
    if path.is_dir() {
        std::fs::read_dir(path)
            .unwrap()
            .map(|e| size_of_path(&e.unwrap().path()))
            .sum()
    } else {
        std::fs::metadata(path).map_or(0, |m| m.len())
    }
}

/// The process's peak resident memory, in KiB (Linux).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
