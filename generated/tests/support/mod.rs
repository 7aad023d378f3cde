//! Shared by the generated crate's tests: the spec's IR and validators of the checked-in
//! schemas, resolving `$ref`s between the files locally.

#![allow(dead_code)]

use covenant_codegen::ir::Spec;
use jsonschema::{Retrieve, Uri, Validator};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn spec() -> Spec {
    let path = crate_dir().join("../spec/health.covenant");
    let (file, checked) = covenant_codegen::check_path(&path).expect("read the spec");
    checked
        .spec
        .unwrap_or_else(|| panic!("{}", checked.diagnostics.render(&file)))
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Serves `$ref`s under the schema base from the schemas folder, and nothing else.
struct LocalSchemas {
    base: String,
    root: PathBuf,
}

impl Retrieve for LocalSchemas {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let relative = uri
            .as_str()
            .strip_prefix(&self.base)
            .ok_or_else(|| format!("{} is outside the generated schemas", uri.as_str()))?;
        let text = std::fs::read_to_string(self.root.join(relative))?;
        Ok(serde_json::from_str(&text)?)
    }
}

/// A validator of one checked-in schema file, formats asserted.
pub fn schema_validator(spec: &Spec, relative: &str) -> Validator {
    let root = crate_dir().join("schemas");
    let schema = read_json(&root.join(relative));
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_retriever(LocalSchemas {
            base: covenant_codegen::emit::schema_base(spec),
            root,
        })
        .build(&schema)
        .unwrap_or_else(|e| panic!("schemas/{relative}: {e}"))
}
