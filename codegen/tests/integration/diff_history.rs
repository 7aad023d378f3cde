//! `diff` replayed over the project's own history: every commit on the first-parent line of
//! HEAD that changed the service spec, diffed against its parent. Entries are keyed by the
//! spec's blob ids (known before a commit is made), and kept as a reviewed snapshot, so a
//! spec change shows its findings in review.

use covenant_codegen::diff::{self, Options, Side};
use covenant_codegen::{SourceFile, Spec};
use std::path::{Path, PathBuf};
use std::process::Command;

const SPEC: &str = "spec/health.covenant";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repository())
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A version of the spec by blob id, checked; why not when it does not check.
fn version(blob: &str) -> Result<(SourceFile, Spec), String> {
    let text = git(&["cat-file", "blob", blob]).ok_or("unreadable")?;
    let file = SourceFile::new(format!("{SPEC}@{blob}"), text);
    let checked = covenant_codegen::check_source(&file);
    let first_error = |file: &SourceFile| {
        checked
            .diagnostics
            .items
            .iter()
            .find(|d| d.severity == covenant_codegen::Severity::Error)
            .map(|d| format!("{} at {}", d.message, file.location(d.span)))
            .unwrap_or_default()
    };
    match checked.spec {
        Some(spec) => Ok((file, spec)),
        None => Err(first_error(&file)),
    }
}

#[test]
fn diff_over_the_history_of_the_service_spec() {
    if git(&["rev-parse", "--is-shallow-repository"]).as_deref() == Some("true\n") {
        eprintln!("skipped: a shallow clone has no history to replay");
        return;
    }
    // `--raw` lines name the blob before and after: `:100644 100644 <old> <new> M\tpath`.
    let log = git(&[
        "log",
        "--first-parent",
        "--reverse",
        "--format=%H",
        "--raw",
        "--no-abbrev",
        "--",
        SPEC,
    ])
    .expect("git log runs in the repository");
    let mut out = String::new();
    for line in log.lines().filter(|l| l.starts_with(':')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (before, after) = (&fields[2][..12], &fields[3][..12]);
        out.push_str(&format!("{before} → {after}\n"));
        if before.chars().all(|c| c == '0') {
            out.push_str("    the spec is added\n");
            continue;
        }
        match (version(before), version(after)) {
            (Ok(old), Ok(new)) => {
                let findings = diff::diff(
                    Side {
                        spec: &old.1,
                        file: &old.0,
                    },
                    Side {
                        spec: &new.1,
                        file: &new.0,
                    },
                    &Options {
                        today: "2026-11-25".into(),
                    },
                );
                for f in &findings {
                    out.push_str(&format!("    {} {}: {}\n", f.rule.id, f.subject, f.change));
                }
                if findings.is_empty() {
                    out.push_str("    no changes\n");
                }
            }
            (Err(why), _) => out.push_str(&format!("    the old version does not check: {why}\n")),
            (_, Err(why)) => out.push_str(&format!("    the new version does not check: {why}\n")),
        }
    }
    insta::assert_snapshot!("diff_history", out);
}
