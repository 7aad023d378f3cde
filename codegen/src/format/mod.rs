//! The canonical text of a spec, in the manner of `gofmt`: the author's line breaks stay,
//! everything else (indentation, spacing inside a line, blank lines, line endings) is
//! decided here, so two people's edits of one spec differ only where they meant something.
//!
//! Only a spec that lexes and parses is formatted, and the formatter never changes what the
//! spec says: the output is checked to hold the same tokens, comments included, each starting
//! a line where it started one before. Should that check ever fail, the input is answered
//! unchanged rather than a spec that means something else.
//!
//! ```
//! use covenant_codegen::{SourceFile, format::format_source};
//!
//! let file = SourceFile::new("a.covenant", "model  A{\r\n\tname :string[ ]|null // why\r\n}");
//! let text = format_source(&file).unwrap();
//! assert_eq!(text, "model A {\n    name: string[] | null // why\n}\n");
//! ```

mod layout;
mod spacing;
#[cfg(test)]
mod tests;

use crate::diagnostic::Diagnostics;
use crate::lexer::{Tok, lex_with_comments};
use crate::parser;
use crate::source::SourceFile;

/// The canonical text of `file`, or the diagnostics of a file that does not lex or parse
/// (a broken file is never formatted: its tokens may not mean what they will once mended).
/// Never panics.
pub fn format_source(file: &SourceFile) -> Result<String, Diagnostics> {
    let mut diagnostics = Diagnostics::default();
    parser::parse(&file.text, &mut diagnostics);
    if diagnostics.has_errors() {
        diagnostics.sort();
        return Err(diagnostics);
    }
    let formatted = layout::format_text(&file.text);
    if same_tokens(&file.text, &formatted) {
        Ok(formatted)
    } else {
        Ok(file.text.clone())
    }
}

/// Whether two texts hold the same tokens, comments included, in the same order, each
/// starting a line in both or in neither: then they parse to the same tree and recover from
/// errors alike. Comments are compared without trailing whitespace, which the formatter
/// trims and which means nothing (the parser trims doc comments itself). `after` must lex
/// cleanly: dropped characters would otherwise go unnoticed.
pub(crate) fn same_tokens(before: &str, after: &str) -> bool {
    let mut diagnostics = Diagnostics::default();
    let after_shape = shape(after, &mut diagnostics);
    !diagnostics.has_errors() && shape(before, &mut Diagnostics::default()) == after_shape
}

/// Each token's kind, its text as compared, and whether it starts a line. The end of the
/// file is left out: whether a final line break precedes it means nothing.
fn shape<'a>(text: &'a str, diagnostics: &mut Diagnostics) -> Vec<(Tok, &'a str, bool)> {
    let mut previous_end = 0;
    lex_with_comments(text, diagnostics)
        .into_iter()
        .filter(|token| token.kind != Tok::Eof)
        .enumerate()
        .map(|(i, token)| {
            let (start, end) = (token.span.start as usize, token.span.end as usize);
            let gap = text.get(previous_end..start).unwrap_or("");
            previous_end = end;
            let piece = layout::Piece::of(text, token);
            (piece.kind, piece.text, i == 0 || gap.contains('\n'))
        })
        .collect()
}
