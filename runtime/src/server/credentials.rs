//! Finding a request's credentials wherever its schemes say they travel (a header, a Bearer
//! or Basic `Authorization`, a query parameter, a cookie), and the answers to a missing,
//! refused or insufficient one.

use super::{AuthError, Config};
use crate::desc::{Carrier, EndpointDesc, Scheme};
use axum::http::{HeaderValue, StatusCode, header, request::Parts};
use axum::response::Response;
use base64::Engine;
use std::borrow::Cow;

/// A credential found in a request.
#[derive(Debug)]
pub(super) struct Presented<'a, A> {
    /// The schemes the credential may be of, in the spec's order: one, or each accepted
    /// scheme that reads it from the same place (two Bearer schemes).
    pub schemes: Vec<A>,
    pub credential: Cow<'a, str>,
    pub required: bool,
}

/// The credentials a request presents for an endpoint: one of the accepted schemes when the
/// endpoint is not public, and each optional one sent. A missing or malformed required
/// credential is answered here, with the challenges of the accepted schemes.
pub(super) fn presented<'a, A: Scheme, G>(
    config: &Config,
    endpoint: &EndpointDesc<A, G>,
    parts: &'a Parts,
) -> Result<Vec<Presented<'a, A>>, Response> {
    let mut out = Vec::new();
    if !endpoint.public {
        let mut malformed = None;
        let found =
            endpoint
                .auth_any_of
                .iter()
                .find_map(|&scheme| match read(scheme.carrier(), parts) {
                    Ok(found) => found.map(|credential| (scheme, credential)),
                    Err(why) => {
                        malformed.get_or_insert(why);
                        None
                    }
                });
        match (found, malformed) {
            (Some((scheme, credential)), _) => out.push(Presented {
                schemes: endpoint
                    .auth_any_of
                    .iter()
                    .copied()
                    .filter(|s| s.carrier() == scheme.carrier())
                    .collect(),
                credential,
                required: true,
            }),
            (None, Some(why)) => return Err(unauthorized(config, endpoint, &why)),
            (None, None) => {
                let mut message = format!("Missing credentials: send {}", places(endpoint));
                if !endpoint.auth_all_of.is_empty() {
                    message.push_str(&format!(", with {}", each_place(endpoint.auth_all_of)));
                }
                return Err(unauthorized(config, endpoint, &message));
            }
        }
        out.extend(sent_together(config, endpoint, parts)?);
    }
    for &scheme in endpoint.auth_optional {
        match read(scheme.carrier(), parts) {
            Ok(Some(credential)) => out.push(Presented {
                schemes: vec![scheme],
                credential,
                required: false,
            }),
            Ok(None) => {}
            Err(why) => return Err(unauthorized(config, endpoint, &why)),
        }
    }
    Ok(out)
}

/// The credentials sent with the accepted one (`auth a & b`), each required: a request
/// missing some is answered with every place it left empty.
fn sent_together<'a, A: Scheme, G>(
    config: &Config,
    endpoint: &EndpointDesc<A, G>,
    parts: &'a Parts,
) -> Result<Vec<Presented<'a, A>>, Response> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for &scheme in endpoint.auth_all_of {
        match read(scheme.carrier(), parts) {
            Ok(Some(credential)) => out.push(Presented {
                schemes: vec![scheme],
                credential,
                required: false,
            }),
            Ok(None) => missing.push(scheme),
            Err(why) => return Err(unauthorized(config, endpoint, &why)),
        }
    }
    if missing.is_empty() {
        return Ok(out);
    }
    let message = format!("Missing credentials: send {} as well", each_place(&missing));
    Err(unauthorized(config, endpoint, &message))
}

/// Each scheme's place in words, joined with `and`.
fn each_place<A: Scheme>(schemes: &[A]) -> String {
    let places: Vec<String> = schemes.iter().map(|s| s.carrier().describe()).collect();
    match places.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => places.concat(),
    }
}

/// Where the endpoint's credentials may be sent, in words: `the A or B header` when each is
/// a named header, else each place in turn.
fn places<A: Scheme, G>(endpoint: &EndpointDesc<A, G>) -> String {
    let carriers = endpoint.auth_any_of.iter().map(|s| s.carrier());
    let headers: Option<Vec<&str>> = carriers
        .clone()
        .map(|c| match c {
            Carrier::Header(name) => Some(name),
            _ => None,
        })
        .collect();
    match headers {
        Some(names) => format!("the {} header", distinct(names, true).join(" or ")),
        None => distinct(carriers.map(|c| c.describe()).collect(), false).join(" or "),
    }
}

/// The places in their order, each once: schemes may share one (two bearer tokens, one
/// header). Header names compare without case (`any_case`).
fn distinct<S: AsRef<str>>(places: Vec<S>, any_case: bool) -> Vec<S> {
    let same = |a: &str, b: &str| {
        if any_case {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    let mut out: Vec<S> = Vec::with_capacity(places.len());
    for place in places {
        if !out.iter().any(|seen| same(seen.as_ref(), place.as_ref())) {
            out.push(place);
        }
    }
    out
}

/// The credential `carrier` finds in a request: none, one, or one that cannot be read
/// (Basic credentials that are not base64 of `user:password`).
fn read(carrier: Carrier, parts: &Parts) -> Result<Option<Cow<'_, str>>, String> {
    match carrier {
        Carrier::Header(name) => Ok(parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(borrowed)),
        Carrier::Bearer => Ok(authorization(parts, "Bearer").and_then(borrowed)),
        Carrier::Basic => match authorization(parts, "Basic") {
            None => Ok(None),
            Some(encoded) => decode_basic(encoded).map(|c| Some(Cow::Owned(c))),
        },
        Carrier::Query(name) => Ok(parts.uri.query().and_then(|q| {
            form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| non_empty(v))
        })),
        Carrier::Cookie(name) => Ok(parts
            .headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| borrowed(v.trim_matches('"')))),
    }
}

fn borrowed(value: &str) -> Option<Cow<'_, str>> {
    non_empty(Cow::Borrowed(value))
}

/// The value without surrounding whitespace, borrowed where it was; `None` when nothing is
/// left.
fn non_empty(value: Cow<'_, str>) -> Option<Cow<'_, str>> {
    if value.trim().is_empty() {
        return None;
    }
    Some(match value {
        Cow::Borrowed(v) => Cow::Borrowed(v.trim()),
        Cow::Owned(v) => Cow::Owned(v.trim().to_string()),
    })
}

/// The rest of an `Authorization` header whose scheme word is `scheme` (any case).
fn authorization<'a>(parts: &'a Parts, scheme: &str) -> Option<&'a str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (word, rest) = value.trim().split_once(' ')?;
    word.eq_ignore_ascii_case(scheme).then_some(rest)
}

fn decode_basic(encoded: &str) -> Result<String, String> {
    let malformed = || {
        "Malformed Basic credentials: send base64 of user:password in the Authorization header"
            .to_string()
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| malformed())?;
    let text = String::from_utf8(bytes).map_err(|_| malformed())?;
    if text.contains(':') {
        Ok(text)
    } else {
        Err(malformed())
    }
}

/// 401 with a `WWW-Authenticate` challenge for each HTTP scheme the endpoint accepts.
fn unauthorized<A: Scheme, G>(
    config: &Config,
    endpoint: &EndpointDesc<A, G>,
    message: &str,
) -> Response {
    let mut response = config.reject(StatusCode::UNAUTHORIZED, message);
    let mut challenges: Vec<&str> = Vec::new();
    for scheme in endpoint.auth_any_of {
        let challenge = match scheme.carrier() {
            Carrier::Bearer => "Bearer",
            Carrier::Basic => "Basic realm=\"api\", charset=\"UTF-8\"",
            _ => continue,
        };
        if !challenges.contains(&challenge) {
            challenges.push(challenge);
        }
    }
    for challenge in challenges {
        response.headers_mut().append(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
    }
    response
}

/// The response to a credential the service refused.
pub(super) fn refused<A: Scheme, G>(
    config: &Config,
    endpoint: &EndpointDesc<A, G>,
    scheme: A,
    e: AuthError,
) -> Response {
    let place = scheme.carrier().describe();
    match e {
        AuthError::Unknown => {
            unauthorized(config, endpoint, &format!("Invalid credentials in {place}"))
        }
        AuthError::WrongKind => config.reject(
            StatusCode::FORBIDDEN,
            &format!("The credential in {place} is of another kind and is not accepted here"),
        ),
        AuthError::Unavailable => unavailable(config),
        AuthError::Fault => config.reject(
            StatusCode::INTERNAL_SERVER_ERROR,
            super::Rejection::INTERNAL,
        ),
    }
}

/// The scopes a credential presented under `scheme` must hold at `endpoint`.
pub(super) fn required_scopes<A: Scheme, G>(
    endpoint: &EndpointDesc<A, G>,
    scheme: A,
) -> &'static [&'static str] {
    endpoint
        .auth_scopes
        .iter()
        .find(|(s, _)| *s == scheme || *s == scheme.primary())
        .map_or(&[], |(_, scopes)| *scopes)
}

/// 403 for a credential without the scopes an endpoint needs, with the RFC 6750 challenge
/// naming them when the credential is a Bearer token.
pub(super) fn insufficient_scope<A: Scheme>(
    config: &Config,
    scheme: A,
    scopes: &[&str],
) -> Response {
    let mut response = config.reject(
        StatusCode::FORBIDDEN,
        &format!(
            "The credential lacks a scope this endpoint needs: it needs {}",
            scopes.join(", ")
        ),
    );
    if scheme.carrier() == Carrier::Bearer {
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\"",
            scopes.join(" ")
        );
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
    }
    response
}

pub(super) fn unavailable(config: &Config) -> Response {
    config.unavailable("The service cannot check credentials now; retry shortly")
}

#[cfg(test)]
mod tests {
    use super::distinct;

    #[test]
    fn a_place_two_schemes_share_is_named_once() {
        assert_eq!(
            distinct(vec!["X-Key", "x-key", "X-Other"], true),
            ["X-Key", "X-Other"]
        );
        let described = vec![
            "a bearer token".to_string(),
            "a bearer token".to_string(),
            "the key query parameter".to_string(),
        ];
        assert_eq!(
            distinct(described, false).join(" or "),
            "a bearer token or the key query parameter"
        );
    }
}
