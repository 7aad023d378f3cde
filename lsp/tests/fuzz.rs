//! The checker's fuzz inputs run through the language server: opened, edited, and asked
//! every request at several positions. No request may fail as a handler that panicked
//! (which the server turns into an internal error rather than dying), and every request
//! gets its answer.

#[path = "../../codegen/tests/integration/fuzz_inputs.rs"]
mod fuzz_inputs;
mod support;

use fuzz_inputs::{arbitrary_text, cases, mutated_spec, token_soup};
use proptest::prelude::*;
use serde_json::json;
use support::InProcess;

const URI: &str = "file:///fuzz/spec.covenant";

/// Every request, at the start, the end and a few places between.
fn exercise(server: &mut InProcess, text: &str) {
    let document = json!({ "uri": URI });
    let lines = text.split('\n').count() as u32;
    let positions = [
        (0, 0),
        (lines / 3, 4),
        (lines / 2, 12),
        (lines, 0),
        (lines + 5, 500),
    ];
    for (line, character) in positions {
        let at = json!({ "textDocument": document, "position": { "line": line, "character": character } });
        server.request("textDocument/hover", at.clone());
        server.request("textDocument/definition", at.clone());
        server.request("textDocument/completion", at.clone());
        server.request("textDocument/prepareRename", at.clone());
        let mut rename = at.clone();
        rename["newName"] = json!("Renamed");
        server.request("textDocument/rename", rename);
        let mut references = at;
        references["context"] = json!({ "includeDeclaration": true });
        server.request("textDocument/references", references);
    }
    let whole =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": lines, "character": 0 } });
    let doc = json!({ "textDocument": document });
    server.request("textDocument/documentSymbol", doc.clone());
    server.request("textDocument/foldingRange", doc.clone());
    server.request("textDocument/semanticTokens/full", doc.clone());
    server.request("textDocument/codeLens", doc.clone());
    server.request("workspace/symbol", json!({ "query": "" }));
    server.request(
        "textDocument/formatting",
        json!({ "textDocument": document, "options": { "tabSize": 4, "insertSpaces": true } }),
    );
    server.request("textDocument/rangeFormatting", json!({ "textDocument": document, "range": whole, "options": { "tabSize": 4, "insertSpaces": true } }));
    server.request(
        "textDocument/codeAction",
        json!({ "textDocument": document, "range": whole, "context": { "diagnostics": [] } }),
    );
}

fn open_and_exercise(text: &str) {
    let mut server = InProcess::start();
    server.open(URI, text);
    exercise(&mut server, text);
    // An edit in the middle, as a range whose ends may fall inside a character.
    let middle = text.split('\n').count() as u32 / 2;
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": URI, "version": 2 },
            "contentChanges": [{ "range": { "start": { "line": middle, "character": 1 }, "end": { "line": middle + 1, "character": 3 } }, "text": "x: Strin\n" }],
        }),
    );
    exercise(&mut server, text);
    server.stop();
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn arbitrary_text_is_served(text in arbitrary_text()) {
        open_and_exercise(&text);
    }

    #[test]
    fn token_soup_is_served(text in token_soup(80)) {
        open_and_exercise(&text);
    }
}

proptest! {
    #![proptest_config(cases(24))]

    #[test]
    fn mutated_specs_are_served(text in mutated_spec()) {
        open_and_exercise(&text);
    }
}
