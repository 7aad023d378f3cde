//! The samples the mock, the cassette generator and the agreement tests draw from say which
//! values a field accepts as the generated validation does.

use covenant_codegen::ir::ModelId;
use covenant_codegen::ir::shapes::Shape;
use covenant_codegen::samples::Samples;
use std::path::Path;

/// A field of type `null` takes `null` and nothing else: `null` is its one valid value,
/// never a violation.
#[test]
fn a_null_field_accepts_null_and_only_null() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions/constants.covenant");
    let (file, checked) = covenant_codegen::check_path(&path).unwrap();
    let spec = checked
        .spec
        .unwrap_or_else(|| panic!("{}", checked.diagnostics.render(&file)));
    let samples = Samples::new(&spec);
    let posted = spec.model_named("Posted").unwrap();
    let id = spec
        .models
        .iter()
        .position(|m| m.name == posted.name)
        .unwrap();
    let cases = samples.model(ModelId(id as u32), Shape::Response);
    let case = |what: &str| {
        cases
            .iter()
            .find(|s| s.what == what)
            .unwrap_or_else(|| panic!("no sample `{what}` in {cases:#?}"))
    };
    assert!(case("edited null").valid);
    assert!(!case("edited absent").valid);
    assert!(!case("edited of the wrong type").valid);
    let edited = posted.field("edited").unwrap();
    let violations = samples.field_violations(edited, Shape::Response);
    assert!(
        violations.iter().all(|(v, _)| !v.is_null()),
        "{violations:?}"
    );
    assert!(!violations.is_empty());
}
