//! Static descriptors of a spec's types and endpoints, emitted by `covenant generate`. The
//! router reads them to authenticate and to explain a rejected request (see [`crate::walk`]);
//! the client reads them to lay a request out.

use crate::issue::Pattern;
use std::fmt;

/// An auth scheme of a spec: the generated `AuthScheme` enum.
pub trait Scheme: Copy + Eq + std::hash::Hash + fmt::Debug + Send + Sync + 'static {
    /// The scheme's name in the spec.
    fn name(self) -> &'static str;
    /// Where the credential travels.
    fn carrier(self) -> Carrier;
    /// The scheme a credential in this header authenticates as: itself, or the scheme it
    /// is a second (deprecated) header of.
    fn primary(self) -> Self;
}

/// Where a credential travels in a request, and how it is written there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carrier {
    /// The whole value of a named header.
    Header(&'static str),
    /// `Authorization: Bearer <token>` (RFC 6750); OAuth2 access tokens travel so.
    Bearer,
    /// `Authorization: Basic <base64 of user:password>` (RFC 7617). The service is given
    /// the decoded `user:password`, and a client configures that text.
    Basic,
    /// A query parameter.
    Query(&'static str),
    /// A cookie.
    Cookie(&'static str),
}

impl Carrier {
    /// Where to send the credential, in words for an error message.
    pub fn describe(self) -> String {
        match self {
            Carrier::Header(name) => format!("the {name} header"),
            Carrier::Bearer => "a Bearer token in the Authorization header".to_string(),
            Carrier::Basic => "Basic credentials in the Authorization header".to_string(),
            Carrier::Query(name) => format!("the {name} query parameter"),
            Carrier::Cookie(name) => format!("the {name} cookie"),
        }
    }

    /// The `Authorization` scheme word, for carriers that use one.
    pub fn authorization_scheme(self) -> Option<&'static str> {
        match self {
            Carrier::Bearer => Some("Bearer"),
            Carrier::Basic => Some("Basic"),
            _ => None,
        }
    }
}

/// A feature or plan an endpoint requires: the generated `Gate` enum.
pub trait Gate: Copy + Eq + fmt::Debug + Send + Sync + 'static {
    /// The `detail` of the 403 answered when the gate is closed.
    fn refusal(self) -> String;
}

/// The type of a value.
#[derive(Debug)]
pub enum TypeDesc {
    String,
    Int,
    Number,
    Bool,
    Uuid,
    Date,
    DateTime,
    Email,
    Uri,
    TimeZone,
    Object,
    Any,
    /// Base64 text inside JSON; raw as a body or a multipart part.
    Bytes,
    /// A file part of a multipart body; `{filename, content_type, content}` inside JSON.
    File,
    /// A value the source leaves open: anything goes.
    NotShown,
    Model(&'static ModelDesc),
    Enum(&'static EnumDesc),
    List(&'static TypeDesc),
    /// An object with free keys whose values are all of this type.
    Map(&'static TypeDesc),
    Union(&'static [TypeDesc]),
    /// A type set once after construction: descriptors built at run time (a mock serving a
    /// spec it read) refer to a model that refers to itself through it.
    Deferred(&'static std::sync::OnceLock<TypeDesc>),
}

#[derive(Debug)]
pub struct ModelDesc {
    pub name: &'static str,
    pub fields: &'static [FieldDesc],
}

#[derive(Debug)]
pub struct EnumDesc {
    pub name: &'static str,
    pub values: &'static [&'static str],
    pub open: bool,
    /// Integer values rather than strings.
    pub int: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    Required,
    Optional,
    Nullable,
    OptionalNullable,
}

#[derive(Debug)]
pub struct FieldDesc {
    pub name: &'static str,
    pub ty: TypeDesc,
    pub presence: Presence,
    /// Absent reads as a default, so absence is fine whatever the presence.
    pub has_default: bool,
    /// Whether a string format (uuid, date, email…) is enforced in this shape.
    pub format: bool,
    pub constraints: Constraints,
}

#[derive(Debug, Default)]
pub struct Constraints {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    pub pattern: Option<&'static Pattern>,
    pub one_of_numbers: &'static [f64],
    pub one_of_strings: &'static [&'static str],
}

impl Constraints {
    pub const NONE: Constraints = Constraints {
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        min_items: None,
        max_items: None,
        pattern: None,
        one_of_numbers: &[],
        one_of_strings: &[],
    };
}

/// Where an endpoint input travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Path,
    Query,
    Header,
}

impl Location {
    pub fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
        }
    }
}

#[derive(Debug)]
pub struct ParamDesc {
    pub location: Location,
    pub field: FieldDesc,
}

/// How a body is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyMedia {
    Json,
    /// `application/x-www-form-urlencoded`: a model's fields as text, lists repeated.
    Form,
    /// `multipart/form-data`: a model's fields as parts, files as file parts.
    Multipart,
    /// Text or bytes written as they are, of this media type.
    Raw(&'static str),
}

impl BodyMedia {
    /// The media type; a multipart body's `Content-Type` adds its boundary.
    pub fn content_type(self) -> &'static str {
        match self {
            BodyMedia::Json => "application/json",
            BodyMedia::Form => "application/x-www-form-urlencoded",
            BodyMedia::Multipart => "multipart/form-data",
            BodyMedia::Raw(media) => media,
        }
    }

    pub fn is_raw(self) -> bool {
        matches!(self, BodyMedia::Raw(_))
    }
}

/// An endpoint, with the spec's auth schemes `A` and gates `G`.
#[derive(Debug)]
pub struct EndpointDesc<A: 'static, G: 'static> {
    pub name: &'static str,
    /// The API's base address as the spec writes it, e.g. `{base_url}`.
    pub base: &'static str,
    pub method: http::Method,
    pub path: &'static str,
    pub public: bool,
    /// One of these must be presented.
    pub auth_any_of: &'static [A],
    /// May be presented as well.
    pub auth_optional: &'static [A],
    /// Scopes a credential of a scheme must hold here (OAuth2 scopes, or any the scheme
    /// declares); a scheme not listed needs none.
    pub auth_scopes: &'static [(A, &'static [&'static str])],
    pub params: &'static [ParamDesc],
    pub body: Option<&'static TypeDesc>,
    /// How the body is written.
    pub body_media: BodyMedia,
    pub gates: &'static [G],
    pub idempotent: bool,
    /// The header a repeat carries to be answered as the first request was
    /// (`Idempotency-Key`); the client sends one with every call.
    pub idempotency_key: Option<&'static str>,
    pub exactly_one_of: &'static [&'static [&'static str]],
    /// The media types of the endpoint's responses, as an `Accept` header.
    pub accept: &'static str,
    /// Statuses the spec declares, successes first.
    pub statuses: &'static [u16],
    /// The success whose body the source does not show, when it is the only one: clients
    /// read any other 2xx as it.
    pub open_success: Option<u16>,
}

impl<A, G> EndpointDesc<A, G> {
    /// The location of an input by name: `path`, `query`, `header` or `body`.
    pub fn location_of(&self, name: &str) -> &'static str {
        self.params
            .iter()
            .find(|p| p.field.name == name)
            .map_or("body", |p| p.location.as_str())
    }
}

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
            },
        }
    }

    /// A public endpoint with these parameters and a JSON object body.
    pub const fn endpoint(
        method: http::Method,
        path: &'static str,
        params: &'static [ParamDesc],
    ) -> EndpointDesc<(), ()> {
        EndpointDesc {
            name: "fixture",
            base: "{base_url}",
            method,
            path,
            public: true,
            auth_any_of: &[],
            auth_optional: &[],
            auth_scopes: &[],
            params,
            body: Some(&TypeDesc::Object),
            body_media: BodyMedia::Json,
            gates: &[],
            idempotent: false,
            idempotency_key: None,
            exactly_one_of: &[],
            accept: "application/json",
            statuses: &[200],
            open_success: None,
        }
    }
}
