//! What each request answers on small specs, through the server in process: quick fixes,
//! colours, folding, range formatting, wire-name renames, completion in each place, and
//! hover on members.

mod support;

use serde_json::{Value, json};
use support::InProcess;

const URI: &str = "file:///features/spec.covenant";

const SPEC: &str = r#"service Shop {
    title "A shop"
    version "1"
}

api main {
    base "https://shop.example"
}

auth shop_key: header "X-Shop-Key" {
    principal team
}

// What a pet is.
// Two lines of it.
enum Status {
    available
    sold
}

/// A pet for sale.
model Pet {
    "pet-name": string
    status?: Status = available
}

endpoint get_pet: GET "/pets/{id}" {
    auth shop_key
    path id: string
    response 200: Pet
}

endpoint create_pet: POST "/pets" {
    auth shop_key
    body {
        name: string
    }
    response 201: Pet
}
"#;

fn at(line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": URI }, "position": { "line": line, "character": character } })
}

/// The zero-based line and UTF-16 column of `needle` in `text`, plus `into` characters.
fn find(text: &str, needle: &str, into: u32) -> (u32, u32) {
    let offset = text.find(needle).unwrap_or_else(|| panic!("{needle}"));
    let line = text[..offset].matches('\n').count() as u32;
    let column = text[..offset]
        .rsplit('\n')
        .next()
        .unwrap()
        .encode_utf16()
        .count() as u32;
    (line, column + into)
}

fn labels(completion: &Value) -> Vec<String> {
    completion
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

/// Applies one document's edits, last first.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        // The protocol counts UTF-16 units; the text is indexed in bytes.
        let mut units = p["character"].as_u64().unwrap() as usize;
        let mut bytes = 0;
        for c in text[start..].chars() {
            if units == 0 || c == '\n' {
                break;
            }
            units -= c.len_utf16();
            bytes += c.len_utf8();
        }
        start + bytes
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        out.replace_range(start..end, new);
    }
    out
}

fn checks(text: &str) -> bool {
    let file = covenant_codegen::SourceFile::new("fixed.covenant", text);
    covenant_codegen::check_source(&file).spec.is_some()
}

fn quick_fix(server: &mut InProcess, text: &str, line: u32) -> String {
    let range = json!({ "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 200 } });
    let actions = server.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": URI }, "range": range, "context": { "diagnostics": [] } }),
    );
    let action = &actions[0];
    assert_eq!(action["kind"], "quickfix", "{actions}");
    apply(text, action["edit"]["changes"][URI].as_array().unwrap())
}

#[test]
fn quick_fixes_mend_what_their_diagnostics_name() {
    // A misspelt annotation: did you mean.
    let text = SPEC.replace(
        "    \"pet-name\": string",
        "    @max_lenght(20)\n    \"pet-name\": string",
    );
    let mut server = InProcess::start();
    server.open(URI, &text);
    let fixed = quick_fix(&mut server, &text, find(&text, "@max_lenght", 0).0);
    assert!(fixed.contains("@max_length(20)"), "{fixed}");
    assert!(checks(&fixed));
    server.stop();

    // An endpoint with no success response: answered `not_shown` until the source says.
    let text = SPEC.replace("    response 201: Pet\n", "");
    let mut server = InProcess::start();
    server.open(URI, &text);
    let fixed = quick_fix(&mut server, &text, find(&text, "endpoint create_pet", 0).0);
    assert!(
        fixed.contains("    response 200: not_shown(\"Response body\")\n}"),
        "{fixed}"
    );
    assert!(checks(&fixed));
    server.stop();

    // An unused model, removed with its doc comment.
    let text = format!("{SPEC}\n/// Never used.\nmodel Spare {{\n    x: int\n}}\n");
    let mut server = InProcess::start();
    server.open(URI, &text);
    let fixed = quick_fix(&mut server, &text, find(&text, "model Spare", 0).0);
    assert!(
        !fixed.contains("Spare") && !fixed.contains("Never used"),
        "{fixed}"
    );
    assert!(checks(&fixed));
    server.stop();
}

/// Each token as (line, column, length, type, modifiers), decoded from the relative form.
fn decode(data: &[Value]) -> Vec<(u32, u32, u32, u32, u32)> {
    let (mut line, mut column) = (0, 0);
    data.chunks(5)
        .map(|t| {
            let n = |i: usize| t[i].as_u64().unwrap() as u32;
            line += n(0);
            column = if n(0) == 0 { column + n(1) } else { n(1) };
            (line, column, n(2), n(3), n(4))
        })
        .collect()
}

#[test]
fn colours_name_what_each_word_is() {
    let mut server = InProcess::start();
    server.open(URI, SPEC);
    let tokens = server.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": URI } }),
    );
    let tokens = decode(tokens["data"].as_array().unwrap());
    let kind_at = |needle: &str, into: u32| {
        let (line, column) = find(SPEC, needle, into);
        tokens
            .iter()
            .find(|t| t.0 == line && t.1 == column)
            .map(|t| (t.3, t.4))
            .unwrap_or_else(|| panic!("no token at {needle}"))
    };
    // The legend's order: keyword 0, type 1, struct 2, enum 3, enumMember 4, function 5,
    // property 6, parameter 7, decorator 8, string 9, number 10, comment 11.
    assert_eq!(kind_at("model Pet", 0), (0, 0));
    assert_eq!(kind_at("model Pet", 6), (2, 1), "a model's name, declared");
    assert_eq!(
        kind_at("response 200: Pet", 14),
        (2, 0),
        "a model's name, used"
    );
    assert_eq!(
        kind_at("\"pet-name\"", 0),
        (6, 1),
        "a quoted field name is a property"
    );
    assert_eq!(
        kind_at("\"pet-name\": string", 12),
        (1, 4),
        "a built-in type"
    );
    assert_eq!(kind_at("status?: Status", 9), (3, 0), "an enum, used");
    assert_eq!(kind_at("/// A pet", 0), (11, 2), "a doc comment");
    assert_eq!(kind_at("endpoint get_pet", 9), (5, 1));
    server.stop();
}

#[test]
fn blocks_and_comment_runs_fold() {
    let mut server = InProcess::start();
    server.open(URI, SPEC);
    let folds = server.request(
        "textDocument/foldingRange",
        json!({ "textDocument": { "uri": URI } }),
    );
    let folds: Vec<(u64, u64, String)> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["startLine"].as_u64().unwrap(),
                f["endLine"].as_u64().unwrap(),
                f["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let model = find(SPEC, "model Pet {", 0).0 as u64;
    assert!(
        folds.contains(&(model, model + 2, "region".into())),
        "{folds:?}"
    );
    let comment = find(SPEC, "// What a pet is.", 0).0 as u64;
    assert!(
        folds.contains(&(comment, comment + 1, "comment".into())),
        "{folds:?}"
    );
    server.stop();
}

#[test]
fn range_formatting_changes_only_the_lines_asked() {
    let text = SPEC
        .replace("    path id: string\n", "    path id:string\n")
        .replace("        name: string\n", "        name :string\n");
    let mut server = InProcess::start();
    server.open(URI, &text);
    let line = find(&text, "path id:string", 0).0;
    let range = json!({ "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 5 } });
    let edits = server.request(
        "textDocument/rangeFormatting",
        json!({ "textDocument": { "uri": URI }, "range": range, "options": { "tabSize": 4, "insertSpaces": true } }),
    );
    let formatted = apply(&text, edits.as_array().unwrap());
    assert!(formatted.contains("    path id: string\n"));
    assert!(
        formatted.contains("        name :string\n"),
        "the other line is left"
    );
    server.stop();
}

#[test]
fn a_wire_name_is_renamed_only_when_allowed_and_keeps_its_quotes() {
    let (line, column) = find(SPEC, "\"pet-name\"", 2);
    let mut rename = at(line, column);
    rename["newName"] = json!("pet-title");
    let mut server = InProcess::start();
    server.open(URI, SPEC);
    let refused = server
        .refusal("textDocument/rename", rename.clone())
        .unwrap();
    assert!(refused.contains("renameWireNames"), "{refused}");
    server.stop();

    let mut server = InProcess::start_with(json!({ "renameWireNames": true }));
    server.open(URI, SPEC);
    let edit = server.request("textDocument/rename", rename);
    let renamed = apply(SPEC, edit["changes"][URI].as_array().unwrap());
    assert!(renamed.contains("    \"pet-title\": string\n"), "{renamed}");
    // A name taken among its siblings is refused.
    let (line, column) = find(SPEC, "status?: Status", 1);
    let mut clash = at(line, column);
    clash["newName"] = json!("pet-name");
    let refused = server.refusal("textDocument/rename", clash).unwrap();
    assert!(
        refused.contains("field `pet-name` is already declared"),
        "{refused}"
    );
    server.stop();
}

#[test]
fn completion_offers_what_fits_where_the_cursor_is() {
    let text = SPEC
        .replace(
            "    status?: Status = available\n",
            "    status?: Status = \n",
        )
        .replace("    auth shop_key\n    path id", "    auth \n    path id")
        .replace("    response 200: Pet\n", "    response \n");
    let mut server = InProcess::start();
    server.open(URI, &text);
    let (line, column) = find(&text, "Status = ", 9);
    assert_eq!(
        labels(&server.request("textDocument/completion", at(line, column))),
        ["available", "sold"]
    );
    let (line, column) = find(&text, "    auth \n", 9);
    assert_eq!(
        labels(&server.request("textDocument/completion", at(line, column))),
        ["shop_key"]
    );
    let (line, column) = find(&text, "    response \n", 13);
    let statuses = labels(&server.request("textDocument/completion", at(line, column)));
    assert!(statuses.contains(&"200".to_string()) && statuses.contains(&"4XX".to_string()));
    let (line, _) = find(&text, "model Pet", 0);
    let keywords = labels(&server.request("textDocument/completion", at(line - 2, 0)));
    assert!(keywords.contains(&"endpoint".to_string()), "{keywords:?}");
    server.stop();
}

#[test]
fn hover_describes_members_from_the_checked_spec() {
    let mut server = InProcess::start();
    server.open(URI, SPEC);
    let hover = |server: &mut InProcess, needle: &str, into: u32| {
        let (line, column) = find(SPEC, needle, into);
        let answer = server.request("textDocument/hover", at(line, column));
        answer["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let shown = hover(&mut server, "        name: string", 9);
    assert!(shown.contains("field create_pet.name"), "{shown}");
    assert!(
        shown.contains("`\"name\": string` — required, never null"),
        "{shown}"
    );
    let shown = hover(&mut server, "status?: Status", 2);
    assert!(shown.contains("default: `\"available\"`"), "{shown}");
    assert!(shown.contains("optional: may be absent"), "{shown}");
    let shown = hover(&mut server, "    sold", 5);
    assert!(
        shown.contains("value Status.sold") && shown.contains("`\"sold\"`"),
        "{shown}"
    );
    let shown = hover(&mut server, "enum Status", 6);
    assert!(
        shown.contains("closed enum: `available`, `sold`"),
        "{shown}"
    );
    let shown = hover(&mut server, "auth shop_key\n    path", 6);
    assert!(
        shown.contains("credential: `header \"X-Shop-Key\"`"),
        "{shown}"
    );
    server.stop();
}

#[test]
fn renames_follow_path_placeholders_and_enum_defaults_and_refuse_what_would_not_check() {
    let mut server = InProcess::start_with(json!({ "renameWireNames": true }));
    server.open(URI, SPEC);
    let rename = |needle: &str, into: u32, new_name: &str| {
        let (line, column) = find(SPEC, needle, into);
        let mut params = at(line, column);
        params["newName"] = json!(new_name);
        params
    };
    // A path parameter, and `{id}` in its route.
    let params = rename("path id: string", 5, "pet_id");
    let edit = server.request("textDocument/rename", params);
    let renamed = apply(SPEC, edit["changes"][URI].as_array().unwrap());
    assert!(renamed.contains("GET \"/pets/{pet_id}\"") && renamed.contains("path pet_id: string"));
    assert!(checks(&renamed), "{renamed}");
    // An enum value, and the default that names it.
    let params = rename("    available\n", 4, "in_stock");
    let edit = server.request("textDocument/rename", params);
    let renamed = apply(SPEC, edit["changes"][URI].as_array().unwrap());
    assert!(renamed.contains("status?: Status = in_stock"), "{renamed}");
    assert!(checks(&renamed), "{renamed}");
    server.stop();

    // A field an annotation names: the rename would leave the annotation behind.
    let text = SPEC.replace(
        "/// A pet for sale.\nmodel Pet {",
        "/// A pet for sale.\n@at_most_one_of(nickname, colour)\nmodel Pet {\n    nickname?: string\n    colour?: string",
    );
    assert!(checks(&text));
    let mut server = InProcess::start_with(json!({ "renameWireNames": true }));
    server.open(URI, &text);
    let (line, column) = find(&text, "    nickname?: string", 4);
    let mut params = at(line, column);
    params["newName"] = json!("pet_nickname");
    let refused = server.refusal("textDocument/rename", params).unwrap();
    assert!(refused.contains("would no longer check"), "{refused}");
    server.stop();
}

#[test]
fn positions_count_utf16_units_past_wide_characters() {
    // A name with a character of two UTF-16 units, then a misspelt type on the same line.
    let text = SPEC.replace("    \"pet-name\": string\n", "    \"pet-😀-é\": strin\n");
    let mut server = InProcess::start();
    server.open(URI, &text);
    let (line, column) = find(&text, "strin\n", 0);
    let actions = server.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": URI }, "range": { "start": { "line": line, "character": column }, "end": { "line": line, "character": column } }, "context": { "diagnostics": [] } }),
    );
    let range = &actions[0]["diagnostics"][0]["range"];
    assert_eq!(
        range["start"],
        json!({ "line": line, "character": column }),
        "{actions}"
    );
    assert_eq!(
        range["end"],
        json!({ "line": line, "character": column + 5 })
    );
    let fixed = apply(
        &text,
        actions[0]["edit"]["changes"][URI].as_array().unwrap(),
    );
    assert!(fixed.contains("    \"pet-😀-é\": string\n"), "{fixed}");
    // Hover on the type after the wide characters.
    let hover = server.request("textDocument/hover", at(line, column + 2));
    assert!(
        hover.is_null(),
        "a built-in type has no declaration to show: {hover}"
    );
    let (line, column) = find(&text, "\"pet-😀-é\"", 3);
    let hover = server.request("textDocument/hover", at(line, column));
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(shown.contains("field Pet.pet-😀-é"), "{hover}");
    server.stop();
}
