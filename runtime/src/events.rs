//! Event types with `{placeholder}`s: writing the type a payload is sent as, and finding the
//! placeholders' texts in a received one. The generated `events` module builds on these.

use std::fmt;

/// `pattern` with its placeholders replaced, in order, by `values`.
pub fn fill_event_type(pattern: &str, values: &[&str]) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut values = values.iter();
    for piece in split(pattern) {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Placeholder => out.push_str(values.next().copied().unwrap_or_default()),
        }
    }
    out
}

/// The texts `event_type` gives each placeholder of `pattern`, in order, or `None` when it is
/// not of the pattern. A placeholder stands for one or more characters; where several
/// splits fit, the shortest texts come first.
pub fn match_event_type<'a>(pattern: &str, event_type: &'a str) -> Option<Vec<&'a str>> {
    let pieces = split(pattern);
    let mut texts = Vec::new();
    matches(&pieces, event_type, &mut texts).then_some(texts)
}

/// A pattern as literal text and placeholders.
#[derive(Debug, PartialEq)]
enum Piece<'p> {
    Literal(&'p str),
    Placeholder,
}

fn split(pattern: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        if open > 0 {
            pieces.push(Piece::Literal(&rest[..open]));
        }
        pieces.push(Piece::Placeholder);
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Literal(rest));
    }
    pieces
}

fn matches<'a>(pieces: &[Piece<'_>], text: &'a str, texts: &mut Vec<&'a str>) -> bool {
    match pieces.split_first() {
        None => text.is_empty(),
        Some((Piece::Literal(literal), rest)) => text
            .strip_prefix(literal)
            .is_some_and(|after| matches(rest, after, texts)),
        Some((Piece::Placeholder, rest)) => {
            for (end, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
                texts.push(&text[..end]);
                if matches(rest, &text[end..], texts) {
                    return true;
                }
                texts.pop();
            }
            false
        }
    }
}

/// Why a delivery could not be read as one of the spec's events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventError {
    /// The delivery is not JSON, or its envelope does not fit the envelope model.
    Envelope(String),
    /// The delivery does not say its event type where the spec says it travels.
    NoEventType,
    /// No event of the spec has this type.
    UnknownType(String),
    /// The event's fields do not fit its types.
    Payload {
        event: &'static str,
        message: String,
    },
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Envelope(message) => write!(f, "the delivery's envelope: {message}"),
            EventError::NoEventType => write!(f, "the delivery does not say its event type"),
            EventError::UnknownType(t) => write!(f, "no event has the type `{t}`"),
            EventError::Payload { event, message } => write!(f, "event {event}: {message}"),
        }
    }
}

impl std::error::Error for EventError {}

/// Reads the envelope field `name` of `envelope` as a `T`, for event `event`: absent is read
/// as `null`.
pub fn event_field<T: serde::de::DeserializeOwned>(
    envelope: &serde_json::Map<String, serde_json::Value>,
    name: &str,
    event: &'static str,
) -> Result<T, EventError> {
    let value = envelope.get(name).cloned().unwrap_or_default();
    serde_json::from_value(value).map_err(|e| EventError::Payload {
        event,
        message: format!("{name}: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_and_found_again() {
        let pattern = "daily.data.{resource}.created";
        let filled = fill_event_type(pattern, &["sleep_cycle"]);
        assert_eq!(filled, "daily.data.sleep_cycle.created");
        assert_eq!(
            match_event_type(pattern, &filled),
            Some(vec!["sleep_cycle"])
        );
        assert_eq!(match_event_type(pattern, "daily.data..created"), None);
        assert_eq!(match_event_type(pattern, "daily.data.sleep.updated"), None);
        assert_eq!(
            match_event_type("a.{x}.{y}", "a.b.c.d"),
            Some(vec!["b", "c.d"])
        );
        assert_eq!(match_event_type("issues", "issues"), Some(vec![]));
        assert_eq!(match_event_type("issues", "issues.opened"), None);
    }
}
