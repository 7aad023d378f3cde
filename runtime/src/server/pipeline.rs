//! Every endpoint's request up to the trait call, the same for any spec: credentials and
//! gates, then the typed input (or one 422 naming every problem), then the method.

use super::input::RawInputs;
use super::{AuthError, Config, Context, Unavailable};
use crate::desc::{EndpointDesc, Gate, Scheme};
use crate::issue::Issue;
use crate::validate::Validate;
use axum::extract::{RawPathParams, Request, rejection::RawPathParamsRejection};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use std::future::Future;
use tracing::Instrument;

/// What the pipeline needs of a service: its credentials and its gates. The generated
/// router implements it over the generated server trait.
pub trait Service: Send + Sync + 'static {
    /// What an accepted credential identifies.
    type Principal: Clone + Send + Sync + 'static;
    type Scheme: Scheme;
    type Gate: Gate;

    fn authenticate(
        &self,
        scheme: Self::Scheme,
        credential: &str,
    ) -> impl Future<Output = Result<Self::Principal, AuthError>> + Send;

    fn gate_open(
        &self,
        principal: Option<&Self::Principal>,
        gate: Self::Gate,
    ) -> impl Future<Output = Result<bool, Unavailable>> + Send;
}

/// The matched path's parameters as axum extracts them.
pub type PathParams = Result<RawPathParams, RawPathParamsRejection>;

/// The context of an endpoint whose service is `S`.
pub type ContextOf<S> = Context<<S as Service>::Principal, <S as Service>::Scheme>;

/// Serves one request: authenticate, check gates, read the typed input, call. The request
/// runs in a tracing span carrying its id (the caller's `x-request-id` when it is sane),
/// which the response echoes.
pub async fn serve<S, I, R, F, Fut>(
    service: &S,
    config: &Config,
    endpoint: &'static EndpointDesc<S::Scheme, S::Gate>,
    path: PathParams,
    request: Request,
    call: F,
) -> Response
where
    S: Service,
    I: serde::de::DeserializeOwned + Validate,
    R: IntoResponse,
    F: FnOnce(ContextOf<S>, I) -> Fut,
    Fut: Future<Output = R>,
{
    let read = |raw: &RawInputs<'_>| super::input::read::<I, _, _>(endpoint, raw);
    serve_with(service, config, endpoint, path, request, read, call).await
}

/// Serves one request as [`serve`] does, with no input type: the inputs are checked by the
/// endpoint's descriptors alone, the walk that explains the typed reader's rejections, so
/// the same request is refused with the same problems. For servers built from a spec at run
/// time, such as a mock.
pub async fn serve_described<S, R, F, Fut>(
    service: &S,
    config: &Config,
    endpoint: &'static EndpointDesc<S::Scheme, S::Gate>,
    path: PathParams,
    request: Request,
    call: F,
) -> Response
where
    S: Service,
    R: IntoResponse,
    F: FnOnce(ContextOf<S>) -> Fut,
    Fut: Future<Output = R>,
{
    let read = |raw: &RawInputs<'_>| {
        let issues = raw.explain(endpoint);
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    };
    serve_with(service, config, endpoint, path, request, read, |ctx, ()| {
        call(ctx)
    })
    .await
}

async fn serve_with<S, I, R, F, Fut>(
    service: &S,
    config: &Config,
    endpoint: &'static EndpointDesc<S::Scheme, S::Gate>,
    path: PathParams,
    request: Request,
    read: impl FnOnce(&RawInputs<'_>) -> Result<I, Vec<Issue>>,
    call: F,
) -> Response
where
    S: Service,
    R: IntoResponse,
    F: FnOnce(ContextOf<S>, I) -> Fut,
    Fut: Future<Output = R>,
{
    // The body is Send but not Sync: only the parts are borrowed across awaits.
    let (parts, body) = request.into_parts();
    let request_id = super::request_id(&parts.headers);
    let echo = HeaderValue::from_str(&request_id).ok();
    let span = tracing::info_span!(
        "request",
        endpoint = endpoint.name,
        method = %parts.method,
        path = %parts.uri.path(),
        request_id = %request_id,
    );
    let handled = async move {
        let ctx = match begin(service, config, endpoint, &parts, request_id).await {
            Ok(ctx) => ctx,
            Err(response) => return response,
        };
        let path = match path {
            Ok(params) => params,
            Err(e) => {
                return config.reject(StatusCode::BAD_REQUEST, &format!("Invalid path: {e}"));
            }
        };
        let query: Vec<_> = parts
            .uri
            .query()
            .map(|q| form_urlencoded::parse(q.as_bytes()).collect())
            .unwrap_or_default();
        let bytes = match endpoint.body {
            Some(_) => match read_body(config, &parts.headers, body).await {
                Ok(bytes) => Some(bytes),
                Err(response) => return response,
            },
            None => None,
        };
        let path_value = |name: &str| path.iter().find(|(k, _)| *k == name).map(|(_, v)| v);
        let raw = RawInputs::gather(endpoint, path_value, &query, &parts, bytes.as_deref());
        match read(&raw) {
            Ok(input) => call(ctx, input).await.into_response(),
            Err(issues) => config.reject_input(&issues),
        }
    };
    let mut response = handled.instrument(span).await;
    if let Some(id) = echo {
        response.headers_mut().insert("x-request-id", id);
    }
    response
}

/// Authentication and gates, before any input is read.
async fn begin<S: Service>(
    service: &S,
    config: &Config,
    endpoint: &EndpointDesc<S::Scheme, S::Gate>,
    parts: &Parts,
    request_id: String,
) -> Result<ContextOf<S>, Response> {
    let mut ctx = Context {
        request_id,
        principal: None,
        also: Vec::new(),
    };
    let presented = presented_credentials(endpoint, &parts.headers)
        .map_err(|message| config.reject(StatusCode::UNAUTHORIZED, &message))?;
    for p in presented {
        let scheme = p.scheme.primary();
        match service.authenticate(scheme, p.credential).await {
            Ok(principal) if p.required => ctx.principal = Some(principal),
            Ok(principal) => ctx.also.push((scheme, principal)),
            Err(e) => return Err(auth_failure(config, p.scheme, e)),
        }
    }
    for &gate in endpoint.gates {
        match service.gate_open(ctx.principal.as_ref(), gate).await {
            Ok(true) => {}
            Ok(false) => return Err(config.reject(StatusCode::FORBIDDEN, &gate.refusal())),
            Err(Unavailable) => return Err(unavailable(config)),
        }
    }
    Ok(ctx)
}

/// A credential found in a request's headers.
#[derive(Debug)]
struct Presented<'a, A> {
    scheme: A,
    credential: &'a str,
    required: bool,
}

/// The credentials a request presents for an endpoint, or why a required one is missing.
fn presented_credentials<'a, A: Scheme, G>(
    endpoint: &EndpointDesc<A, G>,
    headers: &'a HeaderMap,
) -> Result<Vec<Presented<'a, A>>, String> {
    let read = |scheme: A, required: bool| {
        let value = headers.get(scheme.header())?.to_str().ok()?.trim();
        (!value.is_empty()).then_some(Presented {
            scheme,
            credential: value,
            required,
        })
    };
    let mut out = Vec::new();
    if !endpoint.public {
        match endpoint.auth_any_of.iter().find_map(|&s| read(s, true)) {
            Some(p) => out.push(p),
            None => {
                let names: Vec<&str> = endpoint.auth_any_of.iter().map(|s| s.header()).collect();
                return Err(format!(
                    "Missing credentials: send the {} header",
                    names.join(" or ")
                ));
            }
        }
    }
    out.extend(
        endpoint
            .auth_optional
            .iter()
            .filter_map(|&s| read(s, false)),
    );
    Ok(out)
}

/// The response to a refused credential.
fn auth_failure<A: Scheme>(config: &Config, scheme: A, e: AuthError) -> Response {
    let header = scheme.header();
    match e {
        AuthError::Unknown => config.reject(
            StatusCode::UNAUTHORIZED,
            &format!("Invalid credentials in the {header} header"),
        ),
        AuthError::WrongKind => config.reject(
            StatusCode::FORBIDDEN,
            &format!(
                "The credential in the {header} header is of another kind and is not accepted here"
            ),
        ),
        AuthError::Unavailable => unavailable(config),
    }
}

fn unavailable(config: &Config) -> Response {
    config.unavailable("The service cannot check credentials now; retry shortly")
}

async fn read_body(
    config: &Config,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Result<axum::body::Bytes, Response> {
    let limit = config.body_limit;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large(config));
    }
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let inner = e.into_inner();
        if inner.is::<http_body_util::LengthLimitError>() {
            too_large(config)
        } else {
            // The body broke off or was malformed in transit: the caller's request, not its size.
            config.reject(
                StatusCode::BAD_REQUEST,
                &format!("The request body could not be read: {inner}"),
            )
        }
    })
}

fn too_large(config: &Config) -> Response {
    config.reject(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Request body is larger than {} bytes", config.body_limit),
    )
}
