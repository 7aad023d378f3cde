//! Operations of the document as endpoints: parameters, request body, responses and errors,
//! security, tags and deprecation.

use crate::build::*;
use crate::document::join;
use crate::importer::Importer;
use crate::losses::{Completeness, OperationReport};
use crate::media::{MediaKind, choose_media, is_plain_json, media_kind, plain_text};
use crate::schemas::{FieldUse, Place, description};
use crate::security::Scheme;
use crate::types::Ty;
use covenant_codegen::ast::{
    Annotation, Attrs, BodyDecl, BodyEncoding, EndpointDecl, EndpointMember, ErrorDecl, FieldDecl,
    Item, ItemKind, Member,
};
use covenant_codegen::ir::StatusPattern;
use heck::ToUpperCamelCase;
use serde_json::Value;
use std::collections::HashMap;

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

/// An operation being written, and what became of it.
pub struct Written {
    pub item: Option<Item>,
    pub report: OperationReport,
    /// A second operation on the route of an earlier endpoint (OpenAI's `/responses?beta=true`
    /// beside `/responses`): the marker that endpoint carries for it.
    pub marks_earlier: Option<Annotation>,
}

/// A route as the router sees it: the method, and the path with every placeholder segment
/// alike (names and the text beside them do not tell routes apart).
fn route_key(method: &str, path: &str) -> String {
    let segments: Vec<&str> = path
        .split('/')
        .map(|s| if s.contains('{') { "{}" } else { s })
        .collect();
    format!("{method} {}", segments.join("/"))
}

impl<'d> Importer<'d> {
    /// Names every operation's endpoint before any type is named, so the types generated
    /// code names after an endpoint (`<Endpoint>Input`, `<Endpoint>Response`) stay free.
    pub fn name_endpoints(&mut self) {
        let Some(Value::Object(paths)) = self.doc.get("paths") else {
            return;
        };
        for (path, item) in paths {
            let item = self.follow(item);
            for method in METHODS.iter().filter(|m| **m != "trace") {
                let Some(op) = item.get(*method) else {
                    continue;
                };
                let hint = op
                    .get("operationId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("{method}_{path}"));
                let name = self.endpoints.endpoint_name(&hint);
                let base = name.to_upper_camel_case();
                self.types.reserve(&format!("{base}Input"));
                self.types.reserve(&format!("{base}Response"));
                self.endpoint_names
                    .insert(join(&join("#/paths", path), method), name);
            }
        }
    }

    /// Every operation of the document, in its order.
    pub fn operations(&mut self, schemes: &mut [Scheme]) -> Vec<Written> {
        let mut out = Vec::new();
        let Some(Value::Object(paths)) = self.doc.get("paths") else {
            return out;
        };
        for (path, item) in paths {
            let path_at = join("#/paths", path);
            if let Some(file) = external_ref(item) {
                out.push(left_out(
                    &path_at,
                    "*",
                    path,
                    format!("a path item in another file (`{file}`)"),
                ));
                continue;
            }
            let item = self.follow(item);
            for method in METHODS {
                let Some(op) = item.get(*method) else {
                    continue;
                };
                let at = join(&path_at, method);
                let mut written = self.operation(path, method, item, op, &at, schemes);
                if let Some(marker) = written.marks_earlier.take() {
                    let earlier = out.iter_mut().find(|w: &&mut Written| {
                        w.item.is_some() && w.report.endpoint == written.report.endpoint
                    });
                    if let Some(Some(item)) = earlier.map(|w| w.item.as_mut()) {
                        item.attrs.annotations.push(marker);
                    }
                }
                out.push(written);
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn operation(
        &mut self,
        path: &str,
        method: &str,
        path_item: &'d Value,
        op: &'d Value,
        at: &str,
        schemes: &mut [Scheme],
    ) -> Written {
        let mut report = OperationReport {
            pointer: at.to_string(),
            method: method.to_string(),
            path: path.to_string(),
            endpoint: None,
            status: Completeness::LeftOut,
            losses: Vec::new(),
            faults: Vec::new(),
        };
        if let Some(file) = external_ref(op) {
            return left_out(
                at,
                method,
                path,
                format!("an operation in another file (`{file}`)"),
            );
        }
        if method == "trace" {
            report.losses.push(crate::losses::Loss::new(
                at,
                format!("a {} operation", method.to_uppercase()),
                "left out",
            ));
            return Written {
                item: None,
                report,
                marks_earlier: None,
            };
        }
        // `/responses?beta=true`, `/files/{id}#add_shared_link`: a query or fragment written
        // in the path tells documents' operations apart, never requests' routes.
        let (bare_path, suffix) = path.split_at(path.find(['?', '#']).unwrap_or(path.len()));
        let route = route_key(method, bare_path);
        if let Some(first) = self.routes.get(&route).cloned() {
            // Told apart by a query written in the path: requests reach the earlier endpoint,
            // which says so. Told apart by nothing: the router could not tell them apart.
            if suffix.is_empty() {
                report.losses.push(crate::losses::Loss::new(
                    at,
                    format!("a second operation on the route of `{first}`"),
                    "left out",
                ));
                return Written {
                    item: None,
                    report,
                    marks_earlier: None,
                };
            }
            let marker = self.lose(
                at,
                format!("a second operation on this route, told apart by `{suffix}`"),
                format!("`{first}`, which it reaches"),
            );
            report.losses = self
                .losses
                .last()
                .map(|(_, loss)| vec![loss.clone()])
                .unwrap_or_default();
            report.endpoint = Some(first);
            report.status = Completeness::WithLosses;
            return Written {
                item: None,
                report,
                marks_earlier: Some(marker),
            };
        }
        let name = match self.endpoint_names.get(at) {
            Some(name) => name.clone(),
            None => self.endpoints.endpoint_name(&format!("{method}_{path}")),
        };
        let owner = format!("endpoint {name}");
        let item = self.as_owner(&owner, |this| {
            let mut item = this.endpoint(&name, bare_path, method, path_item, op, at, schemes);
            if !suffix.is_empty() {
                let marker = this.lose(
                    at,
                    format!("`{suffix}` written in the path"),
                    "the path alone",
                );
                item.attrs.annotations.push(marker);
            }
            item
        });
        self.routes.insert(route, name.clone());
        report.endpoint = Some(name);
        (report.faults, report.losses) = self
            .losses_reached(&owner)
            .into_iter()
            .partition(|loss| loss.fault);
        report.status = if report.losses.is_empty() {
            Completeness::Full
        } else {
            Completeness::WithLosses
        };
        Written {
            item: Some(item),
            report,
            marks_earlier: None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn endpoint(
        &mut self,
        name: &str,
        path: &str,
        method: &str,
        path_item: &'d Value,
        op: &'d Value,
        at: &str,
        schemes: &mut [Scheme],
    ) -> Item {
        let base = name.to_upper_camel_case();
        let mut attrs = Attrs {
            doc: operation_doc(op),
            annotations: Vec::new(),
        };
        if op.get("deprecated").and_then(Value::as_bool) == Some(true) {
            attrs.annotations.push(annotation("deprecated", Vec::new()));
        }
        let mut members: Vec<Member<EndpointMember>> = Vec::new();
        // `/runs?beta=true`: a route has no query; the query is the document's, not the path's.
        let path = match path.split_once('?') {
            Some((route, query)) => {
                let marker = self.lose(
                    at,
                    format!("the query `?{query}` written in the path"),
                    "the path alone",
                );
                attrs.annotations.push(marker);
                route
            }
            None => path,
        };
        let (written_path, renamed) = self.path(path, at, &mut attrs);
        let requirements = op.get("security").or_else(|| self.doc.get("security"));
        let security_at = if op.get("security").is_some() {
            join(at, "security")
        } else {
            "#/security".to_string()
        };
        members.extend(self.auth_members(requirements, &security_at, schemes));
        if let Some(Value::Array(tags)) = op.get("tags") {
            let tags: Vec<_> = tags
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| !t.trim().is_empty())
                .map(ident)
                .collect();
            if !tags.is_empty() {
                members.push(member(Attrs::default(), EndpointMember::Tags(tags)));
            }
        }
        members.extend(self.parameters(path_item, op, at, &base, &renamed, &written_path));
        if let Some(body) = op.get("requestBody") {
            let body_at = join(at, "requestBody");
            if matches!(method, "get" | "head" | "options") {
                let marker = self.lose(
                    &body_at,
                    format!("a body on {}", method.to_uppercase()),
                    "left out",
                );
                attrs.annotations.push(marker);
            } else if let Some(m) = self.request_body(body, &body_at, &base) {
                members.push(m);
            }
        }
        members.extend(self.responses(op, at, &base, &mut attrs));
        if method == "head" {
            self.drop_answer_bodies(&mut members, at);
        }
        item(
            attrs,
            ItemKind::Endpoint(EndpointDecl {
                name: ident(name),
                method: ident(method.to_uppercase()),
                path: string(written_path),
                members,
            }),
        )
    }

    /// HTTP answers HEAD without a body: a body a document gives its answers is marked and
    /// left out.
    fn drop_answer_bodies(&mut self, members: &mut [Member<EndpointMember>], at: &str) {
        for m in members.iter_mut() {
            let (status, had_body) = match &mut m.node {
                EndpointMember::Response { statuses, body, .. } => {
                    (statuses.first().copied(), body.take().is_some())
                }
                EndpointMember::Error(ErrorDecl {
                    status, ty, media, ..
                }) => {
                    *media = None;
                    (Some(*status), ty.take().is_some())
                }
                _ => continue,
            };
            if !had_body {
                continue;
            }
            // With the body go the other media types it was offered in.
            m.attrs.annotations.retain(|a| a.name.text != "also_media");
            let key = status.map_or_else(String::new, |s| s.text().to_lowercase());
            let pointer = join(&join(at, "responses"), &key);
            let marker = self.lose(&pointer, "a body on an answer to HEAD", "no body");
            m.attrs.annotations.push(marker);
        }
    }

    /// The path as the spec writes it: the document's, but for a segment of several
    /// placeholders (`{base}...{head}`), written as one placeholder whose value holds the
    /// rest. Answers the placeholders renamed so.
    fn path(
        &mut self,
        path: &str,
        at: &str,
        attrs: &mut Attrs,
    ) -> (String, HashMap<String, String>) {
        let mut renamed = HashMap::new();
        let mut segments = Vec::new();
        for segment in path.split('/') {
            let names: Vec<&str> = segment
                .split('{')
                .skip(1)
                .filter_map(|s| s.split('}').next())
                .collect();
            if names.len() < 2 {
                segments.push(segment.to_string());
                continue;
            }
            let marker = self.lose(
                at,
                format!("the path segment `{segment}`, several placeholders in one segment"),
                "one placeholder, whose value holds the whole segment",
            );
            attrs.annotations.push(marker);
            for n in &names[1..] {
                renamed.insert((*n).to_string(), names[0].to_string());
            }
            segments.push(format!("{{{}}}", names[0]));
        }
        (segments.join("/"), renamed)
    }

    /// The request body: JSON when the document offers it, else a form, multipart, or the
    /// bytes or text of another media type.
    fn request_body(
        &mut self,
        body: &'d Value,
        at: &str,
        base: &str,
    ) -> Option<Member<EndpointMember>> {
        let (body, at) = match self.deref(body) {
            Some((target, reference)) => (target, reference),
            None => (body, at.to_string()),
        };
        let Some(Value::Object(content)) = body.get("content") else {
            return None;
        };
        let content_at = join(&at, "content");
        let (media, chosen) = choose_media(content, true)?;
        let mut attrs = Attrs {
            doc: description(body),
            annotations: Vec::new(),
        };
        // The same schema in a type the router reads into a JSON body (the JSON family,
        // YAML, CBOR) is stated with `@also_media`; another is lost.
        let mut also: Vec<String> = Vec::new();
        for (other, alternative) in content.iter().filter(|(k, _)| *k != media) {
            let readable = media_kind(media) == MediaKind::Json
                && alternative.get("schema") == chosen.get("schema")
                && !other.contains('*')
                && covenant_runtime::contract::AlsoRead::of(other).is_some()
                && !also.iter().any(|m| m.eq_ignore_ascii_case(other));
            if readable {
                also.push(other.clone());
                continue;
            }
            let marker = self.lose(
                &join(&content_at, other),
                format!("the request media type `{other}`"),
                format!("`{media}` alone"),
            );
            attrs.annotations.push(marker);
        }
        if !also.is_empty() {
            let media_types = also.into_iter().map(|m| arg(str_value(m))).collect();
            attrs
                .annotations
                .push(annotation("also_media", media_types));
        }
        let media_at = join(&content_at, media);
        let schema = chosen.get("schema").unwrap_or(&crate::schemas::ANY_SCHEMA);
        let schema_at = join(&media_at, "schema");
        let hint = format!("{base}_request");
        let kind = media_kind(media);
        let (decl, encoding) = match kind {
            MediaKind::Json => {
                let converted =
                    self.schema_type(schema, &schema_at, &hint, Place::Inner, FieldUse::Body);
                attrs.annotations.extend(converted.markers);
                // A request of the JSON family keeps its own type (`merge-patch+json`).
                let written = (!is_plain_json(media)).then(|| string(media));
                (BodyDecl::Type(converted.ty.expr(false), written), None)
            }
            MediaKind::Form | MediaKind::Multipart => {
                let usage = if kind == MediaKind::Multipart {
                    FieldUse::Body
                } else {
                    FieldUse::Param
                };
                let model = self.fields_body(
                    schema,
                    &schema_at,
                    &hint,
                    usage,
                    chosen.get("encoding"),
                    &mut attrs,
                );
                let encoding = if kind == MediaKind::Form {
                    BodyEncoding::Form
                } else {
                    BodyEncoding::Multipart
                };
                (model, Some((encoding, Default::default())))
            }
            MediaKind::Text => {
                let what = format!("the typed content of `{media}`");
                self.typed_text_lost(schema, &schema_at, what, &mut attrs);
                (
                    BodyDecl::Type(Ty::Builtin("string").expr(false), Some(string(media))),
                    None,
                )
            }
            MediaKind::Binary => (
                BodyDecl::Type(Ty::Builtin("bytes").expr(false), Some(string(media))),
                None,
            ),
        };
        Some(member(attrs, EndpointMember::Body(decl, encoding)))
    }

    /// A response body of the JSON family: its type and whether it may be null, marked when
    /// its media type is not JSON itself (`problem+json`): answers are written as JSON.
    pub(crate) fn json_body(
        &mut self,
        media: &str,
        content_at: &str,
        schema: &'d Value,
        schema_at: &str,
        hint: &str,
        attrs: &mut Attrs,
    ) -> (Ty, bool) {
        if !is_plain_json(media) {
            let marker = self.lose(
                &join(content_at, media),
                format!("the media type `{media}`"),
                "application/json",
            );
            attrs.annotations.push(marker);
        }
        let converted = self.schema_type(schema, schema_at, hint, Place::Inner, FieldUse::Body);
        attrs.annotations.extend(converted.markers);
        (converted.ty, converted.nullable)
    }

    /// Marks a text body whose schema says more than that it is text (`what`): the spec
    /// writes the text.
    pub(crate) fn typed_text_lost(
        &mut self,
        schema: &'d Value,
        schema_at: &str,
        what: String,
        attrs: &mut Attrs,
    ) {
        if !plain_text(self.follow(schema)) {
            let marker = self.lose(schema_at, what, "its text");
            attrs.annotations.push(marker);
        }
    }

    /// A form or multipart body: a model of text fields (and files, for multipart).
    fn fields_body(
        &mut self,
        schema: &'d Value,
        at: &str,
        hint: &str,
        usage: FieldUse,
        encodings: Option<&Value>,
        attrs: &mut Attrs,
    ) -> BodyDecl {
        // A multipart body's fields are read as a JSON body's, a form's as parameters.
        let multipart = usage == FieldUse::Body;
        let resolved = self.follow(schema);
        let Some(Value::Object(properties)) = resolved.get("properties") else {
            let marker = self.lose(
                at,
                "a form body that is not an object of fields",
                "an empty form",
            );
            attrs.annotations.push(marker);
            return BodyDecl::Inline(covenant_codegen::ast::ModelDecl {
                name: ident(""),
                members: Vec::new(),
                body_span: Default::default(),
            });
        };
        let required: Vec<&str> = resolved
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut members = Vec::new();
        for (name, field_schema) in properties {
            let field_at = join(&join(at, "properties"), name);
            let field_hint = format!("{hint}_{name}");
            let (mut decl, mut field_attrs) = self.field_decl(
                name,
                field_schema,
                &field_at,
                required.contains(&name.as_str()),
                &field_hint,
                usage,
            );
            let enums = self.enum_names.clone();
            let is_enum = |n: &str| enums.contains(n);
            constant_as_one_of(&mut decl, &mut field_attrs);
            let ty = from_expr(&decl.ty);
            let binary = field_schema.get("format").and_then(Value::as_str) == Some("binary")
                || self
                    .follow(field_schema)
                    .get("format")
                    .and_then(Value::as_str)
                    == Some("binary");
            let fits = match &ty {
                Some(Ty::List(inner)) => inner.is_scalar(&is_enum),
                Some(t) => t.is_scalar(&is_enum) && !matches!(t, Ty::Constant(_)),
                None => false,
            };
            if multipart && binary {
                let list = matches!(ty, Some(Ty::List(_)));
                decl.ty = if list {
                    Ty::List(Box::new(Ty::Builtin("file")))
                } else {
                    Ty::Builtin("file")
                }
                .expr(false);
                field_attrs
                    .annotations
                    .retain(|a| a.name.text == "lossy" || a.name.text == "deprecated");
            } else if !fits && (multipart || matches!(ty, None | Some(Ty::Constant(_)))) {
                field_attrs.annotations.push(self.lose(
                    &field_at,
                    "a structured form field",
                    "a string",
                ));
                written_as_text(&mut decl, &mut field_attrs);
            } else if decl.ty.alternatives.len() > 1 {
                field_attrs.annotations.push(self.lose(
                    &field_at,
                    "a form field that may be null",
                    "one that may not",
                ));
                decl.ty.alternatives.pop();
                if matches!(
                    decl.default.as_ref().map(|d| &d.kind),
                    Some(covenant_codegen::ast::ValueKind::Null)
                ) {
                    decl.default = None;
                }
            }
            let encoding = encodings.and_then(|e| e.get(name.as_str()));
            if !multipart && let Some(style) = form_field_style(encoding, &ty, fits) {
                field_attrs
                    .annotations
                    .push(annotation("style", vec![arg(reference(style))]));
            }
            members.push(member(
                field_attrs,
                covenant_codegen::ast::ModelMember::Field(decl),
            ));
        }
        // A model of its own, named like any other: the name the language would give a body
        // written in place (`<Endpoint>Request`) may be a component's.
        let name = self.types.type_name(hint);
        self.uses_type(&name);
        let doc = description(resolved);
        self.type_items.push(item(
            Attrs {
                doc,
                annotations: Vec::new(),
            },
            ItemKind::Model(covenant_codegen::ast::ModelDecl {
                name: ident(name.clone()),
                members,
                body_span: Default::default(),
            }),
        ));
        BodyDecl::Type(Ty::Named(name).expr(false), None)
    }
}

/// A field the spec cannot type as the document does, written as a string: the constraints
/// and default of the other type go, its losses and deprecation stay.
/// A string constant where text travels (a parameter, a form field) is a string of that
/// one value: a constant is a type of JSON bodies.
pub(crate) fn constant_as_one_of(decl: &mut FieldDecl, attrs: &mut Attrs) {
    if let Some(Ty::Constant(text)) = from_expr(&decl.ty) {
        decl.ty = Ty::Builtin("string").expr(false);
        attrs
            .annotations
            .push(annotation("one_of", vec![arg(str_value(text))]));
    }
}

pub(crate) fn written_as_text(decl: &mut FieldDecl, attrs: &mut Attrs) {
    attrs
        .annotations
        .retain(|a| a.name.text == "lossy" || a.name.text == "deprecated");
    decl.ty = Ty::Builtin("string").expr(false);
    decl.default = None;
}

pub(crate) fn status_of(status: StatusPattern) -> covenant_codegen::ast::Status {
    match status {
        StatusPattern::Exact(code) => crate::build::status(code),
        StatusPattern::Class(class) => crate::build::status_class(class),
        StatusPattern::Default => crate::build::default_status(),
    }
}

pub(crate) fn not_shown_success() -> Member<EndpointMember> {
    member(
        Attrs::default(),
        EndpointMember::Response {
            statuses: vec![status(200)],
            body: Some(BodyDecl::Type(
                Ty::NotShown("The success response".to_string()).expr(false),
                None,
            )),
            headers: Vec::new(),
        },
    )
}

/// An operation's doc comment: its summary, then its description.
fn operation_doc(op: &Value) -> Option<String> {
    let text = |k: &str| {
        op.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(summary) = text("summary") {
        let summary = summary.trim_end_matches('.');
        parts.push(format!("{summary}."));
    }
    if let Some(description) = text("description") {
        // A description that opens with the summary says it once.
        let summary = text("summary").map(|s| s.trim_end_matches('.'));
        if summary.is_some_and(|s| description.starts_with(s)) {
            parts.clear();
        }
        parts.push(description.to_string());
    }
    if let Some(url) = op.pointer("/externalDocs/url").and_then(Value::as_str) {
        parts.push(format!("See {url}"));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The importer's own type back from a written type expression, for the checks of what a
/// parameter or a form field may hold.
pub(crate) fn from_expr(expr: &covenant_codegen::ast::TypeExpr) -> Option<Ty> {
    use covenant_codegen::ast::TypeAtomKind as K;
    fn atom(a: &covenant_codegen::ast::TypeAtom) -> Option<Ty> {
        Some(match &a.kind {
            K::Named(name) => match name.text.as_str() {
                "string" => Ty::Builtin("string"),
                "int" => Ty::Builtin("int"),
                "number" => Ty::Builtin("number"),
                "bool" => Ty::Builtin("bool"),
                "uuid" => Ty::Builtin("uuid"),
                "date" => Ty::Builtin("date"),
                "datetime" => Ty::Builtin("datetime"),
                "email" => Ty::Builtin("email"),
                "uri" => Ty::Builtin("uri"),
                "bytes" => Ty::Builtin("bytes"),
                "any" => Ty::Builtin("any"),
                "object" => Ty::Builtin("object"),
                "file" => Ty::Builtin("file"),
                other => Ty::Named(other.to_string()),
            },
            K::List(inner) => Ty::List(Box::new(atom(inner)?)),
            K::Constant(c) => Ty::Constant(c.value.clone()),
            K::ScalarConstant(v) => match v.kind {
                covenant_codegen::ast::ValueKind::Bool(b) => {
                    Ty::ScalarConstant(crate::types::ScalarValue::Bool(b))
                }
                covenant_codegen::ast::ValueKind::Int(n) => {
                    Ty::ScalarConstant(crate::types::ScalarValue::Int(n))
                }
                _ => return None,
            },
            K::Group(inner) => from_expr(inner)?,
            K::Map { value, .. } => Ty::Map(Box::new(from_expr(value)?)),
            K::NotShown(_) | K::Null => return None,
        })
    }
    let members: Vec<&covenant_codegen::ast::TypeAtom> = expr
        .alternatives
        .iter()
        .filter(|a| !matches!(a.kind, K::Null))
        .collect();
    match members.as_slice() {
        [one] => atom(one),
        _ => Some(Ty::Union(members.iter().filter_map(|a| atom(a)).collect())),
    }
}

/// How a form field holding a list is written, from its media type's `encoding`: `None` for
/// one pair per item, or for a field holding objects (written in brackets whatever it says).
fn form_field_style(encoding: Option<&Value>, ty: &Option<Ty>, fits: bool) -> Option<&'static str> {
    let (Some(Ty::List(_)), true) = (ty, fits) else {
        return None;
    };
    let style = encoding?.get("style").and_then(Value::as_str);
    let explode = encoding?.get("explode").and_then(Value::as_bool);
    match (style, explode) {
        (Some("deepObject"), _) => Some("deep"),
        (None | Some("form"), Some(false)) => Some("comma"),
        (Some("spaceDelimited"), _) => Some("spaces"),
        (Some("pipeDelimited"), _) => Some("pipes"),
        _ => None,
    }
}

/// The file a `$ref` points into, when it is not this document.
fn external_ref(value: &Value) -> Option<&str> {
    value
        .get("$ref")
        .and_then(Value::as_str)
        .filter(|r| !r.starts_with('#'))
}

/// An operation (or a path item's, `*`) the document keeps elsewhere: reported, left out.
fn left_out(at: &str, method: &str, path: &str, construct: String) -> Written {
    Written {
        item: None,
        report: OperationReport {
            pointer: at.to_string(),
            method: method.to_string(),
            path: path.to_string(),
            endpoint: None,
            status: Completeness::LeftOut,
            losses: vec![crate::losses::Loss::new(at, construct, "left out")],
            faults: Vec::new(),
        },
        marks_earlier: None,
    }
}
