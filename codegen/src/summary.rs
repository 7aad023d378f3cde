//! The one-screen summary `check` prints for a valid spec.

use crate::ir::*;
use std::fmt::Write;

/// Counts a reviewer wants at a glance: how big the spec is, how much of it is deprecated,
/// and how much the source leaves open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub apis: usize,
    pub auth_schemes: usize,
    pub models: usize,
    pub fields: usize,
    pub enums: usize,
    pub open_enums: usize,
    pub enum_values: usize,
    pub endpoints: usize,
    pub events: usize,
    pub limits: usize,
    pub rate_limits: usize,
    pub state_machines: usize,
    pub changes: usize,
    pub deprecations: usize,
    pub not_shown: usize,
    /// Facts the deployed client library fills where the document is silent.
    pub from_deployed_client: usize,
    /// Choices the toolkit makes where neither the document nor the deployed client says.
    pub toolkit_choices: usize,
    pub presence: [usize; 4],
}

impl Summary {
    pub fn of(spec: &Spec) -> Self {
        let all_fields = || {
            spec.models.iter().flat_map(|m| m.fields.iter()).chain(
                spec.endpoints
                    .iter()
                    .flat_map(|e| e.params.iter().map(|p| &p.field)),
            )
        };
        let mut presence = [0; 4];
        for f in all_fields() {
            presence[f.presence as usize] += 1;
        }
        let sourced = spec.sourced_facts();
        let count = |p: Provenance| sourced.iter().filter(|(_, q)| *q == p).count();
        Summary {
            apis: spec.apis.len(),
            auth_schemes: spec.auth_schemes.len(),
            models: spec.models.len(),
            fields: spec.models.iter().map(|m| m.fields.len()).sum(),
            enums: spec.enums.len(),
            open_enums: spec.enums.iter().filter(|e| e.open).count(),
            enum_values: spec.enums.iter().map(|e| e.values.len()).sum(),
            endpoints: spec.endpoints.len(),
            events: spec.events.len(),
            limits: spec.limits.len(),
            rate_limits: spec.rate_limits.len(),
            state_machines: spec.state_machines.len(),
            changes: spec.changelog.len(),
            deprecations: spec.deprecations().len(),
            not_shown: spec.not_shown.len(),
            from_deployed_client: count(Provenance::DeployedClient),
            toolkit_choices: count(Provenance::Toolkit),
            presence,
        }
    }

    pub fn render(&self, spec: &Spec, file_name: &str) -> String {
        let title = spec.service.title.as_deref().unwrap_or(&spec.service.name);
        let mut out = String::new();
        let _ = writeln!(out, "{file_name}: valid spec of {title}");
        let rows: [(&str, String); 13] = [
            ("apis", self.apis.to_string()),
            ("auth schemes", self.auth_schemes.to_string()),
            (
                "models",
                format!("{} ({} fields)", self.models, self.fields),
            ),
            (
                "field cases",
                format!(
                    "{} required, {} optional, {} nullable, {} optional+nullable",
                    self.presence[0], self.presence[1], self.presence[2], self.presence[3]
                ),
            ),
            (
                "enums",
                format!(
                    "{} ({} open, {} values)",
                    self.enums, self.open_enums, self.enum_values
                ),
            ),
            ("endpoints", self.endpoints.to_string()),
            ("events", self.events.to_string()),
            (
                "limits",
                format!("{} ({} rate limits)", self.limits, self.rate_limits),
            ),
            ("state machines", self.state_machines.to_string()),
            ("deprecations", self.deprecations.to_string()),
            (
                "not shown",
                format!("{} places the source leaves open", self.not_shown),
            ),
            (
                "provenance",
                format!(
                    "{} facts from the deployed client, {} toolkit choices",
                    self.from_deployed_client, self.toolkit_choices
                ),
            ),
            ("changelog", format!("{} dated changes", self.changes)),
        ];
        for (label, value) in rows {
            let _ = writeln!(out, "  {label:<15} {value}");
        }
        out
    }
}
