//! Instances of a spec's types, valid and invalid, derived from the IR alone: a full and a
//! minimal valid instance of each model shape, then one mutation per field and constraint,
//! each labelled with whether a conforming implementation must accept it. The schema/serde
//! agreement tests and the conformance runner's negative cases are built from them.

use crate::ir::shapes::{Shape, format_applies, in_shape};
use crate::ir::*;
use serde_json::{Map, Value, json};

#[derive(Clone, Debug)]
pub struct Sample {
    pub value: Value,
    pub valid: bool,
    /// What the sample exercises, for failure messages.
    pub what: String,
}

/// Lists bounded at this many items or more get no "one item too many" sample: it would
/// fill a cassette with a thousand items or more. Their bound is checked by the same code as
/// any other.
const LONGEST_SAMPLE_LIST: u64 = 1000;

/// What a mock answers an endpoint: its first success, with example body and headers.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub status: u16,
    /// `None` for a response without a body.
    pub body: Option<Value>,
    /// Each declared header and its example value, as text.
    pub headers: Vec<(String, String)>,
    /// How the body is written: JSON, or text or bytes as they are.
    pub media: BodyMedia,
    /// The body a `bytes` response sends (`body` is its base64).
    bytes: bool,
    /// Where the body holds `@secret` strings a mock mints afresh for each answer (JSON
    /// pointers).
    pub secrets: Vec<String>,
}

impl Answer {
    /// The body in its JSON form (a raw body's text as a string, bytes as base64), `null`
    /// for a response without a body.
    pub fn json_text(&self) -> String {
        self.body
            .as_ref()
            .map_or_else(|| "null".to_string(), serde_json::Value::to_string)
    }

    /// The body as sent, where it differs from [`Answer::json_text`]: a raw body's text or
    /// bytes.
    pub fn raw_body(&self) -> Option<Vec<u8>> {
        (self.media.is_raw() || self.media.is_stream())
            .then(|| self.wire_body())
            .flatten()
    }

    /// The body as sent: JSON text, or the text or bytes a raw body holds.
    pub fn wire_body(&self) -> Option<Vec<u8>> {
        let body = self.body.as_ref()?;
        Some(match (&self.media, body) {
            (BodyMedia::Raw(_), Value::String(text)) if self.bytes => {
                bytes_of(text).unwrap_or_else(|| text.clone().into_bytes())
            }
            (BodyMedia::Raw(_), Value::String(text)) => text.clone().into_bytes(),
            (BodyMedia::Stream(media), Value::Array(items)) => {
                covenant_runtime::streams::write_items(media, items)
            }
            (_, value) => serde_json::to_vec(value).unwrap_or_default(),
        })
    }
}

/// The bytes a base64 example stands for.
fn bytes_of(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

pub struct Samples<'a> {
    spec: &'a Spec,
}

/// How deep instances nest before optional, nullable and list fields stop recursing.
const MAX_DEPTH: usize = 6;

const STRING_CANDIDATES: &[&str] = &["text", "Abc 1", "a", "0123456789", "x-1_2", "Europe/Paris"];

impl<'a> Samples<'a> {
    pub fn new(spec: &'a Spec) -> Self {
        Samples { spec }
    }

    /// Every sample of one model shape.
    pub fn model(&self, id: ModelId, shape: Shape) -> Vec<Sample> {
        let model = self.spec.model(id);
        let full = self.instance(id, shape, true, 0);
        let mut out = vec![
            Sample {
                value: full.clone(),
                valid: true,
                what: "every field set".into(),
            },
            Sample {
                value: self.instance(id, shape, false, 0),
                valid: true,
                what: "required fields only".into(),
            },
        ];
        let mut extra = full.clone();
        extra["x_unlisted_field"] = json!("kept or ignored");
        out.push(Sample {
            value: extra,
            valid: true,
            what: "an unlisted field".into(),
        });
        out.push(Sample {
            value: json!([]),
            valid: false,
            what: "an array instead of an object".into(),
        });
        let positional: Vec<Value> = full
            .as_object()
            .map(|o| o.values().cloned().collect())
            .unwrap_or_default();
        out.push(Sample {
            value: Value::Array(positional),
            valid: false,
            what: "the fields as an array".into(),
        });
        for f in model.fields.iter().filter(|f| in_shape(f, shape)) {
            self.field_mutations(&full, f, shape, &mut out);
        }
        let in_this_shape = |name: &str| {
            model
                .fields
                .iter()
                .any(|f| f.name == name && in_shape(f, shape))
        };
        for f in model
            .fields
            .iter()
            .filter(|f| !in_shape(f, shape) && !in_this_shape(&f.name))
        {
            // A field of the other shape is just an unlisted field here (unless this shape
            // has its own field of that name).
            let mut v = full.clone();
            v[&f.name] = json!("from the other shape");
            out.push(Sample {
                value: v,
                valid: true,
                what: format!("{} belongs to the other shape", f.name),
            });
        }
        out
    }

    /// Every sample of an enum.
    pub fn enum_(&self, e: &Enum) -> Vec<Sample> {
        let mut out: Vec<Sample> = e
            .values
            .iter()
            .map(|v| Sample {
                value: enum_value(e, &v.name),
                valid: true,
                what: format!("value {}", v.name),
            })
            .collect();
        let unknown = match e.repr {
            EnumRepr::String => json!("value_not_in_the_spec"),
            EnumRepr::Int => json!(987654),
        };
        out.push(Sample {
            value: unknown,
            valid: e.open,
            what: "an unknown value".into(),
        });
        let wrong = match e.repr {
            EnumRepr::String => json!(12),
            EnumRepr::Int => json!("12"),
        };
        out.push(Sample {
            value: wrong,
            valid: false,
            what: "a value of the wrong type".into(),
        });
        out
    }

    fn field_mutations(&self, full: &Value, f: &Field, shape: Shape, out: &mut Vec<Sample>) {
        let name = &f.name;
        let with = |v: Value| {
            let mut m = full.clone();
            m[name] = v;
            m
        };
        let mut without = full.clone();
        if let Some(obj) = without.as_object_mut() {
            obj.remove(name);
        }
        out.push(Sample {
            value: without,
            valid: f.presence.may_be_absent(),
            what: format!("{name} absent"),
        });
        let null_ok = f.presence.may_be_null() || accepts_null(&f.ty);
        out.push(Sample {
            value: with(Value::Null),
            valid: null_ok,
            what: format!("{name} null"),
        });
        if let Some(wrong) = wrong_type(&f.ty) {
            out.push(Sample {
                value: with(wrong),
                valid: false,
                what: format!("{name} of the wrong type"),
            });
        }
        for (v, valid, what) in
            self.value_mutations(&f.ty, &f.constraints, format_applies(f, shape))
        {
            out.push(Sample {
                value: with(v),
                valid,
                what: format!("{name}: {what}"),
            });
        }
    }

    /// Values of a field's type that test its constraints, formats and enum openness.
    fn value_mutations(
        &self,
        ty: &Type,
        c: &Constraints,
        format: bool,
    ) -> Vec<(Value, bool, String)> {
        let mut out = Vec::new();
        match ty {
            Type::Primitive(p) if p.is_numeric() => {
                let step = if *p == Primitive::Int { 1.0 } else { 0.5 };
                if let Some(min) = c.minimum {
                    out.push((
                        number(min - step, *p),
                        false,
                        format!("below the minimum {min}"),
                    ));
                    out.push((
                        number(min, *p),
                        c.one_of.is_empty() || one_of_has(c, min),
                        format!("at the minimum {min}"),
                    ));
                }
                if let Some(max) = c.maximum {
                    out.push((
                        number(max + step, *p),
                        false,
                        format!("above the maximum {max}"),
                    ));
                }
                if !c.one_of.is_empty() {
                    out.push((
                        number(13.0, *p),
                        one_of_has(c, 13.0),
                        "outside the allowed set".into(),
                    ));
                }
                if *p == Primitive::Int {
                    out.push((json!(1.5), false, "a fraction for an integer".into()));
                }
            }
            Type::Primitive(p) if p.is_string_like() => {
                if let Some(min) = c.min_length.filter(|m| *m > 0) {
                    out.push((
                        json!("a".repeat(min as usize - 1)),
                        false,
                        format!("shorter than {min}"),
                    ));
                }
                if let Some(max) = c.max_length {
                    let long = "a".repeat(max as usize + 1);
                    out.push((json!(long), false, format!("longer than {max}")));
                }
                if let Some(pattern) = &c.pattern
                    && let Ok(re) = regex::Regex::new(pattern)
                {
                    for bad in ["!!!", "<>{}", "\u{1F600}", ""] {
                        if !re.is_match(bad) && self_consistent_len(bad, c) {
                            out.push((
                                json!(bad),
                                false,
                                format!("{bad:?} does not match the pattern"),
                            ));
                            break;
                        }
                    }
                }
                if !c.one_of.is_empty() {
                    out.push((
                        json!("not_in_the_set"),
                        false,
                        "outside the allowed set".into(),
                    ));
                }
                if let Some((bad, label)) = bad_format(*p) {
                    let enforced = format || *p == Primitive::TimeZone;
                    let valid = !enforced && c.pattern.is_none();
                    out.push((json!(bad), valid, label.to_string()));
                }
            }
            Type::Enum(id) => {
                let e = self.spec.enum_(*id);
                let unknown = match e.repr {
                    EnumRepr::String => json!("value_not_in_the_spec"),
                    EnumRepr::Int => json!(987654),
                };
                out.push((unknown, e.open, format!("an unknown {} value", e.name)));
            }
            Type::List(inner, _) => {
                if let Some(min) = c.min_items.filter(|m| *m > 0) {
                    let items = vec![self.value(inner, Shape::Request, true, 1); min as usize - 1];
                    out.push((
                        Value::Array(items),
                        false,
                        format!("fewer than {min} items"),
                    ));
                }
                if let Some(max) = c.max_items.filter(|m| *m < LONGEST_SAMPLE_LIST) {
                    let items = vec![self.value(inner, Shape::Request, true, 1); max as usize + 1];
                    out.push((Value::Array(items), false, format!("more than {max} items")));
                }
                if let Some(wrong) = wrong_type(inner) {
                    out.push((json!([wrong]), false, "an item of the wrong type".into()));
                }
            }
            Type::Map(inner, _) => {
                out.push((json!({}), true, "an empty map".into()));
                if let Some(wrong) = wrong_type(inner) {
                    let entry = json!({ "key": wrong });
                    out.push((entry, false, "a value of the wrong type".into()));
                }
            }
            _ => {}
        }
        out
    }

    /// A valid instance of a model shape: every field (`full`) or required ones only.
    pub fn instance(&self, id: ModelId, shape: Shape, full: bool, depth: usize) -> Value {
        let model = self.spec.model(id);
        let mut obj = Map::new();
        // A group of fields holds its first field where it needs one, and no other where
        // it allows one at most.
        let first_of_group = |f: &Field, rules: &[GroupRule]| {
            model
                .groups
                .iter()
                .any(|g| rules.contains(&g.rule) && g.fields.first() == Some(&f.name))
        };
        let later_in_group = |f: &Field| {
            model.groups.iter().any(|g| {
                g.rule != GroupRule::AtLeastOne && g.fields.iter().skip(1).any(|n| n == &f.name)
            })
        };
        for f in model.fields.iter().filter(|f| in_shape(f, shape)) {
            let needed = first_of_group(f, &[GroupRule::ExactlyOne, GroupRule::AtLeastOne]);
            if later_in_group(f) || (!full && f.presence.may_be_absent() && !needed) {
                continue;
            }
            if depth > MAX_DEPTH && f.presence.may_be_absent() && !needed {
                continue;
            }
            obj.insert(f.name.clone(), self.field_value(f, shape, full, depth));
        }
        Value::Object(obj)
    }

    fn field_value(&self, f: &Field, shape: Shape, full: bool, depth: usize) -> Value {
        let c = &f.constraints;
        // Deep in a model that contains itself, null ends the recursion where it may.
        let holds_model = |t: &Type| matches!(t, Type::Model(_));
        let holds_model = match &f.ty {
            Type::Union(members) => members.iter().any(holds_model),
            t => holds_model(t),
        };
        if depth > MAX_DEPTH && holds_model && f.presence.may_be_null() {
            return Value::Null;
        }
        self.value_within(&f.ty, c, shape, full, depth)
    }

    /// A valid value of `ty` within the constraints `c` (a field's, or those of a list's
    /// items).
    fn value_within(
        &self,
        ty: &Type,
        c: &Constraints,
        shape: Shape,
        full: bool,
        depth: usize,
    ) -> Value {
        match ty {
            Type::Primitive(Primitive::Bool) if !c.one_of.is_empty() => {
                c.one_of.first().map_or(json!(true), Literal::to_json)
            }
            Type::Primitive(p) if p.is_numeric() => {
                if let Some(first) = c.one_of.first() {
                    return first.to_json();
                }
                let lo = c.minimum.unwrap_or(f64::MIN);
                let hi = c.maximum.unwrap_or(f64::MAX);
                let preferred: f64 = if *p == Primitive::Int { 7.0 } else { 7.5 };
                number(preferred.clamp(lo, hi), *p)
            }
            Type::Primitive(p) if p.is_string_like() && (!c.is_empty()) => {
                if let Some(Literal::String(first)) = c.one_of.first() {
                    return json!(first);
                }
                let base = match self.value(ty, shape, full, depth + 1) {
                    Value::String(s) => s,
                    _ => String::new(),
                };
                let re = c.pattern.as_deref().and_then(|p| regex::Regex::new(p).ok());
                let mut candidates = vec![base];
                candidates.extend(STRING_CANDIDATES.iter().map(|s| s.to_string()));
                candidates.extend(c.pattern.as_deref().and_then(string_matching));
                let fits = |s: &str| {
                    re.as_ref().is_none_or(|r| r.is_match(s)) && self_consistent_len(s, c)
                };
                let chosen = candidates.into_iter().find(|s| fits(s));
                json!(chosen.unwrap_or_else(|| "a".repeat(c.min_length.unwrap_or(1) as usize)))
            }
            Type::List(inner, items) => {
                let n = sample_count(c, depth);
                if n == 0 {
                    return json!([]);
                }
                Value::Array(vec![
                    self.value_within(inner, items, shape, full, depth + 1);
                    n
                ])
            }
            Type::Map(inner, values) => {
                let n = sample_count(c, depth);
                let value = self.value_within(inner, values, shape, full, depth + 1);
                let entries = (0..n).map(|i| match i {
                    0 => ("key".to_string(), value.clone()),
                    i => (format!("key{}", i + 1), value.clone()),
                });
                Value::Object(entries.collect())
            }
            ty => self.value(ty, shape, full, depth + 1),
        }
    }

    fn value(&self, ty: &Type, shape: Shape, full: bool, depth: usize) -> Value {
        match ty {
            Type::Primitive(p) => match p {
                Primitive::String => json!("text"),
                Primitive::Int => json!(7),
                Primitive::Number => json!(7.5),
                Primitive::Bool => json!(true),
                Primitive::Uuid => json!("0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a"),
                Primitive::Date => json!("2024-02-29"),
                Primitive::DateTime => json!("2024-05-01T12:00:00Z"),
                Primitive::Email => json!("patient@example.com"),
                Primitive::Uri => json!("https://example.com/logo.png"),
                Primitive::TimeZone => json!("Europe/Paris"),
                Primitive::Object => json!({ "key": 1 }),
                Primitive::Any => json!({ "any": [1, "two"] }),
                Primitive::Null => Value::Null,
                // "example", as base64.
                Primitive::Bytes => json!("ZXhhbXBsZQ=="),
                Primitive::File => json!({
                    "filename": "example.txt",
                    "content_type": "text/plain",
                    "content": "ZXhhbXBsZQ==",
                }),
            },
            Type::Model(id) => self.instance(*id, shape, full, depth + 1),
            Type::Enum(id) => {
                let e = self.spec.enum_(*id);
                e.values
                    .first()
                    .map_or(json!("value_not_in_the_spec"), |v| enum_value(e, &v.name))
            }
            Type::List(_, _) if depth > MAX_DEPTH => json!([]),
            Type::List(inner, c) => json!([self.value_within(inner, c, shape, full, depth + 1)]),
            Type::Map(_, _) if depth > MAX_DEPTH => json!({}),
            Type::Map(inner, c) => {
                json!({ "key": self.value_within(inner, c, shape, full, depth + 1) })
            }
            Type::NamedUnion(id) => {
                let members = &self.spec.union(*id).members;
                // A member that does not hold the union again ends the recursion.
                let plain = members.iter().find(|m| !holds_union(m, *id));
                match plain.or(members.first()) {
                    Some(t) => self.value(t, shape, full, depth + 1),
                    None => Value::Null,
                }
            }
            Type::Union(types) => {
                // Deep down, a member that holds no model ends the recursion.
                let flat = |t: &&Type| !matches!(t, Type::Model(_) | Type::Union(_));
                let member = if depth > MAX_DEPTH {
                    types.iter().find(flat).or(types.first())
                } else {
                    types.first()
                };
                member.map_or(Value::Null, |t| self.value(t, shape, full, depth + 1))
            }
            Type::NotShown(_) => json!({ "shape": "not shown" }),
        }
    }

    /// A valid value of a field or parameter, within its constraints.
    pub fn field_example(&self, f: &Field, shape: Shape) -> Value {
        self.field_value(f, shape, true, 0)
    }

    /// A delivery of `event` as the spec describes it: its event type (each placeholder its
    /// enum's first value) and its body, the envelope's fields with those the event types,
    /// and the event type in the envelope's field when it travels there. `None` in a spec
    /// without an envelope.
    pub fn event_delivery(&self, event: &Event) -> Option<(String, Value)> {
        let envelope = self.spec.envelope?;
        let mut body = self.instance(envelope, Shape::Response, true, 0);
        let values: Vec<&str> = event
            .placeholders
            .iter()
            .map(|(_, id)| self.spec.enum_(*id).values[0].name.as_str())
            .collect();
        let event_type = covenant_runtime::events::fill_event_type(&event.pattern, &values);
        if let Value::Object(fields) = &mut body {
            for f in &event.fields {
                fields.insert(f.name.clone(), self.field_example(f, Shape::Response));
            }
            if let Some(EventTypeCarrier::Field(name)) = &self.spec.event_type {
                fields.insert(name.clone(), Value::String(event_type.clone()));
            }
        }
        Some((event_type, body))
    }

    /// A valid input of an endpoint: every parameter (only the first of an
    /// `exactly_one_of` group, no idempotency key) by name, and the body under `body` (with
    /// only the first field of a group of its fields).
    pub fn endpoint_input(&self, ep: &Endpoint) -> Value {
        let mut input = Map::new();
        for p in &ep.params {
            // An idempotency key is the caller's to make fresh: a fixed one would make a
            // replayed request of every second run.
            let key = ep.idempotency_key.as_ref() == Some(&p.field.name);
            let excluded = key
                || ep
                    .exactly_one_of
                    .iter()
                    .any(|g| g.contains(&p.field.name) && g[0] != p.field.name);
            if !excluded {
                input.insert(
                    p.field.name.clone(),
                    self.field_example(&p.field, Shape::Request),
                );
            }
        }
        if let Some(body) = &ep.body {
            let mut example = self.example(body, Shape::Request);
            if let Some(fields) = example.as_object_mut() {
                let groups = ep.exactly_one_of.iter().filter(|g| ep.group_in_body(g));
                for other in groups.flat_map(|g| g.iter().skip(1)) {
                    fields.remove(other);
                }
            }
            input.insert("body".into(), example);
        }
        Value::Object(input)
    }

    /// Invalid values of a field or parameter, each breaking one constraint, format or type.
    pub fn field_violations(&self, f: &Field, shape: Shape) -> Vec<(Value, String)> {
        let mut out: Vec<(Value, String)> = self
            .value_mutations(&f.ty, &f.constraints, format_applies(f, shape))
            .into_iter()
            .filter(|(_, valid, _)| !valid)
            .map(|(v, _, what)| (v, what))
            .collect();
        if let Some(wrong) = wrong_type(&f.ty) {
            out.push((wrong, "of the wrong type".into()));
        }
        if !f.presence.may_be_null() && !accepts_null(&f.ty) {
            out.push((Value::Null, "null".into()));
        }
        out
    }

    /// What a mock answers for `ep`: its first success status (or first declared status) and
    /// an example body, `None` for a response without one. A cursor listing answers its last
    /// page, so streams over a mock end.
    pub fn answer(&self, ep: &Endpoint) -> Option<Answer> {
        let ok = ep
            .responses
            .iter()
            .find(|r| r.status.exactly_in(200..300))
            .or(ep.responses.first())?;
        let mut body = ok.body.as_ref().map(|t| self.example(t, Shape::Response));
        if let Some(body) = &mut body {
            self.end_of_listing(ep, body);
        }
        let secrets = match (&ok.body, &body) {
            (Some(ty), Some(value)) if ok.media.is_json() => {
                crate::secret_paths::mintable_secrets(self.spec, ty, value)
            }
            _ => Vec::new(),
        };
        Some(Answer {
            status: ok.status.representative(),
            body,
            headers: self.headers(ok),
            media: ok.media.clone(),
            bytes: ok.body == Some(Type::Primitive(Primitive::Bytes)),
            secrets,
        })
    }

    /// Every header a response declares, with an example value as text.
    pub fn headers(&self, response: &Response) -> Vec<(String, String)> {
        response
            .headers
            .iter()
            .map(|h| {
                let text = match self.field_value(h, Shape::Response, true, 0) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                (h.name.clone(), text)
            })
            .collect()
    }

    /// Makes the example the last page: a cursor or next-URL listing's next out, null or
    /// empty; a last-item listing's `more` false, or its items empty without `more`. (A
    /// `Link` example links nowhere already.)
    fn end_of_listing(&self, ep: &Endpoint, body: &mut Value) {
        let Some(Type::Model(page)) = ep
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Exact(200))
            .and_then(|r| r.body.as_ref())
        else {
            return;
        };
        let (path, end) = match &ep.paging {
            Some(Paging::After {
                more: Some(more), ..
            }) => (more, Some(Value::Bool(false))),
            // Without `more`, a page without items is the last.
            Some(Paging::After { items, .. }) => (items, Some(Value::Array(Vec::new()))),
            Some(Paging::Cursor { next, .. } | Paging::NextUrl { next, .. }) => (next, None),
            _ => return,
        };
        let Some(fields) = crate::ir::path_fields(self.spec, self.spec.model(*page), path) else {
            return;
        };
        let (Some(last), Some(parent)) = (fields.last(), parent_object(body, path)) else {
            return;
        };
        let end = end.or_else(|| {
            if last.presence.may_be_absent() {
                None
            } else if last.presence.may_be_null() {
                Some(Value::Null)
            } else {
                Some(Value::String(String::new()))
            }
        });
        match end {
            Some(value) => parent.insert(last.name.clone(), value),
            None => parent.remove(&last.name),
        };
    }

    /// A full, valid example of a value of `ty`.
    pub fn example(&self, ty: &Type, shape: Shape) -> Value {
        self.value(ty, shape, true, 0)
    }
}

fn enum_value(e: &Enum, name: &str) -> Value {
    match e.repr {
        EnumRepr::String => json!(name),
        EnumRepr::Int => json!(name.parse::<i64>().unwrap_or_default()),
    }
}

fn number(n: f64, p: Primitive) -> Value {
    if p == Primitive::Int {
        json!(n as i64)
    } else {
        json!(n)
    }
}

fn one_of_has(c: &Constraints, n: f64) -> bool {
    c.one_of.iter().any(|l| l.as_f64() == Some(n))
}

fn self_consistent_len(s: &str, c: &Constraints) -> bool {
    let len = s.chars().count() as u64;
    c.min_length.is_none_or(|m| len >= m) && c.max_length.is_none_or(|m| len <= m)
}

/// How many items or entries a sample list or map holds: at least one, as few as its
/// constraints allow deep down, where a model containing itself must end.
fn sample_count(c: &Constraints, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        c.min_items.unwrap_or(0) as usize
    } else {
        c.min_items.unwrap_or(1).max(1) as usize
    }
}

/// Whether a member holds the declared union `id` (in a list, a map or a union).
fn holds_union(ty: &Type, id: UnionId) -> bool {
    match ty {
        Type::NamedUnion(other) => *other == id,
        Type::List(inner, _) | Type::Map(inner, _) => holds_union(inner, id),
        Type::Union(members) => members.iter().any(|m| holds_union(m, id)),
        _ => false,
    }
}

/// Types that accept `null` whatever the field's presence: any value, `null` itself, and
/// not-shown shapes.
fn accepts_null(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Primitive(Primitive::Any | Primitive::Null) | Type::NotShown(_)
    )
}

/// A JSON value of another type than `ty`, if `ty` rejects anything.
fn wrong_type(ty: &Type) -> Option<Value> {
    Some(match ty {
        Type::Primitive(Primitive::Any) | Type::NotShown(_) => return None,
        Type::Primitive(Primitive::Bool) => json!("yes"),
        Type::Primitive(p) if p.is_numeric() => json!("12"),
        Type::Primitive(Primitive::Object) | Type::Model(_) => json!("an object was expected"),
        Type::Primitive(_) => json!(12345),
        Type::Enum(_) => json!(true),
        Type::List(_, _) => json!({ "not": "a list" }),
        Type::Map(_, _) => json!(["not", "an object"]),
        Type::Union(_) | Type::NamedUnion(_) => json!({ "not": "any alternative" }),
    })
}

fn bad_format(p: Primitive) -> Option<(&'static str, &'static str)> {
    Some(match p {
        Primitive::Uuid => ("0b5e4a3c6a5f4a449c431f2e3d4c5b6a", "a uuid without hyphens"),
        Primitive::Date => ("2024-02-30", "a date that does not exist"),
        Primitive::DateTime => ("2024-05-01 12:00:00Z", "a date-time with a space"),
        Primitive::Email => ("not-an-email", "not an e-mail address"),
        Primitive::TimeZone => ("not a zone", "not a time zone identifier"),
        _ => return None,
    })
}

/// A short string the pattern matches, built from its syntax tree: the first branch of each
/// alternation, the lowest character of each class, each repetition at its minimum. Anchors
/// are respected by construction; `None` for patterns that need lookaround or cannot match.
pub fn string_matching(pattern: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(true)
        .build()
        .parse(pattern)
        .ok()?;
    let mut out = String::new();
    write_match(&hir, &mut out)?;
    let re = regex::Regex::new(pattern).ok()?;
    re.is_match(&out).then_some(out)
}

fn write_match(hir: &regex_syntax::hir::Hir, out: &mut String) -> Option<()> {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(std::str::from_utf8(&lit.0).ok()?),
        HirKind::Class(Class::Unicode(class)) => {
            let range = class.ranges().first()?;
            // A letter or digit reads better than the lowest code point of a wide class.
            let preferred = ['a', 'A', '0'].into_iter().find(|c| {
                class
                    .ranges()
                    .iter()
                    .any(|r| r.start() <= *c && *c <= r.end())
            });
            out.push(preferred.unwrap_or(range.start()));
        }
        HirKind::Class(Class::Bytes(class)) => {
            out.push(char::from(class.ranges().first()?.start()))
        }
        HirKind::Repetition(rep) => {
            for _ in 0..rep.min {
                write_match(&rep.sub, out)?;
            }
        }
        HirKind::Capture(cap) => write_match(&cap.sub, out)?,
        HirKind::Concat(parts) => {
            for part in parts {
                write_match(part, out)?;
            }
        }
        HirKind::Alternation(branches) => write_match(branches.first()?, out)?,
    }
    Some(())
}

/// The object holding the last field of `path` inside `body`, where the example has one.
fn parent_object<'v>(
    body: &'v mut Value,
    path: &[String],
) -> Option<&'v mut serde_json::Map<String, Value>> {
    let (_, steps) = path.split_last()?;
    let mut at = body;
    for step in steps {
        at = at.as_object_mut()?.get_mut(step)?;
    }
    at.as_object_mut()
}
