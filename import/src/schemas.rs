//! JSON Schemas of the document as the spec's models, enums and types: a component schema
//! that is an object or a closed set of strings becomes a named item, any other is written
//! in place where it is used; an object written in place becomes a model named after its
//! place.

use crate::build::*;
use crate::document::join;
use crate::importer::Importer;
use crate::types::{ScalarValue, Ty};
use covenant_codegen::ast::{
    Annotation, Attrs, EnumDecl, EnumMember, EnumValue, ItemKind, Member, ModelDecl, ModelMember,
    Value as AstValue, ValueKind,
};
use covenant_codegen::ir::GroupRule;
use covenant_codegen::source::Span;
use serde_json::{Map, Value};

/// The schema that allows any value (`true`), for places that state none.
pub static ANY_SCHEMA: Value = Value::Bool(true);

/// A schema worked out as a type: what to write, whether it may be null, and the losses
/// met inside it, to be marked on the member that holds it.
pub struct Converted {
    pub ty: Ty,
    pub nullable: bool,
    pub markers: Vec<Annotation>,
}

/// What an object schema and the parts of its `allOf` say, gathered.
#[derive(Default)]
struct ObjectParts<'d> {
    /// Each field's name, schema and pointer, in order; a later part overrides.
    properties: Vec<(String, &'d Value, String)>,
    required: Vec<String>,
    /// Where further fields are allowed, and their type when the spec cannot say it.
    open: Option<(String, Option<String>)>,
    /// Losses of the object as a whole, marked on its item.
    markers: Vec<Annotation>,
    /// Groups of fields of which a value holds exactly, at least or at most one
    /// (`oneOf: [{required: [a]}, {required: [b]}]`), with where each is written.
    groups: Vec<(GroupRule, Vec<String>, String)>,
}

/// The names of `members` when each is `{required: [name]}` and nothing more.
fn required_one_each(members: &[Value]) -> Option<Vec<String>> {
    members
        .iter()
        .map(
            |m| match m.as_object()?.iter().collect::<Vec<_>>().as_slice() {
                [(key, Value::Array(names))] if key.as_str() == "required" => {
                    match names.as_slice() {
                        [Value::String(name)] => Some(name.clone()),
                        _ => None,
                    }
                }
                _ => None,
            },
        )
        .collect::<Option<Vec<_>>>()
        .filter(|names| names.len() >= 2)
}

/// `not: {anyOf: [{required: [a, b]}, …]}` naming every pair of some fields: at most one of
/// them. Answers the fields in the order they first appear.
fn no_two_together(not: &Value) -> Option<Vec<String>> {
    let pairs = not.get("anyOf")?.as_array()?;
    let mut names: Vec<String> = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for pair in pairs {
        let required = pair.get("required")?.as_array()?;
        let (a, b) = match required.as_slice() {
            [Value::String(a), Value::String(b)] if pair.as_object()?.len() == 1 => (a, b),
            _ => return None,
        };
        for n in [a, b] {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        seen.push((a.clone(), b.clone()));
    }
    let every_pair = names.len() >= 2
        && names.iter().enumerate().all(|(i, a)| {
            names[i + 1..].iter().all(|b| {
                seen.iter()
                    .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
            })
        });
    (every_pair && seen.len() == names.len() * (names.len() - 1) / 2).then_some(names)
}

/// Where a type stands, which decides what may be written for it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A field's or parameter's whole type: a constant may stand here.
    Whole,
    /// Inside a union, or a schema an `allOf` merges.
    Inner,
    /// A list's items or a map's values: their constraints and open format are stated on a
    /// named type.
    Item,
}

impl<'d> Importer<'d> {
    /// Names every component schema first, so their own names win over names made up for
    /// schemas written in place; then writes each.
    pub fn declare_components(&mut self) {
        let Some(Value::Object(schemas)) = self.doc.pointer("/components/schemas") else {
            return;
        };
        let schemas: &'d Map<String, Value> = schemas;
        let mut named = Vec::new();
        let mut unions = Vec::new();
        for (key, schema) in schemas {
            let reference = format!("#/components/schemas/{}", crate::document::escape(key));
            let resolved = self.follow_local(schema);
            let name = is_named(resolved).then(|| self.types.type_name(key));
            if name.is_none() && crate::named_types::declarable_union(resolved) {
                unions.push((key, schema, reference.clone()));
            }
            if let Some(name) = &name {
                // Known before any model is written, for the defaults that name values.
                if string_enum(resolved).is_some() {
                    self.enum_names.insert(name.clone());
                }
                named.push((name.clone(), schema, reference.clone()));
            }
            self.components.insert(reference, name);
        }
        // A union that contains itself is declared with a name, through which it refers to
        // itself; once every component is known.
        let recursive: Vec<_> = unions
            .into_iter()
            .filter(|(_, _, reference)| self.contains_itself(reference))
            .collect();
        for (key, schema, reference) in recursive {
            let name = self.types.type_name(key);
            self.components
                .insert(reference.clone(), Some(name.clone()));
            named.push((name, schema, reference));
        }
        for (name, schema, reference) in named {
            let schema = self.follow_local(schema);
            self.as_owner(&name, |this| this.named_item(&name, schema, &reference));
        }
    }

    /// A component that is only a `$ref` to another is that other.
    fn follow_local(&self, schema: &'d Value) -> &'d Value {
        self.follow(schema)
    }

    /// Writes the model or enum `name` for `schema`.
    fn named_item(&mut self, name: &str, schema: &'d Value, at: &str) {
        let mut attrs = self.item_attrs(schema, at);
        let kind = match string_enum(schema) {
            Some(values) => {
                self.enum_names.insert(name.to_string());
                ItemKind::Enum(enum_decl(name, &values))
            }
            None if !is_named(schema) => {
                // A union that contains itself (see `declare_components`).
                let mut markers = Vec::new();
                let (ty, _) = self.type_of(
                    schema,
                    at,
                    name,
                    Place::Inner,
                    FieldUse::Body,
                    &mut markers,
                    0,
                );
                let ty = match ty {
                    Ty::Union(_) => ty,
                    _ => {
                        markers.push(self.lose(at, "a schema that contains itself", "any value"));
                        Ty::any()
                    }
                };
                attrs.annotations.extend(markers);
                ItemKind::Type(covenant_codegen::ast::TypeAliasDecl {
                    name: ident(name),
                    ty: ty.expr(false),
                })
            }
            None => {
                let (decl, markers) = self.model_decl(name, schema, at);
                attrs.annotations.extend(markers);
                ItemKind::Model(decl)
            }
        };
        self.type_items.push(item(attrs, kind));
    }

    /// The doc comment and deprecation of an item.
    fn item_attrs(&mut self, schema: &Value, _at: &str) -> Attrs {
        let mut attrs = Attrs {
            doc: description(schema),
            annotations: Vec::new(),
        };
        if schema.get("deprecated").and_then(Value::as_bool) == Some(true) {
            attrs.annotations.push(annotation("deprecated", Vec::new()));
        }
        attrs
    }

    /// A model of an object schema (its `allOf` parts merged), and the losses of the whole.
    fn model_decl(
        &mut self,
        name: &str,
        schema: &'d Value,
        at: &str,
    ) -> (ModelDecl, Vec<Annotation>) {
        let mut parts = ObjectParts::default();
        self.collect_object(schema, at, &mut parts, 0);
        let mut members = Vec::new();
        for (field, field_schema, field_at) in std::mem::take(&mut parts.properties) {
            let is_required = parts.required.contains(&field);
            let hint = format!("{name}_{field}");
            members.push(self.field_member(&field, field_schema, &field_at, is_required, &hint));
        }
        if let Some((open_at, typed)) = parts.open.take() {
            let mut attrs = Attrs::default();
            if let Some(values) = typed {
                attrs.annotations.push(self.lose(
                    &open_at,
                    format!("further fields of type {values}"),
                    "further fields of any type",
                ));
            }
            members.push(member(
                attrs,
                ModelMember::NotShown {
                    what: string("Further fields"),
                    fields: true,
                },
            ));
        }
        for (rule, names, group_at) in std::mem::take(&mut parts.groups) {
            let stated = names.iter().all(|n| {
                is_identifier(n)
                    && !parts.required.contains(n)
                    && members.iter().any(|m| match &m.node {
                        ModelMember::Field(f) => f.name.text == *n && f.default.is_none(),
                        _ => false,
                    })
            });
            let marker = if stated {
                let args = names.iter().map(|n| arg(reference(n.clone()))).collect();
                annotation(rule.annotation(), args)
            } else {
                self.lose(
                    &group_at,
                    format!(
                        "`{}` over fields that are not all optional",
                        rule.annotation()
                    ),
                    "the fields alone",
                )
            };
            parts.markers.push(marker);
        }
        let decl = ModelDecl {
            name: ident(name),
            members,
            body_span: Span::default(),
        };
        (decl, parts.markers)
    }

    /// The properties of an object schema and of the parts of its `allOf`, in order.
    fn collect_object(
        &mut self,
        schema: &'d Value,
        at: &str,
        parts: &mut ObjectParts<'d>,
        depth: usize,
    ) {
        if depth > 16 {
            return;
        }
        let (schema, at) = match self.deref(schema) {
            Some((target, reference)) => (target, reference),
            None => (schema, at.to_string()),
        };
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for (index, part) in all.iter().enumerate() {
                let part_at = join(&join(&at, "allOf"), &index.to_string());
                self.collect_object(part, &part_at, parts, depth + 1);
            }
        }
        for (keyword, rule) in [
            ("oneOf", GroupRule::ExactlyOne),
            ("anyOf", GroupRule::AtLeastOne),
        ] {
            if let Some(names) = schema
                .get(keyword)
                .and_then(Value::as_array)
                .and_then(|members| required_one_each(members))
            {
                parts.groups.push((rule, names, join(&at, keyword)));
                continue;
            }
            if schema.get(keyword).is_some() && (depth > 0 || schema.get("properties").is_some()) {
                let marker = self.lose(
                    &join(&at, keyword),
                    format!("`{keyword}` beside the object's fields"),
                    "the fields alone",
                );
                parts.markers.push(marker);
            }
        }
        if let Some(names) = schema.get("not").and_then(no_two_together) {
            parts
                .groups
                .push((GroupRule::AtMostOne, names, join(&at, "not")));
        }
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (field, field_schema) in props {
                let field_at = join(&join(&at, "properties"), field);
                match parts
                    .properties
                    .iter_mut()
                    .find(|(name, _, _)| name == field)
                {
                    Some(existing) => *existing = (field.clone(), field_schema, field_at),
                    None => parts
                        .properties
                        .push((field.clone(), field_schema, field_at)),
                }
            }
        }
        if let Some(Value::Array(names)) = schema.get("required") {
            self.repeated_names(names, &join(&at, "required"));
            for name in names.iter().filter_map(Value::as_str) {
                if !parts.required.iter().any(|r| r == name) {
                    parts.required.push(name.to_string());
                }
            }
        }
        match schema.get("additionalProperties") {
            Some(Value::Bool(true)) => parts.open = Some((join(&at, "additionalProperties"), None)),
            Some(Value::Object(values)) if !values.is_empty() => {
                let what = values
                    .get("type")
                    .and_then(Value::as_str)
                    .or_else(|| values.get("$ref").and_then(Value::as_str))
                    .unwrap_or("a schema")
                    .to_string();
                parts.open = Some((join(&at, "additionalProperties"), Some(what)));
            }
            Some(Value::Object(_)) => parts.open = Some((join(&at, "additionalProperties"), None)),
            _ => {}
        }
    }

    /// One field of a model.
    pub fn field_member(
        &mut self,
        name: &str,
        schema: &'d Value,
        at: &str,
        required: bool,
        hint: &str,
    ) -> Member<ModelMember> {
        let (decl, attrs) = self.field_decl(name, schema, at, required, hint, FieldUse::Body);
        member(attrs, ModelMember::Field(decl))
    }

    /// A field or parameter: its declaration and its attributes (doc comment, constraints,
    /// deprecation, shape, losses).
    pub fn field_decl(
        &mut self,
        name: &str,
        schema: &'d Value,
        at: &str,
        required: bool,
        hint: &str,
        usage: FieldUse,
    ) -> (covenant_codegen::ast::FieldDecl, Attrs) {
        let converted = self.schema_type(schema, at, hint, Place::Whole, usage);
        let resolved = self.follow(schema);
        let mut attrs = Attrs {
            doc: description(schema).or_else(|| description(resolved)),
            annotations: Vec::new(),
        };
        let deprecated = [schema, resolved]
            .iter()
            .any(|s| s.get("deprecated").and_then(Value::as_bool) == Some(true));
        if deprecated {
            attrs.annotations.push(annotation("deprecated", Vec::new()));
        }
        let read_only = schema.get("readOnly").and_then(Value::as_bool) == Some(true);
        let write_only = schema.get("writeOnly").and_then(Value::as_bool) == Some(true);
        if usage == FieldUse::Body && read_only != write_only {
            let name = if read_only {
                "response_only"
            } else {
                "request_only"
            };
            attrs.annotations.push(annotation(name, Vec::new()));
        }
        if schema.get("format").and_then(Value::as_str) == Some("password")
            && matches!(converted.ty, Ty::Builtin("string"))
        {
            attrs.annotations.push(annotation("secret", Vec::new()));
        }
        let constraints = self.constraints(schema, &converted.ty, at, usage);
        attrs.annotations.extend(constraints);
        let default = self.default_value(schema, &converted, at, required, &mut attrs);
        attrs.annotations.extend(converted.markers);
        let decl = field(
            name,
            !required,
            converted.ty.expr(converted.nullable),
            default,
        );
        (decl, attrs)
    }

    /// The default of a field, when the spec can state it.
    fn default_value(
        &mut self,
        schema: &Value,
        converted: &Converted,
        at: &str,
        required: bool,
        attrs: &mut Attrs,
    ) -> Option<AstValue> {
        let default = schema
            .get("default")
            .or_else(|| self.follow(schema).get("default"))?;
        if default.is_null() && converted.nullable && !required {
            return Some(value(ValueKind::Null));
        }
        // `null` alone: absent and null read alike, so a null default says nothing.
        if default.is_null() && matches!(converted.ty, Ty::Builtin("null")) {
            return None;
        }
        // A required field is always sent: its default never applies.
        if required {
            return None;
        }
        let written = if required {
            None
        } else {
            literal(default, &converted.ty, &self.enum_names)
        };
        if written.is_none() {
            let why = if required {
                "a default of a required field"
            } else {
                "a default the spec cannot write"
            };
            let marker = self.lose(&join(at, "default"), why, "left out");
            attrs.annotations.push(marker);
        }
        written
    }

    /// `@min`, `@max_length`, `@pattern`, … for what the schema constrains; losses for what
    /// the spec cannot constrain there.
    pub(crate) fn constraints(
        &mut self,
        schema: &'d Value,
        ty: &Ty,
        at: &str,
        usage: FieldUse,
    ) -> Vec<Annotation> {
        let mut schema = self.follow(schema);
        let member_at;
        let mut at = at;
        if let Some((keyword, index, member)) = nullable_member(schema) {
            schema = self.follow(member);
            member_at = join(&join(at, keyword), &index.to_string());
            at = &member_at;
        }
        let mut out = Vec::new();
        let numeric = matches!(ty, Ty::Builtin("int" | "number"));
        // Text whose shape no format fixes: lengths and patterns apply.
        let text = matches!(ty, Ty::Builtin("string" | "uri" | "email"));
        let list = matches!(ty, Ty::List(_));
        let map = matches!(ty, Ty::Map(_));
        let int = matches!(ty, Ty::Builtin("int"));
        let exclusive_30 = |key: &str| schema.get(key).and_then(Value::as_bool) == Some(true);
        let kinds = json_kinds(ty, &self.enum_names);
        let vacuous = |json: &str| !kinds.contains(&json) && !kinds.contains(&"any");
        for (keyword, name, applies) in [
            ("minimum", "min", numeric),
            ("maximum", "max", numeric),
            ("minLength", "min_length", text),
            ("maxLength", "max_length", text),
            ("minItems", "min_items", list),
            ("maxItems", "max_items", list),
            ("minProperties", "min_items", map),
            ("maxProperties", "max_items", map),
        ] {
            let Some(bound) = schema.get(keyword) else {
                continue;
            };
            // The bound the toolkit gives every input that states none (`x-bound-source`)
            // is the service's, not the field's.
            if schema.get("x-bound-source").is_some() && matches!(keyword, "maxLength" | "maxItems")
            {
                continue;
            }
            if vacuous(match keyword {
                "minimum" | "maximum" => "number",
                "minLength" | "maxLength" => "string",
                "minProperties" | "maxProperties" => "object",
                _ => "array",
            }) {
                continue;
            }
            if !applies && held_by_every_value(schema, ty, keyword, bound) {
                continue;
            }
            let exclusive = match keyword {
                "minimum" => exclusive_30("exclusiveMinimum"),
                "maximum" => exclusive_30("exclusiveMaximum"),
                _ => false,
            };
            match number_value(bound, exclusive, keyword, int) {
                Some(v) if applies => out.push(annotation(name, vec![arg(v)])),
                _ => out.push(self.lose(
                    &join(at, keyword),
                    format!("`{keyword}: {bound}`"),
                    "left out",
                )),
            }
        }
        for (keyword, name) in [("exclusiveMinimum", "min"), ("exclusiveMaximum", "max")] {
            if let Some(bound) = schema.get(keyword).filter(|b| b.is_number())
                && !vacuous("number")
            {
                match number_value(bound, true, keyword, int) {
                    Some(v) if numeric => out.push(annotation(name, vec![arg(v)])),
                    _ => out.push(self.lose(
                        &join(at, keyword),
                        format!("`{keyword}: {bound}`"),
                        "left out",
                    )),
                }
            }
        }
        if let Some(format) = schema.get("format").and_then(Value::as_str)
            && let Some(kind) = schema.get("type").and_then(Value::as_str)
            && !known_format(kind, format)
            && matches!(ty, Ty::Builtin("string" | "int" | "number"))
        {
            if covenant_codegen::ir::is_format_name(format) {
                out.push(annotation("format", vec![arg(str_value(format))]));
            } else {
                // A format in words (`ipv4 or ipv6`) names no format a tool knows.
                out.push(self.lose(
                    &join(at, "format"),
                    format!("the format `{format}`"),
                    format!("a plain {kind}"),
                ));
            }
        }
        let implied = schema
            .get("format")
            .and_then(Value::as_str)
            .and_then(covenant_codegen::emit::schema::format_pattern);
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && !vacuous("string")
            && implied != Some(pattern)
        {
            if text && usage != FieldUse::Header && valid_pattern(pattern) {
                out.push(annotation("pattern", vec![arg(str_value(pattern))]));
            } else {
                out.push(self.lose(&join(at, "pattern"), "a pattern", "left out"));
            }
        }
        if let Some(Value::Array(values)) = schema.get("enum")
            && numeric
        {
            let numbers: Option<Vec<AstValue>> = values
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| number_value(v, false, "enum", int))
                .collect();
            match numbers {
                Some(numbers) if !numbers.is_empty() => {
                    out.push(annotation("one_of", numbers.into_iter().map(arg).collect()))
                }
                _ => out.push(self.lose(&join(at, "enum"), "a set of values", "left out")),
            }
        }
        // Each keyword constrains one JSON type; on another it says nothing.
        match schema.get("uniqueItems") {
            Some(Value::Bool(true)) if list => out.push(annotation("unique_items", Vec::new())),
            Some(Value::Bool(true)) if !vacuous("array") => {
                out.push(self.lose(&join(at, "uniqueItems"), "`uniqueItems: true`", "left out"))
            }
            _ => {}
        }
        for (keyword, applies) in [("multipleOf", numeric)] {
            if let Some(v) = schema.get(keyword)
                && v != &Value::Bool(false)
                && applies
            {
                out.push(self.lose(&join(at, keyword), format!("`{keyword}: {v}`"), "left out"));
            }
        }
        out
    }

    /// The type of `schema` at `place`; `hint` names a model or enum written for it.
    pub fn schema_type(
        &mut self,
        schema: &'d Value,
        at: &str,
        hint: &str,
        place: Place,
        usage: FieldUse,
    ) -> Converted {
        let mut markers = Vec::new();
        let (ty, nullable) = self.type_of(schema, at, hint, place, usage, &mut markers, 0);
        Converted {
            ty,
            nullable,
            markers,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn type_of(
        &mut self,
        schema: &'d Value,
        at: &str,
        hint: &str,
        place: Place,
        usage: FieldUse,
        markers: &mut Vec<Annotation>,
        depth: usize,
    ) -> (Ty, bool) {
        if depth > 32 {
            markers.push(self.lose(at, "a schema nested past 32 levels", "any value"));
            return (Ty::any(), false);
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            return self.referenced(schema, reference, at, hint, place, usage, markers, depth);
        }
        let Value::Object(map) = schema else {
            // `true` and `false` schemas.
            return (Ty::any(), false);
        };
        let map: &'d Map<String, Value> = map;
        let mut nullable = map.get("nullable").and_then(Value::as_bool) == Some(true);
        // `enum: [0, 2], allOf: [{$ref: ChannelTypes}]` (Discord): the values beside the
        // reference are the narrower set, and the ones the field may hold.
        let narrowed_by_enum = match map.get("enum") {
            Some(Value::Array(values)) if values.is_empty() && map.contains_key("allOf") => {
                self.fault(
                    &join(at, "enum"),
                    "an empty `enum` beside `allOf`, which no value satisfies",
                    "the values of the `allOf`",
                );
                false
            }
            Some(_) => true,
            None => false,
        };
        if let Some(Value::Array(parts)) = map.get("allOf")
            && !narrowed_by_enum
        {
            // `allOf: [{$ref: X}, {nullable: true}]`: OpenAPI 3.0's nullable reference. Parts
            // that only annotate say nothing of the type but whether it may be null.
            let typed: Vec<(usize, &'d Value)> = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| !annotation_only(p) && !bare_object(p))
                .collect();
            if let [(index, part)] = typed.as_slice()
                && typed.len() < parts.len()
                && !map.contains_key("properties")
            {
                let annotated_null = parts.iter().any(|p| {
                    (annotation_only(p) || bare_object(p))
                        && p.get("nullable") == Some(&Value::Bool(true))
                });
                let (ty, part_null) = self.type_of(
                    part,
                    &join(&join(at, "allOf"), &index.to_string()),
                    hint,
                    place,
                    usage,
                    markers,
                    depth + 1,
                );
                return (ty, nullable || part_null || annotated_null);
            }
            let objects = parts
                .iter()
                .filter(|p| {
                    let part = self.follow(p);
                    (is_named(part) && string_enum(part).is_none()) || refines_object(part)
                })
                .count();
            if parts.len() == 1 && !map.contains_key("properties") {
                let (ty, part_null) = self.type_of(
                    &parts[0],
                    &join(&join(at, "allOf"), "0"),
                    hint,
                    place,
                    usage,
                    markers,
                    depth + 1,
                );
                return (ty, nullable || part_null);
            }
            if objects == parts.len() || map.contains_key("properties") {
                let name = self.types.type_name(hint);
                self.inline_model(&name, schema, at);
                return (Ty::Named(name), nullable);
            }
            markers.push(self.lose(
                &join(at, "allOf"),
                "`allOf` of schemas that are not all objects",
                "its first part",
            ));
            let (ty, part_null) =
                self.type_of(&parts[0], at, hint, place, usage, markers, depth + 1);
            return (ty, nullable || part_null);
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(Value::Array(members)) = map.get(keyword)
                && let Some((values, int, member_null)) = constants_of(members)
            {
                let name = self.types.type_name(hint);
                self.uses_type(&name);
                self.enum_names.insert(name.clone());
                let mut decl = enum_decl(&name, &values);
                if int {
                    decl.repr = Some(ident("int"));
                    for m in &mut decl.members {
                        if let EnumMember::Value(v) = &mut m.node {
                            v.is_int = true;
                        }
                    }
                }
                for (m, member_schema) in decl
                    .members
                    .iter_mut()
                    .zip(members.iter().filter(|m| constant_of(m).is_some()))
                {
                    m.attrs.doc = member_schema
                        .get("title")
                        .or_else(|| member_schema.get("description"))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
                let attrs = Attrs {
                    doc: description(schema),
                    annotations: Vec::new(),
                };
                self.type_items.push(item(attrs, ItemKind::Enum(decl)));
                return (Ty::Named(name), nullable || member_null);
            }
            if let Some(Value::Array(members)) = map.get(keyword)
                && !map.contains_key("properties")
            {
                let mut types = Vec::new();
                // `anyOf: [T, null]`: the field's own type, which may be null; its open
                // format and constraints are the field's.
                let plain_member = lone_non_null(members)
                    .is_some_and(|(_, m)| m.get("const").is_none() && m.get("enum").is_none());
                let member_place = if plain_member { place } else { Place::Inner };
                for (index, member) in members.iter().enumerate() {
                    if member.get("type").and_then(Value::as_str) == Some("null") {
                        nullable = true;
                        continue;
                    }
                    let member_hint = member
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("{hint}_{}", index + 1));
                    let (ty, member_null) = self.type_of(
                        member,
                        &join(&join(at, keyword), &index.to_string()),
                        &member_hint,
                        member_place,
                        usage,
                        markers,
                        depth + 1,
                    );
                    nullable |= member_null;
                    types.push(ty);
                }
                // `anyOf: [an enum, a string]`: the extensible enum of many APIs, and the
                // toolkit's own open enum.
                if let [Ty::Named(name), Ty::Builtin("string")]
                | [Ty::Builtin("string"), Ty::Named(name)] = types.as_slice()
                    && self.enum_names.contains(name)
                {
                    self.open_enum(name);
                    return (Ty::Named(name.clone()), nullable);
                }
                self.check_discriminator(map, members, at);
                return (Ty::union(types), nullable);
            }
        }
        if let Some(Value::Array(members)) = map.get("items") {
            let (ty, null) = self.tuple(map, members, at, hint, usage, markers, depth);
            return (ty, nullable || null);
        }
        if map.contains_key("not") {
            markers.push(self.lose(&join(at, "not"), "a `not` schema", "any value"));
        }
        let (types, type_null) = declared_types(map);
        nullable |= type_null;
        // `enum: [true]` is a constant as `const: true` is; a lone number in a list's items
        // is a set of one, stated on its named type.
        let lone_value = match map.get("enum") {
            Some(Value::Array(values)) => {
                let present: Vec<&'d Value> = values.iter().filter(|v| !v.is_null()).collect();
                match present.as_slice() {
                    [v @ Value::Bool(_)] => Some(*v),
                    [v @ Value::Number(_)] if place == Place::Whole => Some(*v),
                    _ => None,
                }
                .inspect(|_| nullable |= values.iter().any(Value::is_null))
            }
            _ => None,
        };
        if let Some(constant) = map.get("const").or(lone_value) {
            let pointer = if map.contains_key("const") {
                "const"
            } else {
                "enum"
            };
            return match (constant, place) {
                (Value::String(s), Place::Whole) => (Ty::Constant(s.clone()), nullable),
                (Value::Bool(b), Place::Whole) => {
                    (Ty::ScalarConstant(ScalarValue::Bool(*b)), nullable)
                }
                (Value::Number(n), Place::Whole) if n.as_i64().is_some() => (
                    Ty::ScalarConstant(ScalarValue::Int(n.as_i64().unwrap_or_default())),
                    nullable,
                ),
                (Value::String(s), Place::Inner | Place::Item) => {
                    let name = self.types.type_name(hint);
                    self.inline_enum(&name, std::slice::from_ref(s), schema);
                    (Ty::Named(name), nullable)
                }
                _ => {
                    markers.push(self.lose(
                        &join(at, pointer),
                        format!("the constant {constant}"),
                        "its type",
                    ));
                    (
                        builtin_of(types.first().map(String::as_str), map, usage),
                        nullable,
                    )
                }
            };
        }
        if let Some(values) = string_enum(schema) {
            let has_null = map
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(Value::is_null));
            if values.len() == 1 && place == Place::Whole {
                return (Ty::Constant(values[0].clone()), nullable || has_null);
            }
            let name = self.types.type_name(hint);
            self.inline_enum(&name, &values, schema);
            return (Ty::Named(name), nullable || has_null);
        }
        if types.len() > 1 {
            let members = types
                .iter()
                .map(|t| {
                    let hint = format!("{hint}_{t}");
                    let kind = Some(t.as_str());
                    self.typed(
                        kind,
                        schema,
                        map,
                        at,
                        &hint,
                        Place::Inner,
                        usage,
                        markers,
                        depth,
                    )
                    .0
                })
                .collect();
            return (Ty::union(members), nullable);
        }
        let kind = types.first().map(String::as_str);
        let (ty, null) = self.typed(kind, schema, map, at, hint, place, usage, markers, depth);
        (ty, nullable || null)
    }

    /// The type of a schema of one JSON type (`kind`, or none stated).
    #[allow(clippy::too_many_arguments)]
    fn typed(
        &mut self,
        kind: Option<&str>,
        schema: &'d Value,
        map: &'d Map<String, Value>,
        at: &str,
        hint: &str,
        place: Place,
        usage: FieldUse,
        markers: &mut Vec<Annotation>,
        depth: usize,
    ) -> (Ty, bool) {
        let nullable = false;
        match kind {
            Some("array") => {
                let items = map.get("items").unwrap_or(&ANY_SCHEMA);
                let item = self.contained(Container::List, items, at, hint, usage, markers, depth);
                (Ty::List(Box::new(item)), nullable)
            }
            Some("object") | None if map.contains_key("properties") => {
                let name = self.types.type_name(hint);
                self.inline_model(&name, schema, at);
                (Ty::Named(name), nullable)
            }
            Some("object") | None if matches!(map.get("additionalProperties"), Some(Value::Object(v)) if !v.is_empty()) =>
            {
                let values = &map["additionalProperties"];
                let value = self.contained(Container::Map, values, at, hint, usage, markers, depth);
                (Ty::Map(Box::new(value)), nullable)
            }
            // `additionalProperties: false` and no properties: only `{}`, a model of no
            // fields, where `object` would take any.
            Some("object") if closed_empty(map) => {
                let name = self.types.type_name(hint);
                self.inline_model(&name, schema, at);
                (Ty::Named(name), nullable)
            }
            Some("object") => (Ty::Builtin("object"), nullable),
            // A field that holds null and nothing else, as the spec says it.
            Some("null") if place == Place::Whole && usage == FieldUse::Body => {
                (Ty::Builtin("null"), nullable)
            }
            Some("null") => {
                markers.push(self.lose(at, "a value that is always null", "any value"));
                (Ty::any(), true)
            }
            None => (Ty::any(), nullable),
            Some(kind) => {
                let ty = builtin_of(Some(kind), map, usage);
                // A field's own open format is written as `@format` with its constraints.
                let written_as_format = matches!(place, Place::Whole | Place::Item)
                    && matches!(ty, Ty::Builtin("string" | "int" | "number"));
                // A format that is no name is marked where the constraints are written.
                if let Some(format) = map.get("format").and_then(Value::as_str)
                    && !known_format(kind, format)
                    && !written_as_format
                {
                    markers.push(self.lose(
                        &join(at, "format"),
                        format!("the format `{format}`"),
                        format!("a plain {kind}"),
                    ));
                }
                (ty, nullable)
            }
        }
    }

    /// A `$ref`: its named item, or its schema written in place.
    #[allow(clippy::too_many_arguments)]
    fn referenced(
        &mut self,
        schema: &'d Value,
        reference: &str,
        at: &str,
        hint: &str,
        place: Place,
        usage: FieldUse,
        markers: &mut Vec<Annotation>,
        depth: usize,
    ) -> (Ty, bool) {
        let nullable_here = schema.get("nullable").and_then(Value::as_bool) == Some(true);
        if let Some(Some(name)) = self.components.get(reference).cloned() {
            self.uses_type(&name);
            return (Ty::Named(name), nullable_here);
        }
        let Some((target, _)) = self.deref(schema) else {
            markers.push(self.lose(
                at,
                format!("the reference `{reference}`, which is not in the document"),
                "any value",
            ));
            return (Ty::any(), nullable_here);
        };
        if self.inlining.iter().any(|r| r == reference) {
            markers.push(self.lose(
                at,
                format!("a recursive reference to `{reference}`"),
                "any value",
            ));
            return (Ty::any(), nullable_here);
        }
        let hint = reference
            .rsplit('/')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(hint)
            .to_string();
        self.inlining.push(reference.to_string());
        let (ty, nullable) =
            self.type_of(target, reference, &hint, place, usage, markers, depth + 1);
        self.inlining.pop();
        (ty, nullable || nullable_here)
    }

    /// `items` as a list of schemas: JSON Schema's tuple, which the spec has no way to say.
    /// Under `type: array` it is written as a list of any of those schemas; with no `type`
    /// (Slack's `objs_conversation`, where an object is meant) as any of them. Marked
    /// either way.
    #[allow(clippy::too_many_arguments)]
    fn tuple(
        &mut self,
        map: &'d Map<String, Value>,
        members: &'d [Value],
        at: &str,
        hint: &str,
        usage: FieldUse,
        markers: &mut Vec<Annotation>,
        depth: usize,
    ) -> (Ty, bool) {
        let items_at = join(at, "items");
        let key = (items_at.clone(), usage);
        // The loss is its own owner, so every type that reaches the tuple reaches it.
        let loss_owner = format!("tuple {items_at}");
        self.uses_type(&loss_owner);
        // A component's tuple met again: its types and its mark are written already.
        if let Some((ty, nullable)) = self.tuples.get(&key).cloned() {
            ty.named(&mut |name| self.uses_type(name));
            return (ty, nullable);
        }
        let (one_of, nullable) =
            self.tuple_members(members, &items_at, hint, usage, markers, depth);
        let array = map.get("type").and_then(Value::as_str) == Some("array");
        let (construct, written, ty) = match array {
            true => (
                "a tuple (`items` as a list of schemas)",
                "a list of any of its schemas",
                Ty::List(Box::new(one_of)),
            ),
            false => (
                "`items` as a list of schemas, with no `type: array`",
                "any of its schemas",
                one_of,
            ),
        };
        let marker = self.as_owner(&loss_owner, |this| this.lose(&items_at, construct, written));
        markers.push(marker);
        self.tuples.insert(key, (ty.clone(), nullable));
        (ty, nullable)
    }

    /// Any of a tuple's schemas, and whether one may be null.
    fn tuple_members(
        &mut self,
        members: &'d [Value],
        items_at: &str,
        hint: &str,
        usage: FieldUse,
        markers: &mut Vec<Annotation>,
        depth: usize,
    ) -> (Ty, bool) {
        let mut nullable = false;
        let mut types = Vec::new();
        for (index, member) in members.iter().enumerate() {
            let member_at = join(items_at, &index.to_string());
            let member_hint = format!("{hint}_{}", index + 1);
            let (ty, null) = self.type_of(
                member,
                &member_at,
                &member_hint,
                Place::Inner,
                usage,
                markers,
                depth + 1,
            );
            nullable |= null;
            types.push(ty);
        }
        (Ty::union(types), nullable)
    }

    /// The type of a list's items or a map's values, marked where they may be null or are
    /// constrained: the spec's are never null, and their constraints cannot be written.
    #[allow(clippy::too_many_arguments)]
    fn contained(
        &mut self,
        container: Container,
        schema: &'d Value,
        at: &str,
        hint: &str,
        usage: FieldUse,
        markers: &mut Vec<Annotation>,
        depth: usize,
    ) -> Ty {
        let (key, suffix, construct, written) = match container {
            Container::List => (
                "items",
                "item",
                "null items in a list",
                "items that are never null",
            ),
            Container::Map => (
                "additionalProperties",
                "value",
                "null values in a map",
                "values that are never null",
            ),
        };
        let inner_at = join(at, key);
        let inner_hint = format!("{hint}_{suffix}");
        let (ty, null) = self.type_of(
            schema,
            &inner_at,
            &inner_hint,
            Place::Item,
            usage,
            markers,
            depth + 1,
        );
        if null {
            markers.push(self.lose(&inner_at, construct, written));
        }
        self.constrained_inner(schema, &inner_at, &inner_hint, ty, usage)
    }

    /// Marks the enum `name` open: it may gain values, kept as they come.
    fn open_enum(&mut self, name: &str) {
        for item in &mut self.type_items {
            if let ItemKind::Enum(decl) = &mut item.kind
                && decl.name.text == name
            {
                decl.open = Some(Span::default());
            }
        }
    }

    fn inline_model(&mut self, name: &str, schema: &'d Value, at: &str) {
        self.uses_type(name);
        let mut attrs = self.item_attrs(schema, at);
        let (decl, markers) = self.as_owner(name, |this| this.model_decl(name, schema, at));
        attrs.annotations.extend(markers);
        self.type_items.push(item(attrs, ItemKind::Model(decl)));
    }

    fn inline_enum(&mut self, name: &str, values: &[String], schema: &Value) {
        self.uses_type(name);
        self.enum_names.insert(name.to_string());
        let attrs = Attrs {
            doc: description(schema),
            annotations: Vec::new(),
        };
        self.type_items
            .push(item(attrs, ItemKind::Enum(enum_decl(name, values))));
    }
}

/// What holds an inner type: a list (its `items`) or a map (its `additionalProperties`).
#[derive(Clone, Copy)]
enum Container {
    List,
    Map,
}

/// How a field is used, which decides what its constraints may be.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldUse {
    Body,
    Param,
    Header,
}

/// The values of a union whose every member is one constant, all strings or all whole
/// numbers (`oneOf: [{const: 1, title: "GUILD_TEXT"}, …]`): an enum. Answers the values,
/// whether they are numbers, and whether `null` is a member.
fn constants_of(members: &[Value]) -> Option<(Vec<String>, bool, bool)> {
    let mut values = Vec::new();
    let mut null = false;
    let mut ints = 0;
    for member in members {
        if member.get("type").and_then(Value::as_str) == Some("null") {
            null = true;
            continue;
        }
        let constant = constant_of(member)?;
        if constant.is_i64() {
            ints += 1;
        } else if !constant.is_string() {
            return None;
        }
        let text = match constant {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if values.contains(&text) {
            return None;
        }
        values.push(text);
    }
    let int = ints == values.len();
    // One string constant is a constant; one whole number, an enum of one value.
    let enough = values.len() > 1 || (int && values.len() == 1);
    (enough && (int || ints == 0)).then_some((values, int, null))
}

fn constant_of(member: &Value) -> Option<&Value> {
    member.get("const").or_else(|| {
        member
            .get("enum")
            .and_then(Value::as_array)
            .filter(|v| v.len() == 1)
            .and_then(|v| v.first())
    })
}

/// The JSON types a value of `ty` may have, to tell a constraint that says nothing about
/// it (a `maxLength` on a number) from one the spec leaves out.
fn json_kinds(ty: &Ty, enums: &std::collections::BTreeSet<String>) -> Vec<&'static str> {
    match ty {
        Ty::Builtin("int" | "number") | Ty::ScalarConstant(ScalarValue::Int(_)) => vec!["number"],
        Ty::ScalarConstant(ScalarValue::Bool(_)) => vec!["boolean"],
        Ty::Builtin("bool") => vec!["boolean"],
        Ty::Builtin("any") => vec!["any"],
        Ty::Builtin("object") | Ty::Map(_) => vec!["object"],
        Ty::Builtin(_) | Ty::Constant(_) | Ty::NotShown(_) => vec!["string"],
        Ty::Named(name) if enums.contains(name) => vec!["string", "number"],
        Ty::Named(_) => vec!["object"],
        Ty::List(_) => vec!["array"],
        Ty::Union(members) => members.iter().flat_map(|m| json_kinds(m, enums)).collect(),
    }
}

/// A schema that only annotates (a description, `nullable`, an example): it constrains no
/// value.
fn annotation_only(schema: &Value) -> bool {
    schema
        .as_object()
        .is_some_and(|map| map.keys().all(|k| is_annotation(k)))
}

/// A keyword that says nothing of a schema's values.
fn is_annotation(keyword: &str) -> bool {
    const ANNOTATIONS: &[&str] = &[
        "nullable",
        "description",
        "title",
        "deprecated",
        "example",
        "examples",
        "default",
        "readOnly",
        "writeOnly",
        "externalDocs",
    ];
    ANNOTATIONS.contains(&keyword) || keyword.starts_with("x-")
}

/// `{"type": "object"}` and annotations: a part of an `allOf` that adds nothing to the
/// object another part states (Asana writes one beside each `$ref`).
fn bare_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema
            .as_object()
            .is_some_and(|map| map.keys().all(|k| k == "type" || is_annotation(k)))
}

/// An object part of an `allOf` that only makes fields of the others required
/// (`{"type": "object", "required": ["assignee"]}`).
fn refines_object(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    let object = map.get("type").is_none_or(|t| t.as_str() == Some("object"));
    object
        && map.contains_key("required")
        && map
            .keys()
            .all(|k| k == "type" || k == "required" || is_annotation(k))
}

/// Whether a component schema becomes an item of its own (a model or an enum).
fn is_named(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    if string_enum(schema).is_some_and(|v| v.len() > 1) {
        return true;
    }
    let (types, _) = declared_types(map);
    let object = types.is_empty() || types == ["object"];
    object
        && (map.contains_key("properties")
            || closed_empty(map)
            || (map.contains_key("allOf")
                && !map.contains_key("oneOf")
                && !map.contains_key("anyOf")))
}

/// An object that may hold no field: `additionalProperties: false` and no properties.
fn closed_empty(map: &Map<String, Value>) -> bool {
    map.get("additionalProperties") == Some(&Value::Bool(false))
        && !map.contains_key("properties")
        && !map.contains_key("allOf")
        && !map.contains_key("anyOf")
        && !map.contains_key("oneOf")
}

/// The string values of a closed set of strings.
fn string_enum(schema: &Value) -> Option<Vec<String>> {
    let values = schema.get("enum")?.as_array()?;
    let strings: Vec<String> = values
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<_>>()?;
    let mut unique = Vec::new();
    for s in strings {
        if !unique.contains(&s) {
            unique.push(s);
        }
    }
    (!unique.is_empty()).then_some(unique)
}

/// `type` as a list (3.1 allows several), and whether `null` is among them.
fn declared_types(map: &Map<String, Value>) -> (Vec<String>, bool) {
    let mut types = match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let nullable = types.iter().any(|t| t == "null");
    if types.len() > 1 {
        types.retain(|t| t != "null");
    }
    if types.is_empty()
        && (map.contains_key("properties") || map.contains_key("additionalProperties"))
    {
        types.push("object".to_string());
    }
    if types.is_empty() && map.get("items").is_some_and(Value::is_object) {
        types.push("array".to_string());
    }
    (
        types,
        nullable && !(map.get("type") == Some(&Value::String("null".into()))),
    )
}

fn builtin_of(kind: Option<&str>, map: &Map<String, Value>, usage: FieldUse) -> Ty {
    let format = map.get("format").and_then(Value::as_str).unwrap_or("");
    let media = map.get("contentMediaType").is_some() || map.get("contentEncoding").is_some();
    Ty::Builtin(match kind {
        Some("integer") => "int",
        Some("number") => "number",
        Some("boolean") => "bool",
        Some("file") => "bytes",
        Some("string") => match format {
            "uuid" => "uuid",
            "date" => "date",
            "date-time" => "datetime",
            "email" => "email",
            "uri" | "url" => "uri",
            "byte" => "bytes",
            "binary" if usage == FieldUse::Body => "bytes",
            _ if media && usage == FieldUse::Body => "bytes",
            _ => "string",
        },
        Some("object") => "object",
        _ => "any",
    })
}

/// Formats the spec states (or that mean nothing beyond their type).
fn known_format(kind: &str, format: &str) -> bool {
    match kind {
        "integer" => matches!(
            format,
            "int32" | "int64" | "int8" | "int16" | "uint8" | "uint32" | "uint64" | "integer"
        ),
        "number" => matches!(format, "float" | "double" | "number"),
        "string" => matches!(
            format,
            "uuid"
                | "date"
                | "date-time"
                | "email"
                | "uri"
                | "url"
                | "byte"
                | "binary"
                | "password"
                | ""
        ),
        _ => true,
    }
}

/// A schema's (or an operation part's) description, trimmed; none when empty.
pub(crate) fn description(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string)
}

fn enum_decl(name: &str, values: &[String]) -> EnumDecl {
    EnumDecl {
        name: ident(name),
        open: None,
        repr: None,
        parent: None,
        members: values
            .iter()
            .map(|v| {
                member(
                    Attrs::default(),
                    EnumMember::Value(EnumValue {
                        text: v.clone(),
                        span: Span::default(),
                        is_int: false,
                    }),
                )
            })
            .collect(),
    }
}

/// A bound as the language writes it; an exclusive integer bound moves one inward.
fn number_value(bound: &Value, exclusive: bool, keyword: &str, int: bool) -> Option<AstValue> {
    let lower = keyword.contains("in") && !keyword.contains("max");
    if let Some(n) = bound.as_i64() {
        let n = match (exclusive, int, lower) {
            (false, _, _) => n,
            (true, true, true) => n.checked_add(1)?,
            (true, true, false) => n.checked_sub(1)?,
            (true, false, _) => return None,
        };
        return Some(value(ValueKind::Int(n)));
    }
    let f = bound.as_f64()?;
    if exclusive || !f.is_finite() {
        return None;
    }
    Some(value(ValueKind::Float(f)))
}

/// A default or constant as the language writes it, when it fits `ty`.
fn literal(json: &Value, ty: &Ty, enums: &std::collections::BTreeSet<String>) -> Option<AstValue> {
    match (json, ty) {
        (Value::Bool(b), Ty::Builtin("bool")) => Some(value(ValueKind::Bool(*b))),
        (Value::Number(n), Ty::Builtin("int")) => n.as_i64().map(|n| value(ValueKind::Int(n))),
        (Value::Number(n), Ty::Builtin("number")) => Some(match n.as_i64() {
            Some(i) => value(ValueKind::Int(i)),
            None => value(ValueKind::Float(n.as_f64()?)),
        }),
        (Value::String(s), Ty::Builtin("string")) => Some(str_value(s.clone())),
        (Value::String(s), Ty::Constant(c)) if s == c => Some(str_value(s.clone())),
        (Value::String(s), Ty::Named(name)) if enums.contains(name) => {
            if covenant_codegen::print::is_identifier(s) {
                Some(reference(s.clone()))
            } else {
                Some(str_value(s.clone()))
            }
        }
        (_, Ty::Union(members)) => members.iter().find_map(|m| literal(json, m, enums)),
        (Value::Array(items), Ty::List(inner)) => {
            let items: Option<Vec<AstValue>> =
                items.iter().map(|i| literal(i, inner, enums)).collect();
            Some(value(ValueKind::List(items?)))
        }
        _ => None,
    }
}

/// Whether the spec's checker takes this regular expression (ECMA-262 in JSON Schema; the
/// common part with Rust's `regex` syntax).
fn valid_pattern(pattern: &str) -> bool {
    regex::Regex::new(pattern).is_ok()
}

/// The one member that is not `null` of `anyOf`/`oneOf`, with its index.
fn lone_non_null(members: &[Value]) -> Option<(usize, &Value)> {
    let mut others = members
        .iter()
        .enumerate()
        .filter(|(_, m)| m.get("type").and_then(Value::as_str) != Some("null"));
    let only = others.next()?;
    (others.next().is_none() && members.len() > 1).then_some(only)
}

/// `anyOf: [T, {type: null}]` of a schema of no type of its own: the keyword, `T`'s index and
/// `T`, whose constraints and format are the field's.
fn nullable_member(schema: &Value) -> Option<(&'static str, usize, &Value)> {
    let map = schema.as_object()?;
    if map.contains_key("type") || map.contains_key("properties") {
        return None;
    }
    ["anyOf", "oneOf"].into_iter().find_map(|keyword| {
        let members = map.get(keyword)?.as_array()?;
        let (index, member) = lone_non_null(members)?;
        Some((keyword, index, member))
    })
}

/// A name the spec can write bare, as an annotation's argument.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A length bound every value of the type already keeps: a uuid's 36 characters, or each
/// value of an enum. Stating the type states the bound.
fn held_by_every_value(schema: &Value, ty: &Ty, keyword: &str, bound: &Value) -> bool {
    let Some(bound) = bound.as_u64() else {
        return false;
    };
    let lengths: Vec<u64> = if matches!(ty, Ty::Builtin("uuid")) {
        vec![36]
    } else {
        let Some(values) = schema.get("enum").and_then(Value::as_array) else {
            return false;
        };
        let texts: Option<Vec<u64>> = values
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| v.as_str().map(|s| s.chars().count() as u64))
            .collect();
        match texts {
            Some(lengths) if !lengths.is_empty() => lengths,
            _ => return false,
        }
    };
    match keyword {
        "minLength" => lengths.iter().all(|n| *n >= bound),
        "maxLength" => lengths.iter().all(|n| *n <= bound),
        _ => false,
    }
}
