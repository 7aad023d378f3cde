//! Expectations read once into typed form: plain values to compare, objects and arrays of
//! expectations, and matchers with their arguments checked and their patterns compiled.

use crate::suggest::{Likeness, closest};
use crate::template::text::{PathStep, Reader, Text, Tree, parse_duration};
use chrono::Duration;
use serde_json::Value;

/// What a response value must be.
#[derive(Clone, Debug)]
pub enum Expected {
    /// A value with no reference, compared as it is (numbers by value).
    Json(Value),
    /// A string with references: compared with the value filled in.
    Text(Text),
    /// The keys it lists must match; other keys are the schema's business.
    Object(Vec<(String, Expected)>),
    /// As many items, each matching.
    Array(Vec<Expected>),
    Matcher(Box<Matcher>),
}

/// A `{"$match": …}` object.
#[derive(Clone, Debug)]
pub struct Matcher {
    pub kind: MatcherKind,
    /// How the matcher reads in a failure: `a string matching ^sk_`.
    pub description: String,
    /// The matcher as the cassette writes it.
    pub written: Value,
}

impl Expected {
    /// The expectation as the cassette writes it, for messages.
    pub fn written(&self) -> Value {
        match self {
            Expected::Json(v) => v.clone(),
            Expected::Text(text) => Value::String(text.written().to_string()),
            Expected::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, e)| (k.clone(), e.written()))
                    .collect(),
            ),
            Expected::Array(items) => Value::Array(items.iter().map(Expected::written).collect()),
            Expected::Matcher(m) => m.written.clone(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum MatcherKind {
    Any,
    Absent,
    Type(JsonType),
    Regex(regex::Regex),
    /// Each item must match some element; the text shows the item in a failure.
    Contains(Vec<(Expected, String)>),
    Length(Bounds),
    Range(Bounds),
    /// An instant within `within` of `of` (now when absent).
    Datetime {
        within: Duration,
        of: Option<Tree>,
    },
    /// Equal in full, objects included, after references are filled in.
    Exact(Tree),
    /// Anything the expectation does not match (`"not": "{{first_user}}"`: another user).
    Not(Expected),
    /// An array each of whose items matches the expectation.
    Each(Expected),
}

/// Inclusive bounds; at least one is present.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Bounds {
    pub fn hold(&self, n: f64) -> bool {
        self.min.is_none_or(|m| n >= m) && self.max.is_none_or(|m| n <= m)
    }
}

/// The JSON types a `type` matcher names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    String,
    Number,
    Integer,
    Boolean,
    Array,
    Object,
    Null,
}

impl JsonType {
    pub const NAMES: &[&str] = &[
        "string", "number", "integer", "boolean", "array", "object", "null",
    ];

    fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            "boolean" => JsonType::Boolean,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            "null" => JsonType::Null,
            _ => return None,
        })
    }

    /// Whether `value` is of this type; every integer is a number too.
    pub fn holds(self, value: &Value) -> bool {
        match (self, value) {
            (JsonType::String, Value::String(_))
            | (JsonType::Number, Value::Number(_))
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Array, Value::Array(_))
            | (JsonType::Object, Value::Object(_))
            | (JsonType::Null, Value::Null) => true,
            (JsonType::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
            _ => false,
        }
    }
}

/// The matcher names, for did-you-mean.
pub const MATCHERS: &[&str] = &[
    "any", "absent", "type", "regex", "contains", "length", "range", "datetime", "exact", "not",
    "each",
];

/// The window of a `datetime` matcher that gives none.
const DEFAULT_WITHIN: &str = "5m";

impl Reader<'_> {
    /// An expectation; what cannot be read (a broken matcher, a broken template) is told
    /// and kept as a plain value, so the rest is still read.
    pub fn expected(&mut self, value: &Value) -> Expected {
        if let Some(kind) = value
            .as_object()
            .and_then(|o| o.get("$match"))
            .and_then(Value::as_str)
        {
            return match self.matcher(kind, value) {
                Ok(matcher) => Expected::Matcher(Box::new(matcher)),
                Err(problem) => {
                    self.problem(problem);
                    Expected::Json(value.clone())
                }
            };
        }
        match value {
            Value::String(s) if crate::template::text::holds_braces(value) => match self.text(s) {
                Some(text) => Expected::Text(text),
                None => Expected::Json(value.clone()),
            },
            Value::Array(items) => Expected::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| self.within(PathStep::Index(i), |r| r.expected(item)))
                    .collect(),
            ),
            Value::Object(fields) => Expected::Object(
                fields
                    .iter()
                    .map(|(k, v)| {
                        let e = self.within(PathStep::Key(k.clone()), |r| r.expected(v));
                        (k.clone(), e)
                    })
                    .collect(),
            ),
            other => Expected::Json(other.clone()),
        }
    }

    /// A matcher, or why it cannot be one.
    fn matcher(&mut self, kind: &str, value: &Value) -> Result<Matcher, String> {
        let arg = |name: &str| value.get(name);
        let kind = match kind {
            "any" => MatcherKind::Any,
            "absent" => MatcherKind::Absent,
            "type" => MatcherKind::Type(json_type(arg("type"))?),
            "regex" => match arg("pattern").and_then(Value::as_str) {
                Some(pattern) => MatcherKind::Regex(
                    regex::Regex::new(pattern)
                        .map_err(|e| format!("the pattern does not compile: {e}"))?,
                ),
                None => return Err("a `regex` matcher needs `\"pattern\": TEXT`".into()),
            },
            "length" => MatcherKind::Length(bounds(kind, value)?),
            "range" => MatcherKind::Range(bounds(kind, value)?),
            "contains" => {
                let items = arg("items")
                    .and_then(Value::as_array)
                    .ok_or("a `contains` matcher needs `\"items\": [...]`")?;
                let compiled = self.within(PathStep::Key("items".into()), |r| {
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| {
                            let e = r.within(PathStep::Index(i), |r| r.expected(item));
                            (e, crate::shown::show(item))
                        })
                        .collect()
                });
                MatcherKind::Contains(compiled)
            }
            "datetime" => {
                let within = match arg("within") {
                    None => parse_duration(DEFAULT_WITHIN),
                    Some(Value::String(s)) => parse_duration(s),
                    Some(_) => None,
                }
                .ok_or_else(|| {
                    format!(
                        "`within` {} is not a duration: write 30s, 5m, 2h or 7d",
                        arg("within").map(crate::shown::show).unwrap_or_default()
                    )
                })?;
                let of =
                    arg("of").map(|of| self.within(PathStep::Key("of".into()), |r| r.tree(of)));
                MatcherKind::Datetime { within, of }
            }
            "exact" => {
                let v = arg("value").ok_or("an `exact` matcher needs `\"value\": …`")?;
                MatcherKind::Exact(self.within(PathStep::Key("value".into()), |r| r.tree(v)))
            }
            "not" => {
                let v = arg("value")
                    .ok_or("a `not` matcher needs `\"value\": …`, what must not match")?;
                MatcherKind::Not(self.within(PathStep::Key("value".into()), |r| r.expected(v)))
            }
            "each" => {
                let v = arg("item")
                    .ok_or("an `each` matcher needs `\"item\": …`, what every item matches")?;
                MatcherKind::Each(self.within(PathStep::Key("item".into()), |r| r.expected(v)))
            }
            unknown => {
                let help = closest(unknown, MATCHERS.iter().copied(), Likeness::Close)
                    .map(|c| format!("did you mean `{c}`?"))
                    .unwrap_or_else(|| format!("known: {}", MATCHERS.join(", ")));
                return Err(format!("unknown matcher `{unknown}`; {help}"));
            }
        };
        Ok(Matcher {
            description: describe(&kind, value),
            kind,
            written: value.clone(),
        })
    }
}

/// The type a `type` matcher names, with the closest known name for a misspelt one.
fn json_type(name: Option<&Value>) -> Result<JsonType, String> {
    let name = name
        .and_then(Value::as_str)
        .ok_or("a `type` matcher needs `\"type\": NAME`")?;
    JsonType::parse(name).ok_or_else(|| {
        let help = closest(name, JsonType::NAMES.iter().copied(), Likeness::Close)
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        format!(
            "`{name}` is not a JSON type (known: {}){help}",
            JsonType::NAMES.join(", ")
        )
    })
}

/// The bounds of a `length` or `range` matcher: at least one, numbers, not crossed.
fn bounds(kind: &str, value: &Value) -> Result<Bounds, String> {
    let bound = |name: &'static str| match value.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("`{name}` of a `{kind}` matcher is a number")),
    };
    let (min, max) = (bound("min")?, bound("max")?);
    match (min, max) {
        (None, None) => Err(format!(
            "a `{kind}` matcher needs a bound: `min`, `max` or both"
        )),
        (Some(min), Some(max)) if min > max => {
            Err(format!("`min` {min} is above `max` {max}: nothing matches"))
        }
        _ => Ok(Bounds { min, max }),
    }
}

/// How a matcher reads in a failure: `a value of type string`, `length 1`.
fn describe(kind: &MatcherKind, written: &Value) -> String {
    let shown = |k: &str| written.get(k).map(crate::shown::show);
    let bounded = |what: &str| match (shown("min"), shown("max")) {
        (Some(a), Some(b)) if a == b => format!("{what} {a}"),
        (Some(a), Some(b)) => format!("{what} from {a} to {b}"),
        (Some(a), None) => format!("{what} at least {a}"),
        (None, Some(b)) => format!("{what} at most {b}"),
        (None, None) => what.to_string(),
    };
    match kind {
        MatcherKind::Any => "any value".into(),
        MatcherKind::Absent => "absent".into(),
        MatcherKind::Type(_) => format!("a value of type {}", shown("type").unwrap_or_default()),
        MatcherKind::Regex(_) => {
            format!("a string matching {}", shown("pattern").unwrap_or_default())
        }
        MatcherKind::Length(_) => bounded("length"),
        MatcherKind::Range(_) => bounded("a number"),
        MatcherKind::Datetime { .. } => format!(
            "an instant within {} of {}",
            written
                .get("within")
                .and_then(Value::as_str)
                .unwrap_or(DEFAULT_WITHIN),
            shown("of").unwrap_or_else(|| "now".into())
        ),
        MatcherKind::Contains(_) => "contains".into(),
        MatcherKind::Exact(_) => "exact".into(),
        MatcherKind::Not(_) => format!("anything but {}", shown("value").unwrap_or_default()),
        MatcherKind::Each(_) => format!(
            "an array each of whose items matches {}",
            shown("item").unwrap_or_default()
        ),
    }
}
