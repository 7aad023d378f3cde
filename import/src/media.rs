//! Media types of bodies: which the spec writes, how each kind is read, and what a content
//! entry states (nothing, for a 204; items, for a stream).

use crate::document::join;
use crate::importer::Importer;
use serde_json::Value;

/// Whether a schema says no more of a text body than that it is text.
pub(crate) fn plain_text(schema: &Value) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(map) => {
            map.is_empty()
                || (map.get("type").and_then(Value::as_str) == Some("string")
                    && !map.contains_key("properties"))
        }
        _ => false,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum MediaKind {
    Json,
    Form,
    Multipart,
    Text,
    Binary,
}

pub(crate) fn media_kind(media: &str) -> MediaKind {
    let essence = media.split(';').next().unwrap_or("").trim().to_lowercase();
    if essence == "application/json"
        || essence.ends_with("+json")
        || essence == "*/*"
        || essence == "application/*"
        || essence == "text/json"
    {
        MediaKind::Json
    } else if essence == "application/x-www-form-urlencoded" {
        MediaKind::Form
    } else if essence == "multipart/form-data" {
        MediaKind::Multipart
    } else if essence.starts_with("text/")
        || essence.ends_with("+xml")
        || essence == "application/xml"
        || essence == "application/yaml"
        || covenant_runtime::streams::is_stream_media(&essence)
    {
        MediaKind::Text
    } else {
        MediaKind::Binary
    }
}

pub(crate) fn is_plain_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim().to_lowercase();
    essence == "application/json" || essence == "*/*" || essence == "application/*"
}

/// The media type the spec writes: JSON first, then a form, multipart, text, bytes. A
/// range (`image/*`) is not a media type the spec can name.
pub(crate) fn choose_media(
    content: &serde_json::Map<String, Value>,
    request: bool,
) -> Option<(&str, &Value)> {
    let order = if request {
        [
            MediaKind::Json,
            MediaKind::Form,
            MediaKind::Multipart,
            MediaKind::Binary,
            MediaKind::Text,
        ]
    } else {
        [
            MediaKind::Json,
            MediaKind::Text,
            MediaKind::Binary,
            MediaKind::Form,
            MediaKind::Multipart,
        ]
    };
    for kind in order {
        let mut candidates: Vec<(&str, &Value)> = content
            .iter()
            .filter(|(m, _)| media_kind(m) == kind)
            .filter(|(m, _)| kind == MediaKind::Json || !m.contains('*'))
            .map(|(m, v)| (m.as_str(), v))
            .collect();
        candidates.sort_by_key(|(m, _)| !is_plain_json(m));
        if let Some(first) = candidates.first() {
            return Some(*first);
        }
    }
    None
}

/// Content that states nothing (no schema, `{}`, `type: null`, an object of no fields), as
/// documents write for a 204: no body is what it says.
pub(crate) fn says_no_body(content: &serde_json::Map<String, Value>) -> bool {
    content.values().all(|media| match media.get("schema") {
        None => true,
        Some(Value::Object(schema)) => {
            let kind = schema.get("type").and_then(Value::as_str);
            let no_fields = [
                "properties",
                "additionalProperties",
                "required",
                "allOf",
                "oneOf",
                "anyOf",
            ]
            .iter()
            .all(|k| match schema.get(*k) {
                None => true,
                Some(Value::Object(m)) => m.is_empty(),
                Some(Value::Array(a)) => a.is_empty(),
                Some(_) => false,
            });
            schema.is_empty() || kind == Some("null") || (kind == Some("object") && no_fields)
        }
        Some(_) => false,
    })
}

/// The schema of each item of a streamed answer (server-sent events, JSON lines) and where
/// it is: OpenAPI 3.2's `itemSchema`, the `x-item-schema` `generate` writes, or the schema
/// itself where it types more than text (as OpenAI's documents type their events).
pub(crate) fn stream_items<'d>(
    media: &str,
    chosen: &'d Value,
    schema: &'d Value,
    media_at: &str,
    schema_at: &str,
    importer: &Importer<'d>,
) -> Option<(&'d Value, String)> {
    if !covenant_runtime::streams::is_stream_media(media) {
        return None;
    }
    if let Some(item) = chosen.get("itemSchema") {
        return Some((item, join(media_at, "itemSchema")));
    }
    if let Some(item) = importer.follow(schema).get("x-item-schema") {
        return Some((item, join(schema_at, "x-item-schema")));
    }
    (!plain_text(importer.follow(schema))).then(|| (schema, schema_at.to_string()))
}
