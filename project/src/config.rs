//! The project file, `covenant.toml` in the folder a command runs in: which spec the
//! commands work on when given none, how `diff` judges changes, what `generate` writes. A
//! project without one names its spec on the command line.

use serde::Deserialize;
use std::path::{Path, PathBuf};

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
    pub generate: Option<GenerateConfig>,
}

impl Project {
    /// The project file of the current folder; an empty project when there is none.
    pub fn read() -> Result<Project, String> {
        Project::read_from(Path::new(PROJECT_FILE))
    }

    /// The project file at `path`; an empty project when there is none.
    pub fn read_from(path: &Path) -> Result<Project, String> {
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

/// `[generate]` of the project file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateConfig {
    /// Whether `generate` writes the reference site beside the OpenAPI documents.
    #[serde(default)]
    pub docs: bool,
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
