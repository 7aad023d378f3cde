//! The headers a spec declares on a response (`Location`, `ETag`, rate-limit headers, `Link`):
//! read from a header map into the generated headers struct, and written from it. Each value
//! is text; numbers, booleans and enums parse from it as the struct's field asks.

use crate::text_de::Text;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde::de::value::{Error as DeError, MapDeserializer};
use serde_json::Value;

/// A generated headers struct: its fields are renamed to the header names.
pub trait Headers: Serialize + DeserializeOwned {
    /// The header names the spec declares, as it writes them.
    const NAMES: &'static [&'static str];
}

/// Reads the declared headers out of `map` (names compare without case); an absent optional
/// header is `None`, and a header sent on several lines reads as their values joined by
/// commas. The error names what did not fit.
pub fn read<H: Headers>(map: &HeaderMap) -> Result<H, String> {
    // Several field lines of one header are one list (RFC 9110 §5.3): `Link` may come so.
    let present: Vec<(&'static str, [String; 1])> = H::NAMES
        .iter()
        .filter_map(|name| {
            let values: Vec<&str> = map
                .get_all(*name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect();
            (!values.is_empty()).then(|| (*name, [values.join(", ")]))
        })
        .collect();
    let texts: Vec<(&'static str, [&str; 1])> = present
        .iter()
        .map(|(name, [value])| (*name, [value.as_str()]))
        .collect();
    let entries = texts.iter().map(|(name, value)| (*name, Text(value)));
    H::deserialize(MapDeserializer::<_, DeError>::new(entries))
        .map_err(|e| format!("response headers: {e}"))
}

/// The headers to write: each present field as text. The error names a value that is no
/// valid header text (a line break, say), which a server must not send.
pub fn write<H: Headers>(headers: &H) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
    let Value::Object(fields) = serde_json::to_value(headers).map_err(|e| e.to_string())? else {
        return Err("response headers do not serialize to fields".to_string());
    };
    let mut out = Vec::with_capacity(fields.len());
    for (name, value) in fields {
        if value.is_null() {
            continue;
        }
        let text = crate::text::plain(&value);
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is no header name"))?;
        let value = HeaderValue::from_str(&text)
            .map_err(|_| format!("the {name} header's value {text:?} is not valid header text"))?;
        out.push((header, value));
    }
    Ok(out)
}

/// A header map of these pairs, skipping any that is not valid header text: for examples
/// written into generated code.
pub fn map_of(pairs: &[(&str, &str)]) -> HeaderMap {
    pairs
        .iter()
        .filter_map(|(name, value)| {
            let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
            Some((name, HeaderValue::from_str(value).ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Created {
        #[serde(rename = "Location")]
        location: String,
        #[serde(rename = "X-RateLimit-Remaining")]
        remaining: i64,
        #[serde(rename = "ETag", default, skip_serializing_if = "Option::is_none")]
        etag: Option<String>,
    }

    impl Headers for Created {
        const NAMES: &'static [&'static str] = &["Location", "X-RateLimit-Remaining", "ETag"];
    }

    #[test]
    fn headers_round_trip_through_a_header_map_whatever_the_case() {
        let sent = Created {
            location: "/pets/7".into(),
            remaining: 42,
            etag: None,
        };
        let map: HeaderMap = write(&sent).unwrap().into_iter().collect();
        assert_eq!(map.get("x-ratelimit-remaining").unwrap(), "42");
        assert!(map.get("etag").is_none(), "an absent header is not written");
        assert_eq!(read::<Created>(&map).unwrap(), sent);
    }

    #[test]
    fn a_missing_or_mistyped_header_is_named() {
        let missing = read::<Created>(&map_of(&[("X-RateLimit-Remaining", "1")])).unwrap_err();
        assert!(missing.contains("Location"), "{missing}");
        let map = map_of(&[("location", "/a"), ("x-ratelimit-remaining", "many")]);
        let mistyped = read::<Created>(&map).unwrap_err();
        assert!(mistyped.contains("many"), "{mistyped}");
    }

    #[test]
    fn a_value_that_is_no_header_text_is_refused() {
        let bad = Created {
            location: "/a\r\nSet-Cookie: x".into(),
            remaining: 0,
            etag: None,
        };
        assert!(write(&bad).unwrap_err().contains("Location"));
    }
}
