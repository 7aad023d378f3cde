//! Endpoints: their route, inputs, body, auth, gates and declared responses.

use super::path::PathTemplate;
use super::schemes::Provenance;
use super::status::StatusPattern;
use super::types::{FieldDesc, TypeDesc};

/// Where an endpoint input travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
pub struct ParamDesc<'a> {
    pub location: Location,
    pub field: FieldDesc<'a>,
}

/// How a body is written. `S` holds a raw body's media type: `&str` in the contract,
/// `String` in a spec's IR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BodyMedia<S = &'static str> {
    #[default]
    Json,
    /// JSON sent as another type of the JSON family (`application/merge-patch+json`).
    JsonAs(S),
    /// `application/x-www-form-urlencoded`: a model's fields as text, lists repeated.
    Form,
    /// `multipart/form-data`: a model's fields as parts, files as file parts.
    Multipart,
    /// A `string` or `bytes` written as it is, of this media type (`text/csv`).
    Raw(S),
    /// An answer's list written item by item as a stream of this media type: server-sent
    /// events or JSON lines (`crate::streams`).
    Stream(S),
}

impl<S: AsRef<str>> BodyMedia<S> {
    /// The media type; a multipart body's `Content-Type` adds its boundary.
    pub fn content_type(&self) -> &str {
        match self {
            BodyMedia::Json => "application/json",
            BodyMedia::JsonAs(media) => media.as_ref(),
            BodyMedia::Form => "application/x-www-form-urlencoded",
            BodyMedia::Multipart => "multipart/form-data",
            BodyMedia::Raw(media) | BodyMedia::Stream(media) => media.as_ref(),
        }
    }

    pub fn is_stream(&self) -> bool {
        matches!(self, BodyMedia::Stream(_))
    }

    pub fn is_raw(&self) -> bool {
        matches!(self, BodyMedia::Raw(_))
    }

    /// Whether the body is JSON, whatever type of the JSON family labels it.
    pub fn is_json(&self) -> bool {
        matches!(self, BodyMedia::Json | BodyMedia::JsonAs(_))
    }

    /// Whether a body sent with this `Content-Type` is one the endpoint reads: JSON (any
    /// `+json` type too) for a JSON body, a form for a form; parameters such as `charset`
    /// aside, in any case. Multipart and raw bodies are judged where they are read.
    pub fn accepts(&self, content_type: Option<&str>) -> bool {
        let media = content_type
            .and_then(|c| c.split(';').next())
            .map(|m| m.trim().to_ascii_lowercase());
        match (self, media.as_deref()) {
            (BodyMedia::Json | BodyMedia::JsonAs(_), Some(m)) => is_json_family(m),
            (BodyMedia::Form, Some(m)) => m == "application/x-www-form-urlencoded",
            (BodyMedia::Multipart | BodyMedia::Raw(_) | BodyMedia::Stream(_), _) => true,
            (_, None) => false,
        }
    }
}

/// Whether a media type (lower case, no parameters) is JSON: `application/json` or a
/// `+json` type.
pub fn is_json_family(media: &str) -> bool {
    media == "application/json" || media.ends_with("+json")
}

/// How a router reads a body sent in one of the further media types a JSON body may come
/// in (`@also_media`): the same value, written another way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlsoRead {
    /// A type of the JSON family: read as JSON is.
    Json,
    /// YAML (`application/yaml`, `+yaml`), read into the JSON value it writes.
    Yaml,
    /// CBOR (`application/cbor`, `+cbor`, RFC 8949), read into the JSON value it writes.
    Cbor,
}

impl AlsoRead {
    /// The reader of a media type, for the types a router can read into JSON; `None` for
    /// any other (XML, a form).
    pub fn of(media: &str) -> Option<AlsoRead> {
        let essence = media
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if is_json_family(&essence) {
            Some(AlsoRead::Json)
        } else if matches!(
            essence.as_str(),
            "application/yaml" | "application/x-yaml" | "text/yaml"
        ) || essence.ends_with("+yaml")
        {
            Some(AlsoRead::Yaml)
        } else if essence == "application/cbor" || essence.ends_with("+cbor") {
            Some(AlsoRead::Cbor)
        } else {
            None
        }
    }
}

/// The JSON type a header's text reads as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Integer,
    Number,
    Boolean,
    String,
}

/// A header a response declares.
#[derive(Debug)]
pub struct ResponseHeader<'a> {
    pub name: &'a str,
    pub kind: ScalarKind,
}

/// A response an endpoint declares.
#[derive(Debug)]
pub struct ResponseDesc<'a> {
    pub status: StatusPattern,
    pub has_body: bool,
    /// JSON, or text or bytes written as they are.
    pub media: BodyMedia<&'a str>,
    /// The body is `bytes`: its JSON form is base64.
    pub bytes: bool,
    pub headers: &'a [ResponseHeader<'a>],
    /// Where the response comes from: the document, a deployed client, or the toolkit.
    pub provenance: Provenance,
}

/// An endpoint, with the spec's auth schemes `A` and gates `G`.
#[derive(Debug)]
pub struct EndpointDesc<'a, A: 'a, G: 'a> {
    pub name: &'a str,
    /// The name of the API the endpoint belongs to.
    pub api: &'a str,
    /// The API's base address as the spec writes it, e.g. `{base_url}`.
    pub base: &'a str,
    pub method: http::Method,
    pub path: PathTemplate<'a>,
    pub public: bool,
    /// One of these must be presented.
    pub auth_any_of: &'a [A],
    /// Must be presented as well as the one of `auth_any_of` (`auth a & b`), each
    /// credential checked on its own.
    pub auth_all_of: &'a [A],
    /// May be presented as well.
    pub auth_optional: &'a [A],
    /// Scopes a credential of a scheme must hold here (OAuth2 scopes, or any the scheme
    /// declares); a scheme not listed needs none.
    pub auth_scopes: &'a [(A, &'a [&'a str])],
    pub params: &'a [ParamDesc<'a>],
    pub body: Option<&'a TypeDesc<'a>>,
    /// How the body is written.
    pub body_media: BodyMedia<&'a str>,
    /// Further media types a JSON body may be sent in, the same value written another way
    /// (`@also_media`); the router reads each as [`AlsoRead::of`] says.
    pub body_also: &'a [&'a str],
    pub gates: &'a [G],
    pub idempotent: bool,
    /// The header a repeat carries to be answered as the first request was
    /// (`Idempotency-Key`); the client sends one with every call.
    pub idempotency_key: Option<&'a str>,
    pub exactly_one_of: &'a [&'a [&'a str]],
    /// The media types of the endpoint's responses, as an `Accept` header.
    pub accept: &'a str,
    /// Statuses the spec declares, successes first.
    pub statuses: &'a [StatusPattern],
    /// Each declared status's response, in the order of `statuses`.
    pub responses: &'a [ResponseDesc<'a>],
    /// The declared error statuses a handler's rejection is written into: those whose body
    /// the API's rejection shape writes (or that have none), in the order of `statuses`.
    pub rejected_at: &'a [StatusPattern],
    /// The template of the shape a handler's rejection is written in: the endpoint's own
    /// `rejections`, else its api's; `None` for `{"detail": …}`. `rejected_at` was worked out
    /// for it, so it holds whatever shape the router was configured to refuse in.
    pub rejection_shape: Option<&'a str>,
    /// The success whose body the source does not show, when it is the only one: clients
    /// read any other 2xx as it.
    pub open_success: Option<u16>,
    pub provenance: Provenance,
    pub tags: &'a [&'a str],
    /// The date (`YYYY-MM-DD`) a deprecated endpoint is removed; its answers carry it as a
    /// `Sunset` header (RFC 8594).
    pub sunset: Option<&'a str>,
    /// The template of the endpoint's own rejection shape (`rejections` on the endpoint),
    /// which its refusals are written in instead of its API's.
    pub rejections: Option<&'a str>,
}

impl<'a, A, G> EndpointDesc<'a, A, G> {
    /// The location of an input by name: `path`, `query`, `header` or `body`.
    pub fn location_of(&self, name: &str) -> &'static str {
        self.params
            .iter()
            .find(|p| p.field.name == name)
            .map_or("body", |p| p.location.as_str())
    }

    /// The names of the inputs that travel in `location`.
    pub fn params_in(&self, location: Location) -> impl Iterator<Item = &'a str> + use<'a, A, G> {
        let params: &'a [ParamDesc<'a>] = self.params;
        params
            .iter()
            .filter(move |p| p.location == location)
            .map(|p| p.field.name)
    }

    /// The response that answers `status`: the one declared for it, else its class's
    /// (`4XX`), else `default`.
    pub fn response(&self, status: u16) -> Option<&'a ResponseDesc<'a>> {
        let responses: &'a [ResponseDesc<'a>] = self.responses;
        StatusPattern::resolve(responses.iter().map(|r| (r.status, r)), status)
    }

    /// Whether the request body is `bytes`, so a recording gives it as base64.
    pub fn bytes_body(&self) -> bool {
        matches!(self.body.map(TypeDesc::resolved), Some(TypeDesc::Bytes))
    }

    /// The name a target gives the API's base URL by: the placeholder the base holds
    /// (`base_url` of `{base_url}`), else `<api>_url`.
    pub fn base_name(&self) -> String {
        base_name(self.api, self.base)
    }
}

/// The name a target gives an API's base URL by: the placeholder `base` holds, else
/// `<api>_url`.
pub fn base_name(api: &str, base: &str) -> String {
    match (base.find('{'), base.find('}')) {
        (Some(open), Some(close)) if open < close => base[open + 1..close].to_string(),
        _ => format!("{api}_url"),
    }
}
