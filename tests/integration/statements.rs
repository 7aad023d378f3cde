//! `spec/health.statements`: every statement of the interface document the reference server
//! is held to names the checks that hold it there, and every check it names exists: a
//! scenario of the conformance suite, a test function, or a line of the name inventory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Statements {
    statement: Vec<Statement>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Statement {
    id: String,
    section: String,
    says: String,
    checked_by: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `id` of every scenario under `conformance/suite/`.
fn scenario_ids() -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut folders = vec![root().join("conformance/suite")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                let scenario: serde_json::Value = serde_json::from_str(&text).unwrap();
                if let Some(id) = scenario["id"].as_str() {
                    ids.insert(id.to_string());
                }
            }
        }
    }
    ids
}

/// Why a check names nothing; `None` when it names a scenario, test or inventory line that
/// exists.
fn dangling(
    check: &str,
    scenarios: &BTreeSet<String>,
    files: &mut BTreeMap<PathBuf, String>,
) -> Option<String> {
    let (kind, what) = check.split_once(' ')?;
    match kind {
        "scenario" => (!scenarios.contains(what)).then(|| format!("no scenario `{what}`")),
        "test" => {
            let Some((path, function)) = what.rsplit_once("::") else {
                return Some("a test is named `path::function`".to_string());
            };
            let path = root().join(path);
            let Ok(text) = std::fs::read_to_string(&path) else {
                return Some(format!("no file {}", path.display()));
            };
            let text = files.entry(path).or_insert(text);
            (!text.contains(&format!("fn {function}(")))
                .then(|| format!("no `fn {function}(` in that file"))
        }
        "inventory" => {
            let inventory = std::fs::read_to_string(root().join("spec/health.inventory")).unwrap();
            (!inventory.lines().any(|line| line.trim() == what))
                .then(|| format!("no line `{what}` in spec/health.inventory"))
        }
        _ => Some(format!("`{kind}` is not scenario, test or inventory")),
    }
}

#[test]
fn every_statement_of_the_document_names_checks_that_exist() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/health.statements");
    let text = std::fs::read_to_string(&path).unwrap();
    let statements: Statements =
        toml::from_str(&text).unwrap_or_else(|e| panic!("spec/health.statements: {e}"));
    assert!(
        statements.statement.len() >= 200,
        "the whole document, not a sample"
    );
    let scenarios = scenario_ids();
    let mut files = BTreeMap::new();
    let mut ids = BTreeSet::new();
    let mut problems = Vec::new();
    for statement in &statements.statement {
        let name = &statement.id;
        if !ids.insert(name.clone()) {
            problems.push(format!("{name}: named twice"));
        }
        if statement.says.trim().is_empty() || statement.section.trim().is_empty() {
            problems.push(format!("{name}: says nothing, or in no section"));
        }
        if statement.checked_by.is_empty() {
            problems.push(format!("{name}: no check holds it"));
        }
        for check in &statement.checked_by {
            let why = match check.split_once(' ') {
                None => Some(
                    "a check is `scenario ID`, `test PATH::FN` or `inventory LINE`".to_string(),
                ),
                Some(_) => dangling(check, &scenarios, &mut files),
            };
            if let Some(why) = why {
                problems.push(format!("{name}: `{check}`: {why}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "spec/health.statements:\n{}",
        problems.join("\n")
    );
}

/// The checker itself: a statement with no check, or with a check that names nothing, is
/// caught.
#[test]
fn a_statement_without_a_real_check_is_caught() {
    let scenarios: BTreeSet<String> = ["users/get-and-resolve".to_string()].into();
    let mut files = BTreeMap::new();
    assert_eq!(
        dangling("scenario users/get-and-resolve", &scenarios, &mut files),
        None
    );
    assert!(dangling("scenario users/nothing", &scenarios, &mut files).is_some());
    assert!(
        dangling(
            "test server/tests/service/users.rs::no_such_test",
            &scenarios,
            &mut files
        )
        .is_some()
    );
    assert!(dangling("test no/such/file.rs::f", &scenarios, &mut files).is_some());
    assert!(dangling("inventory endpoint GET /nowhere", &scenarios, &mut files).is_some());
    assert!(dangling("guess something", &scenarios, &mut files).is_some());
}
