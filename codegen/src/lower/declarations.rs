//! The service block, APIs, enums and models.

use super::annotations::Site;
use super::references::ReplacementScope;
use super::{Lowerer, ModelSource, TypeDecl};
use crate::ast::{self, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;
use std::collections::HashMap;

impl Lowerer<'_> {
    pub(super) fn lower_service(
        &mut self,
        decl: Option<(&ast::PropBlock, &ast::Attrs)>,
    ) -> Service {
        let Some((block, attrs)) = decl else {
            return Service::default();
        };
        let mut service = Service {
            name: block.name.text.clone(),
            doc: attrs.doc.clone(),
            ..Service::default()
        };
        for prop in &block.props {
            match prop.node.key.text.as_str() {
                "title" => service.title = self.string_prop(&prop.node),
                "version" => service.version = self.string_prop(&prop.node),
                "max_length" => service.max_length = self.default_bound(prop),
                "max_items" => service.max_items = self.default_bound(prop),
                _ => self.unknown_setting(
                    &prop.node,
                    "service",
                    &["title", "version", "max_length", "max_items"],
                ),
            }
        }
        self.default_bounds = (service.max_length, service.max_items);
        service
    }

    /// `max_length 4096`: one whole number of at least 1, with its `@source`.
    fn default_bound(&mut self, prop: &ast::Member<ast::Prop>) -> Option<DefaultBound> {
        let annots = self.annots(&prop.attrs, Site::Other);
        let provenance = self.provenance(&annots);
        match prop.node.values.as_slice() {
            [
                ast::Value {
                    kind: ValueKind::Int(n),
                    ..
                },
            ] if *n >= 1 => Some(DefaultBound {
                value: *n as u64,
                provenance,
            }),
            _ => {
                self.error(
                    diagnostic_codes::BAD_SETTING,
                    prop.node.key.span,
                    format!(
                        "`{}` takes one whole number of at least 1",
                        prop.node.key.text
                    ),
                )
                .label("expected a number such as 4096");
                None
            }
        }
    }

    pub(super) fn unknown_setting(&mut self, prop: &ast::Prop, what: &str, known: &[&str]) {
        self.error(
            diagnostic_codes::BAD_SETTING,
            prop.key.span,
            format!("unknown setting `{}` in {what}", prop.key.text),
        )
        .label("not understood here")
        .help(format!("settings of {what}: {}", known.join(", ")));
    }

    /// The single string of `key "value"`.
    pub(super) fn string_prop(&mut self, prop: &ast::Prop) -> Option<String> {
        match prop.values.as_slice() {
            [
                ast::Value {
                    kind: ValueKind::Str(s),
                    ..
                },
            ] => Some(s.clone()),
            _ => {
                self.error(
                    diagnostic_codes::BAD_SETTING,
                    prop.key.span,
                    format!("`{}` takes one string", prop.key.text),
                )
                .label("expected one string value");
                None
            }
        }
    }

    /// The names of `key a, b, c`.
    pub(super) fn word_props(&mut self, prop: &ast::Prop) -> Vec<ast::Ident> {
        let mut out = Vec::new();
        for v in &prop.values {
            match &v.kind {
                ValueKind::Ref(path) if path.len() == 1 => out.push(path[0].clone()),
                _ => {
                    self.error(
                        diagnostic_codes::BAD_SETTING,
                        v.span,
                        format!("`{}` takes names", prop.key.text),
                    )
                    .label("not a name");
                }
            }
        }
        out
    }

    pub(super) fn lower_api(
        &mut self,
        decl: &ast::ApiDecl,
        attrs: &ast::Attrs,
        enums: &[Enum],
    ) -> Api {
        let annots = self.annots(attrs, Site::Api);
        let gates = self.gates(&annots);
        let mut base_url = None;
        let mut versions = Vec::new();
        for prop in &decl.props {
            match prop.node.key.text.as_str() {
                "base" => base_url = self.string_prop(&prop.node),
                "versions" => {
                    for v in &prop.node.values {
                        match &v.kind {
                            ValueKind::Str(s) if s.starts_with('/') && !s.ends_with('/') => {
                                versions.push(s.clone())
                            }
                            _ => {
                                self.error(
                                    diagnostic_codes::BAD_SETTING,
                                    v.span,
                                    "a version is a path prefix such as \"/v2\"",
                                )
                                .label("expected a string starting with `/`");
                            }
                        }
                    }
                }
                // Read once the models exist (`lower_rejections`).
                "rejections" => {}
                _ => {
                    self.unknown_setting(&prop.node, "an api", &["base", "versions", "rejections"])
                }
            }
        }
        if base_url.is_none() {
            self.error(
                diagnostic_codes::BAD_SETTING,
                decl.name.span,
                format!("api `{}` has no `base`", decl.name.text),
            )
            .label("missing its base address")
            .help("add e.g. `base \"{base_url}\"`");
        }
        let errors = decl
            .errors
            .iter()
            .filter_map(|m| {
                self.lower_error(&m.attrs, &m.node, ErrorSite::Api, &decl.name.text, enums)
            })
            .collect();
        let headers = self.api_headers(decl, enums);
        Api {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            base_url: base_url.unwrap_or_default(),
            versions,
            errors,
            headers,
            gates,
            rejections: None,
        }
    }

    /// The headers every endpoint of the api takes, each read as an endpoint's would be.
    fn api_headers(&mut self, decl: &ast::ApiDecl, enums: &[Enum]) -> Vec<Field> {
        let mut out: Vec<Field> = Vec::new();
        for member in &decl.headers {
            let name = &member.node.name;
            if let Some(first) = out.iter().find(|f| f.name.eq_ignore_ascii_case(&name.text)) {
                let first = first.span;
                self.error(
                    diagnostic_codes::DUPLICATE_MEMBER,
                    name.span,
                    format!("header `{}` is declared twice", name.text),
                )
                .label("repeated header")
                .note(first, "first declared here");
                continue;
            }
            let scope = ReplacementScope::Param(decl.name.text.clone());
            if let Some(field) =
                self.lower_field(&member.attrs, &member.node, Site::Param, scope, enums)
            {
                self.check_param_type(&field, ParamLocation::Header, member.node.ty.span);
                out.push(field);
            }
        }
        out
    }

    pub(super) fn gates(&mut self, annots: &super::annotations::Annots) -> Vec<Gate> {
        let mut gates = Vec::new();
        if let Some(a) = annots.get("requires_feature")
            && let Some(s) = self.string_arg(a)
        {
            gates.push(Gate::Feature(s));
        }
        if let Some(a) = annots.get("requires_plan")
            && let Some(s) = self.string_arg(a)
        {
            gates.push(Gate::Plan(s));
        }
        gates
    }

    pub(super) fn lower_error(
        &mut self,
        attrs: &ast::Attrs,
        decl: &ast::ErrorDecl,
        site: ErrorSite,
        owner: &str,
        enums: &[Enum],
    ) -> Option<Response> {
        let annots = self.annots(attrs, Site::Response);
        let Some(status) = pattern_of(&decl.status).filter(|p| !p.is_success()) else {
            self.error(
                diagnostic_codes::BAD_STATUS,
                decl.status.span,
                format!("error status {} is not 4xx or 5xx", decl.status.text()),
            )
            .label("errors use 400 to 599, `4XX`, `5XX` or `default`")
            .help("declare success statuses with `response`");
            return None;
        };
        let (body, media) = match &decl.ty {
            Some(ty) => {
                let (body, media) = self.error_body(decl, ty, site)?;
                (Some(body), media)
            }
            None => (None, BodyMedia::Json),
        };
        let headers = self.response_headers(owner, &decl.headers, enums);
        let also_media = self.also_media(&annots, &media, body.is_some());
        Some(Response {
            status,
            doc: attrs.doc.clone(),
            body,
            nullable: false,
            media,
            also_media,
            headers,
            provenance: self.provenance(&annots),
            span: decl.status.span,
        })
    }

    /// An error's body and how it is written; `None` when its type does not lower.
    fn error_body(
        &mut self,
        decl: &ast::ErrorDecl,
        ty: &ast::TypeExpr,
        site: ErrorSite,
    ) -> Option<(crate::ir::Type, BodyMedia)> {
        let (body, nullable) = self.lower_type(ty)?;
        if nullable {
            self.error(
                diagnostic_codes::BAD_STATUS,
                ty.span,
                "an error body cannot be null",
            )
            .label("an error with a body always has one")
            .help("write `error 404` for an error without a body");
        }
        let media = self.body_media(
            &ast::BodyDecl::Type(ty.clone(), decl.media.clone()),
            &body,
            false,
        );
        if media.is_stream() {
            let span = decl.media.as_ref().map_or(ty.span, |m| m.span);
            self.error(
                diagnostic_codes::BAD_BODY_MEDIA,
                span,
                "an error is answered whole, not as a stream",
            )
            .label("streams are successes")
            .help("leave the media type out: the error's list is JSON");
        }
        if matches!(media, BodyMedia::Raw(_)) && site == ErrorSite::Api {
            let span = decl.media.as_ref().map_or(ty.span, |m| m.span);
            self.error(
                diagnostic_codes::BAD_BODY_MEDIA,
                span,
                "an api's errors are JSON",
            )
            .label("the router writes its own errors of these statuses in the api's JSON shape")
            .help("declare an error written as it is on the endpoint that answers it");
        }
        Some((body, media))
    }

    pub(super) fn lower_enum(&mut self, decl: &ast::EnumDecl, attrs: &ast::Attrs) -> Enum {
        let annots = self.annots(attrs, Site::Enum);
        let repr = match &decl.repr {
            None => EnumRepr::String,
            Some(r) if r.text == "int" => EnumRepr::Int,
            Some(r) => {
                self.error(
                    diagnostic_codes::UNKNOWN_TYPE,
                    r.span,
                    format!("enum values cannot be of type `{}`", r.text),
                )
                .label("only `int` may be given")
                .help("leave it out for string values");
                EnumRepr::String
            }
        };
        let parent = decl
            .parent
            .as_ref()
            .and_then(|p| match self.types.get(&p.text).copied() {
                Some((TypeDecl::Enum(id), _)) => {
                    self.used_types.insert(TypeDecl::Enum(id));
                    Some(id)
                }
                Some((TypeDecl::Model(_) | TypeDecl::Alias(_), _)) => {
                    self.error(
                        diagnostic_codes::UNKNOWN_TYPE,
                        p.span,
                        format!("`{}` is a model, not an enum", p.text),
                    )
                    .label("a subset needs a parent enum");
                    None
                }
                None => {
                    self.unknown_type(p);
                    None
                }
            });
        let owner = format!("enum {}", decl.name.text);
        let mut values: Vec<EnumValue> = Vec::new();
        let mut seen: HashMap<String, crate::source::Span> = HashMap::new();
        let mut not_shown = Vec::new();
        for member in &decl.members {
            let value = match &member.node {
                ast::EnumMember::NotShown(what) => {
                    not_shown.push(self.record_not_shown(what, owner.clone()));
                    continue;
                }
                ast::EnumMember::Value(v) => v,
            };
            let annots = self.annots(&member.attrs, Site::EnumValue);
            if (repr == EnumRepr::Int) != value.is_int {
                let want = if repr == EnumRepr::Int {
                    "whole numbers"
                } else {
                    "names or strings"
                };
                self.error(
                    diagnostic_codes::DEFAULT_WRONG_TYPE,
                    value.span,
                    format!("values of `{}` are {want}", decl.name.text),
                )
                .label("does not match the enum's type");
            }
            if let Some(first) = seen.get(&value.text) {
                let first = *first;
                self.error(
                    diagnostic_codes::DUPLICATE_MEMBER,
                    value.span,
                    format!("`{}` is listed twice in `{}`", value.text, decl.name.text),
                )
                .label("repeated value")
                .note(first, "first listed here");
                continue;
            }
            seen.insert(value.text.clone(), value.span);
            let deprecated = self.deprecation(&annots).map(|(dep, target)| {
                if let Some((name, span)) = target {
                    self.queue_replacement(
                        ReplacementScope::EnumValue(decl.name.text.clone()),
                        name,
                        span,
                    );
                }
                dep
            });
            values.push(EnumValue {
                name: value.text.clone(),
                doc: member.attrs.doc.clone(),
                deprecated,
                provenance: self.provenance(&annots),
                span: value.span,
            });
        }
        let catalogue_size = annots.get("catalogue").and_then(|a| {
            let args = self.named_args(a, &["size"]);
            match args.as_slice() {
                [
                    (
                        "size",
                        ast::Value {
                            kind: ValueKind::Int(n),
                            ..
                        },
                    ),
                ] if *n >= 0 => Some(*n as usize),
                _ => {
                    self.bad_args(a, "`size: N`, the number of values the catalogue holds");
                    None
                }
            }
        });
        if let (Some(size), Some(a)) = (catalogue_size, annots.get("catalogue"))
            && size != values.len()
        {
            self.error(
                diagnostic_codes::CATALOGUE_SIZE_MISMATCH,
                decl.name.span,
                format!(
                    "`{}` lists {} values but its catalogue holds {size}",
                    decl.name.text,
                    values.len()
                ),
            )
            .label(format!("{} values listed", values.len()))
            .note(a.span, format!("stated size {size}"))
            .help("list every catalogue value, or correct the stated size");
        }
        Enum {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            open: decl.open.is_some(),
            repr,
            values,
            parent,
            catalogue_size,
            not_shown,
            provenance: self.provenance(&annots),
        }
    }

    /// Every value of a subset enum must be a value of its parent.
    pub(super) fn check_subsets(
        &mut self,
        decls: &[(&ast::EnumDecl, &ast::Attrs)],
        enums: &[Enum],
    ) {
        for ((decl, _), e) in decls.iter().zip(enums) {
            let Some(parent) = e.parent.map(|p| &enums[p.index()]) else {
                continue;
            };
            for member in &decl.members {
                let ast::EnumMember::Value(v) = &member.node else {
                    continue;
                };
                if !parent.values.iter().any(|p| p.name == v.text) {
                    let parent_span = decl.parent.as_ref().map_or(decl.name.span, |p| p.span);
                    self.error(
                        diagnostic_codes::SUBSET_VALUE_NOT_IN_PARENT,
                        v.span,
                        format!("`{}` is not a value of `{}`", v.text, parent.name),
                    )
                    .label("not in the parent enum".to_string())
                    .note(parent_span, "declared a subset here")
                    .help(format!(
                        "add `{}` to `{}` or remove it here",
                        v.text, parent.name
                    ));
                }
            }
        }
    }

    pub(super) fn lower_model(&mut self, src: &ModelSource, enums: &[Enum]) -> Model {
        let empty = ast::Attrs::default();
        let attrs = src.attrs.unwrap_or(&empty);
        let annots = self.annots(attrs, Site::Model);
        let owner = format!("model {}", src.name);
        let mut fields: Vec<Field> = Vec::new();
        // Each name with the shapes it is declared for so far, and where first declared.
        let mut seen: HashMap<String, (crate::source::Span, Sides)> = HashMap::new();
        let mut not_shown = Vec::new();
        let mut open = false;
        for member in &src.decl.members {
            let decl = match &member.node {
                ast::ModelMember::NotShown { what, fields } => {
                    not_shown.push(self.record_not_shown(what, owner.clone()));
                    open |= *fields;
                    continue;
                }
                ast::ModelMember::Field(f) => f,
            };
            let sides = Sides::of(&member.attrs);
            if let Some((first, taken)) = seen.get(&decl.name.text).copied() {
                // A request-only and a response-only field may share a name: each shape
                // has one field of that name, e.g. an address of another shape per side.
                if taken.overlaps(sides) {
                    self.error(
                        diagnostic_codes::DUPLICATE_MEMBER,
                        decl.name.span,
                        format!(
                            "field `{}` is declared twice in `{}`",
                            decl.name.text, src.name
                        ),
                    )
                    .label("repeated field")
                    .note(first, "first declared here")
                    .help("only a `@request_only` and a `@response_only` field may share a name");
                    continue;
                }
                if decl.default.is_some()
                    && fields
                        .iter()
                        .any(|f| f.name == decl.name.text && f.default.is_some())
                {
                    self.error(
                        diagnostic_codes::DUPLICATE_MEMBER,
                        decl.name.span,
                        format!(
                            "both shapes of `{}.{}` give a default",
                            src.name, decl.name.text
                        ),
                    )
                    .label("second default")
                    .note(first, "the other shape's field")
                    .help("give the default on one side only");
                    continue;
                }
            }
            let entry = seen
                .entry(decl.name.text.clone())
                .or_insert((decl.name.span, Sides::default()));
            entry.1 = entry.1.with(sides);
            let scope = ReplacementScope::Field(src.name.clone());
            if let Some(field) = self.lower_field(&member.attrs, decl, Site::Field, scope, enums) {
                fields.push(field);
            }
        }
        let deprecated = self.deprecation(&annots).map(|(dep, _)| dep);
        let groups = GroupRule::ALL
            .into_iter()
            .filter_map(|rule| {
                let a = annots.get(rule.annotation())?;
                self.field_group(a, rule, &src.name, &fields)
            })
            .collect();
        Model {
            groups,
            name: src.name.clone(),
            doc: attrs.doc.clone(),
            fields,
            not_shown,
            open,
            origin: src.origin.clone(),
            deprecated,
            provenance: self.provenance(&annots),
        }
    }
}

impl Lowerer<'_> {
    /// `@exactly_one_of(a, b)` and its kin on a model: two or more of its optional fields
    /// without a default, each named once.
    fn field_group(
        &mut self,
        a: &ast::Annotation,
        rule: GroupRule,
        model: &str,
        fields: &[Field],
    ) -> Option<FieldGroup> {
        const EXPECTED: &str = "two or more optional fields of the model";
        let mut names: Vec<String> = Vec::new();
        let mut well_formed = a.args.len() >= 2;
        for arg in &a.args {
            let (None, ast::ValueKind::Ref(path)) = (&arg.name, &arg.value.kind) else {
                well_formed = false;
                continue;
            };
            let [name] = path.as_slice() else {
                well_formed = false;
                continue;
            };
            let Some(field) = fields.iter().find(|f| f.name == name.text) else {
                self.error(
                    diagnostic_codes::UNKNOWN_REFERENCE,
                    name.span,
                    format!("model `{model}` has no field `{}`", name.text),
                )
                .label("unknown field");
                return None;
            };
            if !field.presence.may_be_absent()
                || field.default.is_some()
                || names.contains(&name.text)
            {
                let why = if names.contains(&name.text) {
                    "is named twice"
                } else if field.default.is_some() {
                    "has a default, so it is always there"
                } else {
                    "is required, so it is always there"
                };
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    name.span,
                    format!("`{}` {why}", name.text),
                )
                .label("a group holds optional fields, each once")
                .help("add `?` after its name, without a default");
                return None;
            }
            names.push(name.text.clone());
        }
        if !well_formed {
            self.bad_args(a, EXPECTED);
            return None;
        }
        Some(FieldGroup {
            rule,
            fields: names,
            span: a.span,
        })
    }
}

/// The shapes a field declaration belongs to, read from its annotations.
#[derive(Clone, Copy, Debug, Default)]
struct Sides {
    request: bool,
    response: bool,
}

impl Sides {
    fn of(attrs: &ast::Attrs) -> Self {
        let has = |name: &str| attrs.annotations.iter().any(|a| a.name.text == name);
        match (has("request_only"), has("response_only")) {
            (true, false) => Sides {
                request: true,
                response: false,
            },
            (false, true) => Sides {
                request: false,
                response: true,
            },
            _ => Sides {
                request: true,
                response: true,
            },
        }
    }

    fn overlaps(self, other: Sides) -> bool {
        (self.request && other.request) || (self.response && other.response)
    }

    fn with(self, other: Sides) -> Sides {
        Sides {
            request: self.request || other.request,
            response: self.response || other.response,
        }
    }
}

/// Where an error is declared: on an api, for every endpoint of it, or on one endpoint.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ErrorSite {
    Api,
    Endpoint,
}

/// The statuses a written status stands for; `None` for one no response can have (`99`,
/// `7XX`).
pub(super) fn pattern_of(status: &ast::Status) -> Option<StatusPattern> {
    match status.form {
        ast::StatusForm::Code => u16::try_from(status.code)
            .ok()
            .filter(|c| (100..=599).contains(c))
            .map(StatusPattern::Exact),
        ast::StatusForm::Class => u8::try_from(status.code)
            .ok()
            .filter(|c| (1..=5).contains(c))
            .map(StatusPattern::Class),
        ast::StatusForm::Default => Some(StatusPattern::Default),
    }
}
