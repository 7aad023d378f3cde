//! Source files and byte spans into them.

use std::ops::Range;

/// A byte range into one [`SourceFile`]. Kept as `u32` pairs so AST nodes stay small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A spec file as read from disk (or from a macro's input), with the name diagnostics print.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
            .collect();
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// One-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// `file:line:col` of a span's start, the form editors and CI logs link.
    pub fn location(&self, span: Span) -> String {
        let (line, col) = self.line_col(span.start);
        format!("{}:{line}:{col}", self.name)
    }

    /// The whole lines holding the byte range `start..end`: their text, the byte offset
    /// they start at, and the one-based number of the first.
    pub fn lines_around(&self, start: usize, end: usize) -> (&str, usize, usize) {
        let len = self.text.len();
        let (start, end) = (start.min(len), end.min(len));
        let first = match self.line_starts.binary_search(&(start as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let from = self.line_starts[first] as usize;
        let to = self.text[end..].find('\n').map_or(len, |i| end + i);
        (&self.text[from..to], from, first + 1)
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_from_one() {
        let f = SourceFile::new("a", "ab\ncé d\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(7), (2, 4));
        assert_eq!(f.location(Span::new(7, 8)), "a:2:4");
    }
}
