//! The crate's integration tests, one module per subject, in one test binary: each
//! binary links the whole dependency tree, so one is linked instead of several.

mod bounds;
mod coverage;
mod diagnostics;
mod diff;
mod diff_history;
mod docs;
mod format;
mod fuzz_inputs;
mod fuzz_parser;
mod other_specs;
mod print;
mod provenance;
mod samples;
