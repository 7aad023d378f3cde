//! Per endpoint: an `Input` struct (every parameter and the body) and a response enum with
//! one variant per declared status; and the `AuthScheme` enum. Shared by server and client.

use super::names::{field_ident, type_ident, variant_idents};
use super::{RustModels, Shape};
use crate::ir::*;
use heck::ToUpperCamelCase;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

pub fn input_ident(ep: &Endpoint) -> Ident {
    format_ident!("{}Input", ep.name.to_upper_camel_case())
}

pub fn response_ident(ep: &Endpoint) -> Ident {
    format_ident!("{}Response", ep.name.to_upper_camel_case())
}

/// The variant of a status: its reason phrase where it has a well-known one.
pub fn status_variant(status: u16) -> Ident {
    let name = match status {
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        204 => "NoContent",
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        409 => "Conflict",
        410 => "Gone",
        413 => "PayloadTooLarge",
        422 => "UnprocessableEntity",
        429 => "TooManyRequests",
        500 => "InternalServerError",
        502 => "BadGateway",
        503 => "ServiceUnavailable",
        _ => return format_ident!("Status{status}"),
    };
    format_ident!("{name}")
}

/// A parameter as its Rust field sees it: a path, query or header value cannot be null, so
/// "optional and nullable" is just optional.
pub fn param_view(f: &Field) -> Field {
    let mut f = f.clone();
    if f.presence == Presence::OptionalNullable {
        f.presence = Presence::Optional;
    }
    f
}

/// The Rust name of the field holding the request body: `body`, unless a parameter has it.
pub fn body_field(ep: &Endpoint) -> Ident {
    if ep.params.iter().any(|p| p.field.name == "body") {
        format_ident!("request_body")
    } else {
        format_ident!("body")
    }
}

impl RustModels<'_> {
    pub fn operations(&mut self) -> TokenStream {
        let preamble = self.preamble();
        let mut items = vec![quote! {
            #preamble
            #[allow(unused_imports)]
            use super::models::*;
        }];
        items.push(self.auth_scheme_enum());
        let mut defaults = Vec::new();
        let spec = self.spec;
        for ep in &spec.endpoints {
            items.push(self.input_struct(ep, &mut defaults));
            items.push(self.response_enum(ep));
        }
        quote! {
            #(#items)*
            /// Defaults of parameters, applied when a request leaves them out.
            #[allow(non_snake_case)]
            mod defaults {
                #[allow(unused_imports)]
                use super::*;
                #(#defaults)*
            }
        }
    }

    fn auth_scheme_enum(&self) -> TokenStream {
        let names: Vec<&str> = self
            .spec
            .auth_schemes
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        let headers: Vec<&str> = self
            .spec
            .auth_schemes
            .iter()
            .map(|a| a.header.as_str())
            .collect();
        let variants = variant_idents(&names, "");
        let docs: Vec<String> = self
            .spec
            .auth_schemes
            .iter()
            .map(|a| {
                format!(
                    " `{}`{}",
                    a.header,
                    a.doc
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                )
            })
            .collect();
        quote! {
            /// The credentials the service accepts, one per header.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum AuthScheme {
                #(#[doc = #docs] #variants,)*
            }

            impl AuthScheme {
                pub const ALL: &'static [AuthScheme] = &[#(AuthScheme::#variants),*];

                /// The scheme's name in the spec.
                pub fn name(self) -> &'static str {
                    match self { #(AuthScheme::#variants => #names,)* }
                }

                /// The header that carries the credential.
                pub fn header(self) -> &'static str {
                    match self { #(AuthScheme::#variants => #headers,)* }
                }

                pub fn from_name(name: &str) -> Option<AuthScheme> {
                    match name { #(#names => Some(AuthScheme::#variants),)* _ => None }
                }
            }
        }
    }

    fn input_struct(&mut self, ep: &Endpoint, defaults: &mut Vec<TokenStream>) -> TokenStream {
        let ident = input_ident(ep);
        let owner = ident.to_string();
        let mut fields = Vec::new();
        for p in &ep.params {
            let f = &param_view(&p.field);
            let name = field_ident(&f.name);
            let wire = &f.name;
            let rename = (name.to_string().trim_start_matches("r#") != f.name)
                .then(|| quote!(#[serde(rename = #wire)]));
            let inner = self.value_type(
                &f.ty,
                Shape::Request,
                &format!("{owner}{}", f.name.to_upper_camel_case()),
            );
            let (ty, attr) = self.presence_wrap(inner, f, &owner);
            if let Some(d) = &f.default {
                defaults.push(self.default_fn(&owner, f, d));
            }
            let location = match p.location {
                ParamLocation::Path => "Path",
                ParamLocation::Query => "Query",
                ParamLocation::Header => "Header",
            };
            let mut doc = vec![format!(" {location} parameter `{wire}`.")];
            if let Some(d) = &f.doc {
                doc.extend(d.lines().map(|l| format!(" {l}")));
            }
            if let Some(d) = &f.default {
                doc.push(format!(" Default: `{d}`."));
            }
            let deprecated = f.deprecated.as_ref().map(|_| quote!(#[deprecated]));
            fields.push(quote! {
                #(#[doc = #doc])*
                #deprecated
                #rename
                #attr
                pub #name: #ty,
            });
        }
        if let Some(body) = &ep.body {
            let name = body_field(ep);
            let rename = (name != "body").then(|| quote!(#[serde(rename = "body")]));
            let ty = self.value_type(body, Shape::Request, &format!("{owner}Body"));
            fields.push(quote! {
                /// The request body.
                #rename
                pub #name: #ty,
            });
        }
        let doc = format!(
            " Everything a `{}` request carries: `{} {}`.",
            ep.name,
            ep.method.as_str(),
            ep.path
        );
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
            pub struct #ident {
                #(#fields)*
            }
        }
    }

    fn response_enum(&mut self, ep: &Endpoint) -> TokenStream {
        let ident = response_ident(ep);
        let responses: Vec<Response> = crate::emit::all_responses(self.spec, ep).cloned().collect();
        let mut variants = Vec::new();
        let mut to_json = Vec::new();
        let mut from_json = Vec::new();
        let mut statuses = Vec::new();
        for r in &responses {
            let variant = status_variant(r.status);
            let status = r.status;
            let doc = format!(
                " {status}{}",
                r.doc
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            );
            statuses.push(quote!(#ident::#variant { .. } => #status));
            match &r.body {
                Some(body) => {
                    let ty = self.value_type(body, Shape::Response, &format!("{ident}{status}"));
                    variants.push(quote!(#[doc = #doc] #variant(#ty)));
                    to_json.push(quote!(#ident::#variant(body) => serde_json::to_value(body).unwrap_or(serde_json::Value::Null)));
                    from_json.push(quote!(#status => serde_json::from_value(body).map(#ident::#variant).map_err(|e| e.to_string())));
                }
                None => {
                    variants.push(quote!(#[doc = #doc] #variant));
                    to_json.push(quote!(#ident::#variant => serde_json::Value::Null));
                    from_json.push(quote!(#status => Ok(#ident::#variant)));
                }
            }
        }
        let statuses_fn = responses.iter().map(|r| {
            let variant = status_variant(r.status);
            let status = r.status;
            if r.body.is_some() {
                quote!(#ident::#variant(_) => #status)
            } else {
                quote!(#ident::#variant => #status)
            }
        });
        let _ = statuses;
        let doc = format!(
            " The responses `{}` may give: one variant per status the spec declares.",
            ep.name
        );
        let type_name = type_ident(&ident.to_string());
        quote! {
            #[doc = #doc]
            // Built once per call and moved out; boxing the large bodies would burden every
            // implementation for no gain.
            #[allow(clippy::large_enum_variant)]
            #[derive(Clone, Debug, PartialEq)]
            pub enum #type_name {
                #(#variants,)*
            }

            impl #type_name {
                pub fn status(&self) -> u16 {
                    match self { #(#statuses_fn,)* }
                }

                /// The body as JSON; `null` for a response without one.
                pub fn body_json(&self) -> serde_json::Value {
                    match self { #(#to_json,)* }
                }

                /// Reads a response of a declared status; the error names what did not fit.
                pub fn from_status_json(status: u16, body: serde_json::Value) -> Result<Self, String> {
                    match status {
                        #(#from_json,)*
                        other => Err(format!("status {other} is not declared for this endpoint")),
                    }
                }
            }
        }
    }
}
