//! The frame every page shares: head, header with search, the sidebar listing everything,
//! the main landmark, and the scripts.

use super::{Site, marks, paths};
use maud::{Markup, PreEscaped, html};
use std::cell::RefCell;

pub const STYLE: &str = include_str!("assets/style.css");

/// Which part of the sidebar a page belongs to: that part is open on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Overview,
    Endpoints,
    Models,
    Enums,
    Events,
    Auth,
    Limits,
    States,
}

const GROUPS: usize = 8;

/// The most items (endpoints, models, enums, events) a sidebar lists on every page.
pub const SIDEBAR_LISTS_UP_TO: usize = 300;

/// The sidebar of each group, made once: it lists everything, so it is most of a page.
#[derive(Debug, Default)]
pub struct NavCache {
    made: RefCell<[Option<String>; GROUPS]>,
}

/// One page: where it lives, what it is called, and what it describes.
pub struct Meta<'a> {
    pub path: &'a str,
    pub title: &'a str,
    pub group: Group,
    /// `data-kind` of the main landmark: `endpoint`, `model`, …
    pub kind: &'a str,
    pub name: Option<&'a str>,
}

pub fn page(site: &Site, meta: &Meta, main: Markup) -> String {
    let root = paths::root_of(meta.path);
    let nav = nav(site, meta.group, root, meta.path);
    let service = site.title();
    let title = format!("{} · {service}", meta.title);
    let head = html! { link rel="stylesheet" href=(paths::href(root, paths::STYLE, None)); };
    let body = html! {
        body data-root=(root) {
            header.site-header {
                a.skip-link href="#main" { "Skip to the content" }
                a.site-title href=(paths::href(root, paths::INDEX, None)) { (service) }
                @if let Some(v) = &site.spec.service.version {
                    span.version { "version " (v) }
                }
                div.search role="search" {
                    label for="search" { "Search the reference" }
                    input #search type="search" autocomplete="off" spellcheck="false"
                        placeholder="Endpoint, path, model, field…"
                        aria-describedby="search-status" aria-controls="search-results";
                    p #search-status.visually-hidden role="status" aria-live="polite" {}
                    ul #search-results.search-results hidden {}
                }
            }
            div.layout {
                (PreEscaped(nav))
                main #main tabindex="-1" data-kind=(meta.kind) data-name=[meta.name] {
                    (main)
                }
            }
            footer.site-footer {
                p { "Reference of " (service) ", made by " code { "covenant docs" } " from " code { (site.settings.spec_name) } "." }
            }
            script src=(paths::href(root, paths::SEARCH_INDEX, None)) {}
            script src=(paths::href(root, paths::SEARCH_SCRIPT, None)) {}
        }
    };
    covenant_runtime::html::page(&title, head, body).into_string()
}

/// The sidebar with the link to this page marked as the current one.
fn current(nav: &str, root: &str, path: &str) -> String {
    let link = format!("href=\"{root}{path}\"");
    nav.replacen(&link, &format!("{link} aria-current=\"page\""), 1)
}

/// The sidebar of a page of `group` at `path`, made once per group.
fn nav(site: &Site, group: Group, root: &str, path: &str) -> String {
    let mut made = site.nav.made.borrow_mut();
    let nav = made[group as usize].get_or_insert_with(|| render_nav(site, group));
    current(nav, root, path)
}

fn render_nav(site: &Site, group: Group) -> String {
    let root = match group {
        Group::Overview | Group::Auth | Group::Limits | Group::States => "",
        _ => "../",
    };
    let spec = site.spec;
    let to = |p: &str| paths::href(root, p, None);
    let by_api = spec.apis.len() > 1;
    if site.lists_apart() {
        return html! {
            nav #site-nav.site-nav aria-label="Everything in the reference" {
                ul.nav-top {
                    (top_links(site, &to))
                    @for (label, folder, count) in parts(site) {
                        @if count > 0 { li { a href=(to(&paths::listing(folder))) { (label) " (" (count) ")" } } }
                    }
                }
            }
        }
        .into_string();
    }
    html! {
        nav #site-nav.site-nav aria-label="Everything in the reference" {
            ul.nav-top { (top_links(site, &to)) }
            @if !spec.endpoints.is_empty() {
                details open[group == Group::Endpoints] {
                    summary { "Endpoints (" (spec.endpoints.len()) ")" }
                    @for (i, api) in spec.apis.iter().enumerate() {
                        @let eps: Vec<_> = spec.endpoints.iter().filter(|e| e.api.index() == i).collect();
                        @if !eps.is_empty() {
                            @if by_api { p.nav-label { "API " code { (api.name) } } }
                            ul {
                                @for ep in eps {
                                    li { a.endpoint-link href=(to(&paths::endpoint(&ep.name))) { (marks::method(ep.method)) " " span.endpoint-name { (ep.name) } } }
                                }
                            }
                        }
                    }
                }
            }
            (group_list("Models", group == Group::Models, spec.models.iter().map(|m| (m.name.as_str(), to(&paths::model(&m.name)))).collect()))
            (group_list("Enums", group == Group::Enums, spec.enums.iter().map(|e| (e.name.as_str(), to(&paths::enum_(&e.name)))).collect()))
            (group_list("Events", group == Group::Events, spec.events.iter().map(|e| (e.name.as_str(), to(&paths::event(&e.name)))).collect()))
        }
    }
    .into_string()
}

/// The sidebar's first links: the overview, and the pages of the whole spec it has.
fn top_links(site: &Site, to: &dyn Fn(&str) -> String) -> Markup {
    let spec = site.spec;
    html! {
        li { a href=(to(paths::INDEX)) { "Overview" } }
        @if !spec.auth_schemes.is_empty() { li { a href=(to(paths::AUTH)) { "Authentication" } } }
        @if site.has_limits() { li { a href=(to(paths::LIMITS)) { "Limits and rate limits" } } }
        @if !spec.state_machines.is_empty() { li { a href=(to(paths::STATES)) { "State machines" } } }
    }
}

/// One part of the sidebar, its names in alphabetical order to be found at a glance.
fn group_list(label: &str, open: bool, mut items: Vec<(&str, String)>) -> Markup {
    if items.is_empty() {
        return html! {};
    }
    items.sort_by_cached_key(|(name, _)| (name.to_lowercase(), name.to_string()));
    html! {
        details open[open] {
            summary { (label) " (" (items.len()) ")" }
            ul {
                @for (name, href) in items { li { a href=(href) { (name) } } }
            }
        }
    }
}

/// The parts of the site that have a listing page of their own on a large site.
fn parts(site: &Site) -> [(&'static str, &'static str, usize); 4] {
    let spec = site.spec;
    [
        ("Endpoints", "endpoints", spec.endpoints.len()),
        ("Models", "models", spec.models.len()),
        ("Enums", "enums", spec.enums.len()),
        ("Events", "events", spec.events.len()),
    ]
}

/// On a large site, one page per part listing all its items, in alphabetical order.
pub fn listing_pages(site: &Site) -> Vec<(String, String)> {
    let spec = site.spec;
    let mut pages = Vec::new();
    for (label, folder, count) in parts(site) {
        if count == 0 {
            continue;
        }
        let path = paths::listing(folder);
        let root = paths::root_of(&path);
        let to = |p: &str| paths::href(root, p, None);
        let items: Vec<(&str, String)> = match folder {
            "endpoints" => spec
                .endpoints
                .iter()
                .map(|e| (e.name.as_str(), to(&paths::endpoint(&e.name))))
                .collect(),
            "models" => spec
                .models
                .iter()
                .map(|m| (m.name.as_str(), to(&paths::model(&m.name))))
                .collect(),
            "enums" => spec
                .enums
                .iter()
                .map(|e| (e.name.as_str(), to(&paths::enum_(&e.name))))
                .collect(),
            _ => spec
                .events
                .iter()
                .map(|e| (e.name.as_str(), to(&paths::event(&e.name))))
                .collect(),
        };
        let group = match folder {
            "endpoints" => Group::Endpoints,
            "models" => Group::Models,
            "enums" => Group::Enums,
            _ => Group::Events,
        };
        let meta = Meta {
            path: &path,
            title: label,
            group,
            kind: "listing",
            name: None,
        };
        let main = html! {
            h1 { (label) " (" (count) ")" }
            (group_list(label, true, items))
        };
        pages.push((path.clone(), page(site, &meta, main)));
    }
    pages
}
