//! The README's first command, `covenant conform` with no arguments, as a user runs it: the
//! reference server started in process on a fresh embedded database, the whole suite
//! replayed and judged, the reports written (target: a median under 5 s). Prints each
//! round, the median and the slowest. Run: `cargo bench --bench main_job` (ROUNDS=9 for more).

use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let reports = tempfile::tempdir().expect("a folder for the reports");
    let mut runs: Vec<Duration> = Vec::new();
    for round in 1..=rounds {
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_covenant"))
            .arg("conform")
            .arg("--report-dir")
            .arg(reports.path())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run covenant conform");
        let took = started.elapsed();
        assert!(
            output.status.success(),
            "conform failed: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        println!("round {round}: {:.2} s", took.as_secs_f64());
        runs.push(took);
    }
    runs.sort();
    println!(
        "conform (the main job): median {:.2} s, slowest {:.2} s over {rounds} rounds (target: under 5 s)",
        runs[runs.len() / 2].as_secs_f64(),
        runs[runs.len() - 1].as_secs_f64()
    );
}
