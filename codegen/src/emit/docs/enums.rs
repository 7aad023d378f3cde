//! One page per enum: open or closed in plain words, its values, and where it is used.

use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, marks, paths, text, usage};
use crate::ir::{Enum, EnumId, EnumRepr};
use maud::{Markup, html};

const ROOT: &str = "../";

pub fn page(site: &Site, id: EnumId) -> String {
    let e = site.spec.enum_(id);
    let path = paths::enum_(&e.name);
    let mut ids = Ids::default();
    let main = html! {
        h1 { span.kind { (if e.open { "Open enum" } else { "Closed enum" }) } code { (e.name) } }
        (marks::standing(e.provenance, false))
        (text::doc(e.doc.as_deref()))
        (openness(e))
        @if let Some(parent) = e.parent {
            @let p = site.spec.enum_(parent);
            p {
                "A subset of "
                a href=(paths::href(ROOT, &paths::enum_(&p.name), None)) { code { (p.name) } }
                ": each value is one of its values."
            }
        }
        @if let Some(n) = e.catalogue_size {
            p { "The values come from the service's catalogue, which has " (n) " entries." }
        }
        (marks::not_shown(&e.not_shown))
        section data-kind="values" {
            h2 id=(ids.take("values".into())) { "Values" }
            @if e.values.is_empty() {
                p { "No values are listed." }
            } @else {
                (values(&mut ids, e))
            }
        }
        (usage::section(site, ROOT, site.usage.of_enum(id).collect()))
    };
    let meta = Meta {
        path: &path,
        title: &e.name,
        group: Group::Enums,
        kind: "enum",
        name: Some(&e.name),
    };
    layout::page(site, &meta, main)
}

fn openness(e: &Enum) -> Markup {
    let written = match e.repr {
        EnumRepr::String => "a string",
        EnumRepr::Int => "an integer",
    };
    html! {
        p data-open=(e.open) {
            "Each value is written as " (written) ". "
            @if e.open {
                strong { "Open:" }
                " values not listed here may occur; clients keep them and write them back unchanged."
            } @else {
                strong { "Closed:" }
                " only the values listed here are valid; any other is rejected."
            }
        }
    }
}

fn values(ids: &mut Ids, e: &Enum) -> Markup {
    html! {
        div.table-wrap {
            table.values {
                caption { "Values of " code { (e.name) } }
                thead { tr { th scope="col" { "Value" } th scope="col" { "Description" } } }
                tbody {
                    @for v in &e.values {
                        @let replacement = v.deprecated.as_ref()
                            .and_then(|d| d.replacement.as_ref())
                            .filter(|r| e.values.iter().any(|o| &o.name == *r))
                            .map(|r| format!("#{}", ids::value(r)));
                        tr id=(ids.take(ids::value(&v.name))) data-kind="value" data-name=(v.name) {
                            th scope="row" {
                                code { (v.name) }
                                (marks::provenance(v.provenance))
                                @if v.deprecated.is_some() { (marks::tag("deprecated", "deprecated")) }
                            }
                            td {
                                (text::doc(v.doc.as_deref()))
                                @if let Some(d) = &v.deprecated { (marks::deprecation(d, replacement)) }
                            }
                        }
                    }
                }
            }
        }
    }
}
