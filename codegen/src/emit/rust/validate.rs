//! `Validate` impls: the constraints serde cannot check, each violation with its path.

use super::{RustModels, Shape};
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The timezone shape both the schemas and `validate()` check: an IANA identifier such as
/// `Europe/Paris`, `UTC` or `Etc/GMT+5`.
/// The runtime's copy must be equal (a test in generated/tests says so).
pub const TIMEZONE_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$";

use crate::emit::shapes::format_scope_applies;

pub fn impl_validate(
    models: &RustModels,
    name: &Ident,
    fields: &[&Field],
    _model: &Model,
    shape: Shape,
) -> TokenStream {
    let rt = &models.rt;
    let checks: Vec<TokenStream> = fields
        .iter()
        .filter_map(|f| field_checks(models, f, shape))
        .collect();
    let (path, out) = if checks.is_empty() {
        (quote!(_path), quote!(_out))
    } else {
        (quote!(path), quote!(out))
    };
    quote! {
        #[allow(deprecated, unused_variables)]
        impl #rt::Validate for #name {
            fn validate_at(&self, #path: &mut Vec<#rt::PathSegment>, #out: &mut Vec<#rt::Violation>) {
                #(#checks)*
            }
        }
    }
}

/// The checks of one field, or `None` when it has nothing to check.
pub fn field_checks(models: &RustModels, f: &Field, shape: Shape) -> Option<TokenStream> {
    let rt = &models.rt;
    let body = value_checks(
        models,
        &f.ty,
        &f.constraints,
        f.format_scope,
        shape,
        quote!(v),
    )?;
    let ident = super::names::field_ident(&f.name);
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
        path.push(#rt::PathSegment::Key(#wire.to_string()));
        #access
        path.pop();
    })
}

/// Checks of a value `v: &T`, or `None` when the type and constraints need none.
fn value_checks(
    models: &RustModels,
    ty: &Type,
    c: &Constraints,
    format_scope: FormatScope,
    shape: Shape,
    v: TokenStream,
) -> Option<TokenStream> {
    let rt = &models.rt;
    let check = quote!(#rt::validate::check);
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
                out.push(quote!(#check::minimum(#as_f64, #min, path, out);));
            }
            if let Some(max) = c.maximum {
                out.push(quote!(#check::maximum(#as_f64, #max, path, out);));
            }
            if !c.one_of.is_empty() {
                let allowed = c.one_of_numbers();
                out.push(quote!(#check::one_of_numbers(#as_f64, &[#(#allowed),*], path, out);));
            }
        }
        Type::Primitive(p) if p.is_string_like() => {
            if let Some(min) = c.min_length {
                let min = min as usize;
                out.push(quote!(#check::min_length(#v, #min, path, out);));
            }
            if let Some(max) = c.max_length {
                let max = max as usize;
                out.push(quote!(#check::max_length(#v, #max, path, out);));
            }
            if let Some(pattern) = &c.pattern {
                out.push(regex_check(rt, pattern, &v));
            }
            if !c.one_of.is_empty() {
                let allowed = c.one_of_strings();
                out.push(quote!(#check::one_of_strings(#v, &[#(#allowed),*], path, out);));
            }
            let format_applies = format_scope_applies(format_scope, shape);
            match p {
                Primitive::Email if format_applies => {
                    out.push(quote!(#check::email(#v, path, out);))
                }
                Primitive::TimeZone => out.push(regex_check(rt, TIMEZONE_PATTERN, &v)),
                _ => {}
            }
        }
        Type::List(inner) => {
            if let Some(min) = c.min_items {
                let min = min as usize;
                out.push(quote!(#check::min_items(#v.len(), #min, path, out);));
            }
            if let Some(max) = c.max_items {
                let max = max as usize;
                out.push(quote!(#check::max_items(#v.len(), #max, path, out);));
            }
            let item = value_checks(
                models,
                inner,
                &Constraints::default(),
                format_scope,
                shape,
                quote!(item),
            );
            if let Some(item) = item {
                out.push(quote! {
                    for (i, item) in #v.iter().enumerate() {
                        path.push(#rt::PathSegment::Index(i));
                        #item
                        path.pop();
                    }
                });
            }
        }
        Type::Model(id) if model_needs_checks(models, *id, shape, &mut Vec::new()) => {
            out.push(quote!(#rt::Validate::validate_at(#v, path, out);));
        }
        _ => {}
    }
    (!out.is_empty()).then(|| quote!(#(#out)*))
}

fn regex_check(rt: &TokenStream, pattern: &str, v: &TokenStream) -> TokenStream {
    quote! {
        {
            static RE: std::sync::LazyLock<regex::Regex> =
                std::sync::LazyLock::new(|| regex::Regex::new(#pattern).expect("pattern checked by covenant"));
            #rt::validate::check::pattern(#v, &RE, path, out);
        }
    }
}

/// Whether validating a model can find anything, so parents skip calls that cannot.
fn model_needs_checks(
    models: &RustModels,
    id: ModelId,
    shape: Shape,
    visiting: &mut Vec<ModelId>,
) -> bool {
    if visiting.contains(&id) {
        return false;
    }
    visiting.push(id);
    let model = models.spec.model(id);
    let needs = model
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
    models: &RustModels,
    ty: &Type,
    c: &Constraints,
    scope: FormatScope,
    shape: Shape,
    visiting: &mut Vec<ModelId>,
) -> bool {
    if !c.is_empty() {
        return true;
    }
    match ty {
        Type::Primitive(Primitive::TimeZone) => true,
        Type::Primitive(Primitive::Email) => format_scope_applies(scope, shape),
        Type::List(inner) => type_needs_checks(
            models,
            inner,
            &Constraints::default(),
            scope,
            shape,
            visiting,
        ),
        Type::Model(id) => model_needs_checks(models, *id, shape, visiting),
        _ => false,
    }
}
