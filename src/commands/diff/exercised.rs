//! The conformance view of a diff: the scenarios that exercise each change.

use covenant_codegen::Spec;
use covenant_codegen::diff::Finding;
use covenant_conformance::cassette::{self, Cassette};
use covenant_conformance::changes::exercises;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The scenario ids exercising each finding, in the findings' order.
#[derive(Debug, Default)]
pub struct Exercised {
    pub by_finding: Vec<Vec<String>>,
    /// Cassettes that could not be read, which name nothing.
    pub unreadable: usize,
}

impl Exercised {
    /// Reads the cassettes named (or `default` when it exists) and matches them to findings,
    /// by the new spec's events and the old one's (a removed event has only an old pattern).
    pub fn find(named: &[PathBuf], default: &str, specs: [&Spec; 2], findings: &[Finding]) -> Self {
        let paths = if named.is_empty() {
            if !Path::new(default).is_dir() {
                return Exercised {
                    by_finding: vec![Vec::new(); findings.len()],
                    unreadable: 0,
                };
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
