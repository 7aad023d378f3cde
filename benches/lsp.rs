//! `covenant lsp` as an editor uses it, on the service spec (targets: diagnostics after an
//! edit under 50 ms, hover and completion under 20 ms, medians): a one-character edit
//! typed and undone by turns, timed from sending `didChange` to receiving its
//! `publishDiagnostics`; hover and completion at several places, timed per request; the
//! server's resident memory with the spec open. Prints medians and p99s, and the ratio of
//! an edit's diagnostics to `covenant check` of the same spec as a process.
//! Run: `cargo bench --bench lsp` (ROUNDS=1001 for more rounds).

#[path = "../tests/integration/lsp/client.rs"]
mod client;

use client::{Client, file_uri, position_of};
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

const SPEC_TEXT: &str = include_str!("../spec/health.covenant");

fn percentile(runs: &mut [Duration], p: f64) -> f64 {
    runs.sort();
    let at = ((runs.len() - 1) as f64 * p).round() as usize;
    runs[at].as_secs_f64() * 1000.0
}

fn report(what: &str, mut runs: Vec<Duration>, target_ms: Option<f64>) -> f64 {
    let median = percentile(&mut runs, 0.5);
    let p99 = percentile(&mut runs, 0.99);
    let verdict = target_ms.map_or(String::new(), |t| {
        format!(
            " (target {t} ms: {})",
            if median < t { "met" } else { "NOT met" }
        )
    });
    println!(
        "{what}: median {median:.2} ms, p99 {p99:.2} ms over {} runs{verdict}",
        runs.len()
    );
    median
}

/// Resident and peak memory of a process, in MiB, from /proc.
fn memory(pid: u32) -> Option<(f64, f64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse::<f64>()
            .ok()
            .map(|kib| kib / 1024.0)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(301);
    let scratch = tempfile::tempdir().expect("a scratch folder");
    std::fs::create_dir(scratch.path().join("spec")).unwrap();
    let spec = scratch.path().join("spec/health.covenant");
    std::fs::write(&spec, SPEC_TEXT).unwrap();
    std::fs::write(
        scratch.path().join("covenant.toml"),
        "spec = \"spec/health.covenant\"\n",
    )
    .unwrap();
    let uri = file_uri(&spec);
    let covenant = std::path::Path::new(env!("CARGO_BIN_EXE_covenant"));
    let mut client = Client::start(covenant, scratch.path(), json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "covenant", "version": 1, "text": SPEC_TEXT } }),
    );
    client.diagnostics(&uri, 1);
    let opened = memory(client.pid());

    // A letter typed into a field's name and taken out again, by turns: each edit is checked.
    let at = position_of(SPEC_TEXT, "    client_user_id: string", 10);
    let mut edits = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let version = round as i64 + 2;
        let change = if round % 2 == 0 {
            json!({ "range": { "start": at, "end": at }, "text": "x" })
        } else {
            let mut after = at.clone();
            after["character"] = json!(at["character"].as_u64().unwrap() + 1);
            json!({ "range": { "start": at, "end": after }, "text": "" })
        };
        let started = Instant::now();
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [change] }),
        );
        client.diagnostics(&uri, version);
        edits.push(started.elapsed());
    }
    // The text is the spec again (an even number of edits) or one letter longer: hover and
    // completion positions are taken before the edited line either way.
    let hover_at = [
        position_of(SPEC_TEXT, "response 200: User\n", 15),
        position_of(SPEC_TEXT, "fallback_time_zone: FallbackTimeZone", 2),
        position_of(SPEC_TEXT, "endpoint get_user", 10),
        position_of(SPEC_TEXT, "model User {", 6),
    ];
    let complete_at = [
        position_of(
            SPEC_TEXT,
            "@source(deployed_client)\n    fallback_time_zone",
            1,
        ),
        position_of(SPEC_TEXT, "    connected_sources: ConnectedSource[]", 23),
    ];
    let (mut hovers, mut completions) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let position = &hover_at[round % hover_at.len()];
        let started = Instant::now();
        client.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": position }),
        );
        hovers.push(started.elapsed());
        let position = &complete_at[round % complete_at.len()];
        let started = Instant::now();
        client.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri }, "position": position }),
        );
        completions.push(started.elapsed());
    }
    let worked = memory(client.pid());

    let mut checks = Vec::new();
    for _ in 0..21 {
        let started = Instant::now();
        let status = Command::new(covenant)
            .arg("check")
            .arg(&spec)
            .output()
            .unwrap()
            .status;
        assert!(status.success());
        checks.push(started.elapsed());
    }
    assert!(client.shutdown().success());

    println!(
        "service spec: {} lines, {} bytes",
        SPEC_TEXT.lines().count(),
        SPEC_TEXT.len()
    );
    let edit = report("diagnostics after a one-character edit", edits, Some(50.0));
    report("hover", hovers, Some(20.0));
    report("completion", completions, Some(20.0));
    let check = report("covenant check of the spec (a process)", checks, None);
    println!(
        "an edit's diagnostics: {:.2}x a `covenant check` process",
        edit / check
    );
    if let (Some((rss, _)), Some((rss_after, peak))) = (opened, worked) {
        println!(
            "resident memory: {rss:.1} MiB with the spec open, {rss_after:.1} MiB after the run, peak {peak:.1} MiB"
        );
    }
}
