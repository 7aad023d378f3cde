//! Headless Neovim (Debian's) against `covenant lsp`, configured by nothing but the
//! README's snippet: errors appear as the file is typed, hover and go to definition work,
//! and a model renamed and saved still checks. On the service spec and on a spec that is
//! not in this repository.

use crate::common::scratch_dir;
use std::path::Path;
use std::process::Command;

const SNIPPET_MARK: &str = "<!-- neovim-setup -->";

/// The Lua of the README's Neovim snippet.
fn readme_snippet() -> String {
    let readme = include_str!("../../../README.md");
    let after = readme
        .split_once(SNIPPET_MARK)
        .expect("the README marks its snippet")
        .1;
    let block = after.split_once("```lua\n").expect("a lua block").1;
    block
        .split_once("```")
        .expect("the block ends")
        .0
        .to_string()
}

/// Neovim, or `None` outside CI when it is not installed.
fn neovim() -> Option<&'static str> {
    let found = Command::new("nvim")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    match found {
        true => Some("nvim"),
        false if std::env::var_os("CI").is_some() => panic!("CI installs Debian's neovim"),
        false => {
            eprintln!("skipped: install neovim to run it");
            None
        }
    }
}

struct Edit<'a> {
    /// The text of a line to add an error after.
    error_after: &'a str,
    /// A use of the model to hover and jump from, and where in it the cursor stands.
    model_use: &'a str,
    into_use: usize,
    model: &'a str,
    rename_to: &'a str,
}

/// 1-based line of the first line holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text[..text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not found"))]
        .matches('\n')
        .count()
        + 1
}

fn edit_in_neovim(folder: &Path, spec: &Path, edit: &Edit) -> serde_json::Value {
    let text = std::fs::read_to_string(spec).unwrap();
    let init = folder.join("init.lua");
    std::fs::write(&init, readme_snippet()).unwrap();
    let script = folder.join("session.lua");
    std::fs::write(&script, include_str!("neovim_session.lua")).unwrap();
    let result = folder.join("result.json");
    let covenant = Path::new(env!("CARGO_BIN_EXE_covenant"));
    let path = format!(
        "{}:{}",
        covenant.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let use_line = line_of(&text, edit.model_use);
    let use_column = text[..text.find(edit.model_use).unwrap()]
        .rsplit('\n')
        .next()
        .unwrap()
        .len()
        + edit.into_use;
    let output = Command::new(neovim().unwrap())
        .args(["--headless", "-u"])
        .arg(&init)
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .arg(spec)
        .current_dir(spec.parent().unwrap())
        .env("PATH", path)
        .env("HOME", folder)
        .env("XDG_STATE_HOME", folder.join("state"))
        .env("XDG_DATA_HOME", folder.join("data"))
        .env("RESULT", &result)
        .env(
            "ERROR_AFTER_LINE",
            line_of(&text, edit.error_after).to_string(),
        )
        .env("USE_LINE", use_line.to_string())
        .env("USE_COLUMN", use_column.to_string())
        .env(
            "DECLARATION_LINE",
            line_of(&text, &format!("model {} {{", edit.model)).to_string(),
        )
        .env("RENAME_TO", edit.rename_to)
        .output()
        .expect("nvim runs");
    let written = std::fs::read_to_string(&result).unwrap_or_else(|_| {
        panic!(
            "neovim wrote no result: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    serde_json::from_str(&written).unwrap()
}

fn check_passes(spec: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .arg("check")
        .arg(spec)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

fn assert_session(seen: &serde_json::Value, edit: &Edit, spec: &Path) {
    assert_eq!(seen["ok"], true, "{seen}");
    let diagnostic = seen["diagnostic"].as_str().unwrap();
    assert!(diagnostic.contains("unknown type `Strin`"), "{diagnostic}");
    let hover = seen["hover"].as_str().unwrap();
    assert!(hover.contains(&format!("model {}", edit.model)), "{hover}");
    let saved = std::fs::read_to_string(spec).unwrap();
    assert!(saved.contains(&format!("model {} {{", edit.rename_to)));
    assert!(!saved.contains(&format!("model {} {{", edit.model)));
    check_passes(spec);
}

#[test]
fn neovim_with_the_readme_snippet_edits_the_service_spec() {
    if neovim().is_none() {
        return;
    }
    let dir = scratch_dir("neovim");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join("spec")).unwrap();
    std::fs::write(
        project.join("covenant.toml"),
        "spec = \"spec/health.covenant\"\n",
    )
    .unwrap();
    let spec = project.join("spec/health.covenant");
    std::fs::write(&spec, include_str!("../../../spec/health.covenant")).unwrap();
    let edit = Edit {
        error_after: "    user_id: uuid\n",
        model_use: "response 200: User\n",
        into_use: 15,
        model: "User",
        rename_to: "Member",
    };
    let seen = edit_in_neovim(dir.path(), &spec, &edit);
    assert_session(&seen, &edit, &spec);
    let saved = std::fs::read_to_string(&spec).unwrap();
    assert!(saved.contains("response 200: Member\n"));
}

/// A small spec written here, in a folder without `covenant.toml`.
const LIBRARY_SPEC: &str = r#"service Library {
    title "A lending library"
    version "1"
}

api main {
    base "https://library.example"
}

auth member_key: header "X-Member-Key" {
    principal member
}

/// A book on the shelves.
model Book {
    isbn: string
    title: string
    borrowed_by?: string | null
}

endpoint get_book: GET "/books/{isbn}" {
    auth member_key
    path isbn: string
    response 200: Book
}

endpoint list_books: GET "/books" {
    auth member_key
    response 200: Book[]
}
"#;

#[test]
fn neovim_with_the_readme_snippet_edits_a_spec_of_its_own() {
    if neovim().is_none() {
        return;
    }
    let dir = scratch_dir("neovim-library");
    let folder = dir.path().join("library");
    std::fs::create_dir_all(&folder).unwrap();
    let spec = folder.join("library.covenant");
    std::fs::write(&spec, LIBRARY_SPEC).unwrap();
    check_passes(&spec);
    let edit = Edit {
        error_after: "    isbn: string\n",
        model_use: "response 200: Book[]",
        into_use: 15,
        model: "Book",
        rename_to: "Volume",
    };
    let seen = edit_in_neovim(dir.path(), &spec, &edit);
    assert_session(&seen, &edit, &spec);
    assert!(
        std::fs::read_to_string(&spec)
            .unwrap()
            .contains("response 200: Volume[]")
    );
}
