//! A broken cassette is reported with file:line:col before anything is sent.

use covenant_conformance::template::Globals;
use covenant_conformance::{Contract, cassette, plan};

fn contract() -> Contract {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    let (_, checked) = covenant_codegen::check_path(&path).unwrap();
    Contract::new(checked.spec.unwrap()).unwrap()
}

const BROKEN: &str = r#"{
  "id": "broken",
  "title": "Every kind of mistake",
  "exchanges": [
    {
      "endpoint": "get_usr",
      "request": { "path": "/v2/user/1" },
      "expect": { "status": 200 }
    },
    {
      "endpoint": "list_markers",
      "request": { "path": "/v3/lab_tests/markers", "query": { "colour": "red" } },
      "expect": { "status": 418, "body": { "x": { "$match": "similar" } } }
    },
    {
      "endpoint": "get_user",
      "request": { "path": "/v2/user/{{nobody_captured_this}}" },
      "expect": { "status": 200 }
    }
  ]
}
"#;

/// The problems the check finds in one cassette's text, as `line:col: message`, with the
/// file's path in the first error's full form.
fn problems_of(text: &str) -> (Vec<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cassette.json");
    std::fs::write(&file, text).unwrap();
    let cassettes = cassette::read_all(std::slice::from_ref(&file)).unwrap();
    let errors = plan::check_all(&cassettes, &contract(), &Globals::default());
    let lines = errors
        .iter()
        .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
        .collect();
    let first = errors.first().map(|e| e.to_string()).unwrap_or_default();
    (lines, first.replace(&file.display().to_string(), "FILE"))
}

/// Each line starts with the wanted one, and there are as many.
fn assert_starts(lines: &[String], expect: &[&str]) {
    assert_eq!(lines.len(), expect.len(), "{lines:#?}");
    for (line, want) in lines.iter().zip(expect) {
        assert!(line.starts_with(want), "{line}\n  wanted: {want}");
    }
}

#[test]
fn every_problem_is_located() {
    let (lines, first) = problems_of(BROKEN);
    assert_starts(
        &lines,
        &[
            "6:19: the spec has no endpoint `get_usr`; did you mean `get_user`?",
            "12:74: `list_markers` has no query parameter `colour`",
            "13:29: `list_markers` does not declare status 418",
            "13:49: unknown matcher `similar`",
            "17:28: `{{nobody_captured_this}}` is not defined here",
        ],
    );
    assert!(first.starts_with("FILE:6:19: "), "{first}");
}

#[test]
fn a_cassette_that_does_not_parse_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("truncated.json");
    std::fs::write(&file, "{\n  \"id\": \"x\",\n  \"title\": 3\n}\n").unwrap();
    let errors = cassette::read_all(&[file]).unwrap_err();
    assert_eq!((errors[0].line, errors[0].col), (3, 12), "{}", errors[0]);
    assert!(errors[0].message.contains("invalid type"), "{}", errors[0]);
}

const MISTAKES_THE_CHECK_ONCE_MISSED: &str = r#"{
  "id": "subtle",
  "title": "Mistakes that look right",
  "exchanges": [
    {
      "endpoint": "get_user",
      "request": { "path": "/v2/user/1?expand=all" },
      "expect": {
        "status": 200,
        "body": {
          "user_id": { "$match": "type", "type": "int" },
          "client_user_id": { "$match": "range" },
          "team_id": { "$match": "regx", "pattern": "^t" }
        }
      }
    }
  ]
}
"#;

#[test]
fn matchers_types_and_paths_are_checked_with_the_closest_name() {
    let (lines, _) = problems_of(MISTAKES_THE_CHECK_ONCE_MISSED);
    assert_starts(
        &lines,
        &[
            "7:28: `/v2/user/1?expand=all` holds a query",
            "11:22: `int` is not a JSON type",
            "12:29: a `range` matcher needs a bound",
            "13:22: unknown matcher `regx`; did you mean `regex`?",
        ],
    );
    assert!(lines[1].contains("did you mean `integer`?"), "{}", lines[1]);
}

/// A file that does not parse hides nothing wrong with the others, and a misspelt key is
/// told with the closest one.
#[test]
fn shape_and_meaning_errors_of_every_file_come_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.json"), BROKEN).unwrap();
    std::fs::write(
        dir.path().join("b.json"),
        r#"{"id": "b", "title": "t", "exchanges": [{"endpoint": "get_user", "request": {"path": "/v2/user/1"}, "expct": {"status": 200}}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("c.json"),
        r#"{"id": "c", "title": "t", "exchanges": [{"endpoint": "get_user", "request": {"path": "/v2/user/1"}, "expect": {"status": 200}, "capture": {"x": 3}}]}"#,
    )
    .unwrap();
    let (cassettes, mut errors) = cassette::read_each(&[dir.path().to_path_buf()]);
    assert_eq!(cassettes.len(), 1);
    errors.extend(plan::check_all(
        &cassettes,
        &contract(),
        &Globals::default(),
    ));
    let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert!(text.iter().any(|e| e.contains("a.json:6:19")), "{text:#?}");
    assert!(
        text.iter()
            .any(|e| e.contains("b.json:1:") && e.contains("did you mean `expect`?")),
        "{text:#?}"
    );
    assert!(
        text.iter()
            .any(|e| e.contains("c.json:1:") && e.contains("a capture is a JSON path")),
        "{text:#?}"
    );
}
