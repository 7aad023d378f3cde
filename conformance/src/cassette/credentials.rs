//! The credentials cassettes name (`{{credentials.NAME}}`): what an implementation's
//! credentials file must hold for them to replay, read from the cassettes' text, and stand-in
//! values for them that a mock can serve.

use covenant_codegen::Spec;
use covenant_codegen::ir::{Primitive, Type};
use covenant_runtime::credentials::Credentials;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Gives every credential the cassettes at `paths` name (none named: the project's suite,
/// when there is one), and `credentials` lacks, a value of the type `spec` gives a parameter
/// or field of that name ([`stand_in`]).
pub fn fill_named(credentials: &mut Credentials, spec: &Spec, paths: &[PathBuf]) {
    let suite = PathBuf::from(super::DEFAULT_SUITE);
    let paths = match paths {
        [] if suite.is_dir() => vec![suite],
        named => named.to_vec(),
    };
    for name in named_in(&paths) {
        if credentials.get(&name).is_none_or(str::is_empty) {
            credentials.set(&name, stand_in(spec, &name));
        }
    }
}

/// A value for the credential `name` that every parameter and field of that name accepts:
/// a uuid where one of them is a uuid (a uuid is a string too), else a whole number where
/// one is a number, else a token.
pub fn stand_in(spec: &Spec, name: &str) -> String {
    let params = spec
        .endpoints
        .iter()
        .flat_map(|e| &e.params)
        .map(|p| &p.field);
    let fields = spec.models.iter().flat_map(|m| &m.fields);
    let types: Vec<&Type> = params
        .chain(fields)
        .filter(|f| f.name == name)
        .map(|f| &f.ty)
        .collect();
    let any = |wanted: &[Primitive]| {
        types
            .iter()
            .any(|ty| matches!(ty, Type::Primitive(p) if wanted.contains(p)))
    };
    if any(&[Primitive::Uuid]) {
        uuid::Uuid::new_v4().to_string()
    } else if any(&[Primitive::Int, Primitive::Number]) {
        "1".to_string()
    } else {
        format!("{name}_{}", uuid::Uuid::new_v4().simple())
    }
}

/// Every `NAME` the cassettes at `paths` write as `{{credentials.NAME}}`, sorted; cassettes
/// that cannot be read name nothing.
pub fn named_in(paths: &[PathBuf]) -> BTreeSet<String> {
    let (cassettes, _) = super::read_each(paths);
    let mut names = BTreeSet::new();
    for cassette in &cassettes {
        names.extend(references(&cassette.text));
    }
    names
}

/// The names of `{{credentials.NAME}}` in a text, inside other braces too (`{{{credentials.a}}}`),
/// in one pass over it.
fn references(text: &str) -> impl Iterator<Item = String> + '_ {
    const PREFIX: &str = "credentials.";
    text.match_indices(PREFIX).filter_map(|(at, _)| {
        if !text[..at].trim_end().ends_with("{{") {
            return None;
        }
        let after = &text[at + PREFIX.len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..end];
        (!name.is_empty() && after[end..].trim_start().starts_with("}}")).then(|| name.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::references;

    #[test]
    fn credential_references_are_found_inside_other_braces_and_in_one_pass() {
        let text = r#"{"a": "{{credentials.team_key}}", "b": "{{{ credentials.org_id }}}", "c": "{{credentials.}}", "d": "credentials.loose}}"}"#;
        let found: Vec<String> = references(text).collect();
        assert_eq!(found, ["team_key", "org_id"]);
        // Many openings and no closing: linear, and nothing found.
        let hostile = "{{".repeat(200_000);
        assert_eq!(references(&hostile).count(), 0);
    }
}
