//! The contract: one model of a spec's endpoints, the types their requests carry, their
//! responses, auth and where each fact comes from. `covenant generate` prints it as statics
//! (a generated crate's `descriptors` module); a mock or a conformance runner builds the same
//! values from a spec at start. The router, the client, the mock, the runner and the recorder
//! all read this one model, so none of them projects the spec by hand.
//!
//! Every type borrows for `'a`: statics are `'static`, a contract built at run time borrows
//! from the arena it was built in. [`crate::desc`] names the `'static` forms.

mod endpoint;
mod example;
mod path;
mod schemes;
mod status;
mod types;

pub use endpoint::{
    AlsoRead, BodyMedia, EndpointDesc, Location, ParamDesc, ResponseDesc, ResponseHeader,
    ScalarKind, base_name, is_json_family,
};
pub use example::{Example, mint};
pub use path::{FillError, PathSegment, PathTemplate, TemplateValue, encode_segment};
pub use schemes::{Carrier, Gate, GateRef, Provenance, Scheme, SchemeInfo, SchemeRef};
pub use status::StatusPattern;
pub use types::{
    Constraints, Encoding, EnumDesc, FieldDesc, FieldGroup, GroupRule, ModelDesc, Presence,
    TypeDesc, UnionDesc,
};

/// An endpoint of a contract built at run time: schemes and gates are references into the
/// contract's own tables rather than generated enums.
pub type BuiltEndpoint<'a> = EndpointDesc<'a, SchemeRef<'a>, GateRef<'a>>;

/// An API of a spec: its endpoints share a base address and the shape of the errors a
/// router answers itself.
#[derive(Debug)]
pub struct ApiDesc<'a> {
    pub name: &'a str,
    /// The base address as the spec writes it, e.g. `{base_url}`.
    pub base: &'a str,
    /// The template of the API's error body (`rejections`), when it declares one.
    pub rejections: Option<&'a str>,
}

impl ApiDesc<'_> {
    /// The name a target gives the API's base URL by, as [`base_name`] says.
    pub fn base_name(&self) -> String {
        base_name(self.name, self.base)
    }
}

/// A spec's contract built at run time.
#[derive(Debug)]
pub struct Contract<'a> {
    /// Every API, in spec order.
    pub apis: &'a [ApiDesc<'a>],
    /// Every auth scheme, in spec order.
    pub schemes: &'a [SchemeInfo<'a>],
    /// Every endpoint, in spec order.
    pub endpoints: &'a [BuiltEndpoint<'a>],
}

impl<'a> Contract<'a> {
    /// The endpoint of that name.
    pub fn endpoint(&self, name: &str) -> Option<&'a BuiltEndpoint<'a>> {
        self.endpoints.iter().find(|e| e.name == name)
    }

    /// The endpoint a request calls: the method and the path agree, and of two templates
    /// that match, the one with a literal where they first differ wins (`/users/me` before
    /// `/users/{id}`), as a router's matcher decides.
    pub fn route(&self, method: &str, path: &str) -> Option<&'a BuiltEndpoint<'a>> {
        self.endpoints
            .iter()
            .filter(|e| e.method.as_str().eq_ignore_ascii_case(method) && e.path.matches(path))
            .reduce(|best, e| if e.path.outranks(&best.path) { e } else { best })
    }

    /// Every scheme, as the router passes schemes around.
    pub fn scheme_refs(&self) -> impl Iterator<Item = SchemeRef<'a>> + 'a {
        let table = self.schemes;
        (0..table.len()).map(move |index| SchemeRef::new(index, table))
    }
}
