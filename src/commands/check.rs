//! `check [PATH]`: validate a spec; print a summary or rustc-style diagnostics.

use super::{EXIT_INVALID, EXIT_USAGE};
use annotate_snippets::Renderer;
use clap::Args;
use covenant_codegen::summary::Summary;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct CheckArgs {
    /// A spec file, or a folder whose `*.covenant` files are each checked.
    path: Option<PathBuf>,
    /// Treat warnings as errors.
    #[arg(long)]
    deny_warnings: bool,
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let files = match super::project::resolve(args.path.as_deref()).and_then(|p| spec_files(&p)) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let renderer = if std::io::stderr().is_terminal() {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut invalid = false;
    for path in files {
        let (file, checked) = match covenant_codegen::check_path(&path) {
            Ok(result) => result,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(EXIT_USAGE);
            }
        };
        if !checked.diagnostics.items.is_empty() {
            eprint!("{}", checked.diagnostics.render_with(&file, &renderer));
        }
        let warned = args.deny_warnings && checked.diagnostics.warning_count() > 0;
        match &checked.spec {
            Some(spec) if !warned => print!("{}", Summary::of(spec).render(spec, &file.name)),
            _ => invalid = true,
        }
    }
    if invalid {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

/// The file itself, or the `*.covenant` files of a folder in name order.
fn spec_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        if !path.exists() {
            return Err(format!("no spec at {}", path.display()));
        }
        return Ok(vec![path.to_path_buf()]);
    }
    let entries =
        std::fs::read_dir(path).map_err(|e| format!("cannot list {}: {e}", path.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "covenant"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no *.covenant files in {}", path.display()));
    }
    Ok(files)
}
