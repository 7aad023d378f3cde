//! The HTTP endpoint a target delivers its events to: any path, POST only, each body
//! bounded in size and in the time it may take to arrive.

use super::hub::EventHub;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The largest delivery read; a larger one is answered 413.
pub const MAX_DELIVERY_BYTES: usize = 1024 * 1024;
/// How long a delivery's body may take to arrive.
pub const DELIVERY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A listening receiver; it stops when dropped.
pub struct Receiver {
    /// The address deliveries are sent to.
    pub url: String,
    _server: covenant_runtime::server::Spawned,
}

impl Receiver {
    /// Listens on `listen` (port 0: any free port). `public_url` is the address the target
    /// reaches it at, when that is not the one it listens on (another host, a container).
    pub async fn start(
        hub: Arc<EventHub>,
        listen: SocketAddr,
        public_url: Option<String>,
    ) -> std::io::Result<Receiver> {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        let bound = listener.local_addr()?;
        let url = public_url.unwrap_or_else(|| {
            let host = match bound.ip() {
                ip if ip.is_unspecified() => "127.0.0.1".to_string(),
                std::net::IpAddr::V6(ip) => format!("[{ip}]"),
                ip => ip.to_string(),
            };
            format!("http://{host}:{}/events", bound.port())
        });
        let app = axum::Router::new().fallback(receive).with_state(hub);
        // The runtime's transport: a bound on connections and on the time a request's head
        // may take, so slow or many senders cannot hold the run's memory.
        let server = covenant_runtime::server::spawn_on(
            listener,
            app,
            covenant_runtime::server::transport::Transport::default(),
        )?;
        Ok(Receiver {
            url,
            _server: server,
        })
    }
}

async fn receive(
    State(hub): State<Arc<EventHub>>,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Body,
) -> StatusCode {
    if method != axum::http::Method::POST {
        return StatusCode::METHOD_NOT_ALLOWED;
    }
    let read = axum::body::to_bytes(body, MAX_DELIVERY_BYTES);
    match tokio::time::timeout(DELIVERY_READ_TIMEOUT, read).await {
        Ok(Ok(bytes)) => hub.receive(&headers, &bytes),
        Ok(Err(e)) if is_too_large(&e) => StatusCode::PAYLOAD_TOO_LARGE,
        Ok(Err(_)) => StatusCode::BAD_REQUEST,
        Err(_) => StatusCode::REQUEST_TIMEOUT,
    }
}

fn is_too_large(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if e.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = e.source();
    }
    false
}
