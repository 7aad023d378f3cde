//! Tables of fields: a model's fields, an endpoint's parameters, an event's payload and a
//! response's headers, one row each with a stable id.

use super::ids::Ids;
use super::{Site, marks, text, types};
use crate::ir::{Encoding, Field, FormatScope, Presence, RejectionSlot, Visibility};
use maud::{Markup, html};

/// How a table names its rows' ids: `field-<name>`, `param-<name>`, …
pub struct Rows<'a> {
    pub caption: &'a str,
    pub id: &'a dyn Fn(&str) -> String,
    /// What a row is, for `data-kind`.
    pub kind: &'a str,
    /// Every field a deprecation's `use:` may name, to link it.
    pub siblings: &'a [&'a Field],
}

pub fn table(site: &Site, root: &str, ids: &mut Ids, rows: &Rows, fields: &[&Field]) -> Markup {
    html! {
        div.table-wrap {
            table.fields {
                caption { (rows.caption) }
                thead {
                    tr {
                        th scope="col" { "Name" }
                        th scope="col" { "Type" }
                        th scope="col" { "Presence" }
                        th scope="col" { "Description" }
                    }
                }
                tbody {
                    @for f in fields {
                        (row(site, root, ids, rows, f))
                    }
                }
            }
        }
    }
}

fn row(site: &Site, root: &str, ids: &mut Ids, rows: &Rows, f: &Field) -> Markup {
    let id = ids.take((rows.id)(&f.name));
    let replacement = f.deprecated.as_ref().and_then(|d| {
        let name = d.replacement.as_ref()?;
        rows.siblings
            .iter()
            .any(|s| &s.name == name)
            .then(|| format!("#{}", (rows.id)(name)))
    });
    let constraints = types::constraints(&f.constraints, &f.ty);
    html! {
        tr id=(id) data-kind=(rows.kind) data-name=(f.name) data-presence=(marks::presence_word(f.presence)) {
            th scope="row" {
                code.name { (f.name) }
                (markers(f))
                (marks::provenance(f.provenance))
            }
            td { (types::ty(site, root, &f.ty)) }
            td { (marks::presence(f.presence)) }
            td {
                (text::doc(f.doc.as_deref()))
                @if f.default.is_some() || !constraints.is_empty() || f.rejection.is_some() {
                    ul.details {
                        @if let Some(d) = &f.default {
                            li { "Default " code { (types::literal(d)) } (default_note(f.presence)) }
                        }
                        @for c in constraints { li { (c) } }
                        @if let Some(slot) = &f.rejection { li { (rejection(slot)) } }
                    }
                }
                @if let Some(d) = &f.deprecated { (marks::deprecation(d, replacement)) }
            }
        }
    }
}

/// Tags beside a field's name: which shape it is in, and how tools treat its value.
fn markers(f: &Field) -> Markup {
    html! {
        @match f.visibility {
            Visibility::RequestOnly => (marks::tag("request-only", "request only")),
            Visibility::ResponseOnly => (marks::tag("response-only", "response only")),
            Visibility::Always => {},
        }
        @if f.format_scope == FormatScope::RequestOnly {
            (marks::tag("format-request-only", "format checked on requests only"))
        }
        @if f.secret { (marks::tag("secret", "secret")) }
        @if f.personal { (marks::tag("personal", "personal data")) }
        @if f.varies { (marks::tag("varies", "varies between reads")) }
        @if let Some(label) = encoding_label(f.encoding) { (marks::tag("encoding", label)) }
        @if f.deprecated.is_some() { (marks::tag("deprecated", "deprecated")) }
    }
}

/// How a list or an object is written as text, where it is not one pair per item.
fn encoding_label(encoding: Encoding) -> Option<&'static str> {
    match encoding {
        Encoding::Repeated => None,
        Encoding::Comma => Some("written a,b"),
        Encoding::Spaces => Some("written a b"),
        Encoding::Pipes => Some("written a|b"),
        Encoding::Deep => Some("written name[key]"),
    }
}

fn default_note(p: Presence) -> &'static str {
    if p.may_be_absent() {
        ", applied when the field is absent"
    } else {
        ""
    }
}

fn rejection(slot: &RejectionSlot) -> Markup {
    let what = match slot {
        RejectionSlot::Message => "what went wrong, in words",
        RejectionSlot::Status => "the HTTP status",
        RejectionSlot::Param => "the input the first problem is about",
        RejectionSlot::Issues => "every problem of the input",
        RejectionSlot::Constant(_) => "",
    };
    html! {
        "In the router's own errors: "
        @match slot {
            RejectionSlot::Constant(l) => code { (types::literal(l)) },
            _ => (what),
        }
    }
}
