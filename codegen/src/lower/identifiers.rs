//! Identifiers for members whose wire names are no identifiers (`"+1"`, `"total-count"`):
//! each field and parameter gets a snake_case name unique among its siblings, so every code
//! generator names it the same way and no two members of one owner share a name.

use crate::ir::*;
use heck::ToSnakeCase;
use std::collections::{HashMap, HashSet};

/// Spells out the punctuation that carries meaning, so `+1` and `-1` stay distinct
/// (`plus_1`, `minus_1`); other punctuation separates words.
pub fn spell(wire: &str) -> String {
    let mut out = String::with_capacity(wire.len());
    let mut chars = wire.chars().peekable();
    let mut at_start = true;
    while let Some(c) = chars.next() {
        let word = match c {
            '+' => Some("plus"),
            '-' if at_start && chars.peek().is_some_and(char::is_ascii_digit) => Some("minus"),
            '*' => Some("star"),
            '@' => Some("at"),
            '#' => Some("hash"),
            '$' => Some("dollar"),
            '%' => Some("percent"),
            '&' => Some("and"),
            '=' => Some("eq"),
            '<' => Some("lt"),
            '>' => Some("gt"),
            '!' => Some("not"),
            '~' => Some("tilde"),
            _ => None,
        };
        match word {
            Some(word) => {
                out.push(' ');
                out.push_str(word);
                out.push(' ');
            }
            None => out.push(c),
        }
        at_start = false;
    }
    out
}

/// The snake_case spelling of a wire name, before uniqueness.
pub fn snake(wire: &str) -> String {
    let name = spell(wire).to_snake_case();
    if name.is_empty() {
        "field".to_string()
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("f_{name}")
    } else {
        name
    }
}

/// Unique snake_case identifiers for sibling wire names. Names that already are their own
/// identifier keep it; the others take their spelling, numbered where it is taken. One wire
/// name (a request-only and a response-only field sharing it) gets one identifier.
/// `reserved` names are taken before any member's.
pub fn unique_idents<'a>(
    wires: impl IntoIterator<Item = &'a str>,
    reserved: &[&str],
) -> HashMap<String, String> {
    let mut wires: Vec<&str> = wires.into_iter().collect();
    let mut seen = HashSet::new();
    wires.retain(|w| seen.insert(*w));
    let mut taken: HashSet<String> = reserved.iter().map(|r| r.to_string()).collect();
    let mut idents = HashMap::new();
    for wire in &wires {
        if snake(wire) == *wire && taken.insert(wire.to_string()) {
            idents.insert(wire.to_string(), wire.to_string());
        }
    }
    for wire in &wires {
        if idents.contains_key(*wire) {
            continue;
        }
        let base = snake(wire);
        let mut name = base.clone();
        let mut n = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        idents.insert(wire.to_string(), name);
    }
    idents
}

/// Gives every model field, endpoint parameter and response header of the spec its
/// identifier. An endpoint's body travels beside its parameters as `body`, so a parameter
/// named so gets another name.
pub fn assign(spec: &mut Spec) {
    for model in &mut spec.models {
        let idents = unique_idents(model.fields.iter().map(|f| f.name.as_str()), &["extra"]);
        for f in &mut model.fields {
            f.ident = idents[&f.name].clone();
        }
    }
    for ep in &mut spec.endpoints {
        let reserved: &[&str] = if ep.body.is_some() { &["body"] } else { &[] };
        let idents = unique_idents(ep.params.iter().map(|p| p.field.name.as_str()), reserved);
        for p in &mut ep.params {
            p.field.ident = idents[&p.field.name].clone();
        }
        for r in ep.responses.iter_mut().chain(&mut ep.errors) {
            assign_header_idents(r);
        }
    }
    for api in &mut spec.apis {
        for r in &mut api.errors {
            assign_header_idents(r);
        }
    }
}

/// Header names ignore case, so their identifiers follow the lower-case spelling: `ETag` is
/// `etag`, `X-RateLimit-Remaining` is `x_ratelimit_remaining`.
fn assign_header_idents(response: &mut crate::ir::Response) {
    let lower: Vec<String> = response
        .headers
        .iter()
        .map(|h| h.name.to_ascii_lowercase())
        .collect();
    let idents = unique_idents(lower.iter().map(String::as_str), &[]);
    for (h, lower) in response.headers.iter_mut().zip(&lower) {
        h.ident = idents[lower].clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_is_spelled_and_siblings_stay_distinct() {
        let idents = unique_idents(
            ["+1", "-1", "plus_1", "total-count", "total_count", "type"],
            &[],
        );
        assert_eq!(idents["plus_1"], "plus_1", "an identifier keeps its name");
        assert_eq!(idents["+1"], "plus_1_2");
        assert_eq!(idents["-1"], "minus_1");
        assert_eq!(idents["total_count"], "total_count");
        assert_eq!(idents["total-count"], "total_count_2");
        assert_eq!(idents["type"], "type");
        let body = unique_idents(["body", "x-id"], &["body"]);
        assert_eq!(body["body"], "body_2");
        assert_eq!(body["x-id"], "x_id");
    }
}
