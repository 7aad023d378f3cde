//! The recording proxy: forwards every request to the upstream implementation, answers
//! with its response, and rewrites the session's cassette after each exchange, so stopping
//! the proxy (or a crash) loses nothing recorded.

use super::{Recorded, Recorder, Summary, cassette_text, split_url};
use crate::contract::Contract;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What one recording session needs.
pub struct Session {
    pub contract: Arc<Contract>,
    pub upstream: String,
    pub secrets: Vec<(String, String)>,
    /// The cassette file written after each exchange.
    pub out: PathBuf,
    pub scenario_id: String,
}

struct Shared {
    session: Session,
    client: reqwest::Client,
    recorded: Mutex<Vec<Recorded>>,
}

/// What a session has recorded so far, for the summary printed when it stops.
pub struct Handle(Arc<Shared>);

impl Handle {
    /// How many exchanges the cassette holds, how many were left out, and the warnings.
    pub fn summary(&self) -> Summary {
        let shared = &self.0;
        let all = shared.recorded.lock().unwrap_or_else(|e| e.into_inner());
        let recorder = Recorder::new(&shared.session.contract, shared.session.secrets.clone());
        let (scenario, warnings) =
            recorder.scenario(&shared.session.scenario_id, "Recorded traffic", &all);
        Summary::of(all.len(), &scenario, warnings)
    }
}

/// The proxy's router, and a handle on what it records.
pub fn router(session: Session) -> (axum::Router, Handle) {
    let shared = Arc::new(Shared {
        session,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client with no TLS configuration builds"),
        recorded: Mutex::new(Vec::new()),
    });
    let handle = Handle(shared.clone());
    (
        axum::Router::new().fallback(forward).with_state(shared),
        handle,
    )
}

/// The largest request body forwarded.
const BODY_LIMIT: usize = 64 * 1024 * 1024;

async fn forward(State(shared): State<Arc<Shared>>, request: Request<Body>) -> Response<Body> {
    match exchange(&shared, request).await {
        Ok(response) => response,
        Err(problem) => {
            let body = serde_json::json!({ "detail": format!("record: {problem}") }).to_string();
            let mut response = Response::new(Body::from(body));
            *response.status_mut() = StatusCode::BAD_GATEWAY;
            response
                .headers_mut()
                .insert("content-type", HeaderValue::from_static("application/json"));
            response
        }
    }
}

async fn exchange(shared: &Shared, request: Request<Body>) -> Result<Response<Body>, String> {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, BODY_LIMIT)
        .await
        .map_err(|e| format!("cannot read the request body: {e}"))?;
    let upstream = shared.session.upstream.trim_end_matches('/');
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("{upstream}{path_and_query}");
    let method =
        reqwest::Method::from_bytes(parts.method.as_str().as_bytes()).map_err(|e| e.to_string())?;
    let mut outgoing = shared.client.request(method, &url).body(body.to_vec());
    let mut headers = Vec::new();
    for (name, value) in &parts.headers {
        if name == "host" || name == "content-length" {
            continue;
        }
        outgoing = outgoing.header(name.as_str(), value.as_bytes());
        headers.push((
            name.as_str().to_string(),
            String::from_utf8_lossy(value.as_bytes()).into_owned(),
        ));
    }
    let answer = outgoing
        .send()
        .await
        .map_err(|e| format!("the upstream {upstream} did not answer: {e}"))?;
    let status = answer.status().as_u16();
    let response_headers = crate::exec::header_pairs(answer.headers());
    let response_body = answer
        .bytes()
        .await
        .map_err(|e| format!("the upstream's body broke off: {e}"))?
        .to_vec();
    let (path, query) = split_url(&url, base_path(upstream)).unwrap_or_default();
    record(
        shared,
        Recorded {
            method: parts.method.as_str().to_string(),
            path,
            query,
            headers,
            body: body.to_vec(),
            status,
            response_headers: response_headers.clone(),
            response_body: response_body.clone(),
        },
    );
    let mut response = Response::new(Body::from(response_body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    for (name, value) in response_headers {
        if name == "content-length" || name == "transfer-encoding" || name == "connection" {
            continue;
        }
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            response.headers_mut().append(n, v);
        }
    }
    Ok(response)
}

/// The path part of the upstream URL, which recorded paths do not include.
fn base_path(upstream: &str) -> &str {
    let after_scheme = upstream.split_once("://").map_or(upstream, |(_, r)| r);
    after_scheme.find('/').map_or("", |i| &after_scheme[i..])
}

/// Adds the exchange and rewrites the cassette whole (a reader never sees half of it).
fn record(shared: &Shared, recorded: Recorded) {
    let session = &shared.session;
    if session
        .contract
        .route_for(&recorded.method, &recorded.path)
        .is_none()
    {
        eprintln!(
            "record: {} {}: no endpoint of the spec; forwarded, not recorded",
            recorded.method, recorded.path
        );
    }
    let mut all = shared.recorded.lock().unwrap_or_else(|e| e.into_inner());
    all.push(recorded);
    let recorder = Recorder::new(&session.contract, session.secrets.clone());
    let (scenario, _) = recorder.scenario(&session.scenario_id, "Recorded traffic", &all);
    if let Err(e) = super::write_cassette(&session.out, &cassette_text(&scenario)) {
        tracing::error!("cannot write {}: {e}", session.out.display());
    }
}
