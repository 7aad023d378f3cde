//! Names the spec gives what the document names otherwise: models and enums in
//! `UpperCamelCase`, endpoints in `snake_case`, each unique, each derived from the document
//! alone so two imports of one document agree.

use heck::{ToSnakeCase, ToUpperCamelCase};
use std::collections::HashSet;

/// Words that name built-in types, and so cannot name a model or an enum.
const BUILT_IN: &[&str] = &[
    "string",
    "int",
    "number",
    "bool",
    "uuid",
    "date",
    "datetime",
    "email",
    "uri",
    "timezone",
    "object",
    "any",
    "bytes",
    "file",
    "map",
    "null",
    "not_shown",
    "true",
    "false",
];

/// Names given so far, per kind.
#[derive(Default)]
pub struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// A new unique type name close to `hint`.
    pub fn type_name(&mut self, hint: &str) -> String {
        let mut base = identifier(&hint.to_upper_camel_case());
        if base.is_empty() {
            base = "Unnamed".to_string();
        }
        if BUILT_IN.contains(&base.to_lowercase().as_str()) {
            base.push_str("Value");
        }
        self.unique(base)
    }

    /// A new unique endpoint name close to `hint`.
    pub fn endpoint_name(&mut self, hint: &str) -> String {
        let mut base = identifier(&hint.to_snake_case());
        if base.is_empty() {
            base = "operation".to_string();
        }
        self.unique(base)
    }

    /// A new unique name of another kind (auth schemes), close to `hint`.
    pub fn other_name(&mut self, hint: &str) -> String {
        let mut base = identifier(&hint.to_snake_case());
        if base.is_empty() {
            base = "scheme".to_string();
        }
        self.unique(base)
    }

    /// Keeps `name` from being given.
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_lowercase());
    }

    fn unique(&mut self, base: String) -> String {
        // Rust idents and file names compare without case in places: keep names apart there.
        let mut candidate = base.clone();
        let mut n = 2;
        while self.taken.contains(&candidate.to_lowercase()) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        self.taken.insert(candidate.to_lowercase());
        candidate
    }
}

/// `text` as a name of the language: ASCII letters, digits and `_`, not starting with a digit.
pub fn identifier(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    let trimmed = out.trim_matches('_').to_string();
    if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        format!("n{trimmed}")
    } else {
        trimmed
    }
}
