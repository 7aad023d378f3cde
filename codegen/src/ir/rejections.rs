//! Which declared error responses a rejection can be written into, in its API's rejection
//! shape: the statuses a handler's rejection is answered at (an endpoint's `rejected_at`),
//! and the 501 an unimplemented method answers until it is written.

use super::*;

/// Whether the rejection shape of the endpoint's API writes an instance of this response's
/// body: no body, the API's rejection model, or (with no `rejections`) a model that
/// `{"detail": "…"}` is an instance of (`{"detail": [issues]}` for a 422). Responses with
/// headers or raw bodies are never written from a rejection.
pub fn fits(spec: &Spec, ep: &Endpoint, response: &Response) -> bool {
    if response.status.is_success() || !response.headers.is_empty() {
        return false;
    }
    if matches!(response.media, BodyMedia::Raw(_)) && response.body.is_some() {
        return false;
    }
    match (&response.body, spec.rejections(ep)) {
        (None, _) => true,
        (Some(Type::Model(id)), Some(rejections)) => *id == rejections.model,
        (Some(Type::Model(id)), None) if response.status == StatusPattern::Exact(422) => {
            holds_issues(spec, spec.model(*id))
        }
        (Some(Type::Model(id)), None) => holds_detail(spec.model(*id)),
        (Some(_), _) => false,
    }
}

/// The declared error statuses of an endpoint a rejection can be written into, in order.
pub fn fitting_statuses(spec: &Spec, ep: &Endpoint) -> Vec<StatusPattern> {
    all_responses(spec, ep)
        .filter(|r| fits(spec, ep, r))
        .map(|r| r.status)
        .collect()
}

/// Whether an endpoint's method answers its declared 501 until implemented: when the 501 is
/// one a rejection can be written into ([`fits`]). `error 501: Problem` on an api gives
/// every endpoint of it one, so an implementation grows endpoint by endpoint.
pub fn answers_501(spec: &Spec, ep: &Endpoint) -> bool {
    all_responses(spec, ep)
        .find(|r| r.status == StatusPattern::Exact(501))
        .is_some_and(|declared| fits(spec, ep, declared))
}

/// Whether `{"detail": "text"}` is an instance of the model: a `detail` string without
/// constraints, and no other field required.
fn holds_detail(model: &Model) -> bool {
    only_detail_required(model, |ty| *ty == Type::Primitive(Primitive::String))
}

/// Whether `{"detail": [issues]}` is: a `detail` list of issue-shaped models without
/// constraints, and no other field required.
fn holds_issues(spec: &Spec, model: &Model) -> bool {
    only_detail_required(model, |ty| match ty {
        Type::List(item, _) => matches!(&**item, Type::Model(id) if issue_shaped(spec.model(*id))),
        _ => false,
    })
}

/// Whether `{"loc": […], "msg": "…", "type": "…"}` is an instance of the model: those
/// three fields, and no other required.
fn issue_shaped(model: &Model) -> bool {
    const ISSUE: [&str; 3] = ["loc", "msg", "type"];
    ISSUE
        .iter()
        .all(|name| model.fields.iter().any(|f| f.name == *name))
        && model
            .fields
            .iter()
            .all(|f| ISSUE.contains(&f.name.as_str()) || f.presence.may_be_absent())
}

fn only_detail_required(model: &Model, detail_type: impl Fn(&Type) -> bool) -> bool {
    let detail_fits = |f: &Field| {
        detail_type(&f.ty)
            && f.constraints.is_empty()
            && matches!(f.presence, Presence::Required | Presence::Optional)
    };
    model
        .fields
        .iter()
        .any(|f| f.name == "detail" && detail_fits(f))
        && model
            .fields
            .iter()
            .all(|f| f.name == "detail" || f.presence.may_be_absent())
}
