//! The service's answers to requests: the generated trait's core implemented (`service`),
//! its parts one module per tag (`endpoints`), the router with its middleware (`http`), and
//! the hosted link widget (`link`). Uses every layer below.

mod endpoints;
pub(crate) mod http;
pub(crate) mod link;
pub(crate) mod service;
