//! Where a value sits in a cassette's text, so an error about it names `file:line:col`.

use jsonc_parser::ast::{ObjectPropName, Value};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions};

/// One step into a JSON document: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

impl From<&str> for Step {
    fn from(key: &str) -> Self {
        Step::Key(key.to_string())
    }
}

impl From<usize> for Step {
    fn from(index: usize) -> Self {
        Step::Index(index)
    }
}

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub col: usize,
}

/// The position of the value at `steps`, or of the deepest part of the path that exists
/// (the whole document at worst). The text has already parsed as JSON, so the lenient
/// defaults of the parser change nothing.
pub fn position(text: &str, steps: &[Step]) -> Position {
    positions(text, &[steps.to_vec()])[0]
}

/// The positions of several values, the text parsed once.
pub fn positions(text: &str, each: &[Vec<Step>]) -> Vec<Position> {
    let locator = Locator::new(text);
    each.iter().map(|steps| locator.position(steps)).collect()
}

/// A cassette's text parsed once, for locating any number of values in it: a run that
/// fails many exchanges of one long cassette parses it once, not once per failure.
pub struct Locator<'t> {
    text: &'t str,
    parsed: Option<jsonc_parser::ParseResult<'t>>,
    /// The byte offset where each line starts.
    line_starts: Vec<usize>,
}

impl<'t> Locator<'t> {
    pub fn new(text: &'t str) -> Locator<'t> {
        let parsed =
            jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &ParseOptions::default())
                .ok();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Locator {
            text,
            parsed,
            line_starts,
        }
    }

    /// The position of the value at `steps`, or of the deepest part that exists.
    pub fn position(&self, steps: &[Step]) -> Position {
        let root = self.parsed.as_ref().and_then(|p| p.value.as_ref());
        let offset = root.map_or(0, |root| offset_of(root, steps));
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        let col = self.text[start..offset.min(self.text.len())]
            .chars()
            .count()
            + 1;
        Position { line, col }
    }

    /// The text of a 1-based line.
    pub fn line(&self, line: usize) -> &'t str {
        self.text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or_default()
    }
}

fn offset_of(value: &Value, steps: &[Step]) -> usize {
    let here = value.range().start;
    let Some((first, rest)) = steps.split_first() else {
        return here;
    };
    let next = match (value, first) {
        (Value::Object(object), Step::Key(key)) => object
            .properties
            .iter()
            .find(|p| prop_name(&p.name) == key)
            .map(|p| &p.value),
        (Value::Array(array), Step::Index(i)) => array.elements.get(*i),
        _ => None,
    };
    next.map_or(here, |v| offset_of(v, rest))
}

fn prop_name<'a>(name: &'a ObjectPropName) -> &'a str {
    match name {
        ObjectPropName::String(s) => &s.value,
        ObjectPropName::Word(w) => w.value,
    }
}

/// The line and column (in characters) of a byte offset.
pub fn position_of_offset(text: &str, offset: usize) -> Position {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line,
        col: before[line_start..].chars().count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_keys_and_indexes() {
        let text = "{\n  \"a\": [\n    {\"b\": 1},\n    {\"b\": 2}\n  ]\n}\n";
        let at = position(text, &["a".into(), 1.into(), "b".into()]);
        assert_eq!(at, Position { line: 4, col: 11 });
    }

    #[test]
    fn a_missing_step_points_at_the_deepest_existing_value() {
        let text = "{\"a\": {\"b\": 1}}";
        let at = position(text, &["a".into(), "zz".into()]);
        assert_eq!(at, Position { line: 1, col: 7 });
    }
}
