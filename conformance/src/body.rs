//! A cassette's request body written as its endpoint takes it: JSON, form fields, parts, or
//! text or bytes as they are.

use crate::contract::Route;
use covenant_runtime::contract::BodyMedia;
use covenant_runtime::multipart;
use serde_json::Value;

/// The `Content-Type` and bytes of a body given in its JSON form. A form or multipart body
/// that is not an object, and a raw body that is not a string, are sent as JSON text: the
/// target's answer to that is what the cassette tests.
pub fn encode_body(route: &Route, body: &Value) -> Result<(String, Vec<u8>), String> {
    let media = route.body_media.content_type().to_string();
    let json = || {
        (
            "application/json".to_string(),
            body.to_string().into_bytes(),
        )
    };
    Ok(match (&route.body_media, body) {
        (BodyMedia::Form, Value::Object(fields)) => (
            media,
            covenant_runtime::text::form_encode_with(fields, |name| {
                route
                    .body
                    .map_or(Default::default(), |ty| ty.field_encoding(name))
            })
            .into_bytes(),
        ),
        (BodyMedia::Multipart, Value::Object(_)) => {
            let kind_of = |name: &str| match route.body {
                Some(ty) => multipart::kind_in(ty, name),
                None => multipart::PartKind::Text,
            };
            let parts = multipart::parts_of(body, kind_of)
                .map_err(|e| format!("the body of {}: {e}", route.name))?;
            multipart::encode(&parts)
        }
        (BodyMedia::Raw(_), Value::String(text)) if route.bytes_body() => {
            let bytes = covenant_runtime::Bytes::from_base64(text)
                .map_err(|e| format!("the body of {} (bytes) is {e}", route.name))?;
            (media, bytes.into_vec())
        }
        (BodyMedia::Raw(_), Value::String(text)) => (media, text.clone().into_bytes()),
        (BodyMedia::Json | BodyMedia::JsonAs(_), _) => (media, body.to_string().into_bytes()),
        _ => json(),
    })
}
