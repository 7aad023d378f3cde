//! What a run reads besides the cassettes: the expected-failure list and which of it
//! applies, an earlier report's durations and failures, and the words for a selection
//! that holds nothing.

use super::{Settings, Stop};
use crate::known_failures::ExpectedFailures;
use crate::outcome::ExpectedList;
use crate::{Report, report, select};
use std::path::{Path, PathBuf};

/// The expected-failure list read when it exists and none is named.
pub(super) const DEFAULT_EXPECTED: &str = "conformance/expected-failures.toml";

/// The list named, else the project's own list when there is one, with its file.
pub fn load_expected(path: Option<&Path>) -> Result<Option<(PathBuf, ExpectedFailures)>, Stop> {
    let path = match path {
        Some(p) => p.to_path_buf(),
        None if Path::new(DEFAULT_EXPECTED).exists() => PathBuf::from(DEFAULT_EXPECTED),
        None => return Ok(None),
    };
    let list = ExpectedFailures::read(&path).map_err(Stop::Usage)?;
    Ok(Some((path, list)))
}

/// The list that judges this run: one describes the implementation it names, whoever
/// started it. A list naming none describes the target it is named for (`named`), and the
/// project's own list (read unnamed) the reference server's own run only.
pub fn applicable(
    list: Option<(PathBuf, ExpectedFailures)>,
    implementation: Option<&str>,
    named: bool,
    reference_run: bool,
) -> (ExpectedFailures, Option<ExpectedList>) {
    let Some((path, list)) = list else {
        return (ExpectedFailures::default(), None);
    };
    let applied = match &list.implementation {
        Some(_) => list.describes(implementation),
        None => named || reference_run,
    };
    let used = ExpectedList {
        file: path.display().to_string(),
        describes: list.implementation.clone(),
        applied,
    };
    let list = if applied {
        list
    } else {
        ExpectedFailures::default()
    };
    (list, Some(used))
}

/// Each scenario's duration in the report.json at `path`.
pub fn read_durations(path: &Path) -> Result<select::Durations, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--durations {}: cannot read: {e}", path.display()))?;
    let report: Report = serde_json::from_str(&text).map_err(|e| {
        format!(
            "--durations {}: not a report.json of conform: {e}",
            path.display()
        )
    })?;
    Ok(report
        .scenarios
        .into_iter()
        .map(|s| (s.id, s.duration_ms))
        .collect())
}

/// The ids of the scenarios that failed in the last report of `dir`.
pub fn last_failures(dir: &Path) -> Result<Vec<String>, String> {
    let report = report::read_json(dir)?;
    if let Some(stopped) = &report.stopped {
        return Err(format!(
            "--rerun-failed: the last run judged nothing ({}); run the suite first",
            stopped.reason.lines().last().unwrap_or_default()
        ));
    }
    Ok(report
        .scenarios
        .into_iter()
        .filter(|s| s.verdict.fails_run())
        .map(|s| s.id)
        .collect())
}

/// Why the selection is empty, in the words of the options that made it so.
pub fn nothing_selected(settings: &Settings) -> String {
    let mut why = Vec::new();
    if settings.rerun_failed {
        why.push(format!(
            "--rerun-failed: no scenario failed in the last report of {}",
            settings.report_dir.display()
        ));
    }
    if let Some(shard) = settings.shard {
        why.push(format!(
            "--shard {}/{} holds none of the scenarios selected",
            shard.index, shard.count
        ));
    }
    if why.is_empty() {
        why.push("no scenario matches the filters".into());
    }
    format!("no scenario selected, nothing to run: {}", why.join("; "))
}

/// Every cassette problem, one per line, and the count.
pub fn listed(errors: &[impl std::fmt::Display]) -> String {
    let mut text = String::new();
    for e in errors {
        text.push_str(&format!("{e}\n"));
    }
    text.push_str(&format!(
        "{} cassette error{}; nothing was sent",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    ));
    text
}
