//! The crate's integration tests, one module per subject, in one test binary: each
//! binary links the whole dependency tree, so one is linked instead of several.

mod cassette_errors;
mod events;
mod faulty;
mod media_bodies;
mod response_headers;
mod run_verdict;
mod status_ranges;
mod streams;
mod support;
