//! What a generated router needs beyond axum: credentials and their failures, gates, input
//! gathering with every problem reported at once, and JSON bodies on every error.

// The errors here are HTTP responses on their way out to the caller; boxing them would only
// add an allocation to every rejected request.
#![allow(clippy::result_large_err)]

pub use axum;

use crate::desc::{self, AuthDesc, EndpointDesc, GateDesc, Issue, LocPart, Location};
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use tracing::Instrument;

/// Settings of a generated router.
#[derive(Clone, Debug)]
pub struct Config {
    /// Larger request bodies are refused with 413 before they are parsed.
    pub body_limit: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            body_limit: 16 * 1024 * 1024,
        }
    }
}

/// Why a credential was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthError {
    /// Not a credential the service knows: 401.
    Unknown,
    /// A valid credential of another kind (a management key in the team key header): 403.
    WrongKind,
}

/// Who is calling, and which request this is.
#[derive(Clone, Debug)]
pub struct Context<P> {
    pub request_id: String,
    /// The principal of the required credential; `None` only on public endpoints.
    pub principal: Option<P>,
    /// Principals of optional credentials also presented, by scheme name.
    pub also: Vec<(&'static str, P)>,
}

/// A credential found in a request's headers.
#[derive(Debug)]
pub struct Presented {
    pub scheme: &'static AuthDesc,
    /// The scheme to authenticate as: itself, or the scheme it is a second header of.
    pub authenticate_as: &'static str,
    pub credential: String,
    pub required: bool,
}

/// The credentials a request presents for an endpoint, or the 401 for a missing one.
pub fn presented_credentials(
    endpoint: &EndpointDesc,
    headers: &HeaderMap,
) -> Result<Vec<Presented>, Response> {
    let read = |scheme: &'static AuthDesc, required: bool| {
        let value = headers.get(scheme.header)?.to_str().ok()?.trim();
        (!value.is_empty()).then(|| Presented {
            scheme,
            authenticate_as: scheme.same_as.unwrap_or(scheme.name),
            credential: value.to_string(),
            required,
        })
    };
    let mut out = Vec::new();
    if !endpoint.public {
        match endpoint.auth_any_of.iter().find_map(|s| read(s, true)) {
            Some(p) => out.push(p),
            None => {
                let headers: Vec<&str> = endpoint.auth_any_of.iter().map(|s| s.header).collect();
                let detail = format!(
                    "Missing credentials: send the {} header",
                    headers.join(" or ")
                );
                return Err(error(StatusCode::UNAUTHORIZED, detail));
            }
        }
    }
    out.extend(endpoint.auth_optional.iter().filter_map(|s| read(s, false)));
    Ok(out)
}

/// The response to a refused credential.
pub fn auth_failure(presented: &Presented, e: AuthError) -> Response {
    let header = presented.scheme.header;
    match e {
        AuthError::Unknown => error(
            StatusCode::UNAUTHORIZED,
            format!("Invalid credentials in the {header} header"),
        ),
        AuthError::WrongKind => error(
            StatusCode::FORBIDDEN,
            format!(
                "The credential in the {header} header is of another kind and is not accepted here"
            ),
        ),
    }
}

/// The response to a call the team's plan or features do not allow.
pub fn gate_closed(gate: &GateDesc) -> Response {
    let detail = match gate {
        GateDesc::Feature(f) => format!("{f} is not enabled for this team"),
        GateDesc::Plan(p) => format!("This endpoint is available on the {p} plan only"),
    };
    error(StatusCode::FORBIDDEN, detail)
}

/// Gathers every input of a request into `{param: value, …, "body": value}`, coerced from
/// text and checked against the endpoint's descriptors. Any problem, however many, is one
/// 422 naming them all; a body over the limit is 413.
pub async fn read_inputs(
    endpoint: &EndpointDesc,
    path_params: &[(String, String)],
    request: Request,
    config: &Config,
) -> Result<Map<String, Value>, Response> {
    let (parts, body) = request.into_parts();
    let mut inputs = Map::new();
    let mut issues = Vec::new();
    let query: Vec<(String, String)> = parts
        .uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    for p in endpoint.params {
        let raws: Vec<&str> = match p.location {
            Location::Path => path_params
                .iter()
                .filter(|(k, _)| k == p.field.name)
                .map(|(_, v)| v.as_str())
                .collect(),
            Location::Query => query
                .iter()
                .filter(|(k, _)| k == p.field.name)
                .map(|(_, v)| v.as_str())
                .collect(),
            Location::Header => parts
                .headers
                .get_all(p.field.name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect(),
        };
        if raws.is_empty() {
            continue;
        }
        let loc = [
            LocPart::from(p.location.as_str()),
            LocPart::from(p.field.name),
        ];
        match desc::coerce_param(&p.field.ty, &raws, &loc) {
            Ok(v) => drop(inputs.insert(p.field.name.to_string(), v)),
            Err(issue) => issues.push(issue),
        }
    }
    let mut body_present = false;
    if endpoint.body.is_some() {
        let bytes = read_body(&parts.headers, body, config.body_limit).await?;
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            body_present = true;
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => drop(inputs.insert("body".to_string(), v)),
                Err(e) => issues.push(json_error(&bytes, &e)),
            }
        }
    }
    // A body that does not parse has been reported; do not also call it missing.
    let parse_failed = issues.iter().any(|i| i.kind == "json_invalid");
    let checked = desc::check_inputs(endpoint, &inputs, body_present || parse_failed);
    issues.extend(
        checked
            .into_iter()
            .filter(|i| !(parse_failed && i.loc == [LocPart::from("body")])),
    );
    if issues.is_empty() {
        Ok(inputs)
    } else {
        Err(validation_error(issues))
    }
}

async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, Response> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large(limit));
    }
    axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| too_large(limit))
}

fn too_large(limit: usize) -> Response {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Request body is larger than {limit} bytes"),
    )
}

/// A JSON syntax error, located by line, column and character offset.
fn json_error(bytes: &[u8], e: &serde_json::Error) -> Issue {
    let text = String::from_utf8_lossy(bytes);
    let offset: usize = text
        .lines()
        .take(e.line().saturating_sub(1))
        .map(|l| l.chars().count() + 1)
        .sum::<usize>()
        + e.column().saturating_sub(1);
    Issue {
        loc: vec![LocPart::from("body"), LocPart::Index(offset)],
        msg: format!("JSON decode error: {e}"),
        kind: "json_invalid".to_string(),
    }
}

/// `{"detail": …}` with a status: the shape of every error the service returns.
pub fn error(status: StatusCode, detail: impl Serialize) -> Response {
    json(status, &json!({ "detail": detail }))
}

/// 422 with one item per problem.
pub fn validation_error(issues: Vec<Issue>) -> Response {
    error(StatusCode::UNPROCESSABLE_ENTITY, issues)
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

/// A response of a declared status: its JSON body, or no body for `null`.
pub fn respond(status: u16, body: Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if body.is_null() && status.is_success() {
        return status.into_response();
    }
    json(status, &body)
}

/// For inputs that passed the descriptors but not serde (a bug in one of them): still a 422.
pub fn input_mismatch(e: serde_json::Error) -> Response {
    validation_error(vec![Issue::new(
        &[LocPart::from("body")],
        "value_error",
        e.to_string(),
    )])
}

/// Fallback for unknown routes.
pub async fn not_found(request: Request) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("No route for {} {}", request.method(), request.uri().path()),
    )
}

/// Fallback for a known path with a method it does not serve.
pub async fn method_not_allowed(request: Request) -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "Method {} is not allowed on {}",
            request.method(),
            request.uri().path()
        ),
    )
}

/// The id of the request being served.
#[derive(Clone, Debug)]
pub struct RequestId(pub String);

/// Middleware: gives each request an id (the caller's `x-request-id` when it is sane), runs
/// it in a tracing span carrying that id, and echoes the id on the response.
pub async fn request_context(mut request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(next_request_id);
    let span = tracing::info_span!("request", method = %request.method(), path = %request.uri().path(), request_id = %id);
    request.extensions_mut().insert(RequestId(id.clone()));
    let mut response = next.run(request).instrument(span).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
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

/// The request id a middleware stored, or a fresh one when the router runs without it.
pub fn request_id(parts: &axum::http::request::Parts) -> String {
    parts
        .extensions
        .get::<RequestId>()
        .map(|r| r.0.clone())
        .unwrap_or_else(next_request_id)
}

/// The matched path's parameters, or a JSON 400 when they are not valid UTF-8.
pub fn path_pairs(
    params: Result<axum::extract::RawPathParams, axum::extract::rejection::RawPathParamsRejection>,
) -> Result<Vec<(String, String)>, Response> {
    match params {
        Ok(params) => Ok(params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()),
        Err(e) => Err(error(StatusCode::BAD_REQUEST, format!("Invalid path: {e}"))),
    }
}
