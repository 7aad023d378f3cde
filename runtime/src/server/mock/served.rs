//! The mock of a spec built at run time (`covenant mock`): the spec's contract routed through
//! the generated routers' pipeline (credentials, gates, every input problem in one 422), each
//! endpoint answering its example. A generated `MockServer` answers the same examples through
//! its own router.

use super::{Answer, Example, MockAccess};
use crate::contract::{BuiltEndpoint, Contract, GateRef, SchemeRef};
use crate::server::{self as rt, AuthError, Config, PathParams, Service, Unavailable};
use axum::Router;
use axum::routing::{MethodFilter, MethodRouter, on};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The credentials a mock accepts, by the scheme they authenticate as.
pub type Keys = MockAccess<SchemeRef<'static>, GateRef<'static>>;

/// The service the pipeline asks: the mock's keys and gates.
struct MockService {
    keys: Keys,
}

impl Service for MockService {
    type Principal = SchemeRef<'static>;
    type Scheme = SchemeRef<'static>;
    type Gate = GateRef<'static>;

    async fn authenticate(
        &self,
        scheme: SchemeRef<'static>,
        credential: &str,
    ) -> Result<SchemeRef<'static>, AuthError> {
        self.keys.authenticate(scheme, credential)
    }

    async fn gate_open(
        &self,
        _principal: Option<&SchemeRef<'static>>,
        gate: GateRef<'static>,
    ) -> Result<bool, Unavailable> {
        Ok(self.keys.gate_open(gate))
    }

    /// The mock's keys hold every scope.
    async fn has_scopes(
        &self,
        _principal: &SchemeRef<'static>,
        _scheme: SchemeRef<'static>,
        _scopes: &'static [&'static str],
    ) -> Result<bool, Unavailable> {
        Ok(true)
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

/// The router of every endpoint of `contract`, each answering its example (`examples` in the
/// order of the endpoints; one missing answers 204), accepting `keys`. As a generated
/// `router()`: each API's rejections in its own shape, 404 and 405 in the first declared.
pub fn router(
    contract: &Contract<'static>,
    examples: &[Example<'_>],
    keys: Keys,
    config: Config,
) -> Mock {
    let service = Arc::new(MockService { keys });
    let configs: Vec<Arc<Config>> = contract
        .apis
        .iter()
        .map(|api| match api.rejections {
            Some(template) => Arc::new(config.clone().with_spec_rejections(template)),
            None => Arc::new(config.clone()),
        })
        .collect();
    let fallbacks = match contract.apis.iter().position(|a| a.rejections.is_some()) {
        Some(first) => configs[first].clone(),
        None => Arc::new(config.clone()),
    };
    let default_config = Arc::new(config);
    let mut by_path: BTreeMap<String, MethodRouter> = BTreeMap::new();
    let mut served: Vec<&BuiltEndpoint<'static>> = Vec::new();
    let mut skipped = Vec::new();
    for (index, endpoint) in contract.endpoints.iter().enumerate() {
        let clash = served
            .iter()
            .find(|s| s.path.collides(&endpoint.path, s.method == endpoint.method));
        let filter = MethodFilter::try_from(endpoint.method.clone());
        let (None, Ok(filter)) = (clash, filter) else {
            skipped.push(format!(
                "{} {} ({})",
                endpoint.method, endpoint.path, endpoint.name
            ));
            continue;
        };
        served.push(endpoint);
        let config = match contract.apis.iter().position(|a| a.name == endpoint.api) {
            Some(api) => configs[api].clone(),
            None => default_config.clone(),
        };
        let example = examples.get(index).unwrap_or(&Example::NO_CONTENT);
        let handler = handler(service.clone(), config, endpoint, Answer::of(example));
        let route = endpoint.path.route();
        let routes = match by_path.remove(&route) {
            Some(routes) => routes.on(filter, handler),
            None => on(filter, handler),
        };
        by_path.insert(route, routes);
    }
    let routes = by_path
        .into_iter()
        .fold(Router::new(), |router, (path, routes)| {
            router.route(&path, routes)
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
    endpoint: &'static BuiltEndpoint<'static>,
    answer: Answer,
) -> impl Fn(
    PathParams,
    axum::extract::Request,
) -> std::pin::Pin<Box<dyn Future<Output = axum::response::Response> + Send>>
+ Clone
+ Send
+ Sync
+ 'static {
    let answer = Arc::new(answer);
    move |path, request| {
        let (service, config, answer) = (service.clone(), config.clone(), answer.clone());
        Box::pin(async move {
            rt::serve_described(&*service, &config, endpoint, path, request, |_ctx| async {
                Ok(answer.response())
            })
            .await
        })
    }
}
