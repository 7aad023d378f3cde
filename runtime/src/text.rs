//! How parameters read from text and values are written as text: one place, so the typed
//! reader and the walk that explains a rejection agree, and every writer writes alike.

use serde_json::{Map, Value};

/// A JSON value as the text a parameter, header or form field carries: a string as it is,
/// anything else as its JSON.
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An object as form fields (`application/x-www-form-urlencoded`): each field as text, a list
/// as one pair per item, null left out.
pub fn form_encode(fields: &Map<String, Value>) -> String {
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (name, value) in fields {
        match value {
            Value::Null => {}
            Value::Array(items) => {
                for item in items {
                    form.append_pair(name, &plain(item));
                }
            }
            other => {
                form.append_pair(name, &plain(other));
            }
        }
    }
    form.finish()
}

/// `true`/`false` and the spellings form and query strings use for them.
pub fn parse_bool(raw: &str) -> Option<bool> {
    let is = |options: &[&str]| options.iter().any(|o| raw.eq_ignore_ascii_case(o));
    if is(&["true", "1", "yes", "on"]) {
        Some(true)
    } else if is(&["false", "0", "no", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// A finite number: JSON has no `NaN` or infinities.
pub fn parse_number(raw: &str) -> Option<f64> {
    raw.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// A parameter of a union type, read as the first of integer, number, boolean and string
/// its text is: the one reading of the typed reader and the walk.
pub enum Scalar<'a> {
    Int(i64),
    Number(f64),
    Bool(bool),
    Text(&'a str),
}

pub fn parse_scalar(raw: &str) -> Scalar<'_> {
    if let Ok(n) = raw.parse::<i64>() {
        Scalar::Int(n)
    } else if let Some(n) = parse_number(raw) {
        Scalar::Number(n)
    } else if let Some(b) = parse_bool(raw) {
        Scalar::Bool(b)
    } else {
        Scalar::Text(raw)
    }
}
