//! The crate's integration tests, one module per subject, in one test binary: each
//! binary links the whole dependency tree, so one is linked instead of several.

mod affixed_paths;
mod api_headers;
mod constants;
mod credentials;
mod deprecation;
mod encodings;
mod events;
mod field_groups;
mod form_bodies;
mod fuzz_compile;
mod generated_types;
mod idempotency;
mod imported_shapes;
mod media_bodies;
mod named_types;
mod paging;
mod probes;
mod rejections;
mod request_media;
mod response_headers;
mod round_trip;
mod status_ranges;
mod streams;
mod support;
