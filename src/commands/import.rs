//! `import FILE`: an OpenAPI 3.0, 3.1 or Swagger 2.0 document (JSON or YAML) written as a
//! spec, checked before it is written. Whatever the spec states less exactly is marked in
//! place with `@lossy` and listed by `--report`.

use super::EXIT_USAGE;
use clap::Args;
use covenant_codegen::{SourceFile, check_source};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status of an import that wrote a spec with losses.
const EXIT_LOSSES: u8 = 1;

#[derive(Args)]
pub struct ImportArgs {
    /// The OpenAPI or Swagger document; `-` reads standard input.
    file: PathBuf,
    /// Where to write the spec. Default: standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the report of losses there: each operation's status with its losses (JSON when
    /// the name ends in `.json`, text otherwise).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

pub fn run(args: &ImportArgs) -> ExitCode {
    match import(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn import(args: &ImportArgs) -> Result<ExitCode, String> {
    let (name, text) = read(&args.file)?;
    let imported = covenant_import::import(&name, &text).map_err(|e| e.render(&name))?;
    let checked = check_source(&SourceFile::new("imported.covenant", imported.spec.clone()));
    if checked.spec.is_none() {
        let file = SourceFile::new("imported.covenant", imported.spec.clone());
        return Err(format!(
            "the spec imported from {name} does not check; this is a fault of the importer:\n{}",
            checked.diagnostics.render(&file)
        ));
    }
    match &args.out {
        Some(path) => std::fs::write(path, &imported.spec)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => print!("{}", imported.spec),
    }
    if let Some(path) = &args.report {
        let text = if path.extension().is_some_and(|e| e == "json") {
            serde_json::to_string_pretty(&imported.report).map_err(|e| e.to_string())? + "\n"
        } else {
            imported.report.render_text()
        };
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    eprintln!("{}", imported.report.summary());
    let lossless = imported.report.losses.is_empty();
    Ok(if lossless {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_LOSSES)
    })
}

fn read(path: &PathBuf) -> Result<(String, String), String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(("<stdin>".to_string(), text));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok((path.display().to_string(), text))
}
