//! What a generated client needs beyond reqwest: laying a typed input out as a request,
//! credentials, retries with backoff that honour `Retry-After`, typed errors that carry the
//! service's `detail`, and paging streams.

mod layout;
mod paging;

pub use layout::{Layout, LayoutError, layout};
pub use paging::{PageRequest, next_link, next_page, next_url, paginate};

use crate::contract::StatusPattern;
use crate::desc::{Carrier, EndpointDesc, Scheme};
pub use futures_util::{Stream, StreamExt};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;
pub use tokio::time::{Instant, sleep};

/// When and how often to try again.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    /// Further attempts after the first, on 429, 5xx, timeouts and connection errors.
    pub max_retries: u32,
    /// Backoff before the first retry; doubled each time up to `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// Retry calls that are not idempotent (POST, PATCH) too. Off: a repeated POST could
    /// act twice.
    pub retry_non_idempotent: bool,
    /// The longest `Retry-After` waited for; a longer one ends the retries and the response
    /// is returned as it is.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(10),
            retry_non_idempotent: false,
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    pub fn never() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.min(16));
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

/// Settings of a generated client whose spec has the auth schemes `A`.
#[derive(Clone, Debug)]
pub struct Config<A> {
    /// The address used for every API whose base is not set in `base_urls`.
    pub default_base_url: String,
    /// Addresses by the base the spec writes (`{management_url}`).
    pub base_urls: HashMap<String, String>,
    /// Credentials by auth scheme.
    pub credentials: HashMap<A, String>,
    /// Per attempt.
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// The wall clock, for `Retry-After` dates; injectable so tests need not wait.
    pub now: fn() -> std::time::SystemTime,
    /// Check each input against the spec's constraints before sending it, so a bad input
    /// fails at once with every problem named ([`ClientError::Invalid`]) instead of a 422
    /// from the service. On by default; off to send what the service should refuse.
    pub check_inputs: bool,
}

impl<A: Scheme> Config<A> {
    pub fn new(base_url: impl Into<String>) -> Self {
        Config {
            default_base_url: base_url.into(),
            base_urls: HashMap::new(),
            credentials: HashMap::new(),
            timeout: Duration::from_secs(30),
            retry: RetryPolicy::default(),
            now: std::time::SystemTime::now,
            check_inputs: true,
        }
    }

    /// Whether inputs are checked against the spec before they are sent.
    pub fn with_input_checks(mut self, check: bool) -> Self {
        self.check_inputs = check;
        self
    }

    /// The credential sent for `scheme`: the key or token itself, wherever the scheme says it
    /// travels; `user:password` for a Basic scheme (without `:` it is a user name with an
    /// empty password, which the service receives as `user:`).
    pub fn with_credential(mut self, scheme: A, credential: impl Into<String>) -> Self {
        self.credentials.insert(scheme, credential.into());
        self
    }

    pub fn with_base_url(mut self, spec_base: &str, url: impl Into<String>) -> Self {
        self.base_urls.insert(spec_base.to_string(), url.into());
        self
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }
}

/// Why a call did not produce a response of a declared status.
#[derive(Debug)]
pub enum ClientError {
    /// No configured credential is one the endpoint accepts.
    NoCredential {
        endpoint: &'static str,
        accepted: Vec<&'static str>,
    },
    /// The input breaks the spec's constraints: nothing was sent. Every problem is named,
    /// located as the router would locate it (`body.amount`, `query.limit`).
    Invalid {
        endpoint: &'static str,
        issues: Vec<crate::Issue>,
    },
    /// The input could not be laid out as a request.
    Encode(String),
    /// Connection failure, after retries.
    Transport(reqwest::Error),
    /// No answer within the timeout, after retries.
    Timeout { endpoint: &'static str },
    /// A status the spec does not declare for this endpoint, with the service's `detail`
    /// when the body has one.
    UnexpectedStatus {
        status: u16,
        detail: Option<Value>,
        body: String,
    },
    /// A declared status whose body does not fit its type.
    Decode {
        status: u16,
        message: String,
        body: String,
    },
    /// `call_by_name` with a name the spec does not have.
    UnknownEndpoint(String),
    /// A paging or waiting helper met a response that is not the listing's success.
    NotAPage { status: u16 },
    /// A waiting helper gave up.
    WaitTimedOut { waited: Duration },
    /// A page link pointing away from the API's own address: not followed with its
    /// credentials.
    ForeignLink(String),
}

impl ClientError {
    pub fn encode(e: impl std::fmt::Display) -> Self {
        ClientError::Encode(e.to_string())
    }

    /// The service's `detail`, where the failure carries one.
    pub fn detail(&self) -> Option<&Value> {
        match self {
            ClientError::UnexpectedStatus { detail, .. } => detail.as_ref(),
            _ => None,
        }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::NoCredential { endpoint, accepted } => {
                write!(
                    f,
                    "no credential configured for {endpoint}; it accepts {}",
                    accepted.join(" or ")
                )
            }
            ClientError::Invalid { endpoint, issues } => {
                let problems: Vec<String> = issues.iter().map(ToString::to_string).collect();
                write!(f, "invalid input for {endpoint}: {}", problems.join("; "))
            }
            ClientError::Encode(e) => write!(f, "input does not encode: {e}"),
            ClientError::Transport(e) => write!(f, "transport error: {e}"),
            ClientError::Timeout { endpoint } => write!(f, "{endpoint} timed out"),
            ClientError::UnexpectedStatus {
                status,
                detail,
                body,
            } => match detail {
                Some(d) => write!(f, "undeclared status {status}: {d}"),
                None => write!(f, "undeclared status {status}: {body}"),
            },
            ClientError::Decode {
                status, message, ..
            } => write!(f, "status {status} body does not fit: {message}"),
            ClientError::UnknownEndpoint(name) => write!(f, "no endpoint named {name}"),
            ClientError::NotAPage { status, .. } => {
                write!(f, "expected a page, got status {status}")
            }
            ClientError::WaitTimedOut { waited } => write!(f, "gave up waiting after {waited:?}"),
            ClientError::ForeignLink(url) => {
                write!(f, "not following {url}: it is not on the API's address")
            }
        }
    }
}

impl std::error::Error for ClientError {}

/// A response as received.
#[derive(Debug)]
pub struct Reply {
    /// The statuses the endpoint declares.
    pub declared: &'static [StatusPattern],
    /// The success any other 2xx reads as, when the source does not show the success.
    pub open_success: Option<u16>,
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
    /// Where the response came from: relative links in it resolve against this.
    pub url: reqwest::Url,
}

impl Reply {
    /// Reads the headers and body into a response type when its status is declared. Unknown
    /// fields and unknown values of open enums are tolerated by the types.
    pub fn decode<T>(
        self,
        read: fn(u16, &reqwest::header::HeaderMap, &[u8]) -> Result<T, String>,
    ) -> Result<T, ClientError> {
        let named = |status: u16, patterns: &[StatusPattern]| {
            patterns
                .iter()
                .any(|p| *p != StatusPattern::Default && p.covers(status))
        };
        let status = match self.open_success {
            Some(open)
                if (200..300).contains(&self.status) && !named(self.status, self.declared) =>
            {
                open
            }
            _ => self.status,
        };
        if !self.declared.iter().any(|p| p.covers(status)) {
            let detail = serde_json::from_slice::<Value>(&self.body)
                .ok()
                .and_then(|v| v.get("detail").cloned());
            return Err(ClientError::UnexpectedStatus {
                status: self.status,
                detail,
                body: String::from_utf8_lossy(&self.body).into_owned(),
            });
        }
        read(status, &self.headers, &self.body).map_err(|message| ClientError::Decode {
            status: self.status,
            message,
            body: String::from_utf8_lossy(&self.body).into_owned(),
        })
    }
}

/// Sends requests laid out from endpoint descriptors.
#[derive(Clone, Debug)]
pub struct Transport<A> {
    http: reqwest::Client,
    /// For endpoints that declare a redirect (3xx): the caller gets the declared response,
    /// its `Location` included, rather than wherever it points.
    declared_redirects: reqwest::Client,
    config: Config<A>,
}

impl<A: Scheme> Transport<A> {
    pub fn new(config: Config<A>) -> Result<Self, ClientError> {
        let http = reqwest::Client::builder()
            .build()
            .map_err(ClientError::Transport)?;
        let declared_redirects = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(ClientError::Transport)?;
        Ok(Transport {
            http,
            declared_redirects,
            config,
        })
    }

    pub fn config(&self) -> &Config<A> {
        &self.config
    }

    /// One call, retried per the policy when the endpoint is idempotent (or retries of
    /// other calls are asked for).
    pub async fn send<I: serde::Serialize + crate::Validate, G>(
        &self,
        endpoint: &'static EndpointDesc<A, G>,
        input: &I,
    ) -> Result<Reply, ClientError> {
        if self.config.check_inputs {
            input.validate().map_err(|issues| ClientError::Invalid {
                endpoint: endpoint.name,
                issues,
            })?;
        }
        let request = self.request(endpoint, input)?;
        self.dispatch(endpoint, request).await
    }

    /// Follows a URL the service gave for the next page of `endpoint` (a `Link` header),
    /// with the endpoint's credentials and the header parameters of `input`, the first
    /// page's. A URL on another origin than the endpoint's base is refused: the credentials
    /// stay home.
    pub async fn follow<I: serde::Serialize, G>(
        &self,
        endpoint: &'static EndpointDesc<A, G>,
        link: &str,
        input: &I,
    ) -> Result<Reply, ClientError> {
        let foreign = || ClientError::ForeignLink(link.to_string());
        let base = reqwest::Url::parse(self.base_of(endpoint)).map_err(|_| foreign())?;
        let mut url = base.join(link).map_err(|_| foreign())?;
        if url.origin() != base.origin() {
            return Err(foreign());
        }
        let credentials = self.credentials(endpoint)?;
        for (carrier, credential) in &credentials {
            if let Carrier::Query(name) = carrier
                && !url.query_pairs().any(|(k, _)| k == *name)
            {
                url.query_pairs_mut().append_pair(name, credential);
            }
        }
        let mut request = self
            .client_for(endpoint)
            .get(url)
            .header("accept", endpoint.accept);
        for (name, value) in layout(endpoint, input)
            .map_err(ClientError::encode)?
            .headers
        {
            request = request.header(name, value);
        }
        let request = authorized(request, credentials);
        self.dispatch(endpoint, request).await
    }

    /// Sends a request, retried per the policy when the endpoint is idempotent (or retries
    /// of other calls are asked for), and reads the reply.
    async fn dispatch<G>(
        &self,
        endpoint: &'static EndpointDesc<A, G>,
        request: reqwest::RequestBuilder,
    ) -> Result<Reply, ClientError> {
        let policy = &self.config.retry;
        let may_retry = endpoint.idempotent || policy.retry_non_idempotent;
        let mut attempt = 0;
        loop {
            let sent = request
                .try_clone()
                .map(|r| r.timeout(self.config.timeout).send());
            let outcome = match sent {
                Some(fut) => fut.await,
                None => {
                    return Err(ClientError::Encode(
                        "request body cannot be replayed".into(),
                    ));
                }
            };
            let wait = match &outcome {
                Ok(response)
                    if response.status().as_u16() == 429 || response.status().is_server_error() =>
                {
                    match retry_after(response.headers(), self.config.now) {
                        // The service names its wait: honour it whole, or give up.
                        Some(after) if after > policy.max_retry_after => None,
                        Some(after) => Some(after),
                        None => Some(policy.backoff(attempt)),
                    }
                }
                Ok(_) => None,
                Err(e) if e.is_timeout() || e.is_connect() => Some(policy.backoff(attempt)),
                Err(_) => None,
            };
            if let (Some(wait), true) = (wait, may_retry && attempt < policy.max_retries) {
                tracing::debug!(endpoint = endpoint.name, attempt, ?wait, "retrying");
                tokio::time::sleep(wait).await;
                attempt += 1;
                continue;
            }
            return match outcome {
                Ok(response) => {
                    let status = response.status().as_u16();
                    let headers = response.headers().clone();
                    let url = response.url().clone();
                    let body = Vec::from(response.bytes().await.map_err(ClientError::Transport)?);
                    Ok(Reply {
                        declared: endpoint.statuses,
                        open_success: endpoint.open_success,
                        status,
                        headers,
                        body,
                        url,
                    })
                }
                Err(e) if e.is_timeout() => Err(ClientError::Timeout {
                    endpoint: endpoint.name,
                }),
                Err(e) => Err(ClientError::Transport(e)),
            };
        }
    }

    /// Method, URL with path and query parameters, headers with credentials, JSON body.
    fn request<I: serde::Serialize, G>(
        &self,
        endpoint: &'static EndpointDesc<A, G>,
        input: &I,
    ) -> Result<reqwest::RequestBuilder, ClientError> {
        let parts = layout(endpoint, input).map_err(ClientError::encode)?;
        let base = self.base_of(endpoint).trim_end_matches('/');
        let credentials = self.credentials(endpoint)?;
        let mut query = parts.query;
        for (carrier, credential) in &credentials {
            if let Carrier::Query(name) = carrier {
                query.push((name.to_string(), credential.clone()));
            }
        }
        let mut url = format!("{base}{}", parts.path);
        if !query.is_empty() {
            url.push('?');
            url.push_str(
                &form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(&query)
                    .finish(),
            );
        }
        let mut request = self
            .client_for(endpoint)
            .request(endpoint.method.clone(), url)
            .header("accept", endpoint.accept);
        // A key of its own for every call, kept across its retries, so a retried call that
        // did reach the service is answered as the first was.
        if let Some(key_header) = endpoint.idempotency_key
            && !parts
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(key_header))
        {
            request = request.header(key_header, uuid::Uuid::new_v4().to_string());
        }
        for (name, value) in parts.headers {
            request = request.header(name, value);
        }
        request = authorized(request, credentials);
        if let (Some(body), Some(content_type)) = (parts.body, parts.content_type) {
            request = request.header("content-type", content_type).body(body);
        }
        Ok(request)
    }

    /// The URL `endpoint`'s API is served at.
    fn base_of<G>(&self, endpoint: &'static EndpointDesc<A, G>) -> &str {
        self.config
            .base_urls
            .get(endpoint.base)
            .unwrap_or(&self.config.default_base_url)
    }

    /// The HTTP client for `endpoint`: one that does not follow redirects when it declares
    /// one (a 304 is no redirect).
    fn client_for<G>(&self, endpoint: &'static EndpointDesc<A, G>) -> &reqwest::Client {
        const REDIRECTS: [u16; 5] = [301, 302, 303, 307, 308];
        if endpoint.statuses.iter().any(|s| {
            REDIRECTS
                .iter()
                .any(|r| s.covers(*r) && *s != StatusPattern::Default)
        }) {
            &self.declared_redirects
        } else {
            &self.http
        }
    }

    /// The first accepted scheme with a configured credential (a deprecated second header
    /// is used only when its primary has none), those sent together with it, and every
    /// optional one configured, each with where it travels.
    fn credentials<G>(
        &self,
        endpoint: &'static EndpointDesc<A, G>,
    ) -> Result<Vec<(Carrier, String)>, ClientError> {
        let creds = &self.config.credentials;
        let lookup = |scheme: A| creds.get(&scheme.primary()).or_else(|| creds.get(&scheme));
        let mut out = Vec::new();
        if !endpoint.public {
            let is_primary = |s: &&A| s.primary() == **s;
            let primary = endpoint
                .auth_any_of
                .iter()
                .filter(is_primary)
                .chain(endpoint.auth_any_of.iter().filter(|s| !is_primary(s)))
                .find_map(|&s| lookup(s).map(|c| (s.carrier(), c.clone())));
            match primary {
                Some(found) => out.push(found),
                None => {
                    return Err(ClientError::NoCredential {
                        endpoint: endpoint.name,
                        accepted: endpoint.auth_any_of.iter().map(|s| s.name()).collect(),
                    });
                }
            }
            for &scheme in endpoint.auth_all_of {
                match lookup(scheme) {
                    Some(credential) => out.push((scheme.carrier(), credential.clone())),
                    None => {
                        return Err(ClientError::NoCredential {
                            endpoint: endpoint.name,
                            accepted: vec![scheme.name()],
                        });
                    }
                }
            }
        }
        out.extend(
            endpoint
                .auth_optional
                .iter()
                .filter_map(|&s| creds.get(&s).map(|c| (s.carrier(), c.clone()))),
        );
        Ok(out)
    }
}

/// `request` with each credential where its scheme says it travels, but the query's (which
/// the URL carries).
fn authorized(
    mut request: reqwest::RequestBuilder,
    credentials: Vec<(Carrier, String)>,
) -> reqwest::RequestBuilder {
    let mut cookies = Vec::new();
    for (carrier, credential) in credentials {
        request = match carrier {
            Carrier::Header(name) => request.header(name, credential),
            Carrier::Bearer => request.bearer_auth(credential),
            Carrier::Basic => match credential.split_once(':') {
                Some((user, password)) => request.basic_auth(user, Some(password)),
                None => request.basic_auth(credential, None::<&str>),
            },
            Carrier::Cookie(name) => {
                cookies.push(format!("{name}={credential}"));
                request
            }
            Carrier::Query(_) => request,
        };
    }
    if !cookies.is_empty() {
        request = request.header("cookie", cookies.join("; "));
    }
    request
}

/// `Retry-After` as seconds or an HTTP date.
fn retry_after(
    headers: &reqwest::header::HeaderMap,
    now: fn() -> std::time::SystemTime,
) -> Option<Duration> {
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now()).unwrap_or_default())
}
