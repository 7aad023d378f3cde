//! `format_source` over the repository's own specs and over generated inputs. The house specs
//! are the canonical style, so each formats to itself; whitespace messed up at random formats
//! back to the house spec; and whatever is formatted keeps its tokens (comments included, each
//! on the line it was on) and is a fixed point of the formatter.

use crate::fuzz_inputs::{FRAGMENTS, cases, char_boundary};
use covenant_codegen::diagnostic::Diagnostics;
use covenant_codegen::format::format_source;
use covenant_codegen::lexer::{Tok, Token, lex_with_comments};
use covenant_codegen::{SourceFile, parser};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// The hand-formatted specs the canonical style is taken from.
const HOUSE_SPECS: &[&str] = &[
    include_str!("../../../spec/health.covenant"),
    include_str!("../../../spec/examples/bookshop.covenant"),
    include_str!("../../../corpus/specs/github.covenant"),
    include_str!("../../../corpus/specs/payments.covenant"),
    include_str!("../../../corpus/specs/petstore.covenant"),
    include_str!("../../../corpus/regressions/media.covenant"),
    include_str!("../../../corpus/regressions/credentials.covenant"),
];

/// Specs under `codegen/tests/ui` whose syntax is broken on purpose, for their diagnostics'
/// snapshots: the formatter refuses each.
const REFUSED: &[(&str, &str)] = &[
    (
        "bad_auth_clause.covenant",
        "`|` and `&` mixed in one auth clause",
    ),
    ("syntax_missing_colon.covenant", "a field without its `:`"),
    ("syntax_recovers_per_member.covenant", "two broken members"),
    (
        "unexpected_character.covenant",
        "a character outside the language",
    ),
    (
        "unsupported_auth.covenant",
        "auth schemes the grammar does not know",
    ),
    ("unterminated_string.covenant", "a string left open"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.covenant` file under `dir`, at any depth, in a stable order.
fn specs_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read spec folder") {
        let path = entry.expect("read folder entry").path();
        if path.is_dir() {
            found.extend(specs_under(&path));
        } else if path.extension().is_some_and(|e| e == "covenant") {
            found.push(path);
        }
    }
    found.sort();
    found
}

fn format(text: &str) -> Result<String, Diagnostics> {
    format_source(&SourceFile::new("t.covenant", text))
}

/// Each token's kind and text (a comment's without trailing whitespace) and the line it is
/// on, counted in lines that hold tokens from the first: what a formatter must keep.
fn tokens(text: &str) -> Vec<(Tok, String, usize)> {
    let mut line = 0;
    let mut previous_end = 0;
    let mut out = Vec::new();
    for token in lex_with_comments(text, &mut Diagnostics::default()) {
        let start = token.span.start as usize;
        if !out.is_empty() && text[previous_end..start].contains('\n') {
            line += 1;
        }
        previous_end = token.span.end as usize;
        let raw = &text[token.span.range()];
        let kept = match token.kind {
            Tok::LineComment | Tok::DocComment => raw.trim_end(),
            Tok::Eof => continue,
            _ => raw,
        };
        out.push((token.kind, kept.to_string(), line));
    }
    out
}

/// The formatter's output obeys its whitespace rules, whatever the input looked like.
fn assert_canonical_whitespace(text: &str) {
    if text.is_empty() {
        return;
    }
    assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{text:?}");
    assert!(
        !text.starts_with('\n') && !text.contains("\n\n\n"),
        "{text:?}"
    );
    assert!(!text.contains('\r'), "{text:?}");
    for line in text.lines() {
        assert_eq!(line, line.trim_end(), "trailing whitespace: {line:?}");
        let indent = line.len() - line.trim_start().len();
        assert!(
            indent % 4 == 0 && !line[..indent].contains('\t'),
            "indentation: {line:?}"
        );
    }
}

/// Formats `input`, which parses, and checks everything a format must hold.
fn check_format(input: &str) -> String {
    let formatted = format(input).expect("the input parses");
    assert_eq!(tokens(&formatted), tokens(input), "tokens changed");
    assert_canonical_whitespace(&formatted);
    assert_eq!(format(&formatted).unwrap(), formatted, "not idempotent");
    formatted
}

#[test]
fn house_specs_are_canonical() {
    for dir in ["spec", "corpus"] {
        for path in specs_under(&root().join(dir)) {
            let text = std::fs::read_to_string(&path).unwrap();
            let formatted = check_format(&text);
            assert!(formatted == text, "{} is not canonical", path.display());
        }
    }
}

#[test]
fn ui_specs_keep_their_tokens_and_still_parse() {
    for path in specs_under(&root().join("codegen/tests/ui")) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let refused = REFUSED.iter().any(|(file, _)| *file == name);
        match format(&text) {
            Ok(formatted) => {
                assert!(!refused, "{name} was expected to be refused");
                check_format(&formatted);
                assert_eq!(tokens(&formatted), tokens(&text), "{name}");
                let mut diagnostics = Diagnostics::default();
                parser::parse(&formatted, &mut diagnostics);
                assert!(!diagnostics.has_errors(), "{name} no longer parses");
            }
            Err(diagnostics) => {
                assert!(refused, "{name} refused: {:?}", diagnostics.items);
            }
        }
    }
}

#[test]
fn refusal_answers_the_parser_s_diagnostics() {
    let text = "model A {\n    name string\n}\n";
    let diagnostics = format(text).expect_err("a syntax error is refused");
    let mut parsed = Diagnostics::default();
    parser::parse(text, &mut parsed);
    assert_eq!(diagnostics.items, parsed.items);
    assert_eq!(diagnostics.items[0].code, "E0003");
}

#[test]
fn blank_lines_before_the_first_token_go() {
    assert_eq!(check_format("\n\n  limit name"), "limit name\n");
}

/// A small deterministic generator, so one proptest seed picks every mutation of a spec.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len())]
    }
}

/// Whitespace that, formatted, gives back `gap`: as many line breaks where a blank line
/// counts (none, one, more), blank lines added where the formatter drops them, any line
/// endings and indentation, and spaces only where the tokens already had some.
fn messy_gap(gap: &str, blank_dropped: bool, rng: &mut Rng) -> String {
    let breaks = gap.matches('\n').count();
    if breaks == 0 {
        return if gap.is_empty() || rng.below(2) == 0 {
            gap.to_string()
        } else {
            rng.pick(&[" ", "  ", "\t", " \t "]).to_string()
        };
    }
    let count = match breaks {
        1 if blank_dropped => 1 + rng.below(3),
        1 => 1,
        _ => 2 + rng.below(3),
    };
    let mut messy = String::new();
    for _ in 0..count {
        messy.push_str(rng.pick(&["", " ", "\t", "   "]));
        messy.push_str(rng.pick(&["\n", "\r\n"]));
    }
    messy.push_str(rng.pick(&["", " ", "\t", "  ", "       "]));
    messy
}

/// Re-spaces every gap between the tokens of `text` as `respace` says, and hands it the
/// tokens either side (`None` at the file's ends).
fn mutate_gaps(
    text: &str,
    mut respace: impl FnMut(&str, Option<Token>, Option<Token>) -> String,
) -> String {
    let tokens = lex_with_comments(text, &mut Diagnostics::default());
    let mut out = String::new();
    let mut previous: Option<Token> = None;
    for token in tokens {
        let start = previous.map_or(0, |t| t.span.end as usize);
        let next = (token.kind != Tok::Eof).then_some(token);
        out.push_str(&respace(
            &text[start..token.span.start as usize],
            previous,
            next,
        ));
        out.push_str(&text[token.span.range()]);
        previous = Some(token);
    }
    out
}

fn is_kind(token: Option<Token>, kinds: &[Tok]) -> bool {
    token.is_some_and(|t| kinds.contains(&t.kind))
}

/// `text` with its whitespace messed up at random, in ways formatting undoes.
fn messed_up(text: &str, seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    mutate_gaps(text, |gap, previous, next| {
        let blank_dropped = previous.is_none()
            || next.is_none()
            || is_kind(previous, &[Tok::LBrace, Tok::LParen, Tok::LBracket])
            || is_kind(next, &[Tok::RBrace, Tok::RParen, Tok::RBracket]);
        messy_gap(gap, blank_dropped, &mut rng)
    })
}

/// `text` with comments added at random: on lines of their own, after code, and inside
/// parentheses and brackets (which then break over lines), whitespace messed up too.
fn commented(text: &str, seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let mut depth = 0usize;
    mutate_gaps(text, |gap, previous, _| {
        if is_kind(previous, &[Tok::LParen, Tok::LBracket]) {
            depth += 1;
        } else if is_kind(previous, &[Tok::RParen, Tok::RBracket]) {
            depth = depth.saturating_sub(1);
        }
        let gap = messy_gap(gap, false, &mut rng);
        let room = gap.contains('\n') || depth > 0;
        match rng.below(8) {
            0 if room => format!(" \t// after   {gap}\n"),
            1 if room => format!("{gap}\n  // own line  \r\n"),
            2 if room => format!("{gap}\t//// four   \n"),
            _ => gap,
        }
    })
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn messed_up_whitespace_formats_back_to_the_house_spec(
        spec in prop::sample::select(HOUSE_SPECS),
        seed in any::<u64>(),
    ) {
        let input = messed_up(spec, seed);
        prop_assert_eq!(check_format(&input), spec);
    }

    #[test]
    fn comments_anywhere_are_kept_in_place(
        spec in prop::sample::select(HOUSE_SPECS),
        seed in any::<u64>(),
    ) {
        check_format(&commented(spec, seed));
    }
}

proptest! {
    #![proptest_config(cases(1024))]

    #[test]
    fn token_soups_format_soundly_or_are_refused(
        parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60),
    ) {
        let input = parts.concat();
        if format(&input).is_ok() {
            check_format(&input);
        }
    }

    /// Cutting and splicing real specs reaches constructs the whitespace mutations do not,
    /// and formats whatever still parses.
    #[test]
    fn spliced_specs_format_soundly_or_are_refused(
        spec in prop::sample::select(HOUSE_SPECS),
        cuts in prop::collection::vec(
            (any::<prop::sample::Index>(), 0usize..4, prop::sample::select(FRAGMENTS)),
            1..4,
        ),
    ) {
        let mut input = spec.to_string();
        for (index, len, insert) in cuts {
            let start = char_boundary(&input, index.index(input.len() + 1));
            let end = char_boundary(&input, start + len);
            input.replace_range(start..end, insert);
        }
        if format(&input).is_ok() {
            check_format(&input);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        if format(&text).is_ok() {
            check_format(&text);
        }
    }
}
