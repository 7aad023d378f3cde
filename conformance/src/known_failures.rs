//! The expected-failure list: scenarios (or single exchanges, `scenario#exchange`) an
//! implementation knowingly fails, each with its reason. An entry that passes fails the run
//! until the list is updated, so the list never outlives the deviation.

use serde::Deserialize;
use std::path::Path;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedFailures {
    /// The implementation the list describes, as it names itself in its answers' `Server`
    /// header (`health-server` for `health-server/0.1.0`). A list that names one applies to
    /// any target that names itself the same, however it was started, and to no other.
    #[serde(default)]
    pub implementation: Option<String>,
    #[serde(default)]
    pub expected: Vec<Entry>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// A scenario id, or `scenario#exchange`.
    pub id: String,
    pub reason: String,
}

impl ExpectedFailures {
    /// Reads the list; errors name the file, line and column.
    pub fn read(path: &Path) -> Result<ExpectedFailures, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}:{e}", path.display()))
    }

    /// Parses the list; an error starts with `line:col: `.
    pub fn parse(text: &str) -> Result<ExpectedFailures, String> {
        toml::from_str::<ExpectedFailures>(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| crate::cassette::locate::position_of_offset(text, s.start))
                .map(|p| format!("{}:{}: ", p.line, p.col))
                .unwrap_or_else(|| "1:1: ".into());
            format!("{at}{}", e.message())
        })
    }

    /// The reason a scenario is expected to fail, if it is listed, whole or by the exchange
    /// that failed.
    pub fn reason(&self, scenario: &str, failed_exchange: Option<&str>) -> Option<&str> {
        self.expected
            .iter()
            .find(|e| match e.id.split_once('#') {
                None => e.id == scenario,
                Some((s, x)) => s == scenario && failed_exchange.is_none_or(|f| f == x),
            })
            .map(|e| e.reason.as_str())
    }

    /// Whether the list describes a target that names itself `name` (its `Server` header,
    /// `None` when it sends none): the product before any `/version` must match. A list
    /// that names no implementation describes whatever target it is given for.
    pub fn describes(&self, name: Option<&str>) -> bool {
        let product = |text: &str| {
            text.split('/')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        match (&self.implementation, name) {
            (None, _) => true,
            (Some(listed), Some(name)) => product(listed).eq_ignore_ascii_case(&product(name)),
            (Some(_), None) => false,
        }
    }

    /// Entries naming a scenario not among `ids`.
    pub fn stale<'a>(&'a self, ids: &[&str]) -> Vec<&'a str> {
        self.expected
            .iter()
            .filter(|e| {
                let scenario = e.id.split_once('#').map_or(e.id.as_str(), |(s, _)| s);
                !ids.contains(&scenario)
            })
            .map(|e| e.id.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_describes_the_implementation_it_names_at_any_version() {
        let list = ExpectedFailures::parse("implementation = \"health-server\"\n").unwrap();
        assert!(list.describes(Some("health-server/0.1.0")));
        assert!(list.describes(Some("Health-Server")));
        assert!(!list.describes(Some("nginx/1.25")));
        assert!(!list.describes(None));
        assert!(ExpectedFailures::default().describes(None));
    }

    #[test]
    fn entries_match_a_scenario_or_one_exchange() {
        let list = ExpectedFailures::parse(
            "[[expected]]\nid = \"a\"\nreason = \"known\"\n\n[[expected]]\nid = \"b#2\"\nreason = \"only the second\"\n",
        )
        .unwrap();
        assert_eq!(list.reason("a", Some("1")), Some("known"));
        assert_eq!(list.reason("b", Some("2")), Some("only the second"));
        assert_eq!(list.reason("b", Some("1")), None);
        assert_eq!(list.stale(&["a"]), vec!["b#2"]);
    }

    #[test]
    fn errors_are_located() {
        let e = ExpectedFailures::parse("[[expected]]\nid = \"a\"\n").unwrap_err();
        assert!(e.starts_with("1:1: ") || e.starts_with("2:"), "{e}");
        assert!(e.contains("reason"), "{e}");
    }
}
