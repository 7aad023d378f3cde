//! The HTTP face: the generated router on the service, a log line per request,
//! and the browser protections of the link widget's pages.

use crate::ReferenceServer;
use crate::api::service::Service;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine;
use covenant_runtime::server::{Config, RequestLimits, Served};
use sha2::{Digest, Sha256};
use std::sync::{Arc, LazyLock};
use std::time::Instant;

/// The largest request body read, for every endpoint: room for the 100,000 connections a
/// bulk import may name with tokens of about 250 characters (27 MiB with tokens of 70), which
/// the runtime's default of 16 MiB would refuse. Longer tokens fit fewer connections per
/// request; the spec's string bound alone would allow about 800 MB.
pub const BODY_LIMIT: usize = 64 * 1024 * 1024;

/// Every endpoint of the spec's APIs at one address, the link widget's pages among them,
/// with the default limits on each request.
pub fn router(server: Arc<ReferenceServer>) -> axum::Router {
    router_with(server, RequestLimits::default())
}

/// [`router`] with these limits on each request.
pub fn router_with(server: Arc<ReferenceServer>, limits: RequestLimits) -> axum::Router {
    let config = Config {
        limits,
        body_limit: BODY_LIMIT,
        ..Config::default()
    };
    health_api::server::router(Arc::new(Service(server)), config)
        .layer(axum::middleware::from_fn(protect_widget_pages))
        .layer(axum::middleware::from_fn(finish))
}

/// The `Server` header of every answer: this implementation's name and version.
pub const SERVER_NAME: &str = concat!("health-server/", env!("CARGO_PKG_VERSION"));

/// One line per request, and the implementation's name.
async fn finish(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let mut response = next.run(request).await;
    // The implementation names itself, so a conformance run applies its expected failures
    // however it was started.
    response
        .headers_mut()
        .insert(header::SERVER, HeaderValue::from_static(SERVER_NAME));
    let status = response.status();
    tracing::info!(
        %method,
        path,
        status = status.as_u16(),
        micros = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

/// The api of the spec whose endpoints are the link widget's pages.
const WIDGET_API: &str = "link_widget";

/// The link widget's pages carry a link token in their addresses and forms: they are never
/// cached, never framed (a consent page under another site's clicks), never told to other
/// sites as a referrer, and run nothing but their own stylesheet. `form-action` is left
/// open: a form's answer redirects to the token's `redirect_url`, which Chromium checks
/// against it.
async fn protect_widget_pages(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let served = response.extensions().get::<Served>();
    if served.is_some_and(|served| served.api == WIDGET_API) {
        protect(response.headers_mut());
    }
    response
}

fn protect(headers: &mut axum::http::HeaderMap) {
    static POLICY: LazyLock<HeaderValue> = LazyLock::new(|| {
        let style = base64::engine::general_purpose::STANDARD
            .encode(Sha256::digest(crate::api::link::widget::STYLE.as_bytes()));
        let policy = format!(
            "default-src 'none'; style-src 'sha256-{style}'; frame-ancestors 'none'; \
             base-uri 'none'"
        );
        HeaderValue::from_str(&policy).expect("a policy of visible ASCII")
    });
    let protections = [
        (header::CONTENT_SECURITY_POLICY, POLICY.clone()),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            HeaderName::from_static("x-frame-options"),
            HeaderValue::from_static("DENY"),
        ),
    ];
    for (name, value) in protections {
        headers.insert(name, value);
    }
}
