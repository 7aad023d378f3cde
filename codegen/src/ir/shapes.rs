//! Request and response shapes of models, shared by every emitter so a Rust struct and its
//! schema always carry the same name.

use crate::ir::*;
use std::collections::HashSet;

/// Which shape of a model: what clients send, or what the service returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    Request,
    Response,
}

pub struct Shapes<'a> {
    spec: &'a Spec,
    /// Models whose request shape differs from the response shape, directly or through a field.
    with_variants: HashSet<ModelId>,
}

impl<'a> Shapes<'a> {
    pub fn new(spec: &'a Spec) -> Self {
        let mut with_variants: HashSet<ModelId> = (0..spec.models.len() as u32)
            .map(ModelId)
            .filter(|id| spec.model(*id).has_variants())
            .collect();
        loop {
            let before = with_variants.len();
            for (i, m) in spec.models.iter().enumerate() {
                if m.fields
                    .iter()
                    .any(|f| refers_to_any(&f.ty, &with_variants))
                {
                    with_variants.insert(ModelId(i as u32));
                }
            }
            if with_variants.len() == before {
                return Shapes {
                    spec,
                    with_variants,
                };
            }
        }
    }

    pub fn has_variants(&self, id: ModelId) -> bool {
        self.with_variants.contains(&id)
    }

    /// The name of a model in a shape: `{Name}Request` for a distinct request shape (or
    /// `{Name}Input` when the spec already uses that name).
    pub fn name(&self, id: ModelId, shape: Shape) -> String {
        let model = self.spec.model(id);
        if shape == Shape::Request && self.has_variants(id) {
            let taken =
                |n: &str| self.spec.model_named(n).is_some() || self.spec.enum_named(n).is_some();
            return [
                format!("{}Request", model.name),
                format!("{}Input", model.name),
            ]
            .into_iter()
            .find(|n| !taken(n))
            .unwrap_or_else(|| format!("{}RequestShape", model.name));
        }
        model.name.clone()
    }

    /// Every (model, shape) that gets its own definition, in declaration order.
    pub fn all(&self) -> Vec<(ModelId, Shape)> {
        let mut out = Vec::new();
        for i in 0..self.spec.models.len() as u32 {
            let id = ModelId(i);
            out.push((id, Shape::Response));
            if self.has_variants(id) {
                out.push((id, Shape::Request));
            }
        }
        out
    }
}

fn refers_to_any(ty: &Type, set: &HashSet<ModelId>) -> bool {
    match ty {
        Type::Model(id) => set.contains(id),
        Type::List(inner, _) | Type::Map(inner, _) => refers_to_any(inner, set),
        Type::Union(types) => types.iter().any(|t| refers_to_any(t, set)),
        _ => false,
    }
}

/// Whether a field belongs to a shape.
pub fn in_shape(f: &Field, shape: Shape) -> bool {
    !matches!(
        (f.visibility, shape),
        (Visibility::RequestOnly, Shape::Response) | (Visibility::ResponseOnly, Shape::Request)
    )
}

/// Whether a field's string format is enforced in a shape.
pub fn format_applies(f: &Field, shape: Shape) -> bool {
    format_scope_applies(f.format_scope, shape)
}

pub fn format_scope_applies(scope: FormatScope, shape: Shape) -> bool {
    scope == FormatScope::Always || shape == Shape::Request
}
