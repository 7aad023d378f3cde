//! Where the implementation under test is, as a run and its webhook receiver both need it.

use crate::contract::Route;
use std::collections::BTreeMap;

/// Where the implementation under test is: a URL for each API base, by the name a
/// deployment gives it (`base_url` for `{base_url}`, `management_url`, or `<api>_url` for a
/// base the spec writes as an address). Every base a run uses is named here; none is guessed.
#[derive(Clone, Debug, Default)]
pub struct Target {
    pub bases: BTreeMap<String, String>,
}

impl Target {
    /// The URL an endpoint's API is reached at.
    pub fn resolve(&self, route: &Route) -> Result<String, String> {
        let name = &route.base_name();
        let placeholder = format!("{{{name}}}");
        match self.bases.get(name) {
            Some(url) if route.base.contains(&placeholder) => {
                Ok(route.base.replace(&placeholder, url.trim_end_matches('/')))
            }
            Some(url) => Ok(url.trim_end_matches('/').to_string()),
            None if !route.base.contains('{') => Ok(route.base.to_string()),
            None => Err(format!(
                "no URL for `{name}`, the base of the `{}` API: pass --target {}=URL, or a credentials file with `{name}`",
                route.api, route.api
            )),
        }
    }

    /// The URL of the main API, for reports.
    pub fn label(&self) -> String {
        self.bases
            .get("base_url")
            .cloned()
            .or_else(|| self.bases.values().next().cloned())
            .unwrap_or_default()
    }
}
