//! A mock of any spec, served straight from its IR: the runtime's descriptors are built at
//! start ([`descriptors`]), requests go through the same pipeline as a generated router
//! (credentials, gates, every input problem in one 422), and each endpoint answers the
//! example the generated mock would: its first success with a body derived from the spec.

pub mod descriptors;

pub use descriptors::describe;

use covenant_codegen::ir::Spec;
use covenant_codegen::ir::routes::collide;
use covenant_codegen::samples::Samples;
use covenant_runtime::http::{HeaderValue, StatusCode, header};
use covenant_runtime::server::axum::body::Bytes;
use covenant_runtime::server::axum::routing::{MethodFilter, MethodRouter, on};
use covenant_runtime::server::axum::{self, Router};
use covenant_runtime::server::{self as rt, AuthError, Config, PathParams, Service, Unavailable};
use descriptors::{Described, SpecEndpoint, SpecGate, SpecScheme};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The credentials the mock accepts, by the scheme they authenticate as.
#[derive(Debug, Default)]
pub struct Keys(HashMap<String, SpecScheme>);

impl Keys {
    /// Accepts `credential` for `scheme`; sent under another scheme it is a key of the wrong
    /// kind (403), as the generated mock answers.
    pub fn insert(&mut self, credential: String, scheme: SpecScheme) {
        self.0.insert(credential, scheme);
    }
}

/// The service the pipeline asks: keys, and gates that are all open.
struct MockService {
    keys: Keys,
}

impl Service for MockService {
    type Principal = SpecScheme;
    type Scheme = SpecScheme;
    type Gate = SpecGate;

    async fn authenticate(
        &self,
        scheme: SpecScheme,
        credential: &str,
    ) -> Result<SpecScheme, AuthError> {
        match self.keys.0.get(credential) {
            Some(s) if *s == scheme => Ok(scheme),
            Some(_) => Err(AuthError::WrongKind),
            None => Err(AuthError::Unknown),
        }
    }

    async fn gate_open(
        &self,
        _principal: Option<&SpecScheme>,
        _gate: SpecGate,
    ) -> Result<bool, Unavailable> {
        Ok(true)
    }

    /// The mock's keys hold every scope.
    async fn has_scopes(
        &self,
        _principal: &SpecScheme,
        _scheme: SpecScheme,
        _scopes: &'static [&'static str],
    ) -> Result<bool, Unavailable> {
        Ok(true)
    }
}

/// What an endpoint answers every accepted call: serialized once at start.
#[derive(Clone)]
struct Answer {
    status: StatusCode,
    /// The body as sent (JSON text, or a raw body's text or bytes), or `None` for a response
    /// without a body.
    body: Option<Bytes>,
    content_type: HeaderValue,
    /// The response's declared headers, with example values.
    headers: covenant_runtime::http::HeaderMap,
}

impl Answer {
    fn of(samples: &Samples, ep: &covenant_codegen::ir::Endpoint) -> Answer {
        let Some(answer) = samples.answer(ep) else {
            // `check` requires a success response (E0126): kept for an IR built otherwise.
            return Answer {
                status: StatusCode::NO_CONTENT,
                body: None,
                content_type: HeaderValue::from_static("application/json"),
                headers: Default::default(),
            };
        };
        let headers: Vec<(&str, &str)> = answer
            .headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        Answer {
            status: StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK),
            body: answer.wire_body().map(Bytes::from),
            content_type: HeaderValue::from_str(answer.media.content_type())
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            headers: covenant_runtime::headers::map_of(&headers),
        }
    }

    fn response(&self) -> axum::response::Response {
        let mut response = self.body_response();
        response.headers_mut().extend(self.headers.clone());
        response
    }

    fn body_response(&self) -> axum::response::Response {
        use axum::response::IntoResponse;
        match &self.body {
            Some(bytes) => (
                self.status,
                [(header::CONTENT_TYPE, self.content_type.clone())],
                bytes.clone(),
            )
                .into_response(),
            None => self.status.into_response(),
        }
    }
}

/// A spec's mock, ready to serve.
pub struct Mock {
    pub router: Router,
    /// Endpoints not served because one router cannot hold them with an endpoint of another
    /// API (the same method and path, or placeholders named apart): `method path (name)`.
    pub skipped: Vec<String>,
    /// The shape of the refusals no endpoint writes (404, 405, and the transport's 400, 414
    /// and 431): the first declared.
    pub rejections: rt::RejectionShape,
}

/// Builds the router of every endpoint of `spec`, accepting `keys`. As the generated
/// `router()`: each API's rejections in its own shape, 404 and 405 in the first declared.
pub fn mock(spec: &Spec, described: &Described, keys: Keys, config: Config) -> Mock {
    let service = Arc::new(MockService { keys });
    let shaped = |api: &covenant_codegen::ir::Api| match &api.rejections {
        Some(r) => config.clone().with_spec_rejections(&r.template.to_string()),
        None => config.clone(),
    };
    let configs: Vec<Arc<Config>> = spec.apis.iter().map(|a| Arc::new(shaped(a))).collect();
    let fallbacks = match spec.apis.iter().position(|a| a.rejections.is_some()) {
        Some(first) => configs[first].clone(),
        None => Arc::new(config),
    };
    let samples = Samples::new(spec);
    let mut by_path: BTreeMap<&str, MethodRouter> = BTreeMap::new();
    let mut served: Vec<&SpecEndpoint> = Vec::new();
    let mut skipped = Vec::new();
    for (ep, desc) in spec.endpoints.iter().zip(&described.endpoints) {
        let desc: &'static SpecEndpoint = desc;
        let clash = served.iter().find(|s| {
            (s.path != desc.path || s.method == desc.method)
                && collide(s.path, desc.path, s.method == desc.method)
        });
        let filter = MethodFilter::try_from(desc.method.clone());
        let (None, Ok(filter)) = (clash, filter) else {
            skipped.push(format!("{} {} ({})", desc.method, desc.path, desc.name));
            continue;
        };
        served.push(desc);
        let config = configs[ep.api.index()].clone();
        let handler = handler(service.clone(), config, desc, Answer::of(&samples, ep));
        let routes = match by_path.remove(desc.path) {
            Some(routes) => routes.on(filter, handler),
            None => on(filter, handler),
        };
        by_path.insert(desc.path, routes);
    }
    let routes = by_path
        .into_iter()
        .fold(Router::new(), |router, (path, routes)| {
            router.route(path, routes)
        });
    let router = rt::guarded(
        rt::with_fallbacks(routes, &fallbacks.rejections),
        &fallbacks,
    );
    Mock {
        router,
        skipped,
        rejections: fallbacks.rejections.clone(),
    }
}

/// The handler of one endpoint: the generated router's pipeline, checking inputs by the
/// descriptors, then the endpoint's answer.
fn handler(
    service: Arc<MockService>,
    config: Arc<Config>,
    endpoint: &'static SpecEndpoint,
    answer: Answer,
) -> impl Fn(
    PathParams,
    axum::extract::Request,
) -> std::pin::Pin<Box<dyn Future<Output = axum::response::Response> + Send>>
+ Clone
+ Send
+ Sync
+ 'static {
    move |path, request| {
        let (service, config, answer) = (service.clone(), config.clone(), answer.clone());
        Box::pin(async move {
            rt::serve_described(&*service, &config, endpoint, path, request, |_ctx| async {
                answer.response()
            })
            .await
        })
    }
}
