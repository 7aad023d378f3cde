//! The names of the features, plans and key scopes the service stores, in one place. All come
//! from the spec (its `TeamFeature` values, its plan gates, its key scopes): the first start,
//! the management API and an operator's flags take them from here; the gate checks read the
//! same spec names through the generated `Gate::name`.

use health_api::models::{ManagementKeyScope, TeamFeature};
use health_api::operations::Gate;

/// Every closed-beta feature a team can have.
pub fn features() -> &'static [&'static str] {
    TeamFeature::KNOWN
}

/// The plan that opens the management API.
pub fn highest_plan() -> &'static str {
    Gate::HighestPlan.name()
}

/// The scope of a management key that controls the whole organization.
pub fn org_scope() -> &'static str {
    // A static, so its `as_str` (which borrows the value) lives for the whole program.
    static ORG: ManagementKeyScope = ManagementKeyScope::Org;
    ORG.as_str()
}

/// A feature name an operator typed, refused unless it is one of [`features`].
pub fn known_feature(name: &str) -> Result<&'static str, String> {
    features()
        .iter()
        .copied()
        .find(|f| *f == name)
        .ok_or_else(|| format!("unknown feature `{name}`; known: {}", features().join(", ")))
}
