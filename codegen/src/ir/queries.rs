//! Questions about an endpoint that every consumer of the IR asks alike: which responses
//! it declares, what a client accepts, which success is open, and where a response's facts
//! come from.

use super::{BodyMedia, Endpoint, Gate, Provenance, Response, Spec};

/// An endpoint's responses: its successes, its errors, then the API's errors it does not
/// override.
pub fn all_responses<'a>(spec: &'a Spec, ep: &'a Endpoint) -> impl Iterator<Item = &'a Response> {
    let api_errors = &spec.api(ep.api).errors;
    ep.responses.iter().chain(&ep.errors).chain(
        api_errors
            .iter()
            .filter(|e| !ep.errors.iter().any(|o| o.status == e.status)),
    )
}

/// The `Accept` header of a request to `ep`: JSON (the router's rejections always are), then
/// the media types of its responses and errors written as they are or streamed.
pub fn accept(spec: &Spec, ep: &Endpoint) -> String {
    let mut media: Vec<&str> = vec!["application/json"];
    for r in all_responses(spec, ep) {
        if let BodyMedia::Raw(m) | BodyMedia::Stream(m) = &r.media
            && !media.contains(&m.as_str())
        {
            media.push(m);
        }
    }
    media.join(", ")
}

/// The success whose body the source does not show, when it is the endpoint's only one:
/// clients read any other 2xx as it.
pub fn open_success(ep: &Endpoint) -> Option<u16> {
    let mut successes = ep
        .responses
        .iter()
        .filter(|r| r.status.exactly_in(200..300));
    match (successes.next(), successes.next()) {
        (Some(only), None) if matches!(only.body, Some(super::Type::NotShown(_))) => {
            only.status.exact()
        }
        _ => None,
    }
}

/// Where a response's facts come from: its own `@source`; a success response without one is
/// part of its endpoint's shape and comes from where the endpoint does. Error statuses are
/// marked one by one.
pub fn response_provenance(ep: &Endpoint, r: &Response) -> Provenance {
    if r.provenance.is_document() && r.status.is_success() {
        ep.provenance
    } else {
        r.provenance
    }
}

/// Every gate of the spec, endpoints' and APIs', in spec order without repeats.
pub fn all_gates(spec: &Spec) -> Vec<Gate> {
    let mut out: Vec<Gate> = Vec::new();
    let api_gates = spec.apis.iter().flat_map(|a| a.gates.iter());
    let endpoint_gates = spec.endpoints.iter().flat_map(|e| e.gates.iter());
    for g in endpoint_gates.chain(api_gates) {
        if !out.contains(g) {
            out.push(g.clone());
        }
    }
    out
}
