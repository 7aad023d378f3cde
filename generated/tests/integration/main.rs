//! The crate's integration tests, one module per subject, in one test binary: each
//! binary links the whole dependency tree, so one is linked instead of several.

mod agreement;
mod auth;
mod client_behaviour;
mod documents;
mod features;
mod http;
mod malformed;
mod round_trip;
mod router_fuzz;
mod support;
mod webhooks;
