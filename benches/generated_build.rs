//! A clean build of the generated crate with its dependencies already built (target: under
//! 30 s on 2 cores). Each run removes only the generated crate's own artifacts, then times
//! `cargo build -p health-api`. Prints every run and the median.
//! Run: `cargo bench --bench generated_build` (RUNS=5 for more runs).

use std::process::Command;
use std::time::Instant;

fn cargo(args: &[&str]) {
    let status = Command::new(env!("CARGO"))
        .args(args)
        .status()
        .expect("run cargo");
    assert!(status.success(), "cargo {args:?} failed");
}

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    cargo(&["build", "-q", "-p", "health-api"]);
    let mut seconds = Vec::new();
    for run in 1..=runs {
        cargo(&["clean", "-q", "-p", "health-api"]);
        let start = Instant::now();
        cargo(&["build", "-q", "-p", "health-api"]);
        let s = start.elapsed().as_secs_f64();
        println!("run {run}: clean build of health-api in {s:.2} s");
        seconds.push(s);
    }
    seconds.sort_by(f64::total_cmp);
    println!(
        "median {:.2} s over {runs} runs (target: under 30 s)",
        seconds[seconds.len() / 2]
    );
}
