//! One editing session on the service spec, as an editor sends it: open, type an error a
//! character at a time, read the diagnostic and its fix, hover, jump, find, rename,
//! complete, format, and shut down.

use super::client::{Client, file_uri, position_of};
use crate::common::scratch_dir;
use serde_json::{Value, json};
use std::path::Path;

const SERVICE_SPEC: &str = include_str!("../../../spec/health.covenant");

fn covenant() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_covenant"))
}

/// A project folder holding a copy of the service spec; the client's workspace.
fn project() -> (tempfile::TempDir, String) {
    let dir = scratch_dir("lsp");
    std::fs::create_dir(dir.path().join("spec")).unwrap();
    std::fs::write(dir.path().join("spec/health.covenant"), SERVICE_SPEC).unwrap();
    std::fs::write(
        dir.path().join("covenant.toml"),
        "spec = \"spec/health.covenant\"\n",
    )
    .unwrap();
    let uri = file_uri(&dir.path().join("spec/health.covenant"));
    (dir, uri)
}

fn open(client: &mut Client, uri: &str, text: &str) {
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "covenant", "version": 1, "text": text } }),
    );
}

/// Types `typed` at `at` one character at a time, a version each, as an editor sends keys;
/// answers the last version and the text as it then is.
fn type_text(
    client: &mut Client,
    uri: &str,
    text: &str,
    at: Value,
    typed: &str,
    version: i64,
) -> (i64, String) {
    let mut version = version;
    let (mut line, mut character) = (
        at["line"].as_u64().unwrap(),
        at["character"].as_u64().unwrap(),
    );
    for c in typed.chars() {
        version += 1;
        let position = json!({ "line": line, "character": character });
        client.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "range": { "start": position, "end": position }, "text": c.to_string() }],
            }),
        );
        if c == '\n' {
            (line, character) = (line + 1, 0);
        } else {
            character += c.len_utf16() as u64;
        }
    }
    let offset = offset_of(text, &at);
    let mut typed_text = text.to_string();
    typed_text.insert_str(offset, typed);
    (version, typed_text)
}

fn offset_of(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    start + position["character"].as_u64().unwrap() as usize
}

fn errors(diagnostics: &[Value]) -> Vec<&Value> {
    diagnostics.iter().filter(|d| d["severity"] == 1).collect()
}

fn at(uri: &str, position: Value) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": position })
}

/// Applies the edits of a `WorkspaceEdit` for one document to its text.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset_of(text, &e["range"]["start"]),
                offset_of(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        out.replace_range(start..end, &new);
    }
    out
}

#[test]
fn an_editing_session_on_the_service_spec() {
    let (dir, uri) = project();
    let mut client = Client::start(covenant(), dir.path(), json!({}));
    open(&mut client, &uri, SERVICE_SPEC);
    let opened = client.diagnostics(&uri, 1);
    assert!(
        errors(&opened).is_empty(),
        "the service spec checks: {opened:?}"
    );

    // A new field typed a key at a time: the type is misspelt until its last letter.
    let end_of_user_id = position_of(
        SERVICE_SPEC,
        "    user_id: uuid\n",
        "    user_id: uuid".len(),
    );
    let (version, text) = type_text(
        &mut client,
        &uri,
        SERVICE_SPEC,
        end_of_user_id,
        "\n    nickname: Strin",
        1,
    );
    let typed = client.diagnostics(&uri, version);
    let error = errors(&typed);
    assert_eq!(error.len(), 1, "{typed:?}");
    assert_eq!(error[0]["code"], "E0102");
    let message = error[0]["message"].as_str().unwrap();
    assert!(message.contains("unknown type `Strin`"), "{message}");
    assert!(
        message.contains("help: did you mean `string`?"),
        "{message}"
    );

    // The diagnostic's fix, offered as a quick fix.
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": error[0]["range"], "context": { "diagnostics": [] } }),
    );
    let fix = &actions[0];
    assert_eq!(fix["title"], "Replace with `string`");
    let edits = fix["edit"]["changes"][&uri].as_array().unwrap();
    let mended = apply_edits(&text, edits);
    assert!(mended.contains("    nickname: string\n"), "{edits:?}");

    // One more key mends it: no error, and still the answers of a checked spec.
    let after_strin = position_of(&text, "nickname: Strin", "nickname: Strin".len());
    let (version, _) = type_text(&mut client, &uri, &text, after_strin, "g", version);
    // `String` is no type either: the checker wants `string`.
    let still = client.diagnostics(&uri, version);
    assert_eq!(errors(&still).len(), 1, "{still:?}");

    // Undone: the text as it was, checking again.
    let version = version + 1;
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": SERVICE_SPEC }] }),
    );
    assert!(errors(&client.diagnostics(&uri, version)).is_empty());

    // Hover on a reference to a model: its doc, fields in their three states, provenance.
    let hover = client.request(
        "textDocument/hover",
        at(&uri, position_of(SERVICE_SPEC, "response 200: User\n", 15)),
    );
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("model User"), "{shown}");
    assert!(
        shown.contains("`fallback_time_zone`: `FallbackTimeZone` — always present, may be null"),
        "{shown}"
    );
    assert!(
        shown.contains("`ingestion_start`: `date` — optional and nullable"),
        "{shown}"
    );

    // Hover on a field: its wire form and where the fact comes from.
    let hover = client.request(
        "textDocument/hover",
        at(
            &uri,
            position_of(SERVICE_SPEC, "fallback_time_zone: FallbackTimeZone", 2),
        ),
    );
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("field User.fallback_time_zone"), "{shown}");
    assert!(shown.contains("deployed client"), "{shown}");

    // Hover on an endpoint: route, auth and statuses.
    let hover = client.request(
        "textDocument/hover",
        at(&uri, position_of(SERVICE_SPEC, "endpoint get_user", 10)),
    );
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("`GET /v2/user/{user_id}`"), "{shown}");
    assert!(shown.contains("auth: team_api_key"), "{shown}");
    assert!(
        shown.contains("200 `User`") && shown.contains("404"),
        "{shown}"
    );

    // Go to the model's declaration from its use.
    let definition = client.request(
        "textDocument/definition",
        at(&uri, position_of(SERVICE_SPEC, "response 200: User\n", 15)),
    );
    assert_eq!(
        definition["range"]["start"],
        position_of(SERVICE_SPEC, "model User {", 6)
    );

    // Every use of the model.
    let references = client.request(
        "textDocument/references",
        json!({ "textDocument": { "uri": uri }, "position": position_of(SERVICE_SPEC, "model User {", 6), "context": { "includeDeclaration": true } }),
    );
    let uses = SERVICE_SPEC.matches(": User\n").count() + SERVICE_SPEC.matches("User[]").count();
    assert!(
        references.as_array().unwrap().len() > uses.min(2),
        "{references}"
    );

    // Rename refuses a name taken, and a wire name unless allowed; renames a model everywhere.
    let model_at = at(&uri, position_of(SERVICE_SPEC, "model User {", 6));
    let mut rename = model_at.clone();
    rename["newName"] = json!("PatientInfo");
    let refused = client
        .try_request("textDocument/rename", rename.clone())
        .unwrap_err();
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("model `PatientInfo` is already declared"),
        "{refused}"
    );
    let mut field_rename = at(
        &uri,
        position_of(SERVICE_SPEC, "    client_user_id: string", 6),
    );
    field_rename["newName"] = json!("external_id");
    let refused = client
        .try_request("textDocument/rename", field_rename)
        .unwrap_err();
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("written on the wire"),
        "{refused}"
    );
    rename["newName"] = json!("Member");
    let edit = client.request("textDocument/rename", rename);
    let edits = edit["changes"][&uri].as_array().unwrap();
    assert_eq!(edits.len(), references.as_array().unwrap().len());

    // Completion: annotations after `@`, types after `:`.
    let completion = client.request(
        "textDocument/completion",
        at(
            &uri,
            position_of(
                SERVICE_SPEC,
                "@source(deployed_client)\n    fallback_time_zone",
                1,
            ),
        ),
    );
    let labels: Vec<&str> = completion
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"source") && labels.contains(&"max_length"),
        "{labels:?}"
    );
    let completion = client.request(
        "textDocument/completion",
        at(
            &uri,
            position_of(SERVICE_SPEC, "    connected_sources: ConnectedSource[]", 23),
        ),
    );
    let labels: Vec<&str> = completion
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"ConnectedSource") && labels.contains(&"uuid"),
        "{labels:?}"
    );

    // Formatting answers the lines `fmt` would change, and nothing else.
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version + 1 }, "contentChanges": [{ "text": SERVICE_SPEC.replacen("    user_id: uuid\n", "    user_id  :uuid\n", 1) }] }),
    );
    let formatting = client.request("textDocument/formatting", json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 4, "insertSpaces": true } }));
    let edits = formatting.as_array().unwrap();
    assert_eq!(edits.len(), 1, "{formatting}");
    assert_eq!(edits[0]["newText"], "    user_id: uuid\n");

    let status = client.shutdown();
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_broken_file_is_answered_from_its_parse_and_never_stops_the_server() {
    let (dir, uri) = project();
    let mut client = Client::start(covenant(), dir.path(), json!({}));
    // Half typed: a field with no type yet.
    let broken = SERVICE_SPEC.replacen("    user_id: uuid\n", "    user_id: \n", 1);
    open(&mut client, &uri, &broken);
    let diagnostics = client.diagnostics(&uri, 1);
    assert!(
        diagnostics.iter().any(|d| d["code"] == "E0003"),
        "{diagnostics:?}"
    );
    // Navigation still follows the text as typed.
    let definition = client.request(
        "textDocument/definition",
        at(&uri, position_of(&broken, "response 200: PatientInfo", 15)),
    );
    assert_eq!(
        definition["range"]["start"],
        position_of(&broken, "model PatientInfo {", 6)
    );
    // Hover answers from the last spec that checked: the project's, as it is on disk.
    let hover = client.request(
        "textDocument/hover",
        at(&uri, position_of(&broken, "response 200: PatientInfo", 15)),
    );
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("model PatientInfo") && shown.contains("— "),
        "{shown}"
    );
    // A position far outside the text, and a file of 10 MB.
    let hover = client.request(
        "textDocument/hover",
        at(&uri, json!({ "line": 99999, "character": 99999 })),
    );
    assert!(hover.is_null());
    let fields: String = (0..450_000)
        .map(|i| format!("    field_{i}: string\n"))
        .collect();
    let huge = format!("model Big {{\n{fields}}}\n");
    assert!(huge.len() > 10_000_000);
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": huge }] }),
    );
    let diagnostics = client.diagnostics(&uri, 2);
    assert!(!diagnostics.is_empty());
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert_eq!(symbols[0]["name"], "Big");
    // The outline is bounded: an editor shows no more than a few thousand entries anyway.
    let listed = symbols[0]["children"].as_array().unwrap().len();
    assert!(listed < 20_000, "{listed}");
    let last = json!({ "line": 450_000, "character": 6 });
    let hover = client.request("textDocument/hover", at(&uri, last));
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("field Big.field_449999"), "{shown}");
    assert!(client.shutdown().success());
}

#[test]
fn the_code_lens_says_what_diff_would_say_of_the_unsaved_text() {
    let (dir, uri) = project();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_AUTHOR_NAME", "a")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "a")
            .env("GIT_COMMITTER_EMAIL", "a@example.com")
            .output()
            .expect("git runs");
        assert!(status.status.success(), "{status:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "the spec"]);
    let mut client = Client::start(covenant(), dir.path(), json!({}));
    // Unsaved: a field of a response made optional breaks clients that rely on it.
    let changed = SERVICE_SPEC.replacen(
        "    client_user_id: string\n",
        "    client_user_id?: string\n",
        1,
    );
    open(&mut client, &uri, &changed);
    client.diagnostics(&uri, 1);
    let lenses = client.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    let command = &lenses[0]["command"];
    let title = command["title"].as_str().unwrap();
    assert!(title.starts_with("diff against `main`: fails"), "{title}");
    let report = client.request(
        "workspace/executeCommand",
        json!({ "command": command["command"], "arguments": command["arguments"] }),
    );
    let report = report.as_str().unwrap();
    assert!(report.contains("User.client_user_id"), "{report}");
    assert!(
        report.contains("affects `GET /v2/user/{user_id}`"),
        "{report}"
    );
    assert!(client.shutdown().success());
}
