//! Emitters: everything the validated IR compiles into, as an in-memory file tree so the
//! CLI can write it or compare it, and the proc macro can expand the Rust part. The tree
//! beyond the Rust modules (JSON Schemas, OpenAPI documents, the reference site) is behind
//! the `generate` feature, which the proc macro leaves out.

#[cfg(feature = "generate")]
pub mod docs;
#[cfg(feature = "generate")]
pub mod openapi;
pub mod rust;
#[cfg(feature = "generate")]
pub mod schema;
#[cfg(feature = "generate")]
mod tree;

#[cfg(feature = "generate")]
pub use tree::*;

use std::collections::BTreeMap;

/// Settings of one generation run.
#[derive(Clone, Debug)]
pub struct Settings {
    pub rust: rust::RustSettings,
    /// How the spec file is named in generated headers (a relative path, never a machine path).
    pub spec_name: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            rust: rust::RustSettings::default(),
            spec_name: "the spec".to_string(),
        }
    }
}

/// Generated files by path relative to the output folder, in sorted order.
pub type Files = BTreeMap<String, String>;

/// Folders of the output that generation owns: files in them that it no longer writes are
/// stale and removed.
pub const MANAGED_DIRS: &[&str] = &["src", "schemas", "openapi"];
