//! Property tests in place of a fuzzer: no input, however broken, makes checking panic or
//! hang, every error it reports points inside the input, and every spec that validates also
//! generates (Rust that parses, schemas, OpenAPI, the reference site) without panicking. A seeded sample of valid
//! mutations is also compiled, by `corpus/tests/integration/fuzz_compile.rs`. Bounded by case count so CI
//! time stays fixed; raise PROPTEST_CASES locally to search longer.

use crate::fuzz_inputs::{arbitrary_text, cases, mutated_spec, token_soup};
use covenant_codegen::{SourceFile, check_source};
use proptest::prelude::*;

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

proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn arbitrary_text_never_panics(text in arbitrary_text()) {
        check(&text);
    }

    #[test]
    fn token_soup_never_panics(text in token_soup(80)) {
        check(&text);
    }
}

proptest! {
    #![proptest_config(cases(384))]

    /// Cutting, duplicating or splicing spans of real specs reaches every construct.
    #[test]
    fn mutated_specs_never_panic(text in mutated_spec()) {
        check(&text);
    }
}
