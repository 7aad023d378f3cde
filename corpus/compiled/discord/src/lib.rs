//! Discord's API, OpenAPI 3.1:
//! the spec `covenant import` writes from `corpus/openapi`, expanded by `include_spec!`
//! with its server and client halves. That it compiles without a warning is the test.

#![deny(warnings)]

covenant_macros::include_spec!("../../../imported/discord.covenant", server, client);
