//! `cassettes [--check]`: write the mechanical scenarios of the suite (every input
//! constraint violated once, the auth matrix, unknown ids) from the spec, or check that the
//! checked-in copy is what the spec gives.

use super::output::sync;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// The folders of the output the generator owns.
const MANAGED: &[&str] = &["validation", "auth", "not-found"];

#[derive(Args)]
pub struct CassettesArgs {
    /// The spec to generate from.
    #[command(flatten)]
    spec: super::project::SpecArg,
    /// The folder the generated cassettes live in.
    #[arg(long, default_value = "conformance/suite/generated")]
    out: PathBuf,
    /// Write nothing; exit 1 and list the stale files when the folder differs from the spec.
    #[arg(long)]
    check: bool,
}

pub fn run(args: &CassettesArgs) -> ExitCode {
    let (_, spec) = match args.spec.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let files = covenant_conformance::generate::cassettes(&spec);
    sync(
        &args.out,
        &files,
        MANAGED,
        args.check,
        "cassettes",
        "cassettes",
    )
}
