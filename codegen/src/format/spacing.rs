//! The space, or none, between two tokens of one line. The table follows the hand-written
//! specs of this repository; pairs they never write follow rustfmt.

use super::layout::{Piece, is_comment};
use crate::diagnostic::Diagnostics;
use crate::lexer::{Tok, lex_with_comments};

/// Whether one space goes before `line[i]` (`i > 0`).
pub(super) fn space_before(line: &[Piece], i: usize) -> bool {
    let (Some(&previous), Some(&next)) = (i.checked_sub(1).and_then(|j| line.get(j)), line.get(i))
    else {
        return false;
    };
    let context = Context {
        before_previous: i.checked_sub(2).and_then(|j| line.get(j)).copied(),
        after_next: line.get(i + 1).copied(),
    };
    wants_space(previous, next, context) || !glues_safely(previous, next)
}

/// The tokens either side of a pair, for the pairs whose spacing depends on them.
#[derive(Clone, Copy)]
struct Context<'a> {
    before_previous: Option<Piece<'a>>,
    after_next: Option<Piece<'a>>,
}

/// The spacing table. One space is the default; the exceptions are tight.
fn wants_space(previous: Piece, next: Piece, context: Context) -> bool {
    use Tok::*;
    if is_comment(next.kind) {
        return true;
    }
    match (previous.kind, next.kind) {
        (LBrace, RBrace) => false,
        (LBrace, _) | (_, RBrace) | (_, LBrace) => true,
        // A status class: `4XX`.
        (Int, Ident) if next.text.eq_ignore_ascii_case("XX") => false,
        _ if tight_after(previous.kind) || tight_before(next.kind) => false,
        (_, LBracket) => !is_list_suffix(previous, context.after_next),
        (Ident, LParen) => opens_group_type(previous, context.before_previous),
        _ => true,
    }
}

/// Tokens written against what follows them: `@min`, `(x`, `[x`, `a.b`, `5..60`, `map<`.
fn tight_after(kind: Tok) -> bool {
    matches!(
        kind,
        Tok::At | Tok::LParen | Tok::LBracket | Tok::Dot | Tok::DotDot | Tok::Lt
    )
}

/// Tokens written against what precedes them: `a, b`, `a: T`, `a?`, `x)`, `x]`, `a.b`,
/// `5..60`, `map<string, T>`.
fn tight_before(kind: Tok) -> bool {
    matches!(
        kind,
        Tok::Comma
            | Tok::Colon
            | Tok::Question
            | Tok::RParen
            | Tok::RBracket
            | Tok::Dot
            | Tok::DotDot
            | Tok::Lt
            | Tok::Gt
    )
}

/// `[]` after a type (`string[]`, `(a | b)[]`, `map<string, T>[]`), as against a list value
/// (`assigned: [a, b]`).
fn is_list_suffix(previous: Piece, after_next: Option<Piece>) -> bool {
    let closes_at_once = after_next.is_some_and(|p| p.kind == Tok::RBracket);
    let ends_type = matches!(
        previous.kind,
        Tok::Ident | Tok::RParen | Tok::Gt | Tok::Str | Tok::RBracket
    );
    closes_at_once && ends_type
}

/// A name before `(` is called like a function (`@min(5)`, `tier(…)`, `not_shown("…")`,
/// `oauth(scope)`), except the clause word `body`, whose `(` groups a union type.
fn opens_group_type(name: Piece, before: Option<Piece>) -> bool {
    name.text == "body" && before.is_none_or(|p| p.kind != Tok::At)
}

/// Whether the two tokens, written together, still lex as themselves (`1` and `.` and `5`
/// must not become `1.5`; `.` and `.` must not become `..`).
fn glues_safely(previous: Piece, next: Piece) -> bool {
    let joined = format!("{}{}", previous.text, next.text);
    let mut diagnostics = Diagnostics::default();
    let tokens = lex_with_comments(&joined, &mut diagnostics);
    let pieces: Vec<Piece> = tokens
        .into_iter()
        .filter(|t| t.kind != Tok::Eof)
        .map(|t| Piece::of(&joined, t))
        .collect();
    !diagnostics.has_errors() && pieces == [previous, next]
}
