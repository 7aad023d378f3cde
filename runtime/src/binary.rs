//! Values that are bytes rather than text: a spec's `bytes` and `file`, and bodies written as
//! they are (`body bytes`, `response 200: string "text/csv"`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A spec's `bytes`: raw as a whole body or a multipart part, base64 text (RFC 4648, padded)
/// where it sits inside JSON, a parameter or a form field.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn into_vec(self) -> Vec<u8> {
        self.0
    }

    /// The base64 text the value travels as inside JSON.
    pub fn to_base64(&self) -> String {
        STANDARD.encode(&self.0)
    }

    pub fn from_base64(text: &str) -> Result<Self, String> {
        STANDARD
            .decode(text)
            .map(Bytes)
            .map_err(|e| format!("not base64: {e}"))
    }
}

impl fmt::Debug for Bytes {
    /// The length and a printable start: a payload may be megabytes of binary.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let start = String::from_utf8_lossy(&self.0[..self.0.len().min(32)]);
        write!(f, "Bytes({} bytes: {start:?})", self.0.len())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Self {
        Bytes(bytes)
    }
}

impl From<&[u8]> for Bytes {
    fn from(bytes: &[u8]) -> Self {
        Bytes(bytes.to_vec())
    }
}

impl From<&str> for Bytes {
    fn from(text: &str) -> Self {
        Bytes(text.as_bytes().to_vec())
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_base64())
    }
}

impl<'de> Deserialize<'de> for Bytes {
    /// Text is base64 (JSON, parameters, form fields); bytes are the value itself (a body
    /// read as it is).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BytesVisitor;
        impl Visitor<'_> for BytesVisitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("base64 text")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Bytes, E> {
                Bytes::from_base64(text).map_err(E::custom)
            }
            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(bytes.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(bytes))
            }
        }
        deserializer.deserialize_any(BytesVisitor)
    }
}

/// A spec's `file`: one file part of a multipart body, with the name and media type its
/// sender gave. Inside JSON (a recorded request, a sample) it is
/// `{"filename": …, "content_type": …, "content": base64}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilePart {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    pub content: Bytes,
}

impl FilePart {
    pub fn new(
        filename: impl Into<String>,
        content_type: impl Into<String>,
        content: impl Into<Bytes>,
    ) -> Self {
        FilePart {
            filename: Some(filename.into()),
            content_type: Some(content_type.into()),
            content: content.into(),
        }
    }
}

/// A body written as it is rather than as JSON: text (`string`) or bytes.
pub trait RawBody: Sized {
    /// Reads a received body; the error says why it does not fit.
    fn from_raw(bytes: &[u8]) -> Result<Self, String>;
    fn into_raw(self) -> Vec<u8>;
}

impl RawBody for String {
    fn from_raw(bytes: &[u8]) -> Result<Self, String> {
        String::from_utf8(bytes.to_vec()).map_err(|e| format!("the body is not UTF-8 text: {e}"))
    }
    fn into_raw(self) -> Vec<u8> {
        self.into_bytes()
    }
}

impl RawBody for Bytes {
    fn from_raw(bytes: &[u8]) -> Result<Self, String> {
        Ok(Bytes(bytes.to_vec()))
    }
    fn into_raw(self) -> Vec<u8> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_base64_inside_json_and_raw_from_bytes() {
        let bytes = Bytes(vec![0, 159, 146, 150]);
        let json = serde_json::to_value(&bytes).unwrap();
        assert_eq!(json, "AJ+Slg==");
        assert_eq!(serde_json::from_value::<Bytes>(json).unwrap(), bytes);
        let err = serde_json::from_str::<Bytes>("\"not base64!\"").unwrap_err();
        assert!(err.to_string().contains("not base64"), "{err}");
        let raw: Result<Bytes, serde::de::value::Error> =
            Bytes::deserialize(serde::de::value::BytesDeserializer::new(&[1, 2]));
        assert_eq!(raw.unwrap(), Bytes(vec![1, 2]));
    }

    #[test]
    fn a_file_part_reads_from_its_json_form() {
        let part: FilePart =
            serde_json::from_str(r#"{"filename": "a.txt", "content": "aGk="}"#).unwrap();
        assert_eq!(part.content, Bytes::from("hi"));
        assert_eq!(part.filename.as_deref(), Some("a.txt"));
        assert!(serde_json::from_str::<FilePart>(r#"{"data": "aGk="}"#).is_err());
    }

    #[test]
    fn a_text_body_must_be_utf8() {
        assert_eq!(String::from_raw(b"caf\xc3\xa9").unwrap(), "café");
        assert!(String::from_raw(b"\xff").unwrap_err().contains("UTF-8"));
    }
}
