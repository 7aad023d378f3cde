//! Static descriptors of a spec's types and endpoints, emitted by `covenant generate`, and a
//! walker that checks a JSON value against them collecting *every* problem with its location.
//!
//! Serde stops at the first error; a 422 must name all of them. The router runs this walker
//! over path, query, header and body inputs first, then lets serde build the typed input,
//! which the walker has already vouched for. The client reuses the endpoint descriptors to
//! lay out requests.

use regex::Regex;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

/// The type of a value.
#[derive(Debug)]
pub enum TypeDesc {
    String,
    Int,
    Number,
    Bool,
    Uuid,
    Date,
    DateTime,
    Email,
    Uri,
    TimeZone,
    Object,
    Any,
    /// A value the source leaves open: anything goes.
    NotShown,
    Model(&'static ModelDesc),
    Enum(&'static EnumDesc),
    List(&'static TypeDesc),
    Union(&'static [TypeDesc]),
}

#[derive(Debug)]
pub struct ModelDesc {
    pub name: &'static str,
    pub fields: &'static [FieldDesc],
}

#[derive(Debug)]
pub struct EnumDesc {
    pub name: &'static str,
    pub values: &'static [&'static str],
    pub open: bool,
    /// Integer values rather than strings.
    pub int: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    Required,
    Optional,
    Nullable,
    OptionalNullable,
}

#[derive(Debug)]
pub struct FieldDesc {
    pub name: &'static str,
    pub ty: TypeDesc,
    pub presence: Presence,
    /// Absent reads as a default, so absence is fine whatever the presence.
    pub has_default: bool,
    /// Whether a string format (uuid, date, email…) is enforced in this shape.
    pub format: bool,
    pub constraints: Constraints,
}

#[derive(Debug, Default)]
pub struct Constraints {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    pub pattern: Option<&'static str>,
    pub one_of_numbers: &'static [f64],
    pub one_of_strings: &'static [&'static str],
}

impl Constraints {
    pub const NONE: Constraints = Constraints {
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        min_items: None,
        max_items: None,
        pattern: None,
        one_of_numbers: &[],
        one_of_strings: &[],
    };
}

/// One step of a location: `["body", "connections", 2, "user_id"]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum LocPart {
    Key(String),
    Index(usize),
}

impl From<&str> for LocPart {
    fn from(s: &str) -> Self {
        LocPart::Key(s.to_string())
    }
}

/// One problem with a request, in the shape clients of the service already parse:
/// `{"loc": [...], "msg": "...", "type": "..."}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub loc: Vec<LocPart>,
    pub msg: String,
    #[serde(rename = "type")]
    pub kind: String,
}

impl Issue {
    pub fn new(loc: &[LocPart], kind: &str, msg: impl Into<String>) -> Self {
        Issue {
            loc: loc.to_vec(),
            msg: msg.into(),
            kind: kind.to_string(),
        }
    }
}

/// Checks a field of an object: presence, null, then the value.
pub fn check_field(
    field: &FieldDesc,
    value: Option<&Value>,
    loc: &mut Vec<LocPart>,
    issues: &mut Vec<Issue>,
) {
    loc.push(LocPart::Key(field.name.to_string()));
    match value {
        None => {
            if (field.presence == Presence::Required || field.presence == Presence::Nullable)
                && !field.has_default
            {
                issues.push(Issue::new(loc, "missing", "Field required"));
            }
        }
        Some(Value::Null) => {
            let nullable = matches!(
                field.presence,
                Presence::Nullable | Presence::OptionalNullable
            );
            if !nullable && !matches!(field.ty, TypeDesc::Any | TypeDesc::NotShown) {
                issues.push(Issue::new(
                    loc,
                    "null_not_allowed",
                    "Input should not be null",
                ));
            }
        }
        Some(v) => check_value(&field.ty, &field.constraints, field.format, v, loc, issues),
    }
    loc.pop();
}

/// Checks a present, non-null value against its type and constraints.
pub fn check_value(
    ty: &TypeDesc,
    c: &Constraints,
    format: bool,
    v: &Value,
    loc: &mut Vec<LocPart>,
    issues: &mut Vec<Issue>,
) {
    let before = issues.len();
    match ty {
        TypeDesc::Any | TypeDesc::NotShown => {}
        TypeDesc::Bool => expect(
            v.is_boolean(),
            "bool_type",
            "Input should be a valid boolean",
            loc,
            issues,
        ),
        TypeDesc::Int => {
            // As serde reads an i64: `5.0` is a number, not an integer.
            expect(
                // As serde reads an i64: beyond its range is no integer of the field.
                v.is_i64(),
                "int_type",
                "Input should be a valid integer",
                loc,
                issues,
            );
        }
        TypeDesc::Number => expect(
            v.is_number(),
            "float_type",
            "Input should be a valid number",
            loc,
            issues,
        ),
        TypeDesc::Object => expect(
            v.is_object(),
            "dict_type",
            "Input should be a valid object",
            loc,
            issues,
        ),
        TypeDesc::String | TypeDesc::Uri => expect(
            v.is_string(),
            "string_type",
            "Input should be a valid string",
            loc,
            issues,
        ),
        TypeDesc::Uuid
        | TypeDesc::Date
        | TypeDesc::DateTime
        | TypeDesc::Email
        | TypeDesc::TimeZone => match v.as_str() {
            None => issues.push(Issue::new(
                loc,
                "string_type",
                "Input should be a valid string",
            )),
            Some(s) if format || matches!(ty, TypeDesc::TimeZone) => {
                check_format(ty, s, loc, issues)
            }
            Some(_) => {}
        },
        TypeDesc::Enum(e) => check_enum(e, v, loc, issues),
        TypeDesc::Model(m) => match v.as_object() {
            None => issues.push(Issue::new(
                loc,
                "model_type",
                format!("Input should be an object ({})", m.name),
            )),
            Some(obj) => {
                for field in m.fields {
                    check_field(field, obj.get(field.name), loc, issues);
                }
            }
        },
        TypeDesc::List(inner) => match v.as_array() {
            None => issues.push(Issue::new(loc, "list_type", "Input should be a valid list")),
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    loc.push(LocPart::Index(i));
                    if item.is_null() && !matches!(inner, TypeDesc::Any | TypeDesc::NotShown) {
                        issues.push(Issue::new(
                            loc,
                            "null_not_allowed",
                            "Input should not be null",
                        ));
                    } else {
                        check_value(inner, &Constraints::NONE, format, item, loc, issues);
                    }
                    loc.pop();
                }
            }
        },
        TypeDesc::Union(alternatives) => {
            let fits = alternatives.iter().any(|alt| {
                let mut scratch = Vec::new();
                check_value(
                    alt,
                    &Constraints::NONE,
                    format,
                    v,
                    &mut loc.clone(),
                    &mut scratch,
                );
                scratch.is_empty()
            });
            expect(
                fits,
                "union_type",
                "Input matches none of the allowed types",
                loc,
                issues,
            );
        }
    }
    if issues.len() == before {
        check_constraints(c, v, loc, issues);
    }
}

fn expect(ok: bool, kind: &str, msg: &str, loc: &[LocPart], issues: &mut Vec<Issue>) {
    if !ok {
        issues.push(Issue::new(loc, kind, msg));
    }
}

fn check_format(ty: &TypeDesc, s: &str, loc: &[LocPart], issues: &mut Vec<Issue>) {
    let (ok, kind, msg) = match ty {
        TypeDesc::Uuid => (
            s.parse::<crate::Uuid>().is_ok(),
            "uuid_parsing",
            "Input should be a valid UUID",
        ),
        TypeDesc::Date => (
            s.parse::<crate::Date>().is_ok(),
            "date_parsing",
            "Input should be a valid date (YYYY-MM-DD)",
        ),
        TypeDesc::DateTime => (
            s.parse::<crate::DateTime>().is_ok(),
            "datetime_parsing",
            "Input should be a valid RFC 3339 date-time",
        ),
        TypeDesc::Email => (
            crate::formats::is_email(s),
            "value_error.email",
            "Input should be a valid e-mail address",
        ),
        TypeDesc::TimeZone => (
            cached_regex(crate::TIMEZONE_PATTERN).is_some_and(|re| re.is_match(s)),
            "value_error.timezone",
            "Input should be an IANA time zone identifier",
        ),
        _ => (true, "", ""),
    };
    expect(ok, kind, msg, loc, issues);
}

fn check_enum(e: &EnumDesc, v: &Value, loc: &[LocPart], issues: &mut Vec<Issue>) {
    let text = match (e.int, v) {
        (true, Value::Number(n)) if n.is_i64() => n.to_string(),
        (false, Value::String(s)) => s.clone(),
        (true, _) => {
            return issues.push(Issue::new(
                loc,
                "int_type",
                "Input should be a valid integer",
            ));
        }
        (false, _) => {
            return issues.push(Issue::new(
                loc,
                "string_type",
                "Input should be a valid string",
            ));
        }
    };
    if !e.open && !e.values.contains(&text.as_str()) {
        let allowed: Vec<String> = e.values.iter().map(|v| format!("'{v}'")).collect();
        issues.push(Issue::new(
            loc,
            "enum",
            format!("Input should be {}", join_or(&allowed)),
        ));
    }
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn check_constraints(c: &Constraints, v: &Value, loc: &[LocPart], issues: &mut Vec<Issue>) {
    if let Some(n) = v.as_f64().filter(|_| v.is_number()) {
        if let Some(min) = c.minimum.filter(|m| n < *m) {
            issues.push(Issue::new(
                loc,
                "greater_than_equal",
                format!("Input should be greater than or equal to {min}"),
            ));
        }
        if let Some(max) = c.maximum.filter(|m| n > *m) {
            issues.push(Issue::new(
                loc,
                "less_than_equal",
                format!("Input should be less than or equal to {max}"),
            ));
        }
        if !c.one_of_numbers.is_empty() && !c.one_of_numbers.contains(&n) {
            let allowed: Vec<String> = c.one_of_numbers.iter().map(|n| n.to_string()).collect();
            issues.push(Issue::new(
                loc,
                "literal_error",
                format!("Input should be {}", join_or(&allowed)),
            ));
        }
    }
    if let Some(s) = v.as_str() {
        let len = s.chars().count();
        if let Some(min) = c.min_length.filter(|m| len < *m) {
            issues.push(Issue::new(
                loc,
                "string_too_short",
                format!("String should have at least {min} characters"),
            ));
        }
        if let Some(max) = c.max_length.filter(|m| len > *m) {
            issues.push(Issue::new(
                loc,
                "string_too_long",
                format!("String should have at most {max} characters"),
            ));
        }
        if let Some(p) = c.pattern
            && !cached_regex(p).is_some_and(|re| re.is_match(s))
        {
            issues.push(Issue::new(
                loc,
                "string_pattern_mismatch",
                format!("String should match pattern '{p}'"),
            ));
        }
        if !c.one_of_strings.is_empty() && !c.one_of_strings.contains(&s) {
            let allowed: Vec<String> = c.one_of_strings.iter().map(|s| format!("'{s}'")).collect();
            issues.push(Issue::new(
                loc,
                "literal_error",
                format!("Input should be {}", join_or(&allowed)),
            ));
        }
    }
    if let Some(items) = v.as_array() {
        if let Some(min) = c.min_items.filter(|m| items.len() < *m) {
            issues.push(Issue::new(
                loc,
                "too_short",
                format!("List should have at least {min} items"),
            ));
        }
        if let Some(max) = c.max_items.filter(|m| items.len() > *m) {
            issues.push(Issue::new(
                loc,
                "too_long",
                format!("List should have at most {max} items"),
            ));
        }
    }
}

/// Patterns compile once per process; descriptors are static, so the cache stays small.
/// `None` for a pattern that does not compile (lowering refuses those): nothing matches it,
/// so a broken pattern rejects rather than waves values through.
fn cached_regex(pattern: &'static str) -> Option<Regex> {
    static CACHE: LazyLock<RwLock<HashMap<&'static str, Option<Regex>>>> =
        LazyLock::new(Default::default);
    if let Some(re) = CACHE.read().ok().and_then(|c| c.get(pattern).cloned()) {
        return re;
    }
    let re = Regex::new(pattern).ok();
    if let Ok(mut cache) = CACHE.write() {
        cache.insert(pattern, re.clone());
    }
    re
}

/// Turns the raw text of a path, query or header parameter into the JSON value its type
/// reads, or an issue. Lists take every occurrence; other types the last one.
pub fn coerce_param(ty: &TypeDesc, raws: &[&str], loc: &[LocPart]) -> Result<Value, Issue> {
    match ty {
        TypeDesc::List(inner) => raws
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                let mut item_loc = loc.to_vec();
                item_loc.push(LocPart::Index(i));
                coerce_scalar(inner, raw, &item_loc)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        _ => coerce_scalar(ty, raws.last().copied().unwrap_or_default(), loc),
    }
}

fn coerce_scalar(ty: &TypeDesc, raw: &str, loc: &[LocPart]) -> Result<Value, Issue> {
    match ty {
        TypeDesc::Int => raw.parse::<i64>().map(Value::from).map_err(|_| {
            Issue::new(
                loc,
                "int_parsing",
                "Input should be a valid integer, unable to parse string as an integer",
            )
        }),
        TypeDesc::Number => raw
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::from)
            .ok_or_else(|| {
                Issue::new(
                    loc,
                    "float_parsing",
                    "Input should be a valid number, unable to parse string as a number",
                )
            }),
        TypeDesc::Bool => match raw.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(Issue::new(
                loc,
                "bool_parsing",
                "Input should be a valid boolean, unable to interpret input",
            )),
        },
        TypeDesc::Enum(e) if e.int => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| Issue::new(loc, "int_parsing", "Input should be a valid integer")),
        _ => Ok(Value::String(raw.to_string())),
    }
}

/// Where an endpoint input travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Path,
    Query,
    Header,
}

impl Location {
    pub fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
        }
    }
}

#[derive(Debug)]
pub struct ParamDesc {
    pub location: Location,
    pub field: FieldDesc,
}

#[derive(Debug)]
pub struct AuthDesc {
    pub name: &'static str,
    pub header: &'static str,
    /// A second header for the same credentials: authenticate as this scheme instead.
    pub same_as: Option<&'static str>,
}

#[derive(Debug)]
pub enum GateDesc {
    Feature(&'static str),
    Plan(&'static str),
}

#[derive(Debug)]
pub struct EndpointDesc {
    pub name: &'static str,
    /// The API's base address as the spec writes it, e.g. `{base_url}`.
    pub base: &'static str,
    pub method: &'static str,
    pub path: &'static str,
    pub public: bool,
    /// One of these must be presented.
    pub auth_any_of: &'static [&'static AuthDesc],
    /// May be presented as well.
    pub auth_optional: &'static [&'static AuthDesc],
    pub params: &'static [ParamDesc],
    pub body: Option<&'static TypeDesc>,
    pub gates: &'static [GateDesc],
    pub idempotent: bool,
    pub exactly_one_of: &'static [&'static [&'static str]],
    /// Statuses the spec declares, successes first.
    pub statuses: &'static [u16],
    /// The success whose body the source does not show, when it is the only one: clients
    /// read any other 2xx as it.
    pub open_success: Option<u16>,
}

/// Checks a request's inputs, gathered as `{param: value, …, "body": value}` with values
/// already coerced from text; every problem is returned.
pub fn check_inputs(
    endpoint: &EndpointDesc,
    inputs: &serde_json::Map<String, Value>,
    body_present: bool,
) -> Vec<Issue> {
    let mut issues = Vec::new();
    let mut loc = Vec::new();
    for p in endpoint.params {
        loc.push(LocPart::Key(p.location.as_str().to_string()));
        check_field(&p.field, inputs.get(p.field.name), &mut loc, &mut issues);
        loc.pop();
    }
    for group in endpoint.exactly_one_of {
        let sent: Vec<&str> = group
            .iter()
            .copied()
            .filter(|n| inputs.contains_key(*n))
            .collect();
        if sent.len() != 1 {
            let location = endpoint
                .params
                .iter()
                .find(|p| p.field.name == group[0])
                .map_or("query", |p| p.location.as_str());
            let names = group.join(", ");
            let msg = if sent.is_empty() {
                format!("Exactly one of {names} is required")
            } else {
                format!(
                    "Exactly one of {names} may be sent, not {}",
                    sent.join(" and ")
                )
            };
            issues.push(Issue::new(&[location.into()], "exactly_one_of", msg));
        }
    }
    if let Some(ty) = endpoint.body {
        loc.push("body".into());
        match inputs.get("body") {
            _ if !body_present => issues.push(Issue::new(&loc, "missing", "Field required")),
            Some(v) => check_value(ty, &Constraints::NONE, true, v, &mut loc, &mut issues),
            None => issues.push(Issue::new(&loc, "missing", "Field required")),
        }
        loc.pop();
    }
    issues
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static PET: ModelDesc = ModelDesc {
        name: "Pet",
        fields: &[
            FieldDesc {
                name: "name",
                ty: TypeDesc::String,
                presence: Presence::Required,
                has_default: false,
                format: true,
                constraints: Constraints {
                    max_length: Some(3),
                    ..Constraints::NONE
                },
            },
            FieldDesc {
                name: "tags",
                ty: TypeDesc::List(&TypeDesc::Uuid),
                presence: Presence::OptionalNullable,
                has_default: false,
                format: true,
                constraints: Constraints {
                    min_items: Some(1),
                    ..Constraints::NONE
                },
            },
            FieldDesc {
                name: "kind",
                ty: TypeDesc::Enum(&EnumDesc {
                    name: "Kind",
                    values: &["cat", "dog"],
                    open: false,
                    int: false,
                }),
                presence: Presence::Optional,
                has_default: false,
                format: true,
                constraints: Constraints::NONE,
            },
        ],
    };

    #[test]
    fn every_problem_is_reported_with_its_location() {
        let mut issues = Vec::new();
        let value = json!({"name": "Rexy", "tags": ["nope"], "kind": null});
        check_value(
            &TypeDesc::Model(&PET),
            &Constraints::NONE,
            true,
            &value,
            &mut vec!["body".into()],
            &mut issues,
        );
        let found: Vec<(String, &str)> = issues
            .iter()
            .map(|i| (serde_json::to_string(&i.loc).unwrap(), i.kind.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (r#"["body","name"]"#.to_string(), "string_too_long"),
                (r#"["body","tags",0]"#.to_string(), "uuid_parsing"),
                (r#"["body","kind"]"#.to_string(), "null_not_allowed"),
            ]
        );
    }

    #[test]
    fn closed_enums_name_the_allowed_values() {
        let mut issues = Vec::new();
        let e = EnumDesc {
            name: "Region",
            values: &["us", "eu"],
            open: false,
            int: false,
        };
        check_enum(
            &e,
            &json!("apac"),
            &["query".into(), "region".into()],
            &mut issues,
        );
        assert_eq!(issues[0].msg, "Input should be 'us' or 'eu'");
    }

    #[test]
    fn params_coerce_from_text() {
        let loc = ["query".into(), "x".into()];
        assert_eq!(
            coerce_param(&TypeDesc::Number, &["7.5"], &loc).unwrap(),
            json!(7.5)
        );
        assert_eq!(
            coerce_param(&TypeDesc::List(&TypeDesc::Int), &["1", "2"], &loc).unwrap(),
            json!([1, 2])
        );
        assert_eq!(
            coerce_param(&TypeDesc::Int, &["x"], &loc).unwrap_err().kind,
            "int_parsing"
        );
    }
}
