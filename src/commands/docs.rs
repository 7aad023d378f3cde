//! `docs [--out DIR] [--check]`: write the spec's reference site, a folder of static pages
//! that work opened from disk, or check that the folder is what the spec gives.

use super::generate::display_path;
use super::output::sync;
use clap::Args;
use covenant_codegen::emit::docs;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct DocsArgs {
    /// The spec to document.
    #[command(flatten)]
    spec: super::project::SpecArg,
    /// The site's folder. Only the site's own pages in it are written or removed; anything
    /// else there is left alone.
    #[arg(long, default_value = "generated/docs")]
    out: PathBuf,
    /// Write nothing; exit 1 and list the stale pages when the folder differs from the spec.
    #[arg(long)]
    check: bool,
}

pub fn run(args: &DocsArgs) -> ExitCode {
    let (path, spec) = match args.spec.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let settings = docs::DocsSettings {
        spec_name: display_path(&path),
    };
    let pages = docs::site(&spec, &settings);
    let command = format!("docs --out {}", args.out.display());
    let code = sync(
        &args.out,
        &pages,
        docs::OWNED,
        args.check,
        &command,
        "files",
    );
    if !args.check && code == ExitCode::SUCCESS {
        println!("open {}", args.out.join(docs::paths::INDEX).display());
    }
    code
}
