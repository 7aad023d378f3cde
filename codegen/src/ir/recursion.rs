//! Models that contain themselves. A reference outside a list is a value held in place, so
//! a cycle of such references needs indirection in languages that lay values out inline
//! (Rust's `Box`), and a cycle of required ones has no finite value at all.

use super::*;
use std::collections::HashSet;

/// Which references count as edges of the containment graph.
#[derive(Clone, Copy, PartialEq)]
pub enum Containment {
    /// Every reference outside a list: optional, nullable and union ones included.
    InPlace,
    /// Only references every value must hold: required, not nullable, not one of a union.
    Required,
}

impl Spec {
    /// The models that reach themselves through references of the given kind.
    pub fn self_containing_models(&self, kind: Containment) -> HashSet<ModelId> {
        (0..self.models.len() as u32)
            .map(ModelId)
            .filter(|&id| self.contained_models(id, kind).contains(&id))
            .collect()
    }

    /// Every model reachable from `from` through one or more references of the given kind.
    fn contained_models(&self, from: ModelId, kind: Containment) -> HashSet<ModelId> {
        let mut seen = HashSet::new();
        let mut stack = self.direct_containment(from, kind);
        while let Some(id) = stack.pop() {
            if seen.insert(id) {
                stack.extend(self.direct_containment(id, kind));
            }
        }
        seen
    }

    fn direct_containment(&self, id: ModelId, kind: Containment) -> Vec<ModelId> {
        let mut out = Vec::new();
        for f in &self.model(id).fields {
            if kind == Containment::Required && f.presence != Presence::Required {
                continue;
            }
            self.held_in_place(&f.ty, kind, &mut out, &mut Vec::new());
        }
        out
    }

    /// The models a value of `ty` holds in place; a declared union is looked into once.
    fn held_in_place(
        &self,
        ty: &Type,
        kind: Containment,
        out: &mut Vec<ModelId>,
        unions: &mut Vec<UnionId>,
    ) {
        match ty {
            Type::Model(id) => out.push(*id),
            Type::Union(members) if kind == Containment::InPlace => {
                for m in members {
                    self.held_in_place(m, kind, out, unions);
                }
            }
            Type::NamedUnion(id) if kind == Containment::InPlace && !unions.contains(id) => {
                unions.push(*id);
                for m in &self.union(*id).members {
                    self.held_in_place(m, kind, out, unions);
                }
            }
            _ => {}
        }
    }
}
