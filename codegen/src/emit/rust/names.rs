//! Rust names for spec names: types in UpperCamelCase, fields in snake_case, with keywords,
//! leading digits and collisions handled so any spec yields compiling code.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};
use quote::format_ident;
use std::collections::HashMap;

/// Words that cannot be identifiers even as raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

fn is_keyword(word: &str) -> bool {
    syn::parse_str::<syn::Ident>(word).is_err()
}

/// A field or parameter name: `type` becomes `r#type`, `x-service-link-token` becomes
/// `x_service_link_token`.
pub fn field_ident(wire: &str) -> Ident {
    let mut name = wire.to_snake_case();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name = format!("f_{name}");
    }
    if NOT_RAW.contains(&name.as_str()) {
        return Ident::new(&format!("{name}_"), Span::call_site());
    }
    if is_keyword(&name) {
        return Ident::new_raw(&name, Span::call_site());
    }
    Ident::new(&name, Span::call_site())
}

/// Names the generated modules use unqualified: the prelude's, what the modules import, and
/// the items they define beside the spec's types. A spec type named so gets a trailing `_`.
const TAKEN_TYPE_NAMES: &[&str] = &[
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "ToString",
    "ToOwned",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Default",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Extend",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "TryFrom",
    "TryInto",
    "Debug",
    "Serialize",
    "Deserialize",
    "AuthScheme",
    "Gate",
    "Config",
    "Client",
    "Context",
    "Request",
    "Response",
    "IntoResponse",
    "State",
    "Future",
    "Arc",
    "HashMap",
    "MockServer",
    "Endpoint",
];

/// A type name as written in the spec, in UpperCamelCase; a name the generated code already
/// uses (`Result`, `Option`, `Gate`) gets a trailing `_` so both stay reachable.
pub fn type_ident(name: &str) -> Ident {
    let mut name = crate::lower::spell(name).to_upper_camel_case();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || is_keyword(&name) {
        name = format!("T{name}");
    }
    if TAKEN_TYPE_NAMES.contains(&name.as_str()) {
        name.push('_');
    }
    Ident::new(&name, Span::call_site())
}

/// Methods of the generated server trait and client that are no endpoint's.
const TAKEN_METHOD_NAMES: &[&str] = &[
    "authenticate",
    "gate_open",
    "has_scopes",
    "new",
    "call_by_name",
];

/// The trait and client method of an endpoint: its name in snake_case, with `_endpoint`
/// after a name the trait or the client already has.
pub fn method_ident(endpoint: &str) -> Ident {
    let name = crate::lower::snake(endpoint);
    if TAKEN_METHOD_NAMES.contains(&name.as_str()) {
        return format_ident!("{name}_endpoint");
    }
    field_ident(&name)
}

/// Variant names of an enum, in value order: UpperCamelCase with meaningful punctuation
/// spelled out (`+1` is `Plus1`, `-1` is `Minus1`), `V` before a leading digit, `_` after a
/// keyword (`Self_`), and a numeric suffix where two values would still collide.
pub fn variant_idents(values: &[&str], reserved: &str) -> Vec<Ident> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    seen.insert(reserved.to_string(), 1);
    values
        .iter()
        .map(|value| {
            let mut name = crate::lower::spell(value).to_upper_camel_case();
            if name.is_empty() {
                name = "Empty".to_string();
            }
            if name.starts_with(|c: char| c.is_ascii_digit()) {
                name = format!("V{name}");
            }
            if is_keyword(&name) {
                name.push('_');
            }
            let count = seen.entry(name.clone()).or_insert(0);
            *count += 1;
            if *count > 1 {
                name = format!("{name}{count}");
            }
            Ident::new(&name, Span::call_site())
        })
        .collect()
}

/// How a type reads in a generated name: `String`, `Label`, `LabelList`.
pub fn type_label(spec: &crate::ir::Spec, ty: &crate::ir::Type) -> String {
    use crate::ir::Type;
    match ty {
        Type::Primitive(p) => p.name().to_string(),
        Type::Model(id) => spec.model(*id).name.clone(),
        Type::Enum(id) => spec.enum_(*id).name.clone(),
        Type::List(inner, _) => format!("{}List", type_label(spec, inner)),
        Type::Map(inner, _) => format!("{}Map", type_label(spec, inner)),
        Type::Union(_) => "Union".to_string(),
        Type::NamedUnion(id) => spec.union(*id).name.clone(),
        Type::NotShown(_) => "Value".to_string(),
    }
}

/// Unions written alike in more than one place (fields, parameters, bodies, responses,
/// events), each with the name its members give it, `StringOrLabel`: one type they share.
/// A name a declared type already has is not taken; such a union keeps a type per place.
/// The type names generated code takes before any union is named: each model in each
/// shape and its builder, each enum, and each endpoint's `Input`, `Response` and headers.
pub fn taken_type_names(
    spec: &crate::ir::Spec,
    shapes: &crate::ir::shapes::Shapes,
) -> std::collections::HashSet<String> {
    let mut taken = std::collections::HashSet::new();
    for (id, shape) in shapes.all() {
        let name = shapes.name(id, shape).to_upper_camel_case();
        taken.insert(format!("{name}Builder"));
        taken.insert(name);
    }
    for e in &spec.enums {
        taken.insert(e.name.to_upper_camel_case());
    }
    for u in &spec.unions {
        taken.insert(u.name.to_upper_camel_case());
    }
    for ep in &spec.endpoints {
        let base = ep.name.to_upper_camel_case();
        taken.insert(format!("{base}Input"));
        taken.insert(format!("{base}Response"));
        for r in crate::ir::all_responses(spec, ep) {
            taken.insert(super::operations::headers_ident(ep, r.status).to_string());
        }
    }
    taken
}

pub fn shared_unions(spec: &crate::ir::Spec) -> Vec<(Vec<crate::ir::Type>, String)> {
    use crate::ir::Type;
    fn visit(ty: &Type, counts: &mut Vec<(Vec<Type>, usize)>) {
        match ty {
            Type::List(inner, _) | Type::Map(inner, _) => visit(inner, counts),
            Type::Union(members) => {
                match counts.iter_mut().find(|(m, _)| m == members) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((members.clone(), 1)),
                }
                members.iter().for_each(|m| visit(m, counts));
            }
            _ => {}
        }
    }
    let mut counts: Vec<(Vec<Type>, usize)> = Vec::new();
    let fields = spec.models.iter().flat_map(|m| &m.fields);
    let params = spec
        .endpoints
        .iter()
        .flat_map(|e| e.params.iter().map(|p| &p.field));
    let event_fields = spec.events.iter().flat_map(|e| &e.fields);
    for f in fields.chain(params).chain(event_fields) {
        visit(&f.ty, &mut counts);
    }
    for u in &spec.unions {
        u.members.iter().for_each(|m| visit(m, &mut counts));
    }
    for ep in &spec.endpoints {
        let responses = ep.responses.iter().chain(&ep.errors);
        for ty in ep
            .body
            .iter()
            .chain(responses.filter_map(|r| r.body.as_ref()))
        {
            visit(ty, &mut counts);
        }
    }
    let taken: std::collections::HashSet<String> = spec
        .models
        .iter()
        .map(|m| m.name.to_upper_camel_case())
        .chain(spec.enums.iter().map(|e| e.name.to_upper_camel_case()))
        .collect();
    // Two member lists can read alike (`PetList | string`, `Pet[] | string`): the first
    // keeps the name, the other a type per place.
    let mut named: std::collections::HashSet<String> = std::collections::HashSet::new();
    counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .filter_map(|(members, _)| {
            let labels: Vec<String> = members
                .iter()
                .map(|t| type_label(spec, t).to_upper_camel_case())
                .collect();
            let name = labels.join("Or");
            let free = !taken.contains(&name) && !taken.contains(&format!("{name}Request"));
            (free && named.insert(name.clone())).then_some((members, name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awkward_names_become_valid_identifiers() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(
            field_ident("x-service-link-token").to_string(),
            "x_service_link_token"
        );
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_ident("1st").to_string(), "f_1st");
        let names: Vec<String> = variant_idents(
            &["Self", "10", "a_b", "aB", "unknown_value"],
            "UnknownValue",
        )
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(names, ["Self_", "V10", "AB", "AB2", "UnknownValue2"]);
        let votes: Vec<String> = variant_idents(&["+1", "-1", "1"], "UnknownValue")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(votes, ["Plus1", "Minus1", "V1"]);
        assert_eq!(type_ident("Result").to_string(), "Result_");
        assert_eq!(
            method_ident("authenticate").to_string(),
            "authenticate_endpoint"
        );
        assert_eq!(method_ident("getPetById").to_string(), "get_pet_by_id");
    }
}
