//! The service spec says everything the interface document says: every line of
//! spec/health.inventory (written from the document) must be found in the validated IR.

use covenant_codegen::ir::*;
use std::path::Path;

fn service_spec() -> Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    let (file, checked) = covenant_codegen::check_path(&path).expect("read the service spec");
    match checked.spec {
        Some(spec) => spec,
        None => panic!("{}", checked.diagnostics.render(&file)),
    }
}

fn endpoint<'a>(spec: &'a Spec, method: &str, path: &str) -> Option<&'a Endpoint> {
    spec.endpoints
        .iter()
        .find(|e| e.method.as_str() == method && e.path == path)
}

fn model_of<'a>(spec: &'a Spec, ty: Option<&Type>) -> Option<&'a Model> {
    match ty? {
        Type::Model(id) => Some(spec.model(*id)),
        _ => None,
    }
}

fn presence_name(p: Presence) -> &'static str {
    match p {
        Presence::Required => "required",
        Presence::Optional => "optional",
        Presence::Nullable => "nullable",
        Presence::OptionalNullable => "optional+nullable",
    }
}

/// Why one inventory line is not satisfied, or `None` when it is.
fn missing(spec: &Spec, words: &[&str]) -> Option<String> {
    let ok = match words {
        ["endpoint", method, path] => endpoint(spec, method, path).is_some(),
        ["param", method, path, name] => endpoint(spec, method, path)
            .is_some_and(|e| e.params.iter().any(|p| p.field.name == *name)),
        ["body", method, path, name] => endpoint(spec, method, path)
            .and_then(|e| model_of(spec, e.body.as_ref()))
            .is_some_and(|m| m.field(name).is_some()),
        ["response", method, path, name] => endpoint(spec, method, path)
            .and_then(|e| {
                e.responses
                    .iter()
                    .find(|r| r.status == covenant_codegen::ir::StatusPattern::Exact(200))
            })
            .and_then(|r| model_of(spec, r.body.as_ref()))
            .is_some_and(|m| m.field(name).is_some()),
        ["field", model, name] => spec
            .model_named(model)
            .is_some_and(|m| m.field(name).is_some()),
        ["presence", model, name, case] => spec
            .model_named(model)
            .and_then(|m| m.field(name))
            .is_some_and(|f| presence_name(f.presence) == *case),
        ["value", e, value] => spec
            .enum_named(e)
            .is_some_and(|e| e.values.iter().any(|v| v.name == *value)),
        ["open", e] => spec.enum_named(e).is_some_and(|e| e.open),
        ["closed", e] => spec.enum_named(e).is_some_and(|e| !e.open),
        ["catalogue", e, size] => spec
            .enum_named(e)
            .is_some_and(|e| e.catalogue_size.map(|n| n.to_string()).as_deref() == Some(*size)),
        ["header", name] => spec
            .auth_schemes
            .iter()
            .any(|a| a.carrier.header() == Some(*name)),
        ["event", ty] => spec.events.iter().any(|e| spec.event_produces(e, ty)),
        ["deprecated", ty] => spec
            .events
            .iter()
            .any(|e| spec.event_produces(e, ty) && e.deprecated.is_some()),
        ["deprecated_field", model, name] => spec
            .model_named(model)
            .and_then(|m| m.field(name))
            .is_some_and(|f| f.deprecated.is_some()),
        ["not_shown", text @ ..] => {
            let text = text.join(" ").to_lowercase();
            spec.not_shown
                .iter()
                .any(|n| n.what.to_lowercase().contains(&text))
        }
        _ => return Some("line not understood".to_string()),
    };
    (!ok).then(|| "not in the spec".to_string())
}

#[test]
fn service_spec_covers_the_interface_document() {
    let spec = service_spec();
    let inventory = include_str!("../../../spec/health.inventory");
    let mut problems = Vec::new();
    let mut checked = 0;
    for (n, line) in inventory.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        checked += 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(why) = missing(&spec, &words) {
            problems.push(format!("spec/health.inventory:{}: {line}: {why}", n + 1));
        }
    }
    assert!(checked > 350, "the inventory shrank to {checked} lines");
    assert!(
        problems.is_empty(),
        "{} inventory lines missing:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_document_endpoint_is_in_the_inventory() {
    // The inventory itself must not silently lose an endpoint: these are all the endpoints
    // the document lists with method and path, plus those the deployed client shapes.
    let spec = service_spec();
    let inventory = include_str!("../../../spec/health.inventory");
    for e in &spec.endpoints {
        if e.provenance == Provenance::Document {
            let line = format!("endpoint {} {}", e.method.as_str(), e.path);
            assert!(
                inventory.contains(&line),
                "`{line}` is in the spec but not in the inventory"
            );
        }
    }
}

#[test]
fn four_field_cases_are_distinct_in_the_ir() {
    let spec = service_spec();
    let update = spec
        .model_named("UpdateUserRequest")
        .expect("inline PATCH body");
    let user = spec.model_named("User").unwrap();
    assert_eq!(user.field("user_id").unwrap().presence, Presence::Required);
    assert_eq!(
        user.field("fallback_birth_date").unwrap().presence,
        Presence::Optional
    );
    assert_eq!(
        spec.model_named("Provider")
            .unwrap()
            .field("logo")
            .unwrap()
            .presence,
        Presence::Nullable
    );
    assert_eq!(
        update.field("ingestion_end").unwrap().presence,
        Presence::OptionalNullable
    );
}

#[test]
fn request_and_response_shapes_differ_where_the_document_says() {
    let spec = service_spec();
    let insurance = spec.model_named("InsuranceRecord").unwrap();
    assert_eq!(
        insurance.field("company").unwrap().visibility,
        Visibility::ResponseOnly
    );
    let patient = spec.model_named("PatientInfo").unwrap();
    assert_eq!(
        patient.field("email").unwrap().format_scope,
        FormatScope::RequestOnly
    );
    assert!(insurance.has_variants() && patient.has_variants());
}

#[test]
fn wait_for_completion_endpoints_answer_200_and_202() {
    let spec = service_spec();
    for name in ["bulk_import", "bulk_trigger_historical_pull"] {
        let e = spec.endpoint_named(name).unwrap();
        let statuses: Vec<u16> = e
            .responses
            .iter()
            .filter_map(|r| r.status.exact())
            .collect();
        assert_eq!(statuses, [200, 202], "{name}");
        assert!(
            e.gates.iter().any(|g| matches!(g, Gate::Feature(_))),
            "{name} is gated"
        );
    }
}

#[test]
fn management_listing_takes_only_management_keys() {
    let spec = service_spec();
    let list = spec.endpoint_named("list_teams").unwrap();
    let headers: Vec<&str> = list
        .auth
        .any_of
        .iter()
        .map(|id| spec.auth(*id).carrier.header().unwrap_or_default())
        .collect();
    assert_eq!(headers, ["X-Management-Key", "X-Service-Org-Key"]);
    let org_key = spec
        .auth_schemes
        .iter()
        .find(|a| a.carrier.header() == Some("X-Service-Org-Key"))
        .unwrap();
    assert!(org_key.deprecated.is_some() && org_key.alias_of.is_some());
}

#[test]
fn historical_pull_throttling_table_is_complete() {
    let spec = service_spec();
    let rl = &spec.rate_limits[0];
    assert_eq!(rl.tiers.len(), 6);
    let providers: u32 = rl.tiers.iter().filter_map(|t| t.providers).sum();
    assert_eq!(providers, 6, "a pair plus four single providers");
    assert!(rl.tiers.iter().any(|t| t.concurrent == Some(250)));
    assert!(rl.tiers.iter().filter(|t| t.is_default).count() == 1);
}
