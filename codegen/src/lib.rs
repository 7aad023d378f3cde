//! The covenant spec language: parser, validated IR, diagnostics, and (later) emitters.
//!
//! One entry point, [`check_source`], is shared by the CLI and the proc macros, so a spec
//! means the same thing wherever it is compiled.

pub mod ast;
pub mod contract;
pub mod diagnostic;
pub mod diagnostic_codes;
#[cfg(feature = "diff")]
pub mod diff;
pub mod emit;
pub mod format;
pub mod ir;
pub mod lexer;
mod lower;
pub mod parser;
pub mod print;
pub mod samples;
pub mod secret_paths;
pub mod source;
pub mod summary;
pub mod vocabulary;

pub use diagnostic::{Diagnostic, Diagnostics, Severity};
pub use ir::Spec;
pub use source::{SourceFile, Span};

/// The result of checking one spec: the IR when it is valid, and every diagnostic
/// (warnings included) either way.
#[derive(Debug)]
pub struct Checked {
    pub spec: Option<Spec>,
    pub diagnostics: Diagnostics,
}

/// Parses and validates a spec. Never panics on any input.
///
/// ```
/// use covenant_codegen::{SourceFile, check_source};
///
/// let file = SourceFile::new("pets.covenant", "model Pet {\n    name: Strin\n}\n");
/// let checked = check_source(&file);
/// assert!(checked.spec.is_none());
/// let rendered = checked.diagnostics.render(&file);
/// assert!(rendered.contains("error[E0102]: unknown type `Strin`"));
/// assert!(rendered.contains("--> pets.covenant:2:11"));
/// assert!(rendered.contains("help: did you mean `string`?"));
/// ```
pub fn check_source(file: &SourceFile) -> Checked {
    check_with_tree(file).1
}

/// As [`check_source`], with the parse tree the check read: an editor's navigation follows
/// the text as it is, even while the spec does not check.
pub fn check_with_tree(file: &SourceFile) -> (ast::File, Checked) {
    let mut diagnostics = Diagnostics::default();
    let ast = parser::parse(&file.text, &mut diagnostics);
    // Lowering a tree with syntax errors would only add noise about the missing parts.
    let spec = if diagnostics.has_errors() {
        None
    } else {
        lower::lower(&ast, &mut diagnostics)
    };
    diagnostics.sort();
    (ast, Checked { spec, diagnostics })
}

/// Reads and checks a spec file, answering its valid IR; else why not: the file cannot be
/// read, or the spec's errors rendered as rustc renders them (`file:line:col`). The one way
/// a command loads the spec it works on.
pub fn load(path: &std::path::Path) -> Result<Spec, LoadError> {
    let (file, checked) = check_path(path).map_err(|error| LoadError::Unreadable {
        path: path.display().to_string(),
        error,
    })?;
    checked
        .spec
        .ok_or_else(|| LoadError::Invalid(checked.diagnostics.render(&file)))
}

/// Why [`load`] answered no spec.
#[derive(Debug)]
pub enum LoadError {
    Unreadable {
        path: String,
        error: std::io::Error,
    },
    /// The diagnostics, rendered.
    Invalid(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Unreadable { path, error } => write!(f, "cannot read {path}: {error}"),
            LoadError::Invalid(diagnostics) => f.write_str(diagnostics.trim_end()),
        }
    }
}

impl std::error::Error for LoadError {}

/// Reads and checks a spec file.
pub fn check_path(path: &std::path::Path) -> std::io::Result<(SourceFile, Checked)> {
    let text = std::fs::read_to_string(path)?;
    let file = SourceFile::new(path.display().to_string(), text);
    let checked = check_source(&file);
    Ok((file, checked))
}
