//! An endpoint's example answer: what a mock of the spec answers every accepted call,
//! derived once from the spec. A generated crate prints its examples as statics; a mock
//! built at run time holds them in its contract's arena.

/// An endpoint's example: its first success, with a body and headers derived from the spec.
#[derive(Clone, Copy, Debug)]
pub struct Example<'a> {
    pub status: u16,
    pub has_body: bool,
    /// The body in its JSON form (a raw body's text as a string, bytes as base64); `null`
    /// for a response without a body.
    pub json: &'a str,
    /// The body as sent, where it is not `json`: the text or bytes a raw body holds.
    pub raw: Option<&'a [u8]>,
    /// The body's media type.
    pub content_type: &'a str,
    /// Each declared header with an example value.
    pub headers: &'a [(&'a str, &'a str)],
    /// Where the JSON body holds `@secret` strings minted afresh for each answer (JSON
    /// pointers): a mock never hands two callers the same key.
    pub secrets: &'a [&'a str],
}

impl<'a> Example<'a> {
    /// What an endpoint without a declared success would answer: `204`, no body.
    pub const NO_CONTENT: Example<'static> = Example {
        status: 204,
        has_body: false,
        json: "null",
        raw: None,
        content_type: "application/json",
        headers: &[],
        secrets: &[],
    };

    /// The body as written in the example; `None` for a response without a body.
    pub fn body(&self) -> Option<&'a [u8]> {
        self.has_body
            .then(|| self.raw.unwrap_or(self.json.as_bytes()))
    }

    /// The body as one answer sends it: the example, its `@secret` strings minted afresh.
    pub fn minted_body(&self) -> Option<std::borrow::Cow<'a, [u8]>> {
        let body = self.body()?;
        if self.secrets.is_empty() || self.raw.is_some() {
            return Some(std::borrow::Cow::Borrowed(body));
        }
        let Ok(mut json) = serde_json::from_slice::<serde_json::Value>(body) else {
            return Some(std::borrow::Cow::Borrowed(body));
        };
        for pointer in self.secrets {
            if let Some(serde_json::Value::String(text)) = json.pointer_mut(pointer) {
                *text = mint(text);
            }
        }
        Some(std::borrow::Cow::Owned(
            serde_json::to_vec(&json).unwrap_or_else(|_| body.to_vec()),
        ))
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
        let body = self.minted_body();
        read(self.status, &headers, body.as_deref().unwrap_or(b"null"))
    }
}

/// A value of its own for one `@secret` string: the example, `_`, and 128 random bits in
/// hexadecimal (`text_3f9a…`), realistic in length and told apart from any ordinary text.
pub fn mint(example: &str) -> String {
    format!("{example}_{}", uuid::Uuid::new_v4().simple())
}
