//! What a generated router needs beyond axum: the request pipeline (credentials, gates, typed
//! inputs with every problem reported at once), and JSON bodies on every error.

// The errors here are HTTP responses on their way out to the caller; boxing them would only
// add an allocation to every rejected request.
#![allow(clippy::result_large_err)]

pub use axum;

mod credentials;
pub mod idempotency;
mod input;
mod lifecycle;
mod limits;
pub mod mock;
mod pipeline;
mod rejection;
mod spawn;
pub mod transport;

pub use lifecycle::{listen, shutdown_signal};
pub use limits::{RequestLimits, guarded};
pub use pipeline::{ContextOf, PathParams, Served, Service, serve, serve_described};
pub use rejection::{Rejection, RejectionShape};
pub use spawn::{Spawned, spawn, spawn_on};

use crate::issue::Issue;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

/// Settings of a generated router.
#[derive(Clone, Debug)]
pub struct Config {
    /// Larger request bodies are refused with 413 before they are parsed.
    pub body_limit: usize,
    /// How the router writes the errors it answers itself. A generated router sets the
    /// spec's shape unless this one was changed from the default.
    pub rejections: RejectionShape,
    /// Where answers to requests with an idempotency key are kept, for endpoints that take
    /// one. In memory by default: shared by the routers built from clones of this config.
    pub idempotency: std::sync::Arc<dyn idempotency::IdempotencyStore>,
    /// Caps on a request's head and time, refused before routing.
    pub limits: RequestLimits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            body_limit: 16 * 1024 * 1024,
            rejections: RejectionShape::default(),
            idempotency: std::sync::Arc::new(idempotency::MemoryIdempotency::default()),
            limits: RequestLimits::default(),
        }
    }
}

impl Config {
    /// The spec's rejection shape, unless another than the default was configured: a
    /// generated router calls this with its API's template.
    pub fn with_spec_rejections(mut self, template: &str) -> Self {
        if self.rejections.is_default() {
            self.rejections = RejectionShape::from_spec(template);
        }
        self
    }

    /// The configuration one endpoint's requests are refused with: in its own `rejections`
    /// when the spec gives it some and the server configured no shape of its own.
    pub fn for_endpoint(&self, rejections: Option<&str>) -> Option<Config> {
        let template = rejections?;
        (self.rejections.is_default() || self.rejections.is_from_spec()).then(|| Config {
            rejections: RejectionShape::from_spec(template),
            ..self.clone()
        })
    }

    /// A rejection with this status and message, in the configured shape.
    pub fn reject(&self, status: StatusCode, message: &str) -> Response {
        json(
            status,
            &self.rejections.body(status.as_u16(), message, None),
        )
    }

    /// 422 naming every problem (the first [`crate::issue::MAX_LISTED`], and how many more),
    /// in the configured shape.
    pub fn reject_input(&self, issues: &[Issue]) -> Response {
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        let listed = crate::issue::listed(issues);
        let body = self.rejections.body(status.as_u16(), "", Some(&listed));
        json(status, &body)
    }

    /// 503 in the configured shape (the router's guard adds `Retry-After`).
    pub fn unavailable(&self, message: &str) -> Response {
        self.reject(StatusCode::SERVICE_UNAVAILABLE, message)
    }
}

/// Answers unknown routes (404) and known paths with another method (405) in `shape`.
pub fn with_fallbacks<S: Clone + Send + Sync + 'static>(
    router: axum::Router<S>,
    shape: &RejectionShape,
) -> axum::Router<S> {
    let (for_404, for_405) = (shape.clone(), shape.clone());
    router
        .fallback(move |request: Request| {
            let shape = for_404.clone();
            async move { no_route(&shape, request) }
        })
        .method_not_allowed_fallback(move |request: Request| {
            let shape = for_405.clone();
            async move { wrong_method(&shape, request) }
        })
}

fn no_route(shape: &RejectionShape, request: Request) -> Response {
    let detail = format!("No route for {} {}", request.method(), request.uri().path());
    outside_pipeline(shape, &request, StatusCode::NOT_FOUND, &detail)
}

fn wrong_method(shape: &RejectionShape, request: Request) -> Response {
    let detail = format!(
        "Method {} is not allowed on {}",
        request.method(),
        request.uri().path()
    );
    outside_pipeline(shape, &request, StatusCode::METHOD_NOT_ALLOWED, &detail)
}

/// A rejection of a request no endpoint took, with its request id echoed.
fn outside_pipeline(
    shape: &RejectionShape,
    request: &Request,
    status: StatusCode,
    detail: &str,
) -> Response {
    let body = shape.body(status.as_u16(), detail, None);
    with_request_id(request.headers(), json(status, &body))
}

/// Why a credential was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthError {
    /// Not a credential the service knows: 401.
    Unknown,
    /// A valid credential of another kind (a management key in the team key header): 403.
    WrongKind,
    /// The service cannot check credentials now (its database is down or busy): 503.
    Unavailable,
    /// Checking the credential met a fault of the service (stored data it cannot read): 500,
    /// which a retry will not mend.
    Fault,
}

/// The service cannot answer now (its database is down or busy); the caller should retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unavailable;

/// Seconds a caller is asked to wait before retrying a 503.
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// Asks the caller to come back later on a 503: the one place `Retry-After` is decided, for
/// every answer of a generated router (its guard, [`guarded`], passes each through here,
/// whoever wrote it: the pipeline, the implementation, a timeout) and the transport's own.
pub fn ask_to_retry(status: StatusCode, headers: &mut http::HeaderMap) {
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers
            .entry(header::RETRY_AFTER)
            .or_insert(HeaderValue::from(RETRY_AFTER_SECONDS));
    }
}

/// Who is calling, and which request this is. The router holds the caller of any kind
/// (`P` is `Option<C>`); the generated code hands each method the principal type of the
/// schemes its endpoint accepts ([`Context::narrow`]).
#[derive(Clone, Debug)]
pub struct Context<P, A, C> {
    pub request_id: String,
    /// The principal of the required credential (`()` on public endpoints).
    pub principal: P,
    /// Callers of the credentials sent with the required one (`auth a & b`) and of
    /// optional ones presented, by scheme.
    pub also: Vec<(A, C)>,
}

impl<P, A: PartialEq, C> Context<P, A, C> {
    /// The caller of a credential of `scheme` sent with the required one, or of an optional
    /// one, when one was presented.
    pub fn also_as(&self, scheme: A) -> Option<&C> {
        self.also.iter().find(|(s, _)| *s == scheme).map(|(_, c)| c)
    }

    /// The same context with the principal the endpoint takes. `None` from `narrow` (a
    /// caller of a kind the endpoint does not accept, which authentication never lets
    /// through) is a fault of the server, answered 500 rather than trusted.
    pub fn narrow<Q>(
        self,
        narrow: impl FnOnce(P) -> Option<Q>,
    ) -> Result<Context<Q, A, C>, Rejection> {
        let Context {
            request_id,
            principal,
            also,
        } = self;
        match narrow(principal) {
            Some(principal) => Ok(Context {
                request_id,
                principal,
                also,
            }),
            None => Err(Rejection::fault(
                "the caller's principal is of a kind this endpoint does not accept",
            )),
        }
    }
}

/// `{"detail": …}` with a status: the shape of every error the service returns.
pub fn error(status: StatusCode, detail: impl Serialize) -> Response {
    json(status, &json!({ "detail": detail }))
}

pub fn json<T: Serialize + ?Sized>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            bytes,
        )
            .into_response(),
        Err(e) => error_text(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("response did not serialize: {e}"),
        ),
    }
}

/// A JSON body with a status the spec declares.
pub fn json_status<T: Serialize + ?Sized>(status: u16, body: &T) -> Response {
    json(
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        body,
    )
}

fn error_text(status: StatusCode, detail: &str) -> Response {
    let body = format!("{{\"detail\":{}}}", Value::String(detail.to_string()));
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// `response` with the headers the spec declares on it. A value that is no valid header
/// text answers 500 rather than a response missing a declared header.
pub fn with_headers<H: crate::headers::Headers>(mut response: Response, headers: &H) -> Response {
    match crate::headers::write(headers) {
        Ok(pairs) => {
            response.headers_mut().extend(pairs);
            response
        }
        Err(e) => {
            tracing::error!(error = %e, "a response header could not be written");
            error_text(StatusCode::INTERNAL_SERVER_ERROR, &e)
        }
    }
}

/// A response whose body is written as it is (text or bytes), of the media type declared.
pub fn raw_status<B: crate::binary::RawBody>(
    status: u16,
    content_type: &'static str,
    body: B,
) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match HeaderValue::from_str(content_type) {
        Ok(media) => (status, [(header::CONTENT_TYPE, media)], body.into_raw()).into_response(),
        Err(_) => error_text(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("media type {content_type:?} is no header text"),
        ),
    }
}

/// A response whose list is written item by item as a stream of the media type declared
/// (server-sent events, JSON lines).
pub fn stream_status<T: Serialize>(
    status: u16,
    content_type: &'static str,
    items: &[T],
) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let values: Result<Vec<Value>, _> = items.iter().map(serde_json::to_value).collect();
    let (Ok(values), Ok(media)) = (values, HeaderValue::from_str(content_type)) else {
        return error_text(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the answer's items could not be written",
        );
    };
    let body = crate::streams::write_items(content_type, &values);
    (status, [(header::CONTENT_TYPE, media)], body).into_response()
}

/// A response of a declared status without a body.
/// The status a handler gave a response declared for a whole class (`4XX`); one outside the
/// class is a fault of the handler, answered as a 500.
pub fn status_in_class(class: u8, status: u16) -> u16 {
    held_status(
        status / 100 == u16::from(class),
        status,
        &format!("{class}XX"),
    )
}

/// The status a handler gave an error declared as `default`; one that is no error status is a
/// fault of the handler, answered as a 500.
pub fn error_status(status: u16) -> u16 {
    held_status((400..=599).contains(&status), status, "`default`")
}

fn held_status(fits: bool, status: u16, declared: &str) -> u16 {
    if fits {
        status
    } else {
        tracing::error!(
            status,
            "a response declared for {declared} was given status {status}"
        );
        500
    }
}

pub fn empty(status: u16) -> Response {
    StatusCode::from_u16(status)
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
        .into_response()
}

/// Fallback for unknown routes, in the default shape ([`with_fallbacks`] takes a spec's).
pub async fn not_found(request: Request) -> Response {
    no_route(&RejectionShape::default(), request)
}

/// Fallback for a known path with a method it does not serve, in the default shape.
pub async fn method_not_allowed(request: Request) -> Response {
    wrong_method(&RejectionShape::default(), request)
}

/// The id of a request: the caller's `x-request-id` when it is sane, else a fresh one.
pub fn request_id(headers: &HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(next_request_id)
}

/// Echoes the request's id on a response the pipeline did not serve.
fn with_request_id(headers: &HeaderMap, mut response: Response) -> Response {
    if let Ok(value) = HeaderValue::from_str(&request_id(headers)) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}

/// A process-unique id: a random prefix fixed at start, then a counter. Cheaper than a
/// random id per request, and as unique within a process's logs.
fn next_request_id() -> String {
    static PREFIX: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| uuid::Uuid::new_v4().simple().to_string()[..12].to_string());
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}-{:08x}",
        *PREFIX,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(principal: Option<&'static str>) -> Context<Option<&'static str>, u8, &'static str> {
        Context {
            request_id: "r1".to_string(),
            principal,
            also: vec![(2, "secret")],
        }
    }

    #[test]
    fn narrowing_keeps_the_request_and_the_credentials_beside_it() {
        let narrowed = context(Some("team-1"))
            .narrow(|p| p.map(str::len))
            .expect("a team is a team");
        assert_eq!(narrowed.principal, 6);
        assert_eq!(narrowed.request_id, "r1");
        assert_eq!(narrowed.also_as(2), Some(&"secret"));
        assert_eq!(narrowed.also_as(3), None);
    }

    /// A principal of a kind the endpoint does not take is the server's fault, not a caller
    /// let through.
    #[test]
    fn a_principal_of_another_kind_is_a_fault() {
        let refused = context(None)
            .narrow(|p: Option<&str>| p.map(str::len))
            .expect_err("no principal of the endpoint's kind");
        assert_eq!(refused.status(), 500);
    }
}
