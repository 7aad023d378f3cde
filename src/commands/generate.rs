//! `generate [--check]`: write the generated crate, schemas and OpenAPI documents, or check
//! that the checked-in copy is what the spec gives.

use super::{DEFAULT_SPEC, EXIT_INVALID, EXIT_USAGE};
use clap::Args;
use covenant_codegen::emit::{self, Files, MANAGED_DIRS};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct GenerateArgs {
    /// The spec to compile.
    #[arg(long, default_value = DEFAULT_SPEC)]
    spec: PathBuf,
    /// The folder of the generated crate.
    #[arg(long, default_value = "generated")]
    out: PathBuf,
    /// Write nothing; exit 1 and list the stale files when the folder differs from the spec.
    #[arg(long)]
    check: bool,
}

pub fn run(args: &GenerateArgs) -> ExitCode {
    let (file, checked) = match covenant_codegen::check_path(&args.spec) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.spec.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let Some(spec) = checked.spec else {
        eprint!("{}", checked.diagnostics.render(&file));
        return ExitCode::from(EXIT_INVALID);
    };
    let settings = emit::Settings {
        spec_name: display_path(&args.spec),
        ..emit::Settings::default()
    };
    let files = emit::generate(&spec, &settings);
    let plan = match Plan::new(&args.out, &files) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.out.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if args.check {
        if plan.is_empty() {
            println!("{}: up to date ({} files)", args.out.display(), files.len());
            return ExitCode::SUCCESS;
        }
        eprintln!(
            "error: {} is stale; run `cargo run --release -- generate`:",
            args.out.display()
        );
        for (path, why) in plan.describe() {
            eprintln!("  {why:<8} {path}");
        }
        return ExitCode::from(EXIT_INVALID);
    }
    match plan.apply(&args.out, &files) {
        Ok(()) => {
            println!(
                "{}: {} files, {} written, {} removed",
                args.out.display(),
                files.len(),
                plan.changed.len() + plan.added.len(),
                plan.removed.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", args.out.display());
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
    fn new(out: &Path, files: &Files) -> std::io::Result<Plan> {
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
        for dir in MANAGED_DIRS {
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

/// Every file below `dir`, recursively; none when it does not exist.
fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
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

/// The spec's path as generated headers name it: `./spec/x` and `spec/x` alike, `/` between
/// parts, so the output does not depend on how the path was typed.
fn display_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}
