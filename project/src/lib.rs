//! A covenant project as it lies on disk, for the command line and the editor alike: the
//! project file (`covenant.toml`) naming its spec, the spec files of a folder, formatting
//! them in place, a spec as it is at a git ref (what `diff --against` compares), and
//! folders of generated files kept in step with what `generate` makes. The language itself
//! (parsing, checking, emitting) is `covenant_codegen`'s and does no I/O of this kind.

pub mod config;
pub mod format;
pub mod sync;
pub mod versions;

pub use config::{GenerateConfig, PROJECT_FILE, Project, resolve};
