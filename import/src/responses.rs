//! Responses and errors of an operation: each status with its body (JSON, text, bytes, a
//! stream of items) and headers.

use crate::build::*;
use crate::document::join;
use crate::importer::Importer;
use crate::media::*;
use crate::operations::{from_expr, not_shown_success, status_of, written_as_text};
use crate::schemas::{FieldUse, Place, description};
use crate::types::Ty;
use covenant_codegen::ast::*;
use covenant_codegen::ir::StatusPattern;
use serde_json::Value;

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

impl<'d> Importer<'d> {
    /// Responses and errors, each status with its body and headers.
    pub(crate) fn responses(
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
        if body.is_none() {
            // Another media type of no body says nothing (Swagger 2.0's `produces` lists
            // them for every response of the operation).
            attrs.annotations.retain(|a| a.name.text != "also_media");
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
