//! Faults of the document the import reports apart from its losses: OpenAPI's
//! `discriminator` beside a union, and a `required` naming a field twice.
//!
//! The spec tells a union's members apart by the
//! constant each fixes in the tag property, which is what the members' own schemas require;
//! a discriminator that names a member by another value (a schema name, when there is no
//! `mapping`) contradicts the document itself, and no answer can satisfy both. It is reported
//! as a fault of the document, apart from the losses, so a reader (and a test tool run on the
//! document) knows why.

use crate::importer::Importer;
use serde_json::{Map, Value};

impl<'d> Importer<'d> {
    /// Marks the union at `at` when its discriminator names a member by a value other than
    /// the one the member fixes in the tag property.
    pub(crate) fn check_discriminator(
        &mut self,
        union: &'d Map<String, Value>,
        members: &'d [Value],
        at: &str,
    ) {
        let Some(discriminator) = union.get("discriminator") else {
            return;
        };
        let Some(property) = discriminator.get("propertyName").and_then(Value::as_str) else {
            return;
        };
        let mapping = discriminator.get("mapping").and_then(Value::as_object);
        let mismatched: Vec<String> = members
            .iter()
            .filter_map(|member| {
                let reference = member.get("$ref")?.as_str()?;
                let fixed = self.fixed_value(self.follow(member), property, 0)?;
                let named = named_by(mapping, reference);
                (!named.contains(&fixed)).then(|| {
                    let names = named.join("` or `");
                    format!("`{names}` for a member whose `{property}` is always `{fixed}`")
                })
            })
            .collect();
        if mismatched.is_empty() {
            return;
        }
        let shown = mismatched.len().min(2);
        let more = match mismatched.len() - shown {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        self.fault(
            &format!("{at}/discriminator"),
            format!(
                "a discriminator whose values contradict the members it names: {}{more}",
                mismatched[..shown].join("; ")
            ),
            format!("members told apart by the value each fixes in `{property}`"),
        );
    }

    /// Reports a `required` that names a field more than once: JSON Schema wants each name
    /// once, and tools that check the document refuse it.
    pub(crate) fn repeated_names(&mut self, names: &[Value], at: &str) {
        let mut seen = std::collections::BTreeSet::new();
        let mut repeated: Vec<&str> = names
            .iter()
            .filter_map(Value::as_str)
            .filter(|name| !seen.insert(*name))
            .collect();
        repeated.dedup();
        if repeated.is_empty() {
            return;
        }
        self.fault(
            at,
            format!(
                "`required` naming `{}` more than once, which JSON Schema does not allow",
                repeated.join("`, `")
            ),
            "each field required once",
        );
    }

    /// The one string a schema (or the parts of its `allOf`) fixes its property to.
    fn fixed_value(&self, schema: &'d Value, property: &str, depth: usize) -> Option<String> {
        // A schema whose `allOf` holds itself ends here.
        if depth > 16 {
            return None;
        }
        let own = schema
            .get("properties")
            .and_then(|p| p.get(property))
            .map(|p| self.follow(p))
            .and_then(|p| match (p.get("const"), p.get("enum")) {
                (Some(Value::String(value)), _) => Some(value.clone()),
                (_, Some(Value::Array(values))) => match values.as_slice() {
                    [Value::String(value)] => Some(value.clone()),
                    _ => None,
                },
                _ => None,
            });
        own.or_else(|| {
            let parts = schema.get("allOf")?.as_array()?;
            parts
                .iter()
                .find_map(|part| self.fixed_value(self.follow(part), property, depth + 1))
        })
    }
}

/// The values a discriminator names the member `reference` by: its `mapping` keys that
/// point at it, or, with none, the last segment of its reference (the schema's name).
fn named_by(mapping: Option<&Map<String, Value>>, reference: &str) -> Vec<String> {
    // A mapping may name its target by reference or by the schema's bare name.
    let name = reference.rsplit('/').next().unwrap_or(reference);
    let mapped: Vec<String> = mapping
        .into_iter()
        .flatten()
        .filter(|(_, target)| {
            target
                .as_str()
                .is_some_and(|target| target == reference || target == name)
        })
        .map(|(value, _)| value.clone())
        .collect();
    if !mapped.is_empty() {
        return mapped;
    }
    vec![name.to_string()]
}
