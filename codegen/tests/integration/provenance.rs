//! Provenance survives into every output: what the deployed client fills and what the toolkit
//! chooses is marked `x-source` in the JSON Schemas and OpenAPI documents of the service
//! spec, and the spec's other faithfulness fixes show in the outputs too.

use covenant_codegen::emit::{openapi, schema_files};
use covenant_codegen::ir::*;
use covenant_codegen::{SourceFile, check_source};
use serde_json::{Value, json};
use std::path::Path;

fn service_spec() -> Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    let (file, checked) = covenant_codegen::check_path(&path).expect("read the service spec");
    match checked.spec {
        Some(spec) => spec,
        None => panic!("{}", checked.diagnostics.render(&file)),
    }
}

fn spec_of(text: &str) -> Spec {
    let file = SourceFile::new("test.covenant", text);
    let checked = check_source(&file);
    match checked.spec {
        Some(spec) => spec,
        None => panic!("{}", checked.diagnostics.render(&file)),
    }
}

fn errors_of(text: &str) -> String {
    let file = SourceFile::new("test.covenant", text);
    let checked = check_source(&file);
    assert!(checked.spec.is_none(), "the spec was accepted");
    checked.diagnostics.render(&file)
}

/// The OpenAPI document of one API, parsed.
fn openapi_of(spec: &Spec, api: &str) -> Value {
    let files = openapi::documents(spec);
    let text = files
        .get(&format!("openapi/{api}.json"))
        .unwrap_or_else(|| panic!("no OpenAPI document for api {api}"));
    serde_json::from_str(text).expect("OpenAPI documents are JSON")
}

/// One generated schema file, parsed.
fn schema_file(spec: &Spec, path: &str) -> Value {
    let files = schema_files(spec);
    let text = files
        .get(&format!("schemas/{path}"))
        .unwrap_or_else(|| panic!("no schema file {path}"));
    serde_json::from_str(text).expect("schema files are JSON")
}

fn operation<'a>(doc: &'a Value, path: &str, method: &str) -> &'a Value {
    let op = &doc["paths"][path][method];
    assert!(op.is_object(), "no operation {method} {path}");
    op
}

fn parameter<'a>(op: &'a Value, name: &str) -> &'a Value {
    op["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("no parameter {name}"))
}

#[test]
fn toolkit_and_deployed_client_enum_values_are_marked() {
    let spec = service_spec();
    let main = openapi_of(&spec, "main");
    let schemas = &main["components"]["schemas"];
    let link = &schemas["LinkProvider"];
    assert_eq!(link["x-source"], "deployed-client");
    assert_eq!(link["x-enum-values"]["coros"]["x-source"], "toolkit");
    assert!(
        link["x-enum-values"].get("oura").is_none(),
        "values without a note of their own are not repeated"
    );
    let labs = &schemas["LabSlug"];
    for filler in ["sonora_quest", "bostonheart"] {
        assert_eq!(
            labs["x-enum-values"][filler]["x-source"], "toolkit",
            "{filler}"
        );
    }
    assert_eq!(
        schemas["MarkerType"]["x-enum-values"]["panel"]["x-source"],
        "deployed-client"
    );
    assert_eq!(schemas["TimeseriesResource"]["x-source"], "toolkit");
    // The same marks in the standalone schema files.
    let file = schema_file(&spec, "enums/LinkProvider.json");
    assert_eq!(file["x-source"], "deployed-client");
    assert_eq!(file["x-enum-values"]["coros"]["x-source"], "toolkit");
}

#[test]
fn auth_lifetimes_carry_their_source() {
    let spec = service_spec();
    let main = openapi_of(&spec, "main");
    let link = &main["components"]["securitySchemes"]["link_token"];
    assert_eq!(
        link["x-lifetime"],
        json!({ "value": "10 minutes", "x-source": "deployed-client" })
    );
    assert_eq!(
        link["x-single-use"],
        json!({ "value": true, "x-source": "deployed-client" })
    );
    assert!(
        link["description"]
            .as_str()
            .unwrap()
            .contains("Not shown by the source: Expiry time of a link token."),
        "the document's silence stays visible beside the filled value"
    );
    let team = &main["components"]["securitySchemes"]["team_api_key"];
    assert!(team.get("x-source").is_none(), "the document's scheme");

    let toolkit = spec_of(
        r#"
api main { base "{base_url}" }
@source(toolkit)
auth ticket: header "x-ticket" {
    principal user
    lifetime 30 minutes
}
endpoint ping: GET "/ping" {
    auth ticket
    response 200: not_shown("Body")
}
"#,
    );
    let doc = openapi_of(&toolkit, "main");
    let ticket = &doc["components"]["securitySchemes"]["ticket"];
    assert_eq!(ticket["x-source"], "toolkit");
    assert_eq!(ticket["x-lifetime"], json!({ "value": "30 minutes" }));
}

#[test]
fn error_statuses_carry_their_source() {
    let spec = service_spec();
    let main = openapi_of(&spec, "main");
    let create = operation(&main, "/v2/user", "post");
    let responses = &create["responses"];
    assert_eq!(responses["404"]["x-source"], "deployed-client");
    assert_eq!(responses["422"]["x-source"], "deployed-client");
    for status in ["401", "403", "413"] {
        assert_eq!(responses[status]["x-source"], "toolkit", "{status}");
    }
    assert!(
        responses["400"].get("x-source").is_none(),
        "the conflict status is the document's"
    );
    let management = openapi_of(&spec, "management");
    let list = operation(&management, "/v1/org/{org_id}/team", "get");
    assert_eq!(list["responses"]["413"]["x-source"], "toolkit");
    let file = schema_file(&spec, "endpoints/create_user/413.json");
    assert_eq!(file["x-source"], "toolkit");
    let file = schema_file(&spec, "endpoints/create_user/400.json");
    assert!(file.get("x-source").is_none());
}

#[test]
fn fields_models_endpoints_and_deprecations_carry_their_source() {
    let spec = service_spec();
    let main = openapi_of(&spec, "main");
    let schemas = &main["components"]["schemas"];
    let recipe = &schemas["ConnectionRecipe"];
    for field in [
        "user_id",
        "access_token",
        "refresh_token",
        "provider_id",
        "expires_at",
    ] {
        assert_eq!(
            recipe["properties"][field]["x-source"], "deployed-client",
            "{field}: its being required is the deployed client's"
        );
    }
    assert!(
        recipe["description"]
            .as_str()
            .unwrap()
            .contains("Not shown by the source: Which connection fields are mandatory.")
    );
    assert_eq!(schemas["BulkOp"]["x-source"], "deployed-client");
    assert_eq!(
        schemas["ConnectedSource"]["properties"]["source"]["x-deprecation"]["x-source"],
        "deployed-client"
    );
    assert!(
        schemas["ConnectedSource"]["properties"]["source"]
            .get("x-source")
            .is_none(),
        "the field itself is the document's"
    );
    let create = operation(&main, "/v2/user", "post");
    assert_eq!(create["x-source"], "deployed-client");
    let order_set = operation(&main, "/v3/lab_tests/list_order_set_markers", "post");
    for name in ["page", "size"] {
        assert_eq!(
            parameter(order_set, name)["x-source"],
            "deployed-client",
            "{name}"
        );
    }
    let file = schema_file(&spec, "models/ConnectionRecipe.json");
    assert_eq!(file["properties"]["user_id"]["x-source"], "deployed-client");
    let file = schema_file(&spec, "endpoints/create_user/request.json");
    assert_eq!(file["x-source"], "deployed-client");
}

#[test]
fn limits_are_listed_with_their_source() {
    let spec = service_spec();
    let main = openapi_of(&spec, "main");
    let import = operation(&main, "/v2/link/bulk_import", "post");
    assert_eq!(import["x-limits"][0]["name"], "wait_for_completion");
    assert_eq!(import["x-limits"][0]["value"], "20 seconds");
    assert!(
        import["x-limits"][0].get("x-source").is_none(),
        "the document's limit"
    );
    let refresh = operation(&main, "/v2/user/refresh/{user_id}", "post");
    assert_eq!(
        refresh["x-limits"][0]["constraints"],
        json!({ "minimum": 5, "maximum": 60, "default": 10 })
    );
    let pull = operation(&main, "/v2/link/bulk_trigger_historical_pull", "post");
    assert_eq!(
        pull["x-rate-limits"][0]["tiers"].as_array().unwrap().len(),
        6
    );
    let general: Vec<&str> = main["x-limits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["name"].as_str())
        .collect();
    assert_eq!(general, ["webhook_payload_size", "api_request_rate"]);

    let marked = spec_of(
        r#"
api main { base "{base_url}" }
auth key: header "x-key" { principal team }
endpoint upload: POST "/upload" {
    auth key
    body { name: string }
    response 200: not_shown("Body")
}
/// How long an upload may take.
@source(toolkit)
limit upload_time = 30 seconds {
    applies upload
}
@source(deployed_client)
rate_limit uploads {
    applies upload
    default(count: 5, per: 1 minute)
}
"#,
    );
    let doc = openapi_of(&marked, "main");
    let upload = operation(&doc, "/upload", "post");
    assert_eq!(
        upload["x-limits"][0],
        json!({
            "name": "upload_time",
            "description": "How long an upload may take.",
            "value": "30 seconds",
            "x-source": "toolkit"
        })
    );
    assert_eq!(upload["x-rate-limits"][0]["x-source"], "deployed-client");
}

#[test]
fn create_user_is_safe_to_repeat_not_unsafe() {
    let spec = service_spec();
    let create = spec.endpoint_named("create_user").unwrap();
    assert!(
        !create.idempotent,
        "a POST is not idempotent in the HTTP sense"
    );
    assert!(create.safe_to_repeat.is_some());
    let main = openapi_of(&spec, "main");
    let op = operation(&main, "/v2/user", "post");
    assert!(
        op["x-safe-to-repeat"]
            .as_str()
            .unwrap()
            .contains("client_user_id")
    );
    assert!(
        op["description"]
            .as_str()
            .unwrap()
            .contains("Safe to repeat:")
    );
    assert!(op.get("x-idempotent").is_none());
    let get = operation(&main, "/v2/user/{user_id}", "get");
    assert_eq!(get["x-idempotent"], true);
    // No document tells a reader that a call is unsafe to repeat.
    for text in openapi::documents(&spec).values() {
        assert!(!text.contains("\"x-idempotent\": false"));
    }
}

#[test]
fn safe_to_repeat_is_for_calls_that_are_not_idempotent() {
    let rendered = errors_of(
        r#"
api main { base "{base_url}" }
auth key: header "x-key" { principal team }
@safe_to_repeat("reading twice reads twice")
endpoint read: GET "/read" {
    auth key
    response 200: not_shown("Body")
}
"#,
    );
    assert!(
        rendered.contains("error[E0113]: `read` is idempotent already"),
        "{rendered}"
    );
}

#[test]
fn addresses_take_the_shape_of_their_side() {
    let spec = service_spec();
    let main = openapi_of(&spec, "main");
    let schemas = &main["components"]["schemas"];
    let address_ref = |model: &str| {
        schemas[model]["properties"]["address"]["$ref"]
            .as_str()
            .unwrap_or_else(|| panic!("{model}.address"))
            .rsplit('/')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(address_ref("PersonDetailsRequest"), "UserAddress");
    assert_eq!(address_ref("PersonDetails"), "Address");
    assert_eq!(address_ref("GuarantorDetailsRequest"), "UserAddress");
    assert_eq!(address_ref("GuarantorDetails"), "Address");
    assert_eq!(address_ref("PatientInfoRequest"), "UserAddress");
    assert_eq!(address_ref("PatientInfo"), "UserAddress");
    // Requests never require the response-only fields of a returned address.
    let user_address = &schemas["UserAddress"];
    assert!(user_address["properties"].get("access_notes").is_none());
    assert!(user_address.get("required").is_none());
    // The insurance request body reaches the request shapes.
    let add = operation(&main, "/v2/user/{user_id}/insurance", "post");
    assert_eq!(
        add["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/InsuranceRecordRequest"
    );
    assert_eq!(
        schemas["InsuranceRecordRequest"]["properties"]["insured"]["$ref"],
        "#/components/schemas/PersonDetailsRequest"
    );
}

#[test]
fn a_name_shared_by_request_and_response_fields_only() {
    let ok = spec_of(
        r#"
model Out { zip: string }
model In { zip_code: string }
model Person {
    @request_only
    address: In
    @response_only
    address: Out
}
"#,
    );
    let person = ok.model_named("Person").unwrap();
    assert_eq!(person.fields.len(), 2);
    assert!(person.has_variants());

    let twice = errors_of(
        r#"
model Person {
    @request_only
    address: string
    address: string
}
"#,
    );
    assert!(
        twice.contains("error[E0122]: field `address` is declared twice in `Person`"),
        "{twice}"
    );
    let defaults = errors_of(
        r#"
model Person {
    @request_only
    note?: string = ""
    @response_only
    note?: string = "-"
}
"#,
    );
    assert!(
        defaults.contains("both shapes of `Person.note` give a default"),
        "{defaults}"
    );
}

#[test]
fn source_on_a_setting_it_cannot_mark_is_an_error() {
    let rendered = errors_of(
        r#"
auth key: header "x-key" {
    @source(deployed_client)
    principal team
}
"#,
    );
    assert!(
        rendered.contains("error[E0113]: `@source` cannot stand on this member"),
        "{rendered}"
    );
}

#[test]
fn daily_data_events_cover_every_provider_resource() {
    let spec = service_spec();
    let resources = spec.enum_named("ProviderResource").unwrap();
    for v in &resources.values {
        for action in ["created", "updated"] {
            if v.name == "workout_stream" && action == "updated" {
                continue; // the document names only its created event
            }
            let ty = format!("daily.data.{}.{action}", v.name);
            assert!(
                spec.events.iter().any(|e| spec.event_produces(e, &ty)),
                "no event produces {ty}"
            );
        }
    }
    // Summaries and timeseries do not overlap: each event type has one payload.
    let summary = spec.enum_named("SummaryResource").unwrap();
    let series = spec.enum_named("TimeseriesResource").unwrap();
    for v in &summary.values {
        assert!(
            !series.values.iter().any(|s| s.name == v.name),
            "{}",
            v.name
        );
    }
}

#[test]
fn toolkit_choices_are_not_the_deployed_clients() {
    let spec = service_spec();
    let facts = spec.sourced_facts();
    let source_of = |path: &str| {
        facts
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, s)| *s)
            .unwrap_or(Provenance::Document)
    };
    for path in [
        "api main error 413",
        "api management error 413",
        "api elsewhere error 413",
        "LinkProvider.coros",
        "LabSlug.sonora_quest",
        "LabSlug.bostonheart",
        "enum TimeseriesResource",
        "states UserDeletion.deleted",
        "states UserDeletion pending_deletion -> deleted",
    ] {
        assert_eq!(source_of(path), Provenance::Toolkit, "{path}");
    }
    for path in [
        "auth link_token lifetime",
        "auth link_token single_use",
        "ConnectedSource.source deprecation",
        "states UserDeletion active -> pending_deletion",
        "states BulkOperation.in_progress",
    ] {
        assert_eq!(source_of(path), Provenance::DeployedClient, "{path}");
    }
    assert_eq!(source_of("enum SummaryResource"), Provenance::Document);
}

#[test]
fn the_link_widget_filter_is_deprecated() {
    let spec = service_spec();
    let body = spec.model_named("CreateLinkTokenRequest").unwrap();
    assert!(
        body.field("filter_on_providers")
            .unwrap()
            .deprecated
            .is_some()
    );
}

/// Strings the document's character set admits, under the spec's reading: Latin letters
/// (accented or not, precomposed or followed by combining marks), digits, space and
/// ( ) , / : ' | & _ - ’.
const SEARCH_ACCEPTED: &[&str] = &[
    "",
    "Acme Health",
    "abcXYZ 0123456789",
    "é",
    "ñ",
    "ạ",
    "ế",
    "ø",
    "ł",
    "Ærø",
    "Ştefan Ţară",
    "Nguyễn Thị Ánh",
    "Zoë & Chloé (EU) - 2/3: 'x' | y_z",
    "Team’s",
    "Cafe\u{301}",
    "e\u{302}\u{301}",
    "ß",
    "æ",
    "þ",
];

/// Strings it does not.
const SEARCH_REJECTED: &[&str] = &[
    "Ωmega",
    "Кирилл",
    "東京",
    "a×b",
    "a÷b",
    "\u{250}",
    "a@b",
    "x.y",
    "#1",
    "100%",
    "\"quoted\"",
    "tab\there",
    "line\nbreak",
    "\u{301}",
    "1\u{301}",
    " \u{301}",
    "😀",
];

fn search_query_schema(spec: &Spec) -> Value {
    let management = openapi_of(spec, "management");
    let list = operation(&management, "/v1/org/{org_id}/team", "get");
    parameter(list, "search_query")["schema"].clone()
}

#[test]
fn search_query_pattern_admits_latin_letters_with_their_accents() {
    let spec = service_spec();
    let list = spec.endpoint_named("list_teams").unwrap();
    let field = &list
        .params
        .iter()
        .find(|p| p.field.name == "search_query")
        .unwrap()
        .field;
    let pattern = field.constraints.pattern.as_deref().unwrap();
    assert_eq!(field.constraints.max_length, Some(80));

    // Rust's regex, as the generated validation uses it.
    let re = regex::Regex::new(pattern).expect("the pattern compiles in Rust's regex");
    for s in SEARCH_ACCEPTED {
        assert!(re.is_match(s), "regex rejects {s:?}");
    }
    for s in SEARCH_REJECTED {
        assert!(!re.is_match(s), "regex accepts {s:?}");
    }

    // ECMA-262 as JSON Schema reads it: the emitted parameter schema, validated by the
    // jsonschema crate, and the pattern itself valid under the `regex` format.
    let schema = search_query_schema(&spec);
    assert_eq!(schema["pattern"], pattern);
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    for s in SEARCH_ACCEPTED {
        assert!(validator.is_valid(&json!(s)), "JSON Schema rejects {s:?}");
    }
    for s in SEARCH_REJECTED {
        assert!(!validator.is_valid(&json!(s)), "JSON Schema accepts {s:?}");
    }
    assert!(
        validator.is_valid(&Value::Null),
        "the parameter may be null"
    );
    assert!(validator.is_valid(&json!("a".repeat(80))));
    assert!(
        !validator.is_valid(&json!("a".repeat(81))),
        "over 80 characters"
    );
    let regex_format = jsonschema::options()
        .should_validate_formats(true)
        .build(&json!({ "type": "string", "format": "regex" }))
        .unwrap();
    assert!(
        !regex_format.is_valid(&json!("[a-")),
        "the format check is live"
    );
    assert!(
        regex_format.is_valid(&json!(pattern)),
        "not an ECMA-262 regular expression: {pattern}"
    );
}
