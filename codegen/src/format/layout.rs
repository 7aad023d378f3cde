//! Lines, indentation and blank lines: the author's line breaks are the lines, and the open
//! brackets decide each line's indentation.

use super::spacing::space_before;
use crate::diagnostic::Diagnostics;
use crate::lexer::{Tok, Token, lex_with_comments};

/// Spaces per indentation level.
const INDENT: &str = "    ";

/// One token as the formatter writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece<'a> {
    pub kind: Tok,
    pub text: &'a str,
}

impl<'a> Piece<'a> {
    /// A comment's trailing whitespace (a CRLF file's `\r` among it) is no part of it.
    pub fn of(text: &'a str, token: Token) -> Piece<'a> {
        let raw = text.get(token.span.range()).unwrap_or("");
        let text = match token.kind {
            Tok::LineComment | Tok::DocComment => raw.trim_end(),
            _ => raw,
        };
        Piece {
            kind: token.kind,
            text,
        }
    }
}

/// A line of the input: its tokens, and whether blank lines stood before it.
struct Line<'a> {
    blank_before: bool,
    pieces: Vec<Piece<'a>>,
}

/// The canonical text of `text`, which the caller knows to lex cleanly.
pub(super) fn format_text(text: &str) -> String {
    let tokens = lex_with_comments(text, &mut Diagnostics::default());
    render(&split_lines(text, &tokens))
}

/// Groups tokens into the author's lines. Only `\n` breaks a line, as for the parser; a
/// `\r` is whitespace like any other.
fn split_lines<'a>(text: &'a str, tokens: &[Token]) -> Vec<Line<'a>> {
    let mut lines: Vec<Line<'a>> = Vec::new();
    let mut previous_end = 0;
    for &token in tokens.iter().filter(|t| t.kind != Tok::Eof) {
        let gap = text
            .get(previous_end..token.span.start as usize)
            .unwrap_or("");
        let breaks = gap.matches('\n').count();
        previous_end = token.span.end as usize;
        let piece = Piece::of(text, token);
        match lines.last_mut() {
            Some(line) if breaks == 0 => line.pieces.push(piece),
            _ => lines.push(Line {
                blank_before: breaks > 1,
                pieces: vec![piece],
            }),
        }
    }
    lines
}

/// Writes the lines, each indented one level per bracket open at its start.
fn render(lines: &[Line]) -> String {
    let mut out = String::new();
    let mut open: Vec<Tok> = Vec::new();
    let mut after_opener = true;
    for line in lines {
        let starts_closed = line.pieces.first().is_some_and(|p| is_closer(p.kind));
        if line.blank_before && !after_opener && !starts_closed {
            out.push('\n');
        }
        let level = open.len().saturating_sub(leading_closers(&line.pieces));
        out.push_str(&INDENT.repeat(level));
        write_line(&mut out, &line.pieces);
        out.push('\n');
        track_brackets(&mut open, &line.pieces);
        after_opener = ends_with_opener(&line.pieces);
    }
    out
}

/// A line's tokens, with the canonical space (or none) between each pair.
fn write_line(out: &mut String, pieces: &[Piece]) {
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 && space_before(pieces, i) {
            out.push(' ');
        }
        out.push_str(piece.text);
    }
}

/// How many closers start the line: each takes a level off the line's own indentation.
fn leading_closers(pieces: &[Piece]) -> usize {
    pieces.iter().take_while(|p| is_closer(p.kind)).count()
}

/// Opens and closes brackets as the line does, so the next line knows its level.
fn track_brackets(open: &mut Vec<Tok>, pieces: &[Piece]) {
    for piece in pieces {
        if is_opener(piece.kind) {
            open.push(piece.kind);
        } else if is_closer(piece.kind) {
            open.pop();
        }
    }
}

/// Whether the line's last token other than a trailing comment opens a bracket: a blank
/// line after it would only push the block's first member away from its head.
fn ends_with_opener(pieces: &[Piece]) -> bool {
    pieces
        .iter()
        .rev()
        .find(|p| !is_comment(p.kind))
        .is_some_and(|p| is_opener(p.kind))
}

pub(super) fn is_comment(kind: Tok) -> bool {
    matches!(kind, Tok::LineComment | Tok::DocComment)
}

fn is_opener(kind: Tok) -> bool {
    matches!(kind, Tok::LBrace | Tok::LParen | Tok::LBracket)
}

fn is_closer(kind: Tok) -> bool {
    matches!(kind, Tok::RBrace | Tok::RParen | Tok::RBracket)
}
