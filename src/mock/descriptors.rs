//! The runtime's descriptors built from a spec's IR when the mock starts: the same values
//! `covenant generate` writes as statics, so requests are checked by the same walk without
//! compiling anything. They live as long as the server, so they are leaked once at start.

use covenant_codegen::emit::{accept, all_responses, open_success};
use covenant_codegen::ir::shapes::{Shape, Shapes, format_applies, in_shape};
use covenant_codegen::ir::{self, BodyMedia, EnumRepr, Primitive, Type};
use covenant_runtime::desc::{
    BodyMedia as RuntimeMedia, Carrier, Constraints, EndpointDesc, EnumDesc, FieldDesc, Location,
    ModelDesc, ParamDesc, Presence, TypeDesc,
};
use covenant_runtime::http::Method;
use covenant_runtime::{Gate, Pattern, Scheme};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

/// An auth scheme of the spec: its name, where its credential travels, and the scheme it is
/// a second header of.
#[derive(Debug)]
pub struct SchemeInfo {
    pub name: &'static str,
    pub carrier: Carrier,
    primary: usize,
}

/// A scheme, as the router passes it around: an index into the spec's schemes.
#[derive(Clone, Copy, Debug)]
pub struct SpecScheme {
    index: usize,
    table: &'static [SchemeInfo],
}

impl SpecScheme {
    pub fn info(self) -> &'static SchemeInfo {
        &self.table[self.index]
    }

    /// Whether credentials in this scheme's header authenticate as another scheme.
    pub fn is_alias(self) -> bool {
        self.info().primary != self.index
    }
}

impl PartialEq for SpecScheme {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl Eq for SpecScheme {}

impl Hash for SpecScheme {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl Scheme for SpecScheme {
    fn name(self) -> &'static str {
        self.info().name
    }

    fn carrier(self) -> Carrier {
        self.info().carrier
    }

    fn primary(self) -> Self {
        SpecScheme {
            index: self.info().primary,
            table: self.table,
        }
    }
}

/// A feature or plan an endpoint requires, with the refusal a closed one answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecGate {
    refusal: &'static str,
}

impl Gate for SpecGate {
    fn refusal(self) -> String {
        self.refusal.to_string()
    }
}

pub type SpecEndpoint = EndpointDesc<SpecScheme, SpecGate>;

/// Everything the router needs of a spec.
pub struct Described {
    /// Every auth scheme, in spec order.
    pub schemes: Vec<SpecScheme>,
    /// Every endpoint, in spec order.
    pub endpoints: Vec<&'static SpecEndpoint>,
}

/// Builds the descriptors of every endpoint of `spec`.
pub fn describe(spec: &ir::Spec) -> Described {
    let table: Vec<SchemeInfo> = spec
        .auth_schemes
        .iter()
        .enumerate()
        .map(|(i, a)| SchemeInfo {
            name: leak_str(&a.name),
            carrier: carrier(&a.carrier),
            primary: a.alias_of.map_or(i, |id| id.0 as usize),
        })
        .collect();
    let table: &'static [SchemeInfo] = Box::leak(table.into_boxed_slice());
    let schemes: Vec<SpecScheme> = (0..table.len())
        .map(|index| SpecScheme { index, table })
        .collect();
    let mut builder = Builder {
        spec,
        shapes: Shapes::new(spec),
        models: HashMap::new(),
        enums: HashMap::new(),
    };
    let endpoints = spec
        .endpoints
        .iter()
        .map(|ep| &*Box::leak(Box::new(builder.endpoint(ep, &schemes))))
        .collect();
    Described { schemes, endpoints }
}

struct Builder<'a> {
    spec: &'a ir::Spec,
    shapes: Shapes<'a>,
    /// Request-shape models built so far; a model is entered before its fields are built,
    /// so a model that contains itself finds its own cell.
    models: HashMap<ir::ModelId, &'static OnceLock<TypeDesc>>,
    enums: HashMap<ir::EnumId, &'static EnumDesc>,
}

impl Builder<'_> {
    fn endpoint(&mut self, ep: &ir::Endpoint, schemes: &[SpecScheme]) -> SpecEndpoint {
        let api = self.spec.api(ep.api);
        let scheme = |id: &ir::AuthId| schemes[id.0 as usize];
        let params: Vec<ParamDesc> = ep
            .params
            .iter()
            .map(|p| ParamDesc {
                location: match p.location {
                    ir::ParamLocation::Path => Location::Path,
                    ir::ParamLocation::Query => Location::Query,
                    ir::ParamLocation::Header => Location::Header,
                },
                field: self.field(&p.field),
            })
            .collect();
        let body = ep.body.as_ref().map(|t| leak(self.type_desc(t)));
        let gates: Vec<SpecGate> = ep
            .gates
            .iter()
            .chain(&api.gates)
            .map(|g| SpecGate {
                refusal: leak_str(&g.refusal()),
            })
            .collect();
        let exactly_one_of: Vec<&'static [&'static str]> = ep
            .exactly_one_of
            .iter()
            .map(|group| leak_slice(group.iter().map(|n| leak_str(n)).collect()))
            .collect();
        let statuses: Vec<u16> = all_responses(self.spec, ep).map(|r| r.status).collect();
        EndpointDesc {
            name: leak_str(&ep.name),
            base: leak_str(&api.base_url),
            method: http_method(ep.method),
            path: leak_str(&ep.path),
            public: ep.auth.public,
            auth_any_of: leak_slice(ep.auth.any_of.iter().map(scheme).collect()),
            auth_optional: leak_slice(ep.auth.optional.iter().map(scheme).collect()),
            auth_scopes: leak_slice(
                ep.auth
                    .scopes
                    .iter()
                    .map(|(id, scopes)| {
                        let scopes = scopes.iter().map(|s| leak_str(s)).collect();
                        (scheme(id), leak_slice(scopes))
                    })
                    .collect(),
            ),
            params: leak_slice(params),
            body,
            body_media: match &ep.body_media {
                BodyMedia::Json => RuntimeMedia::Json,
                BodyMedia::Form => RuntimeMedia::Form,
                BodyMedia::Multipart => RuntimeMedia::Multipart,
                BodyMedia::Raw(media) => RuntimeMedia::Raw(leak_str(media)),
            },
            accept: leak_str(&accept(self.spec, ep)),
            gates: leak_slice(gates),
            idempotent: ep.idempotent,
            idempotency_key: ep.idempotency_key.as_deref().map(leak_str),
            exactly_one_of: leak_slice(exactly_one_of),
            statuses: leak_slice(statuses),
            open_success: open_success(ep),
        }
    }

    fn field(&mut self, f: &ir::Field) -> FieldDesc {
        FieldDesc {
            name: leak_str(&f.name),
            ty: self.type_desc(&f.ty),
            presence: match f.presence {
                ir::Presence::Required => Presence::Required,
                ir::Presence::Optional => Presence::Optional,
                ir::Presence::Nullable => Presence::Nullable,
                ir::Presence::OptionalNullable => Presence::OptionalNullable,
            },
            has_default: f.default.is_some(),
            format: format_applies(f, Shape::Request),
            constraints: constraints(&f.constraints),
        }
    }

    fn type_desc(&mut self, ty: &Type) -> TypeDesc {
        match ty {
            Type::Primitive(p) => primitive(*p),
            Type::Model(id) => TypeDesc::Deferred(self.model(*id)),
            Type::Enum(id) => TypeDesc::Enum(self.enum_(*id)),
            Type::List(inner) => TypeDesc::List(leak(self.type_desc(inner))),
            Type::Map(inner) => TypeDesc::Map(leak(self.type_desc(inner))),
            Type::Union(types) => {
                let types = types.iter().map(|t| self.type_desc(t)).collect();
                TypeDesc::Union(leak_slice(types))
            }
            Type::NotShown(_) => TypeDesc::NotShown,
        }
    }

    fn model(&mut self, id: ir::ModelId) -> &'static OnceLock<TypeDesc> {
        if let Some(cell) = self.models.get(&id) {
            return cell;
        }
        let cell: &'static OnceLock<TypeDesc> = leak(OnceLock::new());
        self.models.insert(id, cell);
        let fields: Vec<FieldDesc> = self
            .spec
            .model(id)
            .fields
            .iter()
            .filter(|f| in_shape(f, Shape::Request))
            .map(|f| self.field(f))
            .collect();
        let model = leak(ModelDesc {
            name: leak_str(&self.shapes.name(id, Shape::Request)),
            fields: leak_slice(fields),
        });
        // Entered just above and set only here: the cell is empty.
        let _ = cell.set(TypeDesc::Model(model));
        cell
    }

    fn enum_(&mut self, id: ir::EnumId) -> &'static EnumDesc {
        if let Some(e) = self.enums.get(&id) {
            return e;
        }
        let e = self.spec.enum_(id);
        let desc = leak(EnumDesc {
            name: leak_str(&e.name),
            values: leak_slice(e.values.iter().map(|v| leak_str(&v.name)).collect()),
            open: e.open,
            int: e.repr == EnumRepr::Int,
        });
        self.enums.insert(id, desc);
        desc
    }
}

fn primitive(p: Primitive) -> TypeDesc {
    match p {
        Primitive::String => TypeDesc::String,
        Primitive::Int => TypeDesc::Int,
        Primitive::Number => TypeDesc::Number,
        Primitive::Bool => TypeDesc::Bool,
        Primitive::Uuid => TypeDesc::Uuid,
        Primitive::Date => TypeDesc::Date,
        Primitive::DateTime => TypeDesc::DateTime,
        Primitive::Email => TypeDesc::Email,
        Primitive::Uri => TypeDesc::Uri,
        Primitive::TimeZone => TypeDesc::TimeZone,
        Primitive::Object => TypeDesc::Object,
        Primitive::Any => TypeDesc::Any,
        Primitive::Bytes => TypeDesc::Bytes,
        Primitive::File => TypeDesc::File,
    }
}

fn constraints(c: &ir::Constraints) -> Constraints {
    let size = |n: Option<u64>| n.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    Constraints {
        minimum: c.minimum,
        maximum: c.maximum,
        min_length: size(c.min_length),
        max_length: size(c.max_length),
        min_items: size(c.min_items),
        max_items: size(c.max_items),
        pattern: c.pattern.as_ref().map(|p| leak(Pattern::new(leak_str(p)))),
        one_of_numbers: leak_slice(c.one_of_numbers()),
        one_of_strings: leak_slice(c.one_of_strings().into_iter().map(leak_str).collect()),
    }
}

fn http_method(method: ir::Method) -> Method {
    Method::from_bytes(method.as_str().as_bytes()).unwrap_or(Method::GET)
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn leak_slice<T>(values: Vec<T>) -> &'static [T] {
    Box::leak(values.into_boxed_slice())
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn carrier(carrier: &ir::Carrier) -> Carrier {
    match carrier {
        ir::Carrier::Header(name) => Carrier::Header(leak_str(name)),
        ir::Carrier::Bearer => Carrier::Bearer,
        ir::Carrier::Basic => Carrier::Basic,
        ir::Carrier::Query(name) => Carrier::Query(leak_str(name)),
        ir::Carrier::Cookie(name) => Carrier::Cookie(leak_str(name)),
    }
}
