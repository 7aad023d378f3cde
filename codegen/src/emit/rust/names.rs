//! Rust names for spec names: types in UpperCamelCase, fields in snake_case, with keywords,
//! leading digits and collisions handled so any spec yields compiling code.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};
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

/// A type name as written in the spec (already UpperCamelCase by convention).
pub fn type_ident(name: &str) -> Ident {
    let mut name = name.to_upper_camel_case();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || is_keyword(&name) {
        name = format!("T{name}");
    }
    Ident::new(&name, Span::call_site())
}

/// Variant names of an enum, in value order: UpperCamelCase, `V` before a leading digit,
/// `_` after a keyword (`Self_`), and a numeric suffix where two values would collide.
pub fn variant_idents(values: &[&str], reserved: &str) -> Vec<Ident> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    seen.insert(reserved.to_string(), 1);
    values
        .iter()
        .map(|value| {
            let mut name = value.to_upper_camel_case();
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
    }
}
