//! JUnit XML as GitHub and GitLab read it: one `testcase` per scenario, a `failure` naming
//! the exchange, expected failures as `skipped` with their reason.

use crate::outcome::{Report, ScenarioResult, Stopped, Verdict};
use std::fmt::Write;

pub fn render(report: &Report) -> String {
    if let Some(s) = &report.stopped {
        return stopped(report, s);
    }
    let t = report.tally();
    let deliveries_failed = usize::from(report.failed_deliveries() > 0);
    let failures = t.failed + t.unexpected_passes + deliveries_failed;
    let skipped = t.skipped + t.expected_failures;
    let seconds = report.duration_ms / 1000.0;
    let tests = report.scenarios.len() + usize::from(report.events.is_some());
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"conform\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{seconds:.3}\">",
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{seconds:.3}\" timestamp=\"{}\">",
        escape(&report.spec),
        escape(report.started_at.trim_end_matches('Z'))
    );
    properties(&mut out, report);
    for s in &report.scenarios {
        testcase(&mut out, &report.spec, s);
    }
    deliveries(&mut out, report);
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// One test case for the webhook deliveries, failing with each delivery that failed its
/// checks.
fn deliveries(out: &mut String, report: &Report) {
    let Some(events) = &report.events else {
        return;
    };
    let _ = write!(
        out,
        "    <testcase classname=\"{}.webhooks\" name=\"webhook deliveries\" time=\"0\"",
        escape(&report.spec)
    );
    let failed: Vec<_> = events
        .received
        .iter()
        .filter(|e| !e.failures.is_empty())
        .collect();
    if failed.is_empty() {
        out.push_str("/>\n");
        return;
    }
    let _ = writeln!(
        out,
        ">\n      <failure message=\"{} deliveries failed their checks\">",
        failed.len()
    );
    for event in failed {
        let _ = writeln!(
            out,
            "{} ({})",
            escape(event.id.as_deref().unwrap_or("without an id")),
            escape(event.event_type.as_deref().unwrap_or("no event type"))
        );
        for f in &event.failures {
            let _ = writeln!(out, "  {}", escape(&f.to_string()));
        }
    }
    out.push_str("      </failure>\n    </testcase>\n");
}

/// Every base the run used, so a CI page says where it ran.
fn properties(out: &mut String, report: &Report) {
    out.push_str("    <properties>\n");
    for (name, url) in &report.bases {
        let _ = writeln!(
            out,
            "      <property name=\"base.{}\" value=\"{}\"/>",
            escape(name),
            escape(url)
        );
    }
    out.push_str("    </properties>\n");
}

/// A run that judged nothing: one test case in error, saying why, so CI shows red.
fn stopped(report: &Report, stopped: &Stopped) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"conform\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n  <testsuite name=\"{}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\" timestamp=\"{}\">",
        escape(&report.spec),
        escape(report.started_at.trim_end_matches('Z'))
    );
    properties(&mut out, report);
    let _ = writeln!(
        out,
        "    <testcase classname=\"conform\" name=\"run\" time=\"0\">\n      <error message=\"{}\" type=\"exit-{}\">{}</error>\n    </testcase>\n  </testsuite>\n</testsuites>",
        escape(stopped.reason.lines().last().unwrap_or_default()),
        stopped.exit,
        escape(&stopped.reason)
    );
    out
}

/// A scenario's area (the first segment of its id, else its first tag) and its name
/// within it, so CI groups `users/create` under `users` as `create`.
pub fn area_and_name(s: &ScenarioResult) -> (String, String) {
    match s.id.split_once('/') {
        Some((area, name)) => (area.to_string(), name.to_string()),
        None => (
            s.tags.first().cloned().unwrap_or_else(|| "conform".into()),
            s.id.clone(),
        ),
    }
}

fn testcase(out: &mut String, spec: &str, s: &ScenarioResult) {
    let (area, name) = area_and_name(s);
    let line = s
        .exchanges
        .iter()
        .flat_map(|e| &e.failures)
        .find_map(|f| f.at.as_ref())
        .map(|at| format!(" line=\"{}\"", at.line))
        .unwrap_or_default();
    let _ = write!(
        out,
        "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\"{line} time=\"{:.3}\"",
        escape(&format!("{spec}.{area}")),
        escape(&name),
        escape(&s.file),
        s.duration_ms / 1000.0
    );
    match s.verdict {
        Verdict::Passed => {
            out.push_str("/>\n");
            return;
        }
        _ => out.push_str(">\n"),
    }
    match s.verdict {
        Verdict::Failed => {
            for e in s.exchanges.iter().filter(|e| e.verdict == Verdict::Failed) {
                let first = e.failures.first();
                let message = format!(
                    "exchange {} ({}): {}{}",
                    e.label,
                    e.endpoint,
                    first.map_or(String::new(), |f| f.summary()),
                    first
                        .and_then(|f| f.at.as_ref())
                        .map_or(String::new(), |at| format!(" at {at}"))
                );
                let mut body = format!("{}: {}\n", s.id, s.title);
                for f in &e.failures {
                    let _ = writeln!(body, "{f}");
                    if let Some(at) = &f.at {
                        let _ = writeln!(body, "  at {at}: {}", at.excerpt.trim());
                    }
                }
                let _ = writeln!(body, "reproduce: {}", e.curl);
                let _ = writeln!(
                    out,
                    "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                    escape(&message),
                    first.map_or("failure", |f| f.kind.word()),
                    escape(&body)
                );
            }
        }
        Verdict::UnexpectedPass => {
            let _ = writeln!(
                out,
                "      <failure message=\"{}\" type=\"unexpected-pass\"/>",
                escape(&format!(
                    "listed as an expected failure ({}) but passed",
                    s.expected_failure.as_deref().unwrap_or("")
                ))
            );
        }
        Verdict::ExpectedFailure => {
            let _ = writeln!(
                out,
                "      <skipped message=\"{}\"/>",
                escape(&format!(
                    "expected failure: {}",
                    s.expected_failure.as_deref().unwrap_or("")
                ))
            );
        }
        Verdict::Skipped => out.push_str("      <skipped message=\"not run\"/>\n"),
        Verdict::Passed => {}
    }
    out.push_str("    </testcase>\n");
}

/// Escapes text for XML attributes and content; drops characters XML 1.0 forbids.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}
