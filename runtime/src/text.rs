//! How parameters read from text and values are written as text: one place, so the typed
//! reader and the walk that explains a rejection agree, and every writer writes alike.

use crate::contract::Encoding;
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
/// of scalars as one pair per item, lists and objects holding more in brackets
/// (`items[0][price]=5`), null left out.
pub fn form_encode(fields: &Map<String, Value>) -> String {
    form_encode_with(fields, |_| Encoding::Repeated)
}

/// [`form_encode`], each field written as `encoding_of` its name says.
pub fn form_encode_with(
    fields: &Map<String, Value>,
    encoding_of: impl Fn(&str) -> Encoding,
) -> String {
    let mut pairs = Vec::new();
    for (name, value) in fields {
        text_pairs(name, value, encoding_of(name), &mut pairs);
    }
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish()
}

/// A query parameter's or form field's value as text pairs under `name`: a scalar as itself;
/// a list of scalars repeated, or joined in one value; anything holding an object, and
/// anything written `deep`, in brackets. Null is left out, and so is an empty list written
/// repeated or in brackets.
pub fn text_pairs(name: &str, value: &Value, encoding: Encoding, out: &mut Vec<(String, String)>) {
    let scalars = |items: &[Value]| items.iter().all(|i| !i.is_object() && !i.is_array());
    match value {
        Value::Null => {}
        Value::Array(items) if encoding != Encoding::Deep && scalars(items) => {
            match encoding.separator() {
                Some(sep) => {
                    let texts: Vec<String> = items.iter().map(plain).collect();
                    out.push((name.to_string(), texts.join(&sep.to_string())));
                }
                None => out.extend(items.iter().map(|i| (name.to_string(), plain(i)))),
            }
        }
        Value::Array(_) | Value::Object(_) => crate::deep::flatten(name, value, out),
        scalar => out.push((name.to_string(), plain(scalar))),
    }
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
