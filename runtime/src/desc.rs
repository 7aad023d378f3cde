//! The contract as statics: the `'static` forms of [`crate::contract`]'s types, which a
//! generated crate's `descriptors` module declares and the router and the client read.

pub use crate::contract::{
    BodyMedia, Carrier, Encoding, Gate, GroupRule, Location, PathSegment, PathTemplate, Presence,
    Provenance, ResponseHeader, ScalarKind, Scheme, StatusPattern,
};

/// An endpoint, with the spec's auth schemes `A` and gates `G`.
pub type EndpointDesc<A, G> = crate::contract::EndpointDesc<'static, A, G>;
pub type TypeDesc = crate::contract::TypeDesc<'static>;
pub type ModelDesc = crate::contract::ModelDesc<'static>;
pub type FieldGroup = crate::contract::FieldGroup<'static>;
pub type EnumDesc = crate::contract::EnumDesc<'static>;
pub type UnionDesc = crate::contract::UnionDesc<'static>;
pub type FieldDesc = crate::contract::FieldDesc<'static>;
pub type ParamDesc = crate::contract::ParamDesc<'static>;
pub type Constraints = crate::contract::Constraints<'static>;
pub type ResponseDesc = crate::contract::ResponseDesc<'static>;

/// Descriptor fixtures for the runtime's own tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    pub const fn param(
        location: Location,
        name: &'static str,
        ty: TypeDesc,
        presence: Presence,
    ) -> ParamDesc {
        ParamDesc {
            location,
            field: FieldDesc {
                name,
                ty,
                presence,
                has_default: false,
                format: true,
                constraints: Constraints::NONE,
                encoding: crate::contract::Encoding::Repeated,
            },
        }
    }

    /// A public endpoint with these parameters and a JSON object body.
    pub const fn endpoint(
        method: http::Method,
        path: &'static str,
        segments: &'static [PathSegment<'static>],
        params: &'static [ParamDesc],
    ) -> EndpointDesc<(), ()> {
        EndpointDesc {
            name: "fixture",
            base: "{base_url}",
            api: "fixture",
            method,
            path: PathTemplate::new(path, segments),
            public: true,
            auth_any_of: &[],
            auth_all_of: &[],
            auth_optional: &[],
            auth_scopes: &[],
            params,
            body: Some(&TypeDesc::Object),
            body_media: BodyMedia::Json,
            body_also: &[],
            gates: &[],
            idempotent: false,
            idempotency_key: None,
            exactly_one_of: &[],
            accept: "application/json",
            statuses: &[crate::contract::StatusPattern::Exact(200)],
            responses: &[],
            rejected_at: &[],
            rejection_shape: None,
            open_success: None,
            provenance: Provenance::Document,
            tags: &[],
            sunset: None,
            rejections: None,
        }
    }
}
