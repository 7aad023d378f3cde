//! The spec a command works on (named, else the project's), read with its diagnostics
//! printed. The project file itself is `covenant_project`'s.

use super::{EXIT_INVALID, EXIT_USAGE};
pub use covenant_project::{PROJECT_FILE, Project, resolve};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
