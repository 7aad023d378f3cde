//! `fmt [PATH…]`: write spec files in the canonical layout (comments kept, the author's line
//! breaks kept, everything else canonical), or `--check` that they are.

use super::{EXIT_INVALID, EXIT_USAGE};
use clap::Args;
use covenant_codegen::SourceFile;
use covenant_codegen::format::format_source;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct FmtArgs {
    /// Spec files, or folders searched for `*.covenant` files; `-` reads standard input and
    /// writes the result to standard output. Default: the project's spec.
    paths: Vec<PathBuf>,
    /// Write nothing: print how each file differs from its canonical layout and exit 1 if
    /// any does.
    #[arg(long)]
    check: bool,
}

/// What became of one file.
enum Outcome {
    Canonical,
    /// Written (or, with --check, would be), with its diff.
    Changed(String),
}

pub fn run(args: &FmtArgs) -> ExitCode {
    if args.paths.len() == 1 && args.paths[0] == Path::new("-") {
        return stdin_to_stdout(args.check);
    }
    let files = match files(&args.paths) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut changed = 0;
    let mut broken = 0;
    for path in &files {
        match format_file(path, args.check) {
            Ok(Outcome::Canonical) => {}
            Ok(Outcome::Changed(diff)) => {
                changed += 1;
                if args.check {
                    print!("{diff}");
                } else {
                    eprintln!("formatted {}", path.display());
                }
            }
            Err(Problem::Io(message)) => {
                eprintln!("error: {message}");
                return ExitCode::from(EXIT_USAGE);
            }
            Err(Problem::Invalid(diagnostics)) => {
                broken += 1;
                eprint!("{diagnostics}");
            }
        }
    }
    if args.check && changed > 0 {
        eprintln!(
            "fmt: {changed} of {} file{} not formatted; `covenant fmt` formats {}",
            files.len(),
            if files.len() == 1 { " is" } else { "s are" },
            if changed == 1 { "it" } else { "them" }
        );
    }
    if broken > 0 || (args.check && changed > 0) {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

enum Problem {
    Io(String),
    /// The file does not parse; its diagnostics, rendered.
    Invalid(String),
}

fn format_file(path: &Path, check: bool) -> Result<Outcome, Problem> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Problem::Io(format!("cannot read {}: {e}", path.display())))?;
    let name = path.display().to_string();
    let file = SourceFile::new(&name, text);
    let formatted = format_source(&file).map_err(|d| Problem::Invalid(d.render(&file)))?;
    if formatted == file.text {
        return Ok(Outcome::Canonical);
    }
    let diff = similar::TextDiff::from_lines(&file.text, &formatted)
        .unified_diff()
        .context_radius(2)
        .header(&name, &format!("{name} (formatted)"))
        .to_string();
    if !check {
        write_in_place(path, &formatted)
            .map_err(|e| Problem::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(Outcome::Changed(diff))
}

/// Replaces the file by renaming a sibling over it, so a crash leaves the old text or the
/// new, never half of one; the file keeps its permissions.
fn write_in_place(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let permissions = std::fs::metadata(path)?.permissions();
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    temporary.write_all(text.as_bytes())?;
    temporary.as_file().sync_all()?;
    temporary.as_file().set_permissions(permissions)?;
    temporary.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Formats standard input to standard output; with `check`, prints the diff instead and
/// exits 1 when there is one.
fn stdin_to_stdout(check: bool) -> ExitCode {
    let mut text = String::new();
    if std::io::stdin().is_terminal() {
        eprintln!("fmt: reading a spec from standard input (end it with Ctrl-D)");
    }
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("error: cannot read standard input: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    let file = SourceFile::new("<stdin>", text);
    match format_source(&file) {
        Ok(formatted) if check => {
            if formatted == file.text {
                return ExitCode::SUCCESS;
            }
            let diff = similar::TextDiff::from_lines(&file.text, &formatted);
            print!(
                "{}",
                diff.unified_diff().header("<stdin>", "<stdin> (formatted)")
            );
            ExitCode::from(EXIT_INVALID)
        }
        Ok(formatted) => {
            print!("{formatted}");
            ExitCode::SUCCESS
        }
        Err(diagnostics) => {
            eprint!("{}", diagnostics.render(&file));
            ExitCode::from(EXIT_INVALID)
        }
    }
}

/// The files named, with folders searched (recursively, in name order) for `*.covenant`.
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let named = if paths.is_empty() {
        vec![super::project::resolve(None)?]
    } else {
        paths.to_vec()
    };
    let mut out = Vec::new();
    for path in named {
        if path.is_dir() {
            let before = out.len();
            collect(&path, &mut out)?;
            if out.len() == before {
                return Err(format!("no *.covenant files in {}", path.display()));
            }
        } else if path.exists() {
            out.push(path);
        } else {
            return Err(format!("no spec at {}", path.display()));
        }
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "covenant") {
            out.push(path);
        }
    }
    Ok(())
}
