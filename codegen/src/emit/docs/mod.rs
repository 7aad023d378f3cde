//! The reference site `covenant docs` writes: static HTML pages, one per endpoint, model,
//! enum and event, plus pages for auth, limits and state machines, that work opened from
//! disk with no server and no network. Search runs in the page over an index shipped as a
//! script, since `fetch` of a sibling file is refused under `file://`.
//!
//! Every fact the spec leaves open (`not_shown`) and every fact not from the interface
//! document (provenance) stays visible, as the other emitters keep them.

mod auth;
mod contents;
mod endpoint;
mod enums;
mod events;
mod exchange;
mod facts;
mod fields;
mod ids;
mod index;
mod layout;
mod limits;
mod marks;
mod model;
pub mod paths;
mod search;
mod states;
mod text;
mod types;
mod usage;

use super::Files;
use crate::ir::Spec;
use crate::ir::shapes::Shapes;
use crate::samples::Samples;

/// Settings of one site.
#[derive(Clone, Debug)]
pub struct DocsSettings {
    /// How the spec file is named on the pages (a relative path, never a machine path).
    pub spec_name: String,
}

impl Default for DocsSettings {
    fn default() -> Self {
        DocsSettings {
            spec_name: "the spec".to_string(),
        }
    }
}

/// The names the site owns in its folder: rewriting it removes its stale pages under these
/// and leaves anything else in the folder alone.
pub const OWNED: &[&str] = &[
    "endpoints",
    "models",
    "enums",
    "events",
    paths::INDEX,
    paths::AUTH,
    paths::LIMITS,
    paths::STATES,
    paths::STYLE,
    paths::SEARCH_SCRIPT,
    paths::SEARCH_INDEX,
];

/// The whole site: each page and asset by its path relative to the site's folder.
/// The same spec gives the same bytes.
pub fn site(spec: &Spec, settings: &DocsSettings) -> Files {
    let site = Site::new(spec, settings);
    let mut files = Files::new();
    files.insert(paths::INDEX.into(), index::page(&site));
    for ep in &spec.endpoints {
        files.insert(paths::endpoint(&ep.name), endpoint::page(&site, ep));
    }
    for (i, m) in spec.models.iter().enumerate() {
        let id = crate::ir::ModelId(i as u32);
        files.insert(paths::model(&m.name), model::page(&site, id));
    }
    for (i, e) in spec.enums.iter().enumerate() {
        let id = crate::ir::EnumId(i as u32);
        files.insert(paths::enum_(&e.name), enums::page(&site, id));
    }
    for ev in &spec.events {
        files.insert(paths::event(&ev.name), events::page(&site, ev));
    }
    if !spec.auth_schemes.is_empty() {
        files.insert(paths::AUTH.into(), auth::page(&site));
    }
    if site.has_limits() {
        files.insert(paths::LIMITS.into(), limits::page(&site));
    }
    if !spec.state_machines.is_empty() {
        files.insert(paths::STATES.into(), states::page(&site));
    }
    if site.lists_apart() {
        for (path, page) in layout::listing_pages(&site) {
            files.insert(path, page);
        }
    }
    files.insert(paths::STYLE.into(), layout::STYLE.into());
    files.insert(paths::SEARCH_SCRIPT.into(), search::SCRIPT.into());
    files.insert(paths::SEARCH_INDEX.into(), search::index_script(spec));
    files
}

/// What every page reads: the spec, and what is worked out once for all pages.
pub(crate) struct Site<'a> {
    pub spec: &'a Spec,
    pub settings: &'a DocsSettings,
    pub shapes: Shapes<'a>,
    pub samples: Samples<'a>,
    pub usage: usage::Usage,
    nav: layout::NavCache,
}

impl<'a> Site<'a> {
    fn new(spec: &'a Spec, settings: &'a DocsSettings) -> Self {
        Site {
            spec,
            settings,
            shapes: Shapes::new(spec),
            samples: Samples::new(spec),
            usage: usage::Usage::of(spec),
            nav: layout::NavCache::default(),
        }
    }

    /// The service's display name: its title, else its name.
    pub fn title(&self) -> &str {
        self.spec
            .service
            .title
            .as_deref()
            .unwrap_or(&self.spec.service.name)
    }

    /// Whether the sidebar names each part with a link to its own listing page, rather than
    /// listing everything: past a few hundred items, a sidebar on every page would make
    /// the site grow with the square of the spec.
    pub fn lists_apart(&self) -> bool {
        let spec = self.spec;
        spec.endpoints.len() + spec.models.len() + spec.enums.len() + spec.events.len()
            > layout::SIDEBAR_LISTS_UP_TO
    }

    pub fn has_limits(&self) -> bool {
        !self.spec.limits.is_empty() || !self.spec.rate_limits.is_empty()
    }
}

#[cfg(test)]
mod tests;
