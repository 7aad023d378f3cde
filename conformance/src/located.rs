//! Where in its cassette a run-time failure's expectation is written, as a compiler names a
//! line: `file:line:col` and the line itself. What made a failure said where, within its
//! exchange, the cassette writes it (a body mismatch at `$.data[0].id` at that value of
//! `expect.body`, an `each` matcher's item at the one expectation under `item`; a status
//! at `expect.status`; a capture at its name; a failure the spec alone finds at the
//! exchange's `expect`), so only its line and column are left to find here. The text is
//! read for them once per cassette, and only when something in it failed: a passing run
//! pays nothing for positions nobody asks for.

use crate::cassette::locate::{Locator, Step};
use crate::outcome::{Failure, Location};

/// Sets `at` on every failure of the exchange at `index` of the cassette `locator` reads.
pub fn locate_failures(locator: &Locator, file: &str, index: usize, failures: &mut [Failure]) {
    for failure in failures {
        let mut steps: Vec<Step> = vec!["exchanges".into(), index.into()];
        steps.extend(failure.place_in_exchange());
        let at = locator.position(&steps);
        failure.at = Some(Location {
            file: file.to_string(),
            line: at.line,
            col: at.col,
            excerpt: locator.line(at.line).trim_end().to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::FailureKind;

    const CASSETTE: &str = r#"{
  "exchanges": [
    {
      "request": { "method": "GET", "path": "/v2/users" },
      "expect": {
        "status": 200,
        "body": { "users": { "$match": "each", "item": { "team": "t1" } } }
      }
    }
  ]
}"#;

    fn located(failure: Failure) -> Location {
        let mut failures = [failure];
        locate_failures(&Locator::new(CASSETTE), "list.json", 0, &mut failures);
        failures[0].at.clone().expect("located")
    }

    /// A failure of the response's third user is written once, under the matcher's `item`.
    #[test]
    fn a_failure_points_where_its_expectation_is_written() {
        let steps = ["expect", "body", "users", "item", "team"].map(Step::from);
        let failure = Failure::new(FailureKind::Body, "$.users[2].team", "\"t1\"", "\"t2\"", "")
            .written_at(steps.to_vec());
        let at = located(failure);
        assert_eq!((at.file.as_str(), at.line), ("list.json", 7));
        assert!(at.excerpt[at.col - 1..].starts_with("\"t1\""), "{at:?}");
    }

    /// A failure that names no place is located at its kind's: a status at `expect.status`.
    #[test]
    fn a_failure_without_a_place_is_located_by_its_kind() {
        let at = located(Failure::new(
            FailureKind::Schema,
            "$.id",
            "a string",
            "7",
            "",
        ));
        assert_eq!(at.line, 6);
        assert!(at.excerpt[at.col - 1..].starts_with("200"), "{at:?}");
    }
}
