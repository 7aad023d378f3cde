//! The validated intermediate representation. Only [`crate::lower`] constructs a [`Spec`]
//! (it is `#[non_exhaustive]`), so code holding one knows every reference in it resolves and
//! every constraint in it is consistent.
//!
//! Entities live in arenas and refer to each other by id; declaration order is kept, so
//! emission from the same spec is deterministic.

mod auth;
mod events;
mod limits;
mod paging;
mod queries;
mod recursion;
pub mod rejections;
pub mod routes;
pub mod shapes;

pub use auth::*;
pub use events::*;
pub use limits::*;
pub use paging::*;
pub use queries::{accept, all_gates, all_responses, open_success, response_provenance};
pub use recursion::Containment;
mod types;

pub use types::*;

pub use covenant_runtime::contract::{Encoding, GroupRule, Presence, Provenance, StatusPattern};

use crate::source::Span;

macro_rules! ids {
    ($($name:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}
ids!(ApiId, AuthId, EnumId, ModelId, UnionId, EndpointId, EventId);

#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Spec {
    pub service: Service,
    pub apis: Vec<Api>,
    pub auth_schemes: Vec<AuthScheme>,
    pub enums: Vec<Enum>,
    pub models: Vec<Model>,
    /// Unions declared with a name (`type Details = A | B`), in declaration order.
    pub unions: Vec<NamedUnion>,
    pub endpoints: Vec<Endpoint>,
    /// The fields every event carries; `None` in a spec without events.
    pub envelope: Option<ModelId>,
    /// Where a delivery says which event it is; `None` without an envelope.
    pub event_type: Option<EventTypeCarrier>,
    /// How deliveries are signed (`@signed` on the envelope); `None` when the spec says not.
    pub event_signing: Option<EventSigning>,
    pub events: Vec<Event>,
    pub limits: Vec<Limit>,
    pub rate_limits: Vec<RateLimit>,
    pub state_machines: Vec<StateMachine>,
    pub changelog: Vec<Change>,
    /// Every place the source leaves open, in source order.
    pub not_shown: Vec<NotShown>,
    pub spans: SpanTable,
}

impl Spec {
    pub fn model(&self, id: ModelId) -> &Model {
        &self.models[id.index()]
    }
    pub fn union(&self, id: UnionId) -> &NamedUnion {
        &self.unions[id.index()]
    }
    pub fn enum_(&self, id: EnumId) -> &Enum {
        &self.enums[id.index()]
    }
    pub fn endpoint(&self, id: EndpointId) -> &Endpoint {
        &self.endpoints[id.index()]
    }
    pub fn auth(&self, id: AuthId) -> &AuthScheme {
        &self.auth_schemes[id.index()]
    }
    pub fn api(&self, id: ApiId) -> &Api {
        &self.apis[id.index()]
    }
    /// The rejections an endpoint's router errors are written in: its own, or its api's.
    pub fn rejections<'s>(&'s self, ep: &'s Endpoint) -> Option<&'s Rejections> {
        ep.rejections
            .as_ref()
            .or(self.api(ep.api).rejections.as_ref())
    }
    pub fn model_named(&self, name: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.name == name)
    }
    pub fn enum_named(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name == name)
    }
    pub fn endpoint_named(&self, name: &str) -> Option<&Endpoint> {
        self.endpoints.iter().find(|e| e.name == name)
    }

    /// A type as the spec writes it: `User[]`, `map<string, int>`, `string | int`.
    pub fn type_name(&self, ty: &Type) -> String {
        match ty {
            Type::Primitive(p) => p.name().to_string(),
            Type::Model(id) => self.model(*id).name.clone(),
            Type::Enum(id) => self.enum_(*id).name.clone(),
            Type::List(inner, _) => match inner.as_ref() {
                Type::Union(_) => format!("({})[]", self.type_name(inner)),
                _ => format!("{}[]", self.type_name(inner)),
            },
            Type::Map(inner, _) => format!("map<string, {}>", self.type_name(inner)),
            Type::Union(members) => members
                .iter()
                .map(|m| self.type_name(m))
                .collect::<Vec<_>>()
                .join(" | "),
            Type::NamedUnion(id) => self.union(*id).name.clone(),
            Type::NotShown(_) => "not_shown".to_string(),
        }
    }

    /// The field that tells a union's members apart, when every member is a model with a
    /// constant of its own in a field of one name; the first such field in the first member.
    pub fn discriminator(&self, members: &[Type]) -> Option<Discriminator> {
        let models: Vec<&Model> = members
            .iter()
            .map(|t| match t {
                Type::Model(id) => Some(self.model(*id)),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let first = models.first()?;
        first.fields.iter().find_map(|candidate| {
            let values: Vec<Literal> = models
                .iter()
                .map(|m| m.field(&candidate.name)?.constant_value().cloned())
                .collect::<Option<_>>()?;
            let distinct: std::collections::HashSet<String> =
                values.iter().map(|v| v.to_json().to_string()).collect();
            (distinct.len() == values.len()).then(|| Discriminator {
                field: candidate.name.clone(),
                values,
            })
        })
    }

    /// Whether `event_type` is an instance of the event's pattern: `{placeholder}` segments
    /// match any value of their enum, other segments match literally.
    pub fn event_produces(&self, event: &Event, event_type: &str) -> bool {
        let pattern: Vec<&str> = event.pattern.split('.').collect();
        let actual: Vec<&str> = event_type.split('.').collect();
        pattern.len() == actual.len()
            && pattern.iter().zip(&actual).all(|(p, a)| {
                match p.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    None => p == a,
                    Some(name) => event
                        .placeholders
                        .iter()
                        .find(|(n, _)| n == name)
                        .is_some_and(|(_, id)| self.enum_(*id).values.iter().any(|v| v.name == *a)),
                }
            })
    }

    /// Every fact not taken from the document, with a human-readable path to it and where it
    /// comes from, in declaration order within each kind.
    pub fn sourced_facts(&self) -> Vec<(String, Provenance)> {
        let mut out = Vec::new();
        let mut put = |path: String, p: Provenance| {
            if !p.is_document() {
                out.push((path, p));
            }
        };
        for api in &self.apis {
            for r in &api.errors {
                put(format!("api {} error {}", api.name, r.status), r.provenance);
            }
        }
        for a in &self.auth_schemes {
            put(format!("auth {}", a.name), a.provenance);
            if a.lifetime.is_some() {
                put(format!("auth {} lifetime", a.name), a.lifetime_provenance);
            }
            if a.single_use {
                put(
                    format!("auth {} single_use", a.name),
                    a.single_use_provenance,
                );
            }
            if let Some(d) = &a.deprecated {
                put(format!("auth {} deprecation", a.name), d.provenance);
            }
        }
        for e in &self.enums {
            put(format!("enum {}", e.name), e.provenance);
            for v in &e.values {
                put(format!("{}.{}", e.name, v.name), v.provenance);
                if let Some(d) = &v.deprecated {
                    put(format!("{}.{} deprecation", e.name, v.name), d.provenance);
                }
            }
        }
        for m in &self.models {
            put(format!("model {}", m.name), m.provenance);
            for f in &m.fields {
                put(format!("{}.{}", m.name, f.name), f.provenance);
                if let Some(d) = &f.deprecated {
                    put(format!("{}.{} deprecation", m.name, f.name), d.provenance);
                }
            }
        }
        for ep in &self.endpoints {
            put(format!("endpoint {}", ep.name), ep.provenance);
            for p in &ep.params {
                put(format!("{}.{}", ep.name, p.field.name), p.field.provenance);
            }
            for r in ep.responses.iter().chain(&ep.errors) {
                put(format!("{} {}", ep.name, r.status), r.provenance);
            }
        }
        for ev in &self.events {
            put(format!("event {}", ev.name), ev.provenance);
        }
        for l in &self.limits {
            put(format!("limit {}", l.name), l.provenance);
        }
        for rl in &self.rate_limits {
            put(format!("rate_limit {}", rl.name), rl.provenance);
        }
        for sm in &self.state_machines {
            for st in &sm.states {
                put(format!("states {}.{}", sm.name, st.name), st.provenance);
            }
            for t in &sm.transitions {
                let (from, to) = (&sm.states[t.from].name, &sm.states[t.to].name);
                put(format!("states {} {from} -> {to}", sm.name), t.provenance);
            }
        }
        out
    }

    /// Every deprecation in the spec, with a human-readable path to what it marks.
    pub fn deprecations(&self) -> Vec<(String, &Deprecation)> {
        let mut out = Vec::new();
        for scheme in &self.auth_schemes {
            if let Some(d) = &scheme.deprecated {
                out.push((format!("auth {}", scheme.name), d));
            }
        }
        for e in &self.enums {
            for v in &e.values {
                if let Some(d) = &v.deprecated {
                    out.push((format!("{}.{}", e.name, v.name), d));
                }
            }
        }
        for m in &self.models {
            if let Some(d) = &m.deprecated {
                out.push((format!("model {}", m.name), d));
            }
            for f in &m.fields {
                if let Some(d) = &f.deprecated {
                    out.push((format!("{}.{}", m.name, f.name), d));
                }
            }
        }
        for ep in &self.endpoints {
            if let Some(d) = &ep.deprecated {
                out.push((format!("endpoint {}", ep.name), d));
            }
            for p in &ep.params {
                if let Some(d) = &p.field.deprecated {
                    out.push((format!("endpoint {} {}", ep.name, p.field.name), d));
                }
            }
            for r in ep.responses.iter().chain(&ep.errors) {
                for h in &r.headers {
                    if let Some(d) = &h.deprecated {
                        out.push((format!("endpoint {} {} {}", ep.name, r.status, h.name), d));
                    }
                }
            }
        }
        for ev in &self.events {
            if let Some(d) = &ev.deprecated {
                out.push((format!("event {}", ev.name), d));
            }
        }
        out
    }
}

/// Where each entity was declared, for diagnostics of later passes.
#[derive(Clone, Debug, Default)]
pub struct SpanTable {
    pub apis: Vec<Span>,
    pub auth_schemes: Vec<Span>,
    pub enums: Vec<Span>,
    pub models: Vec<Span>,
    pub unions: Vec<Span>,
    pub endpoints: Vec<Span>,
    pub events: Vec<Span>,
    /// The `service` block's name, when the spec has one.
    pub service: Option<Span>,
    pub limits: Vec<Span>,
    pub rate_limits: Vec<Span>,
}

#[derive(Clone, Debug, Default)]
pub struct Service {
    pub name: String,
    pub title: Option<String>,
    pub version: Option<String>,
    pub doc: Option<String>,
    /// The longest string a field or parameter without `@max_length` holds (uuid, date and
    /// date-time are bounded by their format).
    pub max_length: Option<DefaultBound>,
    /// The most items a list without `@max_items` holds.
    pub max_items: Option<DefaultBound>,
}

/// A bound the service sets on every string or list that states none of its own, so that no
/// input is unbounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultBound {
    pub value: u64,
    pub provenance: Provenance,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Deprecation {
    pub note: Option<String>,
    /// What to use instead, resolved against the deprecated thing's siblings.
    pub replacement: Option<String>,
    pub since: Option<String>,
    /// The date (`YYYY-MM-DD`) the deprecated thing is removed: a deprecated endpoint
    /// answers it in a `Sunset` header (RFC 8594).
    pub sunset: Option<String>,
    /// Where the deprecation itself is stated (`@deprecated(…, source: deployed_client)`),
    /// which may differ from where the deprecated thing comes from.
    pub provenance: Provenance,
}

/// One place the source leaves open. Emitters make it an open schema with this text.
#[derive(Clone, Debug, PartialEq)]
pub struct NotShown {
    pub what: String,
    /// A readable path to the thing it belongs to, e.g. `model PatientInfo` or `spec`.
    pub owner: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Api {
    pub name: String,
    pub doc: Option<String>,
    /// The server address as the document writes it, e.g. `{base_url}`.
    pub base_url: String,
    /// Path prefixes that carry the version; every endpoint path starts with one.
    pub versions: Vec<String>,
    /// Error responses every endpoint of the API may give.
    pub errors: Vec<Response>,
    /// Headers every endpoint of the API takes (`OpenAI-Project`, `Stripe-Version`); each
    /// endpoint holds them among its parameters, unless it declares the name itself.
    pub headers: Vec<Field>,
    pub gates: Vec<Gate>,
    /// The model the router's own errors (400, 401, 403, 404, 405, 413, 422, 503) are written
    /// in; `{"detail": …}` when none is declared.
    pub rejections: Option<Rejections>,
}

impl Api {
    /// The name a deployment gives this API's address by: the placeholder of its base
    /// (`base_url` of `{base_url}`), or `<api>_url` for a base written as an address.
    pub fn base_name(&self) -> String {
        covenant_runtime::contract::base_name(&self.name, &self.base_url)
    }
}

/// A rejection model and the JSON template a router fills in: `{"$rejection": "message"}`
/// (or `status`, `param`, `issues`) where a value of the rejection goes.
#[derive(Clone, Debug)]
pub struct Rejections {
    pub model: ModelId,
    pub template: serde_json::Value,
}

#[derive(Clone, Debug)]
pub struct Enum {
    pub name: String,
    pub doc: Option<String>,
    /// Non-exhaustive: unknown values are kept and written back unchanged.
    pub open: bool,
    pub repr: EnumRepr,
    pub values: Vec<EnumValue>,
    pub parent: Option<EnumId>,
    /// Values come from the service's catalogue, which has this many.
    pub catalogue_size: Option<usize>,
    pub not_shown: Vec<String>,
    pub provenance: Provenance,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnumRepr {
    String,
    Int,
}

#[derive(Clone, Debug)]
pub struct EnumValue {
    pub name: String,
    pub doc: Option<String>,
    pub deprecated: Option<Deprecation>,
    pub provenance: Provenance,
    /// Where the value is written.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct NamedUnion {
    pub name: String,
    pub doc: Option<String>,
    /// The members, none of them null; one may be the union itself inside a list or map.
    pub members: Vec<Type>,
    pub deprecated: Option<Deprecation>,
    pub provenance: Provenance,
}

#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub doc: Option<String>,
    pub fields: Vec<Field>,
    /// What the source leaves open about the model.
    pub not_shown: Vec<String>,
    /// The source says it has more fields than listed (`not_shown fields "…"`): they are
    /// allowed, and kept by the generated types.
    pub open: bool,
    pub origin: ModelOrigin,
    pub deprecated: Option<Deprecation>,
    pub provenance: Provenance,
    /// Optional fields of which a value holds exactly, at least or at most one
    /// (`@exactly_one_of(card, bank_account)`).
    pub groups: Vec<FieldGroup>,
}

/// A model's group of optional fields and the rule over how many a value holds.
#[derive(Clone, Debug)]
pub struct FieldGroup {
    pub rule: GroupRule,
    /// Wire names, in the order written.
    pub fields: Vec<String>,
    pub span: crate::source::Span,
}

impl Model {
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Whether the request and response shapes differ, so emitters produce both.
    pub fn has_variants(&self) -> bool {
        self.fields.iter().any(|f| {
            f.visibility != Visibility::Always || f.format_scope == FormatScope::RequestOnly
        })
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelOrigin {
    Declared,
    Envelope,
    /// Written in place as an endpoint's request body.
    RequestBody(String),
    /// Written in place as an endpoint's response body.
    ResponseBody(String),
}

#[derive(Clone, Debug)]
pub struct Endpoint {
    pub name: String,
    pub doc: Option<String>,
    pub method: Method,
    pub path: String,
    pub api: ApiId,
    pub auth: AuthRequirement,
    pub tags: Vec<String>,
    pub params: Vec<Param>,
    pub body: Option<Type>,
    /// How the body is written: JSON, or form fields.
    pub body_media: BodyMedia,
    /// Further media types the body may be sent in, the same value (`@also_media`): JSON
    /// family, YAML or CBOR, which the router reads into the JSON value.
    pub body_also: Vec<String>,
    pub responses: Vec<Response>,
    /// Errors specific to this endpoint; the API's errors apply too.
    pub errors: Vec<Response>,
    pub gates: Vec<Gate>,
    /// Idempotent in the HTTP sense (RFC 9110 §9.2.2): by its method, or `@idempotent`.
    pub idempotent: bool,
    /// The header whose key makes a repeat answer as the first request (`@idempotent(key:
    /// "Idempotency-Key")`); one of the endpoint's header parameters.
    pub idempotency_key: Option<String>,
    /// Not idempotent, yet a repeat does no harm, for this reason (`@safe_to_repeat("…")`).
    pub safe_to_repeat: Option<String>,
    pub paging: Option<Paging>,
    /// Groups of optional parameters of which a request sends exactly one.
    pub exactly_one_of: Vec<Vec<String>>,
    /// The listing endpoint that reports progress of the background work this starts.
    pub tracked_by: Option<EndpointId>,
    /// How a client subscribes to the spec's events through this endpoint.
    pub registers_webhooks: Option<WebhookRegistration>,
    /// The model this endpoint's router errors are written in, in place of its api's
    /// (Slack answers each method's malformed request in that method's error model).
    pub rejections: Option<Rejections>,
    pub deprecated: Option<Deprecation>,
    pub provenance: Provenance,
    pub not_shown: Vec<String>,
}

impl Spec {
    /// The type of one part of a multipart body's field: a list's item, or the field's own.
    pub fn part_type(&self, ep: &Endpoint, field: &str) -> Option<&Type> {
        let Some(Type::Model(id)) = &ep.body else {
            return None;
        };
        match &self.model(*id).field(field)?.ty {
            Type::List(item, _) => Some(item),
            ty => Some(ty),
        }
    }
}

impl Endpoint {
    /// Whether an exactly-one-of group names fields of the body rather than parameters.
    pub fn group_in_body(&self, group: &[String]) -> bool {
        group
            .first()
            .is_some_and(|n| !self.params.iter().any(|p| &p.field.name == n))
    }

    pub fn params_in(&self, location: ParamLocation) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(move |p| p.location == location)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
    /// What the resource allows (RFC 9110 §9.3.7); answered like any other method.
    Options,
    /// A GET's headers without its body (RFC 9110 §9.3.2), where declared apart from the GET;
    /// otherwise the GET of the path answers it.
    Head,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
        }
    }

    /// Safe to repeat by the method alone (RFC 9110 §9.2.2).
    pub fn is_idempotent(self) -> bool {
        matches!(
            self,
            Method::Get | Method::Head | Method::Put | Method::Delete | Method::Options
        )
    }
}

/// How a body is written, a raw body's media type owned.
pub type BodyMedia = covenant_runtime::contract::BodyMedia<String>;

/// Where an endpoint input travels.
pub use covenant_runtime::contract::Location as ParamLocation;

#[derive(Clone, Debug)]
pub struct Param {
    pub location: ParamLocation,
    pub field: Field,
}

#[derive(Clone, Debug)]
pub struct Response {
    /// One status, a class (`4XX`) or `default`.
    pub status: StatusPattern,
    pub doc: Option<String>,
    /// `None`: no body.
    pub body: Option<Type>,
    /// The body may be `null` (`response 200: Command[] | null`); only a success's JSON.
    pub nullable: bool,
    /// JSON, or a `string` or `bytes` written as it is.
    pub media: BodyMedia,
    /// Further media types the answer may come in, the same value in another encoding
    /// (`@also_media("application/yaml")`); generated code and the mock speak `media`.
    pub also_media: Vec<String>,
    /// Headers the response carries (`Location`, `ETag`, rate-limit headers, `Link`), each a
    /// scalar written as text; their identifiers are unique among the response's headers.
    pub headers: Vec<Field>,
    pub provenance: Provenance,
    /// Where the status is written.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Gate {
    /// Disabled until the service enables it for the team.
    Feature(String),
    /// Only on this subscription plan.
    Plan(String),
}

impl Gate {
    /// The `detail` of the 403 a closed gate answers.
    pub fn refusal(&self) -> String {
        match self {
            Gate::Feature(n) => format!("{n} is not enabled for this team"),
            Gate::Plan(n) => format!("This endpoint is available on the {n} plan only"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct StateMachine {
    pub name: String,
    pub doc: Option<String>,
    pub states: Vec<State>,
    pub transitions: Vec<Transition>,
    pub not_shown: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct State {
    pub name: String,
    pub doc: Option<String>,
    pub provenance: Provenance,
}

#[derive(Clone, Debug)]
pub struct Transition {
    pub from: usize,
    pub to: usize,
    pub doc: Option<String>,
    pub trigger: Option<Trigger>,
    pub condition: Option<String>,
    pub provenance: Provenance,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    Endpoint(EndpointId),
    /// Something that happens without a call, e.g. `grace_period_ends`.
    Named(String),
}

#[derive(Clone, Debug)]
pub struct Change {
    pub date: String,
    pub text: String,
}

/// The `{name}` placeholders of a path, URL or event type, in order; none when a brace is
/// unbalanced (`check` refuses such a path; a base URL's is the document's to fix).
pub fn placeholders(text: &str) -> Vec<String> {
    placeholder_offsets(text)
        .map(|found| found.into_iter().map(|(name, _)| name).collect())
        .unwrap_or_default()
}

/// `{name}` placeholders with their byte offsets in `text`; `Err(offset)` at a brace that is
/// not balanced, for the checker to point at.
pub fn placeholder_offsets(text: &str) -> Result<Vec<(String, usize)>, usize> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c, open) {
            ('{', None) => open = Some(i),
            ('}', Some(start)) => {
                out.push((text[start + 1..i].to_string(), start));
                open = None;
            }
            ('{', Some(_)) | ('}', None) => return Err(i),
            _ => {}
        }
    }
    match open {
        Some(start) => Err(start),
        None => Ok(out),
    }
}
