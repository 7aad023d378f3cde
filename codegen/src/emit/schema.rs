//! JSON Schema (draft 2020-12) of models, enums, endpoint bodies and events. The same
//! builder serves standalone schema files (relative `$ref`s between files) and OpenAPI
//! components (`#/components/schemas/…`).

use crate::ir::TIMEZONE_PATTERN;
use crate::ir::shapes::{Shape, Shapes, format_applies, in_shape};
use crate::ir::*;
use serde_json::{Map, Value, json};

pub const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// How a schema points at a named model or enum.
#[derive(Clone, Debug)]
pub enum RefStyle {
    /// Files under a folder: `../models/User.json`, with `depth` folders between the schema
    /// and the root.
    Files { depth: usize },
    /// `#/components/schemas/User`.
    Components,
}

pub struct SchemaBuilder<'a> {
    pub spec: &'a Spec,
    pub shapes: &'a Shapes<'a>,
    pub style: RefStyle,
}

impl<'a> SchemaBuilder<'a> {
    fn reference(&self, kind: &str, name: &str) -> Value {
        match &self.style {
            RefStyle::Files { depth } => {
                json!({ "$ref": format!("{}{kind}/{name}.json", "../".repeat(*depth)) })
            }
            RefStyle::Components => json!({ "$ref": format!("#/components/schemas/{name}") }),
        }
    }

    pub fn model_ref(&self, id: ModelId, shape: Shape) -> Value {
        self.reference("models", &self.shapes.name(id, shape))
    }

    /// The schema of a value of `ty`, before presence and field metadata.
    pub fn type_schema(&self, ty: &Type, shape: Shape, format: bool) -> Value {
        match ty {
            Type::Primitive(p) => primitive_schema(*p, format),
            Type::Model(id) => self.model_ref(*id, shape),
            Type::Enum(id) => self.reference("enums", &self.spec.enum_(*id).name),
            Type::List(inner, c) => {
                json!({ "type": "array", "items": self.constrained_schema(inner, c, shape, format) })
            }
            Type::Map(inner, c) => json!({
                "type": "object",
                "additionalProperties": self.constrained_schema(inner, c, shape, format),
            }),
            Type::NamedUnion(id) => self.reference("types", &self.spec.union(*id).name),
            Type::Union(types) => {
                let members: Vec<Value> = types
                    .iter()
                    .map(|t| self.type_schema(t, shape, format))
                    .collect();
                match self.spec.discriminator(types) {
                    Some(tag) => self.discriminated(members, &tag),
                    None => json!({ "anyOf": members }),
                }
            }
            Type::NotShown(what) => {
                let what = what.as_deref().unwrap_or("this value");
                json!({ "description": format!("Not shown by the source: {what}. Any JSON value.") })
            }
        }
    }

    /// A list's item or a map's value, with the constraints of its named type.
    fn constrained_schema(&self, ty: &Type, c: &Constraints, shape: Shape, format: bool) -> Value {
        let mut schema = self.type_schema(ty, shape, format);
        if let Some(obj) = schema.as_object_mut() {
            add_constraints(obj, c, ty);
        }
        schema
    }

    /// A declared union: its members, read in the response shape as its Rust type is.
    pub fn union_schema(&self, union: &NamedUnion) -> Value {
        let mut schema =
            self.type_schema(&Type::Union(union.members.clone()), Shape::Response, true);
        if let Some(obj) = schema.as_object_mut() {
            obj.insert("title".into(), json!(union.name));
            if let Some(doc) = &union.doc {
                obj.insert("description".into(), json!(doc));
            }
            if let Some(dep) = &union.deprecated {
                obj.insert("deprecated".into(), json!(true));
                obj.insert("x-deprecation".into(), deprecation_json(dep));
            }
            put_source(obj, union.provenance);
        }
        schema
    }

    /// A union told apart by a field: exactly one member matches (each has its constant), and
    /// OpenAPI's `discriminator` maps each value to its member when the values are strings
    /// (the only values it maps).
    fn discriminated(&self, members: Vec<Value>, tag: &Discriminator) -> Value {
        let Some(values) = tag.string_values() else {
            return json!({ "oneOf": members });
        };
        let mapping: Map<String, Value> = values
            .iter()
            .zip(&members)
            .filter_map(|(value, member)| Some((value.to_string(), member.get("$ref")?.clone())))
            .collect();
        let mut out = json!({ "oneOf": members });
        if matches!(self.style, RefStyle::Components) {
            out["discriminator"] = json!({ "propertyName": tag.field, "mapping": mapping });
        }
        out
    }

    /// A response's body, `null` allowed where the spec says so; `None` without a body.
    pub fn response_body_schema(&self, r: &Response) -> Option<Value> {
        let mut schema = self.body_schema(r.body.as_ref()?, &r.media, Shape::Response);
        if r.nullable {
            make_nullable(&mut schema);
        }
        Some(schema)
    }

    /// An endpoint's request body: its type, and for each group of body fields a request
    /// sends exactly one of, a `oneOf` of the groups' members each required.
    pub fn request_body_schema(&self, ep: &Endpoint) -> Option<Value> {
        let mut schema = self.body_schema(ep.body.as_ref()?, &ep.body_media, Shape::Request);
        self.add_exactly_one_of(ep, &mut schema);
        Some(schema)
    }

    /// The schema of a body in its JSON form; a body written as it is also names its media
    /// type (`contentMediaType`).
    pub fn body_schema(&self, ty: &Type, media: &BodyMedia, shape: Shape) -> Value {
        let mut schema = self.type_schema(ty, shape, true);
        if let (BodyMedia::Raw(m), Some(obj)) = (media, schema.as_object_mut()) {
            obj.insert("contentMediaType".into(), json!(m));
        }
        schema
    }

    /// A multipart body's parts as OpenAPI describes them: a file or bytes part is a binary
    /// string, any other part the field's schema.
    pub fn multipart_schema(&self, ep: &Endpoint) -> Option<Value> {
        let Some(Type::Model(id)) = &ep.body else {
            return self.request_body_schema(ep);
        };
        let binary = json!({ "type": "string", "contentMediaType": "application/octet-stream" });
        let mut properties = Map::new();
        let mut required = Vec::new();
        for f in self
            .spec
            .model(*id)
            .fields
            .iter()
            .filter(|f| in_shape(f, Shape::Request))
        {
            let schema = match &f.ty {
                Type::Primitive(Primitive::File | Primitive::Bytes) => binary.clone(),
                Type::List(inner, _)
                    if matches!(**inner, Type::Primitive(Primitive::File | Primitive::Bytes)) =>
                {
                    json!({ "type": "array", "items": binary })
                }
                _ => self.field_schema(f, Shape::Request),
            };
            properties.insert(f.name.clone(), schema);
            if !f.presence.may_be_absent() && f.default.is_none() {
                required.push(json!(f.name));
            }
        }
        let mut schema = json!({ "type": "object", "properties": properties });
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        self.add_exactly_one_of(ep, &mut schema);
        Some(schema)
    }

    fn add_exactly_one_of(&self, ep: &Endpoint, schema: &mut Value) {
        let groups: Vec<Value> = ep
            .exactly_one_of
            .iter()
            .filter(|g| ep.group_in_body(g))
            .map(|g| json!({ "oneOf": g.iter().map(|n| json!({ "required": [n] })).collect::<Vec<_>>() }))
            .collect();
        if !groups.is_empty()
            && let Some(obj) = schema.as_object_mut()
        {
            obj.insert("allOf".into(), Value::Array(groups));
        }
    }

    /// A field's schema: type, constraints, nullability, default, docs, deprecation.
    pub fn field_schema(&self, f: &Field, shape: Shape) -> Value {
        let mut schema = self.type_schema(&f.ty, shape, format_applies(f, shape));
        let obj = schema.as_object_mut().expect("type schemas are objects");
        add_constraints(obj, &f.constraints, &f.ty);
        if f.presence.may_be_null() {
            make_nullable(&mut schema);
        }
        let obj = schema.as_object_mut().expect("still an object");
        if let Some(doc) = &f.doc {
            obj.insert("description".into(), Value::String(doc.clone()));
        }
        if let Some(default) = &f.default {
            obj.insert("default".into(), default.to_json());
        }
        if let Some(dep) = &f.deprecated {
            obj.insert("deprecated".into(), Value::Bool(true));
            obj.insert("x-deprecation".into(), deprecation_json(dep));
        }
        if f.secret {
            obj.insert("x-secret".into(), Value::Bool(true));
        }
        if f.personal {
            obj.insert("x-personal".into(), Value::Bool(true));
        }
        if f.varies {
            obj.insert("x-varies".into(), Value::Bool(true));
        }
        put_source(obj, f.provenance);
        schema
    }

    pub fn model_schema(&self, id: ModelId, shape: Shape) -> Value {
        let model = self.spec.model(id);
        let mut properties = Map::new();
        let mut required = Vec::new();
        for f in model.fields.iter().filter(|f| in_shape(f, shape)) {
            properties.insert(f.name.clone(), self.field_schema(f, shape));
            if !f.presence.may_be_absent() {
                required.push(Value::String(f.name.clone()));
            }
        }
        let mut out = Map::new();
        out.insert("title".into(), json!(self.shapes.name(id, shape)));
        if let Some(doc) = description(model.doc.as_deref(), &model.not_shown) {
            out.insert("description".into(), json!(doc));
        }
        out.insert("type".into(), json!("object"));
        out.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        if model.is_open() {
            out.insert("additionalProperties".into(), json!(true));
            out.insert("x-not-shown".into(), json!(model.not_shown));
        }
        let groups: Vec<Value> = model
            .groups
            .iter()
            .filter(|g| {
                g.fields.iter().all(|name| {
                    model
                        .fields
                        .iter()
                        .any(|f| &f.name == name && in_shape(f, shape))
                })
            })
            .map(group_schema)
            .collect();
        if !groups.is_empty() {
            out.insert("allOf".into(), Value::Array(groups));
        }
        if let Some(dep) = &model.deprecated {
            out.insert("deprecated".into(), json!(true));
            out.insert("x-deprecation".into(), deprecation_json(dep));
        }
        put_source(&mut out, model.provenance);
        Value::Object(out)
    }

    pub fn enum_schema(&self, e: &Enum) -> Value {
        let values: Vec<Value> = e
            .values
            .iter()
            .map(|v| match e.repr {
                EnumRepr::String => json!(v.name),
                EnumRepr::Int => json!(v.name.parse::<i64>().unwrap_or_default()),
            })
            .collect();
        let json_type = match e.repr {
            EnumRepr::String => "string",
            EnumRepr::Int => "integer",
        };
        let mut out = Map::new();
        out.insert("title".into(), json!(e.name));
        let open_note = if e.open {
            Some("Open: values beyond those listed may occur and must be tolerated.".to_string())
        } else {
            None
        };
        let doc = [e.doc.clone(), open_note]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n\n");
        if let Some(doc) = description(
            Some(&doc).filter(|d| !d.is_empty()).map(|d| d.as_str()),
            &e.not_shown,
        ) {
            out.insert("description".into(), json!(doc));
        }
        out.insert("type".into(), json!(json_type));
        if e.open {
            out.insert(
                "anyOf".into(),
                json!([{ "enum": values }, { "type": json_type }]),
            );
        } else {
            out.insert("enum".into(), Value::Array(values));
        }
        let deprecated: Map<String, Value> = e
            .values
            .iter()
            .filter_map(|v| {
                v.deprecated
                    .as_ref()
                    .map(|d| (v.name.clone(), deprecation_json(d)))
            })
            .collect();
        if !deprecated.is_empty() {
            out.insert("x-deprecated-values".into(), Value::Object(deprecated));
        }
        let described = enum_values_json(e);
        if !described.is_empty() {
            out.insert("x-enum-values".into(), Value::Object(described));
        }
        if let Some(size) = e.catalogue_size {
            out.insert("x-catalogue-size".into(), json!(size));
        }
        if !e.not_shown.is_empty() {
            out.insert("x-not-shown".into(), json!(e.not_shown));
        }
        put_source(&mut out, e.provenance);
        Value::Object(out)
    }

    /// The whole message of an event: the envelope with the event's fields and event type.
    pub fn event_schema(&self, event: &Event) -> Value {
        let envelope = self.spec.envelope.map(|id| self.spec.model(id));
        let mut properties = Map::new();
        let mut required = Vec::new();
        let fields = envelope.map(|m| m.fields.as_slice()).unwrap_or_default();
        for f in fields {
            let f = event.fields.iter().find(|o| o.name == f.name).unwrap_or(f);
            properties.insert(f.name.clone(), self.field_schema(f, Shape::Response));
            if !f.presence.may_be_absent() {
                required.push(json!(f.name));
            }
        }
        let mut out = Map::new();
        match &self.spec.event_type {
            Some(EventTypeCarrier::Field(field)) => {
                if let Some(Value::Object(slot)) = properties.get_mut(field) {
                    slot.insert(
                        "pattern".into(),
                        json!(event_type_pattern(self.spec, event)),
                    );
                }
            }
            Some(EventTypeCarrier::Header(header)) => {
                out.insert(
                    "x-event-type-header".into(),
                    json!({ "name": header, "pattern": event_type_pattern(self.spec, event) }),
                );
            }
            None => {}
        }
        out.insert("title".into(), json!(event.name));
        let doc = [
            event.doc.clone(),
            Some(format!("Event type `{}`.", event.pattern)),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n\n");
        out.insert(
            "description".into(),
            json!(description(Some(&doc), &event.not_shown)),
        );
        out.insert("type".into(), json!("object"));
        out.insert("properties".into(), Value::Object(properties));
        out.insert("required".into(), Value::Array(required));
        if !event.placeholders.is_empty() {
            let map: Map<String, Value> = event
                .placeholders
                .iter()
                .map(|(name, id)| {
                    (
                        name.clone(),
                        self.reference("enums", &self.spec.enum_(*id).name),
                    )
                })
                .collect();
            out.insert("x-placeholders".into(), Value::Object(map));
        }
        if let Some(dep) = &event.deprecated {
            out.insert("deprecated".into(), json!(true));
            out.insert("x-deprecation".into(), deprecation_json(dep));
        }
        put_source(&mut out, event.provenance);
        Value::Object(out)
    }
}

/// `x-source` where a fact does not come from the document: `deployed-client` or `toolkit`.
pub fn put_source(obj: &mut Map<String, Value>, provenance: Provenance) {
    if let Some(source) = provenance.x_source() {
        obj.insert("x-source".into(), json!(source));
    }
}

/// What a JSON Schema `enum` cannot say about single values: their descriptions and where
/// they come from, keyed by value. Only values with something to say are listed.
fn enum_values_json(e: &Enum) -> Map<String, Value> {
    e.values
        .iter()
        .filter(|v| v.doc.is_some() || !v.provenance.is_document())
        .map(|v| {
            let mut about = Map::new();
            if let Some(doc) = &v.doc {
                about.insert("description".into(), json!(doc));
            }
            put_source(&mut about, v.provenance);
            (v.name.clone(), Value::Object(about))
        })
        .collect()
}

/// A regular expression of the event types an event produces: a placeholder matches the
/// values its enum lists. For an open enum a later value is possible, but which payload it
/// carries is then unknown too, so no event's schema claims it.
pub fn event_type_pattern(spec: &Spec, event: &Event) -> String {
    let parts: Vec<String> = event
        .pattern
        .split('.')
        .map(
            |seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                None => regex_escape(seg),
                Some(name) => match event.placeholders.iter().find(|(n, _)| n == name) {
                    Some((_, id)) => {
                        let values: Vec<String> = spec
                            .enum_(*id)
                            .values
                            .iter()
                            .map(|v| regex_escape(&v.name))
                            .collect();
                        format!("({})", values.join("|"))
                    }
                    _ => "[A-Za-z0-9_]+".to_string(),
                },
            },
        )
        .collect();
    format!("^{}$", parts.join("\\."))
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

fn primitive_schema(p: Primitive, format: bool) -> Value {
    match p {
        Primitive::String => json!({ "type": "string" }),
        // The router reads integers as 64-bit: say so, so clients and fuzzers stay in range.
        Primitive::Int => json!({ "type": "integer", "format": "int64" }),
        Primitive::Number => json!({ "type": "number" }),
        Primitive::Bool => json!({ "type": "boolean" }),
        Primitive::Object => json!({ "type": "object" }),
        Primitive::Any => json!({}),
        Primitive::Null => json!({ "type": "null" }),
        Primitive::Bytes => json!({ "type": "string", "contentEncoding": "base64" }),
        // A file part as JSON (a recorded request, a sample); on the wire it is a part.
        Primitive::File => json!({
            "type": "object",
            "required": ["content"],
            "properties": {
                "filename": { "type": "string" },
                "content_type": { "type": "string" },
                "content": { "type": "string", "contentEncoding": "base64" },
            },
            "additionalProperties": false,
        }),
        Primitive::TimeZone => {
            json!({ "type": "string", "pattern": TIMEZONE_PATTERN, "x-format": "iana-time-zone" })
        }
        // Neither serde nor validate() checks URIs (RFC 3986 and WHATWG parsers disagree), so
        // the schema names the format without asserting it.
        Primitive::Uri => json!({ "type": "string", "x-format": "uri" }),
        Primitive::Uuid | Primitive::Date | Primitive::DateTime | Primitive::Email => {
            match p.format().filter(|_| format) {
                // `format` alone is an annotation to many readers: the shape the router
                // enforces is also a pattern, which every validator asserts.
                Some(f) => match format_shape(p) {
                    Some(shape) => json!({ "type": "string", "format": f, "pattern": shape }),
                    None => json!({ "type": "string", "format": f }),
                },
                None => json!({ "type": "string" }),
            }
        }
    }
}

/// The textual shape of a format, as the runtime's strict parsers read it.
fn format_shape(p: Primitive) -> Option<&'static str> {
    match p {
        Primitive::Uuid => format_pattern("uuid"),
        Primitive::Date => format_pattern("date"),
        Primitive::DateTime => format_pattern("date-time"),
        _ => None,
    }
}

/// The `pattern` the schemas write beside a JSON Schema `format` (`uuid`, `date`,
/// `date-time`), which states nothing the format does not: an importer reads it as implied.
pub fn format_pattern(format: &str) -> Option<&'static str> {
    match format {
        "uuid" => {
            Some("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        }
        "date" => Some("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
        "date-time" => Some(
            "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$",
        ),
        _ => None,
    }
}

/// The keywords of constraints on a value of `ty`: a map counts its entries
/// (`minProperties`), a list its items.
pub fn add_constraints(obj: &mut Map<String, Value>, c: &Constraints, ty: &Type) {
    let (min_count, max_count) = match ty {
        Type::Map(..) => ("minProperties", "maxProperties"),
        _ => ("minItems", "maxItems"),
    };
    let mut put = |k: &str, v: Value| {
        obj.insert(k.to_string(), v);
    };
    if let Some(n) = c.minimum {
        put("minimum", number(n));
    }
    if let Some(n) = c.maximum {
        put("maximum", number(n));
    }
    if let Some(n) = c.min_length {
        put("minLength", json!(n));
    }
    if let Some(n) = c.max_length {
        put("maxLength", json!(n));
    }
    if let Some(p) = &c.pattern {
        put("pattern", json!(p));
    }
    if let Some(f) = &c.format {
        put("format", json!(f));
    }
    if let Some(n) = c.min_items {
        put(min_count, json!(n));
    }
    if let Some(n) = c.max_items {
        put(max_count, json!(n));
    }
    if c.unique_items {
        put("uniqueItems", json!(true));
    }
    if !c.one_of.is_empty() {
        put(
            "enum",
            Value::Array(c.one_of.iter().map(Literal::to_json).collect()),
        );
    }
    if let Some(source) = c.default_bound.and_then(Provenance::x_source) {
        put("x-bound-source", json!(source));
    }
}

/// Lets `null` through: by widening `type` where there is one, else with `anyOf`.
fn make_nullable(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if obj.is_empty() || (obj.len() == 1 && obj.contains_key("description")) {
        return; // already any value
    }
    if let Some(Value::String(t)) = obj.get("type").cloned()
        && !obj.contains_key("$ref")
        && !obj.contains_key("anyOf")
    {
        obj.insert("type".into(), json!([t, "null"]));
        if let Some(Value::Array(values)) = obj.get_mut("enum") {
            values.push(Value::Null);
        }
        return;
    }
    let inner = std::mem::take(obj);
    obj.insert(
        "anyOf".into(),
        json!([Value::Object(inner), { "type": "null" }]),
    );
}

/// Whole numbers print as integers, so `10` stays `10` rather than `10.0`.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

pub fn deprecation_json(d: &Deprecation) -> Value {
    let mut out = Map::new();
    if let Some(n) = &d.note {
        out.insert("note".into(), json!(n));
    }
    if let Some(r) = &d.replacement {
        out.insert("replacement".into(), json!(r));
    }
    if let Some(s) = &d.since {
        out.insert("since".into(), json!(s));
    }
    if let Some(s) = &d.sunset {
        out.insert("sunset".into(), json!(s));
    }
    put_source(&mut out, d.provenance);
    Value::Object(out)
}

/// A doc comment followed by one "Not shown" line per marker.
pub fn description(doc: Option<&str>, not_shown: &[String]) -> Option<String> {
    let mut parts: Vec<String> = doc.map(str::to_string).into_iter().collect();
    parts.extend(
        not_shown
            .iter()
            .map(|n| format!("Not shown by the source: {n}.")),
    );
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// A model's group of optional fields as JSON Schema: exactly one present is a `oneOf` of
/// `required`, at least one an `anyOf`, at most one no two together.
pub fn group_schema(group: &FieldGroup) -> Value {
    let each: Vec<Value> = group
        .fields
        .iter()
        .map(|n| json!({ "required": [n] }))
        .collect();
    match group.rule {
        GroupRule::ExactlyOne => json!({ "oneOf": each }),
        GroupRule::AtLeastOne => json!({ "anyOf": each }),
        GroupRule::AtMostOne => {
            let pairs: Vec<Value> = group
                .fields
                .iter()
                .enumerate()
                .flat_map(|(i, a)| {
                    group.fields[i + 1..]
                        .iter()
                        .map(move |b| json!({ "required": [a, b] }))
                })
                .collect();
            json!({ "not": { "anyOf": pairs } })
        }
    }
}
