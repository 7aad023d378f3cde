//! `cassettes [--check]`: write the mechanical scenarios of the suite (every input
//! constraint violated once, the auth matrix, unknown ids) from the spec, or check that the
//! checked-in copy is what the spec gives.

use super::output::Plan;
use super::{DEFAULT_SPEC, EXIT_INVALID, EXIT_USAGE};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// The folders of the output the generator owns.
const MANAGED: &[&str] = &["validation", "auth", "not-found"];

#[derive(Args)]
pub struct CassettesArgs {
    /// The spec to generate from.
    #[arg(long, default_value = DEFAULT_SPEC)]
    spec: PathBuf,
    /// The folder the generated cassettes live in.
    #[arg(long, default_value = "conformance/suite/generated")]
    out: PathBuf,
    /// Write nothing; exit 1 and list the stale files when the folder differs from the spec.
    #[arg(long)]
    check: bool,
}

pub fn run(args: &CassettesArgs) -> ExitCode {
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
    let files = covenant_conformance::generate::cassettes(&spec);
    let plan = match Plan::new(&args.out, &files, MANAGED) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.out.display());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if args.check {
        if plan.is_empty() {
            println!(
                "{}: up to date ({} cassettes)",
                args.out.display(),
                files.len()
            );
            return ExitCode::SUCCESS;
        }
        eprintln!(
            "error: {} is stale; run `cargo run --release -- cassettes`:",
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
                "{}: {} cassettes, {} written, {} removed",
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
