//! Byte offsets of the checker against the positions of the protocol, which count lines
//! from zero and columns in UTF-16 code units.

use covenant_codegen::Span;
use lsp_types::{Position, Range};

/// Where each line of one text starts, to turn offsets into positions and back.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { line_starts }
    }

    /// The position of a byte offset; an offset past the end is the end.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let character = text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start as usize),
            self.position(text, span.end as usize),
        )
    }

    /// The byte offset of a position; a line past the end is the end, a column past its
    /// line's end is that end, and a column inside a character is the character's start.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.line_starts.get(position.line as usize) else {
            return text.len();
        };
        let end = self
            .line_starts
            .get(position.line as usize + 1)
            .map_or(text.len(), |next| next - 1);
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            if units + c.len_utf16() > position.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }

    pub fn span(&self, text: &str, range: Range) -> Span {
        Span::new(self.offset(text, range.start), self.offset(text, range.end))
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_units_both_ways() {
        let text = "ab\nc😀d\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 0), Position::new(0, 0));
        assert_eq!(index.position(text, 3), Position::new(1, 0));
        // 'd' follows a character of two UTF-16 units and four bytes.
        assert_eq!(index.position(text, 8), Position::new(1, 3));
        assert_eq!(index.offset(text, Position::new(1, 3)), 8);
        assert_eq!(index.offset(text, Position::new(1, 2)), 4);
        assert_eq!(index.offset(text, Position::new(1, 99)), 9);
        assert_eq!(index.offset(text, Position::new(9, 0)), text.len());
        assert_eq!(index.position(text, 999), Position::new(2, 0));
    }
}
