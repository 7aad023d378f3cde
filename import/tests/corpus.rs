//! The importer over published documents of public APIs (`corpus/openapi/`): each imports,
//! the spec checks, every loss is marked in place once and listed in the report, each
//! operation of the document is accounted for, and a second import gives the same bytes.
//! The counts per document are kept in `corpus/openapi/summary.txt` and the specs in
//! `corpus/imported/`, reviewed like any golden file (`COVENANT_UPDATE_SNAPSHOTS=1` rewrites
//! them); the corpus crate compiles those specs.

use covenant_codegen::{SourceFile, check_source};
use covenant_import::{Completeness, import};
#[path = "support/documents.rs"]
mod documents;

use documents::{corpus, documents};

/// The operations a JSON document declares (methods under `paths`).
fn operations_in(text: &str) -> usize {
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    let methods = [
        "get", "put", "post", "delete", "patch", "head", "options", "trace",
    ];
    value["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| methods.iter().filter(|m| item.get(**m).is_some()).count())
        .sum()
}

#[test]
fn every_published_document_imports_into_a_spec_that_checks() {
    let mut summary = String::new();
    let documents = documents();
    assert!(documents.len() >= 6, "the corpus holds {}", documents.len());
    for (name, text) in &documents {
        let imported = import(name, text).unwrap_or_else(|e| panic!("{}", e.render(name)));
        let file = SourceFile::new(name.clone(), imported.spec.clone());
        let checked = check_source(&file);
        assert!(
            checked.spec.is_some(),
            "{name}: the imported spec does not check:\n{}",
            checked.diagnostics.render(&file)
        );
        let report = &imported.report;
        if text.trim_start().starts_with('{') {
            assert_eq!(
                report.operations.len(),
                operations_in(text),
                "{name}: operations"
            );
        }
        let marked = imported.spec.matches("@lossy(").count();
        let left_out: usize = report
            .operations
            .iter()
            .filter(|o| o.status == Completeness::LeftOut)
            .map(|o| o.losses.len())
            .sum();
        assert_eq!(
            marked + left_out,
            report.losses.len(),
            "{name}: each loss is marked once in the spec (or its operation left out)"
        );
        for op in &report.operations {
            match op.status {
                Completeness::Full => assert!(op.losses.is_empty(), "{name}: {op:?}"),
                _ => assert!(!op.losses.is_empty(), "{name}: {} says no loss", op.pointer),
            }
        }
        let again = import(name, text).unwrap();
        assert_eq!(again.spec, imported.spec, "{name}: a second import differs");
        // The imported specs are compiled with both halves by the corpus crate.
        let stem = name.split('.').next().unwrap();
        let kept = corpus().join(format!("../imported/{stem}.covenant"));
        if std::env::var_os("COVENANT_UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(&kept, &imported.spec).unwrap();
        }
        assert!(
            std::fs::read_to_string(&kept).unwrap_or_default() == imported.spec,
            "{name}: corpus/imported/{stem}.covenant is not what import writes now: review, then run with COVENANT_UPDATE_SNAPSHOTS=1"
        );
        summary.push_str(&format!("{name}: {}\n", report.summary()));
    }
    let expected_path = corpus().join("summary.txt");
    if std::env::var_os("COVENANT_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&expected_path, &summary).unwrap();
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert_eq!(
        summary, expected,
        "the corpus's counts changed: review, then run with COVENANT_UPDATE_SNAPSHOTS=1"
    );
}
