//! A tap between a client and a server: forwards every request as it is and keeps what
//! went by, raw, so a test can look for what must never be written down. It may also break
//! answers on purpose, so the failure paths of a report are exercised.

use covenant_runtime::server::axum;
use std::sync::{Arc, Mutex};

/// One exchange as it crossed the tap.
#[derive(Clone, Debug)]
pub struct Seen {
    pub request_headers: Vec<(String, String)>,
    pub request_body: Vec<u8>,
    pub response_body: Vec<u8>,
}

pub struct Tap {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    _runtime: tokio::runtime::Runtime,
}

/// How the tap treats answers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    AsTheyAre,
    /// A success whose body holds any of these keys comes back as 299, a status no spec
    /// declares, so the runner reports it with its body.
    BreakThoseHolding(&'static [&'static str]),
}

struct Shared {
    upstream: String,
    client: reqwest::Client,
    answers: Answers,
    seen: Arc<Mutex<Vec<Seen>>>,
}

pub fn start(upstream: &str, answers: Answers) -> Tap {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let shared = Arc::new(Shared {
        upstream: upstream.trim_end_matches('/').to_string(),
        client: reqwest::Client::new(),
        answers,
        seen: seen.clone(),
    });
    let url = runtime.block_on(async {
        let router = axum::Router::new().fallback(forward).with_state(shared);
        let spawned = covenant_runtime::server::spawn(router).await.unwrap();
        spawned.detach()
    });
    Tap {
        url,
        seen,
        _runtime: runtime,
    }
}

async fn forward(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
    request: axum::http::Request<axum::body::Body>,
) -> axum::http::Response<axum::body::Body> {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut outgoing = shared
        .client
        .request(parts.method.clone(), format!("{}{path}", shared.upstream))
        .body(body.clone());
    let mut request_headers = Vec::new();
    for (name, value) in &parts.headers {
        if name != "host" && name != "content-length" {
            outgoing = outgoing.header(name, value);
        }
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        request_headers.push((name.to_string(), value));
    }
    let answer = outgoing.send().await.unwrap();
    let mut status = answer.status().as_u16();
    let content_type = answer.headers().get("content-type").cloned();
    let response_body = answer.bytes().await.unwrap().to_vec();
    if let Answers::BreakThoseHolding(keys) = shared.answers {
        let text = String::from_utf8_lossy(&response_body);
        if status < 300 && keys.iter().any(|k| text.contains(&format!("\"{k}\""))) {
            status = 299;
        }
    }
    shared.seen.lock().unwrap().push(Seen {
        request_headers,
        request_body: body.to_vec(),
        response_body: response_body.clone(),
    });
    let mut response = axum::http::Response::new(axum::body::Body::from(response_body));
    *response.status_mut() = axum::http::StatusCode::from_u16(status).unwrap();
    if let Some(content_type) = content_type {
        response.headers_mut().insert("content-type", content_type);
    }
    response
}
