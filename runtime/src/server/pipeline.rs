//! Every endpoint's request up to the trait call, the same for any spec: credentials and
//! gates, then the typed input (or one 422 naming every problem), then the method.

use super::credentials;
use super::idempotency::{self, Claim, IdempotencyStore, KeyedRequest, StoredResponse};
use super::input::RawInputs;
use super::{AuthError, Config, Context, Rejection, Unavailable};
use crate::contract::AlsoRead;
use crate::desc::{BodyMedia, EndpointDesc, Gate, Scheme, TypeDesc};
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

    /// Whether `principal` holds every one of `scopes`. Asked only where the spec requires
    /// scopes; a service whose spec requires none never is, and refuses by default.
    fn has_scopes(
        &self,
        principal: &Self::Principal,
        scheme: Self::Scheme,
        scopes: &'static [&'static str],
    ) -> impl Future<Output = Result<bool, Unavailable>> + Send {
        let _ = (principal, scheme);
        std::future::ready(Ok(scopes.is_empty()))
    }
}

/// The matched path's parameters as axum extracts them.
pub type PathParams = Result<RawPathParams, RawPathParamsRejection>;

/// The context of an endpoint whose service is `S`.
pub type ContextOf<S> =
    Context<Option<<S as Service>::Principal>, <S as Service>::Scheme, <S as Service>::Principal>;

/// Serves one request: authenticate, check gates, read the typed input, call; a rejection
/// the call returns is written at a status the endpoint declares for it. The request
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
    Fut: Future<Output = Result<R, Rejection>>,
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
    Fut: Future<Output = Result<R, Rejection>>,
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
    Fut: Future<Output = Result<R, Rejection>>,
{
    // An endpoint with rejections of its own refuses in them (a small template, read again
    // for each request rather than kept: descriptors are plain statics).
    let own = config.for_endpoint(endpoint.rejections);
    let config = own.as_ref().unwrap_or(config);
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
        let (ctx, caller) = match begin(service, config, endpoint, &parts, request_id).await {
            Ok(begun) => begun,
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
        let mut bytes = match endpoint.body {
            Some(_) => match read_body(config, &parts.headers, body).await {
                Ok(bytes) => Some(bytes),
                Err(response) => return response,
            },
            None => None,
        };
        if let Some(sent) = &bytes
            && !sent.iter().all(u8::is_ascii_whitespace)
        {
            let content_type = parts
                .headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok());
            let also = content_type.and_then(|sent| also_read(endpoint, sent));
            if !endpoint.body_media.accepts(content_type) && also.is_none() {
                return unsupported_media(config, endpoint, content_type);
            }
            // The same value in YAML or CBOR: read into the JSON the rest of the way reads.
            if let Some(kind @ (AlsoRead::Yaml | AlsoRead::Cbor)) = also {
                match as_json(kind, sent) {
                    Ok(json) => bytes = Some(json.into()),
                    Err(message) => return config.reject(StatusCode::BAD_REQUEST, &message),
                }
            }
        }
        let multipart = match (&bytes, endpoint.body) {
            (Some(b), Some(ty))
                if endpoint.body_media == BodyMedia::Multipart
                    && !b.iter().all(u8::is_ascii_whitespace) =>
            {
                Some(read_multipart(ty, &parts.headers, b.clone()).await)
            }
            _ => None,
        };
        // A multipart body's boundary is the sender's choice: a repeat is the same request
        // when its parts are.
        let keyed_body = match (&multipart, endpoint.idempotency_key) {
            (Some((value, _)), Some(_)) => Some(serde_json::to_vec(value).unwrap_or_default()),
            _ => None,
        };
        let raw_param = |key: &str| path.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        // The router matched whole segments; one without the text beside its placeholder
        // (`/calls/7` for `/calls/{sid}.json`) is no route of this endpoint.
        if endpoint
            .path
            .params()
            .any(|name| endpoint.path.value_of(name, raw_param).is_none())
        {
            let detail = format!("No route for {} {}", parts.method, parts.uri.path());
            return config.reject(StatusCode::NOT_FOUND, &detail);
        }
        let path_value = |name: &str| endpoint.path.value_of(name, raw_param);
        let mut raw = RawInputs::gather(endpoint, path_value, &query, &parts, bytes.as_deref());
        if let Some(body) = multipart {
            raw = raw.with_multipart(body);
        }
        let input = match read(&raw) {
            Ok(input) => input,
            Err(issues) => return config.reject_input(&issues),
        };
        let fingerprinted = keyed_body.as_deref().or(bytes.as_deref());
        let answered = async {
            match call(ctx, input).await {
                Ok(response) => response.into_response(),
                Err(rejection) => rejection.answer(endpoint),
            }
        };
        match keyed_request(endpoint, &parts, caller, fingerprinted) {
            None => answered.await,
            Some(keyed) => once_per_key(config, &keyed, answered).await,
        }
    };
    let mut response = handled.instrument(span).await;
    response.extensions_mut().insert(Served {
        endpoint: endpoint.name,
        api: endpoint.api,
    });
    if let Some(id) = echo {
        response.headers_mut().insert("x-request-id", id);
    }
    if let Some(sunset) = endpoint.sunset.and_then(sunset_header) {
        response.headers_mut().insert("sunset", sunset);
    }
    response
}

/// The endpoint that answered, in the extensions of its response: middleware around the
/// router learns which endpoint a request reached without matching its path again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Served {
    pub endpoint: &'static str,
    /// The name of the spec's api the endpoint belongs to.
    pub api: &'static str,
}

/// A removal date (`YYYY-MM-DD`) as a `Sunset` header: an HTTP-date at midnight UTC.
fn sunset_header(date: &str) -> Option<HeaderValue> {
    let date: crate::Date = date.parse().ok()?;
    let text = date.0.format("%a, %d %b %Y 00:00:00 GMT").to_string();
    HeaderValue::from_str(&text).ok()
}

/// The request's idempotency key with what it is keyed to, when the endpoint takes one and
/// the request carries it.
fn keyed_request<A, G>(
    endpoint: &'static EndpointDesc<A, G>,
    parts: &Parts,
    caller: u64,
    body: Option<&[u8]>,
) -> Option<KeyedRequest> {
    let key = parts
        .headers
        .get(endpoint.idempotency_key?)?
        .to_str()
        .ok()?;
    let target = parts.uri.path_and_query().map_or("", |p| p.as_str());
    Some(KeyedRequest {
        caller,
        endpoint: endpoint.name,
        key: key.to_string(),
        fingerprint: idempotency::fingerprint(parts.method.as_str(), target, body),
    })
}

/// Runs a keyed request once: a repeat is answered from the store, a repeat while the first
/// runs answers 409, the key sent with another request 400.
async fn once_per_key<R: IntoResponse>(
    config: &Config,
    keyed: &KeyedRequest,
    call: impl Future<Output = R>,
) -> Response {
    let store = &config.idempotency;
    match store.claim(keyed) {
        Claim::Fresh => {}
        Claim::Replay(stored) => return stored.replay(),
        Claim::InFlight => {
            return config.reject(
                StatusCode::CONFLICT,
                "A request with this idempotency key is still being processed",
            );
        }
        Claim::Mismatch => {
            return config.reject(
                StatusCode::BAD_REQUEST,
                "This idempotency key was sent with another request",
            );
        }
    }
    // Released if the call never finishes (a panic, a dropped connection).
    let claim = ClaimGuard {
        store: store.as_ref(),
        keyed,
        finished: false,
    };
    let response = call.await.into_response();
    let (parts, body) = response.into_parts();
    let Ok(body) = axum::body::to_bytes(body, usize::MAX).await else {
        return config.reject(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The response body could not be read",
        );
    };
    let stored = StoredResponse {
        status: parts.status,
        headers: parts.headers.clone(),
        body: body.clone(),
    };
    claim.finish(stored);
    Response::from_parts(parts, axum::body::Body::from(body))
}

/// Releases a claimed key unless its answer was stored.
struct ClaimGuard<'a> {
    store: &'a dyn IdempotencyStore,
    keyed: &'a KeyedRequest,
    finished: bool,
}

impl ClaimGuard<'_> {
    fn finish(mut self, response: StoredResponse) {
        self.store.finish(self.keyed, response);
        self.finished = true;
    }
}

impl Drop for ClaimGuard<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.store.release(self.keyed);
        }
    }
}

/// Authentication and gates, before any input is read: the context, and a digest of the
/// credentials presented (whose idempotency keys these are).
async fn begin<S: Service>(
    service: &S,
    config: &Config,
    endpoint: &EndpointDesc<S::Scheme, S::Gate>,
    parts: &Parts,
    request_id: String,
) -> Result<(ContextOf<S>, u64), Response> {
    let mut ctx = Context {
        request_id,
        principal: None,
        also: Vec::new(),
    };
    let presented = credentials::presented(config, endpoint, parts)?;
    // Whose idempotency keys these are: asked only where the endpoint takes a key.
    let caller = match endpoint.idempotency_key {
        Some(_) => idempotency::caller(presented.iter().map(|p| p.credential.as_ref())),
        None => 0,
    };
    for p in presented {
        let (presented_as, principal) = authenticate(service, &p.schemes, &p.credential)
            .await
            .map_err(|(scheme, e)| credentials::refused(config, endpoint, scheme, e))?;
        let scheme = presented_as.primary();
        let scopes = credentials::required_scopes(endpoint, presented_as);
        if !scopes.is_empty() {
            match service.has_scopes(&principal, scheme, scopes).await {
                Ok(true) => {}
                Ok(false) => {
                    return Err(credentials::insufficient_scope(
                        config,
                        presented_as,
                        scopes,
                    ));
                }
                Err(Unavailable) => return Err(credentials::unavailable(config)),
            }
        }
        if p.required {
            ctx.principal = Some(principal);
        } else {
            ctx.also.push((scheme, principal));
        }
    }
    for &gate in endpoint.gates {
        match service.gate_open(ctx.principal.as_ref(), gate).await {
            Ok(true) => {}
            Ok(false) => return Err(config.reject(StatusCode::FORBIDDEN, &gate.refusal())),
            Err(Unavailable) => return Err(credentials::unavailable(config)),
        }
    }
    Ok((ctx, caller))
}

/// The first of `schemes` the service accepts `credential` as, with its principal; or the
/// scheme and error to answer: a credential of another kind (403) rather than an unknown one.
async fn authenticate<S: Service>(
    service: &S,
    schemes: &[S::Scheme],
    credential: &str,
) -> Result<(S::Scheme, S::Principal), (S::Scheme, AuthError)> {
    let mut refusal = None;
    for &scheme in schemes {
        match service.authenticate(scheme.primary(), credential).await {
            Ok(principal) => return Ok((scheme, principal)),
            Err(e @ (AuthError::Unavailable | AuthError::Fault)) => return Err((scheme, e)),
            Err(e) => {
                if refusal.is_none_or(|(_, earlier)| earlier == AuthError::Unknown) {
                    refusal = Some((scheme, e));
                }
            }
        }
    }
    // `presented` gives every credential at least one scheme.
    Err(refusal.unwrap_or((schemes[0], AuthError::Unknown)))
}

/// A multipart body's parts in the JSON form of its model, with each part that did not read;
/// a body that is no multipart body is one problem at `body`.
async fn read_multipart(
    ty: &TypeDesc,
    headers: &HeaderMap,
    body: axum::body::Bytes,
) -> (serde_json::Value, Vec<Issue>) {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    match crate::multipart::parse(content_type, body).await {
        Ok(parts) => crate::multipart::coerce(ty, &parts),
        Err(problem) => {
            let loc = [crate::issue::LocPart::key("body")];
            let issue = Issue::new(&loc, crate::issue::IssueKind::Value, problem);
            (serde_json::Value::Null, vec![issue])
        }
    }
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

/// 415: a body the endpoint cannot read as what it was labelled, or with no label at all.
fn unsupported_media<A, G>(
    config: &Config,
    endpoint: &EndpointDesc<A, G>,
    sent: Option<&str>,
) -> Response {
    let sent = match sent {
        Some(media) => format!("`{}`", media.chars().take(100).collect::<String>()),
        None => "no Content-Type".to_string(),
    };
    let expected: Vec<String> = std::iter::once(endpoint.body_media.content_type())
        .chain(endpoint.body_also.iter().copied())
        .map(|m| format!("`{m}`"))
        .collect();
    config.reject(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        &format!(
            "The body was sent with {sent}: send it as {}",
            expected.join(" or ")
        ),
    )
}

/// How a body sent as `content_type` is read when it is one of the endpoint's further media
/// types (`@also_media`); parameters such as `charset` aside, in any case.
fn also_read<A, G>(endpoint: &EndpointDesc<A, G>, content_type: &str) -> Option<AlsoRead> {
    let essence = |m: &str| {
        m.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    };
    let sent = essence(content_type);
    endpoint
        .body_also
        .iter()
        .find(|m| essence(m) == sent)
        .and_then(|m| AlsoRead::of(m))
}

/// A YAML or CBOR body as the JSON text of the value it writes; the error says why it does
/// not read.
fn as_json(kind: AlsoRead, body: &[u8]) -> Result<Vec<u8>, String> {
    let value: serde_json::Value = match kind {
        AlsoRead::Yaml => serde_yaml_ng::from_slice(body)
            .map_err(|e| format!("The body is not a YAML value: {e}"))?,
        AlsoRead::Cbor => {
            ciborium::from_reader(body).map_err(|e| format!("The body is not a CBOR value: {e}"))?
        }
        AlsoRead::Json => return Ok(body.to_vec()),
    };
    serde_json::to_vec(&value).map_err(|e| format!("The body has no JSON form: {e}"))
}

fn too_large(config: &Config) -> Response {
    config.reject(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Request body is larger than {} bytes", config.body_limit),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_removal_date_is_an_http_date_at_midnight_utc() {
        let value = super::sunset_header("2027-06-30").unwrap();
        assert_eq!(value, "Wed, 30 Jun 2027 00:00:00 GMT");
        assert!(super::sunset_header("2027-02-30").is_none());
    }
}
