//! Operations of the document as endpoints: parameters, request body, responses and errors,
//! security, tags and deprecation.

use crate::build::*;
use crate::document::join;
use crate::importer::Importer;
use crate::losses::{Completeness, OperationReport};
use crate::schemas::{FieldUse, Place, description};
use crate::security::Scheme;
use crate::types::Ty;
use covenant_codegen::ast::{
    Annotation, Attrs, BodyDecl, BodyEncoding, EndpointDecl, EndpointMember, ErrorDecl, FieldDecl,
    Item, ItemKind, Member, ParamLocation,
};
use covenant_codegen::ir::StatusPattern;
use heck::ToUpperCamelCase;
use serde_json::Value;
use std::collections::HashMap;

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

/// Headers the request's own machinery sets: OpenAPI says a parameter naming them is ignored.
const IGNORED_HEADERS: &[&str] = &["accept", "content-type", "authorization"];

/// Response headers the HTTP layer writes, which a spec does not declare.
const HOP_BY_HOP: &[&str] = &[
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
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
        report.losses = self.losses_reached(&owner);
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

    /// Path, query and header parameters (path-level ones first, overridden by the
    /// operation's own).
    fn parameters(
        &mut self,
        path_item: &'d Value,
        op: &'d Value,
        at: &str,
        base: &str,
        renamed: &HashMap<String, String>,
        written_path: &str,
    ) -> Vec<Member<EndpointMember>> {
        let mut all: Vec<(&'d Value, String)> = Vec::new();
        let shared_at = at.rsplit_once('/').map_or(at, |(p, _)| p).to_string();
        for (source, source_at) in [(path_item, shared_at), (op, at.to_string())] {
            if let Some(Value::Array(list)) = source.get("parameters") {
                for (index, p) in list.iter().enumerate() {
                    let p_at = join(&join(&source_at, "parameters"), &index.to_string());
                    let resolved = self.follow(p);
                    let key = |v: &Value| {
                        (
                            v.get("name").and_then(Value::as_str).map(str::to_string),
                            v.get("in").and_then(Value::as_str).map(str::to_string),
                        )
                    };
                    all.retain(|(q, _)| key(self.follow(q)) != key(resolved));
                    all.push((p, p_at));
                }
            }
        }
        let mut members = Vec::new();
        let mut seen_path = Vec::new();
        for (p, p_at) in all {
            let p = self.follow(p);
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            let place = p.get("in").and_then(Value::as_str).unwrap_or("");
            let location = match place {
                "path" => ParamLocation::Path,
                "query" => ParamLocation::Query,
                "header" if IGNORED_HEADERS.contains(&name.to_lowercase().as_str()) => continue,
                "header" => ParamLocation::Header,
                other => {
                    let marker =
                        self.lose(&p_at, format!("a {other} parameter `{name}`"), "left out");
                    // A parameter left out is marked on the endpoint's first member.
                    members.push(member(
                        Attrs {
                            doc: None,
                            annotations: vec![marker],
                        },
                        EndpointMember::NotShown(string(format!("The {other} parameter `{name}`"))),
                    ));
                    continue;
                }
            };
            let taken = members.iter().any(|m: &Member<EndpointMember>| {
                matches!(&m.node, EndpointMember::Param(_, f) if f.name.text == name)
            }) || (location != ParamLocation::Path
                && written_path.contains(&format!("{{{name}}}")));
            if taken {
                let marker = self.lose(
                    &p_at,
                    format!("a second parameter named `{name}`, in another place"),
                    "left out",
                );
                members.push(member(
                    Attrs {
                        doc: None,
                        annotations: vec![marker],
                    },
                    EndpointMember::NotShown(string(format!("The {place} parameter `{name}`"))),
                ));
                continue;
            }
            let name = match location {
                ParamLocation::Path => {
                    let kept = renamed
                        .get(name)
                        .cloned()
                        .unwrap_or_else(|| name.to_string());
                    if seen_path.contains(&kept) || !written_path.contains(&format!("{{{kept}}}")) {
                        continue;
                    }
                    seen_path.push(kept.clone());
                    kept
                }
                _ => name.to_string(),
            };
            members.push(self.parameter(p, &p_at, &name, location, base));
        }
        // Placeholders the document gave no parameter.
        for placeholder in written_path
            .split('/')
            .filter_map(|s| s.split_once('{'))
            .filter_map(|(_, rest)| rest.split_once('}'))
            .map(|(name, _)| name)
        {
            if !seen_path.iter().any(|p| p == placeholder) {
                let marker = self.lose(
                    at,
                    format!("the path placeholder `{placeholder}` without a parameter"),
                    "a string",
                );
                members.push(member(
                    Attrs {
                        doc: None,
                        annotations: vec![marker],
                    },
                    EndpointMember::Param(
                        ParamLocation::Path,
                        field(placeholder, false, Ty::Builtin("string").expr(false), None),
                    ),
                ));
            }
        }
        members
    }

    fn parameter(
        &mut self,
        p: &'d Value,
        at: &str,
        name: &str,
        location: ParamLocation,
        base: &str,
    ) -> Member<EndpointMember> {
        let required = location == ParamLocation::Path
            || p.get("required").and_then(Value::as_bool) == Some(true);
        let static_any = &crate::schemas::ANY_SCHEMA;
        let (schema, schema_at) = match (p.get("schema"), p.get("content")) {
            (Some(s), _) => (s, join(at, "schema")),
            (None, Some(Value::Object(content))) => {
                match content.iter().next().and_then(|(_, m)| m.get("schema")) {
                    Some(s) => (s, join(at, "content")),
                    None => (static_any, at.to_string()),
                }
            }
            _ => (static_any, at.to_string()),
        };
        let usage = if location == ParamLocation::Header {
            FieldUse::Header
        } else {
            FieldUse::Param
        };
        let hint = format!("{base}_{name}");
        let (mut decl, mut attrs) =
            self.field_decl(name, schema, &schema_at, required, &hint, usage);
        // The parameter's own description says more than its schema's.
        if let Some(d) = description(p) {
            attrs.doc = Some(d);
        }
        if p.get("deprecated").and_then(Value::as_bool) == Some(true)
            && !attrs
                .annotations
                .iter()
                .any(|a| a.name.text == "deprecated")
        {
            attrs.annotations.push(annotation("deprecated", Vec::new()));
        }
        self.parameter_shape(p, at, &mut decl, &mut attrs, location);
        member(attrs, EndpointMember::Param(location, decl))
    }

    /// What a parameter's type may be in the spec: a scalar, or (in a query) a list of
    /// scalars sent as repeated pairs. Anything else is written as a string, and marked.
    fn parameter_shape(
        &mut self,
        p: &Value,
        at: &str,
        decl: &mut FieldDecl,
        attrs: &mut Attrs,
        location: ParamLocation,
    ) {
        let enums = self.enum_names.clone();
        let is_enum = |n: &str| enums.contains(n);
        constant_as_one_of(decl, attrs);
        let ty = from_expr(&decl.ty);
        let nullable = decl.ty.alternatives.len() > 1
            && matches!(
                decl.ty.alternatives.last().map(|a| &a.kind),
                Some(covenant_codegen::ast::TypeAtomKind::Null)
            );
        let scalar = |t: &Option<Ty>| t.as_ref().is_some_and(|t| t.is_scalar(&is_enum));
        let style = p.get("style").and_then(Value::as_str);
        let explode = p.get("explode").and_then(Value::as_bool);
        // `filter[status]=open`: any value of a query parameter, written in brackets.
        let deep = location == ParamLocation::Query && style == Some("deepObject");
        let fits = match (&ty, location) {
            (t, ParamLocation::Query) if deep => !matches!(t, Some(Ty::Constant(_))),
            (Some(Ty::List(inner)), ParamLocation::Query) => {
                let inner = Some((**inner).clone());
                scalar(&inner)
            }
            (t, _) => scalar(t) && !matches!(t, Some(Ty::Constant(_))),
        };
        if nullable && location != ParamLocation::Query {
            attrs.annotations.push(self.lose(
                at,
                "a parameter that may be null",
                "one that may not",
            ));
        }
        if !fits {
            attrs
                .annotations
                .push(self.lose(at, "a parameter of a structured type", "a string"));
            written_as_text(decl, attrs);
            return;
        }
        if nullable {
            decl.ty.alternatives.pop();
        }
        if deep {
            if !scalar(&ty) {
                attrs
                    .annotations
                    .push(annotation("style", vec![arg(reference("deep"))]));
            }
        } else if let Some(Ty::List(_)) = ty {
            let joined = match (style, explode) {
                (None | Some("form"), None | Some(true)) => Ok(None),
                (None | Some("form"), Some(false)) => Ok(Some("comma")),
                (Some("spaceDelimited"), _) => Ok(Some("spaces")),
                (Some("pipeDelimited"), _) => Ok(Some("pipes")),
                (Some(other), _) => Err(other),
            };
            match joined {
                Ok(Some(encoding)) => attrs
                    .annotations
                    .push(annotation("style", vec![arg(reference(encoding))])),
                Ok(None) => {}
                Err(style) => attrs.annotations.push(self.lose(
                    at,
                    format!("a list sent as one `{style}` value"),
                    "one pair per item",
                )),
            }
        }
        if location == ParamLocation::Path && matches!(style, Some("label" | "matrix")) {
            attrs.annotations.push(self.lose(
                at,
                "a label or matrix path parameter",
                "a simple one",
            ));
        }
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
    fn json_body(
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
    fn typed_text_lost(
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

    /// Responses and errors, each status with its body and headers.
    fn responses(
        &mut self,
        op: &'d Value,
        at: &str,
        base: &str,
        attrs: &mut Attrs,
    ) -> Vec<Member<EndpointMember>> {
        let mut out = Vec::new();
        let responses_at = join(at, "responses");
        let Some(Value::Object(responses)) = op.get("responses") else {
            let marker = self.lose(
                at,
                "an operation without responses",
                "a success the document does not show",
            );
            attrs.annotations.push(marker);
            out.push(not_shown_success());
            return out;
        };
        let mut successes = 0;
        let success_count = responses
            .keys()
            .filter(|k| k.starts_with('2') || k.starts_with('3'))
            .count();
        for (key, response) in responses {
            let status_at = join(&responses_at, key);
            let status = match StatusPattern::parse(key) {
                Some(status @ (StatusPattern::Exact(_) | StatusPattern::Default)) => status,
                Some(StatusPattern::Class(class)) if class >= 4 => StatusPattern::Class(class),
                range => {
                    // A class of successes: written as its first status when the document
                    // names no such status itself.
                    let success = (range == Some(StatusPattern::Class(2))
                        && !responses.contains_key("200"))
                    .then_some(200);
                    let written = if success.is_some() {
                        "a 200 response"
                    } else {
                        "left out"
                    };
                    let construct = match range {
                        Some(_) => format!("the status range `{key}`"),
                        None => format!("the response key `{key}`"),
                    };
                    let marker = self.lose(&status_at, construct, written);
                    match success {
                        Some(code) => {
                            let (m, _) = self.response(
                                response,
                                &status_at,
                                StatusPattern::Exact(code),
                                base,
                                success_count > 1,
                                vec![marker],
                            );
                            successes += 1;
                            out.push(m);
                        }
                        None => attrs.annotations.push(marker),
                    }
                    continue;
                }
            };
            let (m, is_success) = self.response(
                response,
                &status_at,
                status,
                base,
                success_count > 1,
                Vec::new(),
            );
            successes += usize::from(is_success);
            out.push(m);
        }
        if successes == 0 {
            let marker = self.lose(
                &responses_at,
                "no success response",
                "a success the document does not show",
            );
            let mut m = not_shown_success();
            m.attrs.annotations.push(marker);
            out.push(m);
        }
        out
    }

    fn response(
        &mut self,
        response: &'d Value,
        at: &str,
        status: StatusPattern,
        base: &str,
        several: bool,
        markers: Vec<Annotation>,
    ) -> (Member<EndpointMember>, bool) {
        let (response, at) = match self.deref(response) {
            Some((target, reference)) => (target, reference),
            None => (response, at.to_string()),
        };
        let mut attrs = Attrs {
            doc: description(response),
            annotations: markers,
        };
        let success = status.is_success();
        // HTTP sends no body with these.
        let bodiless = status
            .exact()
            .is_some_and(|code| matches!(code, 100..=199 | 204 | 304));
        let key = status.to_string().to_lowercase();
        let hint = match (success, several) {
            (true, false) => format!("{base}_result"),
            (true, true) => format!("{base}_result_{key}"),
            (false, _) => format!("{base}_error_{key}"),
        };
        let mut body = None;
        let mut media_written = None;
        if let Some(Value::Object(content)) = response.get("content")
            && !(bodiless && says_no_body(content))
            && let Some((media, chosen)) = choose_media(content, false)
        {
            let content_at = join(&at, "content");
            let mut also: Vec<String> = Vec::new();
            for (other, alternative) in content.iter().filter(|(k, _)| *k != media) {
                // The same value in another encoding is stated; another value is not.
                let same = alternative.get("schema") == chosen.get("schema");
                if same
                    && !other.contains('*')
                    && !also.iter().any(|m| m.eq_ignore_ascii_case(other))
                {
                    also.push(other.clone());
                } else {
                    let marker = self.lose(
                        &join(&content_at, other),
                        format!("the response media type `{other}` with its own schema"),
                        format!("`{media}` alone"),
                    );
                    attrs.annotations.push(marker);
                }
            }
            if !also.is_empty() && !bodiless {
                let media_types = also.into_iter().map(|m| arg(str_value(m))).collect();
                attrs
                    .annotations
                    .push(annotation("also_media", media_types));
            }
            let schema = chosen.get("schema").unwrap_or(&crate::schemas::ANY_SCHEMA);
            let schema_at = join(&join(&content_at, media), "schema");
            match media_kind(media) {
                MediaKind::Json | MediaKind::Form | MediaKind::Multipart => {
                    let (ty, nullable) =
                        self.json_body(media, &content_at, schema, &schema_at, &hint, &mut attrs);
                    // A success's JSON body may be null; an error's may not.
                    let json = matches!(media_kind(media), MediaKind::Json);
                    if nullable && !(success && json) {
                        attrs.annotations.push(self.lose(
                            &schema_at,
                            "a body that may be null",
                            "one that may not",
                        ));
                    }
                    body = Some(ty.expr(nullable && success && json));
                }
                MediaKind::Text => {
                    let media_at = join(&content_at, media);
                    match stream_items(media, chosen, schema, &media_at, &schema_at, self)
                        .filter(|_| success)
                    {
                        Some((item, item_at)) => {
                            let hint = format!("{hint}_item");
                            let converted = self.schema_type(
                                item,
                                &item_at,
                                &hint,
                                Place::Inner,
                                FieldUse::Body,
                            );
                            attrs.annotations.extend(converted.markers);
                            if converted.nullable {
                                let marker = self.lose(
                                    &item_at,
                                    "null items in a stream",
                                    "items never null",
                                );
                                attrs.annotations.push(marker);
                            }
                            body = Some(Ty::List(Box::new(converted.ty)).expr(false));
                        }
                        None => {
                            let what = format!(
                                "the typed content of `{media}` (a stream of events, XML of a model)"
                            );
                            self.typed_text_lost(schema, &schema_at, what, &mut attrs);
                            body = Some(Ty::Builtin("string").expr(false));
                        }
                    }
                    media_written = Some(string(media));
                }
                MediaKind::Binary => {
                    body = Some(Ty::Builtin("bytes").expr(false));
                    media_written = Some(string(media));
                }
            }
        }
        // The router answers these statuses itself, as JSON: an error written as it is
        // (`text/html`) needs a status of its own.
        let router_answers = match status {
            StatusPattern::Exact(code) => {
                [400, 401, 403, 409, 413, 414, 415, 422, 431, 500, 503].contains(&code)
            }
            _ => true,
        };
        if !success && media_written.is_some() && router_answers {
            let marker = self.lose(
                &join(&at, "content"),
                format!("a body written as it is on the {status} error, which the router answers as JSON too"),
                "no body",
            );
            attrs.annotations.push(marker);
            body = None;
            media_written = None;
        }
        if body.is_some() && bodiless {
            let marker = self.lose(
                &join(&at, "content"),
                format!("a body on a {status} response"),
                "no body",
            );
            attrs.annotations.push(marker);
            body = None;
            media_written = None;
        }
        let headers = self.response_headers(response, &at);
        let node = if success {
            EndpointMember::Response {
                statuses: vec![status_of(status)],
                body: body.map(|ty| BodyDecl::Type(ty, media_written)),
                headers,
            }
        } else {
            EndpointMember::Error(ErrorDecl {
                status: status_of(status),
                ty: body,
                media: media_written,
                headers,
            })
        };
        (member(attrs, node), success)
    }

    fn response_headers(&mut self, response: &'d Value, at: &str) -> Vec<Member<FieldDecl>> {
        let Some(Value::Object(headers)) = response.get("headers") else {
            return Vec::new();
        };
        let mut out: Vec<Member<FieldDecl>> = Vec::new();
        for (name, header) in headers {
            let lower = name.to_lowercase();
            if HOP_BY_HOP.contains(&lower.as_str())
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
                || out
                    .iter()
                    .any(|h| h.node.name.text.eq_ignore_ascii_case(name))
            {
                continue;
            }
            let header = self.follow(header);
            let header_at = join(&join(at, "headers"), name);
            let schema = header.get("schema").unwrap_or(&crate::schemas::ANY_SCHEMA);
            let required = header.get("required").and_then(Value::as_bool) == Some(true);
            let (mut decl, mut attrs) = self.field_decl(
                name,
                schema,
                &join(&header_at, "schema"),
                required,
                name,
                FieldUse::Header,
            );
            if attrs.doc.is_none() {
                attrs.doc = description(header);
            }
            let enums = self.enum_names.clone();
            let is_enum = |n: &str| enums.contains(n);
            let ty = from_expr(&decl.ty);
            if !ty
                .as_ref()
                .is_some_and(|t| t.is_scalar(&is_enum) && !matches!(t, Ty::Constant(_)))
                || decl.ty.alternatives.len() > 1
            {
                attrs.annotations.push(self.lose(
                    &header_at,
                    "a header of a structured type",
                    "a string",
                ));
                written_as_text(&mut decl, &mut attrs);
            }
            out.push(member(attrs, decl));
        }
        out
    }
}

/// Whether a schema says no more of a text body than that it is text.
fn plain_text(schema: &Value) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(map) => {
            map.is_empty()
                || (map.get("type").and_then(Value::as_str) == Some("string")
                    && !map.contains_key("properties"))
        }
        _ => false,
    }
}

/// A field the spec cannot type as the document does, written as a string: the constraints
/// and default of the other type go, its losses and deprecation stay.
/// A string constant where text travels (a parameter, a form field) is a string of that
/// one value: a constant is a type of JSON bodies.
fn constant_as_one_of(decl: &mut FieldDecl, attrs: &mut Attrs) {
    if let Some(Ty::Constant(text)) = from_expr(&decl.ty) {
        decl.ty = Ty::Builtin("string").expr(false);
        attrs
            .annotations
            .push(annotation("one_of", vec![arg(str_value(text))]));
    }
}

fn written_as_text(decl: &mut FieldDecl, attrs: &mut Attrs) {
    attrs
        .annotations
        .retain(|a| a.name.text == "lossy" || a.name.text == "deprecated");
    decl.ty = Ty::Builtin("string").expr(false);
    decl.default = None;
}

fn status_of(status: StatusPattern) -> covenant_codegen::ast::Status {
    match status {
        StatusPattern::Exact(code) => crate::build::status(code),
        StatusPattern::Class(class) => crate::build::status_class(class),
        StatusPattern::Default => crate::build::default_status(),
    }
}

fn not_shown_success() -> Member<EndpointMember> {
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum MediaKind {
    Json,
    Form,
    Multipart,
    Text,
    Binary,
}

fn media_kind(media: &str) -> MediaKind {
    let essence = media.split(';').next().unwrap_or("").trim().to_lowercase();
    if essence == "application/json"
        || essence.ends_with("+json")
        || essence == "*/*"
        || essence == "application/*"
        || essence == "text/json"
    {
        MediaKind::Json
    } else if essence == "application/x-www-form-urlencoded" {
        MediaKind::Form
    } else if essence == "multipart/form-data" {
        MediaKind::Multipart
    } else if essence.starts_with("text/")
        || essence.ends_with("+xml")
        || essence == "application/xml"
        || essence == "application/yaml"
        || covenant_runtime::streams::is_stream_media(&essence)
    {
        MediaKind::Text
    } else {
        MediaKind::Binary
    }
}

fn is_plain_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim().to_lowercase();
    essence == "application/json" || essence == "*/*" || essence == "application/*"
}

/// The media type the spec writes: JSON first, then a form, multipart, text, bytes. A
/// range (`image/*`) is not a media type the spec can name.
fn choose_media(content: &serde_json::Map<String, Value>, request: bool) -> Option<(&str, &Value)> {
    let order = if request {
        [
            MediaKind::Json,
            MediaKind::Form,
            MediaKind::Multipart,
            MediaKind::Binary,
            MediaKind::Text,
        ]
    } else {
        [
            MediaKind::Json,
            MediaKind::Text,
            MediaKind::Binary,
            MediaKind::Form,
            MediaKind::Multipart,
        ]
    };
    for kind in order {
        let mut candidates: Vec<(&str, &Value)> = content
            .iter()
            .filter(|(m, _)| media_kind(m) == kind)
            .filter(|(m, _)| kind == MediaKind::Json || !m.contains('*'))
            .map(|(m, v)| (m.as_str(), v))
            .collect();
        candidates.sort_by_key(|(m, _)| !is_plain_json(m));
        if let Some(first) = candidates.first() {
            return Some(*first);
        }
    }
    None
}

/// The importer's own type back from a written type expression, for the checks of what a
/// parameter or a form field may hold.
fn from_expr(expr: &covenant_codegen::ast::TypeExpr) -> Option<Ty> {
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
        },
        marks_earlier: None,
    }
}

/// Content that states nothing (no schema, `{}`, `type: null`, an object of no fields), as
/// documents write for a 204: no body is what it says.
fn says_no_body(content: &serde_json::Map<String, Value>) -> bool {
    content.values().all(|media| match media.get("schema") {
        None => true,
        Some(Value::Object(schema)) => {
            let kind = schema.get("type").and_then(Value::as_str);
            let no_fields = [
                "properties",
                "additionalProperties",
                "required",
                "allOf",
                "oneOf",
                "anyOf",
            ]
            .iter()
            .all(|k| match schema.get(*k) {
                None => true,
                Some(Value::Object(m)) => m.is_empty(),
                Some(Value::Array(a)) => a.is_empty(),
                Some(_) => false,
            });
            schema.is_empty() || kind == Some("null") || (kind == Some("object") && no_fields)
        }
        Some(_) => false,
    })
}

/// The schema of each item of a streamed answer (server-sent events, JSON lines) and where
/// it is: OpenAPI 3.2's `itemSchema`, the `x-item-schema` `generate` writes, or the schema
/// itself where it types more than text (as OpenAI's documents type their events).
fn stream_items<'d>(
    media: &str,
    chosen: &'d Value,
    schema: &'d Value,
    media_at: &str,
    schema_at: &str,
    importer: &Importer<'d>,
) -> Option<(&'d Value, String)> {
    if !covenant_runtime::streams::is_stream_media(media) {
        return None;
    }
    if let Some(item) = chosen.get("itemSchema") {
        return Some((item, join(media_at, "itemSchema")));
    }
    if let Some(item) = importer.follow(schema).get("x-item-schema") {
        return Some((item, join(schema_at, "x-item-schema")));
    }
    (!plain_text(importer.follow(schema))).then(|| (schema, schema_at.to_string()))
}
