//! Named types the importer declares: the items or values of a list or map whose schema
//! constrains them (`type SnowflakeType = string` with its `@pattern`), named after the
//! component they refer to or after their place; and a component union that contains
//! itself (`ErrorDetails = map<string, ErrorDetails> | InnerErrors`).

use crate::build::{ident, item};
use crate::importer::Importer;
use crate::schemas::FieldUse;
use crate::types::Ty;
use covenant_codegen::ast::{Attrs, ItemKind, TypeAliasDecl};
use serde_json::Value;
use std::collections::HashSet;

/// The keywords that constrain a value, which a named type states for items and values.
const CONSTRAINING: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

impl<'d> Importer<'d> {
    /// `ty`, the type of a list's items or a map's values, as a named type carrying the
    /// constraints its schema states; `ty` itself when it states none.
    pub fn constrained_inner(
        &mut self,
        schema: &'d Value,
        at: &str,
        hint: &str,
        ty: Ty,
        usage: FieldUse,
    ) -> Ty {
        if !matches!(ty, Ty::Builtin(_) | Ty::List(_) | Ty::Map(_)) {
            return ty;
        }
        let resolved = self.follow(schema);
        let constrained = CONSTRAINING.iter().any(|k| match resolved.get(*k) {
            Some(Value::Bool(false)) | None => false,
            Some(_) => true,
        });
        if !constrained {
            return ty;
        }
        // A component written in place (an alias of a built-in type) gives the named type
        // its name, once for every use.
        let component = schema
            .get("$ref")
            .and_then(Value::as_str)
            .filter(|r| matches!(self.components.get(*r), Some(None)))
            .map(str::to_string);
        if let Some(name) = component.as_ref().and_then(|r| self.item_types.get(r)) {
            let name = name.clone();
            self.uses_type(&name);
            return Ty::Named(name);
        }
        let name_hint = component
            .as_deref()
            .and_then(|r| r.rsplit('/').next())
            .filter(|s| !s.is_empty())
            .unwrap_or(hint)
            .to_string();
        let pointer = component.as_deref().unwrap_or(at).to_string();
        let losses_before = self.losses.len();
        let annotations = self.as_owner(&name_hint, |this| {
            this.constraints(schema, &ty, &pointer, usage)
        });
        if annotations.is_empty() {
            // Only keywords that say nothing more than the type (a known format).
            return ty;
        }
        let name = self.types.type_name(&name_hint);
        for (owner, _) in &mut self.losses[losses_before..] {
            *owner = name.clone();
        }
        self.uses_type(&name);
        let decl = TypeAliasDecl {
            name: ident(name.clone()),
            ty: ty.expr(false),
        };
        let attrs = Attrs {
            doc: component
                .as_ref()
                .and_then(|_| crate::schemas::description(resolved)),
            annotations,
        };
        self.type_items.push(item(attrs, ItemKind::Type(decl)));
        if let Some(reference) = component {
            self.item_types.insert(reference, name.clone());
        }
        Ty::Named(name)
    }

    /// Whether the component schema at `reference` reaches itself through component
    /// schemas written in place: such a union must be declared, with a name.
    pub fn contains_itself(&self, reference: &str) -> bool {
        let Some(target) = crate::document::resolve(self.doc, reference) else {
            return false;
        };
        let mut seen = HashSet::new();
        self.reaches(target, reference, &mut seen)
    }

    fn reaches(&self, value: &'d Value, target: &str, seen: &mut HashSet<&'d str>) -> bool {
        match value {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    if r == target {
                        return true;
                    }
                    if matches!(self.components.get(r), Some(None))
                        && seen.insert(r)
                        && let Some(next) = crate::document::resolve(self.doc, r)
                        && self.reaches(next, target, seen)
                    {
                        return true;
                    }
                }
                map.values().any(|v| self.reaches(v, target, seen))
            }
            Value::Array(items) => items.iter().any(|v| self.reaches(v, target, seen)),
            _ => false,
        }
    }
}

/// Whether a component schema is a union of several members, none of them null and not
/// all constants: one the spec can declare as a named union.
pub fn declarable_union(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    if map.contains_key("properties") {
        return false;
    }
    ["oneOf", "anyOf"].iter().any(|keyword| {
        let Some(Value::Array(members)) = map.get(*keyword) else {
            return false;
        };
        let null = members
            .iter()
            .any(|m| m.get("type").and_then(Value::as_str) == Some("null"));
        let constants = members.iter().all(|m| m.get("const").is_some());
        members.len() > 1 && !null && !constants
    })
}
