//! The front page: the service, its APIs, a table of contents of everything, the legend of
//! the marks, the changelog, and every place the source leaves open.

use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, marks, paths, text, types};
use crate::ir::{Api, Presence, Provenance};
use maud::{Markup, html};

const ROOT: &str = "";

pub fn page(site: &Site) -> String {
    let spec = site.spec;
    let mut ids = Ids::default();
    let main = html! {
        h1 { (site.title()) }
        dl.facts {
            dt { "Service" } dd { code { (spec.service.name) } }
            @if let Some(v) = &spec.service.version { dt { "Version" } dd { (v) } }
            dt { "Spec" } dd { code { (site.settings.spec_name) } }
            @if let Some(b) = spec.service.max_length {
                dt { "Longest string" }
                dd { (b.value) " characters, where a string of a request states no bound" (marks::provenance(b.provenance)) }
            }
            @if let Some(b) = spec.service.max_items {
                dt { "Longest list" }
                dd { (b.value) " items, where a list of a request states no bound" (marks::provenance(b.provenance)) }
            }
        }
        (text::doc(spec.service.doc.as_deref()))
        section data-kind="apis" {
            h2 id=(ids.take("apis".into())) { "APIs" }
            @for api in &spec.apis { (api_section(site, &mut ids, api)) }
        }
        (super::contents::section(site, &mut ids))
        (legend(&mut ids))
        @if !spec.changelog.is_empty() {
            section data-kind="changelog" {
                h2 id=(ids.take("changelog".into())) { "Changelog" }
                div.table-wrap {
                    table {
                        caption { "Changes, as the source lists them" }
                        thead { tr { th scope="col" { "Date" } th scope="col" { "Change" } } }
                        tbody {
                            @for c in &spec.changelog {
                                tr { th scope="row" { (c.date) } td { (text::inline(&c.text)) } }
                            }
                        }
                    }
                }
            }
        }
        (not_shown(site, &mut ids))
    };
    let meta = Meta {
        path: paths::INDEX,
        title: "Overview",
        group: Group::Overview,
        kind: "index",
        name: None,
    };
    layout::page(site, &meta, main)
}

fn api_section(site: &Site, ids: &mut Ids, api: &Api) -> Markup {
    html! {
        section.api id=(ids.take(ids::api(&api.name))) data-kind="api" data-name=(api.name) {
            h3 { "API " code { (api.name) } }
            (text::doc(api.doc.as_deref()))
            dl.facts {
                dt { "Base" } dd { code { (api.base_url) } }
                @if !api.versions.is_empty() {
                    dt { "Versions" } dd { (super::facts::names(&api.versions)) }
                }
                @for g in &api.gates {
                    dt { "Gate" }
                    dd { @match g {
                        crate::ir::Gate::Feature(f) => { "feature " code { (f) } " must be enabled for the team" }
                        crate::ir::Gate::Plan(p) => { "the " code { (p) } " plan only" }
                    } }
                }
                @if !api.headers.is_empty() {
                    dt { "Headers of every endpoint" }
                    dd { @for (i, h) in api.headers.iter().enumerate() {
                        @if i > 0 { ", " }
                        code { (h.name) }
                        @if h.presence.may_be_absent() { " (optional)" }
                    } }
                }
                @if let Some(r) = &api.rejections {
                    @let m = &site.spec.model(r.model).name;
                    dt { "Router errors" }
                    dd { "written as " a href=(paths::href(ROOT, &paths::model(m), None)) { code { (m) } } }
                }
            }
            @if !api.errors.is_empty() {
                div.table-wrap {
                    table {
                        caption { "Errors every endpoint of " code { (api.name) } " may give" }
                        thead { tr { th scope="col" { "Status" } th scope="col" { "Body" } th scope="col" { "Description" } } }
                        tbody {
                            @for r in &api.errors {
                                tr data-kind="response" data-name=(r.status) {
                                    th scope="row" { code { (r.status) } " " (marks::reason(r.status)) (marks::provenance(r.provenance)) }
                                    td {
                                        @match &r.body {
                                            Some(t) => (types::body(site, ROOT, t, &r.media)),
                                            None => "No body.",
                                        }
                                    }
                                    td { (text::doc(r.doc.as_deref())) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn legend(ids: &mut Ids) -> Markup {
    let presences = [
        Presence::Required,
        Presence::Optional,
        Presence::Nullable,
        Presence::OptionalNullable,
    ];
    html! {
        section.legend data-kind="legend" {
            h2 id=(ids.take("legend".into())) { "Legend" }
            h3 { "Where a fact comes from" }
            dl {
                @for p in [Provenance::DeployedClient, Provenance::Toolkit] {
                    dt { (marks::provenance(p)) }
                    dd { (marks::provenance_meaning(p)) }
                }
                dt { "No badge" }
                dd { (marks::provenance_meaning(Provenance::Document)) }
            }
            h3 { "Presence of a field" }
            dl {
                @for p in presences {
                    dt { (marks::presence(p)) }
                    dd { (text::inline(presence_example(p))) }
                }
            }
            h3 { "Other marks" }
            dl {
                dt { (marks::tag("not-shown", "not shown")) }
                dd { "The source leaves this open; its note says what. Callouts labelled " strong { "Not shown in the source" } " list such notes." }
                dt { (marks::tag("deprecated", "deprecated")) }
                dd { "Still served, to be replaced; the callout says since when, until when and by what." }
                dt { (marks::tag("request-only", "request only")) " " (marks::tag("response-only", "response only")) }
                dd { "The field belongs to one shape: sent by clients only, or returned only." }
                dt { (marks::tag("secret", "secret")) }
                dd { "A credential or token: tools that write traffic down never write its value." }
                dt { (marks::tag("personal", "personal data")) }
                dd { "Data about a person: recordings write a stand-in, never the value." }
                dt { (marks::tag("varies", "varies between reads")) }
                dd { "Depends on when it is read (how far background work got), not on the request alone: recordings write its shape." }
            }
        }
    }
}

fn presence_example(p: Presence) -> &'static str {
    match p {
        Presence::Required => "Written `name: T`: the field is always there, with a value.",
        Presence::Optional => "Written `name?: T`: the field may be left out, but is never null.",
        Presence::Nullable => {
            "Written `name: T | null`: the field is always there; its value may be null."
        }
        Presence::OptionalNullable => {
            "Written `name?: T | null`: three states: absent, null, or a value."
        }
    }
}

/// Every `not_shown` of the spec, each with a link to what it is about.
fn not_shown(site: &Site, ids: &mut Ids) -> Markup {
    let items = &site.spec.not_shown;
    if items.is_empty() {
        return html! {};
    }
    html! {
        section data-kind="not-shown" {
            h2 id=(ids.take("not-shown".into())) { "What the source leaves open" }
            p { "Every " code { "not_shown" } " of the spec, in source order: facts the interface document does not give." }
            div.callout.not-shown role="note" {
                p { strong.label { "Not shown in the source" } }
                ul {
                    @for n in items {
                        li {
                            (text::inline(&n.what))
                            @if n.owner != "spec" { " (" (owner(site, &n.owner)) ")" }
                        }
                    }
                }
            }
        }
    }
}

/// The owner of a `not_shown` (`model Patient`, `limit x`), linked where it has a page.
fn owner(site: &Site, owner: &str) -> Markup {
    let spec = site.spec;
    let (kind, name) = owner.split_once(' ').unwrap_or(("", owner));
    let href = match kind {
        "model" if spec.model_named(name).is_some() => Some(paths::model(name)),
        "enum" if spec.enum_named(name).is_some() => Some(paths::enum_(name)),
        "endpoint" if spec.endpoint_named(name).is_some() => Some(paths::endpoint(name)),
        "event" if spec.events.iter().any(|e| e.name == name) => Some(paths::event(name)),
        "auth" if spec.auth_schemes.iter().any(|a| a.name == name) => {
            Some(format!("{}#{}", paths::AUTH, ids::scheme(name)))
        }
        "limit" if spec.limits.iter().any(|l| l.name == name) => {
            Some(format!("{}#{}", paths::LIMITS, ids::limit(name)))
        }
        "rate_limit" if spec.rate_limits.iter().any(|l| l.name == name) => {
            Some(format!("{}#{}", paths::LIMITS, ids::rate_limit(name)))
        }
        "states" if spec.state_machines.iter().any(|s| s.name == name) => {
            Some(format!("{}#{}", paths::STATES, ids::states(name)))
        }
        _ => None,
    };
    html! {
        @match href {
            Some(h) => { (kind) " " a href=(h) { code { (name) } } },
            None => code { (owner) },
        }
    }
}
