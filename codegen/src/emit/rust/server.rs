//! The server half: a trait with one method per endpoint and a router that authenticates,
//! checks gates, gathers and validates every input, calls the trait and writes the response.

use super::RustBackend;
use super::descriptors::endpoint_static;
use super::operations::{input_ident, response_ident, status_variant};
use super::{parts, principals};
use crate::ir::rejections::answers_501;
use crate::ir::routes::route_of;
use crate::ir::*;
use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

pub fn trait_ident(spec: &Spec) -> Ident {
    format_ident!("{}Server", spec.service.name.to_upper_camel_case())
}

fn handler_ident(ep: &Endpoint) -> Ident {
    format_ident!("handle_{}", crate::lower::snake(&ep.name))
}

/// An endpoint's method in the server trait: its name, with `_endpoint` after one an
/// `authenticate_…` method of a principal takes.
pub(super) fn trait_method_ident(kinds: &[principals::Kind], ep: &Endpoint) -> Ident {
    let method = super::names::method_ident(&ep.name);
    if principals::takes_method(kinds, &method) {
        format_ident!("{method}_endpoint")
    } else {
        method
    }
}

/// What the routers ask of a service: the whole service when the trait has parts, else the
/// core trait.
pub(super) fn bound_ident(spec: &Spec) -> Ident {
    let core = trait_ident(spec);
    let (_, parts) = parts::parts(spec, &core);
    if parts.is_empty() {
        core
    } else {
        parts::whole_ident(&core)
    }
}

/// One router per base address, named after the first API at it.
pub struct RouterGroup<'a> {
    pub base: String,
    pub apis: Vec<String>,
    pub endpoints: Vec<&'a Endpoint>,
}

/// APIs that share a base address are served by one router, named after the first.
pub fn router_groups(spec: &Spec) -> Vec<RouterGroup<'_>> {
    let mut groups: Vec<RouterGroup> = Vec::new();
    for (i, api) in spec.apis.iter().enumerate() {
        let endpoints: Vec<&Endpoint> = spec
            .endpoints
            .iter()
            .filter(|e| e.api == ApiId(i as u32))
            .collect();
        if endpoints.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|g| g.base == api.base_url) {
            Some(g) => {
                g.apis.push(api.name.clone());
                g.endpoints.extend(endpoints);
            }
            None => groups.push(RouterGroup {
                base: api.base_url.clone(),
                apis: vec![api.name.clone()],
                endpoints,
            }),
        }
    }
    groups
}

/// JSON text as a raw string literal, readable in generated code: `r#"{"a":1}"#`, with as
/// many `#` as the text needs.
pub(super) fn raw_string(text: &str) -> TokenStream {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    let literal = format!("r{hashes}\"{text}\"{hashes}");
    literal.parse().unwrap_or_else(|_| quote!(#text))
}

/// The rejection template (JSON text) of the first of these APIs that declares one.
fn rejections_of(spec: &Spec, apis: &[String]) -> Option<String> {
    apis.iter()
        .filter_map(|name| spec.apis.iter().find(|a| a.name == *name))
        .find_map(|api| api.rejections.as_ref())
        .map(|r| r.template.to_string())
}

impl RustBackend<'_> {
    pub fn server(&self) -> TokenStream {
        let rt = &self.rt;
        let crate_path = &self.crate_path;
        let trait_name = trait_ident(self.spec);
        let kinds = principals::kinds(self.spec);
        let (own, parts) = parts::parts(self.spec, &trait_name);
        let own_methods = own.iter().map(|ep| self.trait_method(ep, &kinds));
        let part_traits = parts.iter().map(|part| {
            let ident = &part.ident;
            let doc = format!(
                " The endpoints tagged `{}`: a part of the service, beside [`{trait_name}`].",
                part.tag
            );
            let methods = part
                .endpoints
                .iter()
                .map(|ep| self.trait_method(ep, &kinds));
            quote! {
                #[doc = #doc]
                pub trait #ident: #trait_name {
                    #(#methods)*
                }
            }
        });
        let whole = self.whole_trait(&trait_name, &parts);
        // What the handlers ask of a service: worked out once, not per endpoint.
        let bound = match parts.is_empty() {
            true => trait_name.clone(),
            false => parts::whole_ident(&trait_name),
        };
        let handlers = self
            .spec
            .endpoints
            .iter()
            .map(|ep| self.handler(ep, &kinds, &bound));
        let responses = self.spec.endpoints.iter().map(|ep| self.response_impl(ep));
        let routers = self.routers();
        let service_doc = format!(
            " The {}: implement it once, serve it with the generated routers.",
            self.spec
                .service
                .title
                .as_deref()
                .unwrap_or(&self.spec.service.name)
        );
        let parts_doc = (!parts.is_empty()).then(|| {
            let names: Vec<String> = parts.iter().map(|p| format!("[`{}`]", p.ident)).collect();
            let doc = format!(
                " Tagged endpoints are in parts of their own, by first tag: {}.",
                names.join(", ")
            );
            quote!(#[doc = ""] #[doc = #doc])
        });
        let (scopes_method, scopes_forward) = if requires_scopes(self.spec) {
            (
                quote! {
                    /// Whether the caller holds every one of `scopes`, which the endpoint
                    /// requires of a credential of `scheme`; lacking one answers 403. No
                    /// default: only the service knows what a credential was granted.
                    /// `Err` answers 503.
                    fn has_scopes(&self, caller: &Caller<Self>, scheme: AuthScheme, scopes: &'static [&'static str]) -> impl Future<Output = ::std::result::Result<bool, #rt::server::Unavailable>> + Send;
                },
                quote! {
                    fn has_scopes(&self, caller: &Caller<S>, scheme: AuthScheme, scopes: &'static [&'static str]) -> impl Future<Output = ::std::result::Result<bool, #rt::server::Unavailable>> + Send {
                        self.service.has_scopes(caller, scheme, scopes)
                    }
                },
            )
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        let kind_items = principals::trait_items(&kinds, self.spec, rt);
        let gate_method = self.gate_method();
        let kind_enums = principals::enums(&kinds, self.spec, &trait_name);
        let dispatch = principals::dispatch(&kinds, self.spec, rt);
        let narrowers = principals::narrowers(&kinds, self.spec, &trait_name);
        quote! {
            #[allow(unused_imports)]
            use #crate_path as rt;
            use super::descriptors;
            use super::operations::*;
            use rt::server::axum::{self, extract::{Request, State}, response::{IntoResponse, Response}};
            use ::std::future::Future;
            use ::std::sync::Arc;

            /// What every method learns of its request: the request id, the principal of the
            /// credential the endpoint requires (`P`: `()` on public endpoints), and the
            /// callers of credentials sent beside it.
            pub type Context<P, S> = #rt::server::Context<P, AuthScheme, Caller<S>>;

            /// What a method answers: one of its declared responses, or a rejection.
            pub type Answer<R> = ::std::result::Result<R, #rt::server::Rejection>;

            #[doc = #service_doc]
            ///
            /// The router authenticates every request with the `authenticate_…` method of the
            /// principal its scheme identifies before a method runs, so methods see only callers
            /// with an accepted credential, as the principal type of the schemes the endpoint
            /// accepts, and inputs that passed every constraint of the spec. A method answers
            /// one of its declared responses, or a [`Rejection`](rt::server::Rejection) the
            /// router writes in the API's rejection shape, at the declared status that holds it.
            #parts_doc
            pub trait #trait_name: Send + Sync + 'static {
                #kind_items

                #gate_method

                #scopes_method

                #(#own_methods)*
            }

            #kind_enums

            #(#part_traits)*

            #whole

            struct App<S> {
                service: Arc<S>,
                config: #rt::server::Config,
            }

            impl<S: #trait_name> #rt::server::Service for App<S> {
                type Principal = Caller<S>;
                type Scheme = AuthScheme;
                type Gate = Gate;

                #dispatch

                fn gate_open(&self, caller: ::std::option::Option<&Caller<S>>, gate: Gate) -> impl Future<Output = ::std::result::Result<bool, #rt::server::Unavailable>> + Send {
                    self.service.gate_open(caller, gate)
                }

                #scopes_forward
            }

            #narrowers
            #(#handlers)*
            #(#responses)*
            #routers
        }
    }

    /// `gate_open`: asked of every gated endpoint, so without a default; a spec without
    /// gates never asks it, and its `Gate` has no value to ask with.
    fn gate_method(&self) -> TokenStream {
        let rt = &self.rt;
        let signature = quote! {
            fn gate_open(&self, caller: ::std::option::Option<&Caller<Self>>, gate: Gate) -> impl Future<Output = ::std::result::Result<bool, #rt::server::Unavailable>> + Send
        };
        if !all_gates(self.spec).is_empty() {
            quote! {
                /// Whether a gated endpoint (a feature or plan) is open to the caller; closed
                /// answers 403. No default: the spec's gates are closed until the service opens
                /// them for a team, so each implementation decides. `Err` answers 503.
                #signature;
            }
        } else {
            quote! {
                /// Whether a gated endpoint is open to the caller. The spec gates no endpoint,
                /// so the router never asks.
                #[allow(unreachable_code)]
                #signature {
                    let _ = caller;
                    ::std::future::ready::<::std::result::Result<bool, #rt::server::Unavailable>>(match gate {})
                }
            }
        }
    }

    /// One endpoint's method in its trait: a declaration, or the 501 an endpoint that declares
    /// one answers until implemented.
    fn trait_method(&self, ep: &Endpoint, kinds: &[principals::Kind]) -> TokenStream {
        let rt = &self.rt;
        let method = trait_method_ident(kinds, ep);
        let (input, response) = (input_ident(ep), response_ident(ep));
        let doc = super::endpoint_doc(ep);
        let deprecated = ep.deprecated.as_ref().map(|_| quote!(#[deprecated]));
        let principal = principals::principal_type(kinds, ep, &quote!(Self), &TokenStream::new());
        let signature = quote! {
            fn #method(&self, ctx: Context<#principal, Self>, input: #input) -> impl Future<Output = Answer<#response>> + Send
        };
        if !answers_501(self.spec, ep) {
            return quote! {
                #(#[doc = #doc])*
                #deprecated
                #signature;
            };
        }
        let unimplemented = format!("{} is not implemented yet", ep.name);
        quote! {
            #(#[doc = #doc])*
            ///
            /// Until implemented, answers the declared 501.
            #deprecated
            #signature {
                let _ = (ctx, input);
                ::std::future::ready(Err(#rt::server::Rejection::new(501, #unimplemented)))
            }
        }
    }

    /// The trait of every part together, which any type implementing them all has: what the
    /// routers ask of a service. A spec without tags has the core trait alone.
    fn whole_trait(&self, trait_name: &Ident, parts: &[parts::Part]) -> TokenStream {
        if parts.is_empty() {
            return TokenStream::new();
        }
        let whole = parts::whole_ident(trait_name);
        let idents: Vec<&Ident> = parts.iter().map(|p| &p.ident).collect();
        let doc = format!(
            " The whole service: [`{trait_name}`] and every part. Implemented for any type that \
             implements them all; the routers ask for it."
        );
        quote! {
            #[doc = #doc]
            pub trait #whole: #trait_name #(+ #idents)* {}

            impl<S: #trait_name #(+ #idents)*> #whole for S {}
        }
    }

    /// One endpoint's handler, over a service of the trait `bound` (see [`bound_ident`]).
    fn handler(&self, ep: &Endpoint, kinds: &[principals::Kind], bound: &Ident) -> TokenStream {
        let rt = &self.rt;
        let handler = handler_ident(ep);
        let method = trait_method_ident(kinds, ep);
        let desc = endpoint_static(&ep.name);
        let narrowing = principals::narrowing(kinds, ep);
        quote! {
            #[allow(deprecated)]
            async fn #handler<S: #bound>(State(app): State<Arc<App<S>>>, path: #rt::server::PathParams, request: Request) -> Response {
                let service = &app.service;
                #rt::server::serve(&*app, &app.config, &descriptors::#desc, path, request, |ctx, input| async move {
                    service.#method(ctx.narrow(#narrowing)?, input).await
                }).await
            }
        }
    }

    fn response_impl(&self, ep: &Endpoint) -> TokenStream {
        let rt = &self.rt;
        let response = response_ident(ep);
        let arms = crate::ir::all_responses(self.spec, ep).map(|r| {
            let variant = status_variant(r.status);
            // A class or `default` variant holds its status; one outside its class (or, for
            // `default`, no error status) is a fault of the handler, answered as a 500.
            let (held, status) = match r.status {
                StatusPattern::Exact(code) => (None, quote!(#code)),
                StatusPattern::Class(class) => (
                    Some(quote!(status,)),
                    quote!(#rt::server::status_in_class(#class, status)),
                ),
                StatusPattern::Default => (
                    Some(quote!(status,)),
                    quote!(#rt::server::error_status(status)),
                ),
            };
            let written = match &r.media {
                BodyMedia::Raw(media) => quote!(#rt::server::raw_status(#status, #media, body)),
                BodyMedia::Stream(media) => {
                    quote!(#rt::server::stream_status(#status, #media, &body))
                }
                _ => quote!(#rt::server::json_status(#status, &body)),
            };
            let bound_body = r.body.is_some().then(|| quote!(body,));
            let bound_headers = (!r.headers.is_empty()).then(|| quote!(headers,));
            let pattern = match (&held, &bound_body, &bound_headers) {
                (None, Some(_), None) => quote!(#response::#variant(body)),
                (None, None, None) => quote!(#response::#variant),
                _ => quote!(#response::#variant { #held #bound_body #bound_headers }),
            };
            let answer = if r.body.is_some() {
                written
            } else {
                quote!(#rt::server::empty(#status))
            };
            if r.headers.is_empty() {
                quote!(#pattern => #answer)
            } else {
                quote!(#pattern => #rt::server::with_headers(#answer, &headers))
            }
        });
        quote! {
            impl IntoResponse for #response {
                fn into_response(self) -> Response {
                    match self { #(#arms,)* }
                }
            }
        }
    }

    fn routers(&self) -> TokenStream {
        let rt = &self.rt;
        let trait_name = bound_ident(self.spec);
        let groups = router_groups(self.spec);
        let mut fns = Vec::new();
        let mut route_fns = Vec::new();
        // Each group's routes with its own state, for `router()`.
        let mut stated = Vec::new();
        // The rejection template of the first API that declares one: `router()`'s 404 and 405.
        let mut first_shaped: Option<String> = None;
        for group in &groups {
            let name = group.apis[0].to_snake_case();
            let (router_fn, routes_fn) = (
                format_ident!("{name}_router"),
                format_ident!("{name}_routes"),
            );
            let routes = route_calls(&group.endpoints);
            let apis: Vec<String> = group.apis.iter().map(|a| format!("`{a}`")).collect();
            let count = group.endpoints.len();
            let doc = format!(
                " The router of the {} API{} at `{}`: {count} endpoint{}.",
                apis.join(" and "),
                if apis.len() > 1 { "s" } else { "" },
                group.base,
                if count == 1 { "" } else { "s" },
            );
            let template = rejections_of(self.spec, &group.apis).map(|template| {
                first_shaped.get_or_insert_with(|| template.clone());
                raw_string(&template)
            });
            let shaped = template
                .as_ref()
                .map(|t| quote!(let config = config.with_spec_rejections(#t);));
            let own_config = match &template {
                Some(t) => quote!(config.clone().with_spec_rejections(#t)),
                None => quote!(config.clone()),
            };
            route_fns.push(routes_fn.clone());
            stated.push(quote! {
                #routes_fn().with_state(Arc::new(App { service: service.clone(), config: #own_config }))
            });
            fns.push(quote! {
                fn #routes_fn<S: #trait_name>() -> axum::Router<Arc<App<S>>> {
                    axum::Router::new() #(#routes)*
                }

                #[doc = #doc]
                pub fn #router_fn<S: #trait_name>(service: Arc<S>, config: #rt::server::Config) -> axum::Router {
                    #shaped
                    finish(#routes_fn(), service, config)
                }
            });
        }
        let all = (!routes_collide(&groups) && !stated.is_empty()).then(|| match &first_shaped {
            // One shape for all: one state.
            None => {
                let (first, rest) = (&route_fns[0], &route_fns[1..]);
                quote! {
                    /// Every endpoint of every API on one router (their paths do not overlap).
                    pub fn router<S: #trait_name>(service: Arc<S>, config: #rt::server::Config) -> axum::Router {
                        finish(#first() #(.merge(#rest()))*, service, config)
                    }
                }
            }
            Some(t) => {
                let t = raw_string(t);
                quote! {
                    /// Every endpoint of every API on one router (their paths do not overlap); each
                    /// API's own errors in its own shape, unknown routes in the first API's.
                    pub fn router<S: #trait_name>(service: Arc<S>, config: #rt::server::Config) -> axum::Router {
                        let routes = axum::Router::new() #(.merge(#stated))*;
                        let config = config.with_spec_rejections(#t);
                        #rt::server::guarded(#rt::server::with_fallbacks(routes, &config.rejections), &config)
                    }
                }
            }
        });
        quote! {
            #(#fns)*
            #all

            fn finish<S: #trait_name>(routes: axum::Router<Arc<App<S>>>, service: Arc<S>, config: #rt::server::Config) -> axum::Router {
                let app = Arc::new(App { service, config });
                let routes = #rt::server::with_fallbacks(routes, &app.config.rejections).with_state(app.clone());
                #rt::server::guarded(routes, &app.config)
            }
        }
    }
}

/// Whether two groups serve paths one router could not hold together: one route in both,
/// which merged routers refuse whatever its methods.
fn routes_collide(groups: &[RouterGroup]) -> bool {
    groups.iter().enumerate().any(|(i, g)| {
        groups[i + 1..].iter().any(|other| {
            g.endpoints.iter().any(|a| {
                other
                    .endpoints
                    .iter()
                    .any(|b| route_of(&a.path) == route_of(&b.path))
            })
        })
    })
}

/// `.route(path, on(GET, handle_a::<S>).on(PATCH, handle_b::<S>))`, one per route: the
/// paths' placeholders named by position (`/users/{_2}`), read back by the descriptors.
fn route_calls(endpoints: &[&Endpoint]) -> Vec<TokenStream> {
    let mut by_path: BTreeMap<String, Vec<&Endpoint>> = BTreeMap::new();
    for ep in endpoints {
        by_path.entry(route_of(&ep.path)).or_default().push(ep);
    }
    by_path
        .into_iter()
        .map(|(path, eps)| {
            let mut chain = TokenStream::new();
            for (i, ep) in eps.iter().enumerate() {
                let handler = handler_ident(ep);
                let filter = format_ident!("{}", ep.method.as_str());
                if i == 0 {
                    chain = quote!(axum::routing::on(axum::routing::MethodFilter::#filter, #handler::<S>));
                } else {
                    chain = quote!(#chain.on(axum::routing::MethodFilter::#filter, #handler::<S>));
                }
            }
            quote!(.route(#path, #chain))
        })
        .collect()
}

/// Whether some endpoint requires scopes, so the server trait asks for them.
pub(super) fn requires_scopes(spec: &Spec) -> bool {
    spec.endpoints
        .iter()
        .any(|ep| ep.auth.scopes.iter().any(|(_, s)| !s.is_empty()))
}
