//! Reading a HAR file (browser developer tools, Schemathesis' `--report har`, mitmproxy)
//! into recordings.

use super::{Recorded, split_url};
use base64::Engine;
use serde::Deserialize;

#[derive(Deserialize)]
struct Har {
    log: Log,
}

#[derive(Deserialize)]
struct Log {
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    request: HarRequest,
    response: HarResponse,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HarRequest {
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default)]
    post_data: Option<PostData>,
}

#[derive(Deserialize)]
struct PostData {
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct HarResponse {
    status: u16,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default)]
    content: Option<Content>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
}

#[derive(Deserialize)]
struct Header {
    name: String,
    value: String,
}

/// The HAR's entries in order; `base_path` is removed from each URL's path. Errors name the
/// line and column of the HAR text.
pub fn read(text: &str, base_path: &str) -> Result<Vec<Recorded>, String> {
    let har: Har = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_string();
        format!("{}:{}: {message}", e.line(), e.column())
    })?;
    let mut out = Vec::new();
    for (i, entry) in har.log.entries.into_iter().enumerate() {
        let (path, query) = split_url(&entry.request.url, base_path)
            .ok_or_else(|| format!("entry {}: `{}` is not a URL", i + 1, entry.request.url))?;
        let response_body = match entry.response.content {
            Some(Content {
                text: Some(text),
                encoding: Some(enc),
            }) if enc == "base64" => base64::engine::general_purpose::STANDARD
                .decode(text.trim())
                .map_err(|e| format!("entry {}: response body is not base64: {e}", i + 1))?,
            Some(Content {
                text: Some(text), ..
            }) => text.into_bytes(),
            _ => Vec::new(),
        };
        out.push(Recorded {
            method: entry.request.method.to_ascii_uppercase(),
            path,
            query,
            headers: pairs(entry.request.headers),
            body: entry
                .request
                .post_data
                .and_then(|p| p.text)
                .unwrap_or_default()
                .into_bytes(),
            status: entry.response.status,
            response_headers: pairs(entry.response.headers),
            response_body,
        });
    }
    Ok(out)
}

/// Header pairs without HTTP/2 pseudo-headers (`:authority`), which HAR files often hold.
fn pairs(headers: Vec<Header>) -> Vec<(String, String)> {
    headers
        .into_iter()
        .filter(|h| !h.name.starts_with(':'))
        .map(|h| (h.name, h.value))
        .collect()
}
