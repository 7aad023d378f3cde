//! The facts of an endpoint at a glance: its API, credentials, gates, idempotency, paging
//! and the limits that govern it.

use super::{Site, ids, paths};
use crate::ir::{AuthId, Endpoint, FieldPath, Gate, Paging};
use maud::{Markup, html};

pub fn list(site: &Site, root: &str, ep: &Endpoint) -> Markup {
    let spec = site.spec;
    let api = spec.api(ep.api);
    let api_href = paths::href(root, paths::INDEX, Some(&ids::api(&api.name)));
    let gates: Vec<(&Gate, bool)> = ep
        .gates
        .iter()
        .map(|g| (g, false))
        .chain(api.gates.iter().map(|g| (g, true)))
        .collect();
    html! {
        dl.facts {
            dt { "API" }
            dd { a href=(api_href) { code { (api.name) } } " at " code { (api.base_url) } }
            dt { "Authentication" }
            dd { (auth(site, root, ep)) }
            @if !gates.is_empty() {
                dt { "Gates" }
                dd {
                    ul {
                        @for (g, of_api) in gates {
                            li {
                                (gate(g))
                                @if of_api { " (every endpoint of the API)" }
                            }
                        }
                    }
                }
            }
            dt { "Idempotency" }
            dd { (idempotency(ep)) }
            @if let Some(r) = &ep.rejections {
                @let m = &spec.model(r.model).name;
                dt { "Router errors" }
                dd { "written as " a href=(paths::href(root, &paths::model(m), None)) { code { (m) } } " (this endpoint's own)" }
            }
            @if let Some(p) = &ep.paging {
                dt { "Paging" }
                dd { (paging(p)) }
            }
            @for g in ep.exactly_one_of.iter().filter(|g| !ep.group_in_body(g)) {
                dt { "Exactly one of" }
                dd { "Send exactly one of the parameters " (names(g)) "." }
            }
            @if let Some(t) = ep.tracked_by {
                dt { "Progress" }
                dd { "This starts background work whose progress " (endpoint_link(site, root, t)) " lists." }
            }
            @if let Some(w) = &ep.registers_webhooks {
                dt { "Webhooks" }
                dd {
                    "Subscribes a receiver to the events: the body field " code { (w.url) } " takes its address."
                    @if let Some(s) = &w.secret { " The answer's " code { (s.join(".")) } " holds the signing secret." }
                    @if let Some(i) = &w.id { " The answer's " code { (i.join(".")) } " holds the registration's id." }
                    @if let Some(r) = w.remove { " " (endpoint_link(site, root, r)) " removes it." }
                }
            }
            @if !ep.tags.is_empty() {
                dt { "Tags" }
                dd { (names(&ep.tags)) }
            }
            (limits(site, root, ep))
        }
    }
}

/// Names as code, comma-separated.
pub fn names(names: &[String]) -> Markup {
    html! {
        @for (i, n) in names.iter().enumerate() {
            @if i > 0 { ", " }
            code { (n) }
        }
    }
}

fn endpoint_link(site: &Site, root: &str, id: crate::ir::EndpointId) -> Markup {
    let ep = site.spec.endpoint(id);
    html! { a href=(paths::href(root, &paths::endpoint(&ep.name), None)) { code { (ep.name) } } }
}

pub fn scheme_link(site: &Site, root: &str, id: AuthId) -> Markup {
    let name = &site.spec.auth(id).name;
    let href = paths::href(root, paths::AUTH, Some(&ids::scheme(name)));
    html! { a href=(href) { code { (name) } } }
}

fn auth(site: &Site, root: &str, ep: &Endpoint) -> Markup {
    let a = &ep.auth;
    let scheme = |id: AuthId| {
        let scopes = a.scopes_of(id);
        html! {
            (scheme_link(site, root, id))
            " (" (site.spec.auth(id).carrier.describe()) ")"
            @if !scopes.is_empty() { ", with the scopes " (names(scopes)) }
        }
    };
    html! {
        @if a.public && a.any_of.is_empty() {
            "Public: no credentials needed."
        } @else {
            @if a.any_of.len() == 1 { "Send " (scheme(a.any_of[0])) "." } @else {
                "Send one of:"
                ul { @for id in &a.any_of { li { (scheme(*id)) } } }
            }
        }
        @if !a.all_of.is_empty() {
            p { "With it, send each of: " @for (i, id) in a.all_of.iter().enumerate() { @if i > 0 { ", " } (scheme(*id)) } "." }
        }
        @if !a.optional.is_empty() {
            p { "May also send: " @for (i, id) in a.optional.iter().enumerate() { @if i > 0 { ", " } (scheme(*id)) } "." }
        }
    }
}

fn gate(g: &Gate) -> Markup {
    html! {
        @match g {
            Gate::Feature(f) => { "Feature " code { (f) } ": disabled until the service enables it for the team." }
            Gate::Plan(p) => { "Plan " code { (p) } ": available on this plan only." }
        }
        " Otherwise: 403, " q { (g.refusal()) } "."
    }
}

fn idempotency(ep: &Endpoint) -> Markup {
    html! {
        @if let Some(key) = &ep.idempotency_key {
            "Idempotent given a key in the " code { (key) } " header: a repeat with the same key is answered as the first request was."
        } @else if ep.idempotent {
            "Idempotent: a repeat has the effect of one call"
            @if ep.method.is_idempotent() { " (by its method)" }
            "."
        } @else if let Some(why) = &ep.safe_to_repeat {
            "Not idempotent, but safe to repeat: " (super::text::inline(why)) "."
        } @else {
            "Not idempotent: a repeat may act twice."
        }
    }
}

fn paging(p: &Paging) -> Markup {
    let dotted = |path: &FieldPath| path.join(".");
    html! {
        @match p {
            Paging::Page { page, size, items } => {
                "By page number: " code { (page) } " is the page, " code { (size) } " its size; "
                code { (dotted(items)) } " holds the items."
            }
            Paging::Offset { offset, limit, items } => {
                "By offset: send " code { (offset) } " past the items seen so far; "
                code { (dotted(items)) } " holds the items. A page without items"
                @if let Some(limit) = limit { ", or with fewer than " code { (limit) } " asked," }
                " is the last."
            }
            Paging::Cursor { param, next, items } => {
                "By cursor: send the answer's " code { (dotted(next)) } " as " code { (param) }
                " for the next page; " code { (dotted(items)) } " holds the items. The last page has none, or an empty one."
            }
            Paging::NextUrl { next, items } => {
                "By URL: the next page is at the answer's " code { (dotted(next)) }
                " (relative to the page); the last page has none. " code { (dotted(items)) } " holds the items."
            }
            Paging::Link { header, items } => {
                "By link: the next page is the URL of the " code { (header) } " header with "
                code { "rel=\"next\"" } "; the last page has none. "
                @match items {
                    Some(f) => { code { (dotted(f)) } " holds the items." }
                    None => "The body is the page's items.",
                }
            }
            Paging::After { param, items, id, more } => {
                "By the last item seen: send the " code { (id) } " of the last of " code { (dotted(items)) }
                " as " code { (param) }
                @match more {
                    Some(m) => { " while " code { (dotted(m)) } " is true." }
                    None => " while a page has items.",
                }
            }
        }
    }
}

fn limits(site: &Site, root: &str, ep: &Endpoint) -> Markup {
    let spec = site.spec;
    let here = |id: crate::ir::EndpointId| spec.endpoint(id).name == ep.name;
    let limits: Vec<_> = spec
        .limits
        .iter()
        .filter(|l| l.applies_to.iter().any(|t| here(t.endpoint)))
        .collect();
    let rates: Vec<_> = spec
        .rate_limits
        .iter()
        .filter(|r| r.applies_to.iter().any(|id| here(*id)))
        .collect();
    html! {
        @if !limits.is_empty() || !rates.is_empty() {
            dt { "Limits" }
            dd {
                ul {
                    @for l in limits {
                        li {
                            a href=(paths::href(root, paths::LIMITS, Some(&ids::limit(&l.name)))) { code { (l.name) } }
                            ": " (super::limits::value(&l.value))
                            @for t in l.applies_to.iter().filter(|t| here(t.endpoint)) {
                                @if let Some(p) = &t.param { " (on " code { (p) } ")" }
                            }
                        }
                    }
                    @for r in rates {
                        li {
                            "Rate limit "
                            a href=(paths::href(root, paths::LIMITS, Some(&ids::rate_limit(&r.name)))) { code { (r.name) } }
                            @if let Some(per) = &r.per { ", counted per " (per) }
                        }
                    }
                }
            }
        }
    }
}
