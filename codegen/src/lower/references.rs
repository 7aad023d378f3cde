//! Checks that need the whole spec: deprecation replacements and unused declarations.

use super::{Lowerer, TypeDecl};
use crate::diagnostic::Diagnostic;
use crate::diagnostic_codes;
use crate::ir::*;
use crate::source::Span;

/// Where the `use:` of a deprecation is looked up: among the deprecated thing's siblings.
#[derive(Clone, Debug)]
pub(crate) enum ReplacementScope {
    Field(String),
    Param(String),
    EventField(String),
    EnumValue(String),
    Endpoint,
    Event,
    Auth,
}

#[derive(Clone, Debug)]
pub(crate) struct PendingReplacement {
    scope: ReplacementScope,
    name: String,
    span: Span,
}

impl Lowerer<'_> {
    pub(super) fn queue_replacement(&mut self, scope: ReplacementScope, name: String, span: Span) {
        self.pending_replacements
            .push(PendingReplacement { scope, name, span });
    }

    pub(super) fn check_replacements(&mut self, spec: &Spec) {
        for p in std::mem::take(&mut self.pending_replacements) {
            let (found, where_) = match &p.scope {
                ReplacementScope::Field(model) => (
                    spec.model_named(model)
                        .is_some_and(|m| m.field(&p.name).is_some()),
                    format!("a field of `{model}`"),
                ),
                ReplacementScope::Param(ep) => (
                    spec.endpoint_named(ep)
                        .is_some_and(|e| e.params.iter().any(|q| q.field.name == p.name)),
                    format!("a parameter of `{ep}`"),
                ),
                ReplacementScope::EventField(ev) => (
                    spec.events
                        .iter()
                        .any(|e| &e.name == ev && e.fields.iter().any(|f| f.name == p.name)),
                    format!("a field of event `{ev}`"),
                ),
                ReplacementScope::EnumValue(e) => (
                    spec.enum_named(e)
                        .is_some_and(|e| e.values.iter().any(|v| v.name == p.name)),
                    format!("a value of `{e}`"),
                ),
                ReplacementScope::Endpoint => (
                    spec.endpoint_named(&p.name).is_some(),
                    "an endpoint".to_string(),
                ),
                ReplacementScope::Event => (
                    spec.events
                        .iter()
                        .any(|e| e.name == p.name || spec.event_produces(e, &p.name)),
                    "an event name or an event type the spec produces".to_string(),
                ),
                ReplacementScope::Auth => (
                    spec.auth_schemes.iter().any(|a| a.name == p.name),
                    "an auth scheme".to_string(),
                ),
            };
            if !found {
                self.error(
                    diagnostic_codes::DEPRECATION_TARGET_MISSING,
                    p.span,
                    format!("deprecation points at `{}`, which does not exist", p.name),
                )
                .label(format!("not {where_}"))
                .help("name what replaces the deprecated thing, or drop `use:`");
            }
        }
    }

    /// Models and enums nothing refers to are usually a forgotten reference.
    pub(super) fn warn_unused(&mut self, spec: &Spec) {
        for (i, m) in spec.models.iter().enumerate() {
            let id = TypeDecl::Model(ModelId(i as u32));
            if m.origin == ModelOrigin::Declared && !self.used_types.contains(&id) {
                self.diags.push(
                    Diagnostic::warning(
                        diagnostic_codes::UNUSED,
                        spec.spans.models[i],
                        format!("model `{}` is never used", m.name),
                    )
                    .label("no field, body, response or event refers to it"),
                );
            }
        }
        for (index, name, span) in self.alias_names() {
            if !self.used_types.contains(&TypeDecl::Alias(index)) {
                self.diags.push(
                    Diagnostic::warning(
                        diagnostic_codes::UNUSED,
                        span,
                        format!("type `{name}` is never used"),
                    )
                    .label("no field, parameter or other type refers to it"),
                );
            }
        }
        for (i, e) in spec.enums.iter().enumerate() {
            if !self.used_types.contains(&TypeDecl::Enum(EnumId(i as u32))) {
                self.diags.push(
                    Diagnostic::warning(
                        diagnostic_codes::UNUSED,
                        spec.spans.enums[i],
                        format!("enum `{}` is never used", e.name),
                    )
                    .label("no field, parameter, placeholder or subset refers to it"),
                );
            }
        }
    }
}
