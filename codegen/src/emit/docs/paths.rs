//! Where each page of the site lives, relative to the site's folder. Spec names are
//! identifiers, so they are safe as file names as they are.

pub const INDEX: &str = "index.html";
pub const AUTH: &str = "auth.html";
pub const LIMITS: &str = "limits.html";
pub const STATES: &str = "states.html";
pub const STYLE: &str = "style.css";
pub const SEARCH_SCRIPT: &str = "search.js";
pub const SEARCH_INDEX: &str = "search-index.js";

pub fn endpoint(name: &str) -> String {
    format!("endpoints/{name}.html")
}

pub fn model(name: &str) -> String {
    format!("models/{name}.html")
}

pub fn enum_(name: &str) -> String {
    format!("enums/{name}.html")
}

pub fn event(name: &str) -> String {
    format!("events/{name}.html")
}

/// The way back to the site's folder from a page: pages live at most one folder deep.
pub fn root_of(path: &str) -> &'static str {
    if path.contains('/') { "../" } else { "" }
}

/// A link from a page whose way back is `root` to `path`, with an optional fragment.
pub fn href(root: &str, path: &str, fragment: Option<&str>) -> String {
    match fragment {
        Some(f) => format!("{root}{path}#{f}"),
        None => format!("{root}{path}"),
    }
}

/// The page listing every item of a part of a large site (`models/all-of-them.html`): the
/// name holds a `-`, so no item of the spec, all identifiers, is named so.
pub fn listing(folder: &str) -> String {
    format!("{folder}/all-of-them.html")
}
