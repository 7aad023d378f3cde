//! The grammar against the language's own parser: every `.covenant` file of the repository
//! parses without an `ERROR` or `MISSING` node exactly when the checker's parser finds no
//! syntax error in it (the diagnostics tests' deliberately broken files included), the
//! highlight and fold queries compile, and the generated parser is that of `grammar.js`.

use covenant_codegen::{Diagnostics, diagnostic_codes, parser};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tree_sitter::{Language, Parser, Query};

fn language() -> Language {
    tree_sitter_covenant::LANGUAGE.into()
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn specs(folder: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "node_modules" {
                specs(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "covenant") {
            out.push(path);
        }
    }
}

/// Whether the checker's own lexer and parser find a syntax error.
fn checker_finds_syntax_error(text: &str) -> bool {
    let mut diagnostics = Diagnostics::default();
    parser::parse(text, &mut diagnostics);
    diagnostics.items.iter().any(|d| {
        [
            diagnostic_codes::UNEXPECTED_CHARACTER,
            diagnostic_codes::UNTERMINATED_STRING,
            diagnostic_codes::SYNTAX,
        ]
        .contains(&d.code)
    })
}

#[test]
fn every_spec_of_the_repository_parses_as_the_checker_parses_it() {
    let mut files = Vec::new();
    specs(&repository(), &mut files);
    assert!(files.len() > 100, "found {} specs", files.len());
    let mut parser = Parser::new();
    parser.set_language(&language()).unwrap();
    let mut disagreements = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let tree = parser.parse(&text, None).expect("a tree");
        let broken = tree.root_node().has_error();
        if broken != checker_finds_syntax_error(&text) {
            disagreements.push(format!(
                "{}: tree-sitter {}, the checker {}",
                file.display(),
                if broken { "finds errors" } else { "finds none" },
                if broken { "none" } else { "finds one" }
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn the_queries_compile_against_the_grammar() {
    Query::new(&language(), tree_sitter_covenant::HIGHLIGHTS_QUERY).expect("highlights");
    Query::new(&language(), tree_sitter_covenant::FOLDS_QUERY).expect("folds");
}

#[test]
fn the_generated_parser_is_that_of_grammar_js() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"));
    let grammar = std::fs::read(folder.join("grammar.js")).unwrap();
    let recorded = std::fs::read_to_string(folder.join("src/grammar.js.sha256")).unwrap();
    let actual: String = Sha256::digest(&grammar)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        recorded.trim(),
        actual,
        "grammar.js changed since src/ was generated: run regenerate.sh"
    );
}
