//! Credentials a recording holds that no credentials file names: hidden by the tool that
//! recorded them (`[Filtered]`), or live keys the upstream accepted; and the answers that
//! minted the tokens a tool hid.

use super::{Recorded, escape_braces, is_made_up, string_leaves};
use serde_json::Value;

/// How a credential no credentials file names is written. A value a tool hid
/// (`[Filtered]`, as Schemathesis writes it) or one the upstream accepted stood for a valid
/// credential: it becomes the scheme's reference, so no cassette holds a live key. One the
/// upstream refused (401) is no credential: it stays as it is, so a deliberately wrong key
/// keeps its meaning.
pub(super) fn unknown_credential(
    r: &Recorded,
    header: &str,
    value: &str,
    scheme: &str,
    prefix: &str,
    refused: bool,
    warnings: &mut Vec<String>,
) -> String {
    let credential = value.strip_prefix(prefix).unwrap_or(value).trim();
    let hidden = is_hidden(credential);
    if hidden && refused {
        // The answer says the credential sent was not a valid one: a negative test. The
        // placeholder is no valid credential either, so it keeps the test's meaning.
        warnings.push(format!(
            "{} {}: the `{header}` credential was hidden by the tool that recorded it and refused (401); written as recorded, not as a valid one",
            r.method, r.path
        ));
        return escape_braces(value);
    }
    if hidden {
        warnings.push(format!(
            "{} {}: the `{header}` credential was hidden by the tool that recorded it; written as {{{{credentials.{scheme}}}}}",
            r.method, r.path
        ));
        return format!("{prefix}{{{{credentials.{scheme}}}}}");
    }
    if !refused {
        warnings.push(format!(
            "{} {}: the `{header}` credential is in no credentials file, and the upstream accepted it; written as {{{{credentials.{scheme}}}}}",
            r.method, r.path
        ));
        return format!("{prefix}{{{{credentials.{scheme}}}}}");
    }
    warnings.push(format!(
        "{} {}: the `{header}` credential is in no credentials file, and the upstream refused it (401); written as it is",
        r.method, r.path
    ));
    escape_braces(value)
}

/// Whether a credential is a recording tool's placeholder for one it hid.
pub(super) fn is_hidden(credential: &str) -> bool {
    HIDDEN.iter().any(|h| credential.eq_ignore_ascii_case(h))
}

/// The latest value the answers so far made up under each key, with its exchange and
/// path: where a credential a tool hid comes from. Each answer is read once.
#[derive(Default)]
pub(super) struct Minted {
    latest: std::collections::HashMap<String, (usize, String, String)>,
}

impl Minted {
    pub(super) fn learn(&mut self, exchange: usize, answer: Option<&Value>) {
        let Some(body) = answer else {
            return;
        };
        let mut leaves = Vec::new();
        string_leaves(body, "$", "value", &mut leaves);
        for (path, key, value) in leaves {
            // An empty or short value would stand for text everywhere it is written.
            if is_made_up(&key, &value) {
                self.latest.insert(key, (exchange, path, value));
            }
        }
    }

    pub(super) fn latest(&self, key: &str) -> Option<&(usize, String, String)> {
        self.latest.get(key)
    }
}

/// What recording tools write in place of a credential they hide.
const HIDDEN: &[&str] = &["[Filtered]", "[REDACTED]", "***", "<hidden>"];
