//! Snapshot testing of transcripts for any implementation: each scenario's normalized
//! transcript is compared with `DIR/<id>.snap`, in insta's file format, so `cargo insta
//! review` walks through the differences. As insta does: a missing snapshot is written and
//! passes (it fails when `CI` is set); a differing one is written beside it as
//! `<id>.snap.new` and fails; accepting (`--update-snapshots`) overwrites.

use crate::outcome::{Report, SnapshotOutcome, SnapshotResult, Verdict, file_stem};
use std::path::{Path, PathBuf};

/// How snapshots are compared and written.
#[derive(Clone, Debug)]
pub struct SnapshotSettings {
    pub dir: PathBuf,
    /// Overwrite differing and missing snapshots, and pass.
    pub update: bool,
    /// Running in CI: a missing snapshot fails instead of being written.
    pub ci: bool,
}

impl SnapshotSettings {
    /// `CI` set to anything but `false` or `0` means a CI run, as insta reads it.
    pub fn ci_from_env() -> bool {
        std::env::var("CI").is_ok_and(|v| v != "false" && v != "0")
    }
}

/// Compares (and writes) the snapshot of every scenario that ran.
pub fn check_all(
    report: &Report,
    settings: &SnapshotSettings,
) -> std::io::Result<Vec<SnapshotResult>> {
    std::fs::create_dir_all(&settings.dir)?;
    let mut out = Vec::new();
    for scenario in report
        .scenarios
        .iter()
        .filter(|s| s.verdict != Verdict::Skipped)
    {
        let file = settings
            .dir
            .join(format!("{}.snap", file_stem(&scenario.id)));
        let outcome = check_one(&file, &scenario.id, &scenario.transcript, settings)?;
        out.push(SnapshotResult {
            id: scenario.id.clone(),
            file: file.display().to_string(),
            outcome,
        });
    }
    Ok(out)
}

fn check_one(
    file: &Path,
    id: &str,
    transcript: &str,
    settings: &SnapshotSettings,
) -> std::io::Result<SnapshotOutcome> {
    let new_file = PathBuf::from(format!("{}.new", file.display()));
    let old = match std::fs::read_to_string(file) {
        Ok(text) => Some(contents(&text).to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let now = transcript.trim_end();
    let outcome = match old {
        Some(old) if old.trim_end() == now => SnapshotOutcome::Matched,
        None if settings.ci && !settings.update => {
            write(&new_file, id, now)?;
            return Ok(SnapshotOutcome::Missing {
                new: new_file.display().to_string(),
            });
        }
        None => {
            write(file, id, now)?;
            SnapshotOutcome::Written
        }
        Some(_) if settings.update => {
            write(file, id, now)?;
            SnapshotOutcome::Updated
        }
        Some(old) => {
            write(&new_file, id, now)?;
            return Ok(SnapshotOutcome::Differs {
                new: new_file.display().to_string(),
                diff: diff(old.trim_end(), now),
            });
        }
    };
    remove_if_there(&new_file)?;
    Ok(outcome)
}

/// The text after insta's metadata header (`---` … `---`).
fn contents(file_text: &str) -> &str {
    let Some(rest) = file_text.strip_prefix("---\n") else {
        return file_text;
    };
    match rest.find("\n---\n") {
        Some(end) => &rest[end + "\n---\n".len()..],
        None => file_text,
    }
}

/// Writes a snapshot in insta's format: a metadata header, then the transcript.
fn write(file: &Path, id: &str, transcript: &str) -> std::io::Result<()> {
    let header = format!(
        "---\nsource: conform\nexpression: {}\n---\n",
        serde_json::Value::String(format!("transcript of {id}"))
    );
    std::fs::write(file, format!("{header}{transcript}\n"))
}

fn remove_if_there(file: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// A unified diff of the snapshot (`-`) and the transcript (`+`), three lines of context.
fn diff(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("snapshot", "transcript")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_follow_insta_header() {
        let text = "---\nsource: tests/integration/conform.rs\nexpression: x\n---\n## a\nb\n";
        assert_eq!(contents(text), "## a\nb\n");
    }

    fn settings(dir: &Path, update: bool, ci: bool) -> SnapshotSettings {
        SnapshotSettings {
            dir: dir.to_path_buf(),
            update,
            ci,
        }
    }

    #[test]
    fn written_matched_differs_then_updated() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.snap");
        let s = settings(dir.path(), false, false);
        assert_eq!(
            check_one(&file, "a", "one\n", &s).unwrap(),
            SnapshotOutcome::Written
        );
        assert_eq!(
            check_one(&file, "a", "one", &s).unwrap(),
            SnapshotOutcome::Matched
        );
        let SnapshotOutcome::Differs { diff, new } = check_one(&file, "a", "two", &s).unwrap()
        else {
            panic!("differs")
        };
        assert!(diff.contains("-one") && diff.contains("+two"), "{diff}");
        assert!(Path::new(&new).exists());
        let update = settings(dir.path(), true, false);
        assert_eq!(
            check_one(&file, "a", "two", &update).unwrap(),
            SnapshotOutcome::Updated
        );
        assert!(!Path::new(&new).exists());
        assert_eq!(
            check_one(&file, "a", "two", &s).unwrap(),
            SnapshotOutcome::Matched
        );
    }

    #[test]
    fn a_missing_snapshot_fails_in_ci() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("b.snap");
        let ci = settings(dir.path(), false, true);
        assert!(check_one(&file, "b", "x", &ci).unwrap().fails_run());
        assert!(!file.exists());
    }
}
