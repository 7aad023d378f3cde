//! Whether a run passes, and every reason it does not. The console summary, `junit.xml`,
//! `report.html` and the exit status are all written from this one account, so no report
//! shows green for a run that exits red.

use crate::outcome::SnapshotOutcome;
use crate::outcome::{Report, Verdict};

/// Exit status of a run with conformance failures or differing snapshots.
pub const EXIT_FAILURES: u8 = 1;
/// Exit status of a run that could not judge what it was asked to: usage or cassette
/// errors, nothing selected, or nothing exercised.
pub const EXIT_USAGE: u8 = 2;
/// Exit status of a run whose target could not be reached, or was lost midway.
pub const EXIT_UNREACHABLE: u8 = 3;

/// One reason a run does not pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The run stopped: before judging anything, or midway (the target was lost).
    Stopped { exit: u8, reason: String },
    /// Scenarios failed.
    Failed(usize),
    /// Scenarios listed as expected failures passed.
    UnexpectedPasses(usize),
    /// Snapshots differ from the transcripts.
    SnapshotsDiffer(usize),
    /// Snapshots missing where CI is set.
    SnapshotsMissing(usize),
    /// Webhook deliveries failed their checks.
    Deliveries(usize),
    /// Every selected scenario was skipped: the run exercised nothing.
    NothingExercised { skipped: usize },
    /// Scenarios were skipped, and the run was told to fail on a skip (`--fail-on-skip`).
    Skipped(usize),
}

impl Cause {
    /// The cause as the reports word it.
    pub fn sentence(&self) -> String {
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match self {
            Cause::Stopped { reason, .. } => format!("stopped: {}", last_line(reason)),
            Cause::Failed(n) => count(*n, "scenario failed", "scenarios failed"),
            Cause::UnexpectedPasses(n) => count(
                *n,
                "expected failure passed (remove it from the list)",
                "expected failures passed (remove them from the list)",
            ),
            Cause::SnapshotsDiffer(n) => count(*n, "snapshot differs", "snapshots differ"),
            Cause::SnapshotsMissing(n) => count(
                *n,
                "snapshot missing (CI is set)",
                "snapshots missing (CI is set)",
            ),
            Cause::Deliveries(n) => count(
                *n,
                "webhook delivery failed its checks",
                "webhook deliveries failed their checks",
            ),
            Cause::NothingExercised { skipped } => format!(
                "nothing was exercised: every one of the {skipped} selected scenarios was skipped"
            ),
            Cause::Skipped(n) => format!(
                "{} (--fail-on-skip)",
                count(*n, "scenario skipped", "scenarios skipped")
            ),
        }
    }

    /// The exit status this cause alone calls for.
    pub fn exit(&self) -> u8 {
        match self {
            Cause::Stopped { exit, .. } => *exit,
            Cause::NothingExercised { .. } => EXIT_USAGE,
            _ => EXIT_FAILURES,
        }
    }
}

/// A run's verdict: passed when it has no cause to fail.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunVerdict {
    pub causes: Vec<Cause>,
}

impl RunVerdict {
    pub fn passed(&self) -> bool {
        self.causes.is_empty()
    }

    /// The exit status: a stop's own (3 for a lost target), else 2 when nothing was
    /// exercised, else 1 for any failure; 0 when the run passed.
    pub fn exit(&self) -> u8 {
        let stopped = self.causes.iter().find_map(|c| match c {
            Cause::Stopped { exit, .. } => Some(*exit),
            _ => None,
        });
        stopped
            .or_else(|| self.causes.iter().map(Cause::exit).max())
            .unwrap_or(0)
    }

    /// `passed`, or `FAILED: 2 scenarios failed; 1 snapshot differs`.
    pub fn headline(&self) -> String {
        if self.passed() {
            return "passed".into();
        }
        let causes: Vec<String> = self.causes.iter().map(Cause::sentence).collect();
        format!("FAILED: {}", causes.join("; "))
    }
}

impl Report {
    /// Every reason the run does not pass, in the order a reader needs them.
    pub fn verdict(&self) -> RunVerdict {
        let mut causes = Vec::new();
        if let Some(stopped) = &self.stopped {
            causes.push(Cause::Stopped {
                exit: stopped.exit,
                reason: stopped.reason.clone(),
            });
        }
        let t = self.tally();
        let differ = self
            .snapshots
            .iter()
            .filter(|s| matches!(s.outcome, SnapshotOutcome::Differs { .. }))
            .count();
        let missing = self
            .snapshots
            .iter()
            .filter(|s| matches!(s.outcome, SnapshotOutcome::Missing { .. }))
            .count();
        let counted = [
            (t.failed, Cause::Failed(t.failed)),
            (
                t.unexpected_passes,
                Cause::UnexpectedPasses(t.unexpected_passes),
            ),
            (differ, Cause::SnapshotsDiffer(differ)),
            (missing, Cause::SnapshotsMissing(missing)),
            (
                self.failed_deliveries(),
                Cause::Deliveries(self.failed_deliveries()),
            ),
        ];
        causes.extend(counted.into_iter().filter(|(n, _)| *n > 0).map(|(_, c)| c));
        let all_skipped = self.scenarios.iter().all(|s| s.verdict == Verdict::Skipped);
        if self.stopped.is_none() && all_skipped {
            causes.push(Cause::NothingExercised { skipped: t.skipped });
        } else if self.fail_on_skip && t.skipped > 0 {
            causes.push(Cause::Skipped(t.skipped));
        }
        RunVerdict { causes }
    }

    /// Whether the run passes: it ran, exercised something, and nothing failed.
    pub fn passed(&self) -> bool {
        self.verdict().passed()
    }
}

/// A multi-line reason ends with its summary (`3 cassette errors; nothing was sent`).
fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
}
