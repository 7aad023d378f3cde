//! Tokens of the spec language. Keywords are plain identifiers so that field names such as
//! `type` or `model` need no escaping; the parser gives them meaning by position.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::source::Span;
use logos::Logos;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Tok {
    #[regex(r"///[^\n]*")]
    DocComment,
    /// A `//` comment (or one of four or more slashes). Only [`lex_with_comments`] keeps
    /// it; the parser never sees one.
    #[regex(r"//([^/\n][^\n]*)?")]
    #[regex(r"////[^\n]*")]
    LineComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    #[regex(r"-?[0-9]+")]
    Int,
    #[regex(r"-?[0-9]+\.[0-9]+")]
    Float,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    #[regex(r#""([^"\\\n]|\\[^\n])*"#, priority = 0)]
    UnterminatedStr,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("?")]
    Question,
    #[token("|")]
    Pipe,
    #[token("&")]
    Amp,
    #[token("=")]
    Eq,
    #[token("@")]
    At,
    #[token(".")]
    Dot,
    #[token("->")]
    Arrow,
    #[token("..")]
    DotDot,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    /// Anything the lexer does not know; reported once per run of such characters.
    Unknown,
    Eof,
}

impl Tok {
    /// How the token is named in "expected …, found …" messages.
    pub fn describe(self) -> &'static str {
        match self {
            Tok::DocComment => "doc comment",
            Tok::LineComment => "comment",
            Tok::Ident => "identifier",
            Tok::Int => "integer",
            Tok::Float => "number",
            Tok::Str | Tok::UnterminatedStr => "string",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::Colon => "`:`",
            Tok::Comma => "`,`",
            Tok::Question => "`?`",
            Tok::Pipe => "`|`",
            Tok::Amp => "`&`",
            Tok::Eq => "`=`",
            Tok::At => "`@`",
            Tok::Dot => "`.`",
            Tok::Arrow => "`->`",
            Tok::DotDot => "`..`",
            Tok::Lt => "`<`",
            Tok::Gt => "`>`",
            Tok::Unknown => "unknown character",
            Tok::Eof => "end of file",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub kind: Tok,
    pub span: Span,
}

/// Splits `text` into tokens, ending with one `Eof`. Lexical errors are reported and the
/// offending characters dropped, so parsing can go on and find the rest. `//` comments are
/// dropped: they mean nothing to the parser.
pub fn lex(text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    lex_tokens(text, diags, false)
}

/// As [`lex`], but `//` comments stay in the stream as [`Tok::LineComment`] tokens, for tools
/// that must give the text back with its comments (the formatter).
pub fn lex_with_comments(text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    lex_tokens(text, diags, true)
}

fn lex_tokens(text: &str, diags: &mut Diagnostics, keep_comments: bool) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(text.len() / 4);
    let mut lexer = Tok::lexer(text);
    let mut unknown_run: Option<Span> = None;
    while let Some(result) = lexer.next() {
        let span = Span::new(lexer.span().start, lexer.span().end);
        match result {
            Ok(Tok::UnterminatedStr) => {
                flush_unknown(&mut unknown_run, diags);
                diags.push(
                    Diagnostic::error(
                        crate::diagnostic_codes::UNTERMINATED_STRING,
                        span,
                        "unterminated string",
                    )
                    .label("this string has no closing `\"` on its line")
                    .help("strings cannot span lines; close it with `\"`"),
                );
                tokens.push(Token {
                    kind: Tok::Str,
                    span,
                });
            }
            Ok(kind) => {
                flush_unknown(&mut unknown_run, diags);
                if kind != Tok::LineComment || keep_comments {
                    tokens.push(Token { kind, span });
                }
            }
            Err(()) => {
                unknown_run = Some(unknown_run.map_or(span, |run| {
                    if run.end == span.start {
                        run.to(span)
                    } else {
                        flush_unknown(&mut Some(run), diags);
                        span
                    }
                }));
            }
        }
    }
    flush_unknown(&mut unknown_run, diags);
    let end = text.len();
    tokens.push(Token {
        kind: Tok::Eof,
        span: Span::new(end, end),
    });
    tokens
}

fn flush_unknown(run: &mut Option<Span>, diags: &mut Diagnostics) {
    if let Some(span) = run.take() {
        diags.push(
            Diagnostic::error(
                crate::diagnostic_codes::UNEXPECTED_CHARACTER,
                span,
                "unexpected character",
            )
            .label("not part of the spec language")
            .help("comments start with `//`, doc comments with `///`"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Tok> {
        lex(text, &mut Diagnostics::default())
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn doc_comments_are_kept_and_comments_dropped() {
        assert_eq!(
            kinds("/// doc\n// note\nmodel A {}"),
            vec![
                Tok::DocComment,
                Tok::Ident,
                Tok::Ident,
                Tok::LBrace,
                Tok::RBrace,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn comments_are_kept_when_asked() {
        let text = "// note\nmodel A { //// bar\n}";
        let tokens = lex_with_comments(text, &mut Diagnostics::default());
        let kinds: Vec<Tok> = tokens.iter().map(|t| t.kind).collect();
        assert_eq!(
            kinds,
            vec![
                Tok::LineComment,
                Tok::Ident,
                Tok::Ident,
                Tok::LBrace,
                Tok::LineComment,
                Tok::RBrace,
                Tok::Eof
            ]
        );
        assert_eq!(&text[tokens[4].span.range()], "//// bar");
    }

    #[test]
    fn unknown_characters_around_a_comment_are_reported_alike_in_both_modes() {
        let text = "$$ // x\n$ model";
        let (mut plain, mut kept) = (Diagnostics::default(), Diagnostics::default());
        lex(text, &mut plain);
        lex_with_comments(text, &mut kept);
        assert_eq!(plain.items, kept.items);
        assert_eq!(plain.items.len(), 2);
    }

    #[test]
    fn numbers_ranges_and_arrows() {
        assert_eq!(
            kinds("5..60 -1 2.5 a -> b"),
            vec![
                Tok::Int,
                Tok::DotDot,
                Tok::Int,
                Tok::Int,
                Tok::Float,
                Tok::Ident,
                Tok::Arrow,
                Tok::Ident,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn bad_characters_are_reported_once_per_run() {
        let mut diags = Diagnostics::default();
        lex("model $$$ A", &mut diags);
        assert_eq!(diags.items.len(), 1);
        assert_eq!(diags.items[0].span, Span::new(6, 9));
    }
}
