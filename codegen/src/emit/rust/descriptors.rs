//! Prints a spec's contract ([`crate::contract::build`]) as the statics of the generated
//! `descriptors` module (`rt::desc`): the router explains a rejected request with them, the
//! client lays requests out by them. What the contract holds is what is printed; the IR is
//! read only for the names of the generated `AuthScheme` and `Gate` variants.

use super::RustBackend;
use super::operations::{auth_variants, gate_variants};
use crate::ir::all_gates;
use bumpalo::Bump;
use covenant_runtime::contract::{
    BodyMedia, BuiltEndpoint, Constraints, EnumDesc, FieldDesc, ModelDesc, PathSegment,
    PathTemplate, Presence, Provenance, ResponseDesc, ScalarKind, StatusPattern, TypeDesc,
    UnionDesc,
};
use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, HashMap};

pub fn model_static(shape_name: &str) -> Ident {
    format_ident!("MODEL_{}", shape_name.to_shouty_snake_case())
}

pub fn union_static(name: &str) -> Ident {
    format_ident!("UNION_{}", name.to_shouty_snake_case())
}

pub fn enum_static(name: &str) -> Ident {
    format_ident!("ENUM_{}", name.to_shouty_snake_case())
}

pub fn endpoint_static(name: &str) -> Ident {
    format_ident!("ENDPOINT_{}", name.to_shouty_snake_case())
}

impl RustBackend<'_> {
    /// The descriptors module's items.
    pub fn descriptors(&self) -> TokenStream {
        let arena = Bump::new();
        let contract = crate::contract::build(self.spec, &arena);
        let printer = Printer {
            rt: &self.rt,
            schemes: auth_variants(self.spec),
            gates: gate_variants(&all_gates(self.spec)),
            patterns: &self.patterns,
        };
        printer.module(contract.endpoints)
    }
}

/// Prints contract values as Rust expressions of `rt::desc` types.
struct Printer<'p> {
    rt: &'p TokenStream,
    /// The generated `AuthScheme` variants, by scheme index.
    schemes: Vec<Ident>,
    /// The generated `Gate` variants, by gate index.
    gates: Vec<Ident>,
    /// The pattern statics of the models module, by source.
    patterns: &'p BTreeMap<String, Ident>,
}

/// The models and enums the endpoints' inputs reach, by name: the only types the router
/// ever walks, each printed once as a static.
#[derive(Default)]
struct Reach<'c> {
    models: BTreeMap<&'c str, &'c ModelDesc<'c>>,
    unions: BTreeMap<&'c str, &'c UnionDesc<'c>>,
    enums: BTreeMap<&'c str, &'c EnumDesc<'c>>,
}

impl<'c> Reach<'c> {
    fn of(endpoints: &'c [BuiltEndpoint<'c>]) -> Self {
        let mut reach = Reach::default();
        for ep in endpoints {
            ep.params.iter().for_each(|p| reach.visit(&p.field.ty));
            ep.body.iter().for_each(|ty| reach.visit(ty));
        }
        reach
    }

    fn visit(&mut self, ty: &'c TypeDesc<'c>) {
        match ty.resolved() {
            TypeDesc::Model(m) if self.models.insert(m.name, m).is_none() => {
                m.fields.iter().for_each(|f| self.visit(&f.ty));
            }
            TypeDesc::Enum(e) => drop(self.enums.insert(e.name, e)),
            TypeDesc::List(inner) | TypeDesc::Map(inner) => self.visit(inner),
            TypeDesc::Union(types) => types.iter().for_each(|t| self.visit(t)),
            TypeDesc::NamedUnion(u) if self.unions.insert(u.name, u).is_none() => {
                u.members.iter().for_each(|t| self.visit(t));
            }
            _ => {}
        }
    }
}

impl Printer<'_> {
    fn module<'c>(&self, endpoints: &'c [BuiltEndpoint<'c>]) -> TokenStream {
        let rt = self.rt;
        let reach = Reach::of(endpoints);
        let models = reach.models.values().map(|m| {
            let ident = model_static(m.name);
            let name = m.name;
            let fields = m.fields.iter().map(|f| self.field(f));
            let groups = m.groups.iter().map(|g| {
                let rule = format_ident!("{}", format!("{:?}", g.rule));
                let names = g.fields;
                quote!(#rt::desc::FieldGroup { rule: #rt::desc::GroupRule::#rule, fields: &[#(#names),*] })
            });
            quote! {
                pub static #ident: #rt::desc::ModelDesc = #rt::desc::ModelDesc { name: #name, fields: &[#(#fields),*], groups: &[#(#groups),*] };
            }
        });
        let unions = reach.unions.values().map(|u| {
            let ident = union_static(u.name);
            let name = u.name;
            let members = u.members.iter().map(|t| self.type_desc(t));
            quote! {
                pub static #ident: #rt::desc::UnionDesc = #rt::desc::UnionDesc { name: #name, members: &[#(#members),*] };
            }
        });
        let enums = reach.enums.values().map(|e| {
            let ident = enum_static(e.name);
            let (name, values, open, int) = (e.name, e.values, e.open, e.int);
            quote! {
                pub static #ident: #rt::desc::EnumDesc = #rt::desc::EnumDesc { name: #name, values: &[#(#values),*], open: #open, int: #int };
            }
        });
        let (shared, params) = self.shared_params(endpoints);
        let statics = (endpoints.iter().zip(params)).map(|(ep, params)| self.endpoint(ep, params));
        let all = endpoints.iter().map(|e| endpoint_static(e.name));
        quote! {
            use super::operations::{AuthScheme, Gate};

            /// An endpoint of this spec.
            pub type Endpoint = #rt::desc::EndpointDesc<AuthScheme, Gate>;

            #(#models)*
            #(#unions)*
            #(#enums)*
            #(#shared)*
            #(#statics)*
            /// Every endpoint, in spec order.
            pub static ENDPOINTS: &[&Endpoint] = &[#(&#all),*];
        }
    }

    /// Each endpoint's `params` value, and the statics of the lists several endpoints share:
    /// a large API repeats one list of query parameters on hundreds of endpoints
    /// (Kubernetes' `list` options), and is printed, compiled and read once.
    fn shared_params(
        &self,
        endpoints: &[BuiltEndpoint<'_>],
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let lists: Vec<(TokenStream, usize)> = (endpoints.iter())
            .map(|ep| (self.params(ep), ep.params.len()))
            .collect();
        let keys: Vec<String> = lists.iter().map(|(list, _)| list.to_string()).collect();
        let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
        for (index, key) in keys.iter().enumerate() {
            users.entry(key).or_default().push(index);
        }
        let rt = self.rt;
        let mut shared = Vec::new();
        let mut values: Vec<Option<TokenStream>> = vec![None; endpoints.len()];
        for (index, (list, count)) in lists.into_iter().enumerate() {
            if values[index].is_some() {
                continue;
            }
            let sharing = &users[keys[index].as_str()];
            if sharing.len() < 2 || count == 0 {
                values[index] = Some(quote!(&[#list]));
                continue;
            }
            let first = endpoints[index].name;
            let ident = format_ident!("PARAMS_{}", first.to_shouty_snake_case());
            let doc = format!(
                " The parameters of `{first}`, shared by {} endpoints.",
                sharing.len()
            );
            let count = proc_macro2::Literal::usize_unsuffixed(count);
            shared.push(quote! {
                #[doc = #doc]
                pub static #ident: [#rt::desc::ParamDesc; #count] = [#list];
            });
            for user in sharing {
                values[*user] = Some(quote!(&#ident));
            }
        }
        (shared, values.into_iter().flatten().collect())
    }

    /// An endpoint's parameters, as the items of a list.
    fn params(&self, ep: &BuiltEndpoint<'_>) -> TokenStream {
        let rt = self.rt;
        let params = ep.params.iter().map(|p| {
            let location = format_ident!("{}", p.location.as_str().to_upper_camel_case());
            let field = self.field(&p.field);
            quote!(#rt::desc::ParamDesc { location: #rt::desc::Location::#location, field: #field })
        });
        quote!(#(#params),*)
    }

    fn endpoint(&self, ep: &BuiltEndpoint<'_>, params: TokenStream) -> TokenStream {
        let rt = self.rt;
        let ident = endpoint_static(ep.name);
        let (name, api, base, public) = (ep.name, ep.api, ep.base, ep.public);
        let method = format_ident!("{}", ep.method.as_str());
        let path = self.path(&ep.path);
        let scheme = |s: &covenant_runtime::contract::SchemeRef<'_>| &self.schemes[s.index()];
        let any_of = ep.auth_any_of.iter().map(scheme);
        let all_of = ep.auth_all_of.iter().map(scheme);
        let optional = ep.auth_optional.iter().map(scheme);
        let scopes = ep.auth_scopes.iter().map(|(s, scopes)| {
            let variant = scheme(s);
            quote!((AuthScheme::#variant, &[#(#scopes),*]))
        });
        let body = option(ep.body.map(|t| {
            let t = self.type_desc(t);
            quote!(&#t)
        }));
        let body_media = self.media(ep.body_media);
        let body_also = ep.body_also;
        let gates = ep.gates.iter().map(|g| &self.gates[g.index]);
        let (idempotent, accept) = (ep.idempotent, ep.accept);
        let statuses = ep.statuses.iter().map(|s| self.status(*s));
        let idempotency_key = option(ep.idempotency_key.map(|k| quote!(#k)));
        let groups = ep.exactly_one_of.iter().map(|g| quote!(&[#(#g),*]));
        let responses = ep.responses.iter().map(|r| self.response(r));
        let rejected_at = ep.rejected_at.iter().map(|s| self.status(*s));
        let rejection_shape = option(ep.rejection_shape.map(super::server::raw_string));
        let open_success = option(ep.open_success.map(|s| quote!(#s)));
        let provenance = self.provenance(ep.provenance);
        let tags = ep.tags;
        let sunset = option(ep.sunset.map(|date| quote!(#date)));
        let rejections = option(ep.rejections.map(super::server::raw_string));
        quote! {
            pub static #ident: Endpoint = #rt::desc::EndpointDesc {
                name: #name,
                api: #api,
                base: #base,
                method: #rt::http::Method::#method,
                path: #path,
                public: #public,
                auth_any_of: &[#(AuthScheme::#any_of),*],
                auth_all_of: &[#(AuthScheme::#all_of),*],
                auth_optional: &[#(AuthScheme::#optional),*],
                auth_scopes: &[#(#scopes),*],
                params: #params,
                body: #body,
                body_media: #body_media,
                body_also: &[#(#body_also),*],
                gates: &[#(Gate::#gates),*],
                idempotent: #idempotent,
                idempotency_key: #idempotency_key,
                exactly_one_of: &[#(#groups),*],
                accept: #accept,
                statuses: &[#(#statuses),*],
                responses: &[#(#responses),*],
                rejected_at: &[#(#rejected_at),*],
                rejection_shape: #rejection_shape,
                open_success: #open_success,
                provenance: #provenance,
                tags: &[#(#tags),*],
                sunset: #sunset,
                rejections: #rejections,
            };
        }
    }

    fn path(&self, path: &PathTemplate<'_>) -> TokenStream {
        let rt = self.rt;
        let text = path.as_str();
        let segments = path.segments().iter().map(|s| match s {
            PathSegment::Literal(l) => quote!(#rt::desc::PathSegment::Literal(#l)),
            PathSegment::Param(p) => quote!(#rt::desc::PathSegment::Param(#p)),
            PathSegment::Affixed {
                prefix,
                name,
                suffix,
            } => quote!(#rt::desc::PathSegment::Affixed { prefix: #prefix, name: #name, suffix: #suffix }),
        });
        quote!(#rt::desc::PathTemplate::new(#text, &[#(#segments),*]))
    }

    fn status(&self, status: StatusPattern) -> TokenStream {
        super::operations::status_tokens(self.rt, status)
    }

    fn response(&self, r: &ResponseDesc<'_>) -> TokenStream {
        let rt = self.rt;
        let status = self.status(r.status);
        let (has_body, bytes) = (r.has_body, r.bytes);
        let media = self.media(r.media);
        let headers = r.headers.iter().map(|h| {
            let name = h.name;
            let kind = format_ident!(
                "{}",
                match h.kind {
                    ScalarKind::Integer => "Integer",
                    ScalarKind::Number => "Number",
                    ScalarKind::Boolean => "Boolean",
                    ScalarKind::String => "String",
                }
            );
            quote!(#rt::desc::ResponseHeader { name: #name, kind: #rt::desc::ScalarKind::#kind })
        });
        let provenance = self.provenance(r.provenance);
        quote! {
            #rt::desc::ResponseDesc { status: #status, has_body: #has_body, media: #media, bytes: #bytes, headers: &[#(#headers),*], provenance: #provenance }
        }
    }

    fn media(&self, media: BodyMedia<&str>) -> TokenStream {
        let rt = self.rt;
        match media {
            BodyMedia::Json => quote!(#rt::desc::BodyMedia::Json),
            BodyMedia::JsonAs(media) => quote!(#rt::desc::BodyMedia::JsonAs(#media)),
            BodyMedia::Form => quote!(#rt::desc::BodyMedia::Form),
            BodyMedia::Multipart => quote!(#rt::desc::BodyMedia::Multipart),
            BodyMedia::Raw(media) => quote!(#rt::desc::BodyMedia::Raw(#media)),
            BodyMedia::Stream(media) => quote!(#rt::desc::BodyMedia::Stream(#media)),
        }
    }

    fn provenance(&self, provenance: Provenance) -> TokenStream {
        let rt = self.rt;
        let variant = match provenance {
            Provenance::Document => quote!(Document),
            Provenance::DeployedClient => quote!(DeployedClient),
            Provenance::Toolkit => quote!(Toolkit),
        };
        quote!(#rt::desc::Provenance::#variant)
    }

    fn field(&self, f: &FieldDesc<'_>) -> TokenStream {
        let rt = self.rt;
        let name = f.name;
        let ty = self.type_desc(&f.ty);
        let presence = match f.presence {
            Presence::Required => quote!(Required),
            Presence::Optional => quote!(Optional),
            Presence::Nullable => quote!(Nullable),
            Presence::OptionalNullable => quote!(OptionalNullable),
        };
        let (has_default, format) = (f.has_default, f.format);
        let constraints = self.constraints(&f.constraints);
        let encoding = format_ident!("{}", format!("{:?}", f.encoding));
        quote! {
            #rt::desc::FieldDesc { name: #name, ty: #ty, presence: #rt::desc::Presence::#presence, has_default: #has_default, format: #format, constraints: #constraints, encoding: #rt::desc::Encoding::#encoding }
        }
    }

    fn constraints(&self, c: &Constraints<'_>) -> TokenStream {
        let rt = self.rt;
        if c.is_empty() {
            return quote!(#rt::desc::Constraints::NONE);
        }
        let mut parts = Vec::new();
        for (key, value) in [("minimum", c.minimum), ("maximum", c.maximum)] {
            if let Some(v) = value {
                let key = format_ident!("{key}");
                parts.push(quote!(#key: Some(#v)));
            }
        }
        for (key, value) in [
            ("min_length", c.min_length),
            ("max_length", c.max_length),
            ("min_items", c.min_items),
            ("max_items", c.max_items),
        ] {
            if let Some(v) = value {
                let key = format_ident!("{key}");
                parts.push(quote!(#key: Some(#v)));
            }
        }
        if let Some(p) = c.pattern.and_then(|p| self.patterns.get(p.as_str())) {
            parts.push(quote!(pattern: Some(&super::models::#p)));
        }
        if c.unique_items {
            parts.push(quote!(unique_items: true));
        }
        if let Some(b) = c.constant_bool {
            parts.push(quote!(constant_bool: Some(#b)));
        }
        if !c.one_of_numbers.is_empty() {
            let numbers = c.one_of_numbers;
            parts.push(quote!(one_of_numbers: &[#(#numbers),*]));
        }
        if !c.one_of_strings.is_empty() {
            let strings = c.one_of_strings;
            parts.push(quote!(one_of_strings: &[#(#strings),*]));
        }
        quote!(#rt::desc::Constraints { #(#parts,)* ..#rt::desc::Constraints::NONE })
    }

    fn type_desc(&self, ty: &TypeDesc<'_>) -> TokenStream {
        let rt = self.rt;
        let td = quote!(#rt::desc::TypeDesc);
        let variant = match ty {
            TypeDesc::String => quote!(String),
            TypeDesc::Int => quote!(Int),
            TypeDesc::Number => quote!(Number),
            TypeDesc::Bool => quote!(Bool),
            TypeDesc::Uuid => quote!(Uuid),
            TypeDesc::Date => quote!(Date),
            TypeDesc::DateTime => quote!(DateTime),
            TypeDesc::Email => quote!(Email),
            TypeDesc::Uri => quote!(Uri),
            TypeDesc::TimeZone => quote!(TimeZone),
            TypeDesc::Object => quote!(Object),
            TypeDesc::Any => quote!(Any),
            TypeDesc::Null => quote!(Null),
            TypeDesc::Bytes => quote!(Bytes),
            TypeDesc::File => quote!(File),
            TypeDesc::NotShown => quote!(NotShown),
            TypeDesc::Model(m) => {
                let s = model_static(m.name);
                quote!(Model(&#s))
            }
            TypeDesc::Deferred(cell) => match cell.get() {
                Some(resolved) => return self.type_desc(resolved),
                None => quote!(Any),
            },
            TypeDesc::Enum(e) => {
                let s = enum_static(e.name);
                quote!(Enum(&#s))
            }
            TypeDesc::List(inner) => {
                let inner = self.type_desc(inner);
                quote!(List(&#inner))
            }
            TypeDesc::Map(inner) => {
                let inner = self.type_desc(inner);
                quote!(Map(&#inner))
            }
            TypeDesc::Union(types) => {
                let types = types.iter().map(|t| self.type_desc(t));
                quote!(Union(&[#(#types),*]))
            }
            TypeDesc::NamedUnion(u) => {
                let s = union_static(u.name);
                quote!(NamedUnion(&#s))
            }
            TypeDesc::Constrained(inner, c) => {
                let inner = self.type_desc(inner);
                let c = self.constraints(c);
                quote!(Constrained(&#inner, &#c))
            }
        };
        quote!(#td::#variant)
    }
}

fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    }
}
