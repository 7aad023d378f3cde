//! Builds a spec's contract ([`covenant_runtime::contract`]) from its IR: the one function
//! that projects the IR into endpoint descriptors. The Rust emitter prints what it builds as
//! statics; `covenant mock` and the conformance runner build it at start and read it as it is.

use crate::ir::shapes::{Shape, Shapes, format_applies, in_shape};
use crate::ir::{self, EnumRepr, Primitive, Type};
use crate::samples::{Answer, Samples};
use bumpalo::Bump;
use covenant_runtime::Pattern;
use covenant_runtime::contract::{
    ApiDesc, BodyMedia, BuiltEndpoint, Carrier, Constraints, Contract, EndpointDesc, EnumDesc,
    Example, FieldDesc, FieldGroup, GateRef, ModelDesc, ParamDesc, PathSegment, PathTemplate,
    ResponseDesc, ResponseHeader, ScalarKind, SchemeInfo, SchemeRef, StatusPattern, TypeDesc,
    UnionDesc,
};
use covenant_runtime::http::Method;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Builds the contract of `spec` in `arena`.
pub fn build<'a>(spec: &ir::Spec, arena: &'a Bump) -> Contract<'a> {
    let mut builder = Builder {
        spec,
        arena,
        shapes: Shapes::new(spec),
        gates: ir::all_gates(spec),
        models: HashMap::new(),
        unions: HashMap::new(),
        enums: HashMap::new(),
    };
    let schemes = builder.schemes();
    let endpoints: Vec<BuiltEndpoint<'a>> = spec
        .endpoints
        .iter()
        .map(|ep| builder.endpoint(ep, schemes))
        .collect();
    Contract {
        apis: arena.alloc_slice_fill_iter(spec.apis.iter().map(|api| builder.api(api))),
        schemes,
        endpoints: arena.alloc_slice_fill_iter(endpoints),
    }
}

/// Each endpoint's example answer, in the order of the endpoints: what a generated
/// `MockServer` prints and a mock built at run time serves.
pub fn examples<'a>(spec: &ir::Spec, arena: &'a Bump) -> &'a [Example<'a>] {
    let samples = Samples::new(spec);
    let examples: Vec<Example<'a>> = spec
        .endpoints
        .iter()
        .map(|ep| match samples.answer(ep) {
            Some(answer) => example(&answer, arena),
            // `check` requires a success response (E0126): kept for an IR built otherwise.
            None => Example::NO_CONTENT,
        })
        .collect();
    arena.alloc_slice_copy(&examples)
}

fn example<'a>(answer: &Answer, arena: &'a Bump) -> Example<'a> {
    let headers: Vec<(&'a str, &'a str)> = answer
        .headers
        .iter()
        .map(|(name, value)| (&*arena.alloc_str(name), &*arena.alloc_str(value)))
        .collect();
    let secrets: Vec<&'a str> = answer
        .secrets
        .iter()
        .map(|pointer| &*arena.alloc_str(pointer))
        .collect();
    Example {
        status: answer.status,
        has_body: answer.body.is_some(),
        json: arena.alloc_str(&answer.json_text()),
        raw: answer
            .raw_body()
            .map(|bytes| &*arena.alloc_slice_copy(&bytes)),
        content_type: arena.alloc_str(answer.media.content_type()),
        headers: arena.alloc_slice_copy(&headers),
        secrets: arena.alloc_slice_copy(&secrets),
    }
}

/// The contract of `spec` for the rest of the program: a server or a runner that serves or
/// checks one spec for as long as it runs. Its arena is never freed.
pub fn build_static(spec: &ir::Spec) -> Contract<'static> {
    let arena: &'static Bump = Box::leak(Box::new(Bump::new()));
    build(spec, arena)
}

/// A template's segments, parsed once into the arena.
pub fn path_template<'a>(arena: &'a Bump, text: &str) -> PathTemplate<'a> {
    let text: &'a str = arena.alloc_str(text);
    let segments: Vec<PathSegment<'a>> = PathTemplate::split(text).collect();
    let segments = arena.alloc_slice_copy(&segments);
    PathTemplate::new(text, segments)
}

struct Builder<'s, 'a> {
    spec: &'s ir::Spec,
    arena: &'a Bump,
    shapes: Shapes<'s>,
    /// Every gate, in the order the generated `Gate` enum lists them.
    gates: Vec<ir::Gate>,
    /// Request-shape models built so far; a model is entered before its fields are built,
    /// so a model that contains itself finds its own cell.
    models: HashMap<ir::ModelId, &'a OnceLock<TypeDesc<'a>>>,
    unions: HashMap<ir::UnionId, &'a OnceLock<TypeDesc<'a>>>,
    enums: HashMap<ir::EnumId, &'a EnumDesc<'a>>,
}

impl<'a> Builder<'_, 'a> {
    fn api(&self, api: &ir::Api) -> ApiDesc<'a> {
        ApiDesc {
            name: self.str(&api.name),
            base: self.str(&api.base_url),
            rejections: api
                .rejections
                .as_ref()
                .map(|r| self.str(&r.template.to_string())),
        }
    }

    fn str(&self, s: &str) -> &'a str {
        self.arena.alloc_str(s)
    }

    fn strs<'i>(&self, items: impl IntoIterator<Item = &'i String>) -> &'a [&'a str] {
        let items: Vec<&'a str> = items.into_iter().map(|s| self.str(s)).collect();
        self.arena.alloc_slice_copy(&items)
    }

    fn schemes(&self) -> &'a [SchemeInfo<'a>] {
        let infos: Vec<SchemeInfo<'a>> = self
            .spec
            .auth_schemes
            .iter()
            .enumerate()
            .map(|(i, a)| SchemeInfo {
                name: self.str(&a.name),
                carrier: self.carrier(&a.carrier),
                primary: a.alias_of.map_or(i, |id| id.0 as usize),
            })
            .collect();
        self.arena.alloc_slice_fill_iter(infos)
    }

    fn carrier(&self, carrier: &ir::Carrier) -> Carrier<&'a str> {
        match carrier {
            Carrier::Header(name) => Carrier::Header(self.str(name)),
            Carrier::Bearer => Carrier::Bearer,
            Carrier::Basic => Carrier::Basic,
            Carrier::Query(name) => Carrier::Query(self.str(name)),
            Carrier::Cookie(name) => Carrier::Cookie(self.str(name)),
        }
    }

    fn media(&self, media: &ir::BodyMedia) -> BodyMedia<&'a str> {
        match media {
            BodyMedia::Json => BodyMedia::Json,
            BodyMedia::JsonAs(media) => BodyMedia::JsonAs(self.str(media)),
            BodyMedia::Form => BodyMedia::Form,
            BodyMedia::Multipart => BodyMedia::Multipart,
            BodyMedia::Raw(media) => BodyMedia::Raw(self.str(media)),
            BodyMedia::Stream(media) => BodyMedia::Stream(self.str(media)),
        }
    }

    fn endpoint(&mut self, ep: &ir::Endpoint, schemes: &'a [SchemeInfo<'a>]) -> BuiltEndpoint<'a> {
        let api = self.spec.api(ep.api);
        let scheme = |id: &ir::AuthId| SchemeRef::new(id.0 as usize, schemes);
        let params: Vec<ParamDesc<'a>> = ep
            .params
            .iter()
            .map(|p| ParamDesc {
                location: p.location,
                field: self.field(&p.field),
            })
            .collect();
        let body = ep.body.as_ref().map(|t| {
            let ty = self.type_desc(t);
            &*self.arena.alloc(ty)
        });
        let gates: Vec<GateRef<'a>> = ep
            .gates
            .iter()
            .chain(&api.gates)
            .map(|g| GateRef {
                index: self.gates.iter().position(|known| known == g).unwrap_or(0),
                refusal: self.str(&g.refusal()),
            })
            .collect();
        let exactly_one_of: Vec<&'a [&'a str]> = ep
            .exactly_one_of
            .iter()
            .map(|group| self.strs(group))
            .collect();
        let scopes: Vec<(SchemeRef<'a>, &'a [&'a str])> = ep
            .auth
            .scopes
            .iter()
            .map(|(id, scopes)| (scheme(id), self.strs(scopes)))
            .collect();
        let any_of: Vec<SchemeRef<'a>> = ep.auth.any_of.iter().map(scheme).collect();
        let all_of: Vec<SchemeRef<'a>> = ep.auth.all_of.iter().map(scheme).collect();
        let optional: Vec<SchemeRef<'a>> = ep.auth.optional.iter().map(scheme).collect();
        let responses: Vec<ResponseDesc<'a>> = ir::all_responses(self.spec, ep)
            .map(|r| self.response(ep, r))
            .collect();
        let statuses: Vec<StatusPattern> = responses.iter().map(|r| r.status).collect();
        let rejected_at = ir::rejections::fitting_statuses(self.spec, ep);
        EndpointDesc {
            name: self.str(&ep.name),
            api: self.str(&api.name),
            base: self.str(&api.base_url),
            method: http_method(ep.method),
            path: path_template(self.arena, &ep.path),
            public: ep.auth.public,
            auth_any_of: self.arena.alloc_slice_copy(&any_of),
            auth_all_of: self.arena.alloc_slice_copy(&all_of),
            auth_optional: self.arena.alloc_slice_copy(&optional),
            auth_scopes: self.arena.alloc_slice_copy(&scopes),
            params: self.arena.alloc_slice_fill_iter(params),
            body,
            body_media: self.media(&ep.body_media),
            body_also: self.strs(&ep.body_also),
            gates: self.arena.alloc_slice_copy(&gates),
            idempotent: ep.idempotent,
            idempotency_key: ep.idempotency_key.as_deref().map(|k| self.str(k)),
            exactly_one_of: self.arena.alloc_slice_copy(&exactly_one_of),
            accept: self.str(&ir::accept(self.spec, ep)),
            statuses: self.arena.alloc_slice_copy(&statuses),
            responses: self.arena.alloc_slice_fill_iter(responses),
            rejected_at: self.arena.alloc_slice_copy(&rejected_at),
            rejection_shape: (self.spec.rejections(ep)).map(|r| self.str(&r.template.to_string())),
            open_success: ir::open_success(ep),
            provenance: ep.provenance,
            tags: self.strs(&ep.tags),
            sunset: ep
                .deprecated
                .as_ref()
                .and_then(|d| d.sunset.as_deref())
                .map(|date| self.str(date)),
            rejections: (ep.rejections.as_ref()).map(|r| self.str(&r.template.to_string())),
        }
    }

    fn response(&self, ep: &ir::Endpoint, r: &ir::Response) -> ResponseDesc<'a> {
        let headers: Vec<ResponseHeader<'a>> = r
            .headers
            .iter()
            .map(|h| ResponseHeader {
                name: self.str(&h.name),
                kind: self.scalar_kind(&h.ty),
            })
            .collect();
        ResponseDesc {
            status: r.status,
            has_body: r.body.is_some(),
            media: self.media(&r.media),
            bytes: r.body == Some(Type::Primitive(Primitive::Bytes)),
            headers: self.arena.alloc_slice_fill_iter(headers),
            provenance: ir::response_provenance(ep, r),
        }
    }

    /// The JSON type a header of this type reads as from its text.
    fn scalar_kind(&self, ty: &Type) -> ScalarKind {
        match ty {
            Type::Primitive(Primitive::Int) => ScalarKind::Integer,
            Type::Primitive(Primitive::Number) => ScalarKind::Number,
            Type::Primitive(Primitive::Bool) => ScalarKind::Boolean,
            Type::Enum(id) if self.spec.enum_(*id).repr == EnumRepr::Int => ScalarKind::Integer,
            _ => ScalarKind::String,
        }
    }

    fn field(&mut self, f: &ir::Field) -> FieldDesc<'a> {
        FieldDesc {
            name: self.str(&f.name),
            ty: self.type_desc(&f.ty),
            presence: f.presence,
            has_default: f.default.is_some(),
            format: format_applies(f, Shape::Request),
            constraints: self.constraints(&f.constraints),
            encoding: f.encoding,
        }
    }

    fn type_desc(&mut self, ty: &Type) -> TypeDesc<'a> {
        match ty {
            Type::Primitive(p) => primitive(*p),
            Type::Model(id) => TypeDesc::Deferred(self.model(*id)),
            Type::Enum(id) => TypeDesc::Enum(self.enum_(*id)),
            Type::List(inner, c) => {
                let inner = self.constrained(inner, c);
                TypeDesc::List(self.arena.alloc(inner))
            }
            Type::Map(inner, c) => {
                let inner = self.constrained(inner, c);
                TypeDesc::Map(self.arena.alloc(inner))
            }
            Type::Union(types) => {
                let types: Vec<TypeDesc<'a>> = types.iter().map(|t| self.type_desc(t)).collect();
                TypeDesc::Union(self.arena.alloc_slice_fill_iter(types))
            }
            Type::NamedUnion(id) => TypeDesc::Deferred(self.named_union(*id)),
            Type::NotShown(_) => TypeDesc::NotShown,
        }
    }

    /// An item or a map value: with the constraints it carries, when it has some.
    fn constrained(&mut self, ty: &Type, c: &ir::Constraints) -> TypeDesc<'a> {
        let ty = self.type_desc(ty);
        if c.is_empty() {
            return ty;
        }
        let c = self.constraints(c);
        TypeDesc::Constrained(self.arena.alloc(ty), self.arena.alloc(c))
    }

    /// A declared union, through a cell like a model's, so it may contain itself.
    fn named_union(&mut self, id: ir::UnionId) -> &'a OnceLock<TypeDesc<'a>> {
        if let Some(cell) = self.unions.get(&id) {
            return cell;
        }
        let cell: &'a OnceLock<TypeDesc<'a>> = self.arena.alloc(OnceLock::new());
        self.unions.insert(id, cell);
        let union = self.spec.union(id);
        let members: Vec<TypeDesc<'a>> = union.members.iter().map(|t| self.type_desc(t)).collect();
        let desc = self.arena.alloc(UnionDesc {
            name: self.str(&union.name),
            members: self.arena.alloc_slice_fill_iter(members),
        });
        // Entered just above and set only here: the cell is empty.
        let _ = cell.set(TypeDesc::NamedUnion(desc));
        cell
    }

    fn model(&mut self, id: ir::ModelId) -> &'a OnceLock<TypeDesc<'a>> {
        if let Some(cell) = self.models.get(&id) {
            return cell;
        }
        let cell: &'a OnceLock<TypeDesc<'a>> = self.arena.alloc(OnceLock::new());
        self.models.insert(id, cell);
        let fields: Vec<FieldDesc<'a>> = self
            .spec
            .model(id)
            .fields
            .iter()
            .filter(|f| in_shape(f, Shape::Request))
            .map(|f| self.field(f))
            .collect();
        let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
        let groups: Vec<FieldGroup<'a>> = self
            .spec
            .model(id)
            .groups
            .iter()
            .filter(|g| g.fields.iter().all(|f| names.contains(&f.as_str())))
            .map(|g| {
                let fields: Vec<&'a str> = g.fields.iter().map(|f| self.str(f)).collect();
                FieldGroup {
                    rule: g.rule,
                    fields: self.arena.alloc_slice_copy(&fields),
                }
            })
            .collect();
        let model = self.arena.alloc(ModelDesc {
            name: self.str(&self.shapes.name(id, Shape::Request)),
            fields: self.arena.alloc_slice_fill_iter(fields),
            groups: self.arena.alloc_slice_fill_iter(groups),
        });
        // Entered just above and set only here: the cell is empty.
        let _ = cell.set(TypeDesc::Model(model));
        cell
    }

    fn enum_(&mut self, id: ir::EnumId) -> &'a EnumDesc<'a> {
        if let Some(e) = self.enums.get(&id) {
            return e;
        }
        let e = self.spec.enum_(id);
        let values: Vec<&'a str> = e.values.iter().map(|v| self.str(&v.name)).collect();
        let desc = self.arena.alloc(EnumDesc {
            name: self.str(&e.name),
            values: self.arena.alloc_slice_copy(&values),
            open: e.open,
            int: e.repr == EnumRepr::Int,
        });
        self.enums.insert(id, desc);
        desc
    }

    fn constraints(&self, c: &ir::Constraints) -> Constraints<'a> {
        let size = |n: Option<u64>| n.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        let strings: Vec<&'a str> = c
            .one_of_strings()
            .into_iter()
            .map(|s| self.str(s))
            .collect();
        Constraints {
            minimum: c.minimum,
            maximum: c.maximum,
            min_length: size(c.min_length),
            max_length: size(c.max_length),
            min_items: size(c.min_items),
            max_items: size(c.max_items),
            pattern: c
                .pattern
                .as_ref()
                .map(|p| &*self.arena.alloc(Pattern::new(self.str(p)))),
            unique_items: c.unique_items,
            constant_bool: match c.one_of.as_slice() {
                [ir::Literal::Bool(b)] => Some(*b),
                _ => None,
            },
            one_of_numbers: self.arena.alloc_slice_copy(&c.one_of_numbers()),
            one_of_strings: self.arena.alloc_slice_copy(&strings),
        }
    }
}

fn primitive<'a>(p: Primitive) -> TypeDesc<'a> {
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
        Primitive::Null => TypeDesc::Null,
    }
}

fn http_method(method: ir::Method) -> Method {
    Method::from_bytes(method.as_str().as_bytes()).unwrap_or(Method::GET)
}
