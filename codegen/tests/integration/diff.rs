//! The semantic diff on fixture pairs (`tests/diff/<case>.old.covenant` and `.new.`), each
//! run both ways, with the findings kept as reviewed snapshots; together the pairs exercise
//! every rule.

use covenant_codegen::diff::{self, Finding, Options, Side, rules};
use covenant_codegen::{SourceFile, Spec};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The day the fixtures' sunsets are judged on.
const TODAY: &str = "2026-06-01";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff")
}

fn load(path: &Path) -> (SourceFile, Spec) {
    let (file, checked) = covenant_codegen::check_path(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let file = SourceFile::new(name, file.text);
    let spec = checked
        .spec
        .unwrap_or_else(|| panic!("{}", checked.diagnostics.render(&file)));
    (file, spec)
}

/// The case names, from their `.old.covenant` files.
fn cases() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".old.covenant").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

fn run(old: &(SourceFile, Spec), new: &(SourceFile, Spec)) -> Vec<Finding> {
    diff::diff(
        Side {
            spec: &old.1,
            file: &old.0,
        },
        Side {
            spec: &new.1,
            file: &new.0,
        },
        &Options {
            today: TODAY.into(),
        },
    )
}

/// One line per finding: categories, rule, subject, change, both locations, carriers.
fn render(findings: &[Finding], old: &SourceFile, new: &SourceFile) -> String {
    let mut out = String::new();
    for f in findings {
        let categories: Vec<&str> = f.rule.categories.iter().map(|c| c.id()).collect();
        let at = |file: &SourceFile, span: Option<covenant_codegen::Span>| {
            span.map_or("-".to_string(), |s| file.location(s))
        };
        out.push_str(&format!(
            "[{}] {} | {}: {}\n    old {} | new {} | carried by {}\n",
            categories.join(", "),
            f.rule.id,
            f.subject,
            f.change,
            at(old, f.old),
            at(new, f.new),
            f.carriers.iter().cloned().collect::<Vec<_>>().join(", "),
        ));
    }
    if out.is_empty() {
        out.push_str("no changes\n");
    }
    out
}

#[test]
fn fixture_pairs_both_ways() {
    let mut seen = BTreeSet::new();
    for case in cases() {
        let old = load(&fixtures().join(format!("{case}.old.covenant")));
        let new = load(&fixtures().join(format!("{case}.new.covenant")));
        let forward = run(&old, &new);
        let backward = run(&new, &old);
        seen.extend(forward.iter().chain(&backward).map(|f| f.rule.id));
        let text = format!(
            "{case}.old → {case}.new\n{}\n{case}.new → {case}.old\n{}",
            render(&forward, &old.0, &new.0),
            render(&backward, &new.0, &old.0)
        );
        insta::assert_snapshot!(format!("diff_{case}"), text);
    }
    let missing: Vec<&str> = rules::ALL
        .iter()
        .map(|r| r.id)
        .filter(|id| !seen.contains(id))
        .collect();
    assert!(missing.is_empty(), "no fixture pair exercises {missing:?}");
}

#[test]
fn a_spec_against_itself_has_no_changes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    let spec = load(&path);
    assert_eq!(run(&spec, &spec), Vec::new());
}
