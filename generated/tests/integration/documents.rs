//! Every emitted schema is a valid draft 2020-12 schema, every OpenAPI document is valid
//! OpenAPI 3.1, and `$ref`s resolve.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(json_files(&path));
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn every_schema_file_is_valid_draft_2020_12_and_compiles() {
    let spec = support::spec();
    let root = support::crate_dir().join("schemas");
    let files = json_files(&root);
    assert!(files.len() > 150, "only {} schema files", files.len());
    for path in &files {
        let schema = support::read_json(path);
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("{} is not a valid schema: {e}", path.display());
        }
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        let relative = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert_eq!(
            schema["$id"].as_str().unwrap(),
            format!("{}{relative}", covenant_codegen::emit::schema_base(&spec)),
            "the $id names the file"
        );
        // Building resolves every $ref, failing on any that points nowhere.
        support::schema_validator(&spec, &relative);
    }
}

#[test]
fn openapi_documents_are_valid_openapi_3_1() {
    let meta = support::read_json(&support::crate_dir().join("tests/meta/openapi-3.1.schema.json"));
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&meta)
        .expect("the OpenAPI 3.1 schema compiles");
    let docs = json_files(&support::crate_dir().join("openapi"));
    assert!(
        docs.iter().any(|p| p.ends_with("main.json"))
            && docs.iter().any(|p| p.ends_with("management.json"))
    );
    for path in docs {
        let doc = support::read_json(&path);
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{}:\n{}",
            path.display(),
            errors.join("\n")
        );
        assert_eq!(doc["openapi"], "3.1.0");
        // Every component schema is itself a valid 2020-12 schema.
        for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
            assert!(
                jsonschema::meta::is_valid(schema),
                "{}: component {name}",
                path.display()
            );
        }
        // Every local $ref points at a component that exists.
        let mut refs = Vec::new();
        collect_refs(&doc, &mut refs);
        for r in refs {
            let name = r
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("non-local $ref {r}"));
            assert!(
                doc["components"]["schemas"].get(name).is_some(),
                "{}: dangling {r}",
                path.display()
            );
        }
    }
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push(r.clone());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[test]
fn main_document_has_security_deprecations_and_webhooks() {
    let doc = support::read_json(&support::crate_dir().join("openapi/main.json"));
    let schemes = doc["components"]["securitySchemes"].as_object().unwrap();
    assert_eq!(schemes["team_api_key"]["name"], "x-service-api-key");
    assert_eq!(schemes["link_token"]["name"], "x-service-link-token");
    let oauth = &doc["paths"]["/v2/link/provider/oauth/{oauth_provider}"]["get"];
    assert_eq!(
        oauth["security"],
        serde_json::json!([{"team_api_key": [], "link_token": []}, {"team_api_key": []}])
    );
    let bulk = &doc["paths"]["/v2/link/bulk_import"]["post"]["responses"];
    assert!(bulk.get("200").is_some() && bulk.get("202").is_some());
    let refresh = &doc["paths"]["/v2/user/refresh/{user_id}"]["post"]["parameters"];
    let timeout = refresh
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "timeout")
        .unwrap();
    assert_eq!(timeout["schema"]["minimum"], 5);
    assert_eq!(timeout["schema"]["maximum"], 60);
    assert_eq!(timeout["schema"]["default"], 10);
    let webhooks = doc["webhooks"].as_object().unwrap();
    assert!(
        webhooks["daily_hypnogram_created"]["post"]["deprecated"]
            .as_bool()
            .unwrap()
    );
    assert!(webhooks.len() >= 10);
    let management = support::read_json(&support::crate_dir().join("openapi/management.json"));
    let teams = &management["paths"]["/v1/org/{org_id}/team"]["get"];
    assert_eq!(
        teams["security"],
        serde_json::json!([{"management_key": []}, {"org_key": []}])
    );
    assert_eq!(
        management["components"]["securitySchemes"]["org_key"]["x-deprecated"],
        true
    );
}

#[test]
fn schemas_and_runtime_check_time_zones_alike() {
    assert_eq!(
        covenant_codegen::ir::TIMEZONE_PATTERN,
        covenant_runtime::TIMEZONE_PATTERN
    );
}
