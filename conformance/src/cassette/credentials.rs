//! The credentials cassettes name (`{{credentials.NAME}}`): what an implementation's
//! credentials file must hold for them to replay, read from the cassettes' text.

use std::collections::BTreeSet;
use std::path::PathBuf;

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
