//! The `[diff]` table of `covenant.toml`: how severe each rule is, which categories fail a
//! run, and which version bump excuses a breaking change.

use super::{Category, Finding, rules};
use serde::Deserialize;
use std::collections::BTreeMap;

/// How a finding is reported, and whether it fails the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the run, unless the version was bumped as [`Bump`] requires.
    Error,
    Warning,
    Note,
    /// Not reported.
    Off,
}

impl Severity {
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Off => "off",
        }
    }
}

/// The version change that lets a failing change through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    /// The first number of the version grew (`1.4` → `2.0`, `2025-11` → `2026-01`).
    #[default]
    Major,
    /// The version grew at all.
    Any,
    /// No bump excuses a failing change.
    Never,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffConfig {
    /// Categories whose findings are errors: `breaks-clients`, `breaks-servers`,
    /// `breaks-source`, `compatible`, `docs`.
    #[serde(default = "default_fail_on")]
    pub fail_on: Vec<String>,
    #[serde(default)]
    pub bump: Bump,
    /// Severity by rule id, over the one its categories give.
    #[serde(default)]
    pub rules: BTreeMap<String, Severity>,
}

fn default_fail_on() -> Vec<String> {
    vec![Category::BreaksClients.id().to_string()]
}

impl Default for DiffConfig {
    fn default() -> Self {
        DiffConfig {
            fail_on: default_fail_on(),
            bump: Bump::default(),
            rules: BTreeMap::new(),
        }
    }
}

/// A checked config: every category and rule it names exists.
#[derive(Clone, Debug)]
pub struct Policy {
    fail_on: Vec<Category>,
    pub bump: Bump,
    rules: BTreeMap<String, Severity>,
}

impl DiffConfig {
    /// The config checked, or every name in it that is no category or rule.
    pub fn policy(&self) -> Result<Policy, String> {
        let mut problems = Vec::new();
        let mut fail_on = Vec::new();
        for name in &self.fail_on {
            match Category::from_id(name) {
                Some(c) => fail_on.push(c),
                None => problems.push(format!(
                    "[diff] fail_on: `{name}` is no category; the categories are {}",
                    Category::ALL.map(|c| c.id()).join(", ")
                )),
            }
        }
        for id in self.rules.keys() {
            if rules::by_id(id).is_none() {
                problems.push(format!(
                    "[diff.rules]: `{id}` is no rule; `covenant diff --rules` lists them"
                ));
            }
        }
        if problems.is_empty() {
            Ok(Policy {
                fail_on,
                bump: self.bump,
                rules: self.rules.clone(),
            })
        } else {
            Err(problems.join("\n"))
        }
    }
}

impl Default for Policy {
    fn default() -> Self {
        DiffConfig::default()
            .policy()
            .expect("the default config names known categories")
    }
}

impl Policy {
    /// A finding's severity: the config's for its rule, else an error when one of its
    /// categories fails runs, a warning when it breaks anyone (but an addition that breaks
    /// only generated Rust), a note otherwise.
    pub fn severity(&self, finding: &Finding) -> Severity {
        if let Some(s) = self.rules.get(finding.rule.id) {
            return *s;
        }
        if finding
            .rule
            .categories
            .iter()
            .any(|c| self.fail_on.contains(c))
        {
            Severity::Error
        } else if finding.rule.is_breaking() && !finding.rule.is_additive_source_only() {
            Severity::Warning
        } else {
            Severity::Note
        }
    }
}

/// Whether `new` is the bump `policy` asks of `old`; versions compare by their numbers
/// (`2025-11` is 2025, 11; `v1.10` is 1, 10).
pub fn bumped(bump: Bump, old: Option<&str>, new: Option<&str>) -> bool {
    let (Some(old), Some(new)) = (old, new) else {
        return false;
    };
    let (o, n) = (numbers(old), numbers(new));
    if o.is_empty() || n.is_empty() {
        return false;
    }
    match bump {
        Bump::Never => false,
        Bump::Any => n > o,
        Bump::Major => n[0] > o[0],
    }
}

fn numbers(version: &str) -> Vec<u64> {
    version
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(u64::MAX))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_bump_by_their_numbers() {
        assert!(bumped(Bump::Major, Some("1.4.2"), Some("2.0.0")));
        assert!(!bumped(Bump::Major, Some("1.4.2"), Some("1.5.0")));
        assert!(bumped(Bump::Any, Some("1.4.2"), Some("1.10.0")));
        assert!(bumped(Bump::Major, Some("2025-11"), Some("2026-01")));
        assert!(bumped(Bump::Any, Some("2025-11"), Some("2025-12")));
        assert!(!bumped(Bump::Any, Some("2025-11"), Some("2025-11")));
        assert!(!bumped(Bump::Any, Some("2.0"), Some("1.9")));
        assert!(!bumped(Bump::Never, Some("1"), Some("2")));
        assert!(!bumped(Bump::Any, None, Some("2")));
        assert!(!bumped(Bump::Any, Some("beta"), Some("gamma")));
    }

    #[test]
    fn unknown_categories_and_rules_are_named() {
        let config: DiffConfig = toml::from_str(
            "fail_on = [\"breaks-clients\", \"breaks-everyone\"]\n[rules]\n\"no-such-rule\" = \"off\"\n",
        )
        .unwrap();
        let problems = config.policy().unwrap_err();
        assert!(
            problems.contains("`breaks-everyone` is no category"),
            "{problems}"
        );
        assert!(problems.contains("`no-such-rule` is no rule"), "{problems}");
    }
}
