//! Templates split once, when a cassette is read: a string becomes literal pieces and
//! references (`{{user_id}}`, `{{credentials.team_api_key}}`, `{{env.TOKEN}}`,
//! `{{$now+1h}}`), and a JSON value becomes a tree whose strings are such texts.

use chrono::Duration;
use serde_json::Value;

/// A string with its `{{…}}` references found.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    pieces: Vec<Piece>,
    /// The text as the cassette writes it, for messages.
    written: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Literal(String),
    Reference(Reference),
}

/// What one `{{…}}` names.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// A `let` value or a capture of an earlier exchange.
    Value(String),
    /// A key of the credentials file.
    Credential(String),
    /// An environment variable.
    Env(String),
    Generator(Generator),
}

/// A fresh value made where it is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Generator {
    /// A literal `{{`, for text that holds one.
    Open,
    /// A literal `}}`.
    Close,
    Uuid,
    /// `<run id>-<n>`, unique in the run and apart from other runs' values.
    Unique,
    /// An RFC 3339 instant, now plus the offset.
    Now(Duration),
    /// An ISO date, today plus the offset.
    Date(Duration),
}

/// The generators a template may name, for messages.
pub const GENERATORS: &str = "$uuid, $unique, $now, $now+1h, $date, $date-7d, $open, $close";

impl Text {
    /// Splits a string at its references. A `{{` with no `}}`, or a `}}` with no `{{`, is
    /// an error: literal braces are written `{{$open}}` and `{{$close}}`.
    pub fn parse(text: &str) -> Result<Text, String> {
        let unbalanced = || format!("unbalanced `{{{{`/`}}}}` in `{text}`");
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(mut start) = rest.find("{{") {
            // In `{{{name}}`, the first brace is text and the reference starts after it.
            while rest[start + 2..].starts_with('{') {
                start += 1;
            }
            let literal = &rest[..start];
            if literal.contains("}}") {
                return Err(unbalanced());
            }
            if !literal.is_empty() {
                pieces.push(Piece::Literal(literal.to_string()));
            }
            let after = &rest[start + 2..];
            let end = after.find("}}").ok_or_else(unbalanced)?;
            let inner = &after[..end];
            if inner.contains("{{") {
                return Err(unbalanced());
            }
            pieces.push(Piece::Reference(Reference::parse(inner.trim())?));
            rest = &after[end + 2..];
        }
        if rest.contains("}}") {
            return Err(unbalanced());
        }
        if !rest.is_empty() {
            pieces.push(Piece::Literal(rest.to_string()));
        }
        Ok(Text {
            pieces,
            written: text.to_string(),
        })
    }

    /// A text with no reference.
    pub fn literal(text: &str) -> Text {
        Text {
            pieces: vec![Piece::Literal(text.to_string())],
            written: text.to_string(),
        }
    }

    /// The text as the cassette writes it, references and all.
    pub fn written(&self) -> &str {
        &self.written
    }

    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The one reference a text is made of, nothing around it: its value keeps its JSON
    /// type where it is filled in (a captured number stays a number).
    pub fn whole(&self) -> Option<&Reference> {
        match self.pieces.as_slice() {
            [Piece::Reference(r)] => Some(r),
            _ => None,
        }
    }

    /// The text when it holds no reference.
    pub fn as_literal(&self) -> Option<&str> {
        match self.pieces.as_slice() {
            [] => Some(""),
            [Piece::Literal(s)] => Some(s),
            _ => None,
        }
    }

    pub fn references(&self) -> impl Iterator<Item = &Reference> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Reference(r) => Some(r),
            Piece::Literal(_) => None,
        })
    }
}

impl Reference {
    fn parse(name: &str) -> Result<Reference, String> {
        if let Some(generator) = name.strip_prefix('$') {
            return Generator::parse(generator)
                .map(Reference::Generator)
                .ok_or_else(|| format!("unknown generator `${generator}` (known: {GENERATORS})"));
        }
        if let Some(key) = name.strip_prefix("credentials.") {
            return Ok(Reference::Credential(key.to_string()));
        }
        if let Some(var) = name.strip_prefix("env.") {
            return Ok(Reference::Env(var.to_string()));
        }
        if name.is_empty() {
            return Err("`{{}}` names nothing".into());
        }
        Ok(Reference::Value(name.to_string()))
    }
}

impl Generator {
    fn parse(name: &str) -> Option<Generator> {
        match name {
            "open" => return Some(Generator::Open),
            "close" => return Some(Generator::Close),
            "uuid" => return Some(Generator::Uuid),
            "unique" => return Some(Generator::Unique),
            _ => {}
        }
        let (base, offset) = match name.find(['+', '-']) {
            Some(i) => (&name[..i], parse_offset(&name[i..])?),
            None => (name, Duration::zero()),
        };
        match base {
            "now" => Some(Generator::Now(offset)),
            "date" => Some(Generator::Date(offset)),
            _ => None,
        }
    }
}

/// `+30s`, `-5m`, `+2h`, `+7d`.
pub fn parse_offset(text: &str) -> Option<Duration> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => (1, text),
    };
    parse_duration(rest).map(|d| d * sign)
}

/// The largest offset a template or matcher may give, about 10,000 years: every instant
/// now plus or minus it can be written.
const MAX_OFFSET_DAYS: i64 = 3_650_000;

/// `30s`, `5m`, `2h`, `7d`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let unit = text.chars().last()?;
    let amount: i64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
    match unit {
        's' => Duration::try_seconds(amount),
        'm' => Duration::try_minutes(amount),
        'h' => Duration::try_hours(amount),
        'd' => Duration::try_days(amount),
        _ => None,
    }
    // An offset no instant can be moved by is no duration either.
    .filter(|d| d.num_days().abs() <= MAX_OFFSET_DAYS)
}

/// A JSON value whose strings may hold references.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    /// A value with no reference anywhere in it, used as it is.
    Json(Value),
    Text(Text),
    Array(Vec<Tree>),
    Object(Vec<(String, Tree)>),
}

impl Tree {
    /// Every reference in the tree.
    pub fn references(&self) -> Vec<&Reference> {
        let mut out = Vec::new();
        self.collect_references(&mut out);
        out
    }

    fn collect_references<'t>(&'t self, out: &mut Vec<&'t Reference>) {
        match self {
            Tree::Json(_) => {}
            Tree::Text(text) => out.extend(text.references()),
            Tree::Array(items) => items.iter().for_each(|t| t.collect_references(out)),
            Tree::Object(fields) => fields.iter().for_each(|(_, t)| t.collect_references(out)),
        }
    }
}

/// Where a problem is, within the value read, and what it is.
pub type Problem = (Vec<PathStep>, String);

/// Reads the values of one part of a cassette, collecting every problem with the steps
/// that lead to it; what cannot be read is kept as plain JSON so the rest is still read.
pub struct Reader<'v> {
    /// Says what is wrong with a reference here (a name not defined yet), if anything.
    vet: &'v dyn Fn(&Reference) -> Option<String>,
    at: Vec<PathStep>,
    pub problems: Vec<Problem>,
}

impl<'v> Reader<'v> {
    pub fn new(vet: &'v dyn Fn(&Reference) -> Option<String>) -> Reader<'v> {
        Reader {
            vet,
            at: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// A problem where the reader is now.
    pub fn problem(&mut self, message: String) {
        self.problems.push((self.at.clone(), message));
    }

    /// Runs `read` one step further in.
    pub fn within<T>(&mut self, step: PathStep, read: impl FnOnce(&mut Self) -> T) -> T {
        self.at.push(step);
        let out = read(self);
        self.at.pop();
        out
    }

    /// A string's text, every reference vetted.
    pub fn text(&mut self, text: &str) -> Option<Text> {
        match Text::parse(text) {
            Ok(parsed) => {
                let problems: Vec<String> = parsed.references().filter_map(self.vet).collect();
                for problem in problems {
                    self.problem(problem);
                }
                Some(parsed)
            }
            Err(e) => {
                self.problem(e);
                None
            }
        }
    }

    /// A value's tree.
    pub fn tree(&mut self, value: &Value) -> Tree {
        if !holds_braces(value) {
            return Tree::Json(value.clone());
        }
        match value {
            Value::String(s) => match self.text(s) {
                Some(text) => Tree::Text(text),
                None => Tree::Json(value.clone()),
            },
            Value::Array(items) => Tree::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| self.within(PathStep::Index(i), |r| r.tree(item)))
                    .collect(),
            ),
            Value::Object(fields) => Tree::Object(
                fields
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            self.within(PathStep::Key(k.clone()), |r| r.tree(v)),
                        )
                    })
                    .collect(),
            ),
            other => Tree::Json(other.clone()),
        }
    }
}

/// A key or an index on the way into a JSON value: the steps a cassette's positions are
/// found by.
pub use crate::cassette::locate::Step as PathStep;

/// Whether any string in the value holds braces, so must be parsed.
pub fn holds_braces(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains("{{") || s.contains("}}"),
        Value::Array(items) => items.iter().any(holds_braces),
        Value::Object(fields) => fields.values().any(holds_braces),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_split_at_its_references() {
        let text = Text::parse("/v2/user/{{ user_id }}/x{{$now+1h}}").unwrap();
        assert_eq!(
            text.pieces(),
            &[
                Piece::Literal("/v2/user/".into()),
                Piece::Reference(Reference::Value("user_id".into())),
                Piece::Literal("/x".into()),
                Piece::Reference(Reference::Generator(Generator::Now(Duration::hours(1)))),
            ]
        );
        assert_eq!(
            Text::parse("{{credentials.k}}").unwrap().whole(),
            Some(&Reference::Credential("k".into()))
        );
        assert_eq!(Text::parse("plain").unwrap().as_literal(), Some("plain"));
    }

    #[test]
    fn a_brace_before_a_reference_is_text() {
        let text = Text::parse("{{{$close}}").unwrap();
        assert_eq!(
            text.pieces(),
            &[
                Piece::Literal("{".into()),
                Piece::Reference(Reference::Generator(Generator::Close)),
            ]
        );
        for recorded in ["{}}", "}}}", "{{{", "{}}}", "}{{", "a{{b}}c", "{{{{x}}}}"] {
            let escaped = crate::record::escape_braces(recorded);
            let parsed = Text::parse(&escaped).unwrap_or_else(|e| panic!("{recorded}: {e}"));
            let restored: String = parsed
                .pieces()
                .iter()
                .map(|p| match p {
                    Piece::Literal(s) => s.as_str(),
                    Piece::Reference(Reference::Generator(Generator::Open)) => "{{",
                    Piece::Reference(Reference::Generator(Generator::Close)) => "}}",
                    Piece::Reference(other) => panic!("{recorded}: {other:?}"),
                })
                .collect();
            assert_eq!(restored, recorded);
        }
    }

    #[test]
    fn broken_templates_are_refused_with_the_reason() {
        assert!(Text::parse("a {{b").unwrap_err().contains("unbalanced"));
        assert!(Text::parse("a }} b").unwrap_err().contains("unbalanced"));
        assert!(
            Text::parse("{{$tomorrow}}")
                .unwrap_err()
                .contains("unknown generator `$tomorrow`")
        );
        assert!(Text::parse("{{$now+1y}}").is_err());
        assert!(Text::parse("{{$now+100000000d}}").is_err());
        assert!(Text::parse("{{$date+9999999999999999d}}").is_err());
    }
}
