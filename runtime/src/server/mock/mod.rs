//! What every mock of a spec shares, a generated crate's `MockServer` and the mock of a spec
//! built at run time alike: keys that stand for auth schemes, gates a test may close, and
//! each endpoint's example answer ([`Example`]), derived once from the spec.

#[cfg(feature = "credentials")]
mod keys;
mod served;

pub use crate::contract::Example;
#[cfg(feature = "credentials")]
pub use keys::keys_for;
pub use served::{Keys, Mock, router};

use super::AuthError;
use crate::contract::{Gate, Scheme};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use std::collections::HashMap;

/// An example ready to send on every call: cloning it copies no body.
#[derive(Clone, Debug)]
pub struct Answer {
    status: StatusCode,
    headers: http::HeaderMap,
    body: Option<axum::body::Bytes>,
    /// Where the body holds `@secret` strings minted afresh for each answer.
    secrets: std::sync::Arc<[String]>,
}

impl Answer {
    /// The example as an HTTP answer, its status and headers parsed once.
    pub fn of(example: &Example<'_>) -> Answer {
        let mut headers = crate::headers::map_of(example.headers);
        if example.has_body {
            let content_type = HeaderValue::from_str(example.content_type)
                .unwrap_or(HeaderValue::from_static("application/octet-stream"));
            headers.insert(header::CONTENT_TYPE, content_type);
        }
        Answer {
            status: StatusCode::from_u16(example.status).unwrap_or(StatusCode::OK),
            headers,
            body: example.body().map(axum::body::Bytes::copy_from_slice),
            secrets: example.secrets.iter().map(|s| s.to_string()).collect(),
        }
    }

    pub fn response(&self) -> Response {
        let mut response = match &self.body {
            Some(body) if !self.secrets.is_empty() => {
                (self.status, self.minted(body)).into_response()
            }
            Some(body) => (self.status, body.clone()).into_response(),
            None => self.status.into_response(),
        };
        response.headers_mut().extend(self.headers.clone());
        response
    }
}

impl Answer {
    /// The body with each `@secret` string minted afresh.
    fn minted(&self, body: &axum::body::Bytes) -> axum::body::Bytes {
        let Ok(mut json) = serde_json::from_slice::<serde_json::Value>(body) else {
            return body.clone();
        };
        for pointer in self.secrets.iter() {
            if let Some(serde_json::Value::String(text)) = json.pointer_mut(pointer) {
                *text = crate::contract::mint(text);
            }
        }
        serde_json::to_vec(&json).map_or_else(|_| body.clone(), Into::into)
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
