//! Formatting through `fmt`'s own formatter, answered as the lines that change, so the
//! editor keeps its cursor and marks everywhere else. A file that does not parse is left as
//! it is, as `fmt` leaves it.

use crate::analysis::Analysis;
use covenant_codegen::format::format_source;
use lsp_types::{Position, Range, TextEdit};
use similar::{Algorithm, DiffOp, TextDiff};
use std::time::Duration;

/// The edits that make the whole file canonical; none for a file that does not parse.
pub fn whole(analysis: &Analysis) -> Option<Vec<TextEdit>> {
    let formatted = format_source(&analysis.file).ok()?;
    Some(line_edits(analysis.text(), &formatted))
}

/// The edits of [`whole`] that touch the lines of `range`.
pub fn range(analysis: &Analysis, range: Range) -> Option<Vec<TextEdit>> {
    let edits = whole(analysis)?;
    Some(
        edits
            .into_iter()
            .filter(|edit| touches_lines(edit.range, range))
            .collect(),
    )
}

/// Whether an edit touches the lines of `wanted`.
fn touches_lines(edit: Range, wanted: Range) -> bool {
    edit.start.line <= last_line(wanted) && last_line(edit) >= wanted.start.line
}

/// The last line a range covers: one ending at a line's start ends before that line.
fn last_line(range: Range) -> u32 {
    match range.end.character {
        0 if range.end.line > range.start.line => range.end.line - 1,
        _ => range.end.line,
    }
}

/// How long the line diff may search for the smallest edits; past it the edits are larger
/// but still right, so a file reformatted throughout cannot hold the server.
const DIFF_DEADLINE: Duration = Duration::from_millis(200);

/// One edit per run of changed lines between `before` and `after`.
fn line_edits(before: &str, after: &str) -> Vec<TextEdit> {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .timeout(DIFF_DEADLINE)
        .diff_lines(before, after);
    let old: Vec<&str> = diff.old_slices().to_vec();
    let new: Vec<&str> = diff.new_slices().to_vec();
    let mut edits = Vec::new();
    for op in diff.ops() {
        let (old_range, new_range) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let start = Position::new(old_range.start as u32, 0);
        let end = end_of(&old, old_range.end);
        edits.push(TextEdit::new(
            Range::new(start, end),
            new[new_range].concat(),
        ));
    }
    edits
}

/// The position where line `line` starts; past the last line, the end of the text (whose
/// last line may lack a line break).
fn end_of(lines: &[&str], line: usize) -> Position {
    match lines.get(line) {
        Some(_) => Position::new(line as u32, 0),
        None => match lines.last() {
            Some(last) if !last.ends_with('\n') => {
                Position::new(lines.len() as u32 - 1, last.encode_utf16().count() as u32)
            }
            _ => Position::new(lines.len() as u32, 0),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, edits: &[TextEdit]) -> String {
        let index = crate::position::LineIndex::new(text);
        let mut out = text.to_string();
        for edit in edits.iter().rev() {
            let span = index.span(text, edit.range);
            out.replace_range(span.range(), &edit.new_text);
        }
        out
    }

    #[test]
    fn the_edits_turn_the_text_into_the_formatted_one() {
        let before = "model  A{\n  name :string\n}\n\nmodel B {\n    x: int\n}";
        let after = "model A {\n    name: string\n}\n\nmodel B {\n    x: int\n}\n";
        let edits = line_edits(before, after);
        assert_eq!(apply(before, &edits), after);
        assert!(edits.iter().all(|e| e.range.start.line != 4), "{edits:?}");
    }
}
