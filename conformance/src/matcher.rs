//! Expectations of a cassette against an actual response body or header.
//!
//! Plain JSON values match exactly; objects match the keys they list (others are the
//! schema's business); arrays match element by element. An object with a `"$match"` key is
//! a matcher: `any`, `absent`, `type`, `regex`, `contains`, `length`, `range`, `datetime`,
//! `exact`.

use crate::template::{Scope, TemplateError, parse_duration};
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::HashMap;

/// One expectation that does not hold, at a JSON path of the body (`$.data[0].id`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mismatch {
    pub path: String,
    pub expected: String,
    pub actual: String,
}

/// The matcher kinds, for checking cassettes before a run.
pub const MATCHERS: &[&str] = &[
    "any", "absent", "type", "regex", "contains", "length", "range", "datetime", "exact",
];

/// Checks `actual` (`None`: absent) against `expected`, collecting every mismatch.
pub fn check(
    expected: &Value,
    actual: Option<&Value>,
    path: &str,
    scope: &Scope,
    out: &mut Vec<Mismatch>,
) {
    if let Some(kind) = matcher_kind(expected) {
        return check_matcher(kind, expected, actual, path, scope, out);
    }
    let Some(actual) = actual else {
        return out.push(Mismatch {
            path: path.into(),
            expected: show(expected),
            actual: "absent".into(),
        });
    };
    match (expected, actual) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, value) in want {
                check(value, got.get(key), &child(path, key), scope, out);
            }
        }
        (Value::Array(want), Value::Array(got)) => {
            if want.len() != got.len() {
                out.push(Mismatch {
                    path: path.into(),
                    expected: format!("an array of {} items", want.len()),
                    actual: format!("{} items", got.len()),
                });
            }
            for (i, (w, g)) in want.iter().zip(got).enumerate() {
                check(w, Some(g), &format!("{path}[{i}]"), scope, out);
            }
        }
        (Value::String(template), _) => match scope.value(&Value::String(template.clone())) {
            Ok(want) if json_equal(&want, actual) => {}
            Ok(want) => out.push(differs(path, &want, actual)),
            Err(TemplateError(e)) => out.push(unusable(path, e)),
        },
        _ if json_equal(expected, actual) => {}
        _ => out.push(differs(path, expected, actual)),
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

pub fn matcher_kind(v: &Value) -> Option<&str> {
    v.as_object()?.get("$match")?.as_str()
}

fn check_matcher(
    kind: &str,
    spec: &Value,
    actual: Option<&Value>,
    path: &str,
    scope: &Scope,
    out: &mut Vec<Mismatch>,
) {
    let arg = |name: &str| spec.get(name);
    if kind == "absent" {
        if let Some(a) = actual {
            out.push(Mismatch {
                path: path.into(),
                expected: "absent".into(),
                actual: show(a),
            });
        }
        return;
    }
    let Some(actual) = actual else {
        return out.push(Mismatch {
            path: path.into(),
            expected: describe(kind, spec),
            actual: "absent".into(),
        });
    };
    let fails = |out: &mut Vec<Mismatch>| {
        out.push(Mismatch {
            path: path.into(),
            expected: describe(kind, spec),
            actual: show(actual),
        })
    };
    match kind {
        "any" => {}
        "type" => {
            let want = arg("type").and_then(Value::as_str).unwrap_or("");
            if type_name(actual) != want && !(want == "number" && actual.is_number()) {
                fails(out);
            }
        }
        "regex" => {
            let pattern = arg("pattern").and_then(Value::as_str).unwrap_or("");
            let ok = match (compiled(pattern), actual.as_str()) {
                (Some(re), Some(s)) => re.is_match(s),
                _ => false,
            };
            if !ok {
                fails(out);
            }
        }
        "contains" => {
            let Some(items) = actual.as_array() else {
                return fails(out);
            };
            for want in arg("items").and_then(Value::as_array).into_iter().flatten() {
                let found = items.iter().any(|item| {
                    let mut scratch = Vec::new();
                    check(want, Some(item), path, scope, &mut scratch);
                    scratch.is_empty()
                });
                if !found {
                    out.push(Mismatch {
                        path: path.into(),
                        expected: format!("an item matching {}", show(want)),
                        actual: format!("none of {} items", items.len()),
                    });
                }
            }
        }
        "length" => {
            let len = match actual {
                Value::Array(a) => a.len(),
                Value::String(s) => s.chars().count(),
                Value::Object(o) => o.len(),
                _ => return fails(out),
            } as f64;
            if !within(len, arg("min"), arg("max")) {
                out.push(Mismatch {
                    path: path.into(),
                    expected: describe(kind, spec),
                    actual: format!("length {len}"),
                });
            }
        }
        "range" => match actual.as_f64() {
            Some(n) if within(n, arg("min"), arg("max")) => {}
            _ => fails(out),
        },
        "datetime" => check_datetime(spec, actual, path, scope, out),
        "exact" => {
            let want = arg("value").cloned().unwrap_or(Value::Null);
            match scope.value(&want) {
                Ok(want) if json_equal(&want, actual) => {}
                Ok(want) => out.push(differs(path, &want, actual)),
                Err(TemplateError(e)) => out.push(unusable(path, e)),
            }
        }
        other => out.push(unusable(path, format!("unknown matcher `{other}`"))),
    }
}

/// The most patterns kept compiled; cassettes are checked before a run, so every pattern
/// compiles, and a run holds few distinct ones.
const COMPILED_PATTERNS: usize = 4096;

static PATTERNS: std::sync::LazyLock<std::sync::RwLock<HashMap<String, regex::Regex>>> =
    std::sync::LazyLock::new(Default::default);

/// A pattern compiled once per run, not once per match.
fn compiled(pattern: &str) -> Option<regex::Regex> {
    if let Some(re) = PATTERNS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(pattern)
    {
        return Some(re.clone());
    }
    let re = regex::Regex::new(pattern).ok()?;
    let mut cache = PATTERNS.write().unwrap_or_else(|e| e.into_inner());
    if cache.len() < COMPILED_PATTERNS {
        cache.insert(pattern.to_string(), re.clone());
    }
    Some(re)
}

fn check_datetime(
    spec: &Value,
    actual: &Value,
    path: &str,
    scope: &Scope,
    out: &mut Vec<Mismatch>,
) {
    let window = spec
        .get("within")
        .and_then(Value::as_str)
        .and_then(parse_duration)
        .unwrap_or_else(|| chrono::Duration::minutes(5));
    let around = match spec.get("of") {
        Some(of) => match scope.value(of) {
            Ok(Value::String(s)) => parse_instant(&s),
            _ => None,
        },
        None => Some(Utc::now()),
    };
    let got = actual.as_str().and_then(parse_instant);
    match (around, got) {
        (Some(around), Some(got)) if (got - around).abs() <= window => {}
        _ => out.push(Mismatch {
            path: path.into(),
            expected: describe("datetime", spec),
            actual: show(actual),
        }),
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

fn within(n: f64, min: Option<&Value>, max: Option<&Value>) -> bool {
    min.and_then(Value::as_f64).is_none_or(|m| n >= m)
        && max.and_then(Value::as_f64).is_none_or(|m| n <= m)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// How a matcher reads in a failure: `a string`, `matches ^sk_`, `length 1..=3`.
fn describe(kind: &str, spec: &Value) -> String {
    let text = |k: &str| spec.get(k).map(show).unwrap_or_else(|| "?".into());
    match kind {
        "type" => format!("a value of type {}", text("type")),
        "regex" => format!("a string matching {}", text("pattern")),
        "length" | "range" => {
            let bound = |k: &str| spec.get(k).map(show);
            let what = if kind == "length" {
                "length"
            } else {
                "a number"
            };
            match (bound("min"), bound("max")) {
                (Some(a), Some(b)) if a == b => format!("{what} {a}"),
                (Some(a), Some(b)) => format!("{what} from {a} to {b}"),
                (Some(a), None) => format!("{what} at least {a}"),
                (None, Some(b)) => format!("{what} at most {b}"),
                (None, None) => what.to_string(),
            }
        }
        "datetime" => format!(
            "an instant within {} of {}",
            spec.get("within").and_then(Value::as_str).unwrap_or("5m"),
            spec.get("of").map(show).unwrap_or_else(|| "now".into())
        ),
        "any" => "any value".into(),
        other => other.to_string(),
    }
}

fn differs(path: &str, expected: &Value, actual: &Value) -> Mismatch {
    Mismatch {
        path: path.into(),
        expected: show(expected),
        actual: show(actual),
    }
}

fn unusable(path: &str, problem: String) -> Mismatch {
    Mismatch {
        path: path.into(),
        expected: format!("a usable expectation ({problem})"),
        actual: "not checked".into(),
    }
}

/// A path step: `$.name`, or `$["odd name"]` when the key is not a plain word.
pub fn child(path: &str, key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

/// A value as a failure shows it: compact JSON, long values cut.
pub fn show(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 200 {
        let cut: String = text.chars().take(200).collect();
        format!("{cut}…")
    } else {
        text
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
                actual: "absent".into()
            }
        );
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
