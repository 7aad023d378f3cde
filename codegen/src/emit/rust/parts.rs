//! The server trait split by tag: an endpoint belongs to the part named after its first tag
//! (`UsersEndpoints`), a trait of its own over the core trait, so an implementation keeps
//! each part in a module of its own. Untagged endpoints stay in the core trait, which also
//! holds authentication and gates; a spec without tags has the core trait alone.

use crate::ir::*;
use heck::ToUpperCamelCase;
use proc_macro2::Ident;
use quote::format_ident;

/// One part: a tag's endpoints.
pub struct Part<'a> {
    pub ident: Ident,
    pub tag: String,
    pub endpoints: Vec<&'a Endpoint>,
}

/// The server trait's parts, in the order their tags first appear, and the core trait's
/// own endpoints (the untagged ones). Tags spelled alike in Rust (`lab-testing`,
/// `lab_testing`) share a part.
pub fn parts<'a>(spec: &'a Spec, core: &Ident) -> (Vec<&'a Endpoint>, Vec<Part<'a>>) {
    let mut own = Vec::new();
    let mut parts: Vec<Part> = Vec::new();
    for ep in &spec.endpoints {
        let Some(tag) = ep.tags.first() else {
            own.push(ep);
            continue;
        };
        let ident = part_ident(tag, core);
        match parts.iter_mut().find(|p| p.ident == ident) {
            Some(part) => part.endpoints.push(ep),
            None => parts.push(Part {
                ident,
                tag: tag.clone(),
                endpoints: vec![ep],
            }),
        }
    }
    (own, parts)
}

/// `UsersEndpoints` for the tag `users`; never the core trait's or the whole's name.
fn part_ident(tag: &str, core: &Ident) -> Ident {
    let mut name = format!(
        "{}Endpoints",
        crate::lower::spell(tag).to_upper_camel_case()
    );
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name = format!("T{name}");
    }
    if *core == name || whole_ident(core) == name {
        name.push_str("Part");
    }
    format_ident!("{name}")
}

/// The trait every part together makes, which the routers ask of a service: the core
/// trait's name with `Service` for `Server` (`HealthDataService`).
pub fn whole_ident(core: &Ident) -> Ident {
    let name = core.to_string();
    let stem = name.strip_suffix("Server").unwrap_or(&name);
    format_ident!("{stem}Service")
}
