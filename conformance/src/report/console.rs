//! The summary a person reads at the end of a run.

use crate::outcome::{Report, ScenarioResult, Verdict};
use std::fmt::Write;

pub fn summary(report: &Report) -> String {
    let t = report.tally();
    let mut out = String::new();
    if let Some(stopped) = &report.stopped
        && report.scenarios.is_empty()
    {
        let _ = writeln!(out, "conform: stopped, nothing judged: {}", stopped.reason);
        return out;
    }
    for s in report.scenarios.iter().filter(|s| s.verdict.fails_run()) {
        failure_block(&mut out, s);
    }
    for s in report
        .scenarios
        .iter()
        .filter(|s| s.verdict == Verdict::ExpectedFailure)
    {
        let _ = writeln!(
            out,
            "xfail {}: {}",
            s.id,
            s.expected_failure.as_deref().unwrap_or("")
        );
    }
    skipped_for_a_reason(&mut out, report);
    deliveries(&mut out, report);
    snapshots(&mut out, report);
    for stale in &report.stale_expected_failures {
        let _ = writeln!(
            out,
            "note: the expected failure `{stale}` names no scenario of this run"
        );
    }
    let _ = writeln!(
        out,
        "conform: {} scenarios, {} exchanges in {:.2} s against {}",
        report.scenarios.len(),
        t.exchanges,
        report.duration_ms / 1000.0,
        report.where_run()
    );
    let _ = writeln!(
        out,
        "  {} passed, {} failed, {} expected failures, {} unexpectedly passed, {} skipped",
        t.passed, t.failed, t.expected_failures, t.unexpected_passes, t.skipped
    );
    if let Some(list) = &report.expected_failures {
        let _ = writeln!(out, "  {}", list.sentence(report.implementation.as_deref()));
    }
    let _ = writeln!(
        out,
        "  coverage: {} of {} declared statuses exercised",
        report.coverage.exercised(),
        report.coverage.declared()
    );
    if let Some(events) = &report.events {
        let declared = report.coverage.events.len();
        let received = report.coverage.events.values().filter(|n| **n > 0).count();
        let _ = writeln!(
            out,
            "  events: {} deliveries at {} ({}), {received} of {declared} declared events received, {} failed their checks",
            events.received.len(),
            events.receiver,
            events.subscription,
            report.failed_deliveries()
        );
    }
    if let Some(stopped) = &report.stopped {
        let _ = writeln!(out, "conform: stopped midway: {}", stopped.reason);
    }
    let _ = writeln!(out, "conform: {}", report.verdict().headline());
    out
}

/// Scenarios skipped for a reason of their own, once per reason.
fn skipped_for_a_reason(out: &mut String, report: &Report) {
    let mut reasons: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for s in &report.scenarios {
        if let Some(reason) = &s.skip_reason {
            reasons.entry(reason).or_default().push(&s.id);
        }
    }
    for (reason, ids) in reasons {
        let _ = writeln!(out, "skipped {} ({reason}): {}", ids.len(), ids.join(", "));
    }
}

/// Each delivery that failed its checks.
fn deliveries(out: &mut String, report: &Report) {
    let Some(events) = &report.events else {
        return;
    };
    for event in events.received.iter().filter(|e| !e.failures.is_empty()) {
        let _ = writeln!(
            out,
            "FAIL delivery {} ({})",
            event.id.as_deref().unwrap_or("without an id"),
            event.event_type.as_deref().unwrap_or("no event type")
        );
        for f in &event.failures {
            let _ = writeln!(out, "    {f}");
        }
    }
    if events.refused > 0 {
        let _ = writeln!(
            out,
            "note: {} deliveries refused: the receiver keeps {} at most",
            events.refused,
            crate::events::MAX_DELIVERIES
        );
    }
}

fn failure_block(out: &mut String, s: &ScenarioResult) {
    if s.verdict == Verdict::UnexpectedPass {
        let _ = writeln!(
            out,
            "XPASS {}: listed as an expected failure ({}) but passed; remove it from the list\n",
            s.id,
            s.expected_failure.as_deref().unwrap_or("")
        );
        return;
    }
    let _ = writeln!(out, "FAIL {}: {} ({})", s.id, s.title, s.file);
    for e in s.exchanges.iter().filter(|e| e.verdict == Verdict::Failed) {
        let _ = writeln!(
            out,
            "  exchange {} ({} {} {})",
            e.label, e.endpoint, e.method, e.url
        );
        for f in &e.failures {
            let _ = writeln!(out, "    {f}");
            if let Some(at) = &f.at {
                excerpt(out, at);
            }
        }
        if !e.curl.is_empty() {
            let _ = writeln!(out, "    reproduce: {}", e.curl);
        }
    }
    out.push('\n');
}

/// `--> file:line:col` and the line, as a compiler shows where an error is.
fn excerpt(out: &mut String, at: &crate::outcome::Location) {
    let number = at.line.to_string();
    let pad = " ".repeat(number.len());
    let _ = writeln!(out, "      {pad}--> {at}");
    let _ = writeln!(out, "      {pad} |");
    let _ = writeln!(out, "      {number} | {}", at.excerpt);
    let caret = " ".repeat(at.col.saturating_sub(1));
    let _ = writeln!(out, "      {pad} | {caret}^");
}

/// Each snapshot that failed, with its diff, and a count of the rest.
fn snapshots(out: &mut String, report: &Report) {
    use crate::outcome::SnapshotOutcome;
    if report.snapshots.is_empty() {
        return;
    }
    let mut counts = [0usize; 5];
    for s in &report.snapshots {
        match &s.outcome {
            SnapshotOutcome::Matched => counts[0] += 1,
            SnapshotOutcome::Written => counts[1] += 1,
            SnapshotOutcome::Updated => counts[2] += 1,
            SnapshotOutcome::Missing { new } => {
                counts[3] += 1;
                let _ = writeln!(
                    out,
                    "SNAPSHOT MISSING {}: no {} (CI is set); the transcript is in {new}\n",
                    s.id, s.file
                );
            }
            SnapshotOutcome::Differs { new, diff } => {
                counts[4] += 1;
                let _ = writeln!(
                    out,
                    "SNAPSHOT DIFFERS {}: {} (new: {new}; accept with --update-snapshots or cargo insta review)\n{}",
                    s.id,
                    s.file,
                    excerpt_of_diff(diff, new)
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "snapshots: {} matched, {} written, {} updated, {} missing, {} differ",
        counts[0], counts[1], counts[2], counts[3], counts[4]
    );
}

/// The lines of a snapshot's diff the console shows; the whole diff is in the `.snap.new`
/// file and in report.json.
pub const SHOWN_DIFF_LINES: usize = 40;

/// A diff cut to its first [`SHOWN_DIFF_LINES`] lines, saying what was left out and where
/// to read it whole.
fn excerpt_of_diff(diff: &str, new: &str) -> String {
    let lines: Vec<&str> = diff.lines().collect();
    if lines.len() <= SHOWN_DIFF_LINES {
        return diff.to_string();
    }
    let mut out = lines[..SHOWN_DIFF_LINES].join("\n");
    let _ = write!(
        out,
        "\n… {} more lines of the diff: open {new} (or report.json) to read it whole\n",
        lines.len() - SHOWN_DIFF_LINES
    );
    out
}
