//! A self-contained HTML report. It opens on the verdict and every reason for it, each
//! failing scenario linked; then the failing exchanges with their expected and actual
//! values, transcripts and cassette lines; differing snapshots; events; the coverage matrix
//! (every endpoint × every declared status), folded; and every scenario's verdict.

use super::TRANSCRIPTS;
use super::junit::escape;
use crate::outcome::SnapshotOutcome;
use crate::outcome::file_stem;
use crate::outcome::{Report, ScenarioResult, Verdict};
use crate::progress::verdict_word;
use covenant_runtime::contract::StatusPattern;
use std::fmt::Write;
use std::path::Path;

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\
.hit{background:#d7f5d7}.miss{background:#eee}tr.fail{background:#fbd9d9}.pass{color:#176b17}.fail{color:#b00020;font-weight:bold}\
code,pre{font:12px ui-monospace,monospace}pre{background:#f6f6f6;padding:8px;overflow-x:auto;white-space:pre-wrap}\
.status{display:inline-block;min-width:3em;margin:1px;padding:1px 4px;border-radius:3px}\
.verdict{font-size:1.3em;padding:6px 10px;border-radius:4px;display:inline-block}.verdict.pass{background:#d7f5d7}.verdict.fail{background:#fbd9d9}";

/// The page, written into `dir`: links to transcripts and cassettes are relative to it.
pub fn render(report: &Report, dir: &Path) -> String {
    let t = report.tally();
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>conform: {}</title><style>{STYLE}</style></head><body>\n",
        escape(&report.spec)
    );
    if let Some(stopped) = &report.stopped
        && report.scenarios.is_empty()
    {
        let _ = writeln!(
            out,
            "<h1>Conformance of {}: stopped, nothing judged</h1>\n<p>Exit status {}.</p>\n<pre>{}</pre>\n</body></html>",
            escape(&report.spec),
            stopped.exit,
            escape(&stopped.reason)
        );
        return out;
    }
    let _ = writeln!(
        out,
        "<h1>Conformance of {} at <code>{}</code></h1>",
        escape(&report.spec),
        escape(&report.target),
    );
    verdict(&mut out, report);
    let _ = writeln!(
        out,
        "<p>{} scenarios, {} exchanges, {:.2} s, started {}: <b>{} passed</b>, <b>{} failed</b>, {} expected failures, {} unexpectedly passed, {} skipped.</p>",
        report.scenarios.len(),
        t.exchanges,
        report.duration_ms / 1000.0,
        escape(&report.started_at),
        t.passed,
        t.failed,
        t.expected_failures,
        t.unexpected_passes,
        t.skipped,
    );
    bases(&mut out, report);
    if let Some(list) = &report.expected_failures {
        let _ = writeln!(
            out,
            "<p>{}</p>",
            escape(&list.sentence(report.implementation.as_deref()))
        );
    }
    let failing: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|s| s.verdict.fails_run())
        .collect();
    if !failing.is_empty() {
        out.push_str("<h2 id=\"failures\">Failures</h2>\n");
        for s in failing {
            failure(&mut out, s, dir);
        }
    }
    snapshots(&mut out, report);
    events(&mut out, report);
    coverage(&mut out, report);
    scenarios(&mut out, report);
    out.push_str("</body></html>\n");
    out
}

/// The verdict first, with every reason the run fails and a link to each failing scenario.
fn verdict(out: &mut String, report: &Report) {
    let verdict = report.verdict();
    if verdict.passed() {
        out.push_str("<p class=\"verdict pass\">✓ Passed</p>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<p class=\"verdict fail\">✗ Failed (exit status {})</p>\n<ul>",
        verdict.exit()
    );
    for cause in &verdict.causes {
        let _ = writeln!(out, "<li>{}</li>", escape(&cause.sentence()));
    }
    out.push_str("</ul>\n");
    let failing: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|s| s.verdict.fails_run())
        .collect();
    if failing.is_empty() {
        return;
    }
    out.push_str("<ol class=\"failing\">\n");
    for s in failing {
        let first = s
            .exchanges
            .iter()
            .flat_map(|e| &e.failures)
            .next()
            .map(|f| format!(": {}", f.summary()))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<li><a href=\"#{}\"><code>{}</code></a>{}</li>",
            escape(&anchor(&s.id)),
            escape(&s.id),
            escape(&first)
        );
    }
    out.push_str("</ol>\n");
}

/// Each snapshot that failed, with its diff.
fn snapshots(out: &mut String, report: &Report) {
    let failed: Vec<_> = report
        .snapshots
        .iter()
        .filter(|s| s.outcome.fails_run())
        .collect();
    if failed.is_empty() {
        return;
    }
    out.push_str("<h2 id=\"snapshots\">Snapshots</h2>\n");
    for snapshot in failed {
        let (what, new, diff) = match &snapshot.outcome {
            SnapshotOutcome::Differs { new, diff } => ("differs", new, diff.as_str()),
            SnapshotOutcome::Missing { new } => ("missing (CI is set)", new, ""),
            _ => continue,
        };
        let _ = writeln!(
            out,
            "<h3 class=\"fail\">✗ snapshot of <code>{}</code> {what}</h3>\n<p><code>{}</code>; the transcript of this run: <code>{}</code>. Accept with <code>--update-snapshots</code> or <code>cargo insta review</code>.</p>",
            escape(&snapshot.id),
            escape(&snapshot.file),
            escape(new)
        );
        if !diff.is_empty() {
            let _ = writeln!(out, "<pre>{}</pre>", escape(diff));
        }
    }
}

/// An element id for a scenario id.
fn anchor(id: &str) -> String {
    format!("scenario-{}", file_stem(id))
}

/// `path` as a link from `dir`: relative when both are in one tree, so the report folder
/// can be moved with the cassettes it names.
fn href_from(dir: &Path, path: &Path) -> String {
    let (Ok(dir), Ok(path)) = (std::path::absolute(dir), std::path::absolute(path)) else {
        return path.display().to_string();
    };
    let common = dir
        .components()
        .zip(path.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = std::path::PathBuf::new();
    for _ in dir.components().skip(common) {
        relative.push("..");
    }
    for part in path.components().skip(common) {
        relative.push(part);
    }
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every base the run used.
fn bases(out: &mut String, report: &Report) {
    if report.bases.len() < 2 {
        return;
    }
    out.push_str("<p>Bases:");
    for (name, url) in &report.bases {
        let _ = write!(
            out,
            " <code>{}</code> = <code>{}</code>",
            escape(name),
            escape(url)
        );
    }
    out.push_str("</p>\n");
}

/// Every declared status of every endpoint, marked in words and symbols as well as colour
/// (✓ passed, ✗ failed, ○ not exercised), with the scenarios that exercised it.
fn coverage(out: &mut String, report: &Report) {
    let mut failed: std::collections::HashSet<(&str, String)> = std::collections::HashSet::new();
    for e in report.scenarios.iter().flat_map(|s| &s.exchanges) {
        if let (Some(status), Verdict::Failed) = (e.status, e.verdict) {
            let declared = report
                .coverage
                .matrix
                .get(&e.endpoint)
                .and_then(|statuses| {
                    let patterns = statuses
                        .keys()
                        .filter_map(|key| Some((StatusPattern::parse(key)?, key.clone())));
                    StatusPattern::resolve(patterns, status)
                });
            failed.insert((
                e.endpoint.as_str(),
                declared.unwrap_or_else(|| status.to_string()),
            ));
        }
    }
    let _ = writeln!(
        out,
        "<h2 id=\"coverage\">Coverage</h2>\n<details><summary>{} of {} declared statuses exercised</summary>\n<table><tr><th>Endpoint</th><th>Status</th><th>Result</th><th>Scenarios</th></tr>",
        report.coverage.exercised(),
        report.coverage.declared()
    );
    for (endpoint, statuses) in &report.coverage.matrix {
        for (status, ids) in statuses {
            let (class, mark) = if ids.is_empty() {
                ("miss", "○ not exercised")
            } else if failed.contains(&(endpoint.as_str(), status.clone())) {
                ("fail", "✗ failed")
            } else {
                ("hit", "✓ passed")
            };
            let _ = writeln!(
                out,
                "<tr class=\"{class}\"><td><code>{}</code></td><td>{status}</td><td>{mark}</td><td>{}</td></tr>",
                escape(endpoint),
                escape(&ids.join(", "))
            );
        }
    }
    out.push_str("</table>\n</details>\n");
}

/// Every declared event with the deliveries received of it, then each delivery that failed
/// its checks.
fn events(out: &mut String, report: &Report) {
    let Some(events) = &report.events else {
        return;
    };
    let _ = writeln!(
        out,
        "<h2>Events</h2>\n<p>{} deliveries at <code>{}</code> ({}).</p>\n<table><tr><th>Event</th><th>Received</th></tr>",
        events.received.len(),
        escape(&events.receiver),
        escape(&events.subscription)
    );
    for (event, count) in &report.coverage.events {
        let (class, mark) = match count {
            0 => ("miss", "○ none".to_string()),
            n => ("hit", format!("✓ {n}")),
        };
        let _ = writeln!(
            out,
            "<tr class=\"{class}\"><td><code>{}</code></td><td>{mark}</td></tr>",
            escape(event)
        );
    }
    out.push_str("</table>\n");
    for event in events.received.iter().filter(|e| !e.failures.is_empty()) {
        let _ = writeln!(
            out,
            "<h3 class=\"fail\">✗ delivery <code>{}</code> ({})</h3>\n<ul>",
            escape(event.id.as_deref().unwrap_or("without an id")),
            escape(event.event_type.as_deref().unwrap_or("no event type"))
        );
        for f in &event.failures {
            let _ = writeln!(out, "<li>{}</li>", escape(&f.to_string()));
        }
        out.push_str("</ul>\n");
    }
}

fn failure(out: &mut String, s: &ScenarioResult, dir: &Path) {
    let transcript = format!("{TRANSCRIPTS}/{}.txt", file_stem(&s.id));
    let _ = writeln!(
        out,
        "<h3 id=\"{}\" class=\"fail\">{} {}</h3><p>{} <small>(<a href=\"{}\">{}</a>; <a href=\"{}\">transcript</a>)</small></p>",
        escape(&anchor(&s.id)),
        verdict_word(s.verdict).trim(),
        escape(&s.id),
        escape(&s.title),
        escape(&href_from(dir, Path::new(&s.file))),
        escape(&s.file),
        escape(&transcript)
    );
    if s.verdict == Verdict::UnexpectedPass {
        let _ = writeln!(
            out,
            "<p>Listed as an expected failure ({}) but passed: remove it from the list.</p>",
            escape(s.expected_failure.as_deref().unwrap_or(""))
        );
        return;
    }
    for e in s.exchanges.iter().filter(|e| e.verdict == Verdict::Failed) {
        let _ = writeln!(
            out,
            "<p>Exchange <b>{}</b>: <code>{} {}</code> ({}), expected status {}, got {}</p>\n<table><tr><th>Check</th><th>Where</th><th>Expected</th><th>Actual</th><th>Rule from</th></tr>",
            escape(&e.label),
            escape(&e.method),
            escape(&e.url),
            escape(&e.endpoint),
            e.expected_status,
            e.status.map_or("no response".into(), |s| s.to_string())
        );
        for f in &e.failures {
            let at = f.at.as_ref().map_or(String::new(), |at| {
                format!(
                    "<br><small><a href=\"{}#L{}\"><code>{}</code></a></small><pre>{}</pre>",
                    escape(&href_from(dir, Path::new(&at.file))),
                    at.line,
                    escape(&at.to_string()),
                    escape(&at.excerpt)
                )
            });
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code>{at}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                f.kind.word(),
                escape(&f.path),
                escape(&f.expected),
                escape(&f.actual),
                escape(&f.source)
            );
        }
        let _ = writeln!(out, "</table><pre>{}</pre>", escape(&e.curl));
    }
    let _ = writeln!(
        out,
        "<details><summary>Transcript</summary><pre>{}</pre></details>",
        escape(&s.transcript)
    );
}

fn scenarios(out: &mut String, report: &Report) {
    out.push_str("<h2>Scenarios</h2>\n<table><tr><th>Verdict</th><th>Scenario</th><th>Tags</th><th>Exchanges</th><th>ms</th><th>Why</th></tr>\n");
    for s in &report.scenarios {
        let class = if s.verdict.fails_run() {
            "fail"
        } else {
            "pass"
        };
        let why = s
            .skip_reason
            .as_deref()
            .or(s.expected_failure.as_deref())
            .unwrap_or("");
        let _ = writeln!(
            out,
            "<tr><td class=\"{class}\">{}</td><td><code>{}</code> {}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td></tr>",
            verdict_word(s.verdict).trim(),
            escape(&s.id),
            escape(&s.title),
            escape(&s.tags.join(", ")),
            s.exchanges.len(),
            s.duration_ms,
            escape(why)
        );
    }
    out.push_str("</table>\n");
}
