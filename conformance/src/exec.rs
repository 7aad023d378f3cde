//! Sending one request over HTTP, retrying transient network errors only, and the curl
//! command that reproduces it with secrets left as shell variables.

use crate::secrets::Redactor;
use std::time::{Duration, Instant};

/// A request with every template filled in.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// What came back.
#[derive(Clone, Debug)]
pub struct Incoming {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub elapsed: Duration,
}

impl Incoming {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Why no response came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportError {
    /// The target took longer than the timeout to answer.
    Timeout(Duration),
    /// No connection could be made (after the retries).
    Connect(String),
    /// The connection broke, or the response was not HTTP.
    Broken(String),
    /// The body is longer than the run accepts (`--max-body`); reading stopped there.
    TooLarge(usize),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Timeout(t) => write!(f, "no response within {} ms", t.as_millis()),
            TransportError::Connect(e) => write!(f, "cannot connect: {e}"),
            TransportError::Broken(e) => write!(f, "the exchange broke off: {e}"),
            TransportError::TooLarge(limit) => write!(
                f,
                "a body of more than {limit} bytes, the most a run reads (--max-body)"
            ),
        }
    }
}

/// Sends `request`; a connection that cannot be made or is reset before an answer is tried
/// again up to `retries` times. A timeout is an answer about the target, never retried.
pub async fn send(
    client: &reqwest::Client,
    request: &Outgoing,
    limits: &Limits,
) -> Result<Incoming, TransportError> {
    let mut attempt = 0;
    loop {
        match send_once(client, request, limits).await {
            Err(e @ (TransportError::Timeout(_) | TransportError::TooLarge(_))) => return Err(e),
            Err(e) if attempt < limits.retries => {
                attempt += 1;
                tracing::debug!("retrying {} {} after: {e}", request.method, request.url);
                tokio::time::sleep(Duration::from_millis(50 << attempt.min(6))).await;
            }
            other => return other,
        }
    }
}

/// How long a run waits, how often it tries again, and how much it reads.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub timeout: Duration,
    pub retries: u32,
    /// The longest response body read, in bytes.
    pub max_body: usize,
}

async fn send_once(
    client: &reqwest::Client,
    request: &Outgoing,
    limits: &Limits,
) -> Result<Incoming, TransportError> {
    let timeout = limits.timeout;
    let method = reqwest::Method::from_bytes(request.method.as_bytes())
        .map_err(|e| TransportError::Broken(e.to_string()))?;
    let mut builder = client.request(method, &request.url).timeout(timeout);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    if let Some(body) = &request.body {
        builder = builder.body(body.clone());
    }
    let started = Instant::now();
    let classify = |e: reqwest::Error| {
        if e.is_timeout() {
            TransportError::Timeout(timeout)
        } else if e.is_connect() {
            TransportError::Connect(root_cause(&e))
        } else {
            TransportError::Broken(root_cause(&e))
        }
    };
    let mut response = builder.send().await.map_err(classify)?;
    let status = response.status().as_u16();
    let headers = header_pairs(response.headers());
    if response
        .content_length()
        .is_some_and(|n| n > limits.max_body as u64)
    {
        return Err(TransportError::TooLarge(limits.max_body));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(classify)? {
        if body.len() + chunk.len() > limits.max_body {
            return Err(TransportError::TooLarge(limits.max_body));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Incoming {
        status,
        headers,
        body,
        elapsed: started.elapsed(),
    })
}

/// Headers as name and text pairs, in order; bytes that are not UTF-8 are replaced.
pub fn header_pairs(headers: &http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// The innermost error's message: "connection refused" rather than reqwest's wrapper.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut current = e;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

/// A shell command that sends the same request. Secret values become shell variables
/// (`$TEAM_API_KEY`), so the command can be pasted after exporting them and leaks nothing.
pub fn curl(request: &Outgoing, secrets: &Redactor) -> String {
    let mut parts = vec!["curl".to_string(), "-sS".to_string(), "-i".to_string()];
    if request.method != "GET" {
        parts.push("-X".into());
        parts.push(request.method.clone());
    }
    parts.push(shell_word(&request.url, secrets));
    for (name, value) in &request.headers {
        parts.push("-H".into());
        parts.push(shell_word(&format!("{name}: {value}"), secrets));
    }
    if let Some(body) = &request.body {
        parts.push("--data-raw".into());
        parts.push(shell_word(&String::from_utf8_lossy(body), secrets));
    }
    parts.join(" ")
}

/// Single-quotes `text`, leaving each secret outside the quotes as a variable.
fn shell_word(text: &str, secrets: &Redactor) -> String {
    let quoted = |piece: &str| format!("'{}'", piece.replace('\'', r"'\''"));
    let mut out = String::with_capacity(text.len() + 2);
    let mut copied = 0;
    for (span, reference) in secrets.find(text) {
        if span.start > copied {
            out.push_str(&quoted(&text[copied..span.start]));
        }
        out.push_str(&format!("\"${}\"", shell_variable(reference)));
        copied = span.end;
    }
    if copied < text.len() || out.is_empty() {
        out.push_str(&quoted(&text[copied..]));
    }
    out
}

/// `{{credentials.team_api_key}}` → `TEAM_API_KEY`; `{{env.TOKEN}}` → `TOKEN`;
/// `[secret:link_token]` → `LINK_TOKEN`.
fn shell_variable(reference: &str) -> String {
    let name = reference
        .trim_start_matches("{{")
        .trim_end_matches("}}")
        .trim_start_matches("[secret:")
        .trim_end_matches(']')
        .trim_start_matches("credentials.")
        .trim_start_matches("env.");
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_keeps_secrets_as_variables() {
        let request = Outgoing {
            method: "POST".into(),
            url: "http://h/v2/user".into(),
            headers: vec![("x-key".into(), "sk_live_123".into())],
            body: Some(b"{\"a\":\"it's\"}".to_vec()),
        };
        let secrets = Redactor::new(vec![(
            "sk_live_123".to_string(),
            "{{credentials.team_api_key}}".to_string(),
        )]);
        let line = curl(&request, &secrets);
        assert_eq!(
            line,
            "curl -sS -i -X POST 'http://h/v2/user' -H 'x-key: '\"$TEAM_API_KEY\" --data-raw '{\"a\":\"it'\\''s\"}'"
        );
        assert!(!line.contains("sk_live_123"));
    }
}
