//! Specs a new user would write, each expanded by `include_spec!` with its server and client
//! halves in an ordinary crate, under `-D warnings`.
//!
//! - [`petstore`], [`github`] and [`payments`]: subsets of three public APIs, written from
//!   their public references, that together use every construct of the language.
//! - [`regressions`]: small specs that `check` once accepted and then failed to generate,
//!   compile or start; each names what broke.

#![deny(warnings)]

/// The Swagger pet store.
pub mod petstore {
    covenant_macros::include_spec!("../specs/petstore.covenant", server, client);
}

/// A subset of GitHub's REST API and its issue webhooks.
pub mod github {
    covenant_macros::include_spec!("../specs/github.covenant", server, client);
}

/// A subset of Stripe's API and its events.
pub mod payments {
    covenant_macros::include_spec!("../specs/payments.covenant", server, client);
}

/// Specs that once passed `check` and then broke later.
pub mod regressions {
    /// Union fields and query parameters with defaults.
    pub mod union_default {
        covenant_macros::include_spec!("../regressions/union_default.covenant", server, client);
    }
    /// Models that contain themselves, directly, through lists, unions and each other.
    pub mod recursive {
        covenant_macros::include_spec!("../regressions/recursive.covenant", server, client);
    }
    /// Wire names that are no Rust identifiers and would map to one.
    pub mod quoted_names {
        covenant_macros::include_spec!("../regressions/quoted_names.covenant", server, client);
    }
    /// Models named like the prelude's types.
    pub mod prelude_names {
        covenant_macros::include_spec!("../regressions/prelude_names.covenant", server, client);
    }
    /// Endpoints named like the server trait's own methods.
    pub mod trait_method_names {
        covenant_macros::include_spec!(
            "../regressions/trait_method_names.covenant",
            server,
            client
        );
    }
    /// Shapes of published OpenAPI documents: a union holding a list of a union, a union
    /// named like an endpoint's input, headers on errors, a DELETE with a body.
    pub mod imported_shapes {
        covenant_macros::include_spec!("../regressions/imported_shapes.covenant", server, client);
    }
    /// Placeholders with text beside them (`{Sid}.json`), one position named apart.
    pub mod affixed_paths {
        covenant_macros::include_spec!("../regressions/affixed_paths.covenant", server, client);
    }
    /// A JSON request body sent as `merge-patch+json`, also read from YAML and CBOR.
    pub mod request_media {
        covenant_macros::include_spec!("../regressions/request_media.covenant", server, client);
    }
    /// Groups of optional fields inside models: exactly, at least and at most one.
    pub mod field_groups {
        covenant_macros::include_spec!("../regressions/field_groups.covenant", server, client);
    }
    /// Lists and objects in queries and forms: joined, and in brackets.
    pub mod encodings {
        covenant_macros::include_spec!("../regressions/encodings.covenant", server, client);
    }
    /// Boolean and number constants, and a union told apart by one.
    pub mod constants {
        covenant_macros::include_spec!("../regressions/constants.covenant", server, client);
    }
    /// Named types: constraints on items and map values, unique items, a union holding itself.
    pub mod named_types {
        covenant_macros::include_spec!("../regressions/named_types.covenant", server, client);
    }
    /// Errors declared for a class of statuses (`4XX`) and for every other (`default`).
    pub mod status_ranges {
        covenant_macros::include_spec!("../regressions/status_ranges.covenant", server, client);
    }
    /// An endpoint refused in an error model of its own, beside the api's shape.
    pub mod endpoint_rejections {
        covenant_macros::include_spec!(
            "../regressions/endpoint_rejections.covenant",
            server,
            client
        );
    }
    /// A deprecated model inside a union, events that type no field.
    pub mod warnings {
        covenant_macros::include_spec!("../regressions/warnings.covenant", server, client);
    }
    /// camelCase and PascalCase names.
    pub mod camel_case {
        covenant_macros::include_spec!("../regressions/camel_case.covenant", server, client);
    }
    /// Answers streamed item by item: server-sent events and JSON lines.
    pub mod streams {
        covenant_macros::include_spec!("../regressions/streams.covenant", server, client);
    }
    /// Headers every endpoint of an api takes.
    pub mod api_headers {
        covenant_macros::include_spec!("../regressions/api_headers.covenant", server, client);
    }
    /// Credentials in every place a scheme can send them, and required scopes.
    pub mod credentials {
        covenant_macros::include_spec!("../regressions/credentials.covenant", server, client);
    }
    /// Headers on responses: Location, ETag and 304, rate-limit counters, Link.
    pub mod response_headers {
        covenant_macros::include_spec!("../regressions/response_headers.covenant", server, client);
    }
    /// Idempotency keys: a create whose repeats are answered as the first request was.
    pub mod idempotency {
        covenant_macros::include_spec!("../regressions/idempotency.covenant", server, client);
    }
    /// Bodies other than JSON: multipart uploads, bytes and text, as requests and responses.
    pub mod media {
        covenant_macros::include_spec!("../regressions/media.covenant", server, client);
    }
    /// Paging by a `Link` header and by the last item's id.
    pub mod paging {
        covenant_macros::include_spec!("../regressions/paging.covenant", server, client);
    }
    /// Deprecated items the generated code uses itself.
    pub mod deprecated_use {
        covenant_macros::include_spec!("../regressions/deprecated_use.covenant", server, client);
    }
}
