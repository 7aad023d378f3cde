//! `generate [--check]`: write the generated crate, schemas and OpenAPI documents, or check
//! that the checked-in copy is what the spec gives.

use super::output::sync;
use clap::Args;
use covenant_codegen::emit::{self, MANAGED_DIRS};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct GenerateArgs {
    /// The spec to compile.
    #[command(flatten)]
    spec: super::project::SpecArg,
    /// The folder of the generated crate.
    #[arg(long, default_value = "generated")]
    out: PathBuf,
    /// Write nothing; exit 1 and list the stale files when the folder differs from the spec.
    #[arg(long)]
    check: bool,
}

pub fn run(args: &GenerateArgs) -> ExitCode {
    let (path, spec) = match args.spec.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let settings = emit::Settings {
        spec_name: display_path(&path),
        ..emit::Settings::default()
    };
    let files = emit::generate(&spec, &settings);
    sync(
        &args.out,
        &files,
        MANAGED_DIRS,
        args.check,
        "generate",
        "files",
    )
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
