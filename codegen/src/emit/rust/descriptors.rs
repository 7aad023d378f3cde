//! Static descriptors of types and endpoints (`rt::desc`), which the router checks requests
//! against and the client lays requests out by.

use super::{RustModels, Shape, in_shape};
use crate::emit::shapes::format_applies;
use crate::ir::*;
use heck::ToShoutySnakeCase;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

pub fn model_static(shape_name: &str) -> Ident {
    format_ident!("MODEL_{}", shape_name.to_shouty_snake_case())
}

pub fn enum_static(name: &str) -> Ident {
    format_ident!("ENUM_{}", name.to_shouty_snake_case())
}

pub fn auth_static(name: &str) -> Ident {
    format_ident!("AUTH_{}", name.to_shouty_snake_case())
}

pub fn endpoint_static(name: &str) -> Ident {
    format_ident!("ENDPOINT_{}", name.to_shouty_snake_case())
}

impl RustModels<'_> {
    /// The descriptors module's items.
    pub fn descriptors(&self) -> TokenStream {
        let rt = &self.rt;
        let mut items = Vec::new();
        for (id, shape) in self.shapes.all() {
            let name = self.shapes.name(id, shape);
            let ident = model_static(&name);
            let fields = self
                .spec
                .model(id)
                .fields
                .iter()
                .filter(|f| in_shape(f, shape))
                .map(|f| self.field_desc(f, shape));
            items.push(quote! {
                pub static #ident: #rt::desc::ModelDesc = #rt::desc::ModelDesc { name: #name, fields: &[#(#fields),*] };
            });
        }
        for e in &self.spec.enums {
            let ident = enum_static(&e.name);
            let name = &e.name;
            let values = e.values.iter().map(|v| v.name.as_str());
            let open = e.open;
            let int = e.repr == EnumRepr::Int;
            items.push(quote! {
                pub static #ident: #rt::desc::EnumDesc = #rt::desc::EnumDesc { name: #name, values: &[#(#values),*], open: #open, int: #int };
            });
        }
        for a in &self.spec.auth_schemes {
            let ident = auth_static(&a.name);
            let (name, header) = (&a.name, &a.header);
            let same_as = match a.alias_of {
                Some(id) => {
                    let target = &self.spec.auth(id).name;
                    quote!(Some(#target))
                }
                None => quote!(None),
            };
            items.push(quote! {
                pub static #ident: #rt::desc::AuthDesc = #rt::desc::AuthDesc { name: #name, header: #header, same_as: #same_as };
            });
        }
        for ep in &self.spec.endpoints {
            items.push(self.endpoint_desc(ep));
        }
        let all: Vec<Ident> = self
            .spec
            .endpoints
            .iter()
            .map(|e| endpoint_static(&e.name))
            .collect();
        quote! {
            #(#items)*
            /// Every endpoint, in spec order.
            pub static ENDPOINTS: &[&#rt::desc::EndpointDesc] = &[#(&#all),*];
        }
    }

    fn endpoint_desc(&self, ep: &Endpoint) -> TokenStream {
        let rt = &self.rt;
        let ident = endpoint_static(&ep.name);
        let (name, method, path, public, idempotent) = (
            &ep.name,
            ep.method.as_str(),
            &ep.path,
            ep.auth.public,
            ep.idempotent,
        );
        let base = &self.spec.api(ep.api).base_url;
        let any_of = ep
            .auth
            .any_of
            .iter()
            .map(|id| auth_static(&self.spec.auth(*id).name));
        let optional = ep
            .auth
            .optional
            .iter()
            .map(|id| auth_static(&self.spec.auth(*id).name));
        let params = ep.params.iter().map(|p| {
            let location = match p.location {
                ParamLocation::Path => quote!(#rt::desc::Location::Path),
                ParamLocation::Query => quote!(#rt::desc::Location::Query),
                ParamLocation::Header => quote!(#rt::desc::Location::Header),
            };
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
            .map(|g| match g {
                Gate::Feature(f) => quote!(#rt::desc::GateDesc::Feature(#f)),
                Gate::Plan(p) => quote!(#rt::desc::GateDesc::Plan(#p)),
            });
        let groups = ep.exactly_one_of.iter().map(|g| quote!(&[#(#g),*]));
        let statuses: Vec<u16> = crate::emit::all_responses(self.spec, ep)
            .map(|r| r.status)
            .collect();
        let successes: Vec<&Response> = ep
            .responses
            .iter()
            .filter(|r| (200..300).contains(&r.status))
            .collect();
        let open_success = match successes.as_slice() {
            [only] if matches!(only.body, Some(Type::NotShown(_))) => {
                let s = only.status;
                quote!(Some(#s))
            }
            _ => quote!(None),
        };
        quote! {
            pub static #ident: #rt::desc::EndpointDesc = #rt::desc::EndpointDesc {
                name: #name,
                base: #base,
                method: #method,
                path: #path,
                public: #public,
                auth_any_of: &[#(&#any_of),*],
                auth_optional: &[#(&#optional),*],
                params: &[#(#params),*],
                body: #body,
                gates: &[#(#gates),*],
                idempotent: #idempotent,
                exactly_one_of: &[#(#groups),*],
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
        if let Some(p) = &c.pattern {
            parts.push(quote!(pattern: Some(#p)));
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
            Type::Union(types) => {
                let types = types.iter().map(|t| self.type_desc(t, shape));
                quote!(#td::Union(&[#(#types),*]))
            }
            Type::NotShown(_) => quote!(#td::NotShown),
        }
    }
}
