//! The Swagger pet store, OpenAPI 3.0 in YAML:
//! the spec `covenant import` writes from `corpus/openapi`, expanded by `include_spec!`
//! with its server and client halves. That it compiles without a warning is the test.

#![deny(warnings)]

covenant_macros::include_spec!("../../../imported/petstore.covenant", server, client);
