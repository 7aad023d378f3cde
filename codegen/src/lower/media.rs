//! Bodies other than JSON: `body bytes "image/png"`, `response 200: string "text/csv"`,
//! `body multipart { file: file, purpose: string }`, and where a `file` may stand; answers
//! streamed item by item (`response 200: Chunk[] "text/event-stream"`).

use super::Lowerer;
use super::response_headers::is_token;
use crate::ast;
use crate::diagnostic_codes;
use crate::ir::*;
use crate::source::Span;

/// What a body without a media type of its own is written as when it is `bytes`.
const OCTET_STREAM: &str = "application/octet-stream";

impl Lowerer<'_> {
    /// How a body of type `ty` is written: JSON, or as it is with the media type written
    /// after it (`bytes` alone is `application/octet-stream`).
    pub(super) fn body_media(
        &mut self,
        decl: &ast::BodyDecl,
        ty: &Type,
        request: bool,
    ) -> BodyMedia {
        let ast::BodyDecl::Type(_, media) = decl else {
            return BodyMedia::Json;
        };
        let raw = matches!(ty, Type::Primitive(Primitive::String | Primitive::Bytes));
        // A request's JSON sent as another type of the JSON family (`merge-patch+json`).
        if let (Some(lit), false, true) = (media, raw, request) {
            let essence = lit
                .value
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if essence == "application/json" {
                return BodyMedia::Json;
            }
            if covenant_runtime::contract::is_json_family(&essence) {
                return BodyMedia::JsonAs(lit.value.trim().to_string());
            }
        }
        // A list answered item by item: server-sent events, JSON lines.
        if let (Some(lit), Type::List(..)) = (media, ty)
            && covenant_runtime::streams::is_stream_media(&lit.value)
        {
            if request {
                self.error(
                    diagnostic_codes::BAD_BODY_MEDIA,
                    lit.span,
                    "a request body is sent whole, not as a stream",
                )
                .label("streams are answers")
                .help("send the list as JSON: leave the media type out");
                return BodyMedia::Json;
            }
            return BodyMedia::Stream(lit.value.trim().to_string());
        }
        match media {
            Some(lit) if !raw => {
                let essence = lit.value.split(';').next().unwrap_or("").trim();
                let help = if essence.to_ascii_lowercase().ends_with("+json") {
                    // Leaving it out changes the `Content-Type` on the wire: the author must
                    // know.
                    format!(
                        "an answer is written as `application/json`: a JSON-family type such as `{essence}` is stated on request bodies only; leaving it out changes the `Content-Type` servers write, so only do so where clients accept `application/json`"
                    )
                } else {
                    "leave the media type out; write `string \"text/csv\"` or `bytes \"application/pdf\"` for a body written as it is".to_string()
                };
                self.error(
                    diagnostic_codes::BAD_BODY_MEDIA,
                    lit.span,
                    "only a `string` or `bytes` body has a media type of its own",
                )
                .label("this body is JSON")
                .help(help);
                BodyMedia::Json
            }
            Some(lit) => match self.media_type(lit) {
                Some(media) => BodyMedia::Raw(media),
                None => BodyMedia::Json,
            },
            None if *ty == Type::Primitive(Primitive::Bytes) => {
                BodyMedia::Raw(OCTET_STREAM.to_string())
            }
            None => BodyMedia::Json,
        }
    }

    /// A media type a raw body may have: `type/subtype`, with parameters if any, naming
    /// neither JSON nor a body of fields, nor a range.
    fn media_type(&mut self, lit: &ast::StrLit) -> Option<String> {
        let text = lit.value.trim();
        let essence = text
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let well_formed = essence
            .split_once('/')
            .is_some_and(|(kind, sub)| is_token(kind) && is_token(sub))
            && text.chars().all(|c| c == ' ' || c.is_ascii_graphic());
        let (label, help) = if !well_formed {
            (
                "no media type",
                "write a media type such as \"text/plain\", \"text/csv; charset=utf-8\" or \"application/pdf\"",
            )
        } else if essence.contains('*') {
            (
                "a range, not one media type",
                "name the media type the body is; `bytes` alone is application/octet-stream",
            )
        } else if essence == "application/json" || essence.ends_with("+json") {
            (
                "a JSON media type",
                "a body of any other type is JSON already: leave the media type out",
            )
        } else if essence.starts_with("multipart/")
            || essence == "application/x-www-form-urlencoded"
        {
            (
                "a body of fields",
                "write `body multipart Model` or `body form Model`",
            )
        } else {
            return Some(text.to_string());
        };
        self.error(
            diagnostic_codes::BAD_BODY_MEDIA,
            lit.span,
            format!("`{}` is not a media type a body is written as", lit.value),
        )
        .label(label)
        .help(help);
        None
    }

    /// A form or multipart body is a model; a part's fields are text (or bytes, or a file):
    /// scalars, enums and lists of them.
    pub(super) fn check_body_of_fields(
        &mut self,
        encoding: ast::BodyEncoding,
        ty: &Type,
        keyword: Span,
        models: &[Model],
    ) {
        let (what, write, field_word, label) = match encoding {
            ast::BodyEncoding::Form => (
                "form",
                "`body form Model`, or `body form { fields }`",
                "form field",
                "a form field is text",
            ),
            ast::BodyEncoding::Multipart => (
                "multipart",
                "`body multipart Model`, or `body multipart { file: file, purpose: string }`",
                "part",
                "a part is text, bytes or a file",
            ),
        };
        let Type::Model(id) = ty else {
            self.error(
                diagnostic_codes::UNSUPPORTED_PARAM_TYPE,
                keyword,
                format!("a {what} body is a model"),
            )
            .label("its fields are named")
            .help(format!("write {write}"));
            return;
        };
        let Some(model) = models.get(id.index()) else {
            return;
        };
        // A form or a part has no way to write null: a required field that holds only null
        // could never be sent.
        for f in &model.fields {
            let null_only = f.ty == Type::Primitive(crate::ir::Primitive::Null);
            if null_only && f.visibility != Visibility::ResponseOnly && !f.presence.may_be_absent()
            {
                self.error(
                    diagnostic_codes::UNKNOWN_TYPE,
                    f.span,
                    format!(
                        "{field_word} `{}.{}` is required and only `null`",
                        model.name, f.name
                    ),
                )
                .label(format!("a {what} body cannot write null"))
                .help(format!(
                    "make it optional (`{}?: null`), or send the body as JSON",
                    f.name
                ));
            }
        }
        // A form writes a structured field with brackets (`items[0][price]=5`); a part of a
        // multipart body has no such way.
        if encoding == ast::BodyEncoding::Form {
            return;
        }
        for f in &model.fields {
            if f.visibility == Visibility::ResponseOnly {
                continue;
            }
            if let Some(kind) = super::endpoints::object_in(&f.ty) {
                self.error(
                    diagnostic_codes::UNSUPPORTED_PARAM_TYPE,
                    keyword,
                    format!("{field_word} `{}.{}` is of {kind} type", model.name, f.name),
                )
                .label(label)
                .help("send a body with structured fields as JSON: `body Model`");
            }
        }
    }

    /// A `file` is a part of a multipart body: a field of a model used only as one, itself
    /// or as a list's items.
    pub(super) fn check_file_placement(&mut self, spec: &Spec) {
        let holds_file: Vec<bool> = spec
            .models
            .iter()
            .map(|m| m.fields.iter().any(|f| part_is_file(&f.ty)))
            .collect();
        // A part of a multipart body that is a model is refused already (E0137).
        let parts_of: Vec<bool> = (0..spec.models.len())
            .map(|i| {
                spec.endpoints.iter().any(|ep| {
                    ep.body_media == BodyMedia::Multipart
                        && matches!(ep.body, Some(Type::Model(id)) if id.index() == i)
                })
            })
            .collect();
        for (i, model) in spec.models.iter().enumerate() {
            for f in &model.fields {
                let misplaced = if part_is_file(&f.ty) || parts_of[i] {
                    None
                } else {
                    misplaced_file(&f.ty, &holds_file)
                };
                if let Some(what) = misplaced {
                    self.refuse_file(
                        spec.spans.models[i],
                        &format!("field `{}.{}`", model.name, f.name),
                        what,
                    );
                }
            }
        }
        for (i, ep) in spec.endpoints.iter().enumerate() {
            let span = spec.spans.endpoints[i];
            let multipart_body = ep.body_media == BodyMedia::Multipart;
            for p in &ep.params {
                if let Some(what) = misplaced_file(&p.field.ty, &holds_file) {
                    self.refuse_file(span, &format!("parameter `{}`", p.field.name), what);
                }
            }
            if let Some(body) = &ep.body
                && !multipart_body
                && let Some(what) = misplaced_file(body, &holds_file)
            {
                self.refuse_file(span, &format!("the body of `{}`", ep.name), what);
            }
            for r in ep.responses.iter().chain(&ep.errors) {
                let types = r.body.iter().chain(r.headers.iter().map(|h| &h.ty));
                for ty in types {
                    if let Some(what) = misplaced_file(ty, &holds_file) {
                        self.refuse_file(
                            span,
                            &format!("response {} of `{}`", r.status, ep.name),
                            what,
                        );
                    }
                }
            }
        }
        for (i, ev) in spec.events.iter().enumerate() {
            for f in &ev.fields {
                if let Some(what) = misplaced_file(&f.ty, &holds_file) {
                    self.refuse_file(spec.spans.events[i], &format!("event `{}`", ev.name), what);
                }
            }
        }
    }

    fn refuse_file(&mut self, span: Span, place: &str, what: &str) {
        self.error(
            diagnostic_codes::BAD_BODY_MEDIA,
            span,
            format!("{place} holds {what} outside a multipart body"),
        )
        .label("a file travels as a part of a multipart body")
        .help("declare it as a field of `body multipart { … }` (a model with a `file` field is used only so); send bytes elsewhere as `bytes`, base64 inside JSON");
    }
}

/// A field that is a file part: `file` or `file[]`.
fn part_is_file(ty: &Type) -> bool {
    match ty {
        Type::Primitive(Primitive::File) => true,
        Type::List(inner, _) => matches!(**inner, Type::Primitive(Primitive::File)),
        _ => false,
    }
}

/// What in `ty` is a file, or a model holding one, where no part of a multipart body is.
fn misplaced_file(ty: &Type, holds_file: &[bool]) -> Option<&'static str> {
    match ty {
        Type::Primitive(Primitive::File) => Some("a `file`"),
        Type::Model(id) if holds_file.get(id.index()).copied().unwrap_or(false) => {
            Some("a model with a `file` field")
        }
        Type::List(inner, _) | Type::Map(inner, _) => misplaced_file(inner, holds_file),
        Type::Union(members) => members.iter().find_map(|m| misplaced_file(m, holds_file)),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `@also_media(…)` on a request body: further media types of the JSON body, each one the
    /// router can read into it (the JSON family, YAML, CBOR).
    pub(super) fn body_also_media(
        &mut self,
        annots: &super::annotations::Annots,
        main: &BodyMedia,
    ) -> Vec<String> {
        let also = self.also_media(annots, main, true);
        if also.is_empty() {
            return also;
        }
        if !main.is_json() {
            if let Some(a) = annots.get("also_media") {
                self.error(
                    diagnostic_codes::BAD_BODY_MEDIA,
                    a.span,
                    "only a JSON body comes in further media types",
                )
                .label("this body is not JSON")
                .help("a form, multipart or raw body has one media type");
            }
            return Vec::new();
        }
        let mut readable = Vec::new();
        for media in also {
            if covenant_runtime::contract::AlsoRead::of(&media).is_some() {
                readable.push(media);
            } else if let Some(a) = annots.get("also_media") {
                self.error(
                    diagnostic_codes::BAD_BODY_MEDIA,
                    a.span,
                    format!("a router cannot read a body sent as `{media}` into its JSON value"),
                )
                .label("not JSON, YAML or CBOR")
                .help("a request body may also come as a JSON-family type, YAML or CBOR");
            }
        }
        readable
    }
}
