//! Messy inputs to their canonical form, one rule at a time. Every expected text is also
//! checked to be its own canonical form.

use super::*;

fn format(text: &str) -> String {
    format_source(&SourceFile::new("t.covenant", text)).expect("the input parses")
}

/// `input` formats to `expected`, which is canonical, with the same tokens.
fn assert_formats(input: &str, expected: &str) {
    let formatted = format(input);
    assert_eq!(formatted, expected, "formatting:\n{input}");
    assert_eq!(format(expected), expected, "not idempotent:\n{expected}");
    assert!(same_tokens(input, &formatted));
    assert_eq!(
        layout::format_text(input),
        formatted,
        "fell back to the input"
    );
}

/// The lines joined, each ending in `\n`: the shape of a canonical file.
fn lines(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[test]
fn indentation_is_four_spaces_per_open_brace() {
    assert_formats(
        &lines(&[
            "endpoint e: GET \"/v1/e\" {",
            "public",
            "        response 200 {",
            "  ok: bool",
            "            }",
            "  }",
        ]),
        &lines(&[
            "endpoint e: GET \"/v1/e\" {",
            "    public",
            "    response 200 {",
            "        ok: bool",
            "    }",
            "}",
        ]),
    );
}

#[test]
fn spacing_inside_a_line_is_canonical() {
    assert_formats(
        &lines(&[
            "model   Pet{",
            "  name :string[ ]|null",
            "  @min( 0 )  @max(10)",
            "   age ? : int=3",
            "   tags :map< string ,string >[ ]",
            "   loc:( string|int )[]",
            "  \"x-id\" ?:\"a\"",
            "}",
        ]),
        &lines(&[
            "model Pet {",
            "    name: string[] | null",
            "    @min(0) @max(10)",
            "    age?: int = 3",
            "    tags: map<string, string>[]",
            "    loc: (string | int)[]",
            "    \"x-id\"?: \"a\"",
            "}",
        ]),
    );
}

#[test]
fn calls_are_tight_and_lists_spaced_after_their_colon() {
    assert_formats(
        &lines(&[
            "rate_limit r {",
            "applies e , f . timeout",
            "per provider",
            "tier ( providers : 2 , assigned : [ oura ,whoop ] )",
            "default (count: 8, per: 1   minute)",
            "}",
        ]),
        &lines(&[
            "rate_limit r {",
            "    applies e, f.timeout",
            "    per provider",
            "    tier(providers: 2, assigned: [oura, whoop])",
            "    default(count: 8, per: 1 minute)",
            "}",
        ]),
    );
}

#[test]
fn clauses_arrows_and_limits() {
    assert_formats(
        &lines(&[
            "endpoint e: POST \"/v1/e\"{",
            " auth?k(\"w:p\" , r)|other",
            " body (A|B)[]",
            "response 201:A headers{",
            "\"Idempotent-Replayed\" ? : bool",
            "}",
            "}",
            "states S {",
            "a",
            "a->b on e when \"later\"",
            "}",
            "limit l=20 seconds",
            "limit n = not_shown ( \"x\" )",
        ]),
        &lines(&[
            "endpoint e: POST \"/v1/e\" {",
            "    auth? k(\"w:p\", r) | other",
            "    body (A | B)[]",
            "    response 201: A headers {",
            "        \"Idempotent-Replayed\"?: bool",
            "    }",
            "}",
            "states S {",
            "    a",
            "    a -> b on e when \"later\"",
            "}",
            "limit l = 20 seconds",
            "limit n = not_shown(\"x\")",
        ]),
    );
}

#[test]
fn blocks_on_one_line_are_spaced_inside_and_empty_ones_tight() {
    assert_formats(
        &lines(&[
            "model A {   }",
            "endpoint h: GET \"/h\" { public",
            "response 200 {ok: bool} }",
        ]),
        &lines(&[
            "model A {}",
            "endpoint h: GET \"/h\" { public",
            "    response 200 { ok: bool } }",
        ]),
    );
}

#[test]
fn blank_lines_collapse_and_never_open_or_close_a_block() {
    assert_formats(
        "\n\n\nmodel A {\n\n\n    x: int\n\n\n\n    y: int\n\n}\n\n\n\nmodel B {\n\n}\n\n\n",
        &lines(&[
            "model A {",
            "    x: int",
            "",
            "    y: int",
            "}",
            "",
            "model B {",
            "}",
        ]),
    );
}

#[test]
fn line_endings_tabs_and_trailing_whitespace() {
    assert_formats(
        "model A {\r\n\tx: int   \r\n\t\ty: string\t\r\n}  \r\n\r\n\r\n",
        &lines(&["model A {", "    x: int", "    y: string", "}"]),
    );
    assert_formats("model A {}", "model A {}\n");
}

#[test]
fn comments_keep_their_text_and_take_their_line_s_indentation() {
    assert_formats(
        lines(&[
            "// lead   ",
            "    /// Doc  ",
            "   ///   spaced   doc",
            "model A {",
            "",
            "// first",
            "  x: int    // trailing,  kept",
            "        ////  four slashes",
            "  y: int//tight",
            "   // last",
            "}",
            "// end",
        ])
        .trim_end(),
        &lines(&[
            "// lead",
            "/// Doc",
            "///   spaced   doc",
            "model A {",
            "    // first",
            "    x: int // trailing,  kept",
            "    ////  four slashes",
            "    y: int //tight",
            "    // last",
            "}",
            "// end",
        ]),
    );
}

#[test]
fn a_blank_line_after_a_brace_with_a_trailing_comment_goes_too() {
    assert_formats(
        &lines(&["model A { // why", "", "    x: int", "}"]),
        &lines(&["model A { // why", "    x: int", "}"]),
    );
}

#[test]
fn annotations_broken_over_lines_indent_per_open_bracket() {
    assert_formats(
        &lines(&[
            "@deprecated(   // why",
            "\"Renamed\" ,",
            "      use : provider ,   // the new one",
            "  since: \"2024-03\"",
            "    )",
            "model A {",
            "  @one_of(",
            "1,",
            "  2 // two",
            "  )",
            "  x: int",
            "}",
        ]),
        &lines(&[
            "@deprecated( // why",
            "    \"Renamed\",",
            "    use: provider, // the new one",
            "    since: \"2024-03\"",
            ")",
            "model A {",
            "    @one_of(",
            "        1,",
            "        2 // two",
            "    )",
            "    x: int",
            "}",
        ]),
    );
}

#[test]
fn nested_brackets_add_a_level_each_and_leading_closers_take_theirs_off() {
    assert_formats(
        &lines(&[
            "rate_limit r {",
            "tier(providers: 2, assigned: [",
            "oura,",
            "whoop",
            "])",
            "}",
        ]),
        &lines(&[
            "rate_limit r {",
            "    tier(providers: 2, assigned: [",
            "            oura,",
            "            whoop",
            "    ])",
            "}",
        ]),
    );
}

#[test]
fn empty_and_comment_only_files() {
    assert_formats("", "");
    assert_formats(" \r\n\n\t", "");
    assert_formats("\n\n// only a note   \n\n", "// only a note\n");
}

#[test]
fn a_broken_spec_is_refused_with_its_diagnostics() {
    for broken in [
        "model A {\n  x int\n}\n",
        "model $ A {}\n",
        "model A {\n  x: \"open\n}\n",
    ] {
        let diagnostics = format_source(&SourceFile::new("t.covenant", broken))
            .expect_err("a broken spec is not formatted");
        assert!(diagnostics.has_errors(), "{broken}");
    }
}

#[test]
fn a_spec_with_only_semantic_errors_is_formatted() {
    assert_formats(
        "model A {\n x: Nowhere\n}\n",
        "model A {\n    x: Nowhere\n}\n",
    );
}

#[test]
fn token_comparison_sees_kinds_texts_comments_and_line_starts() {
    assert!(same_tokens("a  b // c  \r\n", "a b // c\n"));
    assert!(!same_tokens("a b // c\n", "a b // d\n"));
    assert!(!same_tokens("a . . b", "a .. b"));
    assert!(!same_tokens("a\nb", "a b"));
    assert!(!same_tokens("a b", "a b $"));
    assert!(!same_tokens("x = 1 . 5", "x = 1.5"));
}

#[test]
fn tokens_that_would_merge_keep_a_space() {
    use crate::lexer::Tok;
    let piece = |kind, text| layout::Piece { kind, text };
    let dots = [piece(Tok::Dot, "."), piece(Tok::Dot, ".")];
    assert!(spacing::space_before(&dots, 1));
    let path = [piece(Tok::Ident, "a"), piece(Tok::Dot, ".")];
    assert!(!spacing::space_before(&path, 1));
}

mod safety_net {
    //! The layout alone, before the safety net, keeps every parsing input's tokens: the
    //! net is there for a bug, never hit by the rules as they stand.

    use super::super::{layout, same_tokens};
    use crate::diagnostic::Diagnostics;
    use crate::parser;
    use proptest::prelude::*;

    const SPECS: &[&str] = &[
        include_str!("../../../spec/examples/bookshop.covenant"),
        include_str!("../../../corpus/specs/petstore.covenant"),
    ];

    /// Pieces that reach every spacing rule, odd spacing and line breaks included.
    const INSERTS: &[&str] = &[
        " ", "", "\n", "\r\n", "\t", "// c\n", " [ ] ", "[]", " ( ", " ) ", "(", ")", " . ", ".",
        ",", " , ", ":", " : ", "?", " ? ", "|", " | ", "=", " = ", "<", ">", "@", " @ ", "{", "}",
        "{ }", "->", " -> ", "-1", "1", "2.5", "x", "\"s\"", "..", "///d\n",
    ];

    fn parses(text: &str) -> bool {
        let mut diagnostics = Diagnostics::default();
        parser::parse(text, &mut diagnostics);
        !diagnostics.has_errors()
    }

    proptest! {
        #[test]
        fn layout_keeps_the_tokens_of_what_parses(
            spec in prop::sample::select(SPECS),
            cuts in prop::collection::vec(
                (any::<prop::sample::Index>(), 0usize..3, prop::sample::select(INSERTS)),
                1..5,
            ),
        ) {
            let mut text = spec.to_string();
            for (index, len, insert) in cuts {
                let start = index.index(text.len() + 1);
                let end = (start + len).min(text.len());
                if text.is_char_boundary(start) && text.is_char_boundary(end) {
                    text.replace_range(start..end, insert);
                }
            }
            if parses(&text) {
                prop_assert!(same_tokens(&text, &layout::format_text(&text)), "{}", text);
            }
        }
    }
}
