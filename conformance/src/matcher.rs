//! Expectations of a cassette against an actual response body or header.
//!
//! Plain JSON values match exactly; objects match the keys they list (others are the
//! schema's business); arrays match element by element. Matchers (`{"$match": …}`) were
//! read into typed form with the plan: `any`, `absent`, `type`, `regex`, `contains`,
//! `length`, `range`, `datetime`, `exact`, `not`, `each`.

use crate::cassette::locate::Step;
use crate::plan::expected::{Expected, Matcher, MatcherKind};
use crate::shown::show;
use crate::template::{Scope, TemplateError};
use chrono::{DateTime, Utc};
use serde_json::Value;

/// One expectation that does not hold, at a JSON path of the body (`$.data[0].id`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mismatch {
    pub path: String,
    pub expected: String,
    pub actual: String,
    /// Where the expectation that failed is written, from the root of the expectation
    /// checked: the path of the actual value can differ (an `each` matcher's items).
    #[serde(skip)]
    pub written: Vec<Step>,
}

/// Where a check stands: the actual value's JSON path, and where its expectation is
/// written. A failure is located as it is made.
struct Place<'p> {
    path: &'p str,
    written: &'p [Step],
}

impl Place<'_> {
    fn mismatch(&self, expected: impl Into<String>, actual: impl Into<String>) -> Mismatch {
        Mismatch {
            path: self.path.into(),
            expected: expected.into(),
            actual: actual.into(),
            written: self.written.to_vec(),
        }
    }
}

/// `written` and one step further in.
fn within(written: &[Step], step: Step) -> Vec<Step> {
    let mut steps = written.to_vec();
    steps.push(step);
    steps
}

/// Checks `actual` (`None`: absent) against `expected`, collecting every mismatch.
pub fn check(
    expected: &Expected,
    actual: Option<&Value>,
    path: &str,
    scope: &Scope,
    out: &mut Vec<Mismatch>,
) {
    let place = Place { path, written: &[] };
    check_at(expected, actual, &place, scope, out);
}

fn check_at(
    expected: &Expected,
    actual: Option<&Value>,
    place: &Place,
    scope: &Scope,
    out: &mut Vec<Mismatch>,
) {
    if let Expected::Matcher(matcher) = expected {
        return check_matcher(matcher, actual, place, scope, out);
    }
    let Some(actual) = actual else {
        return out.push(place.mismatch(shown_expected(expected, scope), "absent"));
    };
    let path = place.path;
    match (expected, actual) {
        (Expected::Object(want), Value::Object(got)) => {
            for (key, value) in want {
                let (path, written) = (
                    child(path, key),
                    within(place.written, Step::from(key.as_str())),
                );
                let inner = Place {
                    path: &path,
                    written: &written,
                };
                check_at(value, got.get(key), &inner, scope, out);
            }
        }
        (Expected::Array(want), Value::Array(got)) => {
            if want.len() != got.len() {
                out.push(place.mismatch(
                    format!("an array of {} items", want.len()),
                    format!("{} items", got.len()),
                ));
            }
            for (i, (w, g)) in want.iter().zip(got).enumerate() {
                let (path, written) = (
                    format!("{path}[{i}]"),
                    within(place.written, Step::Index(i)),
                );
                let inner = Place {
                    path: &path,
                    written: &written,
                };
                check_at(w, Some(g), &inner, scope, out);
            }
        }
        (Expected::Text(text), _) => match scope.text_value(text) {
            Ok(want) if json_equal(&want, actual) => {}
            Ok(want) => out.push(differs(place, &want, actual)),
            Err(TemplateError(e)) => out.push(unusable(place, e)),
        },
        (Expected::Json(want), _) if json_equal(want, actual) => {}
        (Expected::Json(want), _) => out.push(differs(place, want, actual)),
        _ => out.push(place.mismatch(shown_expected(expected, scope), show(actual))),
    }
}

/// An expectation as a failure shows it: a matcher by what it asks, a template with its
/// references filled in, anything else as the cassette writes it.
fn shown_expected(expected: &Expected, scope: &Scope) -> String {
    match expected {
        Expected::Text(text) => scope
            .text_value(text)
            .map(|v| show(&v))
            .unwrap_or_else(|TemplateError(e)| e),
        Expected::Matcher(m) => m.description.clone(),
        other => show(&other.written()),
    }
}

/// Numbers compare by value (`1` equals `1.0`); everything else structurally.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn check_matcher(
    matcher: &Matcher,
    actual: Option<&Value>,
    place: &Place,
    scope: &Scope,
    out: &mut Vec<Mismatch>,
) {
    let fails = |out: &mut Vec<Mismatch>, actual: String| {
        out.push(place.mismatch(matcher.description.clone(), actual))
    };
    if let MatcherKind::Not(unwanted) = &matcher.kind {
        let mut scratch = Vec::new();
        check_at(unwanted, actual, place, scope, &mut scratch);
        if scratch.is_empty() {
            fails(out, actual.map_or_else(|| "absent".into(), show));
        }
        return;
    }
    let actual = match (&matcher.kind, actual) {
        (MatcherKind::Absent, None) => return,
        (MatcherKind::Absent, Some(a)) => return out.push(place.mismatch("absent", show(a))),
        (_, None) => return fails(out, "absent".into()),
        (_, Some(actual)) => actual,
    };
    let holds = match &matcher.kind {
        MatcherKind::Any | MatcherKind::Absent => true,
        MatcherKind::Type(t) => t.holds(actual),
        MatcherKind::Regex(re) => actual.as_str().is_some_and(|s| re.is_match(s)),
        MatcherKind::Contains(items) => return check_contains(items, actual, place, scope, out),
        MatcherKind::Length(bounds) => {
            let len = match actual {
                Value::Array(a) => a.len(),
                Value::String(s) => s.chars().count(),
                Value::Object(o) => o.len(),
                _ => return fails(out, show(actual)),
            };
            if !bounds.hold(len as f64) {
                return fails(out, format!("length {len}"));
            }
            true
        }
        MatcherKind::Range(bounds) => actual.as_f64().is_some_and(|n| bounds.hold(n)),
        MatcherKind::Datetime { within, of } => {
            let around = match of {
                Some(of) => match scope.tree(of) {
                    Ok(Value::String(s)) => parse_instant(&s),
                    _ => None,
                },
                None => Some(Utc::now()),
            };
            let got = actual.as_str().and_then(parse_instant);
            matches!((around, got), (Some(around), Some(got)) if (got - around).abs() <= *within)
        }
        MatcherKind::Exact(want) => {
            return match scope.tree(want) {
                Ok(want) if json_equal(&want, actual) => {}
                Ok(want) => out.push(differs(place, &want, actual)),
                Err(TemplateError(e)) => out.push(unusable(place, e)),
            };
        }
        MatcherKind::Each(item) => {
            let Some(items) = actual.as_array() else {
                return fails(out, show(actual));
            };
            // Every item is held to the one expectation written under `item`.
            let written = within(place.written, Step::from("item"));
            for (i, element) in items.iter().enumerate() {
                let path = format!("{}[{i}]", place.path);
                let inner = Place {
                    path: &path,
                    written: &written,
                };
                check_at(item, Some(element), &inner, scope, out);
            }
            return;
        }
        // Judged before the value is needed: `not` holds of an absent value too.
        MatcherKind::Not(_) => true,
    };
    if !holds {
        fails(out, show(actual));
    }
}

/// Each wanted item must match some element of the array; one no element matches is
/// located at its place under `items`.
fn check_contains(
    items: &[(Expected, String)],
    actual: &Value,
    place: &Place,
    scope: &Scope,
    out: &mut Vec<Mismatch>,
) {
    let Some(elements) = actual.as_array() else {
        return out.push(place.mismatch("an array", show(actual)));
    };
    for (i, (want, shown)) in items.iter().enumerate() {
        let found = elements.iter().any(|element| {
            let mut scratch = Vec::new();
            check_at(want, Some(element), place, scope, &mut scratch);
            scratch.is_empty()
        });
        if !found {
            let written = within(&within(place.written, Step::from("items")), Step::Index(i));
            let item = Place {
                path: place.path,
                written: &written,
            };
            out.push(item.mismatch(
                format!("an item matching {shown}"),
                format!("none of {} items", elements.len()),
            ));
        }
    }
}

fn parse_instant(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.with_timezone(&Utc))
        .or_else(|| {
            // Instants without an offset are read as UTC, as many services write them.
            chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|n| n.and_utc())
        })
}

fn differs(place: &Place, expected: &Value, actual: &Value) -> Mismatch {
    place.mismatch(show(expected), show(actual))
}

fn unusable(place: &Place, problem: String) -> Mismatch {
    place.mismatch(format!("a usable expectation ({problem})"), "not checked")
}

/// A path step: `$.name`, or `$["odd name"]` when the key is not a plain word.
pub fn child(path: &str, key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Globals;
    use serde_json::json;

    fn mismatches(expected: Value, actual: Value) -> Vec<Mismatch> {
        let g = Globals::default();
        let scope = Scope::new(&g);
        let vet = |_: &crate::template::text::Reference| None;
        let mut reader = crate::template::text::Reader::new(&vet);
        let expected = reader.expected(&expected);
        assert!(reader.problems.is_empty(), "{:?}", reader.problems);
        let mut out = Vec::new();
        check(&expected, Some(&actual), "$", &scope, &mut out);
        out
    }

    #[test]
    fn objects_match_the_keys_they_list() {
        assert!(mismatches(json!({"a": 1}), json!({"a": 1.0, "b": 2})).is_empty());
        let m = mismatches(json!({"a": 1, "c": "x"}), json!({"a": 2}));
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].path, "$.a");
        assert_eq!(
            m[1],
            Mismatch {
                path: "$.c".into(),
                expected: "\"x\"".into(),
                actual: "absent".into(),
                written: vec![Step::from("c")],
            }
        );
    }

    /// `not`: another user's id is not the first's; `each`: every item holds the same
    /// provider, and a failure names the item that does not.
    #[test]
    fn not_and_each_match_what_they_say() {
        assert!(mismatches(json!({"$match": "not", "value": "u1"}), json!("u2")).is_empty());
        let m = mismatches(json!({"$match": "not", "value": "u1"}), json!("u1"));
        assert_eq!(m[0].expected, "anything but \"u1\"");
        assert!(
            mismatches(
                json!({"$match": "not", "value": {"$match": "type", "type": "null"}}),
                json!(3)
            )
            .is_empty()
        );
        let each = json!({"$match": "each", "item": {"provider": "oura"}});
        assert!(
            mismatches(
                each.clone(),
                json!([{"provider": "oura"}, {"provider": "oura", "x": 1}])
            )
            .is_empty()
        );
        assert!(mismatches(each.clone(), json!([])).is_empty());
        let m = mismatches(
            each.clone(),
            json!([{"provider": "oura"}, {"provider": "fitbit"}]),
        );
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].path, "$[1].provider");
        // The response's second item, the cassette's one expectation of every item.
        assert_eq!(m[0].written, [Step::from("item"), Step::from("provider")]);
        assert!(!mismatches(each, json!({"provider": "oura"})).is_empty());
    }

    #[test]
    fn matchers_check_what_they_say() {
        let ok =
            |e: Value, a: Value| assert!(mismatches(e.clone(), a.clone()).is_empty(), "{e} vs {a}");
        let bad = |e: Value, a: Value| {
            assert!(!mismatches(e.clone(), a.clone()).is_empty(), "{e} vs {a}")
        };
        ok(json!({"$match": "type", "type": "string"}), json!("x"));
        bad(json!({"$match": "type", "type": "integer"}), json!(1.5));
        ok(json!({"$match": "regex", "pattern": "^sk_"}), json!("sk_1"));
        bad(json!({"$match": "regex", "pattern": "^sk_"}), json!(7));
        ok(
            json!({"$match": "length", "min": 1, "max": 2}),
            json!([1, 2]),
        );
        bad(json!({"$match": "length", "min": 3}), json!([1, 2]));
        ok(json!({"$match": "range", "min": 0, "max": 10}), json!(10));
        bad(json!({"$match": "range", "max": 10}), json!(10.5));
        ok(
            json!({"$match": "contains", "items": [{"id": 2}]}),
            json!([{"id": 1}, {"id": 2}]),
        );
        bad(
            json!({"$match": "contains", "items": [{"id": 3}]}),
            json!([{"id": 1}]),
        );
        let missing = mismatches(
            json!({"$match": "contains", "items": [{"id": 1}, {"id": 3}]}),
            json!([{"id": 1}]),
        );
        assert_eq!(missing[0].written, [Step::from("items"), Step::Index(1)]);
        ok(
            json!({"$match": "exact", "value": {"a": 1}}),
            json!({"a": 1}),
        );
        bad(
            json!({"$match": "exact", "value": {"a": 1}}),
            json!({"a": 1, "b": 2}),
        );
        let now = Utc::now().to_rfc3339();
        ok(json!({"$match": "datetime", "within": "1m"}), json!(now));
        bad(
            json!({"$match": "datetime", "within": "1m"}),
            json!("2001-01-01T00:00:00Z"),
        );
        ok(json!({"x": {"$match": "absent"}}), json!({}));
        bad(json!({"x": {"$match": "absent"}}), json!({"x": null}));
    }
}
