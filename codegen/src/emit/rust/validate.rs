//! `Validate` impls: the constraints serde cannot check, each issue with its location. The
//! checks are the runtime's (`rt::check`), the same the router's walk over JSON runs.

use super::{RustBackend, Shape};
use crate::ir::shapes::format_scope_applies;
use crate::ir::*;
use heck::ToShoutySnakeCase;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// `impl Validate` for a type with these fields: the default (nothing to find) when serde
/// enforces every constraint already.
pub fn impl_validate(
    models: &RustBackend,
    name: &Ident,
    fields: &[&Field],
    groups: &[FieldGroup],
    shape: Shape,
) -> TokenStream {
    let rt = &models.rt;
    let mut checks: Vec<TokenStream> = fields
        .iter()
        .filter_map(|f| field_checks(models, f, shape))
        .collect();
    checks.extend(groups.iter().filter_map(|g| group_check(rt, g, fields)));
    validate_impl(rt, name, checks)
}

/// Whether the optional field at `place` holds something: a three-state field is present
/// when null too.
pub fn is_present(place: TokenStream, presence: Presence) -> TokenStream {
    match presence {
        Presence::OptionalNullable => quote!(!#place.is_absent()),
        _ => quote!(#place.is_some()),
    }
}

/// `@exactly_one_of` and its kin: how many of the group's fields are present. `None` when
/// the shape lacks one of them.
fn group_check(rt: &TokenStream, group: &FieldGroup, fields: &[&Field]) -> Option<TokenStream> {
    let sent = group
        .fields
        .iter()
        .map(|name| {
            let f = fields.iter().find(|f| &f.name == name)?;
            let ident = super::names::field_ident(&f.ident);
            let present = is_present(quote!(self.#ident), f.presence);
            Some(quote!((#name, #present)))
        })
        .collect::<Option<Vec<_>>>()?;
    let rule = format_ident!("{}", format!("{:?}", group.rule));
    Some(quote! {
        #rt::check::field_group(#rt::desc::GroupRule::#rule, &[#(#sent),*], loc, out);
    })
}

/// `impl Validate for name` running `checks` (which use `loc` and `out`).
pub fn validate_impl(rt: &TokenStream, name: &Ident, checks: Vec<TokenStream>) -> TokenStream {
    if checks.is_empty() {
        return quote!(impl #rt::Validate for #name {});
    }
    quote! {
        #[allow(deprecated)]
        impl #rt::Validate for #name {
            fn validate_at(&self, loc: &mut ::std::vec::Vec<#rt::LocPart>, out: &mut ::std::vec::Vec<#rt::Issue>) {
                #(#checks)*
            }
        }
    }
}

/// One `static` per distinct pattern of the spec, named after the first field that has it,
/// so each compiles once and descriptors and `validate()` share it.
pub fn collect_patterns(spec: &Spec) -> BTreeMap<String, Ident> {
    let mut by_pattern: BTreeMap<String, Ident> = BTreeMap::new();
    let mut taken: Vec<String> = Vec::new();
    let model_fields = spec
        .models
        .iter()
        .flat_map(|m| m.fields.iter().map(move |f| (m.name.as_str(), f)));
    let param_fields = spec
        .endpoints
        .iter()
        .flat_map(|e| e.params.iter().map(move |p| (e.name.as_str(), &p.field)));
    let event_fields = spec
        .events
        .iter()
        .flat_map(|e| e.fields.iter().map(move |f| (e.name.as_str(), f)));
    let mut found: Vec<(&str, String, &String)> = Vec::new();
    for (owner, f) in model_fields.chain(param_fields).chain(event_fields) {
        if let Some(pattern) = &f.constraints.pattern {
            found.push((owner, f.name.to_shouty_snake_case(), pattern));
        }
        item_patterns(
            &f.ty,
            owner,
            &format!("{}_ITEM", f.name.to_shouty_snake_case()),
            &mut found,
        );
    }
    for u in &spec.unions {
        for m in &u.members {
            item_patterns(
                m,
                &u.name,
                &format!("{}_ITEM", u.name.to_shouty_snake_case()),
                &mut found,
            );
        }
    }
    for (owner, stem, pattern) in found {
        if by_pattern.contains_key(pattern) {
            continue;
        }
        let mut name = format!("{stem}_PATTERN");
        if taken.contains(&name) {
            name = format!("{}_{name}", owner.to_shouty_snake_case());
        }
        while taken.contains(&name) {
            name.push('_');
        }
        taken.push(name.clone());
        by_pattern.insert(pattern.clone(), format_ident!("{name}"));
    }
    by_pattern
}

/// The patterns of the items and values a type holds (`Tag[]`, `map<string, Tag>`).
fn item_patterns<'s>(
    ty: &'s Type,
    owner: &'s str,
    stem: &str,
    out: &mut Vec<(&'s str, String, &'s String)>,
) {
    match ty {
        Type::List(inner, c) | Type::Map(inner, c) => {
            if let Some(pattern) = &c.pattern {
                out.push((owner, stem.to_string(), pattern));
            }
            item_patterns(inner, owner, stem, out);
        }
        Type::Union(members) => members
            .iter()
            .for_each(|m| item_patterns(m, owner, stem, out)),
        _ => {}
    }
}

/// The statics of [`collect_patterns`].
pub fn pattern_statics(models: &RustBackend) -> TokenStream {
    let rt = &models.rt;
    let mut sorted: Vec<(&Ident, &String)> = models.patterns.iter().map(|(p, i)| (i, p)).collect();
    sorted.sort_by_key(|(ident, _)| ident.to_string());
    let statics = sorted.iter().map(
        |(ident, pattern)| quote!(pub static #ident: #rt::Pattern = #rt::Pattern::new(#pattern);),
    );
    quote!(#(#statics)*)
}

/// The checks of one field, or `None` when it has nothing to check.
pub fn field_checks(models: &RustBackend, f: &Field, shape: Shape) -> Option<TokenStream> {
    let rt = &models.rt;
    let body = value_checks(
        models,
        &f.ty,
        &f.constraints,
        f.format_scope,
        shape,
        quote!(v),
    )?;
    let ident = super::names::field_ident(&f.ident);
    let wire = &f.name;
    let access = match (f.presence, f.default.is_some()) {
        (Presence::Required, _) | (Presence::Optional, true) => {
            quote!(let v = &self.#ident; { #body })
        }
        (Presence::Optional, false)
        | (Presence::Nullable, _)
        | (Presence::OptionalNullable, true) => {
            quote!(if let Some(v) = &self.#ident { #body })
        }
        (Presence::OptionalNullable, false) => {
            quote!(if let #rt::Tristate::Value(v) = &self.#ident { #body })
        }
    };
    Some(quote! {
        loc.push(#rt::LocPart::key(#wire));
        #access
        loc.pop();
    })
}

/// Checks of a value `v: &T`, or `None` when the type and constraints need none.
fn value_checks(
    models: &RustBackend,
    ty: &Type,
    c: &Constraints,
    format_scope: FormatScope,
    shape: Shape,
    v: TokenStream,
) -> Option<TokenStream> {
    let rt = &models.rt;
    let check = quote!(#rt::check);
    let mut out = Vec::new();
    match ty {
        Type::Primitive(p) if p.is_numeric() => {
            // Integers compare as f64: bounds in specs are far below 2^53.
            let as_f64 = if *p == Primitive::Int {
                quote!(*#v as f64)
            } else {
                quote!(*#v)
            };
            if let Some(min) = c.minimum {
                out.push(quote!(#check::minimum(#as_f64, #min, loc, out);));
            }
            if let Some(max) = c.maximum {
                out.push(quote!(#check::maximum(#as_f64, #max, loc, out);));
            }
            if !c.one_of.is_empty() {
                let allowed = c.one_of_numbers();
                out.push(quote!(#check::one_of_numbers(#as_f64, &[#(#allowed),*], loc, out);));
            }
        }
        Type::Primitive(Primitive::Bool) => {
            if let [Literal::Bool(expected)] = c.one_of.as_slice() {
                out.push(quote!(#check::constant_bool(*#v, #expected, loc, out);));
            }
        }
        Type::Primitive(p) if p.is_string_like() => {
            if let Some(min) = c.min_length {
                let min = min as usize;
                out.push(quote!(#check::min_length(#v, #min, loc, out);));
            }
            if let Some(max) = c.max_length {
                let max = max as usize;
                out.push(quote!(#check::max_length(#v, #max, loc, out);));
            }
            if let Some(pattern) = c.pattern.as_ref().and_then(|p| models.patterns.get(p)) {
                out.push(quote!(#check::pattern(#v, &super::models::#pattern, loc, out);));
            }
            if !c.one_of.is_empty() {
                let allowed = c.one_of_strings();
                out.push(quote!(#check::one_of_strings(#v, &[#(#allowed),*], loc, out);));
            }
            let format_applies = format_scope_applies(format_scope, shape);
            match p {
                Primitive::Email if format_applies => {
                    out.push(quote!(#check::email(#v, loc, out);))
                }
                Primitive::TimeZone => out.push(quote!(#check::time_zone(#v, loc, out);)),
                _ => {}
            }
        }
        Type::List(inner, item_constraints) => {
            if let Some(min) = c.min_items {
                let min = min as usize;
                out.push(quote!(#check::min_items(#v.len(), #min, loc, out);));
            }
            if let Some(max) = c.max_items {
                let max = max as usize;
                out.push(quote!(#check::max_items(#v.len(), #max, loc, out);));
            }
            if c.unique_items {
                out.push(quote!(#check::unique_items(#v, loc, out);));
            }
            let item = value_checks(
                models,
                inner,
                item_constraints,
                format_scope,
                shape,
                quote!(item),
            );
            if let Some(item) = item {
                out.push(quote! {
                    for (i, item) in #v.iter().enumerate() {
                        loc.push(#rt::LocPart::Index(i));
                        #item
                        loc.pop();
                    }
                });
            }
        }
        Type::Map(inner, value_constraints) => {
            if let Some(min) = c.min_items {
                let min = min as usize;
                out.push(quote!(#check::min_entries(#v.len(), #min, loc, out);));
            }
            if let Some(max) = c.max_items {
                let max = max as usize;
                out.push(quote!(#check::max_entries(#v.len(), #max, loc, out);));
            }
            let value = value_checks(
                models,
                inner,
                value_constraints,
                format_scope,
                shape,
                quote!(value),
            );
            if let Some(value) = value {
                out.push(quote! {
                    for (key, value) in #v.iter() {
                        loc.push(#rt::LocPart::Key(key.clone().into()));
                        #value
                        loc.pop();
                    }
                });
            }
        }
        Type::Model(id) if model_needs_checks(models, *id, shape, &mut Vec::new()) => {
            out.push(quote!(#rt::Validate::validate_at(#v, loc, out);));
        }
        // The union's own `Validate` reaches the member it holds.
        Type::Union(_) if union_needs_checks(models, ty, &mut Vec::new()) => {
            out.push(quote!(#rt::Validate::validate_at(#v, loc, out);));
        }
        Type::NamedUnion(id) if named_union_needs_checks(models, *id, &mut Vec::new()) => {
            out.push(quote!(#rt::Validate::validate_at(#v, loc, out);));
        }
        _ => {}
    }
    (!out.is_empty()).then(|| quote!(#(#out)*))
}

/// A model or declared union being looked into, so a type that contains itself is looked
/// into once.
#[derive(Clone, Copy, PartialEq)]
pub enum Visit {
    Model(ModelId),
    Union(UnionId),
}

/// Whether validating a model can find anything, so parents skip calls that cannot.
pub fn model_needs_checks(
    models: &RustBackend,
    id: ModelId,
    shape: Shape,
    visiting: &mut Vec<Visit>,
) -> bool {
    if visiting.contains(&Visit::Model(id)) {
        return false;
    }
    visiting.push(Visit::Model(id));
    let model = models.spec.model(id);
    let needs = !model.groups.is_empty()
        || model
            .fields
            .iter()
            .filter(|f| super::in_shape(f, shape))
            .any(|f| {
                type_needs_checks(
                    models,
                    &f.ty,
                    &f.constraints,
                    f.format_scope,
                    shape,
                    visiting,
                )
            });
    visiting.pop();
    needs
}

fn type_needs_checks(
    models: &RustBackend,
    ty: &Type,
    c: &Constraints,
    scope: FormatScope,
    shape: Shape,
    visiting: &mut Vec<Visit>,
) -> bool {
    if !c.is_empty() {
        return true;
    }
    match ty {
        Type::Primitive(Primitive::TimeZone) => true,
        Type::Primitive(Primitive::Email) => format_scope_applies(scope, shape),
        Type::List(inner, c) | Type::Map(inner, c) => {
            type_needs_checks(models, inner, c, scope, shape, visiting)
        }
        Type::Model(id) => model_needs_checks(models, *id, shape, visiting),
        Type::Union(_) => union_needs_checks(models, ty, visiting),
        Type::NamedUnion(id) => named_union_needs_checks(models, *id, visiting),
        _ => false,
    }
}

/// As [`union_needs_checks`] for a declared union, which may contain itself: a union met
/// again on the way finds nothing new.
pub fn named_union_needs_checks(
    models: &RustBackend,
    id: UnionId,
    visiting: &mut Vec<Visit>,
) -> bool {
    if visiting.contains(&Visit::Union(id)) {
        return false;
    }
    visiting.push(Visit::Union(id));
    let members = Type::Union(models.spec.union(id).members.clone());
    let needs = union_needs_checks(models, &members, visiting);
    visiting.pop();
    needs
}

/// Whether a member of a union can hold something to check. Union types are shared by
/// both shapes, so their members are checked in the response shape, as they are typed.
pub fn union_needs_checks(models: &RustBackend, ty: &Type, visiting: &mut Vec<Visit>) -> bool {
    let Type::Union(members) = ty else {
        return false;
    };
    members.iter().any(|m| {
        type_needs_checks(
            models,
            m,
            &Constraints::default(),
            FormatScope::Always,
            Shape::Response,
            visiting,
        )
    })
}

/// The body of a union's `validate_at`: each member that can hold something to check is
/// checked where the union stands.
pub fn union_validate_arms(
    models: &RustBackend,
    ident: &proc_macro2::Ident,
    variants: &[proc_macro2::Ident],
    members: &[Type],
) -> Vec<TokenStream> {
    variants
        .iter()
        .zip(members)
        .filter_map(|(variant, member)| {
            let checks = value_checks(
                models,
                member,
                &Constraints::default(),
                FormatScope::Always,
                Shape::Response,
                quote!(v),
            )?;
            Some(quote!(#ident::#variant(v) => { #checks }))
        })
        .collect()
}
