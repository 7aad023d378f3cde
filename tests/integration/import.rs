//! `covenant import`: exit statuses, the last line, the report, unreadable documents named
//! at their line and column, standard input, and the round trip through `generate`.

use std::io::Write;
use std::process::{Command, Stdio};

pub(crate) fn covenant(
    args: &[&str],
    dir: &std::path::Path,
    stdin: Option<&str>,
) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run covenant");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The OpenAPI document `generate` writes from `spec`, in `dir`.
fn generated_openapi(dir: &std::path::Path, spec: &str) -> serde_json::Value {
    std::fs::write(dir.join("imported.covenant"), spec).unwrap();
    let (code, _, stderr) = covenant(
        &["generate", "--spec", "imported.covenant", "--out", "out"],
        dir,
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(dir.join("out/openapi/main.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

const LOSSLESS: &str = r##"{"openapi": "3.0.3", "info": {"title": "Notes", "version": "1"},
  "servers": [{"url": "https://notes.example.com/v1"}],
  "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
    "schemas": {"Note": {"type": "object", "required": ["id"], "properties": {
      "id": {"type": "string", "format": "uuid"}, "text": {"type": "string", "maxLength": 200}}}}},
  "security": [{"key": []}],
  "paths": {"/notes/{id}": {"get": {"operationId": "getNote", "summary": "Read a note.",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}}],
    "responses": {"200": {"description": "The note.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Note"}}}},
      "404": {"description": "No such note."}}}}}}"##;

#[test]
fn a_document_the_spec_states_whole_exits_0_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.json"), LOSSLESS).unwrap();
    let (code, stdout, stderr) = covenant(&["import", "notes.json"], dir.path(), None);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some("imported 1 operations: 1 stated fully, 0 with losses, 0 left out")
    );
    assert!(
        stdout.contains("endpoint get_note: GET \"/notes/{id}\" {"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    error 404\n"),
        "a bodiless error: {stdout}"
    );
    assert!(stdout.contains("@max_length(200)"), "{stdout}");
    std::fs::write(dir.path().join("notes.covenant"), &stdout).unwrap();
    let (code, _, stderr) = covenant(&["check", "notes.covenant"], dir.path(), None);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn losses_exit_1_and_are_marked_in_the_spec_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let lossy = LOSSLESS.replace(
        r#""404": {"description": "No such note."}"#,
        r#""3XX": {"description": "Elsewhere."}"#,
    );
    std::fs::write(dir.path().join("notes.json"), lossy).unwrap();
    let (code, _, stderr) = covenant(
        &[
            "import",
            "notes.json",
            "--out",
            "notes.covenant",
            "--report",
            "report.json",
        ],
        dir.path(),
        None,
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some("imported 1 operations: 0 stated fully, 1 with losses, 0 left out")
    );
    let spec = std::fs::read_to_string(dir.path().join("notes.covenant")).unwrap();
    assert!(
        spec.contains(r##"@lossy("#/paths/~1notes~1{id}/get/responses/3XX", "the status range `3XX`: left out")"##),
        "{spec}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["operations"][0]["status"], "with_losses");
    assert_eq!(report["operations"][0]["endpoint"], "get_note");
    assert_eq!(
        report["losses"][0]["pointer"],
        "#/paths/~1notes~1{id}/get/responses/3XX"
    );
}

#[test]
fn an_unreadable_document_is_named_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.json"),
        "{\n  \"openapi\": \"3.0.3\",\n  \"info\": ]\n}\n",
    )
    .unwrap();
    let (code, stdout, stderr) = covenant(&["import", "broken.json"], dir.path(), None);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains("broken.json:3:11: "), "{stderr}");
    std::fs::write(
        dir.path().join("broken.yaml"),
        "openapi: 3.1.0\ninfo:\n  title: [unclosed\n",
    )
    .unwrap();
    let (code, _, stderr) = covenant(&["import", "broken.yaml"], dir.path(), None);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("broken.yaml:4:1: "), "{stderr}");
    let (code, _, stderr) = covenant(&["import", "-"], dir.path(), Some("{\"swagger\": \"1.2\"}"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("Swagger \"1.2\" is not supported"),
        "{stderr}"
    );
}

#[test]
fn standard_input_in_yaml_reads_as_a_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "openapi: 3.1.0\ninfo: {title: Ping, version: '1'}\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses:\n        200:\n          description: Pong.\n          content:\n            text/plain:\n              schema: {type: string}\n";
    let (code, stdout, stderr) = covenant(&["import", "-"], dir.path(), Some(yaml));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("response 200: string \"text/plain\""),
        "{stdout}"
    );
    assert!(stdout.contains("    public\n"), "{stdout}");
}

/// Importing what `generate` writes gives back the service: every operation, each with its
/// statuses, and all but a few stated whole.
#[test]
fn the_openapi_generate_writes_imports_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let document = format!("{root}/generated/openapi/main.json");
    let (_, _, stderr) = covenant(
        &["import", &document, "--out", "main.covenant"],
        dir.path(),
        None,
    );
    let counts: Vec<usize> = stderr
        .lines()
        .last()
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let [total, full, _, left_out] = counts[..] else {
        panic!("{stderr}");
    };
    assert_eq!(left_out, 0, "{stderr}");
    assert!(
        full * 10 >= total * 9,
        "fewer than 90% stated whole: {stderr}"
    );
    let (code, _, stderr) = covenant(
        &["generate", "--spec", "main.covenant", "--out", "again"],
        dir.path(),
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let operations = |path: &str| -> Vec<(String, String, Vec<String>)> {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut out = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let mut statuses: Vec<String> = op["responses"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .cloned()
                    .collect();
                statuses.sort();
                out.push((method.clone(), path.clone(), statuses));
            }
        }
        out.sort();
        out
    };
    let again = dir.path().join("again/openapi/main.json");
    assert_eq!(operations(&document), operations(again.to_str().unwrap()));
}

const RANGES: &str = r##"{"openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
  "components": {"schemas": {"Problem": {"type": "object", "required": ["message"],
    "properties": {"message": {"type": "string"}}}}},
  "paths": {"/pets": {"get": {"operationId": "listPets",
    "responses": {"200": {"description": "The pets.", "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}},
      "404": {"description": "None."},
      "4XX": {"description": "Any other client error.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
      "5XX": {"description": "A fault.", "headers": {"Retry-After": {"schema": {"type": "integer"}}}},
      "default": {"description": "Anything else.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}}}}}}"##;

/// Status classes and `default` are stated, not lost, and come back out of `generate` under
/// the same keys.
#[test]
fn status_classes_and_default_import_whole_and_generate_back() {
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(RANGES));
    assert_eq!(code, 0, "{stderr}");
    for line in [
        "    error 404\n",
        "    error 4XX: Problem\n",
        "    error 5XX headers {\n",
        "    error default: Problem\n",
    ] {
        assert!(spec.contains(line), "{line:?} in {spec}");
    }
    let written = generated_openapi(dir.path(), &spec);
    let responses = written["paths"]["/pets"]["get"]["responses"]
        .as_object()
        .unwrap();
    let keys: Vec<&str> = responses.keys().map(String::as_str).collect();
    assert_eq!(keys, ["200", "404", "4XX", "5XX", "default"]);
    assert_eq!(
        responses["5XX"]["headers"]["Retry-After"]["schema"]["type"],
        "integer"
    );
}

/// `anyOf: [T, null]` is a field of `T` that may be null: `T`'s open format and constraints
/// are the field's, stated rather than lost.
#[test]
fn a_nullable_member_keeps_its_format_and_constraints() {
    let document = r##"{"openapi": "3.1.0", "info": {"title": "Keys", "version": "1"},
      "components": {"schemas": {"Key": {"type": "object", "required": ["expires_at"],
        "properties": {"expires_at": {"anyOf": [
          {"type": "integer", "format": "unixtime", "minimum": 0}, {"type": "null"}]}}}}},
      "paths": {"/keys": {"get": {"operationId": "listKeys",
        "responses": {"200": {"description": "Keys.", "content": {"application/json":
          {"schema": {"$ref": "#/components/schemas/Key"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        spec.contains("    @min(0)\n    @format(\"unixtime\")\n    expires_at: int | null\n"),
        "{spec}"
    );
}

const NAMED: &str = r##"{"openapi": "3.0.3", "info": {"title": "Chat", "version": "1"},
  "components": {"schemas": {
    "Snowflake": {"type": "string", "pattern": "^[0-9]+$", "format": "snowflake"},
    "Kind": {"type": "integer", "oneOf": [{"title": "TEXT", "const": 4}]},
    "Details": {"oneOf": [
      {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Details"}},
      {"$ref": "#/components/schemas/Inner"}]},
    "Inner": {"type": "object", "required": ["_errors"], "properties": {
      "_errors": {"type": "array", "items": {"type": "string"}}}},
    "Window": {"type": "object", "properties": {"size": {"type": "integer"}}},
    "Channel": {"type": "object", "required": ["id", "members"], "properties": {
      "id": {"$ref": "#/components/schemas/Snowflake"},
      "kind": {"$ref": "#/components/schemas/Kind"},
      "members": {"type": "array", "uniqueItems": true, "items": {"$ref": "#/components/schemas/Snowflake"}},
      "topics": {"type": "array", "items": {"type": "string", "maxLength": 20}},
      "labels": {"type": "object", "maxProperties": 5, "additionalProperties": {"type": "string"}},
      "window": {"allOf": [{"$ref": "#/components/schemas/Window"}, {"nullable": true}]},
      "errors": {"$ref": "#/components/schemas/Details"}}}}},
  "paths": {"/channels": {"get": {"operationId": "listChannels",
    "responses": {"200": {"description": "Channels.", "content": {"application/json":
      {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Channel"}}}}}}}}}}"##;

/// What a list's items and a map's values are constrained by is stated on named types, a
/// union that contains itself is declared with its name, and the idioms around them (a
/// nullable reference through `allOf`, an enum of one number) are stated, not lost.
#[test]
fn constrained_items_and_a_union_holding_itself_import_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(NAMED));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    for text in [
        "@format(\"snowflake\")\n@pattern(\"^[0-9]+$\")\ntype Snowflake = string\n",
        "    @unique_items\n    members: Snowflake[]\n",
        "@max_length(20)\ntype ChannelTopicsItem = string\n",
        "    topics?: ChannelTopicsItem[]\n",
        "    @max_items(5)\n    labels?: map<string, string>\n",
        "    window?: Window | null\n",
        "type Details = map<string, Details> | Inner\n",
        "enum Kind: int {\n",
    ] {
        assert!(spec.contains(text), "{text:?} in {spec}");
    }
    let written = generated_openapi(dir.path(), &spec);
    let schemas = &written["components"]["schemas"];
    assert_eq!(
        schemas["Channel"]["properties"]["members"]["items"]["pattern"],
        "^[0-9]+$"
    );
    assert_eq!(
        schemas["Details"]["anyOf"][0]["additionalProperties"]["$ref"],
        "#/components/schemas/Details"
    );
}

/// Several OAuth 2.0 flows sharing their URLs are stated together, and `generate` writes
/// each back.
#[test]
fn oauth_flows_sharing_their_urls_import_whole() {
    let document = r##"{"openapi": "3.1.0", "info": {"title": "Chat", "version": "1"},
      "components": {"securitySchemes": {"login": {"type": "oauth2", "flows": {
        "implicit": {"authorizationUrl": "https://chat.example/authorize", "scopes": {"read": ""}},
        "authorizationCode": {"authorizationUrl": "https://chat.example/authorize",
          "tokenUrl": "https://chat.example/token", "scopes": {"read": "", "write": ""}},
        "clientCredentials": {"tokenUrl": "https://chat.example/token", "scopes": {"bot": ""}}}}}},
      "security": [{"login": ["read"]}],
      "paths": {"/me": {"get": {"operationId": "me",
        "responses": {"204": {"description": "Fine."}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    assert!(
        spec.contains("    flows authorization_code, client_credentials, implicit\n"),
        "{spec}"
    );
    let written = generated_openapi(dir.path(), &spec);
    let flows = &written["components"]["securitySchemes"]["login"]["flows"];
    let mut keys: Vec<&str> = flows
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["authorizationCode", "clientCredentials", "implicit"]);
    assert_eq!(flows["implicit"].get("tokenUrl"), None);
    assert_eq!(
        flows["clientCredentials"]["tokenUrl"],
        "https://chat.example/token"
    );
}

/// Boolean and whole-number constants (`enum: [true]`, `const: 2`) are fields of one value,
/// stated, not lost; a union of models told apart by one reads back as such.
#[test]
fn boolean_and_number_constants_import_whole() {
    let document = r##"{"swagger": "2.0", "info": {"title": "Chat", "version": "1"},
      "definitions": {
        "ok_true": {"type": "boolean", "enum": [true]},
        "posted": {"type": "object", "required": ["ok", "version"], "properties": {
          "ok": {"$ref": "#/definitions/ok_true"}, "version": {"type": "integer", "enum": [2]}}},
        "failed": {"type": "object", "required": ["ok", "error"], "properties": {
          "ok": {"type": "boolean", "enum": [false]}, "error": {"type": "string"}}}},
      "paths": {"/chat.postMessage": {"post": {"operationId": "postMessage",
        "responses": {"200": {"description": "Posted.", "schema": {"$ref": "#/definitions/posted"}},
          "default": {"description": "Refused.", "schema": {"$ref": "#/definitions/failed"}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    for text in ["    ok: true\n", "    version: 2\n", "    ok: false\n"] {
        assert!(spec.contains(text), "{text:?} in {spec}");
    }
}

/// A format written in words (Rebilly's `ipv4 or ipv6`) names no format: it is marked as a
/// loss, and the spec still checks.
#[test]
fn a_format_in_words_is_marked_not_written() {
    let document = r##"{"openapi": "3.0.3", "info": {"title": "Hosts", "version": "1"},
      "components": {"schemas": {"Host": {"type": "object", "required": ["ip"], "properties": {
        "ip": {"type": "string", "format": "ipv4 or ipv6"},
        "aliases": {"type": "array", "items": {"type": "string", "format": "ipv4 or ipv6"}}}}}},
      "paths": {"/hosts": {"get": {"operationId": "listHosts",
        "responses": {"200": {"description": "Hosts.", "content": {"application/json":
          {"schema": {"$ref": "#/components/schemas/Host"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 1, "{stderr}\n{spec}");
    assert!(
        spec.contains("\"the format `ipv4 or ipv6`: a plain string\")\n    ip: string\n"),
        "{spec}"
    );
    assert!(!spec.contains("@format(\"ipv4 or ipv6\")"), "{spec}");
}

/// Stripe's shapes: `expand` and a `created` filter in brackets on a query, a joined list,
/// and a form whose fields hold a map and a list of objects. All stated; the OpenAPI that
/// `generate` writes says the same styles back.
#[test]
fn queries_and_forms_in_brackets_import_whole() {
    let document = r##"{"openapi": "3.0.0", "info": {"title": "Payments", "version": "1"},
      "components": {"schemas": {
        "range": {"type": "object", "properties": {"gt": {"type": "integer"}, "lte": {"type": "integer"}}},
        "order": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}},
      "paths": {"/v1/orders": {
        "get": {"operationId": "GetOrders", "parameters": [
          {"name": "expand", "in": "query", "style": "deepObject", "explode": true,
           "schema": {"type": "array", "items": {"type": "string", "maxLength": 5000}}},
          {"name": "created", "in": "query", "style": "deepObject", "explode": true,
           "schema": {"anyOf": [{"$ref": "#/components/schemas/range"}, {"type": "integer"}]}},
          {"name": "ids", "in": "query", "style": "form", "explode": false,
           "schema": {"type": "array", "items": {"type": "string"}}}],
          "responses": {"200": {"description": "Orders.", "content": {"application/json":
            {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/order"}}}}}}},
        "post": {"operationId": "PostOrders", "requestBody": {"required": true, "content": {
          "application/x-www-form-urlencoded": {
            "encoding": {"expand": {"style": "deepObject", "explode": true},
                         "metadata": {"style": "deepObject", "explode": true},
                         "items": {"style": "deepObject", "explode": true}},
            "schema": {"type": "object", "required": ["items"], "properties": {
              "expand": {"type": "array", "items": {"type": "string"}},
              "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
              "items": {"type": "array", "items": {"type": "object", "required": ["price"],
                "properties": {"price": {"type": "string"}, "quantity": {"type": "integer"}}}}}}}}},
          "responses": {"200": {"description": "The order.", "content": {"application/json":
            {"schema": {"$ref": "#/components/schemas/order"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    for text in [
        "@style(deep)\n    query expand?: GetOrdersExpandItem[]",
        "@style(deep)\n    query created?:",
        "@style(comma)\n    query ids?: string[]",
        "@style(deep)\n    expand?: string[]",
        "    metadata?: map<string, string>\n",
    ] {
        assert!(spec.contains(text), "{text:?} in {spec}");
    }
    let openapi = generated_openapi(dir.path(), &spec);
    let get = &openapi["paths"]["/v1/orders"]["get"]["parameters"];
    let style = |name: &str| {
        let p = get
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap();
        (p["style"].clone(), p["explode"].clone())
    };
    assert_eq!(
        style("created"),
        (serde_json::json!("deepObject"), serde_json::json!(true))
    );
    assert_eq!(
        style("ids"),
        (serde_json::json!("form"), serde_json::json!(false))
    );
    let form = &openapi["paths"]["/v1/orders"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]
        ["encoding"];
    for field in ["expand", "metadata", "items"] {
        assert_eq!(form[field]["style"], "deepObject", "{field}: {form}");
    }
}

/// A HEAD operation is an endpoint of its own, its answer's body marked and left out; a
/// second operation on a route, told apart by a query in its path, is reported with the
/// endpoint it reaches, which carries its marker. Nothing is left out.
#[test]
fn head_operations_and_query_told_routes_are_stated() {
    let document = r##"{"openapi": "3.0.3", "info": {"title": "Things", "version": "1"},
      "paths": {
        "/things": {
          "get": {"operationId": "listThings", "responses": {"200": {"description": "Things.",
            "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}}},
          "head": {"operationId": "countThings", "responses": {"200": {"description": "OK.",
            "headers": {"X-Total-Count": {"schema": {"type": "integer"}}},
            "content": {"application/json": {"schema": {"type": "string"}}}}}},
          "post": {"operationId": "createThing", "responses": {"201": {"description": "Made."}}}},
        "/things?beta=true": {
          "post": {"operationId": "createThingBeta", "responses": {"201": {"description": "Made."}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 1, "{stderr}\n{spec}");
    assert_eq!(
        stderr.lines().last(),
        Some("imported 4 operations: 2 stated fully, 2 with losses, 0 left out"),
        "{stderr}"
    );
    assert!(
        spec.contains("endpoint count_things: HEAD \"/things\""),
        "{spec}"
    );
    assert!(
        spec.contains(r##"@lossy("#/paths/~1things/head/responses/200", "a body on an answer to HEAD: no body")"##),
        "{spec}"
    );
    assert!(
        spec.contains("told apart by `?beta=true`: `create_thing`, which it reaches\")\nendpoint create_thing: POST"),
        "{spec}"
    );
    let openapi = generated_openapi(dir.path(), &spec);
    let head = &openapi["paths"]["/things"]["head"];
    assert_eq!(head["operationId"], "count_things", "{head}");
    assert!(head["responses"]["200"].get("content").is_none(), "{head}");
}

/// Groups of optional fields (`oneOf`/`anyOf` of `required`, and no two together under
/// `not`) import as `@exactly_one_of`, `@at_least_one_of` and `@at_most_one_of`, and the
/// OpenAPI `generate` writes from them imports back to the same groups.
#[test]
fn field_groups_import_whole_and_back() {
    let document = r##"{"openapi": "3.1.0", "info": {"title": "Pay", "version": "1"},
      "components": {"schemas": {"method": {"type": "object",
        "properties": {"card": {"type": "string"}, "bank_account": {"type": "string"},
          "email": {"type": "string"}, "phone": {"type": "string"}, "name": {"type": "string"}},
        "oneOf": [{"required": ["card"]}, {"required": ["bank_account"]}],
        "anyOf": [{"required": ["name"]}, {"required": ["email"]}],
        "not": {"anyOf": [{"required": ["email", "phone"]}]}}}},
      "paths": {"/methods": {"post": {"operationId": "createMethod",
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/method"}}}},
        "responses": {"201": {"description": "Made.", "content": {"application/json":
          {"schema": {"$ref": "#/components/schemas/method"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    let groups = [
        "@exactly_one_of(card, bank_account)\n",
        "@at_least_one_of(name, email)\n",
        "@at_most_one_of(email, phone)\n",
    ];
    for group in groups {
        assert!(spec.contains(group), "{group:?} in {spec}");
    }
    let openapi = generated_openapi(dir.path(), &spec);
    let (code, again, stderr) = covenant(&["import", "-"], dir.path(), Some(&openapi.to_string()));
    assert_eq!(code, 0, "{stderr}\n{again}");
    for group in groups {
        assert!(again.contains(group), "{group:?} in {again}");
    }
}

/// Plaid's requirement: a client id, a secret and a version header in one requirement
/// object, each a scheme of its own. They are sent together, and read back so.
#[test]
fn schemes_required_together_import_whole_and_back() {
    let document = r##"{"openapi": "3.0.0", "info": {"title": "Bank", "version": "1"},
      "components": {"securitySchemes": {
        "clientId": {"type": "apiKey", "in": "header", "name": "PLAID-CLIENT-ID"},
        "secret": {"type": "apiKey", "in": "header", "name": "PLAID-SECRET"},
        "plaidVersion": {"type": "apiKey", "in": "header", "name": "Plaid-Version"}}},
      "security": [{"clientId": [], "secret": [], "plaidVersion": []}],
      "paths": {"/accounts/get": {"post": {"operationId": "accountsGet",
        "responses": {"200": {"description": "The accounts.", "content": {"application/json":
          {"schema": {"type": "object", "properties": {"count": {"type": "integer"}}}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    assert!(
        spec.contains("auth client_id & secret & plaid_version\n"),
        "{spec}"
    );
    let openapi = generated_openapi(dir.path(), &spec);
    let operation = &openapi["paths"]["/accounts/get"]["post"];
    assert_eq!(
        operation["security"],
        serde_json::json!([{"client_id": [], "secret": [], "plaid_version": []}])
    );
    let (code, again, stderr) = covenant(&["import", "-"], dir.path(), Some(&openapi.to_string()));
    assert_eq!(code, 0, "{stderr}\n{again}");
    assert!(
        again.contains("auth client_id & secret & plaid_version\n"),
        "{again}"
    );
}

/// What SendGrid's and Plaid's documents state that the types already say: a 204 whose
/// content is `type: null` or an object of no fields, a uuid of 36 characters, currency
/// codes of three. Nothing is lost; a 204 naming fields it cannot send still is.
#[test]
fn bounds_and_bodies_the_types_already_state_are_no_losses() {
    let document = r##"{"openapi": "3.0.0", "info": {"title": "Mail", "version": "1"},
      "components": {"schemas": {
        "Currency": {"type": "string", "enum": ["GBP", "EUR"], "minLength": 3, "maxLength": 3},
        "Template": {"type": "object", "properties": {
          "id": {"type": "string", "format": "uuid", "minLength": 36, "maxLength": 36},
          "currency": {"$ref": "#/components/schemas/Currency"}}}}},
      "paths": {
        "/templates/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
          "get": {"operationId": "getTemplate", "responses": {"200": {"description": "The template.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Template"}}}}}},
          "delete": {"operationId": "deleteTemplate", "responses": {"204": {"description": "Gone.",
            "content": {"application/json": {"schema": {"type": "null"}}}}}},
          "patch": {"operationId": "touchTemplate", "responses": {"204": {"description": "Touched.",
            "content": {"application/json": {"schema": {"type": "object", "properties": {}}}}}}}},
        "/templates": {"post": {"operationId": "clearTemplates", "responses": {"204": {"description": "Cleared.",
          "content": {"application/json": {"schema": {"type": "object", "properties": {"errors": {"type": "array", "items": {"type": "string"}}}}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 1, "{stderr}\n{spec}");
    assert!(
        stderr.ends_with("imported 4 operations: 3 stated fully, 1 with losses, 0 left out\n"),
        "{stderr}"
    );
    assert!(spec.contains("a body on a 204 response"), "{spec}");
}

/// A typed event stream (OpenAI's) imports as a list streamed item by item, and the OpenAPI
/// `generate` writes for it reads back the same.
#[test]
fn typed_streams_import_whole_and_back() {
    let document = r##"{"openapi": "3.1.0", "info": {"title": "Chat", "version": "1"},
      "components": {"schemas": {"Chunk": {"type": "object", "required": ["delta"],
        "properties": {"delta": {"type": "string"}}}}},
      "paths": {"/chat": {"post": {"operationId": "chat",
        "responses": {"200": {"description": "The answer, piece by piece.", "content":
          {"text/event-stream": {"schema": {"$ref": "#/components/schemas/Chunk"}}}}}}},
        "/export": {"get": {"operationId": "export",
        "responses": {"200": {"description": "Every chunk.", "content":
          {"application/x-ndjson": {"itemSchema": {"$ref": "#/components/schemas/Chunk"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    assert!(
        spec.contains("response 200: Chunk[] \"text/event-stream\"\n"),
        "{spec}"
    );
    assert!(
        spec.contains("response 200: Chunk[] \"application/x-ndjson\"\n"),
        "{spec}"
    );
    let openapi = generated_openapi(dir.path(), &spec);
    let (code, again, stderr) = covenant(&["import", "-"], dir.path(), Some(&openapi.to_string()));
    assert_eq!(code, 0, "{stderr}\n{again}");
    assert!(
        again.contains("response 200: Chunk[] \"text/event-stream\"\n"),
        "{again}"
    );
}

/// What other published documents hold and the spec once refused after import: an HTML
/// `default` error, a body on OPTIONS, an error model whose status is bounded, operations
/// told apart by a fragment, and operations kept in other files. Each is marked or reported,
/// and the spec checks.
#[test]
fn documents_of_other_apis_import_to_a_spec_that_checks() {
    let document = r##"{"openapi": "3.0.2", "info": {"title": "Files", "version": "1"},
      "components": {"schemas": {"Error": {"type": "object", "required": ["status", "message"],
        "properties": {"status": {"type": "integer", "minimum": 400, "maximum": 599},
          "message": {"type": "string"}}}}},
      "paths": {
        "/authorize": {"get": {"operationId": "authorize", "responses": {
          "200": {"description": "A page.", "content": {"application/json": {"schema": {"type": "object"}}}},
          "default": {"description": "An error page.", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
        "/files/content": {"options": {"operationId": "filesOptions",
          "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
          "responses": {"200": {"description": "Allowed."},
            "401": {"description": "No.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}},
        "/files/{id}": {"put": {"operationId": "putFile",
          "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
          "responses": {"200": {"description": "Put."}}}},
        "/files/{id}#add_shared_link": {"put": {"operationId": "addSharedLink",
          "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
          "responses": {"200": {"description": "Shared."}}}},
        "/oauth2/token#refresh": {"post": {"operationId": "refreshToken",
          "responses": {"200": {"description": "Refreshed."}}}},
        "/elsewhere": {"$ref": "resources/elsewhere.yml"},
        "/apps": {"get": {"$ref": "resources/apps_list.yml"}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 1, "{stderr}\n{spec}");
    assert_eq!(
        stderr.lines().last(),
        Some("imported 7 operations: 1 stated fully, 4 with losses, 2 left out"),
        "{stderr}"
    );
    for text in [
        "endpoint refresh_token: POST \"/oauth2/token\"",
        "told apart by `#add_shared_link`: `put_file`, which it reaches",
        "a body written as it is on the default error",
        "\"a body on OPTIONS: left out\")",
    ] {
        assert!(spec.contains(text), "{text:?} in {spec}");
    }
    assert!(
        !spec.contains('#') || !spec.contains("\"/files/{id}#"),
        "{spec}"
    );
    std::fs::write(dir.path().join("files.covenant"), &spec).unwrap();
    let (code, out, err) = covenant(&["check", "files.covenant"], dir.path(), None);
    assert_eq!(code, 0, "{out}{err}");
}

/// A schema merged into two models loses the same thing in both: each place is marked, and
/// the report names the loss once.
#[test]
fn a_loss_met_twice_is_reported_once() {
    let document = r##"{"openapi": "3.0.3", "info": {"title": "Designs", "version": "1"},
      "components": {"schemas": {
        "Base": {"type": "object", "properties": {"created_at": {"type": "string", "format": "ISO 8601 date-time"}}},
        "Design": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {"name": {"type": "string"}}}]},
        "Summary": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {"id": {"type": "string"}}}]}}},
      "paths": {"/designs": {"get": {"operationId": "listDesigns", "responses": {"200": {"description": "Designs.",
        "content": {"application/json": {"schema": {"type": "object", "properties": {
          "design": {"$ref": "#/components/schemas/Design"}, "summary": {"$ref": "#/components/schemas/Summary"}}}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("designs.json"), document).unwrap();
    let (code, spec, stderr) = covenant(
        &["import", "designs.json", "--report", "report.json"],
        dir.path(),
        None,
    );
    assert_eq!(code, 1, "{stderr}\n{spec}");
    let pointer = "#/components/schemas/Base/properties/created_at/format";
    assert!(spec.matches(pointer).count() >= 2, "{spec}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let listed = report["losses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["pointer"] == pointer)
        .count();
    assert_eq!(listed, 1, "{report}");
}

/// A discriminator without a mapping names each member by its schema's name, though each
/// member fixes the tag to another value (OpenAI's usage buckets): the document contradicts
/// itself. The spec tells the members apart by their own values, the operation stays stated
/// fully, and the report lists the fault apart from the losses. So does a `required` that
/// names a field twice.
#[test]
fn faults_of_the_document_are_reported_apart_from_losses() {
    let document = r##"{"openapi": "3.0.0", "info": {"title": "Usage", "version": "1"},
      "components": {"schemas": {
        "Completions": {"type": "object", "required": ["object"], "properties": {
          "object": {"type": "string", "enum": ["usage.completions"]}, "tokens": {"type": "integer"}}},
        "Images": {"type": "object", "required": ["object", "object"], "properties": {
          "object": {"type": "string", "enum": ["usage.images"]}, "count": {"type": "integer"}}},
        "Result": {"oneOf": [{"$ref": "#/components/schemas/Completions"}, {"$ref": "#/components/schemas/Images"}],
          "discriminator": {"propertyName": "object"}},
        "Mapped": {"oneOf": [{"$ref": "#/components/schemas/Completions"}, {"$ref": "#/components/schemas/Images"}],
          "discriminator": {"propertyName": "object", "mapping": {
            "usage.completions": "#/components/schemas/Completions", "usage.images": "Images"}}}}},
      "paths": {
        "/usage": {"get": {"operationId": "usage", "responses": {"200": {"description": "Buckets.",
          "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Result"}}}}}}}},
        "/mapped": {"get": {"operationId": "mapped", "responses": {"200": {"description": "Buckets.",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Mapped"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("usage.json"), document).unwrap();
    let (code, spec, stderr) = covenant(
        &["import", "usage.json", "--report", "report.json"],
        dir.path(),
        None,
    );
    assert_eq!(code, 0, "{stderr}\n{spec}");
    assert!(
        stderr.ends_with("imported 2 operations: 2 stated fully, 0 with losses, 0 left out\n"),
        "{stderr}"
    );
    assert!(!spec.contains("@lossy("), "{spec}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let faults = report["faults"].as_array().expect("faults");
    assert_eq!(faults.len(), 2, "{report:#}");
    let discriminator = faults
        .iter()
        .find(|f| f["pointer"] == "#/components/schemas/Result/discriminator")
        .expect("the discriminator's fault");
    let construct = discriminator["construct"].as_str().unwrap();
    assert!(
        construct
            .contains("`Completions` for a member whose `object` is always `usage.completions`"),
        "{construct}"
    );
    let operations = report["operations"].as_array().unwrap();
    let usage = operations.iter().find(|o| o["path"] == "/usage").unwrap();
    // Both operations reach `Images`, whose `required` names a field twice.
    assert_eq!(usage["faults"].as_array().map(Vec::len), Some(2));
    let mapped = operations.iter().find(|o| o["path"] == "/mapped").unwrap();
    assert_eq!(
        mapped["faults"][0]["pointer"],
        "#/components/schemas/Images/required"
    );
    // The members' own values tell them apart in the spec, so `check` accepts it.
    std::fs::write(dir.path().join("usage.covenant"), &spec).unwrap();
    let (code, _, stderr) = covenant(&["check", "usage.covenant"], dir.path(), None);
    assert_eq!(code, 0, "{stderr}");
}
