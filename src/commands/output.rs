//! Writing a tree of generated files into a folder, or checking that it is up to date:
//! shared by `generate`, `docs` and `cassettes`.

use super::{EXIT_INVALID, EXIT_USAGE};
use covenant_codegen::emit::Files;
use covenant_project::sync::Plan;
use std::path::Path;
use std::process::ExitCode;

/// Writes `files` into `out` (removing stale files of the `managed` folders), or with `check`
/// only reports what differs; `command` is what regenerates them, `noun` what they are.
pub fn sync(
    out: &Path,
    files: &Files,
    managed: &[&str],
    check: bool,
    command: &str,
    noun: &str,
) -> ExitCode {
    let plan = match Plan::new(out, files, managed) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", out.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if check {
        if plan.is_empty() {
            println!("{}: up to date ({} {noun})", out.display(), files.len());
            return ExitCode::SUCCESS;
        }
        eprintln!(
            "error: {} is stale; run `cargo run --release -- {command}`:",
            out.display()
        );
        for (path, why) in plan.describe() {
            eprintln!("  {why:<8} {path}");
        }
        return ExitCode::from(EXIT_INVALID);
    }
    match plan.apply(out, files) {
        Ok(()) => {
            println!(
                "{}: {} {noun}, {} written, {} removed",
                out.display(),
                files.len(),
                plan.written(),
                plan.removed.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", out.display());
            ExitCode::from(EXIT_USAGE)
        }
    }
}
