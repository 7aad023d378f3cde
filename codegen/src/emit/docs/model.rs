//! One page per model: its fields with presence spelled out, where it comes from, who uses
//! it, and an example of each of its shapes.

use super::fields::{self, Rows};
use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, marks, paths, text, usage};
use crate::ir::shapes::Shape;
use crate::ir::{Model, ModelId, ModelOrigin};
use maud::{Markup, html};

const ROOT: &str = "../";

pub fn page(site: &Site, id: ModelId) -> String {
    let m = site.spec.model(id);
    let path = paths::model(&m.name);
    let mut ids = Ids::default();
    let all: Vec<_> = m.fields.iter().collect();
    let caption = format!("Fields of {}", m.name);
    let rows = Rows {
        caption: &caption,
        id: &ids::field,
        kind: "field",
        siblings: &all,
    };
    let main = html! {
        h1 { span.kind { (kind(site, id)) } code { (m.name) } }
        (marks::standing(m.provenance, m.deprecated.is_some()))
        @if let Some(d) = &m.deprecated {
            (marks::deprecation(d, replacement(site, m)))
        }
        (origin(site, m))
        (text::doc(m.doc.as_deref()))
        (marks::not_shown(&m.not_shown))
        @if m.open {
            div.callout.info role="note" {
                p { strong.label { "Open model" } " The source says it has more fields than those listed: they may occur, and are kept." }
            }
        }
        @for g in &m.groups {
            p.group {
                (group_rule(g.rule)) " of "
                @for (i, name) in g.fields.iter().enumerate() {
                    @if i > 0 { ", " }
                    code { (name) }
                }
                "."
            }
        }
        @if site.shapes.has_variants(id) {
            p {
                "Requests and responses differ: fields marked " em { "request only" }
                " are sent by clients and never returned, fields marked " em { "response only" }
                " are returned and never sent."
            }
        }
        section data-kind="fields" {
            h2 id=(ids.take("fields".into())) { "Fields" }
            @if m.fields.is_empty() {
                p { "No fields are listed." }
            } @else {
                (fields::table(site, ROOT, &mut ids, &rows, &all))
            }
        }
        (usage::section(site, ROOT, site.usage.of_model(id).collect()))
        (examples(site, id))
    };
    let meta = Meta {
        path: &path,
        title: &m.name,
        group: Group::Models,
        kind: "model",
        name: Some(&m.name),
    };
    layout::page(site, &meta, main)
}

fn kind(site: &Site, id: ModelId) -> &'static str {
    if site.spec.envelope == Some(id) {
        "Event envelope"
    } else {
        "Model"
    }
}

fn replacement(site: &Site, m: &Model) -> Option<String> {
    let name = m.deprecated.as_ref()?.replacement.as_ref()?;
    site.spec
        .model_named(name)
        .map(|r| paths::href(ROOT, &paths::model(&r.name), None))
}

/// Where a model written in place comes from, and what the envelope is for.
fn origin(site: &Site, m: &Model) -> Markup {
    let endpoint = |name: &str| {
        let href = paths::href(ROOT, &paths::endpoint(name), None);
        html! { a href=(href) { code { (name) } } }
    };
    html! {
        @match &m.origin {
            ModelOrigin::RequestBody(ep) if site.spec.endpoint_named(ep).is_some() => {
                p { "The request body of " (endpoint(ep)) ", written in place." }
            }
            ModelOrigin::ResponseBody(ep) if site.spec.endpoint_named(ep).is_some() => {
                p { "A response body of " (endpoint(ep)) ", written in place." }
            }
            ModelOrigin::Envelope => {
                p { "The fields every event carries; each event gives some of them their type." }
            }
            _ => {}
        }
    }
}

fn examples(site: &Site, id: ModelId) -> Markup {
    let shapes: &[(Shape, &str)] = if site.shapes.has_variants(id) {
        &[
            (Shape::Response, "Example response shape"),
            (Shape::Request, "Example request shape"),
        ]
    } else {
        &[(Shape::Response, "Example")]
    };
    html! {
        section data-kind="examples" {
            h2 id="examples" { "Examples" }
            p { "Every field set, each value one its type and constraints allow." }
            @for (shape, label) in shapes {
                @let value = site.samples.instance(id, *shape, true, 0);
                h3 { (label) }
                pre { code { (serde_json::to_string_pretty(&value).unwrap_or_default()) } }
            }
        }
    }
}

/// How a group's rule reads in a sentence.
fn group_rule(rule: crate::ir::GroupRule) -> &'static str {
    match rule {
        crate::ir::GroupRule::ExactlyOne => "A value holds exactly one",
        crate::ir::GroupRule::AtLeastOne => "A value holds at least one",
        crate::ir::GroupRule::AtMostOne => "A value holds at most one",
    }
}
