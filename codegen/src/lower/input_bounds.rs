//! The service's default bounds are for inputs: a model no request body reaches (a response,
//! an error, an event) keeps only the bounds it states itself, so an answer that quotes a
//! long input is not outside its own schema.

use super::Lowerer;
use crate::ir::*;

impl Lowerer<'_> {
    pub(super) fn keep_default_bounds_on_inputs(&self, spec: &mut Spec) {
        let mut reached = vec![false; spec.models.len()];
        let mut pending: Vec<&Type> = spec
            .endpoints
            .iter()
            .filter_map(|e| e.body.as_ref())
            .collect();
        while let Some(ty) = pending.pop() {
            match ty {
                Type::Model(id) if !reached[id.index()] => {
                    reached[id.index()] = true;
                    pending.extend(spec.models[id.index()].fields.iter().map(|f| &f.ty));
                }
                Type::List(inner, _) | Type::Map(inner, _) => pending.push(inner),
                Type::Union(members) => pending.extend(members),
                _ => {}
            }
        }
        for (model, _) in spec.models.iter_mut().zip(&reached).filter(|(_, r)| !**r) {
            for field in &mut model.fields {
                drop_default_bound(&mut field.constraints, &field.ty);
            }
        }
    }
}

fn drop_default_bound(c: &mut Constraints, ty: &Type) {
    if c.default_bound.take().is_some() {
        match ty {
            Type::List(_, _) => c.max_items = None,
            _ => c.max_length = None,
        }
    }
}
