//! `covenant docs` of the service spec as a user runs it, one process each time (target: under
//! 200 ms): into an empty folder (every page written), again into the written folder (every
//! page read back and compared, none written), and `--check`; beside `covenant check` of the
//! same spec, the process, parse and validation every command pays. Rounds alternate the
//! four so a noisy machine slows each alike; prints medians and ratios to `check`.
//! Run: `cargo bench --bench docs_command` (ROUNDS=41 for more rounds).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/health.covenant");

/// Runs covenant with `args`, and answers how long the process took.
fn timed(args: &[&str], out: Option<&Path>) -> Duration {
    let mut command = Command::new(env!("CARGO_BIN_EXE_covenant"));
    command.args(args);
    if let Some(out) = out {
        command.arg("--out").arg(out);
    }
    let start = Instant::now();
    let output = command.output().expect("run covenant");
    let took = start.elapsed();
    assert!(
        output.status.success(),
        "covenant {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    took
}

fn median(mut runs: Vec<Duration>) -> f64 {
    runs.sort();
    runs[runs.len() / 2].as_secs_f64() * 1000.0
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let (mut fresh, mut again, mut check, mut baseline) = (vec![], vec![], vec![], vec![]);
    for round in 0..rounds {
        let site = scratch.path().join(format!("site-{round}"));
        baseline.push(timed(&["check", SPEC], None));
        fresh.push(timed(&["docs", "--spec", SPEC], Some(&site)));
        again.push(timed(&["docs", "--spec", SPEC], Some(&site)));
        check.push(timed(&["docs", "--check", "--spec", SPEC], Some(&site)));
        std::fs::remove_dir_all(&site).expect("remove the site");
    }
    let baseline = median(baseline);
    println!("covenant check (the floor: process, parse, validate): {baseline:.1} ms");
    for (what, runs) in [
        ("docs into an empty folder", fresh),
        ("docs into the written folder", again),
        ("docs --check", check),
    ] {
        let ms = median(runs);
        println!("{what}: {ms:.1} ms ({:.2}x check)", ms / baseline);
    }
    println!("medians of {rounds} rounds (target: under 200 ms)");
}
