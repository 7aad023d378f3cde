//! Per endpoint: an `Input` struct (every parameter and the body) and a response enum with
//! one variant per declared status; and the `AuthScheme` and `Gate` enums. Shared by server
//! and client.

use super::names::{field_ident, type_ident, variant_idents};
use super::{RustBackend, Shape};
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
pub fn status_variant(status: StatusPattern) -> Ident {
    let status = match status {
        StatusPattern::Exact(code) => code,
        StatusPattern::Class(4) => return format_ident!("ClientError"),
        StatusPattern::Class(5) => return format_ident!("ServerError"),
        StatusPattern::Class(class) => return format_ident!("Status{class}xx"),
        StatusPattern::Default => return format_ident!("Default"),
    };
    let name = match status {
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        204 => "NoContent",
        206 => "PartialContent",
        301 => "MovedPermanently",
        302 => "Found",
        303 => "SeeOther",
        304 => "NotModified",
        307 => "TemporaryRedirect",
        308 => "PermanentRedirect",
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        409 => "Conflict",
        410 => "Gone",
        412 => "PreconditionFailed",
        413 => "PayloadTooLarge",
        415 => "UnsupportedMediaType",
        422 => "UnprocessableEntity",
        429 => "TooManyRequests",
        500 => "InternalServerError",
        501 => "NotImplemented",
        502 => "BadGateway",
        503 => "ServiceUnavailable",
        504 => "GatewayTimeout",
        _ => return format_ident!("Status{status}"),
    };
    format_ident!("{name}")
}

/// A declared status as the runtime's `StatusPattern`.
pub fn status_tokens(rt: &TokenStream, status: StatusPattern) -> TokenStream {
    match status {
        StatusPattern::Exact(code) => quote!(#rt::desc::StatusPattern::Exact(#code)),
        StatusPattern::Class(class) => quote!(#rt::desc::StatusPattern::Class(#class)),
        StatusPattern::Default => quote!(#rt::desc::StatusPattern::Default),
    }
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

/// The gates' variants in the generated `Gate` enum, in [`all_gates`] order: the feature's
/// name, or the plan's with `Plan`.
pub fn gate_variants(gates: &[Gate]) -> Vec<Ident> {
    let names: Vec<String> = gates
        .iter()
        .map(|g| match g {
            Gate::Feature(n) => n.clone(),
            Gate::Plan(n) => format!("{n}_plan"),
        })
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    variant_idents(&names, "")
}

/// The variants of the generated `AuthScheme` enum, by scheme id.
pub fn auth_variants(spec: &Spec) -> Vec<Ident> {
    let names: Vec<&str> = spec.auth_schemes.iter().map(|a| a.name.as_str()).collect();
    variant_idents(&names, "")
}

/// `rt::desc::Carrier::Header("x-api-key")` and its siblings.
fn carrier_tokens(rt: &TokenStream, carrier: &Carrier) -> TokenStream {
    match carrier {
        Carrier::Header(name) => quote!(#rt::desc::Carrier::Header(#name)),
        Carrier::Bearer => quote!(#rt::desc::Carrier::Bearer),
        Carrier::Basic => quote!(#rt::desc::Carrier::Basic),
        Carrier::Query(name) => quote!(#rt::desc::Carrier::Query(#name)),
        Carrier::Cookie(name) => quote!(#rt::desc::Carrier::Cookie(#name)),
    }
}

/// The Rust name of the field holding the request body: `body`, unless a parameter has it.
pub fn body_field(ep: &Endpoint) -> Ident {
    if ep.params.iter().any(|p| p.field.name == "body") {
        format_ident!("request_body")
    } else {
        format_ident!("body")
    }
}

impl RustBackend<'_> {
    pub fn operations(&mut self) -> TokenStream {
        let preamble = self.preamble();
        let mut items = vec![quote! {
            #preamble
            #[allow(unused_imports)]
            use super::models::*;
        }];
        items.push(self.auth_scheme_enum());
        items.push(self.gate_enum());
        let mut defaults = Vec::new();
        let spec = self.spec;
        for ep in &spec.endpoints {
            items.push(self.input_struct(ep, &mut defaults));
            items.push(self.response_enum(ep, &mut defaults));
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
        let rt = &self.rt;
        let carriers: Vec<TokenStream> = self
            .spec
            .auth_schemes
            .iter()
            .map(|a| carrier_tokens(rt, &a.carrier))
            .collect();
        let variants = auth_variants(self.spec);
        let docs: Vec<Vec<String>> = self
            .spec
            .auth_schemes
            .iter()
            .map(|a| {
                super::doc_lines(&format!(
                    "`{}`{}",
                    crate::ir::carrier_syntax(&a.carrier),
                    a.doc
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                ))
            })
            .collect();
        let primaries = self.spec.auth_schemes.iter().map(|a| {
            let target = a
                .alias_of
                .map_or(a.name.as_str(), |id| self.spec.auth(id).name.as_str());
            let idx = names.iter().position(|n| *n == target).unwrap_or_default();
            &variants[idx]
        });
        quote! {
            /// The credentials the service accepts, and where each travels.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum AuthScheme {
                #(#(#[doc = #docs])* #variants,)*
            }

            impl AuthScheme {
                pub const ALL: &'static [AuthScheme] = &[#(AuthScheme::#variants),*];

                /// The scheme's name in the spec.
                pub fn name(self) -> &'static str {
                    match self { #(AuthScheme::#variants => #names,)* }
                }

                /// Where the credential travels.
                pub fn carrier(self) -> #rt::desc::Carrier {
                    match self { #(AuthScheme::#variants => #carriers,)* }
                }

                /// The scheme a credential of this one authenticates as: itself, or the
                /// scheme it is a second header of.
                pub fn primary(self) -> AuthScheme {
                    match self { #(AuthScheme::#variants => AuthScheme::#primaries,)* }
                }
            }

            impl #rt::Scheme for AuthScheme {
                fn name(self) -> &'static str {
                    AuthScheme::name(self)
                }

                fn carrier(self) -> #rt::desc::Carrier {
                    AuthScheme::carrier(self)
                }

                fn primary(self) -> AuthScheme {
                    AuthScheme::primary(self)
                }
            }
        }
    }

    fn gate_enum(&self) -> TokenStream {
        let rt = &self.rt;
        let gates = all_gates(self.spec);
        let variants = gate_variants(&gates);
        let names = gates.iter().map(|g| match g {
            Gate::Feature(n) | Gate::Plan(n) => n.as_str(),
        });
        let docs = gates.iter().map(|g| match g {
            Gate::Feature(n) => {
                format!(" The `{n}` feature, off until the service enables it for the team.")
            }
            Gate::Plan(n) => format!(" The `{n}` plan."),
        });
        let refusals = gates.iter().map(Gate::refusal);
        quote! {
            /// The features and plans endpoints require: the router asks the server's
            /// `gate_open` for each before a gated endpoint runs.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum Gate {
                #(#[doc = #docs] #variants,)*
            }

            impl Gate {
                pub const ALL: &'static [Gate] = &[#(Gate::#variants),*];

                /// The feature's or plan's name in the spec.
                pub fn name(self) -> &'static str {
                    match self { #(Gate::#variants => #names,)* }
                }
            }

            impl #rt::Gate for Gate {
                fn refusal(self) -> String {
                    match self { #(Gate::#variants => #refusals.to_string(),)* }
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
            let name = field_ident(&f.ident);
            let wire = &f.name;
            let rename = (name.to_string().trim_start_matches("r#") != f.name)
                .then(|| quote!(#[serde(rename = #wire)]));
            let inner = self.value_type(&f.ty, Shape::Request, &super::union_name(&owner, &f.name));
            let (ty, attr) = self.presence_wrap(inner, f, &owner);
            if let Some(d) = &f.default {
                defaults.push(self.default_fn(&owner, f, d));
            }
            let location = heck::ToTitleCase::to_title_case(p.location.as_str());
            let mut doc = vec![format!(" {location} parameter `{wire}`.")];
            if let Some(d) = &f.doc {
                doc.extend(super::doc_lines(d));
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
        let validate = self.input_validate(ep, &ident);
        // Without a body, an input of optional parameters only gets `Default`.
        let params: Vec<Field> = ep.params.iter().map(|p| param_view(&p.field)).collect();
        let default = ep
            .body
            .is_none()
            .then(|| {
                let params: Vec<&Field> = params.iter().collect();
                super::impl_default(&ident, &owner, &params, false)
            })
            .flatten();
        let derive_default = super::DefaultImpl::derive(&default);
        let default = super::DefaultImpl::written(default);
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, #derive_default PartialEq, Serialize, Deserialize)]
            pub struct #ident {
                #(#fields)*
            }
            #default
            #validate
        }
    }

    /// The input's checks: each parameter's constraints under its location, the body's, and
    /// each exactly-one-of group.
    fn input_validate(&self, ep: &Endpoint, ident: &Ident) -> TokenStream {
        let rt = &self.rt;
        let mut checks = Vec::new();
        for p in &ep.params {
            let f = param_view(&p.field);
            if let Some(check) = super::validate::field_checks(self, &f, Shape::Request) {
                let location = p.location.as_str();
                checks.push(quote! {
                    loc.push(#rt::LocPart::key(#location));
                    #check
                    loc.pop();
                });
            }
        }
        if let Some(ty) = &ep.body {
            let body = Field {
                name: "body".to_string(),
                ident: "body".to_string(),
                doc: None,
                ty: ty.clone(),
                presence: Presence::Required,
                default: None,
                constraints: Constraints::default(),
                visibility: Visibility::Always,
                format_scope: FormatScope::Always,
                deprecated: None,
                provenance: Provenance::default(),
                rejection: None,
                secret: false,
                personal: false,
                varies: false,
                encoding: Default::default(),
                span: Default::default(),
            };
            checks.extend(super::validate::field_checks(self, &body, Shape::Request));
        }
        for group in &ep.exactly_one_of {
            let sent = if ep.group_in_body(group) {
                self.body_fields_sent(ep, group)
            } else {
                group
                    .iter()
                    .map(|name| {
                        let ident = ep
                            .params
                            .iter()
                            .find(|p| &p.field.name == name)
                            .map_or(name.as_str(), |p| p.field.ident.as_str());
                        let field = field_ident(ident);
                        quote!((#name, self.#field.is_some()))
                    })
                    .collect()
            };
            let location = if ep.group_in_body(group) {
                "body"
            } else {
                ep.params
                    .iter()
                    .find(|p| Some(&p.field.name) == group.first())
                    .map_or("body", |p| p.location.as_str())
            };
            checks.push(quote! {
                loc.push(#rt::LocPart::key(#location));
                #rt::check::exactly_one_of(&[#(#sent),*], loc, out);
                loc.pop();
            });
        }
        super::validate::validate_impl(rt, ident, checks)
    }

    /// `("name", sent)` for each body field of a group: an `Option` sent when `Some`, a
    /// `Tristate` when not absent.
    fn body_fields_sent(&self, ep: &Endpoint, group: &[String]) -> Vec<TokenStream> {
        let Some(Type::Model(id)) = &ep.body else {
            return Vec::new();
        };
        let model = self.spec.model(*id);
        let body = body_field(ep);
        group
            .iter()
            .filter_map(|name| {
                let f = model
                    .fields
                    .iter()
                    .find(|f| &f.name == name && f.visibility != Visibility::ResponseOnly)?;
                let field = field_ident(&f.ident);
                let present = super::validate::is_present(quote!(self.#body.#field), f.presence);
                Some(quote!((#name, #present)))
            })
            .collect()
    }

    fn response_enum(&mut self, ep: &Endpoint, defaults: &mut Vec<TokenStream>) -> TokenStream {
        let ident = response_ident(ep);
        let responses: Vec<Response> = crate::ir::all_responses(self.spec, ep).cloned().collect();
        let mut variants = Vec::new();
        let mut header_structs = Vec::new();
        let mut statuses = Vec::new();
        let mut to_json = Vec::new();
        let mut from_parts = Vec::new();
        let mut header_pairs = Vec::new();
        for r in &responses {
            let variant = status_variant(r.status);
            let status = r.status;
            let covers = match status {
                StatusPattern::Exact(_) => "",
                StatusPattern::Class(_) => " (any status of the class, held in `status`)",
                StatusPattern::Default => {
                    " (any status declared by no other variant, held in `status`)"
                }
            };
            let doc = super::doc_lines(&format!(
                "{status}{covers}{}",
                r.doc
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ));
            let body_ty = r.body.as_ref().map(|body| {
                let ty = self.value_type(body, Shape::Response, &format!("{ident}{status}"));
                if r.nullable {
                    quote!(::std::option::Option<#ty>)
                } else {
                    ty
                }
            });
            let read_body = if r.media.is_raw() {
                let rt = &self.rt;
                quote!(#rt::RawBody::from_raw(body)?)
            } else if let BodyMedia::Stream(media) = &r.media {
                let rt = &self.rt;
                quote!(::serde_json::from_slice(&#rt::streams::as_json_array(#media, body)?).map_err(|e| e.to_string())?)
            } else {
                quote!(::serde_json::from_slice(json).map_err(|e| e.to_string())?)
            };
            let headers_ty = (!r.headers.is_empty()).then(|| headers_ident(ep, r.status));
            if let Some(headers_ty) = &headers_ty {
                header_structs.push(self.headers_struct(ep, r, headers_ty, defaults));
                let rt = &self.rt;
                header_pairs
                    .push(quote!(Self::#variant { headers, .. } => #rt::headers::write(headers)));
            }
            let arms = VariantArms {
                variant: &variant,
                doc: &doc,
                body: body_ty.as_ref().map(|ty| (ty, &read_body)),
                headers: headers_ty.as_ref(),
                holds_status: status.exact().is_none(),
                rt: &self.rt,
            };
            let code = status.exact().map(|code| quote!(#code));
            variants.push(arms.declaration());
            statuses.push(arms.status(code.as_ref()));
            to_json.push(arms.to_json());
            from_parts.push((status, arms.read_arm(status)));
        }
        // An answer takes its own status's variant, then its class's, then `default`'s.
        from_parts.sort_by_key(|(status, _)| match status {
            StatusPattern::Exact(_) => 0,
            StatusPattern::Class(_) => 1,
            StatusPattern::Default => 2,
        });
        let undeclared = (!responses.iter().any(|r| r.status == StatusPattern::Default)).then(
            || quote!(other => Err(format!("status {other} is not declared for this endpoint")),),
        );
        let from_parts = from_parts.into_iter().map(|(_, arm)| arm);
        let rt = &self.rt;
        let headers_fn = if header_pairs.is_empty() {
            TokenStream::new()
        } else {
            let without =
                (header_pairs.len() < responses.len()).then(|| quote!(_ => Ok(Vec::new()),));
            quote! {
                /// The declared headers of this response, as text. The error names a value
                /// that is no valid header text.
                pub fn headers(&self) -> ::std::result::Result<Vec<(#rt::http::HeaderName, #rt::http::HeaderValue)>, ::std::string::String> {
                    match self {
                        #(#header_pairs,)*
                        #without
                    }
                }
            }
        };
        // No body to read: the parameter is there for a uniform signature.
        let body_param = if responses.iter().any(|r| r.body.is_some()) {
            quote!(body)
        } else {
            quote!(_body)
        };
        // A JSON body read from nothing is `null`; text or bytes are read as they are.
        let read_body_bytes = if responses
            .iter()
            .any(|r| r.body.is_some() && r.media.is_json())
        {
            quote!(let json: &[u8] = if body.iter().all(u8::is_ascii_whitespace) { b"null" } else { body };)
        } else {
            TokenStream::new()
        };
        // No declared header to read: the parameter is there for a uniform signature.
        let headers_param = if header_pairs.is_empty() {
            quote!(_headers)
        } else {
            quote!(headers)
        };
        let doc = format!(
            " The responses `{}` may give: one variant per status the spec declares.",
            ep.name
        );
        let type_name = type_ident(&ident.to_string());
        quote! {
            #(#header_structs)*

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
                    match self { #(#statuses,)* }
                }

                /// The body as JSON; `null` for a response without one.
                pub fn body_json(&self) -> ::std::result::Result<::serde_json::Value, ::serde_json::Error> {
                    match self { #(#to_json,)* }
                }

                #headers_fn

                /// Reads a response of a declared status from its headers and body; an empty
                /// body reads as `null`. The error names what did not fit.
                pub fn from_parts(status: u16, #headers_param: &#rt::http::HeaderMap, #body_param: &[u8]) -> ::std::result::Result<Self, ::std::string::String> {
                    #read_body_bytes
                    match status {
                        #(#from_parts,)*
                        #undeclared
                    }
                }

                /// Reads a response body of a declared status, as [`Self::from_parts`] with no
                /// headers: a response that requires a header does not read so.
                pub fn from_status_bytes(status: u16, body: &[u8]) -> ::std::result::Result<Self, ::std::string::String> {
                    Self::from_parts(status, &#rt::http::HeaderMap::new(), body)
                }
            }
        }
    }

    /// The struct of one response's headers, each field renamed to its header's name.
    fn headers_struct(
        &mut self,
        ep: &Endpoint,
        response: &Response,
        ident: &Ident,
        defaults: &mut Vec<TokenStream>,
    ) -> TokenStream {
        let rt = self.rt.clone();
        let owner = ident.to_string();
        let mut fields = Vec::new();
        for h in &response.headers {
            let name = field_ident(&h.ident);
            let wire = &h.name;
            let inner = self.value_type(&h.ty, Shape::Response, &super::union_name(&owner, wire));
            let (ty, attr) = self.presence_wrap(inner, h, &owner);
            if let Some(d) = &h.default {
                defaults.push(self.default_fn(&owner, h, d));
            }
            let mut doc = vec![format!(" `{wire}`.")];
            if let Some(d) = &h.doc {
                doc.extend(super::doc_lines(d));
            }
            if let Some(d) = &h.default {
                doc.push(format!(" Default: `{d}`."));
            }
            let deprecated = h.deprecated.as_ref().map(|_| quote!(#[deprecated]));
            fields.push(quote! {
                #(#[doc = #doc])*
                #deprecated
                #[serde(rename = #wire)]
                #attr
                pub #name: #ty,
            });
        }
        let names = response.headers.iter().map(|h| h.name.as_str());
        let doc = format!(" The headers of a `{}` {}.", ep.name, response.status);
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
            pub struct #ident {
                #(#fields)*
            }

            impl #rt::headers::Headers for #ident {
                const NAMES: &'static [&'static str] = &[#(#names),*];
            }
        }
    }
}

/// The arms one declared response adds to its enum. A class (`4XX`) or `default` variant
/// holds the status it was answered with beside its body and headers.
struct VariantArms<'a> {
    variant: &'a Ident,
    doc: &'a [String],
    /// The body's type and how it is read.
    body: Option<(&'a TokenStream, &'a TokenStream)>,
    headers: Option<&'a Ident>,
    /// A class or `default`: the variant holds its status.
    holds_status: bool,
    rt: &'a TokenStream,
}

impl VariantArms<'_> {
    fn declaration(&self) -> TokenStream {
        let (variant, doc) = (self.variant, self.doc);
        let status = self.holds_status.then(|| quote!(status: u16,));
        let body = self.body.map(|(ty, _)| quote!(body: #ty,));
        let headers = self.headers.map(|ty| quote!(headers: #ty,));
        match (status.is_none() && headers.is_none(), self.body) {
            (true, Some((ty, _))) => quote!(#(#[doc = #doc])* #variant(#ty)),
            (true, None) => quote!(#(#[doc = #doc])* #variant),
            (false, _) => quote!(#(#[doc = #doc])* #variant { #status #body #headers }),
        }
    }

    /// The pattern that matches the variant, binding `body` when asked.
    fn pattern(&self, bind_body: bool) -> TokenStream {
        let variant = self.variant;
        match (self.is_tuple(), bind_body && self.body.is_some()) {
            (true, true) => quote!(Self::#variant(body)),
            (true, false) if self.body.is_some() => quote!(Self::#variant(_)),
            (true, false) => quote!(Self::#variant),
            (false, true) => quote!(Self::#variant { body, .. }),
            (false, false) => quote!(Self::#variant { .. }),
        }
    }

    fn is_tuple(&self) -> bool {
        self.headers.is_none() && !self.holds_status
    }

    /// `status()`'s arm: the declared code, or the one the variant holds.
    fn status(&self, code: Option<&TokenStream>) -> TokenStream {
        let variant = self.variant;
        match code {
            Some(code) => {
                let pattern = self.pattern(false);
                quote!(#pattern => #code)
            }
            None => quote!(Self::#variant { status, .. } => *status),
        }
    }

    fn to_json(&self) -> TokenStream {
        let pattern = self.pattern(true);
        match self.body {
            Some(_) => quote!(#pattern => ::serde_json::to_value(body)),
            None => quote!(#pattern => Ok(::serde_json::Value::Null)),
        }
    }

    /// `from_parts`'s arm for the statuses the response covers.
    fn read_arm(&self, status: StatusPattern) -> TokenStream {
        let (variant, rt) = (self.variant, self.rt);
        let body = self.body.map(|(_, read)| quote!(body: #read,));
        let headers = self
            .headers
            .map(|_| quote!(headers: #rt::headers::read(headers)?,));
        let (matched, held) = match status {
            StatusPattern::Exact(code) => (quote!(#code), None),
            StatusPattern::Class(class) => {
                let (low, high) = (u16::from(class) * 100, u16::from(class) * 100 + 99);
                (quote!(#low..=#high), Some(quote!(status,)))
            }
            StatusPattern::Default => (quote!(_), Some(quote!(status,))),
        };
        if held.is_none() && headers.is_none() {
            return match self.body {
                Some((_, read)) => quote!(#matched => Ok(Self::#variant(#read))),
                None => quote!(#matched => Ok(Self::#variant)),
            };
        }
        quote!(#matched => Ok(Self::#variant { #held #body #headers }))
    }
}

/// The struct of a response's headers: `CreatePetCreatedHeaders`.
pub fn headers_ident(ep: &Endpoint, status: StatusPattern) -> Ident {
    format_ident!(
        "{}{}Headers",
        ep.name.to_upper_camel_case(),
        status_variant(status)
    )
}
