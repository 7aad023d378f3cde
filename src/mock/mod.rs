//! A mock of any spec, served straight from its IR: the spec's contract is built at start
//! ([`covenant_codegen::contract::build_static`]), requests go through the same pipeline as a
//! generated router (credentials, gates, every input problem in one 422), and each endpoint
//! answers the example the generated mock would: its first success with a body derived from
//! the spec.

use covenant_codegen::ir::Spec;
use covenant_codegen::samples::Samples;
use covenant_runtime::contract::{BuiltEndpoint, Contract, GateRef, SchemeRef};
use covenant_runtime::server::axum::routing::{MethodFilter, MethodRouter, on};
use covenant_runtime::server::axum::{self, Router};
use covenant_runtime::server::mock::{Answer, Example, MockAccess};
use covenant_runtime::server::{self as rt, AuthError, Config, PathParams, Service, Unavailable};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The credentials the mock accepts, by the scheme they authenticate as; its gates are all
/// open.
pub type Keys = MockAccess<SchemeRef<'static>, GateRef<'static>>;

/// The service the pipeline asks: the keys and gates of the generated mock's runtime code.
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

/// What an endpoint answers every accepted call: the example the generated mock prints,
/// built once at start and kept for the life of the server.
fn example_of(samples: &Samples, ep: &covenant_codegen::ir::Endpoint) -> Example {
    let Some(answer) = samples.answer(ep) else {
        // `check` requires a success response (E0126): kept for an IR built otherwise.
        return Example {
            status: 204,
            has_body: false,
            json: "null",
            raw: None,
            content_type: "application/json",
            headers: &[],
        };
    };
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let headers: Vec<(&'static str, &'static str)> = answer
        .headers
        .iter()
        .map(|(name, value)| (leak(name.clone()), leak(value.clone())))
        .collect();
    Example {
        status: answer.status,
        has_body: answer.body.is_some(),
        json: leak(answer.json_text()),
        raw: answer
            .raw_body()
            .map(|bytes| &*Box::leak(bytes.into_boxed_slice())),
        content_type: leak(answer.media.content_type().to_string()),
        headers: Box::leak(headers.into_boxed_slice()),
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
pub fn mock(spec: &Spec, contract: &Contract<'static>, keys: Keys, config: Config) -> Mock {
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
    let mut served: Vec<&BuiltEndpoint<'static>> = Vec::new();
    let mut skipped = Vec::new();
    for (ep, desc) in spec.endpoints.iter().zip(contract.endpoints) {
        let clash = served.iter().find(|s| {
            (s.path != desc.path || s.method == desc.method)
                && s.path.collides(&desc.path, s.method == desc.method)
        });
        let filter = MethodFilter::try_from(desc.method.clone());
        let (None, Ok(filter)) = (clash, filter) else {
            skipped.push(format!("{} {} ({})", desc.method, desc.path, desc.name));
            continue;
        };
        served.push(desc);
        let config = configs[ep.api.index()].clone();
        let handler = handler(
            service.clone(),
            config,
            desc,
            example_of(&samples, ep).answer(),
        );
        let routes = match by_path.remove(desc.path.as_str()) {
            Some(routes) => routes.on(filter, handler),
            None => on(filter, handler),
        };
        by_path.insert(desc.path.as_str(), routes);
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
                answer.response()
            })
            .await
        })
    }
}
