//! `print_file` writes a parse tree back as spec text: what a program building a spec (the
//! importer) relies on. Every spec of the repository printed from its tree parses back to
//! the same tree, means the same (the check gives the same IR), and is in `fmt`'s layout.

use covenant_codegen::diagnostic::Diagnostics;
use covenant_codegen::format::format_source;
use covenant_codegen::print::print_file;
use covenant_codegen::{SourceFile, check_source, parser};
use std::path::Path;

fn spec_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for folder in [
        "spec",
        "spec/examples",
        "corpus/specs",
        "corpus/regressions",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "covenant") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn printed(text: &str) -> String {
    let mut diagnostics = Diagnostics::default();
    let tree = parser::parse(text, &mut diagnostics);
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    print_file(&tree, None)
}

#[test]
fn every_spec_prints_back_to_the_same_meaning() {
    let files = spec_files();
    assert!(files.len() >= 10, "found only {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let once = printed(&text);
        assert_eq!(
            printed(&once),
            once,
            "{}: printing is not stable",
            path.display()
        );
        let formatted = format_source(&SourceFile::new("p.covenant", once.clone())).unwrap();
        assert_eq!(
            formatted,
            once,
            "{}: printed text is not in fmt's layout",
            path.display()
        );
        let original = check_source(&SourceFile::new("a.covenant", text));
        let reprinted = check_source(&SourceFile::new("a.covenant", once.clone()));
        match (original.spec, reprinted.spec) {
            (Some(a), Some(b)) => assert_eq!(
                without_spans(&a),
                without_spans(&b),
                "{}: the printed spec means something else",
                path.display()
            ),
            (None, None) => {}
            (a, b) => panic!(
                "{}: checks differ: original valid {}, printed valid {}\n{once}",
                path.display(),
                a.is_some(),
                b.is_some()
            ),
        }
    }
}

/// The IR's debug text with its source positions left out, since printing moves text.
fn without_spans(spec: &covenant_codegen::Spec) -> String {
    let text = format!("{spec:?}");
    let spans = regex::Regex::new(r"Span \{ start: \d+, end: \d+ \}").unwrap();
    spans.replace_all(&text, "Span").into_owned()
}

#[test]
fn bodiless_errors_and_error_headers_print_as_written() {
    let text = "endpoint a: GET \"/a\" {\n    public\n    response 200: string\n    error 404\n    error 429: string headers {\n        \"Retry-After\": int\n    }\n}\n";
    assert_eq!(printed(text), text);
}
