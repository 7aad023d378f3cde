//! Idioms of published documents `import` states exactly: Swagger 2.0's `produces` on
//! answers without a body (the Docker Engine API), answers to HEAD, and `allOf` parts that
//! only restate an object or make its fields required (Asana).

use super::import::covenant;

/// Swagger 2.0 lists the media types of every answer of an operation: an answer without a
/// body, and an answer to HEAD whose body goes, keep none, so the spec checks.
#[test]
fn media_types_of_answers_without_a_body_are_not_written() {
    let document = r##"{"swagger": "2.0", "info": {"title": "Engine", "version": "1"},
      "produces": ["application/json", "text/plain"],
      "definitions": {"ErrorResponse": {"type": "object", "required": ["message"],
        "properties": {"message": {"type": "string"}}}},
      "paths": {"/containers/{id}/archive": {"head": {"operationId": "ContainerArchiveInfo",
        "parameters": [{"name": "id", "in": "path", "required": true, "type": "string"}],
        "responses": {"200": {"description": "no error"},
          "404": {"description": "no such container",
            "schema": {"$ref": "#/definitions/ErrorResponse"}}}}},
        "/containers/{id}/resize": {"post": {"operationId": "ContainerResize",
        "parameters": [{"name": "id", "in": "path", "required": true, "type": "string"}],
        "responses": {"200": {"description": "no error"},
          "404": {"description": "no such container",
            "schema": {"$ref": "#/definitions/ErrorResponse"}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 1, "{stderr}\n{spec}");
    assert!(
        stderr.contains("imported 2 operations: 1 stated fully, 1 with losses, 0 left out"),
        "{stderr}"
    );
    let head = &spec[spec.find("endpoint container_archive_info").unwrap()..];
    let head = &head[..head.find("\n}\n").unwrap()];
    assert!(!head.contains("@also_media"), "{head}");
    assert!(head.contains("a body on an answer to HEAD"), "{head}");
    let resize = &spec[spec.find("endpoint container_resize").unwrap()..];
    let resize = &resize[..resize.find("\n}\n").unwrap()];
    assert!(resize.contains("    response 200\n"), "{resize}");
    assert!(
        resize.contains("    @also_media(\"text/plain\")\n    error 404: ErrorResponse"),
        "{resize}"
    );
}

/// `allOf: [{$ref: X}, {type: object}]` is `X` (nullable when that part says so);
/// `allOf: [{$ref: X}, {type: object, required: [...]}]` is `X`'s fields with those required.
#[test]
fn all_of_parts_that_restate_or_require_are_stated() {
    let document = r##"{"openapi": "3.0.0", "info": {"title": "Tasks", "version": "1"},
      "components": {"schemas": {
        "Workspace": {"type": "object", "properties": {"gid": {"type": "string"}, "name": {"type": "string"}}},
        "Allocation": {"type": "object", "properties": {"assignee": {"type": "string"}, "effort": {"type": "integer"}}},
        "Agent": {"type": "object", "properties": {"workspace": {"description": "Where it runs.",
          "readOnly": true, "allOf": [{"$ref": "#/components/schemas/Workspace"}, {"type": "object"}]},
          "home": {"allOf": [{"$ref": "#/components/schemas/Workspace"}, {"type": "object", "nullable": true}]}}}}},
      "paths": {"/allocations": {"post": {"operationId": "createAllocation",
        "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
          "data": {"allOf": [{"$ref": "#/components/schemas/Allocation"},
            {"type": "object", "required": ["assignee"]}]}}}}}},
        "responses": {"201": {"description": "Made.", "content": {"application/json":
          {"schema": {"$ref": "#/components/schemas/Agent"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 0, "{stderr}\n{spec}");
    assert!(spec.contains("    workspace?: Workspace\n"), "{spec}");
    // A restating part that says `nullable` makes the reference nullable.
    assert!(spec.contains("    home?: Workspace | null\n"), "{spec}");
    let data = spec.find("    data?: ").map(|at| &spec[at..]).unwrap();
    let model = data["    data?: ".len()..].lines().next().unwrap();
    let declared = &spec[spec.find(&format!("model {model} {{")).unwrap()..];
    let declared = &declared[..declared.find("\n}\n").unwrap()];
    assert!(declared.contains("    assignee: string\n"), "{declared}");
    assert!(declared.ends_with("    effort?: int"), "{declared}");
}

/// `items` as a list of schemas (a tuple) is written as any of them, marked: a list of them
/// under `type: array`, and the union itself where no type is given (Slack's conversation
/// objects, referred to from several places and written once). An object that may hold no
/// field is a model of no fields, which a mock answers as `{}`.
#[test]
fn tuples_are_written_as_any_of_their_schemas_and_marked() {
    let document = r##"{"swagger": "2.0", "info": {"title": "Chat", "version": "1"},
      "definitions": {
        "conversation": {"items": [
          {"type": "object", "properties": {"id": {"type": "string"}, "is_im": {"type": "boolean", "enum": [false]}}, "required": ["id"]},
          {"type": "object", "properties": {"id": {"type": "string"}, "user": {"type": "string"}}, "required": ["id", "user"]}]},
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
        "pinned": {"type": "object", "additionalProperties": false}},
      "paths": {
        "/conversations.info": {"get": {"operationId": "info", "responses": {"200": {"description": "One.",
          "schema": {"type": "object", "properties": {"channel": {"$ref": "#/definitions/conversation"},
            "pinned": {"$ref": "#/definitions/pinned"}}, "required": ["channel"]}}}}},
        "/conversations.list": {"get": {"operationId": "list", "responses": {"200": {"description": "All.",
          "schema": {"type": "object", "properties": {"channels": {"type": "array", "items": {"$ref": "#/definitions/conversation"}},
            "pair": {"$ref": "#/definitions/pair"}}}}}}},
        "/conversations.open": {"get": {"operationId": "open", "responses": {"200": {"description": "Opened.",
          "schema": {"type": "object", "properties": {"channel": {"$ref": "#/definitions/conversation"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (code, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert_eq!(code, 1, "written with losses: {stderr}\n{spec}");
    assert!(
        spec.contains("    channel: Conversation1 | Conversation2\n"),
        "{spec}"
    );
    assert!(
        spec.contains("    channels?: (Conversation1 | Conversation2)[]\n"),
        "{spec}"
    );
    assert!(spec.contains("    pair?: (string | int)[]\n"), "{spec}");
    assert_eq!(spec.matches("model Conversation1 {").count(), 1, "{spec}");
    assert_eq!(
        spec.matches("@lossy(\"#/definitions/conversation/items\"")
            .count(),
        1,
        "marked once: {spec}"
    );
    assert!(spec.contains("model Pinned {\n}"), "{spec}");
    // Every operation that reaches the tuple counts it, where it is marked or not.
    assert!(
        stderr.contains("imported 3 operations: 0 stated fully, 3 with losses, 0 left out"),
        "{stderr}"
    );
    let file = dir.path().join("chat.covenant");
    std::fs::write(&file, &spec).unwrap();
    let (code, _, stderr) = covenant(&["check", file.to_str().unwrap()], dir.path(), None);
    assert_eq!(code, 0, "{stderr}");
}

/// Slack answers each method's bad request in that method's own error model: `ok: false`
/// and a code from the method's list, or `ok: false` and further fields. Each endpoint gets
/// its model as `rejections` when the router can write it; one whose list has no code for a
/// refused request keeps the api's shape.
#[test]
fn each_operation_s_own_error_model_holds_its_refusals_when_it_can() {
    let document = r##"{"swagger": "2.0", "info": {"title": "Chat", "version": "1"},
      "paths": {
        "/chat.postMessage": {"post": {"operationId": "post", "responses": {
          "200": {"description": "Sent.", "schema": {"type": "object", "properties": {"ok": {"enum": [true]}}, "required": ["ok"], "additionalProperties": false}},
          "default": {"description": "Failed.", "schema": {"type": "object", "additionalProperties": false, "required": ["ok", "error"],
            "properties": {"ok": {"enum": [false]}, "error": {"type": "string", "enum": ["channel_not_found", "invalid_arg_name", "invalid_arguments"]}}}}}}},
        "/apps.approve": {"post": {"operationId": "approve", "responses": {
          "200": {"description": "Done.", "schema": {"type": "object", "properties": {"ok": {"enum": [true]}}, "required": ["ok"]}},
          "default": {"description": "Failed.", "schema": {"type": "object", "additionalProperties": true, "properties": {"ok": {"enum": [false]}}, "required": ["ok"]}}}}},
        "/admin.archive": {"post": {"operationId": "archive", "responses": {
          "200": {"description": "Done.", "schema": {"type": "object", "properties": {"ok": {"enum": [true]}}, "required": ["ok"], "additionalProperties": false}},
          "default": {"description": "Failed.", "schema": {"type": "object", "additionalProperties": false, "required": ["ok", "error"],
            "properties": {"ok": {"enum": [false]}, "error": {"type": "string", "enum": ["restricted_action", "name_taken"]}}}}}}},
        "/admin.rename": {"post": {"operationId": "rename", "responses": {
          "200": {"description": "Done.", "schema": {"type": "object", "properties": {"ok": {"enum": [true]}}, "required": ["ok"], "additionalProperties": false}},
          "default": {"description": "Failed.", "schema": {"type": "object", "additionalProperties": false, "required": ["ok", "error"],
            "properties": {"ok": {"enum": [false]}, "error": {"type": "string", "enum": ["name_taken", "invalid_name"]}}}}}}},
        "/users.get": {"get": {"operationId": "users", "responses": {
          "200": {"description": "Done.", "schema": {"type": "object", "properties": {"ok": {"enum": [true]}}, "required": ["ok"]}},
          "401": {"description": "Refused.", "schema": {"type": "object", "properties": {"code": {"type": "integer"}}, "required": ["code"]}},
          "default": {"description": "Failed.", "schema": {"type": "object", "additionalProperties": true, "properties": {"ok": {"enum": [false]}}, "required": ["ok"]}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    let (_, spec, stderr) = covenant(&["import", "-"], dir.path(), Some(document));
    assert!(
        spec.contains("    error default: PostErrorDefault\n    rejections PostErrorDefault\n"),
        "{spec}"
    );
    assert!(
        spec.contains("    @rejection(\"invalid_arguments\")\n    error: PostErrorDefaultError\n"),
        "the code for a refused request, first of those that say so: {spec}"
    );
    assert!(
        spec.contains("    rejections ApproveErrorDefault\n"),
        "an open model holds the message under `detail`: {spec}"
    );
    // No code of these lists says a request was refused: one is picked, and marked lost.
    assert!(
        spec.contains(
            "    error default: ArchiveErrorDefault\n    rejections ArchiveErrorDefault\n"
        ),
        "{spec}"
    );
    assert!(
        spec.contains(
            "    @rejection(\"restricted_action\")\n    @lossy(\"#/paths/~1admin.archive/post/responses/default\", \"error codes of a closed list, none of them for a refused request: the router's own errors answer `restricted_action`, a code of the list\")\n    error: ArchiveErrorDefaultError\n"
        ),
        "the list's first code: {spec}"
    );
    assert!(
        spec.contains("    @rejection(\"invalid_name\")\n    @lossy("),
        "a code that says something is invalid, before the list's first: {spec}"
    );
    assert!(
        stderr.ends_with("imported 5 operations: 3 stated fully, 2 with losses, 0 left out\n"),
        "{stderr}"
    );
    let users = &spec[spec.find("endpoint users:").unwrap()..];
    let users = &users[..users.find("\n}").unwrap()];
    assert!(
        !users.contains("rejections"),
        "a 401 of another model would be answered in the default's: {users}"
    );
    let file = dir.path().join("chat.covenant");
    std::fs::write(&file, &spec).unwrap();
    let (code, _, stderr2) = covenant(&["check", file.to_str().unwrap()], dir.path(), None);
    assert_eq!(code, 0, "{stderr}{stderr2}");
}

/// One error model shared by every operation, whose closed list of codes says nothing of a
/// refused request: the code picked is marked lost once, at the shared component, and every
/// operation answering in it is stated with that loss. A code about credentials is not
/// picked: a malformed request answered `invalid_token` would read as a bad key.
#[test]
fn a_code_picked_for_a_shared_error_model_is_one_loss_at_its_component() {
    let document = r##"{"openapi": "3.0.0", "info": {"title": "Shop", "version": "1"},
      "components": {"schemas": {"Error": {"type": "object", "additionalProperties": false,
        "required": ["code"], "properties": {"code": {"type": "string",
          "enum": ["invalid_token", "out_of_stock", "invalid_sku"]}}}}},
      "paths": {
        "/orders": {"post": {"operationId": "order", "responses": {
          "201": {"description": "Placed."},
          "default": {"description": "Failed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}},
        "/stock": {"get": {"operationId": "stock", "responses": {
          "200": {"description": "Stock."},
          "default": {"description": "Failed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}}}}"##;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shop.json"), document).unwrap();
    let (code, spec, stderr) = covenant(
        &["import", "shop.json", "--report", "report.json"],
        dir.path(),
        None,
    );
    assert_eq!(code, 1, "{stderr}\n{spec}");
    assert_eq!(spec.matches("    rejections Error\n").count(), 2, "{spec}");
    assert!(
        spec.contains(
            "    @rejection(\"invalid_sku\")\n    @lossy(\"#/components/schemas/Error\", "
        ),
        "{spec}"
    );
    assert_eq!(spec.matches("@lossy(").count(), 1, "{spec}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["losses"].as_array().unwrap().len(), 1, "{report}");
    for operation in report["operations"].as_array().unwrap() {
        assert_eq!(operation["status"], "with_losses", "{report}");
        assert_eq!(
            operation["losses"][0]["pointer"], "#/components/schemas/Error",
            "{report}"
        );
    }
    assert!(
        stderr.ends_with("imported 2 operations: 0 stated fully, 2 with losses, 0 left out\n"),
        "{stderr}"
    );
}
