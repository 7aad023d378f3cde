//! `generate [--check] [--docs]`: write the generated crate, schemas and OpenAPI documents
//! (and the reference site, when asked), or check that the checked-in copy is what the spec
//! gives.

use super::output::sync;
use clap::Args;
use covenant_codegen::emit::{self, MANAGED_DIRS};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::EXIT_USAGE;

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
    /// Write the reference site too, in `docs/` of the output folder (default: `docs` of
    /// `[generate]` in ./covenant.toml). Without it, a `docs/` folder there is left alone.
    #[arg(long)]
    docs: bool,
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
    let with_docs = match super::project::Project::read() {
        Ok(project) => args.docs || project.generate.is_some_and(|g| g.docs),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut files = emit::generate(&spec, &settings);
    let mut managed = MANAGED_DIRS.to_vec();
    if with_docs {
        files.extend(emit::docs_files(&spec, &settings));
        managed.push(emit::DOCS_DIR);
    }
    let command = if args.docs {
        "generate --docs"
    } else {
        "generate"
    };
    sync(&args.out, &files, &managed, args.check, command, "files")
}

/// The spec's path as generated headers name it: `./spec/x` and `spec/x` alike, `/` between
/// parts, so the output does not depend on how the path was typed.
pub(super) fn display_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}
