//! The HTTP face: the generated router on the service, the link widget's page, a log line
//! per request, and `Retry-After` on every 503.

use crate::ReferenceServer;
use crate::service::Service;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use covenant_runtime::server::{Config, RETRY_AFTER_SECONDS, Rejection, RequestLimits};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// The largest request body read, for every endpoint: room for the 100,000 connections a
/// bulk import may name with tokens of about 250 characters (27 MiB with tokens of 70), which
/// the runtime's default of 16 MiB would refuse. Longer tokens fit fewer connections per
/// request; the spec's string bound alone would allow about 800 MB.
pub const BODY_LIMIT: usize = 64 * 1024 * 1024;

/// Every endpoint of the main and management APIs at one address, plus `/link`, with the
/// default limits on each request.
pub fn router(server: Arc<ReferenceServer>) -> axum::Router {
    router_with(server, RequestLimits::default())
}

/// [`router`] with these limits on each request.
pub fn router_with(server: Arc<ReferenceServer>, limits: RequestLimits) -> axum::Router {
    let link = axum::Router::new()
        .route("/link", axum::routing::get(link_page))
        .with_state(server.clone());
    let config = Config {
        limits,
        body_limit: BODY_LIMIT,
        ..Config::default()
    };
    health_api::server::router(Arc::new(Service(server)), config)
        .merge(link)
        .layer(axum::middleware::from_fn(finish))
}

/// One line per request, and the retry hint of a 503 (the generated router answers the
/// status and body; the header is this service's).
async fn finish(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let mut response = next.run(request).await;
    let status = response.status();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .entry(header::RETRY_AFTER)
            .or_insert(HeaderValue::from(RETRY_AFTER_SECONDS));
    }
    tracing::info!(
        %method,
        path,
        status = status.as_u16(),
        micros = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

/// The hosted link widget's first page. The reference server links nothing for real; the
/// page shows what the token leads to.
async fn link_page(
    State(server): State<Arc<ReferenceServer>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let token = query.get("token").map(String::as_str).unwrap_or_default();
    match crate::link::widget_page(&server, token, query.get("provider").map(String::as_str)).await {
        Ok(Some(providers)) => {
            let items: String = providers
                .lines()
                .map(|p| format!("<li>{}</li>", escape(p)))
                .collect();
            Html(format!(
                "<!doctype html><title>Link a provider</title><h1>Link a provider</h1><ul>{items}</ul>"
            ))
            .into_response()
        }
        Ok(None) => (
            StatusCode::NOT_FOUND,
            Html("<!doctype html><title>Link expired</title><p>This link has expired or was already used.</p>"),
        )
            .into_response(),
        Err(_) => covenant_runtime::server::service_unavailable(Rejection::UNAVAILABLE),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
