//! Default bodies for the server trait's methods: an endpoint that declares a 501 the router
//! can write (in the API's rejection shape) answers it until the method is implemented, so
//! an implementation grows endpoint by endpoint. `error 501: Problem` on an api gives every
//! endpoint of it one.

use crate::ir::*;

/// Whether an endpoint's method answers its declared 501 until implemented: when the 501 is
/// one a rejection can be written into ([`super::rejections::fits`]).
pub fn answers_501(spec: &Spec, ep: &Endpoint) -> bool {
    crate::ir::all_responses(spec, ep)
        .find(|r| r.status == StatusPattern::Exact(501))
        .is_some_and(|declared| super::rejections::fits(spec, ep, declared))
}
