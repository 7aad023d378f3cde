//! What a router refuses before routing, in the API's error shape: URIs and header sections
//! too large to be a real client's, and requests that take too long. The transport under it
//! ([`super::transport`]) reads heads larger than these caps, so that these answers, not its
//! own empty ones, are what a client sees.

use super::{Config, RejectionShape, ask_to_retry, with_request_id};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;
use std::time::Duration;

/// Caps on a request's head and its time.
#[derive(Clone, Debug)]
pub struct RequestLimits {
    /// The longest request target (path and query) answered; 414 beyond.
    pub max_uri_bytes: usize,
    /// The most bytes of header names and values together; 431 beyond.
    pub max_header_bytes: usize,
    /// The most header lines; 431 beyond.
    pub max_header_lines: usize,
    /// The longest a request may take, reading its body included; 503 beyond. Work the
    /// handler committed before the limit stays committed: a client that retries should send
    /// an idempotency key where the endpoint takes one.
    pub request_timeout: Duration,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits {
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 64 * 1024,
            max_header_lines: 100,
            request_timeout: Duration::from_secs(60),
        }
    }
}

struct Guard {
    limits: RequestLimits,
    shape: RejectionShape,
}

/// `router` behind the limits of `config`, refusing in its rejection shape.
pub fn guarded(router: axum::Router, config: &Config) -> axum::Router {
    let guard = Arc::new(Guard {
        limits: config.limits.clone(),
        shape: config.rejections.clone(),
    });
    router.layer(axum::middleware::from_fn_with_state(guard, guard_request))
}

async fn guard_request(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if let Some((status, detail)) = head_too_large(&guard.limits, &request) {
        let body = guard.shape.body(status.as_u16(), &detail, None);
        return with_request_id(request.headers(), super::json(status, &body));
    }
    // Only the request id outlives the request, for the answer to a timeout: copying every
    // header of every request would be work on the hot path for the rare case.
    let request_id = request.headers().get("x-request-id").cloned();
    let timeout = guard.limits.request_timeout;
    let mut response = match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            let status = StatusCode::SERVICE_UNAVAILABLE;
            let detail = format!(
                "The request did not finish within {} seconds",
                timeout.as_secs_f64()
            );
            tracing::warn!(timeout_secs = timeout.as_secs_f64(), "request timed out");
            let body = guard.shape.body(status.as_u16(), &detail, None);
            let mut headers = axum::http::HeaderMap::new();
            if let Some(id) = request_id {
                headers.insert("x-request-id", id);
            }
            with_request_id(&headers, super::json(status, &body))
        }
    };
    ask_to_retry(response.status(), response.headers_mut());
    response
}

fn head_too_large(limits: &RequestLimits, request: &Request) -> Option<(StatusCode, String)> {
    let uri = request
        .uri()
        .path_and_query()
        .map_or(0, |target| target.as_str().len());
    if uri > limits.max_uri_bytes {
        let detail = format!(
            "The request URI is {uri} bytes long; at most {} are accepted",
            limits.max_uri_bytes
        );
        return Some((StatusCode::URI_TOO_LONG, detail));
    }
    let headers = request.headers();
    if headers.len() > limits.max_header_lines {
        let detail = format!(
            "The request has {} header lines; at most {} are accepted",
            headers.len(),
            limits.max_header_lines
        );
        return Some((StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, detail));
    }
    let bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if bytes > limits.max_header_bytes {
        let detail = format!(
            "The request's headers are {bytes} bytes; at most {} are accepted",
            limits.max_header_bytes
        );
        return Some((StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, detail));
    }
    None
}
