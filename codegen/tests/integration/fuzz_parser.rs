//! Property tests in place of a fuzzer: no input, however broken, makes checking panic or
//! hang, every error it reports points inside the input, and every spec that validates also
//! generates (Rust that parses, schemas, OpenAPI, the reference site) without panicking. A seeded sample of valid
//! mutations is also compiled, by `corpus/tests/integration/fuzz_compile.rs`. Bounded by case count so CI
//! time stays fixed; raise PROPTEST_CASES locally to search longer.

use covenant_codegen::{SourceFile, check_source};
use proptest::prelude::*;

const SERVICE_SPEC: &str = include_str!("../../../spec/health.covenant");
const BOOKSHOP_SPEC: &str = include_str!("../../../spec/examples/bookshop.covenant");

/// Fragments of the language, so random text often gets deep into the parser.
pub(crate) const FRAGMENTS: &[&str] = &[
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

fn check(text: &str) {
    let file = SourceFile::new("fuzz.covenant", text);
    let checked = check_source(&file);
    for d in &checked.diagnostics.items {
        assert!(
            d.span.start <= d.span.end && d.span.end as usize <= text.len(),
            "span outside input: {d:?}"
        );
    }
    // Rendering must not panic either, whatever the spans.
    let _ = checked.diagnostics.render(&file);
    if let Some(spec) = &checked.spec {
        let files = covenant_codegen::emit::generate(spec, &Default::default());
        for (path, text) in files.iter().filter(|(p, _)| p.ends_with(".rs")) {
            let body = text.split_once("\n\n").map_or(text.as_str(), |(_, b)| b);
            assert!(syn::parse_file(body).is_ok(), "{path} does not parse");
        }
        let site = covenant_codegen::emit::docs::site(spec, &Default::default());
        assert!(site.contains_key("index.html"));
    }
}

/// `PROPTEST_CASES` when set, else the default for CI.
pub(crate) fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

pub(crate) fn char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check(&text);
    }

    #[test]
    fn token_soup_never_panics(parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..80)) {
        check(&parts.concat());
    }
}

proptest! {
    #![proptest_config(cases(384))]

    /// Cutting, duplicating or splicing spans of real specs reaches every construct.
    #[test]
    fn mutated_specs_never_panic(
        use_service in any::<bool>(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), 0usize..200, prop::sample::select(FRAGMENTS)), 1..6),
    ) {
        let mut text = if use_service { SERVICE_SPEC.to_string() } else { BOOKSHOP_SPEC.to_string() };
        for (index, len, insert) in cuts {
            let start = char_boundary(&text, index.index(text.len() + 1));
            let end = char_boundary(&text, start + len);
            text.replace_range(start..end, insert);
        }
        check(&text);
    }
}
