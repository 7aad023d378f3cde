//! The conformance view of a diff: the scenarios that exercise each change.

use covenant_codegen::Spec;
use covenant_codegen::diff::{Exercised, Finding};
use covenant_conformance::cassette::{self, Cassette};
use covenant_conformance::changes::exercises;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Reads the cassettes named (or `default` when it exists) and matches them to findings,
/// by the new spec's events and the old one's (a removed event has only an old pattern).
pub fn find(
    named: &[PathBuf],
    default: &str,
    specs: [&Spec; 2],
    findings: &[Finding],
) -> Exercised {
    let paths = if named.is_empty() {
        if !Path::new(default).is_dir() {
            return Exercised::none(findings.len());
        }
        vec![PathBuf::from(default)]
    } else {
        named.to_vec()
    };
    let (cassettes, problems) = cassette::read_each(&paths);
    Exercised {
        by_finding: findings
            .iter()
            .map(|f| ids(&cassettes, specs, &f.carriers))
            .collect(),
        unreadable: problems.len(),
    }
}

fn ids(cassettes: &[Cassette], specs: [&Spec; 2], carriers: &BTreeSet<String>) -> Vec<String> {
    if carriers.is_empty() {
        return Vec::new();
    }
    let mut ids: Vec<String> = cassettes
        .iter()
        .filter(|c| specs.iter().any(|spec| exercises(c, spec, carriers)))
        .map(|c| c.scenario.id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}
