//! The tree-sitter grammar of the covenant spec language, for tools that highlight, fold
//! or select by syntax tree: the language, and its highlight and fold queries.
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser.set_language(&tree_sitter_covenant::LANGUAGE.into()).unwrap();
//! let tree = parser.parse("model Pet {\n    name: string\n}\n", None).unwrap();
//! assert_eq!(tree.root_node().child(0).unwrap().kind(), "model_declaration");
//! ```

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_covenant() -> *const ();
}

/// The language, for `tree_sitter::Parser::set_language(&LANGUAGE.into())`.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_covenant) };

/// The highlight query (standard capture names: `@keyword`, `@type`, `@property`, …).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../queries/highlights.scm");

/// The fold query: blocks, argument lists and lists.
pub const FOLDS_QUERY: &str = include_str!("../queries/folds.scm");

/// The node types of the grammar, as `tree-sitter generate` writes them.
pub const NODE_TYPES: &str = include_str!("../src/node-types.json");
