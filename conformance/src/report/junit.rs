//! JUnit XML as GitHub and GitLab read it: one `testcase` per scenario, a `failure` naming
//! the exchange, expected failures as `skipped` with their reason.

use crate::outcome::SnapshotOutcome;
use crate::outcome::{Report, ScenarioResult, Stopped, Verdict};
use std::fmt::Write;

pub fn render(report: &Report) -> String {
    if let Some(s) = &report.stopped
        && report.scenarios.is_empty()
    {
        return stopped(report, s);
    }
    let mut cases = Cases::default();
    for s in &report.scenarios {
        testcase(&mut cases, report, s);
    }
    deliveries(&mut cases, report);
    run_case(&mut cases, report);
    let seconds = report.duration_ms / 1000.0;
    let Cases {
        tests,
        failures,
        errors,
        skipped,
        text,
    } = cases;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(
        "tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{seconds:.3}\""
    );
    let _ = writeln!(out, "<testsuites name=\"conform\" {counts}>");
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" {counts} timestamp=\"{}\">",
        escape(&report.spec),
        escape(report.started_at.trim_end_matches('Z'))
    );
    properties(&mut out, report);
    out.push_str(&text);
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// The test cases written so far, with their counts by outcome.
#[derive(Default)]
struct Cases {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    text: String,
}

impl Cases {
    /// Adds one test case: its opening attributes and what it holds (`None`: it passed).
    fn add(&mut self, attributes: &str, outcome: Option<Outcome>) {
        self.tests += 1;
        let Some(outcome) = outcome else {
            let _ = writeln!(self.text, "    <testcase {attributes}/>");
            return;
        };
        match outcome.kind {
            OutcomeKind::Failure => self.failures += 1,
            OutcomeKind::Error => self.errors += 1,
            OutcomeKind::Skipped => self.skipped += 1,
        }
        let _ = write!(
            self.text,
            "    <testcase {attributes}>\n{}    </testcase>\n",
            outcome.elements
        );
    }
}

/// What a test case that did not simply pass holds.
struct Outcome {
    kind: OutcomeKind,
    elements: String,
}

enum OutcomeKind {
    Failure,
    Error,
    Skipped,
}

/// One test case for the run itself, failing for what no scenario carries: a run that
/// exercised nothing, skips under `--fail-on-skip`, a target lost midway.
fn run_case(cases: &mut Cases, report: &Report) {
    use crate::verdict::Cause;
    let verdict = report.verdict();
    let mut elements = String::new();
    let mut kind = None;
    for cause in &verdict.causes {
        let (element, cause_kind) = match cause {
            Cause::Stopped { exit, reason } => (
                format!(
                    "      <error message=\"{}\" type=\"exit-{exit}\">{}</error>\n",
                    escape(&cause.sentence()),
                    escape(reason)
                ),
                OutcomeKind::Error,
            ),
            Cause::NothingExercised { .. } | Cause::Skipped(_) => (
                format!(
                    "      <failure message=\"{}\" type=\"run\"/>\n",
                    escape(&cause.sentence())
                ),
                OutcomeKind::Failure,
            ),
            _ => continue,
        };
        elements.push_str(&element);
        kind = Some(match (kind, cause_kind) {
            (Some(OutcomeKind::Error), _) | (_, OutcomeKind::Error) => OutcomeKind::Error,
            _ => OutcomeKind::Failure,
        });
    }
    // A run with nothing to say of itself adds no test case.
    if let Some(kind) = kind {
        let attributes = "classname=\"conform\" name=\"run\" time=\"0\"";
        cases.add(attributes, Some(Outcome { kind, elements }));
    }
}

/// One test case for the webhook deliveries, failing with each delivery that failed its
/// checks.
fn deliveries(cases: &mut Cases, report: &Report) {
    let Some(events) = &report.events else {
        return;
    };
    let attributes = format!(
        "classname=\"{}.webhooks\" name=\"webhook deliveries\" time=\"0\"",
        escape(&report.spec)
    );
    let failed: Vec<_> = events
        .received
        .iter()
        .filter(|e| !e.failures.is_empty())
        .collect();
    if failed.is_empty() {
        cases.add(&attributes, None);
        return;
    }
    let mut elements = format!(
        "      <failure message=\"{} deliveries failed their checks\">",
        failed.len()
    );
    for event in failed {
        let _ = writeln!(
            elements,
            "{} ({})",
            escape(event.id.as_deref().unwrap_or("without an id")),
            escape(event.event_type.as_deref().unwrap_or("no event type"))
        );
        for f in &event.failures {
            let _ = writeln!(elements, "  {}", escape(&f.to_string()));
        }
    }
    elements.push_str("</failure>\n");
    let kind = OutcomeKind::Failure;
    cases.add(&attributes, Some(Outcome { kind, elements }));
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
    if let Some(name) = &report.implementation {
        let _ = writeln!(
            out,
            "      <property name=\"implementation\" value=\"{}\"/>",
            escape(name)
        );
    }
    if let Some(list) = &report.expected_failures {
        let _ = writeln!(
            out,
            "      <property name=\"expected_failures\" value=\"{}\"/>",
            escape(&list.sentence(report.implementation.as_deref()))
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

fn testcase(cases: &mut Cases, report: &Report, s: &ScenarioResult) {
    let (area, name) = area_and_name(s);
    let line = s
        .exchanges
        .iter()
        .flat_map(|e| &e.failures)
        .find_map(|f| f.at.as_ref())
        .map(|at| format!(" line=\"{}\"", at.line))
        .unwrap_or_default();
    let attributes = format!(
        "classname=\"{}\" name=\"{}\" file=\"{}\"{line} time=\"{:.3}\"",
        escape(&format!("{}.{area}", report.spec)),
        escape(&name),
        escape(&s.file),
        s.duration_ms / 1000.0
    );
    let mut elements = String::new();
    let mut kind = match s.verdict {
        Verdict::Passed => None,
        Verdict::Failed => {
            failed_exchanges(&mut elements, s);
            Some(OutcomeKind::Failure)
        }
        Verdict::UnexpectedPass => {
            let _ = writeln!(
                elements,
                "      <failure message=\"{}\" type=\"unexpected-pass\"/>",
                escape(&format!(
                    "listed as an expected failure ({}) but passed",
                    s.expected_failure.as_deref().unwrap_or("")
                ))
            );
            Some(OutcomeKind::Failure)
        }
        Verdict::ExpectedFailure => {
            let _ = writeln!(
                elements,
                "      <skipped message=\"{}\"/>",
                escape(&format!(
                    "expected failure: {}",
                    s.expected_failure.as_deref().unwrap_or("")
                ))
            );
            Some(OutcomeKind::Skipped)
        }
        Verdict::Skipped => {
            let reason = s.skip_reason.as_deref().unwrap_or("not run");
            let _ = writeln!(elements, "      <skipped message=\"{}\"/>", escape(reason));
            Some(OutcomeKind::Skipped)
        }
    };
    // A differing or missing snapshot fails the scenario's test case, with its diff.
    if let Some(snapshot) = report.snapshots.iter().find(|snap| snap.id == s.id)
        && snapshot.outcome.fails_run()
    {
        let (message, body) = match &snapshot.outcome {
            SnapshotOutcome::Differs { new, diff } => (
                format!("snapshot differs: {} (new: {new})", snapshot.file),
                diff.clone(),
            ),
            SnapshotOutcome::Missing { new } => (
                format!(
                    "snapshot missing: {} (CI is set; the transcript is in {new})",
                    snapshot.file
                ),
                String::new(),
            ),
            _ => unreachable!("only a missing or differing snapshot fails the run"),
        };
        // A failure outweighs a skip (an expected failure): JUnit readers count each test
        // case once, so it holds the failure alone.
        if matches!(kind, None | Some(OutcomeKind::Skipped)) {
            elements.clear();
            kind = Some(OutcomeKind::Failure);
        }
        let _ = writeln!(
            elements,
            "      <failure message=\"{}\" type=\"snapshot\">{}</failure>",
            escape(&message),
            escape(&body)
        );
    }
    cases.add(&attributes, kind.map(|kind| Outcome { kind, elements }));
}

/// A `failure` for each failed exchange, naming it and where the cassette wrote the rule.
fn failed_exchanges(elements: &mut String, s: &ScenarioResult) {
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
            elements,
            "      <failure message=\"{}\" type=\"{}\">{}</failure>",
            escape(&message),
            first.map_or("failure", |f| f.kind.word()),
            escape(&body)
        );
    }
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
