//! Endpoints: method, path and its parameters, auth, bodies, responses, paging.

use super::Lowerer;
use super::annotations::Site;
use super::declarations::ErrorSite;
use super::references::ReplacementScope;
use crate::ast::{self, EndpointMember, ValueKind};
use crate::diagnostic_codes;
use crate::ir::routes::route_of;
use crate::ir::*;
use crate::source::Span;
use std::collections::HashMap;

impl Lowerer<'_> {
    pub(super) fn lower_endpoint(
        &mut self,
        decl: &ast::EndpointDecl,
        attrs: &ast::Attrs,
        apis: &[Api],
        models: &[Model],
        enums: &[Enum],
        schemes: &[AuthScheme],
    ) -> Endpoint {
        let annots = self.annots(attrs, Site::Endpoint);
        let parsed_method = self.method(&decl.method);
        let method = parsed_method.unwrap_or(Method::Get);
        let mut ep = Endpoint {
            name: decl.name.text.clone(),
            doc: attrs.doc.clone(),
            method,
            path: decl.path.value.clone(),
            api: ApiId(0),
            auth: AuthRequirement::default(),
            tags: Vec::new(),
            params: Vec::new(),
            body: None,
            body_media: BodyMedia::Json,
            body_also: Vec::new(),
            responses: Vec::new(),
            errors: Vec::new(),
            gates: self.gates(&annots),
            idempotent: method.is_idempotent() || annots.has("idempotent"),
            idempotency_key: None,
            safe_to_repeat: None,
            paging: None,
            exactly_one_of: Vec::new(),
            tracked_by: None,
            registers_webhooks: None,
            rejections: None,
            deprecated: None,
            provenance: self.provenance(&annots),
            not_shown: Vec::new(),
        };
        let mut api_name: Option<&ast::Ident> = None;
        let mut public: Option<Span> = None;
        let mut param_spans: HashMap<String, Span> = HashMap::new();
        let mut statuses: HashMap<(ast::StatusForm, i64), Span> = HashMap::new();
        // Errors written as they are, which must keep off the statuses the router answers.
        let mut raw_errors: Vec<ast::Status> = Vec::new();
        let owner = format!("endpoint {}", ep.name);
        let mut rejections_at: Option<Span> = None;
        for member in &decl.members {
            match &member.node {
                EndpointMember::Api(name) => api_name = Some(name),
                EndpointMember::Auth {
                    optional,
                    schemes: refs,
                    together,
                } => self.lower_auth_clause(&mut ep.auth, *optional, *together, refs, schemes),
                EndpointMember::Public(span) => public = Some(*span),
                EndpointMember::Tags(tags) => ep.tags.extend(tags.iter().map(|t| t.text.clone())),
                EndpointMember::Param(location, field) => {
                    if let Some(first) = param_spans.get(&field.name.text) {
                        let first = *first;
                        self.error(
                            diagnostic_codes::DUPLICATE_MEMBER,
                            field.name.span,
                            format!("parameter `{}` is declared twice", field.name.text),
                        )
                        .label("repeated parameter")
                        .note(first, "first declared here");
                        continue;
                    }
                    param_spans.insert(field.name.text.clone(), field.name.span);
                    let location = match location {
                        ast::ParamLocation::Path => ParamLocation::Path,
                        ast::ParamLocation::Query => ParamLocation::Query,
                        ast::ParamLocation::Header => ParamLocation::Header,
                    };
                    if location == ParamLocation::Path && field.optional.is_some() {
                        self.error(
                            diagnostic_codes::OPTIONAL_PATH_PARAM,
                            field.name.span,
                            format!("path parameter `{}` cannot be optional", field.name.text),
                        )
                        .label("a path segment is always present")
                        .help("remove the `?`");
                    }
                    let scope = ReplacementScope::Param(ep.name.clone());
                    if let Some(f) =
                        self.lower_field(&member.attrs, field, Site::Param, scope, enums)
                    {
                        self.check_param_type(&f, location, field.ty.span);
                        ep.params.push(Param { location, field: f });
                    }
                }
                EndpointMember::Body(body, encoding) => {
                    // A DELETE may carry a body (RFC 9110 §9.3.5 gives it no meaning of
                    // its own, and APIs such as Kubernetes' send options in it); a GET's
                    // is dropped by caches and proxies.
                    if matches!(
                        parsed_method,
                        Some(Method::Get | Method::Head | Method::Options)
                    ) {
                        self.error(
                            diagnostic_codes::BODY_NOT_ALLOWED,
                            member.span,
                            format!("a {} request has no body", method.as_str()),
                        )
                        .label("body not allowed")
                        .help("send these inputs as query parameters");
                    }
                    if ep.body.is_some() {
                        self.error(
                            diagnostic_codes::DUPLICATE_MEMBER,
                            member.span,
                            "an endpoint has one request body",
                        )
                        .label("second body");
                    }
                    ep.body = self.body_type(body, false).map(|(ty, _)| ty);
                    if let Some(ty) = &ep.body {
                        ep.body_media = match encoding {
                            Some((encoding, keyword)) => {
                                self.check_body_of_fields(*encoding, ty, *keyword, models);
                                match encoding {
                                    ast::BodyEncoding::Form => BodyMedia::Form,
                                    ast::BodyEncoding::Multipart => BodyMedia::Multipart,
                                }
                            }
                            None => self.body_media(body, ty, true),
                        };
                        let annots = self.annots(&member.attrs, Site::Body);
                        ep.body_also = self.body_also_media(&annots, &ep.body_media);
                        if let (Some(_), ast::BodyDecl::Type(_, Some(media))) = (encoding, body) {
                            self.error(
                                diagnostic_codes::BAD_BODY_MEDIA,
                                media.span,
                                "a body of fields has no media type of its own",
                            )
                            .label("written by `form` or `multipart`")
                            .help("leave the media type out");
                        }
                    }
                }
                EndpointMember::Response {
                    statuses: codes_,
                    body,
                    headers,
                } => {
                    let body_decl = body;
                    let lowered = body_decl.as_ref().and_then(|b| self.body_type(b, true));
                    let nullable = lowered.as_ref().is_some_and(|(_, n)| *n);
                    let body = lowered.map(|(ty, _)| ty);
                    let media = match (body_decl, &body) {
                        (Some(decl), Some(ty)) => self.body_media(decl, ty, false),
                        _ => BodyMedia::Json,
                    };
                    let headers = self.response_headers(&ep.name, headers, enums);
                    let annots = self.annots(&member.attrs, Site::Response);
                    let also_media = self.also_media(&annots, &media, body.is_some());
                    for status in codes_ {
                        if status.form != ast::StatusForm::Code {
                            self.error(
                                diagnostic_codes::BAD_STATUS,
                                status.span,
                                format!("`response {}` names no one status", status.text()),
                            )
                            .label("a success answers with one status")
                            .help("write the status itself, such as `response 200`; classes and `default` are for `error`");
                            continue;
                        }
                        if !(100..=399).contains(&status.code) {
                            self.error(
                                diagnostic_codes::BAD_STATUS,
                                status.span,
                                format!("`response {}` is not a success status", status.code),
                            )
                            .label("responses use 100 to 399")
                            .help("declare error statuses with `error`");
                            continue;
                        }
                        if self.repeated_status(&mut statuses, status) {
                            continue;
                        }
                        if body.is_some() && parsed_method == Some(Method::Head) {
                            self.error(
                                diagnostic_codes::BODY_NOT_ALLOWED,
                                status.span,
                                "an answer to HEAD has no body",
                            )
                            .label("HTTP sends none to a HEAD request")
                            .help(
                                "declare the headers alone; the GET of the path answers the body",
                            );
                        } else if body.is_some() && matches!(status.code, 100..=199 | 204 | 304) {
                            self.error(
                                diagnostic_codes::BAD_STATUS,
                                status.span,
                                format!("a {} response has no body", status.code),
                            )
                            .label("HTTP sends none with this status")
                            .help("remove the body, or use another status such as 200");
                        }
                        ep.responses.push(Response {
                            status: StatusPattern::Exact(status.code as u16),
                            doc: member.attrs.doc.clone(),
                            body: body.clone(),
                            nullable,
                            media: media.clone(),
                            also_media: also_media.clone(),
                            headers: headers.clone(),
                            provenance: self.provenance(&annots),
                            span: status.span,
                        });
                    }
                }
                EndpointMember::Error(err) => {
                    if self.repeated_status(&mut statuses, &err.status) {
                        continue;
                    }
                    if let Some(r) = self.lower_error(
                        &member.attrs,
                        err,
                        ErrorSite::Endpoint,
                        &decl.name.text,
                        enums,
                    ) {
                        if r.body.is_some() && parsed_method == Some(Method::Head) {
                            self.error(
                                diagnostic_codes::BODY_NOT_ALLOWED,
                                r.span,
                                "an answer to HEAD has no body",
                            )
                            .label("HTTP sends none to a HEAD request")
                            .help("declare the status alone: `error 404`");
                        }
                        if matches!(r.media, BodyMedia::Raw(_)) {
                            raw_errors.push(err.status);
                        }
                        ep.errors.push(r);
                    }
                }
                EndpointMember::Rejections(name) => {
                    if let Some(first) = rejections_at.replace(name.span) {
                        self.error(
                            diagnostic_codes::DUPLICATE_MEMBER,
                            name.span,
                            "`rejections` is declared twice",
                        )
                        .label("one model holds an endpoint's rejections")
                        .note(first, "first declared here");
                        continue;
                    }
                    ep.rejections = self.rejections_named(name, models);
                }
                EndpointMember::NotShown(what) => ep
                    .not_shown
                    .push(self.record_not_shown(what, owner.clone())),
            }
        }
        ep.auth.public = public.is_some();
        ep.api = self.endpoint_api(decl, api_name, apis);
        if let Some(api) = apis.get(ep.api.index()) {
            take_api_headers(&mut ep, api);
        }
        self.check_auth(decl, &ep, public);
        self.check_path(decl, &ep);
        if let Some(api) = apis.get(ep.api.index()) {
            self.check_version(decl, api);
        }
        if !ep.responses.iter().any(|r| r.status.is_success()) {
            self.error(diagnostic_codes::NO_SUCCESS_RESPONSE, decl.name.span, format!("endpoint `{}` has no success response", ep.name))
                .label("no `response 2xx` or `response 3xx`")
                .help("add e.g. `response 200: Model`, or `response 200: not_shown(\"Response body\")` where the source leaves it open");
        }
        ep.deprecated = self.deprecation(&annots).map(|(dep, target)| {
            if let Some((name, span)) = target {
                self.queue_replacement(ReplacementScope::Endpoint, name, span);
            }
            dep
        });
        if let Some(a) = annots.get("idempotent") {
            ep.idempotency_key = self.idempotency_key(a, &mut ep);
        }
        self.check_raw_errors(&ep, apis, &raw_errors);
        if let Some(a) = annots.get("safe_to_repeat") {
            ep.safe_to_repeat = self.safe_to_repeat(a, &ep);
        }
        ep.paging = annots
            .get("paginated")
            .and_then(|a| self.paging(a, &ep, models));
        if let Some(a) = annots.get("exactly_one_of")
            && let Some(group) = self.exclusive_group(a, &ep, models)
        {
            ep.exactly_one_of.push(group);
        }
        if let Some(a) = annots.get("tracked_by")
            && let Some(ast::Value {
                kind: ValueKind::Ref(path),
                ..
            }) = self.single_arg(a, "an endpoint name")
        {
            if let [name] = path.as_slice() {
                ep.tracked_by = self.resolve_endpoint(name);
            } else {
                self.bad_args(a, "an endpoint name");
            }
        }
        if let Some(a) = annots.get("registers_webhooks") {
            ep.registers_webhooks = self.webhook_registration(a, &ep, models);
        }
        ep
    }

    /// `@safe_to_repeat("why")`: a call that is not idempotent, yet harmless to repeat.
    fn safe_to_repeat(&mut self, a: &ast::Annotation, ep: &Endpoint) -> Option<String> {
        let why = self.string_arg(a)?;
        if why.trim().is_empty() {
            self.bad_args(a, "one string saying why a repeat does no harm");
            return None;
        }
        if ep.idempotent {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                a.span,
                format!("`{}` is idempotent already", ep.name),
            )
            .label("says nothing more")
            .help("`@safe_to_repeat` is for calls that are not idempotent yet harmless to repeat, such as a create answered with a conflict naming the existing record");
            return None;
        }
        Some(why)
    }

    fn repeated_status(
        &mut self,
        seen: &mut HashMap<(ast::StatusForm, i64), Span>,
        status: &ast::Status,
    ) -> bool {
        let key = (status.form, status.code);
        if let Some(first) = seen.get(&key) {
            let first = *first;
            self.error(
                diagnostic_codes::BAD_STATUS,
                status.span,
                format!("status {} is declared twice", status.text()),
            )
            .label("repeated status")
            .note(first, "first declared here");
            return true;
        }
        seen.insert(key, status.span);
        false
    }

    fn method(&mut self, m: &ast::Ident) -> Option<Method> {
        Some(match m.text.as_str() {
            "GET" => Method::Get,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            "OPTIONS" => Method::Options,
            "HEAD" => Method::Head,
            other => {
                let help = match other.to_ascii_uppercase().as_str() {
                    up @ ("GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS") => {
                        format!("write it in capitals: `{up}`")
                    }
                    _ => "methods are GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS".to_string(),
                };
                self.error(
                    diagnostic_codes::BAD_METHOD,
                    m.span,
                    format!("unknown HTTP method `{other}`"),
                )
                .label("not a method")
                .help(help);
                return None;
            }
        })
    }

    /// A body's type, and whether it may be `null`: a success's JSON body may
    /// (`response 200: Command[] | null`), a request's may not.
    fn body_type(&mut self, body: &ast::BodyDecl, may_be_null: bool) -> Option<(Type, bool)> {
        match body {
            ast::BodyDecl::Type(expr, media) => {
                let (ty, nullable) = self.lower_type(expr)?;
                let json = media
                    .as_ref()
                    .is_none_or(|m| covenant_runtime::contract::is_json_family(&m.value));
                if nullable && !(may_be_null && json) {
                    self.error(
                        diagnostic_codes::BODY_NOT_ALLOWED,
                        expr.span,
                        "this body cannot be null",
                    )
                    .label("only a success's JSON body may be null")
                    .help("leave out the body instead");
                }
                Some((ty, nullable && may_be_null && json))
            }
            // Named in pass 1, keyed by its body's span, which is unique.
            ast::BodyDecl::Inline(decl) => self
                .inline_models
                .get(&decl.body_span)
                .copied()
                .map(|id| (Type::Model(id), false)),
        }
    }

    fn endpoint_api(
        &mut self,
        decl: &ast::EndpointDecl,
        name: Option<&ast::Ident>,
        apis: &[Api],
    ) -> ApiId {
        match name {
            Some(n) => match self.apis.get(&n.text) {
                Some((id, _)) => *id,
                None => {
                    let known: Vec<&str> = apis.iter().map(|a| a.name.as_str()).collect();
                    self.error(
                        diagnostic_codes::UNKNOWN_API,
                        n.span,
                        format!("unknown api `{}`", n.text),
                    )
                    .label("no `api` item has this name")
                    .help(format!("declared apis: {}", known.join(", ")));
                    ApiId(0)
                }
            },
            None if apis.is_empty() => {
                self.error(
                    diagnostic_codes::UNKNOWN_API,
                    decl.name.span,
                    "endpoints need an `api` to belong to",
                )
                .label("no api declared in the spec")
                .help("declare one: `api main { base \"{base_url}\" }`");
                ApiId(0)
            }
            None => ApiId(0),
        }
    }

    /// An error written as it is (an HTML page) cannot share a status with the router's own
    /// JSON errors: a client could not tell which body to expect.
    fn check_raw_errors(&mut self, ep: &Endpoint, apis: &[Api], raw: &[ast::Status]) {
        let api_gates = apis
            .get(ep.api.index())
            .is_some_and(|a| !a.gates.is_empty());
        let router = router_statuses(ep, api_gates);
        for status in raw.iter() {
            let Some(pattern) = super::declarations::pattern_of(status) else {
                continue;
            };
            let Some(answered) = router.iter().find(|r| pattern.covers(**r)) else {
                continue;
            };
            self.error(
                diagnostic_codes::BAD_BODY_MEDIA,
                status.span,
                format!("the router answers {answered} itself, in the api's JSON shape"),
            )
            .label("an error written as it is needs a status of its own")
            .help(format!(
                "use a status the router never answers for this endpoint (not {})",
                router
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }

    fn check_auth(&mut self, decl: &ast::EndpointDecl, ep: &Endpoint, public: Option<Span>) {
        match (public, ep.auth.any_of.is_empty()) {
            (Some(span), false) => {
                self.error(
                    diagnostic_codes::NO_AUTH,
                    span,
                    format!("endpoint `{}` is both public and authenticated", ep.name),
                )
                .label("`public` contradicts the `auth` clause")
                .help("remove one of them");
            }
            (None, true) => {
                let has_clause = decl.members.iter().any(|m| {
                    matches!(
                        &m.node,
                        EndpointMember::Auth {
                            optional: false,
                            ..
                        }
                    )
                });
                if !has_clause {
                    self.error(
                        diagnostic_codes::NO_AUTH,
                        decl.name.span,
                        format!("endpoint `{}` says nothing about auth", ep.name),
                    )
                    .label("no `auth` and no `public`")
                    .help("add `auth <scheme>`, or `public` if it really needs no credentials");
                }
            }
            _ => {}
        }
        self.check_one_together_clause(decl);
    }

    /// Schemes sent together are the endpoint's one way in: beside another required clause
    /// (`auth a & b` and `auth c`) which credentials go with which would be unstated.
    fn check_one_together_clause(&mut self, decl: &ast::EndpointDecl) {
        let required: Vec<(&Vec<ast::AuthRef>, bool)> = decl
            .members
            .iter()
            .filter_map(|m| match &m.node {
                EndpointMember::Auth {
                    optional: false,
                    schemes,
                    together,
                } => Some((schemes, *together)),
                _ => None,
            })
            .collect();
        if required.len() < 2 {
            return;
        }
        let Some((schemes, _)) = required.iter().find(|(_, together)| *together) else {
            return;
        };
        let first = &schemes[0].scheme;
        self.error(
            diagnostic_codes::BAD_AUTH_TOGETHER,
            first.span,
            "schemes sent together cannot be one alternative of several",
        )
        .label("required together")
        .help("keep one required `auth` clause: `auth a & b`, or `auth a | c`");
    }

    /// A parameter travels as text: a scalar, an enum, or a list of those. Objects (models,
    /// maps, `object`) are written in a query with brackets (`@style(deep)`); a path segment
    /// or a header has no one way to hold them, and is written as it is.
    pub(super) fn check_param_type(&mut self, f: &Field, location: ParamLocation, span: Span) {
        if location != ParamLocation::Query && f.encoding != Encoding::Repeated {
            self.error(
                diagnostic_codes::BAD_ENCODING,
                span,
                format!("a {} parameter is written one way", location.as_str()),
            )
            .label("`@style` is for query parameters and form fields")
            .help("remove `@style`");
            return;
        }
        if f.encoding == Encoding::Deep {
            return;
        }
        if let Some(what) = object_in(&f.ty) {
            self.error(
                diagnostic_codes::UNSUPPORTED_PARAM_TYPE,
                span,
                format!("parameters of {what} type are not supported"),
            )
            .label("a path, query or header parameter is text")
            .help(if location == ParamLocation::Query {
                "write it with brackets (`filter[status]=open`): `@style(deep)`"
            } else {
                "send structured input in the body, or declare its fields as separate parameters"
            });
        }
    }

    /// A segment holds one placeholder at most, whole (`/files/{name}`) or with text beside
    /// it (`/files/{name}.json`, `/ops/{op}:cancel`): a router matches the segment and takes
    /// the text off, which it could not do between two placeholders.
    fn check_whole_segments(&mut self, path: &str, span: Span) {
        let mut offset = 0;
        for segment in path.split('/') {
            if segment.matches('{').count() > 1 {
                let at = span.start as usize + 1 + offset;
                self.error(
                    diagnostic_codes::PARTIAL_SEGMENT,
                    Span::new(at, at + segment.len()),
                    format!("`{segment}` holds more than one placeholder"),
                )
                .label("two placeholders in one segment")
                .help("give each placeholder a segment of its own: `/ranges/{from}/{to}`, or one placeholder whose value holds both");
            }
            offset += segment.len() + 1;
        }
    }

    fn check_path(&mut self, decl: &ast::EndpointDecl, ep: &Endpoint) {
        let placeholders = match crate::ir::placeholder_offsets(&ep.path) {
            Ok(p) => p,
            Err(offset) => {
                let at = decl.path.span.start as usize + 1 + offset;
                self.error(
                    diagnostic_codes::PATH_PLACEHOLDER_UNDECLARED,
                    Span::new(at, at + 1),
                    "unbalanced `{` or `}` in path",
                )
                .label("placeholders are written `{name}`");
                return;
            }
        };
        self.check_whole_segments(&ep.path, decl.path.span);
        if let Some(offset) = ep.path.find(['?', '#']) {
            let at = decl.path.span.start as usize + 1 + offset;
            self.error(
                diagnostic_codes::PATH_NOT_A_ROUTE,
                Span::new(at, at + 1),
                "a path holds no query or fragment",
            )
            .label("`?` starts a query and `#` a fragment, which no route matches")
            .help("end the path here; declare query values with `query name: type`");
        }
        if !ep.path.starts_with('/') {
            self.error(
                diagnostic_codes::PATH_OUTSIDE_VERSIONS,
                decl.path.span,
                "a path starts with `/`",
            )
            .label("relative path");
        }
        for (name, offset) in &placeholders {
            if !ep
                .params_in(ParamLocation::Path)
                .any(|p| &p.field.name == name)
            {
                let at = decl.path.span.start as usize + 1 + offset;
                self.error(
                    diagnostic_codes::PATH_PLACEHOLDER_UNDECLARED,
                    Span::new(at, at + name.len() + 2),
                    format!("path placeholder `{{{name}}}` has no parameter"),
                )
                .label("not declared")
                .help(format!("declare it: `path {name}: string`"));
            }
        }
        for member in &decl.members {
            if let EndpointMember::Param(ast::ParamLocation::Path, field) = &member.node
                && !placeholders.iter().any(|(n, _)| *n == field.name.text)
            {
                self.error(
                    diagnostic_codes::PATH_PARAM_NOT_IN_PATH,
                    field.name.span,
                    format!("path parameter `{}` is not in the path", field.name.text),
                )
                .label("no matching placeholder")
                .note(decl.path.span, "the path")
                .help(format!(
                    "add `{{{}}}` to the path, or make it a `query` parameter",
                    field.name.text
                ));
            }
        }
    }

    fn check_version(&mut self, decl: &ast::EndpointDecl, api: &Api) {
        if api.versions.is_empty() {
            return;
        }
        let path = &decl.path.value;
        let versioned = api.versions.iter().any(|v| {
            path == v
                || path
                    .strip_prefix(v.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        });
        if !versioned {
            self.error(
                diagnostic_codes::PATH_OUTSIDE_VERSIONS,
                decl.path.span,
                format!("path is outside the versions of api `{}`", api.name),
            )
            .label(format!("does not start with {}", api.versions.join(" or ")))
            .help("the version is part of the path; add `api <name>` if it belongs to another api");
        }
    }

    /// Endpoints served at one address (APIs may share a base) may not share method and path
    /// shape (placeholders and the text beside them aside): a router could not tell them
    /// apart.
    pub(super) fn check_routes(&mut self, endpoints: &[Endpoint], spans: &[Span], apis: &[Api]) {
        let base = |ep: &Endpoint| {
            apis.get(ep.api.index())
                .map_or("", |a| a.base_url.as_str())
                .to_string()
        };
        let mut seen: HashMap<(String, Method, String), usize> = HashMap::new();
        for (i, ep) in endpoints.iter().enumerate() {
            let shape = route_of(&ep.path);
            if let Some(first) = seen.get(&(base(ep), ep.method, shape.clone())) {
                let (first_name, first_span) = (endpoints[*first].name.clone(), spans[*first]);
                self.error(
                    diagnostic_codes::DUPLICATE_ROUTE,
                    spans[i],
                    format!(
                        "`{} {}` is already served by `{first_name}`",
                        ep.method.as_str(),
                        ep.path
                    ),
                )
                .label("same method and path")
                .note(first_span, "first route here")
                .help("a router matches each placeholder's whole segment: names and text beside placeholders do not tell routes apart");
            } else {
                seen.insert((base(ep), ep.method, shape), i);
            }
        }
    }

    /// `@exactly_one_of(a, b)`: two or more optional parameters of the endpoint, or two or
    /// more optional fields of its body; a request sends exactly one of them.
    fn exclusive_group(
        &mut self,
        a: &ast::Annotation,
        ep: &Endpoint,
        models: &[Model],
    ) -> Option<Vec<String>> {
        const EXPECTED: &str = "two or more optional parameters, or fields of the body";
        let body = match &ep.body {
            Some(Type::Model(id)) => models.get(id.index()),
            _ => None,
        };
        let mut names = Vec::new();
        let mut in_body: Option<(bool, Span)> = None;
        for arg in &a.args {
            let (None, ValueKind::Ref(path)) = (&arg.name, &arg.value.kind) else {
                self.bad_args(a, EXPECTED);
                continue;
            };
            let [name] = path.as_slice() else {
                self.bad_args(a, EXPECTED);
                continue;
            };
            let param = ep.params.iter().find(|p| p.field.name == name.text);
            let field = body.and_then(|m| {
                m.fields
                    .iter()
                    .find(|f| f.name == name.text && f.visibility != Visibility::ResponseOnly)
            });
            let (member, is_body) = match (param, field) {
                (Some(p), _) => (&p.field, false),
                (None, Some(f)) => (f, true),
                (None, None) => {
                    self.error(
                        diagnostic_codes::UNKNOWN_REFERENCE,
                        name.span,
                        format!(
                            "endpoint `{}` has no parameter or body field `{}`",
                            ep.name, name.text
                        ),
                    )
                    .label("unknown parameter or field");
                    continue;
                }
            };
            match in_body {
                Some((first_is_body, first)) if first_is_body != is_body => {
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        name.span,
                        "a group is all parameters or all fields of the body",
                    )
                    .label(if is_body { "body field" } else { "parameter" })
                    .note(
                        first,
                        if first_is_body {
                            "body field"
                        } else {
                            "parameter"
                        },
                    )
                    .help("split the group, or move the inputs to one place");
                    continue;
                }
                None => in_body = Some((is_body, name.span)),
                Some(_) => {}
            }
            if !member.presence.may_be_absent() || member.default.is_some() {
                let why = if member.default.is_some() {
                    "has a default, so it is always there"
                } else {
                    "is required, so it is always sent"
                };
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    name.span,
                    format!("`{}` {why}", name.text),
                )
                .label("must be optional to be one of several")
                .help("add `?` after its name, without a default");
                continue;
            }
            names.push(name.text.clone());
        }
        if a.args.len() < 2 {
            self.bad_args(a, EXPECTED);
            return None;
        }
        (names.len() == a.args.len()).then_some(names)
    }

    pub(super) fn param_exists(&mut self, ep: &Endpoint, name: &ast::Ident) {
        if !ep.params.iter().any(|p| p.field.name == name.text) {
            self.error(
                diagnostic_codes::UNKNOWN_REFERENCE,
                name.span,
                format!("endpoint `{}` has no parameter `{}`", ep.name, name.text),
            )
            .label("unknown parameter");
        }
    }

    pub(super) fn resolve_endpoint(&mut self, name: &ast::Ident) -> Option<EndpointId> {
        match self.endpoints.get(&name.text) {
            Some((id, _)) => Some(*id),
            None => {
                let mut known: Vec<&str> = self.endpoints.keys().map(String::as_str).collect();
                known.sort_unstable();
                let help = super::annotations::closest(&name.text, &known)
                    .map_or("name an endpoint declared in the spec".to_string(), |c| {
                        format!("did you mean `{c}`?")
                    });
                self.error(
                    diagnostic_codes::UNKNOWN_REFERENCE,
                    name.span,
                    format!("unknown endpoint `{}`", name.text),
                )
                .label("no endpoint has this name")
                .help(help);
                None
            }
        }
    }
}

pub(super) use crate::ir::object_in;

/// Statuses the router answers itself for `ep`, in its api's JSON shape: a path or body it
/// cannot read (400), missing or wrong credentials (401, 403), a closed gate (403), an
/// idempotency key in use (409), a body, address or headers too large (413, 414, 431), a body
/// of another media type (415), input that does not fit (422), a fault (500), and an
/// unavailable service (503).
fn router_statuses(ep: &Endpoint, api_gates: bool) -> Vec<u16> {
    let mut statuses = vec![400, 413, 414, 422, 431, 500, 503];
    if ep.body.is_some() {
        statuses.push(415);
    }
    if !ep.auth.public {
        statuses.extend([401, 403]);
    }
    if api_gates || !ep.gates.is_empty() {
        statuses.push(403);
    }
    if ep.idempotency_key.is_some() {
        statuses.push(409);
    }
    statuses.sort_unstable();
    statuses.dedup();
    statuses
}

/// The api's headers, after the endpoint's own parameters; a header the endpoint declares
/// itself (required here, say) is the endpoint's.
fn take_api_headers(ep: &mut Endpoint, api: &Api) {
    for header in &api.headers {
        let declared = ep.params.iter().any(|p| {
            p.location == ParamLocation::Header && p.field.name.eq_ignore_ascii_case(&header.name)
        });
        if !declared {
            ep.params.push(Param {
                location: ParamLocation::Header,
                field: header.clone(),
            });
        }
    }
}
