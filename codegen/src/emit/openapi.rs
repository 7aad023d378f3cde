//! OpenAPI 3.1 documents, one per API of the spec, with the events under `webhooks` of the
//! first API. Schemas are the JSON Schema builder's, referenced as components.

use super::Files;
use super::schema::{
    RefStyle, SchemaBuilder, add_constraints, deprecation_json, description, put_source,
};
use crate::ir::shapes::{Shape, Shapes, in_shape};
use crate::ir::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

mod security;

pub fn documents(spec: &Spec) -> Files {
    let shapes = Shapes::new(spec);
    let builder = SchemaBuilder {
        spec,
        shapes: &shapes,
        style: RefStyle::Components,
    };
    let mut files = Files::new();
    let events_api = spec.endpoints.first().map(|e| e.api);
    for (i, api) in spec.apis.iter().enumerate() {
        let id = ApiId(i as u32);
        let endpoints: Vec<&Endpoint> = spec.endpoints.iter().filter(|e| e.api == id).collect();
        if endpoints.is_empty() {
            continue;
        }
        let doc = Document {
            spec,
            builder: &builder,
            api,
            endpoints,
            with_events: events_api == Some(id),
        };
        files.insert(
            format!("openapi/{}.json", api.name),
            super::tree::json_text(&doc.build()),
        );
    }
    files
}

struct Document<'a> {
    spec: &'a Spec,
    builder: &'a SchemaBuilder<'a>,
    api: &'a Api,
    endpoints: Vec<&'a Endpoint>,
    with_events: bool,
}

impl Document<'_> {
    fn build(&self) -> Value {
        let spec = self.spec;
        let title = spec
            .service
            .title
            .clone()
            .unwrap_or_else(|| spec.service.name.clone());
        let mut info = Map::new();
        info.insert(
            "title".into(),
            json!(format!("{title}: {} API", self.api.name)),
        );
        info.insert(
            "version".into(),
            json!(spec.service.version.clone().unwrap_or_else(|| "0".into())),
        );
        let info_doc = [self.api.doc.clone(), spec.service.doc.clone()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>();
        if !info_doc.is_empty() {
            info.insert("description".into(), json!(info_doc.join("\n\n")));
        }
        let mut doc = Map::new();
        doc.insert("openapi".into(), json!("3.1.0"));
        // OpenAPI 3.1's own dialect is the default: naming it makes strict validators
        // (Optic's) refuse the document.
        doc.insert("info".into(), Value::Object(info));
        doc.insert("servers".into(), json!([self.server()]));
        doc.insert("tags".into(), self.tags());
        doc.insert("paths".into(), self.paths());
        if self.with_events && !spec.events.is_empty() {
            doc.insert("webhooks".into(), self.webhooks());
        }
        let mut components = Map::new();
        components.insert("schemas".into(), self.component_schemas());
        components.insert("securitySchemes".into(), self.security_schemes());
        doc.insert("components".into(), Value::Object(components));
        if !self.api.gates.is_empty() {
            doc.insert("x-gates".into(), gates_json(&self.api.gates));
        }
        if self.with_events {
            let open: Vec<Value> = spec
                .not_shown
                .iter()
                .filter(|n| n.owner == "spec")
                .map(|n| json!(n.what))
                .collect();
            if !open.is_empty() {
                doc.insert("x-not-shown".into(), Value::Array(open));
            }
            // Limits that govern no endpoint in particular: the service as a whole.
            let general: Vec<Value> = spec
                .limits
                .iter()
                .filter(|l| l.applies_to.is_empty())
                .map(|l| self.limit_json(l, None))
                .collect();
            if !general.is_empty() {
                doc.insert("x-limits".into(), Value::Array(general));
            }
        }
        Value::Object(doc)
    }

    /// The limits that govern an endpoint or one of its inputs, one entry per target.
    fn limits_of(&self, ep: &Endpoint) -> Vec<Value> {
        let mut out = Vec::new();
        for limit in &self.spec.limits {
            for target in &limit.applies_to {
                if self.spec.endpoint(target.endpoint).name == ep.name {
                    out.push(self.limit_json(limit, Some((ep, target.param.as_deref()))));
                }
            }
        }
        out
    }

    /// One limit: its name, what it says, its value (a quantity, the constraints of the input
    /// it governs, or a note that the source does not show it) and where it comes from.
    fn limit_json(&self, limit: &Limit, target: Option<(&Endpoint, Option<&str>)>) -> Value {
        let mut out = Map::new();
        out.insert("name".into(), json!(limit.name));
        if let Some(doc) = &limit.doc {
            out.insert("description".into(), json!(doc));
        }
        if let Some((_, Some(input))) = target {
            out.insert("input".into(), json!(input));
        }
        match &limit.value {
            LimitValue::Quantity(q) => {
                out.insert("value".into(), json!(q.to_string()));
            }
            LimitValue::NotShown(what) => {
                out.insert("x-not-shown".into(), json!(what));
            }
            LimitValue::FromConstraints => {
                let field = target.and_then(|(ep, input)| self.input_field(ep, input?));
                if let Some(f) = field {
                    let mut constraints = Map::new();
                    add_constraints(&mut constraints, &f.constraints, &f.ty);
                    if let Some(d) = &f.default {
                        constraints.insert("default".into(), d.to_json());
                    }
                    out.insert("constraints".into(), Value::Object(constraints));
                }
            }
        }
        put_source(&mut out, limit.provenance);
        Value::Object(out)
    }

    /// A parameter of the endpoint, or a field of its request body, by name.
    fn input_field<'e>(&'e self, ep: &'e Endpoint, name: &str) -> Option<&'e Field> {
        if let Some(p) = ep.params.iter().find(|p| p.field.name == name) {
            return Some(&p.field);
        }
        match &ep.body {
            Some(Type::Model(id)) => self
                .spec
                .model(*id)
                .fields
                .iter()
                .find(|f| f.name == name && in_shape(f, Shape::Request)),
            _ => None,
        }
    }

    fn server(&self) -> Value {
        let base = &self.api.base_url;
        let variables: Map<String, Value> = crate::ir::placeholders(base)
            .into_iter()
            .map(|name| {
                let description = format!("The address the document calls `{{{name}}}`.");
                (
                    name,
                    json!({ "default": "http://localhost:8080", "description": description }),
                )
            })
            .collect();
        if variables.is_empty() {
            json!({ "url": base })
        } else {
            json!({ "url": base, "variables": variables })
        }
    }

    fn tags(&self) -> Value {
        let tags: BTreeSet<&str> = self
            .endpoints
            .iter()
            .flat_map(|e| e.tags.iter().map(String::as_str))
            .collect();
        Value::Array(tags.into_iter().map(|t| json!({ "name": t })).collect())
    }

    fn paths(&self) -> Value {
        let mut paths = Map::new();
        for ep in &self.endpoints {
            let item = paths.entry(ep.path.clone()).or_insert_with(|| json!({}));
            if let Value::Object(item) = item {
                item.insert(ep.method.as_str().to_lowercase(), self.operation(ep));
            }
        }
        Value::Object(paths)
    }

    fn operation(&self, ep: &Endpoint) -> Value {
        let mut op = Map::new();
        op.insert("operationId".into(), json!(ep.name));
        op.insert("summary".into(), json!(summary(ep)));
        let safe = ep
            .safe_to_repeat
            .as_ref()
            .map(|why| format!("Safe to repeat: {}.", why.trim_end_matches('.')));
        // Tools that ignore `x-deprecation` (Redoc, Swagger UI) show the description.
        let deprecated = ep.deprecated.as_ref().map(deprecation_text);
        let doc = [deprecated, ep.doc.clone(), safe]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n\n");
        if let Some(d) = description(
            Some(&doc).filter(|d| !d.is_empty()).map(String::as_str),
            &ep.not_shown,
        ) {
            op.insert("description".into(), json!(d));
        }
        if !ep.tags.is_empty() {
            op.insert("tags".into(), json!(ep.tags));
        }
        if let Some(dep) = &ep.deprecated {
            op.insert("deprecated".into(), json!(true));
            op.insert("x-deprecation".into(), deprecation_json(dep));
        }
        let params: Vec<Value> = ep.params.iter().map(|p| self.parameter(p)).collect();
        if !params.is_empty() {
            op.insert("parameters".into(), Value::Array(params));
        }
        let body_schema = match ep.body_media {
            BodyMedia::Multipart => self.builder.multipart_schema(ep),
            _ => self.builder.request_body_schema(ep).map(on_the_wire),
        };
        if let Some(schema) = body_schema {
            // The same value in every media type the body may come in.
            let mut content: Map<String, Value> = std::iter::once(ep.body_media.content_type())
                .chain(ep.body_also.iter().map(String::as_str))
                .map(|media| (media.to_string(), json!({ "schema": schema })))
                .collect();
            if let (Some(encoding), Some(Value::Object(form))) = (
                self.form_encoding(ep),
                content.get_mut(ep.body_media.content_type()),
            ) {
                form.insert("encoding".into(), encoding);
            }
            op.insert(
                "requestBody".into(),
                json!({ "required": true, "content": content }),
            );
        }
        op.insert("responses".into(), self.responses(ep));
        op.insert("security".into(), self.security(ep));
        if !ep.gates.is_empty() {
            op.insert("x-gates".into(), gates_json(&ep.gates));
        }
        // Idempotent in the HTTP sense only; a call that is not may still be safe to repeat.
        if let Some(header) = &ep.idempotency_key {
            op.insert("x-idempotency-key".into(), json!(header));
        }
        if ep.idempotent {
            op.insert("x-idempotent".into(), json!(true));
        }
        if let Some(why) = &ep.safe_to_repeat {
            op.insert("x-safe-to-repeat".into(), json!(why));
        }
        if let Some(paging) = &ep.paging {
            op.insert("x-paging".into(), paging_json(paging));
        }
        if let Some(t) = ep.tracked_by {
            op.insert("x-tracked-by".into(), json!(self.spec.endpoint(t).name));
        }
        if let Some(reg) = &ep.registers_webhooks {
            let mut x = Map::new();
            x.insert("url".into(), json!(reg.url));
            if let Some(secret) = &reg.secret {
                x.insert("secret".into(), json!(secret.join(".")));
            }
            if let Some(id) = &reg.id {
                x.insert("id".into(), json!(id.join(".")));
            }
            if let Some(remove) = reg.remove {
                x.insert("remove".into(), json!(self.spec.endpoint(remove).name));
            }
            op.insert("x-registers-webhooks".into(), Value::Object(x));
        }
        if !ep.exactly_one_of.is_empty() {
            op.insert("x-exactly-one-of".into(), json!(ep.exactly_one_of));
            // No OpenAPI keyword spans parameters: the rule goes in the text a reader sees.
            let rules: Vec<String> = ep
                .exactly_one_of
                .iter()
                .map(|group| {
                    let names: Vec<String> = group.iter().map(|n| format!("`{n}`")).collect();
                    format!(
                        "Send exactly one of {}; otherwise the answer is 422.",
                        names.join(", ")
                    )
                })
                .collect();
            let text = op
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let description = if text.is_empty() {
                rules.join("\n\n")
            } else {
                format!("{text}\n\n{}", rules.join("\n\n"))
            };
            op.insert("description".into(), json!(description));
        }
        let limits = self.limits_of(ep);
        if !limits.is_empty() {
            op.insert("x-limits".into(), Value::Array(limits));
        }
        let rate_limits: Vec<Value> = self
            .spec
            .rate_limits
            .iter()
            .filter(|rl| {
                rl.applies_to
                    .iter()
                    .any(|id| self.spec.endpoint(*id).name == ep.name)
            })
            .map(rate_limit_json)
            .collect();
        if !rate_limits.is_empty() {
            op.insert("x-rate-limits".into(), Value::Array(rate_limits));
        }
        put_source(&mut op, ep.provenance);
        Value::Object(op)
    }

    fn parameter(&self, p: &Param) -> Value {
        let mut out = Map::new();
        out.insert("name".into(), json!(p.field.name));
        out.insert("in".into(), json!(p.location.as_str()));
        self.describe_value(&mut out, &p.field, Shape::Request);
        if let Some(style) = style_of(p.field.encoding, false) {
            out.extend(style);
        }
        Value::Object(out)
    }

    /// A form body's `encoding`: how each field holding a list or an object is written.
    fn form_encoding(&self, ep: &Endpoint) -> Option<Value> {
        let (BodyMedia::Form, Some(Type::Model(id))) = (&ep.body_media, &ep.body) else {
            return None;
        };
        let fields: Map<String, Value> = self
            .spec
            .model(*id)
            .fields
            .iter()
            .filter_map(|f| {
                let structured = crate::ir::object_in(&f.ty).is_some();
                let style = style_of(f.encoding, structured)?;
                Some((f.name.clone(), Value::Object(style)))
            })
            .collect();
        (!fields.is_empty()).then_some(Value::Object(fields))
    }

    /// A response header object: `required`, its description and its schema.
    fn response_header(&self, h: &Field) -> Value {
        let mut out = Map::new();
        self.describe_value(&mut out, h, Shape::Response);
        Value::Object(out)
    }

    /// What a parameter and a header object share: `required`, the description, deprecation
    /// and source taken out of the schema beside it, and the schema.
    fn describe_value(&self, out: &mut Map<String, Value>, field: &Field, shape: Shape) {
        let mut schema = self.builder.field_schema(field, shape);
        out.insert("required".into(), json!(!field.presence.may_be_absent()));
        if let Some(obj) = schema.as_object_mut() {
            if let Some(d) = obj.remove("description") {
                out.insert("description".into(), d);
            }
            if obj.remove("deprecated").is_some() {
                out.insert("deprecated".into(), json!(true));
            }
            if let Some(source) = obj.remove("x-source") {
                out.insert("x-source".into(), source);
            }
        }
        out.insert("schema".into(), schema);
    }

    fn responses(&self, ep: &Endpoint) -> Value {
        let mut out = Map::new();
        for r in crate::ir::all_responses(self.spec, ep) {
            let fallback = if r.status.is_success() {
                "Success."
            } else {
                "Error."
            };
            let mut resp = Map::new();
            resp.insert(
                "description".into(),
                json!(r.doc.clone().unwrap_or_else(|| fallback.to_string())),
            );
            if let Some(schema) = self.builder.response_body_schema(r) {
                let schema = match &r.media {
                    BodyMedia::Stream(media) => streamed(schema, media),
                    _ => on_the_wire(schema),
                };
                let mut content = Map::new();
                for media in std::iter::once(r.media.content_type())
                    .chain(r.also_media.iter().map(String::as_str))
                {
                    content.insert(media.to_string(), json!({ "schema": schema.clone() }));
                }
                resp.insert("content".into(), Value::Object(content));
            }
            if !r.headers.is_empty() {
                let headers: Map<String, Value> = r
                    .headers
                    .iter()
                    .map(|h| (h.name.clone(), self.response_header(h)))
                    .collect();
                resp.insert("headers".into(), Value::Object(headers));
            }
            put_source(&mut resp, r.provenance);
            out.insert(r.status.to_string(), Value::Object(resp));
        }
        Value::Object(out)
    }

    fn webhooks(&self) -> Value {
        let mut out = Map::new();
        for event in &self.spec.events {
            let mut op = Map::new();
            op.insert("operationId".into(), json!(event.name));
            op.insert("summary".into(), json!(event.pattern));
            if let Some(d) = &event.doc {
                op.insert("description".into(), json!(d));
            }
            op.insert(
                "requestBody".into(),
                json!({ "required": true, "content": { "application/json": { "schema": self.builder.event_schema(event) } } }),
            );
            op.insert(
                "responses".into(),
                json!({ "200": { "description": "Received." } }),
            );
            // A delivery carries no credential of the receiver's: it is signed, if at all.
            op.insert("security".into(), json!([]));
            if let Some(dep) = &event.deprecated {
                op.insert("deprecated".into(), json!(true));
                op.insert("x-deprecation".into(), deprecation_json(dep));
            }
            put_source(&mut op, event.provenance);
            if let Some(signing) = self.spec.event_signing {
                put_signing(&mut op, signing);
            }
            out.insert(event.name.clone(), json!({ "post": Value::Object(op) }));
        }
        Value::Object(out)
    }

    /// The model shapes and enums this document reaches, in declaration order.
    fn component_schemas(&self) -> Value {
        let mut reach = Reach::default();
        for ep in &self.endpoints {
            for p in &ep.params {
                reach.ty(self.spec, self.builder.shapes, &p.field.ty, Shape::Request);
            }
            match (&ep.body, &ep.body_media) {
                // A multipart body is written in place, part by part: its model is no
                // component, the types of its parts are.
                (Some(Type::Model(id)), BodyMedia::Multipart) => {
                    for f in &self.spec.model(*id).fields {
                        reach.ty(self.spec, self.builder.shapes, &f.ty, Shape::Request);
                    }
                }
                (Some(b), _) => reach.ty(self.spec, self.builder.shapes, b, Shape::Request),
                (None, _) => {}
            }
            let api_errors = self.api.errors.iter();
            for r in ep.responses.iter().chain(&ep.errors).chain(api_errors) {
                if let Some(b) = &r.body {
                    reach.ty(self.spec, self.builder.shapes, b, Shape::Response);
                }
                // A header may hold an enum, referenced as a component too.
                for h in &r.headers {
                    reach.ty(self.spec, self.builder.shapes, &h.ty, Shape::Response);
                }
            }
        }
        if self.with_events {
            for event in &self.spec.events {
                for f in &event.fields {
                    reach.ty(self.spec, self.builder.shapes, &f.ty, Shape::Response);
                }
                for (_, id) in &event.placeholders {
                    reach.enums.insert(*id);
                }
            }
            // Each event's schema holds the envelope's fields in place: the envelope is no
            // component, the types of its fields are.
            if let Some(env) = self.spec.envelope {
                for f in &self.spec.model(env).fields {
                    reach.ty(self.spec, self.builder.shapes, &f.ty, Shape::Response);
                }
            }
        }
        let mut out = Map::new();
        for (id, shape) in self.builder.shapes.all() {
            if reach.models.contains(&(id, self.canonical(id, shape)))
                && self.canonical(id, shape) == shape
            {
                out.insert(
                    self.builder.shapes.name(id, shape),
                    self.builder.model_schema(id, shape),
                );
            }
        }
        for (i, e) in self.spec.enums.iter().enumerate() {
            if reach.enums.contains(&EnumId(i as u32)) {
                out.insert(e.name.clone(), self.builder.enum_schema(e));
            }
        }
        for (i, u) in self.spec.unions.iter().enumerate() {
            if reach.unions.contains(&UnionId(i as u32)) {
                out.insert(u.name.clone(), self.builder.union_schema(u));
            }
        }
        Value::Object(out)
    }

    /// Models without variants have one schema, filed under the response shape.
    fn canonical(&self, id: ModelId, shape: Shape) -> Shape {
        if self.builder.shapes.has_variants(id) {
            shape
        } else {
            Shape::Response
        }
    }
}

/// Model shapes and enums reachable from some roots.
#[derive(Default)]
struct Reach {
    models: BTreeSet<(ModelId, Shape)>,
    enums: BTreeSet<EnumId>,
    unions: BTreeSet<UnionId>,
}

impl Reach {
    fn ty(&mut self, spec: &Spec, shapes: &Shapes, ty: &Type, shape: Shape) {
        match ty {
            Type::Model(id) => {
                let key = (
                    *id,
                    if shapes.has_variants(*id) {
                        shape
                    } else {
                        Shape::Response
                    },
                );
                if self.models.insert(key) {
                    for f in spec.model(*id).fields.iter().filter(|f| in_shape(f, shape)) {
                        self.ty(spec, shapes, &f.ty, shape);
                    }
                }
            }
            Type::Enum(id) => {
                self.enums.insert(*id);
            }
            Type::List(inner, _) | Type::Map(inner, _) => self.ty(spec, shapes, inner, shape),
            Type::Union(types) => types.iter().for_each(|t| self.ty(spec, shapes, t, shape)),
            // A declared union reads its members in the response shape, as its type does.
            Type::NamedUnion(id) if self.unions.insert(*id) => {
                for t in &spec.union(*id).members {
                    self.ty(spec, shapes, t, Shape::Response);
                }
            }
            _ => {}
        }
    }
}

/// A body's schema as the bytes travel: bytes written as they are are no base64.
/// A streamed list as OpenAPI 3.1 can say it: text whose items are each of the list's item
/// schema (`x-item-schema`, as OpenAPI 3.2 writes `itemSchema`).
fn streamed(mut list: Value, media: &str) -> Value {
    let items = list
        .as_object_mut()
        .and_then(|o| o.remove("items"))
        .unwrap_or(json!({}));
    let framing = if media.to_ascii_lowercase().starts_with("text/event-stream") {
        "server-sent events, each event's `data` one item"
    } else {
        "JSON lines, one item per line"
    };
    json!({
        "type": "string",
        "description": format!("A stream of {framing}."),
        "x-item-schema": items,
    })
}

fn on_the_wire(mut schema: Value) -> Value {
    if let Some(obj) = schema.as_object_mut()
        && obj.contains_key("contentMediaType")
    {
        obj.remove("contentEncoding");
    }
    schema
}

fn gates_json(gates: &[Gate]) -> Value {
    Value::Array(
        gates
            .iter()
            .map(|g| match g {
                Gate::Feature(f) => {
                    json!({ "feature": f, "note": "Disabled until enabled for the team." })
                }
                Gate::Plan(p) => json!({ "plan": p }),
            })
            .collect(),
    )
}

fn rate_limit_json(rl: &RateLimit) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(rl.name));
    if let Some(doc) = &rl.doc {
        out.insert("description".into(), json!(doc));
    }
    if let Some(per) = &rl.per {
        out.insert("per".into(), json!(per));
    }
    let tiers: Vec<Value> = rl
        .tiers
        .iter()
        .map(|t| {
            let mut tier = Map::new();
            if t.is_default {
                tier.insert("default".into(), json!(true));
            }
            if let Some(doc) = &t.doc {
                tier.insert("description".into(), json!(doc));
            }
            if let Some(n) = t.providers {
                tier.insert("providers".into(), json!(n));
            }
            if let Some(n) = t.concurrent {
                tier.insert("concurrent".into(), json!(n));
            }
            if let Some(n) = t.count {
                tier.insert("count".into(), json!(n));
            }
            if let Some(w) = &t.window {
                tier.insert("per".into(), json!(w.to_string()));
            }
            if let Some(note) = &t.note {
                tier.insert("note".into(), json!(note));
            }
            if !t.assigned.is_empty() {
                tier.insert("assigned".into(), json!(t.assigned));
            }
            crate::emit::schema::put_source(&mut tier, t.provenance);
            Value::Object(tier)
        })
        .collect();
    out.insert("tiers".into(), Value::Array(tiers));
    if !rl.not_shown.is_empty() {
        out.insert("x-not-shown".into(), json!(rl.not_shown));
    }
    put_source(&mut out, rl.provenance);
    Value::Object(out)
}

fn paging_json(p: &Paging) -> Value {
    let dotted = |path: &crate::ir::FieldPath| path.join(".");
    match p {
        Paging::Page { page, size, items } => {
            json!({ "style": "page", "page": page, "size": size, "items": dotted(items) })
        }
        Paging::Offset {
            offset,
            limit,
            items,
        } => {
            json!({ "style": "offset", "offset": offset, "limit": limit, "items": dotted(items) })
        }
        Paging::Cursor { param, next, items } => {
            json!({ "style": "cursor", "cursor": param, "next": dotted(next), "items": dotted(items) })
        }
        Paging::NextUrl { next, items } => {
            json!({ "style": "next_url", "next_url": dotted(next), "items": dotted(items) })
        }
        Paging::Link { header, items } => {
            json!({ "style": "link", "header": header, "items": items.as_ref().map(dotted) })
        }
        Paging::After {
            param,
            items,
            id,
            more,
        } => {
            json!({ "style": "after", "after": param, "items": dotted(items), "id": id, "more": more.as_ref().map(dotted) })
        }
    }
}

/// The headers that sign a delivery, as the webhook's parameters, and the scheme by name.
fn put_signing(op: &mut Map<String, Value>, signing: crate::ir::EventSigning) {
    let headers: Vec<Value> = crate::ir::signing_headers(signing)
        .iter()
        .map(|(name, description)| {
            json!({
                "name": name,
                "in": "header",
                "required": true,
                "description": description,
                "schema": { "type": "string" },
            })
        })
        .collect();
    op.insert("parameters".into(), Value::Array(headers));
    op.insert(
        "x-webhook-signing".into(),
        json!(signing.name().replace('_', "-")),
    );
}

/// An operation's summary: the first sentence of its doc comment (a doc's first line may
/// stop mid-sentence), else words made of its name (`create_user`: "Create user").
fn summary(ep: &Endpoint) -> String {
    let first_paragraph = ep
        .doc
        .as_deref()
        .and_then(|d| d.split("\n\n").next())
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty());
    match first_paragraph {
        Some(paragraph) => match paragraph.find(". ") {
            Some(end) => paragraph[..=end].to_string(),
            None => paragraph,
        },
        None => {
            let words = ep.name.replace('_', " ");
            let mut chars = words.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => words,
            }
        }
    }
}

/// A deprecation in words, for descriptions: `Deprecated: note. Use x instead. Removed on D.`
fn deprecation_text(dep: &Deprecation) -> String {
    let mut text = String::from("**Deprecated**");
    if let Some(note) = &dep.note {
        text.push_str(&format!(": {}.", note.trim_end_matches('.')));
    } else {
        text.push('.');
    }
    if let Some(replacement) = &dep.replacement {
        text.push_str(&format!(" Use `{replacement}` instead."));
    }
    if let Some(sunset) = &dep.sunset {
        text.push_str(&format!(" Removed on {sunset}."));
    }
    text
}

/// OpenAPI's `style` and `explode` for a value written as `encoding` says; `None` for its
/// default (`form`, exploded). A structured form field is written in brackets whatever it
/// says.
fn style_of(encoding: Encoding, structured: bool) -> Option<Map<String, Value>> {
    let (style, explode) = match encoding {
        _ if structured => ("deepObject", true),
        Encoding::Repeated => return None,
        Encoding::Comma => ("form", false),
        Encoding::Spaces => ("spaceDelimited", false),
        Encoding::Pipes => ("pipeDelimited", false),
        Encoding::Deep => ("deepObject", true),
    };
    Some(Map::from_iter([
        ("style".to_string(), json!(style)),
        ("explode".to_string(), json!(explode)),
    ]))
}
