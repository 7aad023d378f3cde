//! What a run found, as data: every report is written from these types, and `--rerun-failed`
//! reads them back from the JSON report.

use crate::cassette::locate::Step;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What kind of rule a response broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Another status than the cassette expects, or one the spec does not declare.
    Status,
    /// The body does not match the spec's schema for the endpoint and status.
    Schema,
    /// A declared body missing, not JSON, or sent with another `Content-Type`.
    ContentType,
    /// The body differs from the cassette's expectation.
    Body,
    /// A header differs from the cassette's expectation.
    Header,
    /// A capture found nothing in the response.
    Capture,
    /// A template could not be filled in (a capture an earlier failure left undefined).
    Template,
    /// No answer within the timeout.
    Timeout,
    /// No connection, or it broke off.
    Transport,
    /// An awaited event did not arrive in time, or a delivery failed its checks (signature,
    /// envelope, a repeat of its id with another body).
    Event,
}

impl FailureKind {
    pub fn word(self) -> &'static str {
        match self {
            FailureKind::Status => "status",
            FailureKind::Schema => "schema",
            FailureKind::ContentType => "content-type",
            FailureKind::Body => "body",
            FailureKind::Header => "header",
            FailureKind::Capture => "capture",
            FailureKind::Template => "template",
            FailureKind::Timeout => "timeout",
            FailureKind::Transport => "transport",
            FailureKind::Event => "event",
        }
    }
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    /// Where in the response: a JSON path of the body, `status`, or `header NAME`.
    pub path: String,
    pub expected: String,
    pub actual: String,
    /// Where the rule comes from: `document`, `deployed_client` or `toolkit`.
    pub source: String,
    /// Where the cassette writes the expectation that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Location>,
    /// Where, within its exchange, the cassette writes what failed (`expect`, `body`,
    /// `data`, 0): set by what made the failure; empty for the place its kind implies.
    #[serde(skip)]
    pub written: Vec<Step>,
}

/// A place in a cassette, with its line as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub excerpt: String,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

impl Failure {
    /// A failure no cassette line is known for yet.
    pub fn new(
        kind: FailureKind,
        path: &str,
        expected: &str,
        actual: &str,
        source: &str,
    ) -> Failure {
        Failure {
            kind,
            path: path.to_string(),
            expected: expected.to_string(),
            actual: actual.to_string(),
            source: source.to_string(),
            at: None,
            written: Vec::new(),
        }
    }

    /// The failure, written at `steps` of its exchange.
    pub fn written_at(mut self, steps: Vec<Step>) -> Failure {
        self.written = steps;
        self
    }

    /// Where, within its exchange, the cassette writes what failed: what made the failure
    /// said so, else the place of its kind (a rule of the spec at the expected status, a
    /// request that could not be sent at the request).
    pub fn place_in_exchange(&self) -> Vec<Step> {
        if !self.written.is_empty() {
            return self.written.clone();
        }
        let steps: &[&str] = match self.kind {
            FailureKind::Status
            | FailureKind::Schema
            | FailureKind::ContentType
            | FailureKind::Header => &["expect", "status"],
            FailureKind::Body => &["expect", "body"],
            FailureKind::Capture => &["capture"],
            FailureKind::Event => &["events"],
            FailureKind::Template | FailureKind::Timeout | FailureKind::Transport => &["request"],
        };
        steps.iter().map(|&s| Step::from(s)).collect()
    }

    fn redact(&mut self, redactor: &crate::secrets::Redactor) {
        redactor.apply(&mut self.path);
        redactor.apply(&mut self.expected);
        redactor.apply(&mut self.actual);
    }

    /// `schema $.created_on: expected …, got …`: how every report states a failure.
    pub fn summary(&self) -> String {
        let kind = self.kind.word();
        let place = if self.path == kind {
            String::new()
        } else {
            format!(" {}", self.path)
        };
        format!(
            "{kind}{place}: expected {}, got {}",
            self.expected, self.actual
        )
    }
}

impl std::fmt::Display for Failure {
    /// The summary and where the rule comes from.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{}]", self.summary(), self.source)
    }
}

/// Whether a scenario (or exchange) held, by the run's judgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed,
    /// Failed, and listed as an expected failure.
    ExpectedFailure,
    /// Listed as an expected failure, yet passed: the list needs updating.
    UnexpectedPass,
    /// Not reached: an earlier exchange failed, or the run stopped (`--fail-fast`).
    Skipped,
}

impl Verdict {
    /// Whether this verdict fails the run.
    pub fn fails_run(self) -> bool {
        matches!(self, Verdict::Failed | Verdict::UnexpectedPass)
    }
}

/// One exchange as sent and received, secrets replaced by their references.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExchangeResult {
    pub label: String,
    pub endpoint: String,
    pub method: String,
    pub url: String,
    pub expected_status: u16,
    /// `None` when no response came back.
    pub status: Option<u16>,
    pub verdict: Verdict,
    pub failures: Vec<Failure>,
    pub curl: String,
    pub duration_ms: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioResult {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub file: String,
    pub verdict: Verdict,
    /// Why the scenario is an expected failure, from the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_failure: Option<String>,
    pub exchanges: Vec<ExchangeResult>,
    pub duration_ms: f64,
    /// The normalized transcript (placeholders for volatile values); snapshots compare it.
    pub transcript: String,
    /// Why the scenario was skipped as a whole, when it was for a reason of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
}

/// Which scenarios exercised each declared status of each endpoint, and how many
/// deliveries of each declared event the run received.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Coverage {
    /// Endpoint → declared status as OpenAPI keys it (`404`, `4XX`, `default`) → scenario
    /// ids (empty: declared, not exercised).
    pub matrix: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Event → deliveries received (0: declared, not received); empty when the run
    /// received no events.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub events: BTreeMap<String, usize>,
}

impl Coverage {
    pub fn exercised(&self) -> usize {
        self.cells().filter(|(_, _, s)| !s.is_empty()).count()
    }
    pub fn declared(&self) -> usize {
        self.cells().count()
    }
    pub fn cells(&self) -> impl Iterator<Item = (&str, &str, &[String])> {
        self.matrix.iter().flat_map(|(ep, statuses)| {
            statuses.iter().map(move |(status, scenarios)| {
                (ep.as_str(), status.as_str(), scenarios.as_slice())
            })
        })
    }
}

/// A whole run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// The main API's URL.
    pub target: String,
    /// Every API base of the run by name, with its URL.
    #[serde(default)]
    pub bases: BTreeMap<String, String>,
    pub spec: String,
    pub started_at: String,
    pub duration_ms: f64,
    pub scenarios: Vec<ScenarioResult>,
    pub coverage: Coverage,
    /// Expected-failure entries that name no scenario or exchange of the suite read; the
    /// caller that read the suite fills it in.
    #[serde(default)]
    pub stale_expected_failures: Vec<String>,
    /// Each scenario's snapshot, when the run compared them (`--snapshots DIR`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<SnapshotResult>,
    /// Why the run stopped, when it did: before judging anything (it then holds no
    /// results), or midway when the target was lost (the results before it are kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// A skipped scenario fails the run (`--fail-on-skip`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fail_on_skip: bool,
    /// The name the target gives itself in its `Server` header, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
    /// The expected-failure list read, and whether it describes the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_failures: Option<ExpectedList>,
    /// The webhook deliveries received, when the run listened for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<EventsReport>,
}

/// What the run's webhook receiver got.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EventsReport {
    /// Where deliveries were received.
    pub receiver: String,
    /// How the target was told: subscribed through the spec's endpoint, or configured.
    pub subscription: String,
    /// Each delivery by its id, in order of arrival; repeats counted, not listed.
    pub received: Vec<ReceivedEvent>,
    /// Deliveries refused once the receiver held as many as it keeps.
    #[serde(default)]
    pub refused: usize,
}

/// One delivery, without its payload: a report names events, it does not publish them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReceivedEvent {
    /// The delivery's id (`webhook-id`), when it named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_type: Option<String>,
    /// The spec's event it is, when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Times it arrived again with the same id (at-least-once delivery).
    #[serde(default)]
    pub repeats: usize,
    /// The scenario and exchange whose expectation it met, as `scenario / exchange`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awaited_by: Option<String>,
    pub failures: Vec<Failure>,
}

/// The expected-failure list of a run and whether it applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedList {
    pub file: String,
    /// The implementation it describes, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub describes: Option<String>,
    /// Whether it describes the target, so its entries judged the run.
    pub applied: bool,
}

impl ExpectedList {
    /// `expected failures: FILE (for health-server, which the target is): applied`.
    pub fn sentence(&self, implementation: Option<&str>) -> String {
        let target = implementation
            .map_or("the target names no implementation".to_string(), |name| {
                format!("the target names itself {name}")
            });
        match (&self.describes, self.applied) {
            (Some(listed), true) => format!(
                "expected failures: {} (for {listed}; {target}): applied",
                self.file
            ),
            (Some(listed), false) => format!(
                "expected failures: {} (for {listed}; {target}): not applied",
                self.file
            ),
            (None, true) => format!("expected failures: {}: applied", self.file),
            (None, false) => format!(
                "expected failures: {} names no implementation, and the target is not the reference server: not applied",
                self.file
            ),
        }
    }
}

/// A run that stopped: its exit status (2: usage or cassette errors, 3: the target cannot
/// be reached, or was lost midway) and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    pub exit: u8,
    pub reason: String,
}

/// Counts by verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub expected_failures: usize,
    pub unexpected_passes: usize,
    pub skipped: usize,
    pub exchanges: usize,
}

impl Report {
    /// The report of a run that stopped before judging anything.
    pub fn stopped(spec: &str, bases: BTreeMap<String, String>, exit: u8, reason: &str) -> Report {
        Report {
            target: bases.get("base_url").cloned().unwrap_or_default(),
            bases,
            spec: spec.to_string(),
            started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            duration_ms: 0.0,
            scenarios: Vec::new(),
            coverage: Coverage::default(),
            stale_expected_failures: Vec::new(),
            snapshots: Vec::new(),
            events: None,
            fail_on_skip: false,
            implementation: None,
            expected_failures: None,
            stopped: Some(Stopped {
                exit,
                reason: reason.to_string(),
            }),
        }
    }

    /// `http://a (management_url: http://b)`: the main URL and every other base used.
    pub fn where_run(&self) -> String {
        let others: Vec<String> = self
            .bases
            .iter()
            .filter(|(name, url)| *name != "base_url" && **url != self.target)
            .map(|(name, url)| format!("{name}: {url}"))
            .collect();
        if others.is_empty() {
            self.target.clone()
        } else {
            format!("{} ({})", self.target, others.join(", "))
        }
    }

    /// Replaces every secret the redactor knows, in every text the report holds.
    pub fn redact(&mut self, redactor: &crate::secrets::Redactor) {
        for scenario in &mut self.scenarios {
            redactor.apply(&mut scenario.transcript);
            for exchange in &mut scenario.exchanges {
                redactor.apply(&mut exchange.url);
                redactor.apply(&mut exchange.curl);
                exchange
                    .failures
                    .iter_mut()
                    .for_each(|f| f.redact(redactor));
            }
        }
        for event in self.events.iter_mut().flat_map(|e| &mut e.received) {
            event.failures.iter_mut().for_each(|f| f.redact(redactor));
        }
    }

    pub fn tally(&self) -> Tally {
        let mut t = Tally::default();
        for s in &self.scenarios {
            match s.verdict {
                Verdict::Passed => t.passed += 1,
                Verdict::Failed => t.failed += 1,
                Verdict::ExpectedFailure => t.expected_failures += 1,
                Verdict::UnexpectedPass => t.unexpected_passes += 1,
                Verdict::Skipped => t.skipped += 1,
            }
            t.exchanges += s.exchanges.iter().filter(|e| e.status.is_some()).count();
        }
        t
    }

    /// Deliveries that failed their checks.
    pub fn failed_deliveries(&self) -> usize {
        self.events.as_ref().map_or(0, |e| {
            e.received.iter().filter(|r| !r.failures.is_empty()).count()
        })
    }
}

/// What became of one scenario's snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum SnapshotOutcome {
    Matched,
    /// There was none; it was written.
    Written,
    /// It differed and was overwritten (`--update-snapshots`).
    Updated,
    /// There was none, and in CI that fails; `.snap.new` holds the transcript.
    Missing {
        new: String,
    },
    /// It differs; `.snap.new` holds the transcript, `diff` the change.
    Differs {
        new: String,
        diff: String,
    },
}

impl SnapshotOutcome {
    pub fn fails_run(&self) -> bool {
        matches!(
            self,
            SnapshotOutcome::Missing { .. } | SnapshotOutcome::Differs { .. }
        )
    }
}

/// One scenario's snapshot and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotResult {
    pub id: String,
    pub file: String,
    #[serde(flatten)]
    pub outcome: SnapshotOutcome,
}

/// A scenario id as a file name: `/` and other awkward characters become `_`.
pub fn file_stem(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
