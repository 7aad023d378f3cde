//! Default bodies for the server trait's methods: an endpoint that declares a 501 the router
//! can write (in the API's rejection shape) answers it until the method is implemented, so
//! an implementation grows endpoint by endpoint. `error 501: Problem` on an api gives every
//! endpoint of it one.

use crate::ir::*;

/// How an endpoint's method answers when it is not implemented: `Some` when its declared
/// 501 has no body, is the API's rejection model, or (with no `rejections`) is a model the
/// default `{"detail": "…"}` is an instance of.
pub fn answers_501(spec: &Spec, ep: &Endpoint) -> bool {
    let Some(declared) = crate::emit::all_responses(spec, ep).find(|r| r.status == 501) else {
        return false;
    };
    let api = spec.api(ep.api);
    match (&declared.body, &api.rejections) {
        (None, _) => true,
        (Some(Type::Model(id)), Some(rejections)) => *id == rejections.model,
        (Some(Type::Model(id)), None) => holds_detail(spec.model(*id)),
        (Some(_), _) => false,
    }
}

/// Whether `{"detail": "text"}` is an instance of the model: a `detail` string without
/// constraints, and no other field required.
fn holds_detail(model: &Model) -> bool {
    let detail_fits = |f: &Field| {
        f.ty == Type::Primitive(Primitive::String)
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
