//! `fmt [PATH…]`: write spec files in the canonical layout (comments kept, the author's line
//! breaks kept, everything else canonical), or `--check` that they are.

use super::{EXIT_INVALID, EXIT_USAGE};
use clap::Args;
use covenant_project::format::{FormatError, format_file, format_text, spec_files};
use std::io::{IsTerminal, Read};
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

pub fn run(args: &FmtArgs) -> ExitCode {
    if args.paths.len() == 1 && args.paths[0] == Path::new("-") {
        return stdin_to_stdout(args.check);
    }
    let files = match spec_files(&args.paths) {
        Ok(files) => files,
        Err(message) => return usage(&message),
    };
    let (mut changed, mut broken) = (0, 0);
    for path in &files {
        match format_file(path, !args.check) {
            Ok(formatted) => match formatted.diff {
                None => {}
                Some(diff) if args.check => {
                    changed += 1;
                    print!("{diff}");
                }
                Some(_) => {
                    changed += 1;
                    eprintln!("formatted {}", path.display());
                }
            },
            Err(FormatError::Io(message)) => return usage(&message),
            Err(FormatError::Invalid(diagnostics)) => {
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

fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Formats standard input to standard output; with `check`, prints the diff instead and
/// exits 1 when there is one.
fn stdin_to_stdout(check: bool) -> ExitCode {
    let mut text = String::new();
    if std::io::stdin().is_terminal() {
        eprintln!("fmt: reading a spec from standard input (end it with Ctrl-D)");
    }
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        return usage(&format!("cannot read standard input: {e}"));
    }
    match format_text("<stdin>", text) {
        Ok(formatted) if check => match formatted.diff {
            None => ExitCode::SUCCESS,
            Some(diff) => {
                print!("{diff}");
                ExitCode::from(EXIT_INVALID)
            }
        },
        Ok(formatted) => {
            print!("{}", formatted.text);
            ExitCode::SUCCESS
        }
        Err(FormatError::Invalid(diagnostics)) => {
            eprint!("{diagnostics}");
            ExitCode::from(EXIT_INVALID)
        }
        Err(FormatError::Io(message)) => usage(&message),
    }
}
