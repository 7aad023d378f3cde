//! Recorded values read and rewritten: the strings of a JSON value and where they sit, keys
//! as capture names, recorded text as cassette text, and a URL's path and query.

use crate::matcher::child;
use serde_json::Value;

/// A recorded text as a cassette string: literal `{{` and `}}` become `{{$open}}` and
/// `{{$close}}`, so nothing recorded reads as a template.
pub fn escape_braces(text: &str) -> String {
    if !text.contains("{{") && !text.contains("}}") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("{{") {
            out.push_str("{{$open}}");
            rest = after;
        } else if let Some(after) = rest.strip_prefix("}}") {
            out.push_str("{{$close}}");
            rest = after;
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Every string of a JSON value with its JSON path and the key it sits under.
pub(super) fn string_leaves(
    v: &Value,
    path: &str,
    key: &str,
    out: &mut Vec<(String, String, String)>,
) {
    match v {
        Value::String(s) => out.push((path.to_string(), key.to_string(), s.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                string_leaves(item, &format!("{path}[{i}]"), key, out);
            }
        }
        Value::Object(fields) => {
            for (k, item) in fields {
                string_leaves(item, &child(path, k), k, out);
            }
        }
        _ => {}
    }
}

/// The value with each string replaced by `f(key, string)`, `key` the name of the field
/// it is in (an array's items are under its key).
pub(super) fn map_strings(v: &Value, key: &str, f: &dyn Fn(&str, &str) -> String) -> Value {
    match v {
        Value::String(s) => Value::String(f(key, s)),
        Value::Array(items) => Value::Array(items.iter().map(|i| map_strings(i, key, f)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), map_strings(v, k, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Renames the keys of every object in `v` that `rename` gives a new name.
pub(super) fn rename_keys(v: &mut Value, rename: &dyn Fn(&str) -> Option<String>) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|i| rename_keys(i, rename)),
        Value::Object(fields) => {
            let renamed: serde_json::Map<String, Value> = std::mem::take(fields)
                .into_iter()
                .map(|(k, mut v)| {
                    rename_keys(&mut v, rename);
                    (rename(&k).unwrap_or(k), v)
                })
                .collect();
            *fields = renamed;
        }
        _ => {}
    }
}

/// A key as a capture name: lower case, `_` between words.
pub(super) fn identifier(key: &str) -> String {
    let name: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let name = name.trim_matches('_').to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("value_{name}")
    } else {
        name
    }
}

/// Splits a URL's path and query after a base path (`/api` of `https://host/api`).
pub fn split_url(url: &str, base_path: &str) -> Option<(String, Vec<(String, String)>)> {
    let parsed = reqwest::Url::parse(url).ok()?;
    let path = parsed.path();
    let path = path
        .strip_prefix(base_path.trim_end_matches('/'))
        .unwrap_or(path);
    let path = if path.is_empty() { "/" } else { path };
    let query = parsed
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    Some((path.to_string(), query))
}
