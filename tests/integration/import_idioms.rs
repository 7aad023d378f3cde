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
