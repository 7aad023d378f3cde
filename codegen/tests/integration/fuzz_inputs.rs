//! The inputs the checker's property tests feed it, shared with every tool that must survive
//! the same (the formatter's tests, and the language server's, which includes this file):
//! arbitrary text, soup of the language's tokens, and real specs cut and spliced.

#![allow(dead_code)]

use proptest::prelude::*;

pub const SERVICE_SPEC: &str = include_str!("../../../spec/health.covenant");
pub const BOOKSHOP_SPEC: &str = include_str!("../../../spec/examples/bookshop.covenant");

/// Fragments of the language, so random text often gets deep into the parser.
pub const FRAGMENTS: &[&str] = &[
    "model ",
    "enum ",
    "open ",
    "endpoint ",
    "event ",
    "api ",
    "auth ",
    "limit ",
    "states ",
    "rate_limit ",
    "changelog ",
    "envelope ",
    "not_shown ",
    "subset of ",
    "placeholder ",
    "response ",
    "error ",
    "query ",
    "path ",
    "header ",
    "body ",
    "public",
    "tags ",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "[]",
    ":",
    "?",
    "|",
    "=",
    ",",
    ".",
    "->",
    "..",
    "@",
    "@min(",
    "@deprecated(use: ",
    "@catalogue(size: ",
    "\"",
    "\"/v1/{x}\"",
    "\"text\"",
    "///doc\n",
    "// note\n",
    "\n",
    " ",
    "name",
    "string",
    "int",
    "null",
    "GET",
    "POST",
    "200",
    "-1",
    "2.5",
    "99999999999999999999",
    "x",
    "é",
    "\u{0}",
    "{id}",
    "seconds",
    "true",
];

/// `PROPTEST_CASES` when set, else the default for CI.
pub fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

pub fn char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Any printable text of up to 200 characters.
pub fn arbitrary_text() -> impl Strategy<Value = String> {
    "\\PC{0,200}"
}

/// Up to `most` fragments of the language in any order.
pub fn token_soup(most: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..most).prop_map(|parts| parts.concat())
}

/// The service spec or the bookshop spec with one to five spans cut, each replaced by a
/// fragment: reaches every construct, broken in every way.
pub fn mutated_spec() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0usize..200,
                prop::sample::select(FRAGMENTS),
            ),
            1..6,
        ),
    )
        .prop_map(|(use_service, cuts)| {
            let mut text = if use_service {
                SERVICE_SPEC
            } else {
                BOOKSHOP_SPEC
            }
            .to_string();
            for (index, len, insert) in cuts {
                let start = char_boundary(&text, index.index(text.len() + 1));
                let end = char_boundary(&text, start + len);
                text.replace_range(start..end, insert);
            }
            text
        })
}
