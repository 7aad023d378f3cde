//! What every mock of a spec shares, a generated crate's `MockServer` and `covenant mock`
//! alike: keys that stand for auth schemes, gates a test may close, and each endpoint's
//! example answer, derived once from the spec.

use super::AuthError;
use crate::contract::{Gate, Scheme};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use std::collections::HashMap;

/// An endpoint's example: what a mock answers every accepted call.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub status: u16,
    pub has_body: bool,
    /// The body in its JSON form (a raw body's text as a string, bytes as base64); `null`
    /// for a response without a body.
    pub json: &'static str,
    /// The body as sent, where it is not `json`: the text or bytes a raw body holds.
    pub raw: Option<&'static [u8]>,
    /// The body's media type.
    pub content_type: &'static str,
    /// Each declared header with an example value.
    pub headers: &'static [(&'static str, &'static str)],
}

impl Example {
    /// The body as sent; `None` for a response without a body.
    pub fn body(&self) -> Option<&'static [u8]> {
        self.has_body
            .then(|| self.raw.unwrap_or(self.json.as_bytes()))
    }

    /// The status and the body in its JSON form, as a recording or a test compares them.
    pub fn json_body(&self) -> Option<(u16, serde_json::Value)> {
        let body = serde_json::from_str(self.json).ok()?;
        Some((self.status, body))
    }

    /// The example read into a typed response by a generated `from_parts`.
    pub fn read<T>(
        &self,
        read: fn(u16, &http::HeaderMap, &[u8]) -> Result<T, String>,
    ) -> Result<T, String> {
        let headers = crate::headers::map_of(self.headers);
        read(self.status, &headers, self.body().unwrap_or(b"null"))
    }

    /// The example as an HTTP answer, its status and headers parsed once.
    pub fn answer(&self) -> Answer {
        let mut headers = crate::headers::map_of(self.headers);
        if self.has_body {
            let content_type = HeaderValue::from_str(self.content_type)
                .unwrap_or(HeaderValue::from_static("application/octet-stream"));
            headers.insert(header::CONTENT_TYPE, content_type);
        }
        Answer {
            status: StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK),
            headers,
            body: self.body().map(axum::body::Bytes::from_static),
        }
    }
}

/// An example ready to send on every call: cloning it copies no body.
#[derive(Clone, Debug)]
pub struct Answer {
    status: StatusCode,
    headers: http::HeaderMap,
    body: Option<axum::body::Bytes>,
}

impl Answer {
    pub fn response(&self) -> Response {
        let mut response = match &self.body {
            Some(body) => (self.status, body.clone()).into_response(),
            None => self.status.into_response(),
        };
        response.headers_mut().extend(self.headers.clone());
        response
    }
}

/// Which credentials a mock accepts, as which scheme, and which gates are closed.
#[derive(Clone, Debug)]
pub struct MockAccess<S, G> {
    keys: HashMap<String, S>,
    closed_gates: Vec<G>,
}

impl<S, G> Default for MockAccess<S, G> {
    fn default() -> Self {
        MockAccess {
            keys: HashMap::new(),
            closed_gates: Vec::new(),
        }
    }
}

impl<S: Scheme, G: Gate> MockAccess<S, G> {
    /// Accepts `credential` for `scheme`; sent under another scheme it is a key of the wrong
    /// kind (403).
    pub fn insert_key(&mut self, credential: impl Into<String>, scheme: S) {
        self.keys.insert(credential.into(), scheme);
    }

    /// Closes a gate (a feature or plan), so gated endpoints answer 403.
    pub fn close_gate(&mut self, gate: G) {
        self.closed_gates.push(gate);
    }

    /// The principal a credential presented under `scheme` is: the scheme itself.
    pub fn authenticate(&self, scheme: S, credential: &str) -> Result<S, AuthError> {
        match self.keys.get(credential) {
            Some(s) if *s == scheme => Ok(scheme),
            Some(_) => Err(AuthError::WrongKind),
            None => Err(AuthError::Unknown),
        }
    }

    pub fn gate_open(&self, gate: G) -> bool {
        !self.closed_gates.contains(&gate)
    }
}
