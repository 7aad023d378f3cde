//! The names of the features and plans the service's gates read, in one place. Both come from
//! the spec (its `TeamFeature` values and its plan gates): the first start, the management
//! API, an operator's flags and the gate checks all take them from here.

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
