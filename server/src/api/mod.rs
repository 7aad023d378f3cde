//! The service's answers to requests: the generated trait implemented (`service`), the
//! router with its middleware (`http`), and the hosted link widget (`link`). Uses every layer
//! below.

pub(crate) mod http;
pub(crate) mod link;
pub(crate) mod service;
