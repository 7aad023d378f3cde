//! The front page's table of contents: every endpoint, model, enum, event, auth scheme,
//! limit and state machine, each linked to its page with its first sentence.

use super::ids::{self, Ids};
use super::{Site, marks, paths, text};
use maud::{Markup, html};

const ROOT: &str = "";

pub fn section(site: &Site, ids: &mut Ids) -> Markup {
    let spec = site.spec;
    html! {
        section data-kind="contents" {
            h2 id=(ids.take("contents".into())) { "Contents" }
            @if !spec.endpoints.is_empty() {
                h3 id=(ids.take("endpoints".into())) { "Endpoints" }
                @for (i, api) in spec.apis.iter().enumerate() {
                    @let eps: Vec<_> = spec.endpoints.iter().filter(|e| e.api.index() == i).collect();
                    @if !eps.is_empty() {
                        div.table-wrap {
                            table.contents {
                                caption { "Endpoints of the API " code { (api.name) } }
                                thead { tr {
                                    th scope="col" { "Endpoint" }
                                    th scope="col" { "Method and path" }
                                    th scope="col" { "Summary" }
                                } }
                                tbody {
                                    @for ep in eps {
                                        tr data-kind="endpoint" data-name=(ep.name) {
                                            th scope="row" {
                                                a href=(paths::endpoint(&ep.name)) { code { (ep.name) } }
                                                @if ep.deprecated.is_some() { (marks::tag("deprecated", "deprecated")) }
                                            }
                                            td { (marks::method(ep.method)) " " code.path { (ep.path) } }
                                            td { (text::summary(ep.doc.as_deref())) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            (listing(ids, "models", "Models", spec.models.iter().map(|m| (m.name.as_str(), paths::model(&m.name), m.doc.as_deref()))))
            (listing(ids, "enums", "Enums", spec.enums.iter().map(|e| (e.name.as_str(), paths::enum_(&e.name), e.doc.as_deref()))))
            (listing(ids, "events", "Events", spec.events.iter().map(|e| (e.name.as_str(), paths::event(&e.name), e.doc.as_deref()))))
            (listing(ids, "auth-schemes", "Auth schemes", spec.auth_schemes.iter().map(|a| {
                (a.name.as_str(), format!("{}#{}", paths::AUTH, ids::scheme(&a.name)), a.doc.as_deref())
            })))
            (listing(ids, "limit-list", "Limits", spec.limits.iter().map(|l| {
                (l.name.as_str(), format!("{}#{}", paths::LIMITS, ids::limit(&l.name)), l.doc.as_deref())
            })))
            (listing(ids, "rate-limit-list", "Rate limits", spec.rate_limits.iter().map(|r| {
                (r.name.as_str(), format!("{}#{}", paths::LIMITS, ids::rate_limit(&r.name)), r.doc.as_deref())
            })))
            (listing(ids, "state-machines", "State machines", spec.state_machines.iter().map(|s| {
                (s.name.as_str(), format!("{}#{}", paths::STATES, ids::states(&s.name)), s.doc.as_deref())
            })))
        }
    }
}

/// A heading and a list of links, each with its first sentence; nothing when empty.
fn listing<'a>(
    ids: &mut Ids,
    id: &str,
    title: &str,
    items: impl Iterator<Item = (&'a str, String, Option<&'a str>)>,
) -> Markup {
    let items: Vec<_> = items.collect();
    if items.is_empty() {
        return html! {};
    }
    html! {
        h3 id=(ids.take(id.into())) { (title) }
        ul.contents {
            @for (name, href, doc) in items {
                li {
                    a href=(paths::href(ROOT, &href, None)) { code { (name) } }
                    @if doc.is_some() { ": " (text::summary(doc)) }
                }
            }
        }
    }
}
