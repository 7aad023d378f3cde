//! `generate [--check]`: write the generated crate, schemas and OpenAPI documents, or check
//! that the checked-in copy is what the spec gives.

use super::output::Plan;
use super::{DEFAULT_SPEC, EXIT_INVALID, EXIT_USAGE};
use clap::Args;
use covenant_codegen::emit::{self, MANAGED_DIRS};
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
    let plan = match Plan::new(&args.out, &files, MANAGED_DIRS) {
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
