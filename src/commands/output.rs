//! Writing a tree of generated files into a folder, or checking that it is up to date:
//! shared by `generate`, `docs` and `cassettes`.

use super::{EXIT_INVALID, EXIT_USAGE};
use covenant_codegen::emit::Files;
use std::path::{Path, PathBuf};
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
                plan.changed.len() + plan.added.len(),
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

/// What writing `files` into a folder would change.
struct Plan {
    added: Vec<String>,
    changed: Vec<String>,
    removed: Vec<String>,
}

impl Plan {
    /// Files in `managed` folders of `out` that `files` does not hold are stale.
    fn new(out: &Path, files: &Files, managed: &[&str]) -> std::io::Result<Plan> {
        let mut plan = Plan {
            added: Vec::new(),
            changed: Vec::new(),
            removed: Vec::new(),
        };
        for (path, content) in files {
            match std::fs::read(out.join(path)) {
                Ok(existing) if existing == content.as_bytes() => {}
                Ok(_) => plan.changed.push(path.clone()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => plan.added.push(path.clone()),
                Err(e) => return Err(e),
            }
        }
        for dir in managed {
            for path in files_under(&out.join(dir))? {
                let relative = path
                    .strip_prefix(out)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                if !files.contains_key(&relative) {
                    plan.removed.push(relative);
                }
            }
        }
        plan.removed.sort();
        Ok(plan)
    }

    fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }

    fn describe(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = Vec::new();
        out.extend(self.added.iter().map(|p| (p.as_str(), "missing")));
        out.extend(self.changed.iter().map(|p| (p.as_str(), "differs")));
        out.extend(self.removed.iter().map(|p| (p.as_str(), "extra")));
        out.sort();
        out
    }

    fn apply(&self, out: &Path, files: &Files) -> std::io::Result<()> {
        for path in self.added.iter().chain(&self.changed) {
            let target = out.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(target, &files[path])?;
        }
        for path in &self.removed {
            std::fs::remove_file(out.join(path))?;
        }
        Ok(())
    }
}

/// Every file below `dir`, recursively; none when it does not exist; `dir` itself when it is
/// a file.
fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return Ok(out);
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(files_under(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}
