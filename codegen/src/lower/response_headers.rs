//! Response headers: `response 201: Pet headers { Location: uri, ETag?: string }`.

use super::Lowerer;
use super::annotations::Site;
use super::references::ReplacementScope;
use crate::ast;
use crate::diagnostic_codes;
use crate::ir::*;
use std::collections::HashMap;

/// Headers the HTTP layer writes from the body or the connection: a spec does not set them.
const MANAGED: &[&str] = &[
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
];

impl Lowerer<'_> {
    /// The headers of a response, each a scalar or an enum written as text.
    pub(super) fn response_headers(
        &mut self,
        endpoint: &str,
        decls: &[ast::Member<ast::FieldDecl>],
        enums: &[Enum],
    ) -> Vec<Field> {
        let mut seen: HashMap<String, crate::source::Span> = HashMap::new();
        let mut out = Vec::new();
        for member in decls {
            let decl = &member.node;
            let name = &decl.name.text;
            if !is_token(name) {
                self.error(
                    diagnostic_codes::BAD_RESPONSE_HEADER,
                    decl.name.span,
                    format!("`{name}` is not a header name"),
                )
                .label("not an HTTP token")
                .help("header names are letters, digits and `-` (RFC 9110 §5.1), e.g. `X-RateLimit-Remaining`");
                continue;
            }
            let lower = name.to_ascii_lowercase();
            if MANAGED.contains(&lower.as_str()) {
                self.error(
                    diagnostic_codes::BAD_RESPONSE_HEADER,
                    decl.name.span,
                    format!("`{name}` is written by the HTTP layer"),
                )
                .label("not declared by a spec")
                .help("the body's type decides the content type, and its length follows from it");
                continue;
            }
            if let Some(first) = seen.get(&lower) {
                let first = *first;
                self.error(
                    diagnostic_codes::DUPLICATE_MEMBER,
                    decl.name.span,
                    format!("header `{name}` is declared twice"),
                )
                .label("header names ignore case")
                .note(first, "first declared here");
                continue;
            }
            seen.insert(lower, decl.name.span);
            let scope = ReplacementScope::Param(endpoint.to_string());
            let Some(field) = self.lower_field(&member.attrs, decl, Site::Param, scope, enums)
            else {
                continue;
            };
            if let Some(value) = self
                .values_of(&field, enums)
                .into_iter()
                .find(|v| !is_header_text(v))
            {
                self.error(
                    diagnostic_codes::BAD_RESPONSE_HEADER,
                    decl.ty.span,
                    format!("response header `{name}` may hold {value:?}, which is no header text"),
                )
                .label("a value the spec fixes")
                .help("header values are visible ASCII, spaces and tabs");
                continue;
            }
            if let Some(problem) = not_text(&field) {
                self.error(
                    diagnostic_codes::BAD_RESPONSE_HEADER,
                    decl.ty.span,
                    format!("response header `{name}` cannot be {problem}"),
                )
                .label("a header holds one value as text")
                .help("use a string, number, boolean, formatted string or enum; leave a header out with `?` rather than `| null`");
                continue;
            }
            out.push(field);
        }
        out
    }
}

impl Lowerer<'_> {
    /// The texts the spec fixes for a header: its default, its `@one_of`, its enum's values.
    fn values_of(&self, field: &Field, enums: &[Enum]) -> Vec<String> {
        let mut out: Vec<String> = field
            .constraints
            .one_of
            .iter()
            .chain(&field.default)
            .filter_map(|l| match l {
                Literal::String(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        if let Type::Enum(id) = &field.ty
            && let Some(e) = enums.get(id.index())
        {
            out.extend(e.values.iter().map(|v| v.name.clone()));
        }
        out
    }
}

/// Text a header value can carry as it is: visible ASCII, spaces and tabs.
fn is_header_text(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
}

/// Why a header could not hold this field's values, if it cannot.
fn not_text(field: &Field) -> Option<&'static str> {
    if field.presence.may_be_null() {
        return Some("null");
    }
    match &field.ty {
        Type::Primitive(Primitive::Object | Primitive::Any) => Some("any JSON value"),
        Type::Primitive(_) | Type::Enum(_) => None,
        Type::Model(_) => Some("a model"),
        Type::Map(_, _) => Some("a map"),
        Type::List(_, _) => Some("a list"),
        Type::Union(_) | Type::NamedUnion(_) => Some("a union"),
        Type::NotShown(_) => Some("a value the source leaves open"),
    }
}

/// An HTTP token (RFC 9110 §5.6.2), which header names are.
pub(super) fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}
