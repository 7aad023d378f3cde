//! The project file, `covenant.toml` in the folder a command runs in: which spec the
//! commands work on when given none. A project without one names its spec with `--spec`.

use super::{EXIT_INVALID, EXIT_USAGE};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The project file's name.
pub const PROJECT_FILE: &str = "covenant.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    /// The spec every command reads unless given another.
    pub spec: Option<PathBuf>,
    /// How `diff` judges changes.
    pub diff: Option<covenant_codegen::diff::DiffConfig>,
    /// What `generate` writes besides the crate, schemas and OpenAPI documents.
    pub generate: Option<super::generate::GenerateConfig>,
}

impl Project {
    /// The project file of the current folder; an empty project when there is none.
    pub fn read() -> Result<Project, String> {
        Project::read_from(Path::new(PROJECT_FILE))
    }

    fn read_from(path: &Path) -> Result<Project, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Project::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        toml::from_str(&text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|span| line_column(&text, span.start))
                .unwrap_or((1, 1));
            format!("{}:{line}:{column}: {}", path.display(), e.message())
        })
    }
}

/// The 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.chars().rev().take_while(|c| *c != '\n').count() + 1;
    (line, column)
}

/// The spec a command works on: the one named, else the project's.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SpecArg {
    /// The spec file (default: `spec` in ./covenant.toml).
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
}

impl SpecArg {
    /// The spec's path; an error says how to name one.
    pub fn path(&self) -> Result<PathBuf, String> {
        resolve(self.spec.as_deref())
    }

    /// Reads and checks the spec; on failure prints why (an I/O error, or the spec's
    /// diagnostics) and answers the exit status that calls for.
    pub fn load(&self) -> Result<(PathBuf, covenant_codegen::Spec), ExitCode> {
        let path = self.path().map_err(|message| {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        })?;
        let spec = load(&path)?;
        Ok((path, spec))
    }
}

/// `named`, else the project's spec.
pub fn resolve(named: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = named {
        return Ok(path.to_path_buf());
    }
    Project::read()?.spec.ok_or_else(|| {
        format!("no spec named: name one on the command line, or set `spec = \"FILE\"` in ./{PROJECT_FILE}")
    })
}

/// Reads and checks the spec at `path`, printing why it cannot be used.
pub fn load(path: &Path) -> Result<covenant_codegen::Spec, ExitCode> {
    covenant_codegen::load(path).map_err(|error| match error {
        covenant_codegen::LoadError::Invalid(diagnostics) => {
            eprint!("{diagnostics}");
            ExitCode::from(EXIT_INVALID)
        }
        unreadable => {
            eprintln!("error: {unreadable}");
            ExitCode::from(EXIT_USAGE)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_project_file_is_named_with_its_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PROJECT_FILE);
        std::fs::write(&path, "# the project\nspek = \"a.covenant\"\n").unwrap();
        let error = Project::read_from(&path).unwrap_err();
        assert!(error.contains("covenant.toml:2:1: "), "{error}");
        assert!(error.contains("spek"), "{error}");
    }

    #[test]
    fn no_project_file_is_an_empty_project() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::read_from(&dir.path().join(PROJECT_FILE)).unwrap();
        assert!(project.spec.is_none());
    }
}
