//! The JSON Schemas and the generated Rust types (serde + `validate()`) accept and reject the
//! same instances: every sample the IR yields for every model shape and enum, every example
//! shape the interface document gives, and each constraint violated once.

use crate::support;

use covenant_codegen::ir::shapes::Shapes;
use covenant_codegen::samples::{Sample, Samples};
use health_api::models::parse_and_validate;
use serde_json::Value;

struct Verdicts {
    checked: usize,
    mismatches: Vec<String>,
}

impl Verdicts {
    fn check(&mut self, type_name: &str, schema: &jsonschema::Validator, sample: &Sample) {
        self.checked += 1;
        let by_schema = schema.is_valid(&sample.value);
        let by_rust = parse_and_validate(type_name, &sample.value).expect("type is registered");
        if by_schema != sample.valid || by_rust.is_ok() != sample.valid {
            self.mismatches.push(format!(
                "{type_name} / {}: expected {}, schema {}, serde+validate {:?}\n    {}",
                sample.what,
                verdict(sample.valid),
                verdict(by_schema),
                by_rust,
                sample.value
            ));
        }
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "accept" } else { "reject" }
}

#[test]
fn schemas_and_rust_types_agree_on_generated_samples() {
    let spec = support::spec();
    let shapes = Shapes::new(&spec);
    let samples = Samples::new(&spec);
    let mut verdicts = Verdicts {
        checked: 0,
        mismatches: Vec::new(),
    };
    for (id, shape) in shapes.all() {
        let name = shapes.name(id, shape);
        let schema = support::schema_validator(&spec, &format!("models/{name}.json"));
        for sample in samples.model(id, shape) {
            verdicts.check(&name, &schema, &sample);
        }
    }
    for e in &spec.enums {
        let schema = support::schema_validator(&spec, &format!("enums/{}.json", e.name));
        for sample in samples.enum_(e) {
            verdicts.check(&e.name, &schema, &sample);
        }
    }
    assert!(verdicts.checked > 1000, "only {} samples", verdicts.checked);
    assert!(
        verdicts.mismatches.is_empty(),
        "{} of {} samples disagree:\n{}",
        verdicts.mismatches.len(),
        verdicts.checked,
        verdicts.mismatches.join("\n")
    );
}

#[test]
fn schemas_and_rust_types_agree_on_the_documents_examples() {
    let spec = support::spec();
    let corpus =
        support::read_json(&support::crate_dir().join("tests/corpus/document_examples.json"));
    let mut verdicts = Verdicts {
        checked: 0,
        mismatches: Vec::new(),
    };
    for case in corpus.as_array().expect("a list of cases") {
        let type_name = case["type"].as_str().expect("type");
        let schema = support::schema_validator(&spec, &format!("models/{type_name}.json"));
        for (key, valid) in [("valid", true), ("invalid", false)] {
            for (i, value) in case[key].as_array().into_iter().flatten().enumerate() {
                let what = format!("{} {key} #{i}", case["what"].as_str().unwrap_or_default());
                let sample = Sample {
                    value: value.clone(),
                    valid,
                    what,
                };
                verdicts.check(type_name, &schema, &sample);
            }
        }
    }
    assert!(verdicts.checked >= 30, "only {} examples", verdicts.checked);
    assert!(
        verdicts.mismatches.is_empty(),
        "disagreements:\n{}",
        verdicts.mismatches.join("\n")
    );
}

#[test]
fn validate_reports_every_violation_with_its_path() {
    let body: Value = serde_json::json!({
        "user_id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a",
        "filter_on_providers": [],
        "on_error": "explode",
        "on_close": "vanish"
    });
    let errors = parse_and_validate("CreateLinkTokenRequest", &body)
        .unwrap()
        .unwrap_err();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors[0].starts_with("$.filter_on_providers: List should have at least 1 items"),
        "{errors:?}"
    );
    assert!(
        errors[1].starts_with("$.on_error: Input should be 'redirect'"),
        "{errors:?}"
    );
    assert!(errors[2].starts_with("$.on_close:"), "{errors:?}");
}
