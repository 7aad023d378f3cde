//! Limits and rate limits, one section each, with the endpoints they govern.

use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, marks, paths, text};
use crate::ir::{EndpointId, Limit, LimitValue, RateLimit, RateTier};
use maud::{Markup, html};

const ROOT: &str = "";

pub fn page(site: &Site) -> String {
    let spec = site.spec;
    let mut ids = Ids::default();
    let main = html! {
        h1 { "Limits and rate limits" }
        @if !spec.limits.is_empty() {
            section data-kind="limits" {
                h2 id=(ids.take("limits".into())) { "Limits" }
                @for l in &spec.limits { (limit(site, &mut ids, l)) }
            }
        }
        @if !spec.rate_limits.is_empty() {
            section data-kind="rate-limits" {
                h2 id=(ids.take("rate-limits".into())) { "Rate limits" }
                @for r in &spec.rate_limits { (rate_limit(site, &mut ids, r)) }
            }
        }
    };
    let meta = Meta {
        path: paths::LIMITS,
        title: "Limits and rate limits",
        group: Group::Limits,
        kind: "limits",
        name: None,
    };
    layout::page(site, &meta, main)
}

/// A limit's value in words.
pub fn value(v: &LimitValue) -> Markup {
    html! {
        @match v {
            LimitValue::Quantity(q) => (q),
            LimitValue::FromConstraints => "as the constraints of the inputs it governs say",
            LimitValue::NotShown(what) => { (marks::tag("not-shown", "not shown")) " " (text::inline(what)) },
        }
    }
}

fn endpoint_link(site: &Site, id: EndpointId) -> Markup {
    let ep = site.spec.endpoint(id);
    html! {
        a href=(paths::href(ROOT, &paths::endpoint(&ep.name), None)) {
            (marks::method(ep.method)) " " code { (ep.name) }
        }
    }
}

fn limit(site: &Site, ids: &mut Ids, l: &Limit) -> Markup {
    html! {
        section.limit id=(ids.take(ids::limit(&l.name))) data-kind="limit" data-name=(l.name) {
            h3 { code { (l.name) } (marks::provenance(l.provenance)) }
            (text::doc(l.doc.as_deref()))
            p { "Value: " (value(&l.value)) "." }
            @if let LimitValue::NotShown(what) = &l.value {
                (marks::not_shown(std::slice::from_ref(what)))
            }
            @if !l.applies_to.is_empty() {
                p { "Governs:" }
                ul {
                    @for t in &l.applies_to {
                        li {
                            (endpoint_link(site, t.endpoint))
                            @if let Some(p) = &t.param { ", its input " code { (p) } }
                        }
                    }
                }
            }
        }
    }
}

fn rate_limit(site: &Site, ids: &mut Ids, r: &RateLimit) -> Markup {
    html! {
        section.rate-limit id=(ids.take(ids::rate_limit(&r.name))) data-kind="rate-limit" data-name=(r.name) {
            h3 { code { (r.name) } (marks::provenance(r.provenance)) }
            (text::doc(r.doc.as_deref()))
            @if let Some(per) = &r.per { p { "Counted per " code { (per) } "." } }
            (marks::not_shown(&r.not_shown))
            @if !r.tiers.is_empty() {
                div.table-wrap {
                    table {
                        caption { "Tiers of " code { (r.name) } }
                        thead { tr {
                            th scope="col" { "Tier" }
                            th scope="col" { "Allows" }
                            th scope="col" { "Governs" }
                            th scope="col" { "Notes" }
                        } }
                        tbody { @for (i, t) in r.tiers.iter().enumerate() { (tier(i, t)) } }
                    }
                }
            }
            @if !r.applies_to.is_empty() {
                p { "Governs:" }
                ul { @for id in &r.applies_to { li { (endpoint_link(site, *id)) } } }
            }
        }
    }
}

fn tier(i: usize, t: &RateTier) -> Markup {
    html! {
        tr {
            th scope="row" {
                @if t.is_default { "Default" } @else { "Tier " (i + 1) }
                (marks::provenance(t.provenance))
            }
            td {
                @if let Some(n) = t.concurrent { (n) " at a time" }
                @if let Some(n) = t.count {
                    @if t.concurrent.is_some() { "; " }
                    (n)
                    @if let Some(w) = &t.window { " per " (w) }
                }
            }
            td {
                @if t.is_default { "every key no other tier names" }
                @else if let Some(n) = t.providers {
                    (n) " " (if n == 1 { "key" } else { "keys" })
                    @if !t.assigned.is_empty() { ": " (super::facts::names(&t.assigned)) }
                }
                @else { (super::facts::names(&t.assigned)) }
            }
            td {
                (text::doc(t.doc.as_deref()))
                @if let Some(n) = &t.note { (text::inline(n)) }
            }
        }
    }
}
