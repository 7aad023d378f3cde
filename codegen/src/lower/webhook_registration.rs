//! `@registers_webhooks(url: field, secret: path, id: path, remove: endpoint)`: the endpoint
//! a client calls to receive the spec's events, said so that a tool (the conformance runner)
//! can subscribe itself without knowing the API.

use super::Lowerer;
use crate::ast::{self, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;

const ARGS: &[&str] = &["url", "secret", "id", "remove"];

impl Lowerer<'_> {
    pub(super) fn webhook_registration(
        &mut self,
        a: &ast::Annotation,
        ep: &Endpoint,
        models: &[Model],
    ) -> Option<WebhookRegistration> {
        let args = self.named_args(a, ARGS);
        if args
            .iter()
            .any(|(_, v)| !matches!(v.kind, ValueKind::Ref(_)))
        {
            self.bad_args(
                a,
                "names, not strings: `url: field, secret: a.b, id: a.b, remove: endpoint`",
            );
            return None;
        }
        let path_of = |name: &str| -> Option<(Vec<String>, crate::source::Span)> {
            args.iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, v)| match &v.kind {
                    ValueKind::Ref(path) => {
                        Some((path.iter().map(|i| i.text.clone()).collect(), v.span))
                    }
                    _ => None,
                })
        };
        let Some((url, url_span)) = path_of("url").filter(|(p, _)| p.len() == 1) else {
            self.bad_args(
                a,
                "`url: field` naming the body field that takes the receiver's address",
            );
            return None;
        };
        let url = url.into_iter().next().unwrap_or_default();
        self.check_registration_body(ep, &url, url_span, models);
        let answer = ep
            .responses
            .iter()
            .find(|r| r.status.exactly_in(200..300))
            .and_then(|r| r.body.as_ref());
        let secret = path_of("secret").map(|(path, span)| {
            self.check_answer_path(answer, &path, span, models, "the signing secret");
            path
        });
        let id = path_of("id").map(|(path, span)| {
            self.check_answer_path(answer, &path, span, models, "the registration's id");
            path
        });
        let remove = match args.iter().find(|(n, _)| *n == "remove") {
            Some((_, v)) => match &v.kind {
                ValueKind::Ref(path) if path.len() == 1 => self.resolve_endpoint(&path[0]),
                _ => {
                    self.bad_args(
                        a,
                        "`remove: endpoint` naming the endpoint that deletes a registration",
                    );
                    None
                }
            },
            None => None,
        };
        if remove.is_some() != id.is_some() {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                a.span,
                "`remove` and `id` go together",
            )
            .label("one without the other")
            .help("`id: path` says where the answer gives the registration's id, which `remove: endpoint` takes as its path parameter");
        }
        Some(WebhookRegistration {
            url,
            secret,
            id,
            remove,
        })
    }

    /// The body takes the address in a text field, and needs nothing else a subscriber
    /// could not know.
    fn check_registration_body(
        &mut self,
        ep: &Endpoint,
        url: &str,
        span: crate::source::Span,
        models: &[Model],
    ) {
        let fields = match &ep.body {
            Some(Type::Model(id)) => &models[id.index()].fields,
            _ => {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    span,
                    format!("`{}` has no JSON object body to put an address in", ep.name),
                )
                .label("no such body");
                return;
            }
        };
        match fields.iter().find(|f| f.name == url) {
            Some(f) if matches!(f.ty, Type::Primitive(p) if p.is_string_like()) => {}
            Some(_) => {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    span,
                    format!("`{url}` of `{}` is not text", ep.name),
                )
                .label("an address is a string or uri");
            }
            None => {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    span,
                    format!("`{}`'s body has no field `{url}`", ep.name),
                )
                .label("not a body field");
            }
        }
        for f in fields.iter().filter(|f| f.name != url) {
            if f.presence == Presence::Required && f.default.is_none() {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    span,
                    format!(
                        "`{}` requires `{}` beside the address, which a subscriber cannot know",
                        ep.name, f.name
                    ),
                )
                .label("a subscriber sends only the address")
                .help("make the other fields optional, or give them defaults");
            }
        }
    }

    /// A path of fields through the success answer that ends at text.
    fn check_answer_path(
        &mut self,
        answer: Option<&Type>,
        path: &[String],
        span: crate::source::Span,
        models: &[Model],
        what: &str,
    ) {
        let mut ty = answer;
        for step in path {
            ty = match ty {
                Some(Type::Model(id)) => models[id.index()]
                    .fields
                    .iter()
                    .find(|f| &f.name == step)
                    .map(|f| &f.ty),
                _ => None,
            };
        }
        if !matches!(ty, Some(Type::Primitive(p)) if p.is_string_like()) {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                span,
                format!(
                    "`{}` leads to no text field of the success answer",
                    path.join(".")
                ),
            )
            .label(format!("should name {what}"));
        }
    }

    /// Checks needing the whole spec: a signing spec gives subscribers their secret, and the
    /// removing endpoint takes the id as its one path parameter.
    pub(super) fn check_webhook_registrations(&mut self, spec: &Spec) {
        let mut first: Option<&str> = None;
        for (i, ep) in spec.endpoints.iter().enumerate() {
            let Some(reg) = &ep.registers_webhooks else {
                continue;
            };
            let at = spec.spans.endpoints[i];
            if let Some(first) = first {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    at,
                    format!(
                        "`{}` registers webhooks, as `{first}` does already",
                        ep.name
                    ),
                )
                .label("a second way to subscribe")
                .help("a subscriber needs one endpoint to call: mark one");
            }
            first.get_or_insert(&ep.name);
            // A subscriber knows only its address and the credentials.
            if let Some(p) = ep.params.iter().find(|p| {
                p.location == ParamLocation::Path || p.field.presence == Presence::Required
            }) {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    at,
                    format!(
                        "`{}` takes the {} parameter `{}`, which a subscriber cannot know",
                        ep.name,
                        p.location.as_str(),
                        p.field.name
                    ),
                )
                .label("registers webhooks")
                .help("a subscribing endpoint takes the address in its body, and nothing it requires besides");
            }
            if reg.secret.is_none() && spec.event_signing.is_some() {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    at,
                    format!(
                        "`{}` registers for deliveries the spec signs, but gives no secret",
                        ep.name
                    ),
                )
                .label("no `secret: path` in `@registers_webhooks`")
                .help("add `secret: field.path` naming where the answer gives the signing secret");
            }
            if let Some(remove) = reg.remove.map(|id| spec.endpoint(id)) {
                let path_params = remove
                    .params
                    .iter()
                    .filter(|p| p.location == ParamLocation::Path)
                    .count();
                let required_others = remove.body.is_some()
                    || remove.params.iter().any(|p| {
                        p.location != ParamLocation::Path && p.field.presence == Presence::Required
                    });
                if path_params != 1 || required_others {
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        at,
                        format!(
                            "`{}` removes a registration by its id alone, so it takes one path parameter ({path_params} here) and nothing else it requires",
                            remove.name
                        ),
                    )
                    .label("named by `remove:` here");
                }
            }
        }
    }
}
