//! A mock of any spec, served straight from its IR: the runtime's descriptors are built at
//! start ([`descriptors`]), requests go through the same pipeline as a generated router
//! (credentials, gates, every input problem in one 422), and each endpoint answers the
//! example the generated mock would: its first success with a body derived from the spec.

pub mod descriptors;

use covenant_codegen::ir::Spec;
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
}

/// What an endpoint answers every accepted call: serialized once at start.
#[derive(Clone)]
struct Answer {
    status: StatusCode,
    /// JSON text, or `None` for a response without a body.
    body: Option<Bytes>,
}

impl Answer {
    fn of(samples: &Samples, ep: &covenant_codegen::ir::Endpoint) -> Answer {
        let Some((status, body)) = samples.answer(ep) else {
            // An endpoint without responses: nothing declared, nothing to say.
            return Answer {
                status: StatusCode::NO_CONTENT,
                body: None,
            };
        };
        Answer {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
            body: body.map(|v| Bytes::from(serde_json::to_vec(&v).unwrap_or_default())),
        }
    }

    fn response(&self) -> axum::response::Response {
        use axum::response::IntoResponse;
        match &self.body {
            Some(bytes) => (
                self.status,
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
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
    /// Endpoints not served because another endpoint has their method and path (the spec
    /// serves them at another address): `method path (name)`.
    pub skipped: Vec<String>,
}

/// The spec's auth schemes and endpoints as the mock serves them.
pub fn describe(spec: &Spec) -> Described {
    descriptors::describe(spec)
}

/// Builds the router of every endpoint of `spec`, accepting `keys`.
pub fn mock(spec: &Spec, described: &Described, keys: Keys, config: Config) -> Mock {
    let service = Arc::new(MockService { keys });
    // As the generated `router()`: the first API's rejection model that is declared.
    let config = match spec.apis.iter().find_map(|a| a.rejections.as_ref()) {
        Some(r) => config.with_spec_rejections(&r.template.to_string()),
        None => config,
    };
    let config = Arc::new(config);
    let samples = Samples::new(spec);
    let mut by_path: BTreeMap<&str, MethodRouter> = BTreeMap::new();
    let mut served: Vec<(&str, &covenant_runtime::http::Method)> = Vec::new();
    let mut skipped = Vec::new();
    for (ep, desc) in spec.endpoints.iter().zip(&described.endpoints) {
        let desc: &'static SpecEndpoint = desc;
        if served.contains(&(desc.path, &desc.method)) {
            skipped.push(format!("{} {} ({})", desc.method, desc.path, desc.name));
            continue;
        }
        served.push((desc.path, &desc.method));
        let Ok(filter) = MethodFilter::try_from(desc.method.clone()) else {
            skipped.push(format!("{} {} ({})", desc.method, desc.path, desc.name));
            continue;
        };
        let handler = handler(
            service.clone(),
            config.clone(),
            desc,
            Answer::of(&samples, ep),
        );
        let routes = by_path.remove(desc.path).map_or_else(
            || on(filter, handler.clone()),
            |routes| routes.on(filter, handler.clone()),
        );
        by_path.insert(desc.path, routes);
    }
    let routes = by_path
        .into_iter()
        .fold(Router::new(), |router, (path, routes)| {
            router.route(path, routes)
        });
    let router = rt::with_fallbacks(routes, &config.rejections);
    Mock { router, skipped }
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
