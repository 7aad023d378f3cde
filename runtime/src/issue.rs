//! The one vocabulary of problems with a value: where ([`LocPart`]s), what ([`IssueKind`]) and
//! a message. Models' `validate()`, the router's 422 and the client share it.

use serde::Serialize;
use std::borrow::Cow;
use std::fmt;

/// One step of a location: `["body", "connections", 2, "user_id"]`. Keys are usually field
/// names known at compile time, so pushing one does not allocate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum LocPart {
    Key(Cow<'static, str>),
    Index(usize),
}

impl LocPart {
    /// A key known at compile time.
    pub const fn key(name: &'static str) -> Self {
        LocPart::Key(Cow::Borrowed(name))
    }
}

impl From<&'static str> for LocPart {
    fn from(s: &'static str) -> Self {
        LocPart::key(s)
    }
}

impl From<usize> for LocPart {
    fn from(i: usize) -> Self {
        LocPart::Index(i)
    }
}

/// What is wrong, as a stable machine-readable kind. The names are the ones clients of
/// FastAPI-style services already parse (`string_too_short` for a string, `too_short` for a
/// list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum IssueKind {
    #[serde(rename = "missing")]
    Missing,
    #[serde(rename = "null_not_allowed")]
    NullNotAllowed,
    #[serde(rename = "none_required")]
    NoneRequired,
    #[serde(rename = "bool_type")]
    BoolType,
    #[serde(rename = "int_type")]
    IntType,
    #[serde(rename = "float_type")]
    FloatType,
    #[serde(rename = "string_type")]
    StringType,
    #[serde(rename = "dict_type")]
    DictType,
    #[serde(rename = "model_type")]
    ModelType,
    #[serde(rename = "list_type")]
    ListType,
    #[serde(rename = "union_type")]
    UnionType,
    #[serde(rename = "bool_parsing")]
    BoolParsing,
    #[serde(rename = "int_parsing")]
    IntParsing,
    #[serde(rename = "float_parsing")]
    FloatParsing,
    #[serde(rename = "uuid_parsing")]
    UuidParsing,
    #[serde(rename = "date_parsing")]
    DateParsing,
    #[serde(rename = "datetime_parsing")]
    DatetimeParsing,
    #[serde(rename = "value_error.email")]
    Email,
    #[serde(rename = "value_error.timezone")]
    TimeZone,
    #[serde(rename = "enum")]
    Enum,
    #[serde(rename = "literal_error")]
    Literal,
    #[serde(rename = "greater_than_equal")]
    GreaterThanEqual,
    #[serde(rename = "less_than_equal")]
    LessThanEqual,
    #[serde(rename = "string_too_short")]
    StringTooShort,
    #[serde(rename = "string_too_long")]
    StringTooLong,
    #[serde(rename = "string_pattern_mismatch")]
    StringPatternMismatch,
    /// A list with fewer items than allowed.
    #[serde(rename = "too_short")]
    TooShort,
    /// A list with more items than allowed.
    #[serde(rename = "too_long")]
    TooLong,
    #[serde(rename = "json_invalid")]
    JsonInvalid,
    #[serde(rename = "exactly_one_of")]
    ExactlyOneOf,
    #[serde(rename = "at_least_one_of")]
    AtLeastOneOf,
    #[serde(rename = "at_most_one_of")]
    AtMostOneOf,
    /// Anything else a type refuses.
    #[serde(rename = "value_error")]
    Value,
    /// The last item of a 422 that lists only the first problems: how many more there are.
    #[serde(rename = "too_many_errors")]
    TooMany,
}

/// The most problems one 422 lists; a last item counts the rest, so an answer stays small
/// whatever the request.
pub const MAX_LISTED: usize = 50;

/// The first [`MAX_LISTED`] of `issues`, and an item counting the rest when there are more.
pub fn listed(issues: &[Issue]) -> Vec<Issue> {
    let mut listed: Vec<Issue> = issues.iter().take(MAX_LISTED).cloned().collect();
    if let Some(more) = issues.len().checked_sub(MAX_LISTED).filter(|n| *n > 0) {
        listed.push(too_many(more));
    }
    listed
}

/// The item that stands for `more` problems not listed.
pub fn too_many(more: usize) -> Issue {
    let msg = format!("{more} more problems are not listed; at most {MAX_LISTED} are");
    Issue::new(&[], IssueKind::TooMany, msg)
}

/// One problem, in the shape clients of the service already parse:
/// `{"loc": [...], "msg": "...", "type": "..."}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub loc: Vec<LocPart>,
    pub msg: String,
    #[serde(rename = "type")]
    pub kind: IssueKind,
}

impl Issue {
    pub fn new(loc: &[LocPart], kind: IssueKind, msg: impl Into<String>) -> Self {
        Issue {
            loc: loc.to_vec(),
            msg: msg.into(),
            kind,
        }
    }

    /// The location as a JSON path, e.g. `$.body.connections[2].user_id`.
    pub fn json_path(&self) -> String {
        let mut out = String::from("$");
        for part in &self.loc {
            match part {
                LocPart::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                LocPart::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.json_path(), self.msg)
    }
}

/// A regular expression of the spec, compiled the first time it is used and then shared:
/// generated code declares one `static` per pattern.
pub struct Pattern<'a> {
    source: &'a str,
    compiled: std::sync::OnceLock<Option<regex::Regex>>,
}

impl<'a> Pattern<'a> {
    pub const fn new(source: &'a str) -> Self {
        Pattern {
            source,
            compiled: std::sync::OnceLock::new(),
        }
    }

    pub fn as_str(&self) -> &'a str {
        self.source
    }

    /// A pattern that does not compile (lowering refuses those) matches nothing, so it
    /// rejects rather than waves values through.
    pub fn is_match(&self, s: &str) -> bool {
        self.compiled
            .get_or_init(|| regex::Regex::new(self.source).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(s))
    }
}

impl fmt::Debug for Pattern<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

/// The shape of an IANA time zone identifier (`Europe/Paris`, `UTC`, `Etc/GMT+5`), checked
/// by both `validate()` and the schemas.
pub static TIME_ZONE: Pattern = Pattern::new(crate::TIMEZONE_PATTERN);

/// The constraint checks, one implementation for typed values (`validate()`) and for JSON
/// values (the descriptor walk). Each pushes an issue at `loc` when it fails.
pub mod check {
    use super::{Issue, IssueKind, LocPart, Pattern};

    fn push(out: &mut Vec<Issue>, loc: &[LocPart], kind: IssueKind, msg: String) {
        out.push(Issue::new(loc, kind, msg));
    }

    pub fn minimum(v: f64, min: f64, loc: &[LocPart], out: &mut Vec<Issue>) {
        if v < min {
            let msg = format!("Input should be greater than or equal to {min}");
            push(out, loc, IssueKind::GreaterThanEqual, msg);
        }
    }

    pub fn maximum(v: f64, max: f64, loc: &[LocPart], out: &mut Vec<Issue>) {
        if v > max {
            let msg = format!("Input should be less than or equal to {max}");
            push(out, loc, IssueKind::LessThanEqual, msg);
        }
    }

    /// Lengths count characters (Unicode scalar values), as JSON Schema does.
    pub fn min_length(s: &str, min: usize, loc: &[LocPart], out: &mut Vec<Issue>) {
        if s.chars().count() < min {
            let msg = format!("String should have at least {min} characters");
            push(out, loc, IssueKind::StringTooShort, msg);
        }
    }

    pub fn max_length(s: &str, max: usize, loc: &[LocPart], out: &mut Vec<Issue>) {
        // A string of at most `max` bytes has at most `max` characters: skip the count.
        if s.len() > max && s.chars().count() > max {
            let msg = format!("String should have at most {max} characters");
            push(out, loc, IssueKind::StringTooLong, msg);
        }
    }

    pub fn min_items(len: usize, min: usize, loc: &[LocPart], out: &mut Vec<Issue>) {
        if len < min {
            let msg = format!("List should have at least {min} items");
            push(out, loc, IssueKind::TooShort, msg);
        }
    }

    pub fn max_items(len: usize, max: usize, loc: &[LocPart], out: &mut Vec<Issue>) {
        if len > max {
            let msg = format!("List should have at most {max} items");
            push(out, loc, IssueKind::TooLong, msg);
        }
    }

    /// A field that always holds one boolean (`ok: true`).
    pub fn constant_bool(v: bool, expected: bool, loc: &[LocPart], out: &mut Vec<Issue>) {
        if v != expected {
            push(
                out,
                loc,
                IssueKind::Literal,
                format!("Input should be {expected}"),
            );
        }
    }

    /// Entries of a map (an object with free keys).
    pub fn min_entries(len: usize, min: usize, loc: &[LocPart], out: &mut Vec<Issue>) {
        if len < min {
            let msg = format!("Object should have at least {min} entries");
            push(out, loc, IssueKind::TooShort, msg);
        }
    }

    pub fn max_entries(len: usize, max: usize, loc: &[LocPart], out: &mut Vec<Issue>) {
        if len > max {
            let msg = format!("Object should have at most {max} entries");
            push(out, loc, IssueKind::TooLong, msg);
        }
    }

    /// No two items equal as JSON values (`1` and `1.0` are, key order is not): each item
    /// is written in one canonical text and looked up once, so a long list costs one pass.
    pub fn unique_items<T: serde::Serialize>(items: &[T], loc: &[LocPart], out: &mut Vec<Issue>) {
        let mut seen = std::collections::HashMap::new();
        for (i, item) in items.iter().enumerate() {
            let Ok(value) = serde_json::to_value(item) else {
                continue;
            };
            if let Some(first) = seen.insert(super::canonical_json(&value), i) {
                let msg = format!("List should have unique items: items {first} and {i} are equal");
                push(out, loc, IssueKind::Value, msg);
                return;
            }
        }
    }

    pub fn pattern(s: &str, pattern: &Pattern, loc: &[LocPart], out: &mut Vec<Issue>) {
        if !pattern.is_match(s) {
            let msg = format!("String should match pattern '{}'", pattern.as_str());
            push(out, loc, IssueKind::StringPatternMismatch, msg);
        }
    }

    pub fn one_of_numbers(v: f64, allowed: &[f64], loc: &[LocPart], out: &mut Vec<Issue>) {
        if !allowed.contains(&v) {
            let names: Vec<String> = allowed.iter().map(f64::to_string).collect();
            let msg = format!("Input should be {}", join_or(&names));
            push(out, loc, IssueKind::Literal, msg);
        }
    }

    pub fn one_of_strings(v: &str, allowed: &[&str], loc: &[LocPart], out: &mut Vec<Issue>) {
        one_of(v, allowed, IssueKind::Literal, loc, out);
    }

    pub fn email(s: &str, loc: &[LocPart], out: &mut Vec<Issue>) {
        if !crate::formats::is_email(s) {
            let msg = "Input should be a valid e-mail address".to_string();
            push(out, loc, IssueKind::Email, msg);
        }
    }

    pub fn time_zone(s: &str, loc: &[LocPart], out: &mut Vec<Issue>) {
        if !super::TIME_ZONE.is_match(s) {
            let msg = "Input should be an IANA time zone identifier".to_string();
            push(out, loc, IssueKind::TimeZone, msg);
        }
    }

    /// A value of a closed set, named by the set's values.
    pub fn enum_member(v: &str, allowed: &[&str], loc: &[LocPart], out: &mut Vec<Issue>) {
        one_of(v, allowed, IssueKind::Enum, loc, out);
    }

    fn one_of(v: &str, allowed: &[&str], kind: IssueKind, loc: &[LocPart], out: &mut Vec<Issue>) {
        if !allowed.contains(&v) {
            let names: Vec<String> = allowed.iter().map(|s| format!("'{s}'")).collect();
            push(
                out,
                loc,
                kind,
                format!("Input should be {}", join_or(&names)),
            );
        }
    }

    /// Of the named inputs, exactly one must be sent. `sent` pairs each name with whether
    /// it was; the issue is located at `loc` (the inputs' common location).
    pub fn exactly_one_of(sent: &[(&str, bool)], loc: &[LocPart], out: &mut Vec<Issue>) {
        let given: Vec<&str> = sent.iter().filter(|(_, s)| *s).map(|(n, _)| *n).collect();
        if given.len() == 1 {
            return;
        }
        let names: Vec<&str> = sent.iter().map(|(n, _)| *n).collect();
        let names = names.join(", ");
        let msg = if given.is_empty() {
            format!("Exactly one of {names} is required")
        } else {
            format!(
                "Exactly one of {names} may be sent, not {}",
                given.join(" and ")
            )
        };
        push(out, loc, IssueKind::ExactlyOneOf, msg);
    }

    /// Of a model's group of optional fields, as many as its rule allows must be present.
    pub fn field_group(
        rule: crate::contract::GroupRule,
        sent: &[(&str, bool)],
        loc: &[LocPart],
        out: &mut Vec<Issue>,
    ) {
        use crate::contract::GroupRule;
        let given: Vec<&str> = sent.iter().filter(|(_, s)| *s).map(|(n, _)| *n).collect();
        if rule.allows(given.len()) {
            return;
        }
        let names: Vec<&str> = sent.iter().map(|(n, _)| *n).collect();
        let names = names.join(", ");
        match rule {
            GroupRule::ExactlyOne => exactly_one_of(sent, loc, out),
            GroupRule::AtLeastOne => {
                let msg = format!("At least one of {names} is required");
                push(out, loc, IssueKind::AtLeastOneOf, msg);
            }
            GroupRule::AtMostOne => {
                let msg = format!(
                    "At most one of {names} may be sent, not {}",
                    given.join(" and ")
                );
                push(out, loc, IssueKind::AtMostOneOf, msg);
            }
        }
    }

    pub(crate) fn join_or(items: &[String]) -> String {
        match items {
            [] => String::new(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        }
    }
}

/// One text for each JSON value: object keys sorted, integral numbers written as integers.
fn canonical_json(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical_json).collect();
            format!("[{}]", inner.join(","))
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by_key(|(k, _)| *k);
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{:?}:{}", k, canonical_json(v)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_lists_have_distinct_kinds() {
        let mut out = Vec::new();
        check::min_length("ab", 3, &[LocPart::key("name")], &mut out);
        check::min_items(2, 3, &[LocPart::key("tags")], &mut out);
        let kinds: Vec<IssueKind> = out.iter().map(|i| i.kind).collect();
        assert_eq!(kinds, [IssueKind::StringTooShort, IssueKind::TooShort]);
        let json = serde_json::to_value(&out).unwrap();
        assert_eq!(json[0]["type"], "string_too_short");
        assert_eq!(json[1]["type"], "too_short");
    }

    #[test]
    fn max_length_counts_characters_not_bytes() {
        let mut out = Vec::new();
        check::max_length("ééé", 3, &[], &mut out);
        assert!(out.is_empty());
        check::max_length("éééé", 3, &[], &mut out);
        assert_eq!(out[0].kind, IssueKind::StringTooLong);
    }

    #[test]
    fn patterns_compile_once_and_broken_ones_match_nothing() {
        static DIGITS: Pattern = Pattern::new("^[0-9]+$");
        static BROKEN: Pattern = Pattern::new("([");
        assert!(DIGITS.is_match("123"));
        assert!(!DIGITS.is_match("12a"));
        assert!(!BROKEN.is_match(""));
    }

    #[test]
    fn exactly_one_of_names_what_was_sent() {
        let loc = [LocPart::key("query")];
        let mut out = Vec::new();
        check::exactly_one_of(&[("a", false), ("b", false)], &loc, &mut out);
        check::exactly_one_of(&[("a", true), ("b", true)], &loc, &mut out);
        check::exactly_one_of(&[("a", true), ("b", false)], &loc, &mut out);
        let msgs: Vec<&str> = out.iter().map(|i| i.msg.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "Exactly one of a, b is required",
                "Exactly one of a, b may be sent, not a and b"
            ]
        );
    }

    #[test]
    fn json_paths_read_like_jq() {
        let issue = Issue::new(
            &[
                LocPart::key("body"),
                LocPart::key("items"),
                LocPart::Index(2),
            ],
            IssueKind::Missing,
            "Field required",
        );
        assert_eq!(issue.json_path(), "$.body.items[2]");
    }

    #[test]
    fn equal_items_are_equal_as_json_values() {
        let items = [
            serde_json::json!({"a": 1, "b": [2]}),
            serde_json::json!({"b": [2.0], "a": 1.0}),
        ];
        let mut out = Vec::new();
        check::unique_items(&items, &[LocPart::key("tags")], &mut out);
        assert_eq!(
            out[0].to_string(),
            "$.tags: List should have unique items: items 0 and 1 are equal"
        );
        let mut out = Vec::new();
        check::unique_items(&["a", "b", "ab"], &[], &mut out);
        assert!(out.is_empty());
    }
}
