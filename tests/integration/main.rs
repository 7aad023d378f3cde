//! The crate's integration tests, one module per subject, in one test binary: each
//! binary links the whole dependency tree, so one is linked instead of several.

mod cli;
mod common;
mod conform;
mod docs_site;
mod hostile_clients;
mod import;
mod import_idioms;
mod lsp;
mod mock;
mod module_graph;
mod review;
mod serve_mock;
mod serve_reference;
mod statements;
