//! The exhaustive walk of a rejected request: serde stops at the first error, a 422 must name
//! all of them. The router runs this only after typed deserialization failed, over the
//! request's inputs gathered as JSON values; the constraint checks are the same functions
//! the generated `validate()` calls.

use crate::desc::{Constraints, EndpointDesc, EnumDesc, FieldDesc, Presence, TypeDesc};
use crate::issue::{Issue, IssueKind, LocPart, check};
use crate::text::Scalar;
use serde_json::Value;

/// Checks a field of an object: presence, null, then the value.
pub fn check_field(
    field: &FieldDesc,
    value: Option<&Value>,
    loc: &mut Vec<LocPart>,
    issues: &mut Vec<Issue>,
) {
    loc.push(LocPart::key(field.name));
    match value {
        None => {
            let required = matches!(field.presence, Presence::Required | Presence::Nullable);
            if required && !field.has_default {
                issues.push(Issue::new(loc, IssueKind::Missing, "Field required"));
            }
        }
        Some(Value::Null) => {
            let nullable = matches!(
                field.presence,
                Presence::Nullable | Presence::OptionalNullable
            );
            if !nullable && !accepts_null(&field.ty) {
                let msg = "Input should not be null";
                issues.push(Issue::new(loc, IssueKind::NullNotAllowed, msg));
            }
        }
        Some(v) => check_value(&field.ty, &field.constraints, field.format, v, loc, issues),
    }
    loc.pop();
}

/// The i64 a JSON number stands for: an integer, or an integral number a float holds
/// exactly (within ±2^53; beyond, `1e19` and its neighbours read alike and none is trusted).
fn integral(v: &Value) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() <= EXACT)
            .map(|f| f as i64)
    })
}

/// Rewrites integral numbers (`1290.0`) where `ty` holds an integer as integers, so the typed
/// reader takes them as JSON Schema does. Answers whether anything changed.
pub fn integers_from_integral_numbers(ty: &TypeDesc, v: &mut Value) -> bool {
    match (ty, v) {
        (TypeDesc::Int, v) if v.is_f64() => match integral(v) {
            Some(n) => {
                *v = Value::from(n);
                true
            }
            None => false,
        },
        (TypeDesc::Deferred(inner), v) => inner
            .get()
            .is_some_and(|ty| integers_from_integral_numbers(ty, v)),
        (TypeDesc::Constrained(inner, _), v) => integers_from_integral_numbers(inner, v),
        (TypeDesc::NamedUnion(u), v) if v.is_f64() => u
            .members
            .iter()
            .any(|ty| integers_from_integral_numbers(ty, v)),
        (TypeDesc::Model(m), Value::Object(obj)) => m.fields.iter().fold(false, |changed, f| {
            let here = obj
                .get_mut(f.name)
                .is_some_and(|v| integers_from_integral_numbers(&f.ty, v));
            changed | here
        }),
        (TypeDesc::List(inner), Value::Array(items)) => {
            items.iter_mut().fold(false, |changed, v| {
                changed | integers_from_integral_numbers(inner, v)
            })
        }
        (TypeDesc::Map(inner), Value::Object(entries)) => {
            entries.values_mut().fold(false, |changed, v| {
                changed | integers_from_integral_numbers(inner, v)
            })
        }
        (TypeDesc::Union(types), v) if v.is_f64() => {
            types.iter().any(|ty| integers_from_integral_numbers(ty, v))
        }
        _ => false,
    }
}

fn accepts_null(ty: &TypeDesc) -> bool {
    match ty {
        TypeDesc::Constrained(inner, _) => accepts_null(inner),
        other => matches!(other, TypeDesc::Any | TypeDesc::NotShown | TypeDesc::Null),
    }
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
        // Only null, which never reaches here: anything present is wrong.
        TypeDesc::Null => issues.push(Issue::new(
            loc,
            IssueKind::NoneRequired,
            "Input should be None",
        )),
        TypeDesc::Bool => expect(v.is_boolean(), IssueKind::BoolType, loc, issues),
        // An i64, written as an integer or as an integral number (`5.0`), as JSON Schema reads
        // one; `5.5` and values beyond the range are no integer of the field.
        TypeDesc::Int => expect(integral(v).is_some(), IssueKind::IntType, loc, issues),
        TypeDesc::Number => expect(v.is_number(), IssueKind::FloatType, loc, issues),
        TypeDesc::Object => expect(v.is_object(), IssueKind::DictType, loc, issues),
        TypeDesc::String | TypeDesc::Uri => {
            expect(v.is_string(), IssueKind::StringType, loc, issues)
        }
        TypeDesc::Uuid
        | TypeDesc::Date
        | TypeDesc::DateTime
        | TypeDesc::Email
        | TypeDesc::TimeZone => match v.as_str() {
            None => expect(false, IssueKind::StringType, loc, issues),
            Some(s) if format || matches!(ty, TypeDesc::TimeZone) => {
                check_format(ty, s, loc, issues)
            }
            Some(_) => {}
        },
        TypeDesc::Bytes => check_base64(v, loc, issues),
        TypeDesc::File => match v.as_object() {
            None => expect(false, IssueKind::DictType, loc, issues),
            Some(file) => {
                loc.push(LocPart::key("content"));
                match file.get("content") {
                    None => issues.push(Issue::new(loc, IssueKind::Missing, "Field required")),
                    Some(content) => check_base64(content, loc, issues),
                }
                loc.pop();
            }
        },
        TypeDesc::Enum(e) => check_enum(e, v, loc, issues),
        TypeDesc::Model(m) => match v.as_object() {
            None => issues.push(Issue::new(
                loc,
                IssueKind::ModelType,
                format!("Input should be an object ({})", m.name),
            )),
            Some(obj) => {
                for field in m.fields {
                    check_field(field, obj.get(field.name), loc, issues);
                }
                for group in m.groups {
                    let sent: Vec<(&str, bool)> = group
                        .fields
                        .iter()
                        .map(|name| (*name, obj.contains_key(*name)))
                        .collect();
                    check::field_group(group.rule, &sent, loc, issues);
                }
            }
        },
        TypeDesc::List(inner) => match v.as_array() {
            None => expect(false, IssueKind::ListType, loc, issues),
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    loc.push(LocPart::Index(i));
                    if item.is_null() && !accepts_null(inner) {
                        let msg = "Input should not be null";
                        issues.push(Issue::new(loc, IssueKind::NullNotAllowed, msg));
                    } else {
                        check_value(inner, &Constraints::NONE, format, item, loc, issues);
                    }
                    loc.pop();
                }
            }
        },
        TypeDesc::Map(inner) => match v.as_object() {
            None => expect(false, IssueKind::DictType, loc, issues),
            Some(entries) => {
                // In key order, as the typed reader's `BTreeMap` reports them.
                let mut sorted: Vec<(&String, &Value)> = entries.iter().collect();
                sorted.sort_unstable_by_key(|(key, _)| *key);
                for (key, value) in sorted {
                    loc.push(LocPart::Key(key.clone().into()));
                    if value.is_null() && !accepts_null(inner) {
                        let msg = "Input should not be null";
                        issues.push(Issue::new(loc, IssueKind::NullNotAllowed, msg));
                    } else {
                        check_value(inner, &Constraints::NONE, format, value, loc, issues);
                    }
                    loc.pop();
                }
            }
        },
        TypeDesc::Deferred(cell) => {
            if let Some(ty) = cell.get() {
                check_value(ty, c, format, v, loc, issues);
            }
            return;
        }
        TypeDesc::Constrained(inner, own) => {
            check_value(inner, own, format, v, loc, issues);
        }
        TypeDesc::NamedUnion(u) => check_union(u.members, format, v, loc, issues),
        TypeDesc::Union(alternatives) => check_union(alternatives, format, v, loc, issues),
    }
    if issues.len() == before {
        check_constraints(c, v, loc, issues);
    }
}

/// A value of a union: fine when it fits a member; otherwise the problems of the member it
/// names, or "matches none".
fn check_union(
    alternatives: &[TypeDesc],
    format: bool,
    v: &Value,
    loc: &mut Vec<LocPart>,
    issues: &mut Vec<Issue>,
) {
    let fits = alternatives.iter().any(|alt| {
        let mut scratch = Vec::new();
        let mut at = loc.clone();
        check_value(alt, &Constraints::NONE, format, v, &mut at, &mut scratch);
        scratch.is_empty()
    });
    // A value that names its member (`"object": "bank_account"`) gets that member's own
    // problems, not "matches none".
    match (fits, tagged_member(alternatives, v)) {
        (false, Some(member)) => check_value(member, &Constraints::NONE, format, v, loc, issues),
        _ => expect(fits, IssueKind::UnionType, loc, issues),
    }
}

/// The one member of a union of models that `v` names: the only member one of whose
/// constant fields (a single allowed string) holds, in `v`, that very string.
fn tagged_member<'a>(alternatives: &'a [TypeDesc], v: &Value) -> Option<&'a TypeDesc> {
    let object = v.as_object()?;
    let resolve = |t: &'a TypeDesc| match t {
        TypeDesc::Deferred(cell) => cell.get(),
        other => Some(other),
    };
    let mut chosen = None;
    for alternative in alternatives {
        let Some(TypeDesc::Model(model)) = resolve(alternative) else {
            return None;
        };
        let named = model
            .fields
            .iter()
            .any(|f| constant_of(&f.constraints).is_some_and(|c| object.get(f.name) == Some(&c)));
        if named {
            if chosen.is_some() {
                return None;
            }
            chosen = Some(alternative);
        }
    }
    chosen.and_then(resolve)
}

/// The one value a field's constraints allow: a string, a boolean or a whole number.
fn constant_of(c: &Constraints) -> Option<Value> {
    match (c.one_of_strings, c.one_of_numbers, c.constant_bool) {
        ([s], [], None) => Some(Value::from(*s)),
        ([], [n], None) if n.fract() == 0.0 => Some(Value::from(*n as i64)),
        ([], [], Some(b)) => Some(Value::Bool(b)),
        _ => None,
    }
}

/// Bytes inside JSON: base64 text.
fn check_base64(v: &Value, loc: &[LocPart], issues: &mut Vec<Issue>) {
    match v.as_str() {
        None => expect(false, IssueKind::StringType, loc, issues),
        Some(text) => {
            if let Err(e) = crate::binary::Bytes::from_base64(text) {
                issues.push(Issue::new(
                    loc,
                    IssueKind::Value,
                    format!("Input should be base64 text: {e}"),
                ));
            }
        }
    }
}

/// The message of a type mismatch.
fn type_message(kind: IssueKind) -> &'static str {
    match kind {
        IssueKind::BoolType => "Input should be a valid boolean",
        IssueKind::IntType => "Input should be a valid integer",
        IssueKind::FloatType => "Input should be a valid number",
        IssueKind::DictType => "Input should be a valid object",
        IssueKind::StringType => "Input should be a valid string",
        IssueKind::ListType => "Input should be a valid list",
        IssueKind::UnionType => "Input matches none of the allowed types",
        _ => "Input is not valid",
    }
}

fn expect(ok: bool, kind: IssueKind, loc: &[LocPart], issues: &mut Vec<Issue>) {
    if !ok {
        issues.push(Issue::new(loc, kind, type_message(kind)));
    }
}

fn check_format(ty: &TypeDesc, s: &str, loc: &[LocPart], issues: &mut Vec<Issue>) {
    let (ok, kind, msg) = match ty {
        TypeDesc::Uuid => (
            s.parse::<crate::Uuid>().is_ok(),
            IssueKind::UuidParsing,
            "Input should be a valid UUID",
        ),
        TypeDesc::Date => (
            s.parse::<crate::Date>().is_ok(),
            IssueKind::DateParsing,
            "Input should be a valid date (YYYY-MM-DD)",
        ),
        TypeDesc::DateTime => (
            s.parse::<crate::DateTime>().is_ok(),
            IssueKind::DatetimeParsing,
            "Input should be a valid RFC 3339 date-time",
        ),
        TypeDesc::Email => return check::email(s, loc, issues),
        TypeDesc::TimeZone => return check::time_zone(s, loc, issues),
        _ => return,
    };
    if !ok {
        issues.push(Issue::new(loc, kind, msg));
    }
}

fn check_enum(e: &EnumDesc, v: &Value, loc: &[LocPart], issues: &mut Vec<Issue>) {
    match (e.int, v) {
        (true, Value::Number(n)) if n.is_i64() => {
            if !e.open {
                check::enum_member(&n.to_string(), e.values, loc, issues);
            }
        }
        (false, Value::String(s)) => {
            if !e.open {
                check::enum_member(s, e.values, loc, issues);
            }
        }
        (true, _) => expect(false, IssueKind::IntType, loc, issues),
        (false, _) => expect(false, IssueKind::StringType, loc, issues),
    }
}

fn check_constraints(c: &Constraints, v: &Value, loc: &[LocPart], issues: &mut Vec<Issue>) {
    if let Some(n) = v.as_f64().filter(|_| v.is_number()) {
        if let Some(min) = c.minimum {
            check::minimum(n, min, loc, issues);
        }
        if let Some(max) = c.maximum {
            check::maximum(n, max, loc, issues);
        }
        if !c.one_of_numbers.is_empty() {
            check::one_of_numbers(n, c.one_of_numbers, loc, issues);
        }
    }
    if let Some(s) = v.as_str() {
        if let Some(min) = c.min_length {
            check::min_length(s, min, loc, issues);
        }
        if let Some(max) = c.max_length {
            check::max_length(s, max, loc, issues);
        }
        if let Some(p) = c.pattern {
            check::pattern(s, p, loc, issues);
        }
        if !c.one_of_strings.is_empty() {
            check::one_of_strings(s, c.one_of_strings, loc, issues);
        }
    }
    if let (Some(b), Some(expected)) = (v.as_bool(), c.constant_bool) {
        check::constant_bool(b, expected, loc, issues);
    }
    if let Some(items) = v.as_array() {
        if let Some(min) = c.min_items {
            check::min_items(items.len(), min, loc, issues);
        }
        if let Some(max) = c.max_items {
            check::max_items(items.len(), max, loc, issues);
        }
        if c.unique_items {
            check::unique_items(items, loc, issues);
        }
    }
    if let Some(entries) = v.as_object() {
        if let Some(min) = c.min_items {
            check::min_entries(entries.len(), min, loc, issues);
        }
        if let Some(max) = c.max_items {
            check::max_entries(entries.len(), max, loc, issues);
        }
    }
}

/// Turns the raw text of a path, query or header parameter into the JSON value its type
/// reads, or an issue. Lists take every occurrence; other types the last one.
pub fn coerce_param(ty: &TypeDesc, raws: &[&str], loc: &[LocPart]) -> Result<Value, Issue> {
    match ty {
        TypeDesc::Constrained(inner, _) => coerce_param(inner, raws, loc),
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

/// The fields of a form body that its model declares as one value and that were sent more
/// than once.
pub fn repeated_form_scalars<'f>(
    ty: &TypeDesc,
    fields: &'f [(String, Vec<String>)],
) -> impl Iterator<Item = &'f str> {
    let declared = ty.model_fields();
    fields
        .iter()
        .filter(move |(name, values)| {
            declared
                .iter()
                .any(|f| f.name == name && sent_twice(f, values))
        })
        .map(|(name, _)| name.as_str())
}

/// A form has no "last one wins": a field of one value sent more than once is a mistake of
/// the sender's, not a value to pick from.
fn sent_twice(field: &'static FieldDesc, values: &[String]) -> bool {
    values.len() > 1 && !matches!(field.ty.resolved(), TypeDesc::List(_))
}

/// A form body as the JSON object its model's walk checks: each field read from its text as
/// its type asks (a field the model does not declare stays text), with a problem for each
/// that does not read.
pub fn coerce_form(ty: &TypeDesc, fields: &[(String, Vec<String>)]) -> (Value, Vec<Issue>) {
    let declared = ty.model_fields();
    let mut out = serde_json::Map::new();
    let mut issues = Vec::new();
    for (name, values) in fields {
        let raws: Vec<&str> = values.iter().map(String::as_str).collect();
        let loc = [LocPart::key("body"), LocPart::Key(name.clone().into())];
        let value = match declared.iter().find(|f| f.name == name) {
            Some(f) if sent_twice(f, values) => {
                let msg = format!(
                    "Input should be one value; the field was sent {} times",
                    raws.len()
                );
                issues.push(Issue::new(&loc, IssueKind::Value, msg));
                continue;
            }
            Some(f) => match coerce_param(&f.ty, &raws, &loc) {
                Ok(v) => v,
                Err(issue) => {
                    issues.push(issue);
                    continue;
                }
            },
            None => Value::String(raws.last().copied().unwrap_or_default().to_string()),
        };
        out.insert(name.clone(), value);
    }
    (Value::Object(out), issues)
}

pub(crate) fn coerce_scalar(ty: &TypeDesc, raw: &str, loc: &[LocPart]) -> Result<Value, Issue> {
    let int = || {
        raw.parse::<i64>().map(Value::from).map_err(|_| {
            let msg = "Input should be a valid integer, unable to parse string as an integer";
            Issue::new(loc, IssueKind::IntParsing, msg)
        })
    };
    match ty {
        TypeDesc::Constrained(inner, _) => coerce_scalar(inner, raw, loc),
        TypeDesc::Deferred(cell) => match cell.get() {
            Some(inner) => coerce_scalar(inner, raw, loc),
            None => Ok(Value::String(raw.to_string())),
        },
        TypeDesc::Int => int(),
        TypeDesc::Enum(e) if e.int => int(),
        TypeDesc::Number => crate::text::parse_number(raw)
            .map(Value::from)
            .ok_or_else(|| {
                let msg = "Input should be a valid number, unable to parse string as a number";
                Issue::new(loc, IssueKind::FloatParsing, msg)
            }),
        TypeDesc::Bool => crate::text::parse_bool(raw)
            .map(Value::Bool)
            .ok_or_else(|| {
                let msg = "Input should be a valid boolean, unable to interpret input";
                Issue::new(loc, IssueKind::BoolParsing, msg)
            }),
        // As the typed reader reads a union: the first of integer, number, boolean, string.
        TypeDesc::Union(_) | TypeDesc::NamedUnion(_) => Ok(match crate::text::parse_scalar(raw) {
            Scalar::Int(n) => Value::from(n),
            Scalar::Number(n) => Value::from(n),
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Text(s) => Value::String(s.to_string()),
        }),
        _ => Ok(Value::String(raw.to_string())),
    }
}

/// Checks a request's inputs, gathered as `{param: value, …, "body": value}` with values
/// already coerced from text; every problem is returned. `unreadable` names inputs that were
/// sent but could not be read (already reported): they count as sent.
pub fn check_inputs<A, G>(
    endpoint: &EndpointDesc<A, G>,
    inputs: &serde_json::Map<String, Value>,
    body_present: bool,
    unreadable: &[&str],
) -> Vec<Issue> {
    let mut issues = Vec::new();
    let mut loc = Vec::new();
    for p in endpoint.params {
        loc.push(LocPart::key(p.location.as_str()));
        check_field(&p.field, inputs.get(p.field.name), &mut loc, &mut issues);
        loc.pop();
    }
    for group in endpoint.exactly_one_of {
        let location = endpoint.location_of(group[0]);
        // A group of body fields looks into the body object; a body that is not one is
        // reported by its own check.
        let sent: Option<Vec<(&str, bool)>> = if location == "body" {
            inputs
                .get("body")
                .and_then(Value::as_object)
                .map(|body| group.iter().map(|n| (*n, body.contains_key(*n))).collect())
        } else {
            Some(
                group
                    .iter()
                    .map(|n| (*n, inputs.contains_key(*n) || unreadable.contains(n)))
                    .collect(),
            )
        };
        if let Some(sent) = sent {
            check::exactly_one_of(&sent, &[LocPart::key(location)], &mut issues);
        }
    }
    // A body read as it is has nothing to check beyond being readable (text must be UTF-8).
    if let Some(ty) = endpoint.body.filter(|_| !endpoint.body_media.is_raw()) {
        loc.push(LocPart::key("body"));
        match inputs.get("body") {
            Some(v) if body_present => {
                check_value(ty, &Constraints::NONE, true, v, &mut loc, &mut issues)
            }
            _ => issues.push(Issue::new(&loc, IssueKind::Missing, "Field required")),
        }
        loc.pop();
    }
    issues
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static PET: crate::desc::ModelDesc = crate::desc::ModelDesc {
        name: "Pet",
        groups: &[],
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
                encoding: crate::contract::Encoding::Repeated,
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
                encoding: crate::contract::Encoding::Repeated,
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
                encoding: crate::contract::Encoding::Repeated,
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
            &mut vec![LocPart::key("body")],
            &mut issues,
        );
        let found: Vec<(String, IssueKind)> = issues
            .iter()
            .map(|i| (serde_json::to_string(&i.loc).unwrap(), i.kind))
            .collect();
        assert_eq!(
            found,
            [
                (r#"["body","name"]"#.to_string(), IssueKind::StringTooLong),
                (r#"["body","tags",0]"#.to_string(), IssueKind::UuidParsing),
                (r#"["body","kind"]"#.to_string(), IssueKind::NullNotAllowed),
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
        let loc = [LocPart::key("query"), LocPart::key("region")];
        check_enum(&e, &json!("apac"), &loc, &mut issues);
        assert_eq!(issues[0].msg, "Input should be 'us' or 'eu'");
        assert_eq!(issues[0].kind, IssueKind::Enum);
    }

    #[test]
    fn params_coerce_from_text() {
        let loc = [LocPart::key("query"), LocPart::key("x")];
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
            IssueKind::IntParsing
        );
        assert!(coerce_param(&TypeDesc::Number, &["NaN"], &loc).is_err());
    }
}
