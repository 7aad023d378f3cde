//! `@idempotent(key: "Idempotency-Key")`: an endpoint whose repeats carrying one key are
//! answered as the first request was, so it may be retried like an idempotent one.

use super::Lowerer;
use crate::ast::{self, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;
use crate::source::Span;

const EXPECTED: &str = "nothing, or `key: \"Idempotency-Key\"` naming the key's header";

impl Lowerer<'_> {
    /// The key's header, declared as an optional string header parameter of the endpoint
    /// (added when the spec does not declare it).
    pub(super) fn idempotency_key(
        &mut self,
        a: &ast::Annotation,
        ep: &mut Endpoint,
    ) -> Option<String> {
        let name = match a.args.as_slice() {
            [] => return None,
            [arg] if arg.name.as_ref().is_some_and(|n| n.text == "key") => match &arg.value.kind {
                ValueKind::Str(s) if super::response_headers::is_token(s) => s.clone(),
                _ => {
                    self.bad_args(a, EXPECTED);
                    return None;
                }
            },
            _ => {
                self.bad_args(a, EXPECTED);
                return None;
            }
        };
        if ep.auth.public || ep.auth.any_of.is_empty() {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                a.span,
                format!(
                    "`{}` has no credentials to keep its callers' keys apart",
                    ep.name
                ),
            )
            .label("an idempotency key needs a caller")
            .help("require `auth` on the endpoint, or leave the key out");
            return None;
        }
        let declared = ep.params.iter().find(|p| {
            p.location == ParamLocation::Header && p.field.name.eq_ignore_ascii_case(&name)
        });
        match declared {
            Some(p) => {
                let fits = p.field.ty == Type::Primitive(Primitive::String)
                    && p.field.presence.may_be_absent()
                    && p.field.default.is_none();
                if !fits {
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        a.span,
                        format!(
                            "the key's header `{}` must be an optional string",
                            p.field.name
                        ),
                    )
                    .label("a client sends a key of its own when the caller gives none")
                    .help(format!(
                        "declare it `header \"{name}\"?: string`, or leave it out"
                    ));
                    return None;
                }
                Some(p.field.name.clone())
            }
            None => {
                ep.params.push(key_param(&name));
                Some(name)
            }
        }
    }
}

fn key_param(name: &str) -> Param {
    Param {
        location: ParamLocation::Header,
        field: Field {
            name: name.to_string(),
            ident: String::new(),
            doc: Some(
                "A repeat carrying this key is answered as the first request was; the client \
                 sends a fresh one when none is given."
                    .to_string(),
            ),
            ty: Type::Primitive(Primitive::String),
            presence: Presence::Optional,
            default: None,
            constraints: Constraints {
                min_length: Some(1),
                max_length: Some(255),
                ..Constraints::default()
            },
            visibility: Visibility::Always,
            format_scope: FormatScope::Always,
            deprecated: None,
            provenance: Provenance::Toolkit,
            rejection: None,
            secret: false,
            personal: false,
            varies: false,
            encoding: Default::default(),
            span: Span::default(),
        },
    }
}
