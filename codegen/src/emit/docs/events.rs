//! One page per event: its type pattern, placeholders, payload, and an example delivery.

use super::fields::{self, Rows};
use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, marks, paths, text};
use crate::ir::{Event, EventTypeCarrier};
use maud::{Markup, html};

const ROOT: &str = "../";

pub fn page(site: &Site, ev: &Event) -> String {
    let path = paths::event(&ev.name);
    let mut ids = Ids::default();
    let replacement = ev.deprecated.as_ref().and_then(|d| {
        let name = d.replacement.as_ref()?;
        let other = site.spec.events.iter().find(|e| &e.name == name)?;
        Some(paths::href(ROOT, &paths::event(&other.name), None))
    });
    let all: Vec<_> = ev.fields.iter().collect();
    let rows = Rows {
        caption: "Envelope fields this event gives a type",
        id: &ids::field,
        kind: "field",
        siblings: &all,
    };
    let main = html! {
        h1 { span.kind { "Event" } code { (ev.name) } }
        (marks::standing(ev.provenance, ev.deprecated.is_some()))
        @if let Some(d) = &ev.deprecated { (marks::deprecation(d, replacement)) }
        (text::doc(ev.doc.as_deref()))
        (marks::not_shown(&ev.not_shown))
        (facts(site, ev))
        @if !ev.placeholders.is_empty() {
            section data-kind="placeholders" {
                h2 id=(ids.take("placeholders".into())) { "Placeholders" }
                (placeholders(site, &mut ids, ev))
            }
        }
        section data-kind="payload" {
            h2 id=(ids.take("payload".into())) { "Payload" }
            @if let Some(env) = site.spec.envelope {
                @let name = &site.spec.model(env).name;
                p {
                    "A delivery is the envelope "
                    a href=(paths::href(ROOT, &paths::model(name), None)) { code { (name) } }
                    @if all.is_empty() { "." } @else { ", with these fields given their type for this event:" }
                }
            }
            @if !all.is_empty() { (fields::table(site, ROOT, &mut ids, &rows, &all)) }
        }
        (example(site, ev))
    };
    let meta = Meta {
        path: &path,
        title: &ev.name,
        group: Group::Events,
        kind: "event",
        name: Some(&ev.name),
    };
    layout::page(site, &meta, main)
}

fn facts(site: &Site, ev: &Event) -> Markup {
    html! {
        dl.facts {
            dt { "Event type" }
            dd { code.pattern { (ev.pattern) } }
            @if let Some(carrier) = &site.spec.event_type {
                dt { "Named in" }
                dd {
                    @match carrier {
                        EventTypeCarrier::Field(f) => { "the envelope's field " code { (f) } }
                        EventTypeCarrier::Header(h) => { "the delivery's header " code { (h) } }
                    }
                }
            }
            @if let Some(scheme) = site.spec.event_signing {
                dt { "Signed" }
                dd {
                    "By " (crate::ir::signing_title(scheme)) ": "
                    @for (i, (name, _)) in crate::ir::signing_headers(scheme).iter().enumerate() {
                        @if i > 0 { ", " }
                        code { (name) }
                    }
                    " (HMAC-SHA256 with the endpoint's secret)."
                }
            }
        }
    }
}

fn placeholders(site: &Site, ids: &mut Ids, ev: &Event) -> Markup {
    html! {
        div.table-wrap {
            table {
                caption { "Placeholders of the event type" }
                thead { tr { th scope="col" { "Placeholder" } th scope="col" { "Takes any value of" } } }
                tbody {
                    @for (name, id) in &ev.placeholders {
                        @let e = site.spec.enum_(*id);
                        tr id=(ids.take(ids::placeholder(name))) data-kind="placeholder" data-name=(name) {
                            th scope="row" { code { "{" (name) "}" } }
                            td { a href=(paths::href(ROOT, &paths::enum_(&e.name), None)) { code { (e.name) } } }
                        }
                    }
                }
            }
        }
    }
}

fn example(site: &Site, ev: &Event) -> Markup {
    let fillable = ev
        .placeholders
        .iter()
        .all(|(_, id)| !site.spec.enum_(*id).values.is_empty());
    let Some((event_type, body)) = fillable.then(|| site.samples.event_delivery(ev)).flatten()
    else {
        return html! {};
    };
    let mut text = String::new();
    if let Some(EventTypeCarrier::Header(h)) = &site.spec.event_type {
        text.push_str(&format!("{h}: {event_type}\n"));
    }
    if let Some(scheme) = site.spec.event_signing {
        for (name, _) in crate::ir::signing_headers(scheme) {
            text.push_str(&format!("{name}: <{}>\n", signing_placeholder(name)));
        }
    }
    text.push_str("Content-Type: application/json\n\n");
    text.push_str(&serde_json::to_string_pretty(&body).unwrap_or_default());
    html! {
        section data-kind="example-delivery" {
            h2 id="example-delivery" { "Example delivery" }
            p { "Of the event type " code { (event_type) } ", each value one its type allows." }
            pre { code { (text) } }
        }
    }
}

/// What an example delivery shows for a signing header.
fn signing_placeholder(header: &str) -> &'static str {
    let header = header.to_ascii_lowercase();
    if header.ends_with("timestamp") {
        "Unix seconds"
    } else if header.ends_with("-id") || header.ends_with("delivery") {
        "delivery id"
    } else {
        "signature"
    }
}
