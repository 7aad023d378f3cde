//! Types, constraints and defaults as the reader sees them: types spelled as the spec
//! writes them, models and enums linked to their pages.

use super::{Site, marks, paths};
use crate::ir::{BodyMedia, Constraints, Literal, Primitive, Type};
use maud::{Markup, html};

/// A type, with each model and enum in it linked to its page.
pub fn ty(site: &Site, root: &str, t: &Type) -> Markup {
    html! { span.type { (inner(site, root, t)) } }
}

fn inner(site: &Site, root: &str, t: &Type) -> Markup {
    match t {
        Type::Primitive(p) => html! { code { (p.name()) } },
        Type::Model(id) => {
            let name = &site.spec.model(*id).name;
            html! { a href=(paths::href(root, &paths::model(name), None)) { code { (name) } } }
        }
        Type::Enum(id) => {
            let name = &site.spec.enum_(*id).name;
            html! { a href=(paths::href(root, &paths::enum_(name), None)) { code { (name) } } }
        }
        Type::List(item, _) => match item.as_ref() {
            Type::Union(_) => html! { code { "(" } (inner(site, root, item)) code { ")[]" } },
            _ => html! { (inner(site, root, item)) code { "[]" } },
        },
        Type::Map(value, _) => {
            html! { code { "map<string, " } (inner(site, root, value)) code { ">" } }
        }
        Type::NamedUnion(id) => {
            let union = site.spec.union(*id);
            let members = union
                .members
                .iter()
                .map(|m| site.spec.type_name(m))
                .collect::<Vec<_>>()
                .join(" | ");
            html! { code title=(members) { (union.name) } }
        }
        Type::Union(members) => html! {
            @for (i, m) in members.iter().enumerate() {
                @if i > 0 { code { " | " } }
                (inner(site, root, m))
            }
        },
        Type::NotShown(what) => html! {
            (marks::tag("not-shown", "not shown"))
            @if let Some(what) = what { " " span.not-shown-text { (super::text::inline(what)) } }
        },
    }
}

/// A body or response type with how it is written, e.g. `string` as `text/csv`.
pub fn body(site: &Site, root: &str, t: &Type, media: &BodyMedia) -> Markup {
    html! {
        (ty(site, root, t))
        @if media.is_stream() { " streamed item by item" }
        " as "
        code.media { (media.content_type()) }
    }
}

/// A literal as JSON writes it: `"available"`, `10`, `true`.
pub fn literal(l: &Literal) -> String {
    l.to_json().to_string()
}

/// Each constraint in words; the service's default bound says so, with its source.
pub fn constraints(c: &Constraints, t: &Type) -> Vec<Markup> {
    let mut out = Vec::new();
    if let Some(range) = range(c.minimum, c.maximum, "") {
        out.push(html! { (range) });
    }
    let unit = match t {
        Type::Primitive(p) if *p == Primitive::Bytes => " bytes",
        _ => " characters",
    };
    let bound = |max: Option<u64>| {
        let by_default = c.default_bound.is_some() && max.is_some();
        html! {
            @if by_default {
                " (the service's bound for every input that states none)"
                @if let Some(p) = c.default_bound { (marks::provenance(p)) }
            }
        }
    };
    if let Some(r) = range(
        c.min_length.map(|n| n as f64),
        c.max_length.map(|n| n as f64),
        unit,
    ) {
        out.push(html! { (r) (bound(c.max_length)) });
    }
    if let Some(r) = range(
        c.min_items.map(|n| n as f64),
        c.max_items.map(|n| n as f64),
        " items",
    ) {
        out.push(html! { (r) (bound(c.max_items)) });
    }
    if let Some(p) = &c.pattern {
        out.push(html! { "matches " code.pattern { (p) } });
    }
    if let Some(f) = &c.format {
        out.push(html! { "format " code { (f) } });
    }
    match c.one_of.as_slice() {
        [] => {}
        [only] => out.push(html! { "always " code { (literal(only)) } }),
        all => out.push(html! {
            "one of "
            @for (i, l) in all.iter().enumerate() {
                @if i > 0 { ", " }
                code { (literal(l)) }
            }
        }),
    }
    out
}

fn range(min: Option<f64>, max: Option<f64>, unit: &str) -> Option<String> {
    Some(match (min, max) {
        (Some(a), Some(b)) if a == b => format!("exactly {a}{unit}"),
        (Some(a), Some(b)) => format!("from {a} to {b}{unit}"),
        (Some(a), None) => format!("at least {a}{unit}"),
        (None, Some(b)) => format!("at most {b}{unit}"),
        (None, None) => return None,
    })
}
