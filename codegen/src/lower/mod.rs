//! Lowering: AST → validated IR. Runs in passes (declare names, enums, models, APIs and
//! auth, endpoints, the rest, cross-references), collecting every problem as it goes.

mod aliases;
mod annotations;
mod auth;
mod behaviour;
mod declarations;
mod endpoints;
mod event_type;
mod fields;
mod idempotency;
mod identifiers;
mod input_bounds;
mod media;

pub(crate) use annotations::annotation_names;
pub use identifiers::{snake, spell};
mod paging;
mod references;
mod rejections;
mod response_headers;
mod webhook_registration;
mod whole_spec;

use crate::ast;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::diagnostic_codes;
use crate::ir::*;
use crate::source::Span;
use heck::ToUpperCamelCase;
use std::collections::{HashMap, HashSet};

/// Lowers a parsed file. `None` when any error was reported (the diagnostics say why).
pub fn lower(file: &ast::File, diags: &mut Diagnostics) -> Option<Spec> {
    let errors_before = diags.error_count();
    let mut lowerer = Lowerer::new(diags);
    let decls = lowerer.declare(file);
    let spec = lowerer.build(&decls);
    (lowerer.diags.error_count() == errors_before).then_some(spec)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum TypeDecl {
    Model(ModelId),
    Enum(EnumId),
    /// A `type` declaration, by its index among them.
    Alias(u32),
}

/// A model to lower: declared, the envelope, or a body written in place.
struct ModelSource<'a> {
    name: String,
    decl: &'a ast::ModelDecl,
    attrs: Option<&'a ast::Attrs>,
    origin: ModelOrigin,
}

/// Everything pass 1 found, in declaration order, ids already assigned.
#[derive(Default)]
struct Decls<'a> {
    service: Option<(&'a ast::PropBlock, &'a ast::Attrs)>,
    apis: Vec<(&'a ast::ApiDecl, &'a ast::Attrs)>,
    auths: Vec<(&'a ast::AuthDecl, &'a ast::Attrs)>,
    enums: Vec<(&'a ast::EnumDecl, &'a ast::Attrs)>,
    models: Vec<ModelSource<'a>>,
    aliases: Vec<(&'a ast::TypeAliasDecl, &'a ast::Attrs)>,
    envelope: Option<ModelId>,
    endpoints: Vec<(&'a ast::EndpointDecl, &'a ast::Attrs)>,
    events: Vec<(&'a ast::EventDecl, &'a ast::Attrs)>,
    limits: Vec<(&'a ast::LimitDecl, &'a ast::Attrs)>,
    rate_limits: Vec<(&'a ast::RateLimitDecl, &'a ast::Attrs)>,
    states: Vec<(&'a ast::StatesDecl, &'a ast::Attrs)>,
    changelog: Vec<&'a ast::Member<ast::ChangeEntry>>,
    not_shown: Vec<&'a ast::StrLit>,
}

pub(crate) struct Lowerer<'d> {
    diags: &'d mut Diagnostics,
    types: HashMap<String, (TypeDecl, Span)>,
    apis: HashMap<String, (ApiId, Span)>,
    auths: HashMap<String, (AuthId, Span)>,
    endpoints: HashMap<String, (EndpointId, Span)>,
    events: HashMap<String, (EventId, Span)>,
    others: HashMap<String, Span>,
    /// Bodies written in place, by the span of their braces.
    inline_models: HashMap<Span, ModelId>,
    /// Types some field, body or event refers to; the rest get an "unused" warning.
    used_types: HashSet<TypeDecl>,
    /// `use:` targets of deprecations, checked once everything exists.
    pending_replacements: Vec<references::PendingReplacement>,
    not_shown: Vec<NotShown>,
    /// The service's `max_length` and `max_items`, for strings and lists without their own.
    default_bounds: (Option<DefaultBound>, Option<DefaultBound>),
    /// `type` declarations, lowered when first used.
    aliases: Vec<aliases::AliasEntry>,
}

impl<'d> Lowerer<'d> {
    fn new(diags: &'d mut Diagnostics) -> Self {
        Lowerer {
            diags,
            types: HashMap::new(),
            apis: HashMap::new(),
            auths: HashMap::new(),
            endpoints: HashMap::new(),
            events: HashMap::new(),
            others: HashMap::new(),
            inline_models: HashMap::new(),
            used_types: HashSet::new(),
            pending_replacements: Vec::new(),
            not_shown: Vec::new(),
            default_bounds: (None, None),
            aliases: Vec::new(),
        }
    }

    fn error(
        &mut self,
        code: &'static str,
        span: Span,
        message: impl Into<String>,
    ) -> DiagBuilder<'_> {
        DiagBuilder {
            diags: self.diags,
            diag: Some(Diagnostic::error(code, span, message)),
        }
    }

    /// Records a "not shown" marker; an empty description says nothing and is an error.
    fn record_not_shown(&mut self, what: &ast::StrLit, owner: String) -> String {
        if what.value.trim().is_empty() {
            self.error(
                diagnostic_codes::EMPTY_NOT_SHOWN,
                what.span,
                "`not_shown` needs to say what is not shown",
            )
            .label("empty description")
            .help("write what the source leaves open, e.g. not_shown \"Allowed values of gender\"");
        }
        self.not_shown.push(NotShown {
            what: what.value.clone(),
            owner,
            span: what.span,
        });
        what.value.clone()
    }

    /// Pass 1: give every named thing an id, reporting duplicates in each namespace.
    fn declare<'a>(&mut self, file: &'a ast::File) -> Decls<'a> {
        let mut decls = Decls::default();
        for item in &file.items {
            let attrs = &item.attrs;
            match &item.kind {
                ast::ItemKind::Service(block) => {
                    if let Some((first, _)) = decls.service {
                        self.duplicate(
                            "service",
                            &block.name.text,
                            block.name.span,
                            first.name.span,
                        );
                    } else {
                        decls.service = Some((block, attrs));
                    }
                }
                ast::ItemKind::Api(api) => {
                    let id = ApiId(decls.apis.len() as u32);
                    if self.claim(NameSpace::Api, &api.name, Claim::Api(id)) {
                        decls.apis.push((api, attrs));
                    }
                }
                ast::ItemKind::Auth(auth) => {
                    let id = AuthId(decls.auths.len() as u32);
                    if self.claim(NameSpace::Auth, &auth.name, Claim::Auth(id)) {
                        decls.auths.push((auth, attrs));
                    }
                }
                ast::ItemKind::Enum(e) => {
                    let id = EnumId(decls.enums.len() as u32);
                    if self.claim(NameSpace::Type, &e.name, Claim::Type(TypeDecl::Enum(id))) {
                        decls.enums.push((e, attrs));
                    }
                }
                ast::ItemKind::Model(m) | ast::ItemKind::Envelope(m) => {
                    let envelope = matches!(item.kind, ast::ItemKind::Envelope(_));
                    if envelope && decls.envelope.is_some() {
                        self.error(
                            diagnostic_codes::DUPLICATE,
                            item.head,
                            "a spec has one event envelope",
                        )
                        .label("second envelope")
                        .help("fold the fields into the first envelope");
                        continue;
                    }
                    let id = ModelId(decls.models.len() as u32);
                    if self.claim(NameSpace::Type, &m.name, Claim::Type(TypeDecl::Model(id))) {
                        if envelope {
                            decls.envelope = Some(id);
                        }
                        decls.models.push(ModelSource {
                            name: m.name.text.clone(),
                            decl: m,
                            attrs: Some(attrs),
                            origin: if envelope {
                                ModelOrigin::Envelope
                            } else {
                                ModelOrigin::Declared
                            },
                        });
                    }
                }
                ast::ItemKind::Type(alias) => {
                    let index = decls.aliases.len() as u32;
                    if self.claim(
                        NameSpace::Type,
                        &alias.name,
                        Claim::Type(TypeDecl::Alias(index)),
                    ) {
                        decls.aliases.push((alias, attrs));
                    }
                }
                ast::ItemKind::Endpoint(ep) => {
                    let id = EndpointId(decls.endpoints.len() as u32);
                    if self.claim(NameSpace::Endpoint, &ep.name, Claim::Endpoint(id)) {
                        decls.endpoints.push((ep, attrs));
                        self.declare_inline_bodies(ep, &mut decls.models);
                    }
                }
                ast::ItemKind::Event(ev) => {
                    let id = EventId(decls.events.len() as u32);
                    if self.claim(NameSpace::Event, &ev.name, Claim::Event(id)) {
                        decls.events.push((ev, attrs));
                    }
                }
                ast::ItemKind::Limit(l) => {
                    if self.claim(NameSpace::Other, &l.name, Claim::Other) {
                        decls.limits.push((l, attrs));
                    }
                }
                ast::ItemKind::RateLimit(r) => {
                    if self.claim(NameSpace::Other, &r.name, Claim::Other) {
                        decls.rate_limits.push((r, attrs));
                    }
                }
                ast::ItemKind::States(s) => {
                    if self.claim(NameSpace::Other, &s.name, Claim::Other) {
                        decls.states.push((s, attrs));
                    }
                }
                ast::ItemKind::Changelog(entries) => decls.changelog.extend(entries.iter()),
                ast::ItemKind::NotShown(what) => decls.not_shown.push(what),
            }
        }
        decls
    }

    /// Generated code names an `Input` struct and a `Response` enum after each endpoint; a
    /// type of the spec with one of those names would collide with them.
    fn check_reserved_names(&mut self, endpoints: &[(&ast::EndpointDecl, &ast::Attrs)]) {
        // `<Model>Builder`: a model's builder.
        let mut builders: Vec<(String, crate::source::Span)> = self
            .types
            .iter()
            .filter(|(_, (decl, _))| matches!(decl, TypeDecl::Model(_)))
            .filter_map(|(name, (_, span))| {
                let builder = format!("{}Builder", name.to_upper_camel_case());
                self.types
                    .contains_key(&builder)
                    .then_some((builder, *span))
            })
            .collect();
        builders.sort_by_key(|(name, _)| name.clone());
        for (builder, model) in builders {
            if let Some((_, span)) = self.types.get(&builder).copied() {
                self.error(
                    diagnostic_codes::DUPLICATE,
                    span,
                    format!("type `{builder}` collides with generated code"),
                )
                .label("this name is taken")
                .note(model, "a model whose builder is named so")
                .help("rename the type");
            }
        }
        for (ep, _) in endpoints {
            let base = ep.name.text.to_upper_camel_case();
            // `<Endpoint><Status>Headers`: the headers of a response that declares some.
            let has_headers = ep.members.iter().any(|m| match &m.node {
                ast::EndpointMember::Response { headers, .. } => !headers.is_empty(),
                ast::EndpointMember::Error(error) => !error.headers.is_empty(),
                _ => false,
            });
            let mut headers: Vec<String> = self
                .types
                .keys()
                .filter(|n| has_headers && n.starts_with(&base) && n.ends_with("Headers"))
                .cloned()
                .collect();
            headers.sort();
            let reserved = [format!("{base}Input"), format!("{base}Response")];
            for generated in reserved.into_iter().chain(headers) {
                if let Some((_, span)) = self.types.get(&generated).copied() {
                    self.error(
                        diagnostic_codes::DUPLICATE,
                        span,
                        format!("type `{generated}` collides with generated code"),
                    )
                    .label("this name is taken")
                    .note(
                        ep.name.span,
                        format!("generated for endpoint `{}`", ep.name.text),
                    )
                    .help("rename the type");
                }
            }
        }
    }

    /// Bodies written in place become models named after the endpoint.
    fn declare_inline_bodies<'a>(
        &mut self,
        ep: &'a ast::EndpointDecl,
        models: &mut Vec<ModelSource<'a>>,
    ) {
        let base = ep.name.text.to_upper_camel_case();
        let inline_responses = ep
            .members
            .iter()
            .filter(|m| {
                matches!(
                    &m.node,
                    ast::EndpointMember::Response {
                        body: Some(ast::BodyDecl::Inline(_)),
                        ..
                    }
                )
            })
            .count();
        for member in &ep.members {
            let (decl, name, origin) = match &member.node {
                ast::EndpointMember::Body(ast::BodyDecl::Inline(decl), _) => (
                    decl,
                    format!("{base}Request"),
                    ModelOrigin::RequestBody(ep.name.text.clone()),
                ),
                ast::EndpointMember::Response {
                    statuses,
                    body: Some(ast::BodyDecl::Inline(decl)),
                    ..
                } => {
                    let name = if inline_responses > 1 {
                        format!("{base}Result{}", statuses[0].code)
                    } else {
                        format!("{base}Result")
                    };
                    (decl, name, ModelOrigin::ResponseBody(ep.name.text.clone()))
                }
                _ => continue,
            };
            let id = ModelId(models.len() as u32);
            let ident = ast::Ident {
                text: name.clone(),
                span: decl.name.span,
            };
            if self.claim(NameSpace::Type, &ident, Claim::Type(TypeDecl::Model(id))) {
                self.used_types.insert(TypeDecl::Model(id));
                self.inline_models.insert(decl.body_span, id);
                models.push(ModelSource {
                    name,
                    decl,
                    attrs: None,
                    origin,
                });
            }
        }
    }

    fn duplicate(&mut self, kind: &str, name: &str, span: Span, first: Span) {
        self.error(
            diagnostic_codes::DUPLICATE,
            span,
            format!("{kind} `{name}` is defined more than once"),
        )
        .label("defined again here")
        .note(first, "first defined here")
        .help("each name may be defined once; rename or remove one of them");
    }

    /// Registers a name; false (and a diagnostic) when the namespace already has it.
    fn claim(&mut self, space: NameSpace, name: &ast::Ident, claim: Claim) -> bool {
        let existing = match space {
            NameSpace::Type => self.types.get(&name.text).map(|(_, s)| *s),
            NameSpace::Api => self.apis.get(&name.text).map(|(_, s)| *s),
            NameSpace::Auth => self.auths.get(&name.text).map(|(_, s)| *s),
            NameSpace::Endpoint => self.endpoints.get(&name.text).map(|(_, s)| *s),
            NameSpace::Event => self.events.get(&name.text).map(|(_, s)| *s),
            NameSpace::Other => self.others.get(&name.text).copied(),
        };
        if let Some(first) = existing {
            self.duplicate(space.describe(), &name.text, name.span, first);
            return false;
        }
        let key = name.text.clone();
        match claim {
            Claim::Type(t) => drop(self.types.insert(key, (t, name.span))),
            Claim::Api(id) => drop(self.apis.insert(key, (id, name.span))),
            Claim::Auth(id) => drop(self.auths.insert(key, (id, name.span))),
            Claim::Endpoint(id) => drop(self.endpoints.insert(key, (id, name.span))),
            Claim::Event(id) => drop(self.events.insert(key, (id, name.span))),
            Claim::Other => drop(self.others.insert(key, name.span)),
        }
        true
    }

    /// Passes 2 to 7, in dependency order.
    fn build(&mut self, decls: &Decls) -> Spec {
        self.check_reserved_names(&decls.endpoints);
        let service = self.lower_service(decls.service);
        let enums: Vec<Enum> = decls
            .enums
            .iter()
            .map(|(e, a)| self.lower_enum(e, a))
            .collect();
        self.check_subsets(&decls.enums, &enums);
        let unions = self.lower_aliases(&decls.aliases);
        let models: Vec<Model> = decls
            .models
            .iter()
            .map(|m| self.lower_model(m, &enums))
            .collect();
        let mut apis: Vec<Api> = decls
            .apis
            .iter()
            .map(|(a, attrs)| self.lower_api(a, attrs, &enums))
            .collect();
        self.lower_rejections(decls, &models, &mut apis);
        let auth_schemes: Vec<AuthScheme> = decls
            .auths
            .iter()
            .map(|(a, attrs)| self.lower_auth(a, attrs))
            .collect();
        let mut spans = SpanTable {
            apis: decls.apis.iter().map(|(a, _)| a.name.span).collect(),
            auth_schemes: decls.auths.iter().map(|(a, _)| a.name.span).collect(),
            enums: decls.enums.iter().map(|(e, _)| e.name.span).collect(),
            models: decls.models.iter().map(|m| m.decl.name.span).collect(),
            unions: self.union_spans(),
            endpoints: decls.endpoints.iter().map(|(e, _)| e.name.span).collect(),
            events: decls.events.iter().map(|(e, _)| e.name.span).collect(),
            service: decls.service.map(|(s, _)| s.name.span),
            limits: decls.limits.iter().map(|(l, _)| l.name.span).collect(),
            rate_limits: decls.rate_limits.iter().map(|(r, _)| r.name.span).collect(),
        };
        let endpoints: Vec<Endpoint> = decls
            .endpoints
            .iter()
            .map(|(ep, attrs)| {
                self.lower_endpoint(ep, attrs, &apis, &models, &enums, &auth_schemes)
            })
            .collect();
        self.check_routes(&endpoints, &spans.endpoints, &apis);
        let events = self.lower_events(decls, &models, &enums);
        let event_type = self.lower_event_type(decls);
        let event_signing = self.lower_event_signing(decls);
        let limits = decls
            .limits
            .iter()
            .map(|(l, a)| self.lower_limit(l, a, &endpoints, &models))
            .collect();
        let rate_limits = decls
            .rate_limits
            .iter()
            .map(|(r, a)| self.lower_rate_limit(r, a))
            .collect();
        let state_machines = decls
            .states
            .iter()
            .map(|(s, a)| self.lower_states(s, a))
            .collect();
        let changelog = self.lower_changelog(&decls.changelog);
        for what in &decls.not_shown {
            self.record_not_shown(what, "spec".into());
        }
        let mut spec = Spec {
            service,
            apis,
            auth_schemes,
            enums,
            models,
            unions,
            endpoints,
            envelope: decls.envelope,
            event_type,
            event_signing,
            events,
            limits,
            rate_limits,
            state_machines,
            changelog,
            not_shown: Vec::new(),
            spans: std::mem::take(&mut spans),
        };
        self.check_replacements(&spec);
        self.check_whole_spec(&spec);
        self.keep_default_bounds_on_inputs(&mut spec);
        // With errors, a type may look unused only because a reference to it failed.
        if !self.diags.has_errors() {
            self.warn_unused(&spec);
            self.warn_unwritten_rejections(&spec);
        }
        spec.not_shown = std::mem::take(&mut self.not_shown);
        spec.not_shown.sort_by_key(|n| n.span);
        identifiers::assign(&mut spec);
        spec
    }
}

#[derive(Clone, Copy)]
enum NameSpace {
    Type,
    Api,
    Auth,
    Endpoint,
    Event,
    Other,
}

impl NameSpace {
    fn describe(self) -> &'static str {
        match self {
            NameSpace::Type => "type",
            NameSpace::Api => "api",
            NameSpace::Auth => "auth scheme",
            NameSpace::Endpoint => "endpoint",
            NameSpace::Event => "event",
            NameSpace::Other => "name",
        }
    }
}

enum Claim {
    Type(TypeDecl),
    Api(ApiId),
    Auth(AuthId),
    Endpoint(EndpointId),
    Event(EventId),
    Other,
}

/// A diagnostic being built; pushed when dropped, so call sites read as one expression.
pub(crate) struct DiagBuilder<'a> {
    diags: &'a mut Diagnostics,
    diag: Option<Diagnostic>,
}

impl DiagBuilder<'_> {
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.diag = self.diag.take().map(|d| d.label(label));
        self
    }
    pub fn note(mut self, span: Span, label: impl Into<String>) -> Self {
        self.diag = self.diag.take().map(|d| d.note(span, label));
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.diag = self.diag.take().map(|d| d.help(help));
        self
    }
}

impl Drop for DiagBuilder<'_> {
    fn drop(&mut self) {
        if let Some(d) = self.diag.take() {
            self.diags.push(d);
        }
    }
}
