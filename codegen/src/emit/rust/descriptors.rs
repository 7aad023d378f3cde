//! Static descriptors of endpoints and of the request types they reach (`rt::desc`): the
//! router explains a rejected request with them, the client lays requests out by them.

use super::operations::{all_gates, auth_variants, gate_variants};
use super::{RustBackend, Shape, in_shape};
use crate::ir::shapes::format_applies;
use crate::ir::*;
use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;

pub fn model_static(shape_name: &str) -> Ident {
    format_ident!("MODEL_{}", shape_name.to_shouty_snake_case())
}

pub fn enum_static(name: &str) -> Ident {
    format_ident!("ENUM_{}", name.to_shouty_snake_case())
}

pub fn endpoint_static(name: &str) -> Ident {
    format_ident!("ENDPOINT_{}", name.to_shouty_snake_case())
}

/// The generated `AuthScheme` and `Gate` variants, computed once for every endpoint.
struct Variants {
    /// By auth scheme id.
    schemes: Vec<Ident>,
    gates: Vec<Gate>,
    gate_idents: Vec<Ident>,
}

impl Variants {
    fn gate(&self, gate: &Gate) -> &Ident {
        let index = self
            .gates
            .iter()
            .position(|g| g == gate)
            .unwrap_or_default();
        &self.gate_idents[index]
    }
}

impl RustBackend<'_> {
    /// The descriptors module's items.
    pub fn descriptors(&self) -> TokenStream {
        let rt = &self.rt;
        let (models, enums) = self.request_reach();
        let mut items = Vec::new();
        for id in models {
            let name = self.shapes.name(id, Shape::Request);
            let ident = model_static(&name);
            let fields = self
                .spec
                .model(id)
                .fields
                .iter()
                .filter(|f| in_shape(f, Shape::Request))
                .map(|f| self.field_desc(f, Shape::Request));
            items.push(quote! {
                pub static #ident: #rt::desc::ModelDesc = #rt::desc::ModelDesc { name: #name, fields: &[#(#fields),*] };
            });
        }
        for id in enums {
            let e = self.spec.enum_(id);
            let ident = enum_static(&e.name);
            let name = &e.name;
            let values = e.values.iter().map(|v| v.name.as_str());
            let open = e.open;
            let int = e.repr == EnumRepr::Int;
            items.push(quote! {
                pub static #ident: #rt::desc::EnumDesc = #rt::desc::EnumDesc { name: #name, values: &[#(#values),*], open: #open, int: #int };
            });
        }
        let variants = Variants {
            schemes: auth_variants(self.spec),
            gates: all_gates(self.spec),
            gate_idents: gate_variants(&all_gates(self.spec)),
        };
        for ep in &self.spec.endpoints {
            items.push(self.endpoint_desc(ep, &variants));
        }
        let all: Vec<Ident> = self
            .spec
            .endpoints
            .iter()
            .map(|e| endpoint_static(&e.name))
            .collect();
        quote! {
            use super::operations::{AuthScheme, Gate};

            /// An endpoint of this spec.
            pub type Endpoint = #rt::desc::EndpointDesc<AuthScheme, Gate>;

            #(#items)*
            /// Every endpoint, in spec order.
            pub static ENDPOINTS: &[&Endpoint] = &[#(&#all),*];
        }
    }

    /// The models (request shape) and enums an endpoint's parameters and body reach: the
    /// only types the router ever walks.
    fn request_reach(&self) -> (BTreeSet<ModelId>, BTreeSet<EnumId>) {
        let mut models = BTreeSet::new();
        let mut enums = BTreeSet::new();
        let mut pending: Vec<&Type> = Vec::new();
        for ep in &self.spec.endpoints {
            pending.extend(ep.params.iter().map(|p| &p.field.ty));
            pending.extend(ep.body.iter());
        }
        while let Some(ty) = pending.pop() {
            match ty {
                Type::Model(id) => {
                    if models.insert(*id) {
                        let fields = self.spec.model(*id).fields.iter();
                        pending.extend(
                            fields
                                .filter(|f| in_shape(f, Shape::Request))
                                .map(|f| &f.ty),
                        );
                    }
                }
                Type::Enum(id) => drop(enums.insert(*id)),
                Type::List(inner) | Type::Map(inner) => pending.push(inner),
                Type::Union(types) => pending.extend(types.iter()),
                Type::Primitive(_) | Type::NotShown(_) => {}
            }
        }
        (models, enums)
    }

    fn endpoint_desc(&self, ep: &Endpoint, variants: &Variants) -> TokenStream {
        let rt = &self.rt;
        let ident = endpoint_static(&ep.name);
        let (name, path, public, idempotent) = (&ep.name, &ep.path, ep.auth.public, ep.idempotent);
        let body_media = match &ep.body_media {
            BodyMedia::Json => quote!(#rt::desc::BodyMedia::Json),
            BodyMedia::Form => quote!(#rt::desc::BodyMedia::Form),
            BodyMedia::Multipart => quote!(#rt::desc::BodyMedia::Multipart),
            BodyMedia::Raw(media) => quote!(#rt::desc::BodyMedia::Raw(#media)),
        };
        let accept = crate::emit::accept(self.spec, ep);
        let idempotency_key = match &ep.idempotency_key {
            Some(header) => quote!(Some(#header)),
            None => quote!(None),
        };
        let base = &self.spec.api(ep.api).base_url;
        let scheme = |id: &AuthId| &variants.schemes[id.0 as usize];
        let any_of = ep.auth.any_of.iter().map(scheme);
        let optional = ep.auth.optional.iter().map(scheme);
        let scopes = ep.auth.scopes.iter().map(|(id, scopes)| {
            let variant = scheme(id);
            quote!((AuthScheme::#variant, &[#(#scopes),*]))
        });
        let method = format_ident!("{}", ep.method.as_str());
        let params = ep.params.iter().map(|p| {
            let location = format_ident!("{}", p.location.as_str().to_upper_camel_case());
            let location = quote!(#rt::desc::Location::#location);
            let field = self.field_desc(&p.field, Shape::Request);
            quote!(#rt::desc::ParamDesc { location: #location, field: #field })
        });
        let body = match &ep.body {
            Some(t) => {
                let t = self.type_desc(t, Shape::Request);
                quote!(Some(&#t))
            }
            None => quote!(None),
        };
        let gates = ep
            .gates
            .iter()
            .chain(&self.spec.api(ep.api).gates)
            .map(|g| variants.gate(g));
        let groups = ep.exactly_one_of.iter().map(|g| quote!(&[#(#g),*]));
        let statuses: Vec<u16> = crate::emit::all_responses(self.spec, ep)
            .map(|r| r.status)
            .collect();
        let open_success = match crate::emit::open_success(ep) {
            Some(s) => quote!(Some(#s)),
            None => quote!(None),
        };
        quote! {
            pub static #ident: Endpoint = #rt::desc::EndpointDesc {
                name: #name,
                base: #base,
                method: #rt::http::Method::#method,
                path: #path,
                public: #public,
                auth_any_of: &[#(AuthScheme::#any_of),*],
                auth_optional: &[#(AuthScheme::#optional),*],
                auth_scopes: &[#(#scopes),*],
                params: &[#(#params),*],
                body: #body,
                body_media: #body_media,
                gates: &[#(Gate::#gates),*],
                idempotent: #idempotent,
                idempotency_key: #idempotency_key,
                exactly_one_of: &[#(#groups),*],
                accept: #accept,
                statuses: &[#(#statuses),*],
                open_success: #open_success,
            };
        }
    }

    fn field_desc(&self, f: &Field, shape: Shape) -> TokenStream {
        let rt = &self.rt;
        let name = &f.name;
        let ty = self.type_desc(&f.ty, shape);
        let presence = match f.presence {
            Presence::Required => quote!(#rt::desc::Presence::Required),
            Presence::Optional => quote!(#rt::desc::Presence::Optional),
            Presence::Nullable => quote!(#rt::desc::Presence::Nullable),
            Presence::OptionalNullable => quote!(#rt::desc::Presence::OptionalNullable),
        };
        let has_default = f.default.is_some();
        let format = format_applies(f, shape);
        let constraints = self.constraints_desc(&f.constraints);
        quote! {
            #rt::desc::FieldDesc { name: #name, ty: #ty, presence: #presence, has_default: #has_default, format: #format, constraints: #constraints }
        }
    }

    fn constraints_desc(&self, c: &Constraints) -> TokenStream {
        let rt = &self.rt;
        if c.is_empty() {
            return quote!(#rt::desc::Constraints::NONE);
        }
        let mut parts = Vec::new();
        let opt_f = |v: Option<f64>| v.map(|n| quote!(Some(#n)));
        let opt_u = |v: Option<u64>| {
            v.map(|n| {
                let n = n as usize;
                quote!(Some(#n))
            })
        };
        for (key, value) in [("minimum", opt_f(c.minimum)), ("maximum", opt_f(c.maximum))] {
            if let Some(v) = value {
                let key = format_ident!("{key}");
                parts.push(quote!(#key: #v));
            }
        }
        for (key, value) in [
            ("min_length", opt_u(c.min_length)),
            ("max_length", opt_u(c.max_length)),
            ("min_items", opt_u(c.min_items)),
            ("max_items", opt_u(c.max_items)),
        ] {
            if let Some(v) = value {
                let key = format_ident!("{key}");
                parts.push(quote!(#key: #v));
            }
        }
        if let Some(p) = c.pattern.as_ref().and_then(|p| self.patterns.get(p)) {
            parts.push(quote!(pattern: Some(&super::models::#p)));
        }
        let numbers = c.one_of_numbers();
        if !numbers.is_empty() {
            parts.push(quote!(one_of_numbers: &[#(#numbers),*]));
        }
        let strings = c.one_of_strings();
        if !strings.is_empty() {
            parts.push(quote!(one_of_strings: &[#(#strings),*]));
        }
        quote!(#rt::desc::Constraints { #(#parts,)* ..#rt::desc::Constraints::NONE })
    }

    fn type_desc(&self, ty: &Type, shape: Shape) -> TokenStream {
        let rt = &self.rt;
        let td = quote!(#rt::desc::TypeDesc);
        match ty {
            Type::Primitive(p) => {
                let variant = match p {
                    Primitive::String => quote!(String),
                    Primitive::Int => quote!(Int),
                    Primitive::Number => quote!(Number),
                    Primitive::Bool => quote!(Bool),
                    Primitive::Uuid => quote!(Uuid),
                    Primitive::Date => quote!(Date),
                    Primitive::DateTime => quote!(DateTime),
                    Primitive::Email => quote!(Email),
                    Primitive::Uri => quote!(Uri),
                    Primitive::TimeZone => quote!(TimeZone),
                    Primitive::Object => quote!(Object),
                    Primitive::Any => quote!(Any),
                    Primitive::Bytes => quote!(Bytes),
                    Primitive::File => quote!(File),
                };
                quote!(#td::#variant)
            }
            Type::Model(id) => {
                let s = model_static(&self.shapes.name(*id, shape));
                quote!(#td::Model(&#s))
            }
            Type::Enum(id) => {
                let s = enum_static(&self.spec.enum_(*id).name);
                quote!(#td::Enum(&#s))
            }
            Type::List(inner) => {
                let inner = self.type_desc(inner, shape);
                quote!(#td::List(&#inner))
            }
            Type::Map(inner) => {
                let inner = self.type_desc(inner, shape);
                quote!(#td::Map(&#inner))
            }
            Type::Union(types) => {
                let types = types.iter().map(|t| self.type_desc(t, shape));
                quote!(#td::Union(&[#(#types),*]))
            }
            Type::NotShown(_) => quote!(#td::NotShown),
        }
    }
}
