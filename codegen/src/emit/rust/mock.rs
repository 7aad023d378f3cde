//! A mock of the service: the server trait answered with examples derived from the spec, for
//! tests of clients and routers, and as a stand-in server.

use super::RustBackend;
use super::names::method_ident;
use super::operations::{input_ident, response_ident};
use super::server::trait_ident;
use crate::samples::Samples;
use proc_macro2::TokenStream;
use quote::quote;

impl RustBackend<'_> {
    pub fn mock(&self) -> TokenStream {
        let crate_path = &self.crate_path;
        let trait_name = trait_ident(self.spec);
        let samples = Samples::new(self.spec);
        let mut examples = Vec::new();
        let mut methods = Vec::new();
        let mut statics = Vec::new();
        for ep in &self.spec.endpoints {
            let Some(answer) = samples.answer(ep) else {
                continue;
            };
            let status = answer.status;
            let wire = answer.wire_body().unwrap_or_else(|| b"null".to_vec());
            let text = String::from_utf8_lossy(&wire);
            // A body written as it is also keeps its JSON form, which `example()` answers.
            let json_form = match (&answer.media, &answer.body) {
                (crate::ir::BodyMedia::Raw(_), Some(body)) => {
                    let json = body.to_string();
                    quote!(Some(#json))
                }
                _ => quote!(None),
            };
            let name = &ep.name;
            let headers = answer
                .headers
                .iter()
                .map(|(header, value)| quote!((#header, #value)));
            examples.push(quote!(#name => Some((#status, #text, &[#(#headers),*], #json_form))));
            let method = method_ident(&ep.name);
            let (input, response) = (input_ident(ep), response_ident(ep));
            let cached = quote::format_ident!(
                "{}",
                heck::ToShoutySnakeCase::to_shouty_snake_case(name.as_str())
            );
            statics.push(quote! {
                static #cached: std::sync::LazyLock<#response> = std::sync::LazyLock::new(|| example(#name, #response::from_parts));
            });
            methods.push(quote! {
                async fn #method(&self, _ctx: super::server::Context<AuthScheme>, _input: #input) -> #response {
                    #cached.clone()
                }
            });
        }
        // The mock's keys hold every scope.
        let scopes = if super::server::requires_scopes(self.spec) {
            quote! {
                async fn has_scopes(&self, _principal: &AuthScheme, _scheme: AuthScheme, _scopes: &'static [&'static str]) -> Result<bool, rt::server::Unavailable> {
                    Ok(true)
                }
            }
        } else {
            TokenStream::new()
        };
        quote! {
            #[allow(unused_imports)]
            use #crate_path as rt;
            use super::operations::*;
            use super::server::#trait_name;
            use std::collections::HashMap;

            /// Answers every endpoint with its first success status and an example body
            /// derived from the spec. Credentials are those added with [`MockServer::with_key`];
            /// the principal is the scheme a key was added for.
            #[derive(Clone, Debug, Default)]
            pub struct MockServer {
                keys: HashMap<String, AuthScheme>,
                closed_gates: Vec<Gate>,
            }

            impl MockServer {
                pub fn new() -> Self {
                    Self::default()
                }

                /// Accepts `credential` for `scheme`; sent under another scheme it is a key of the wrong kind.
                pub fn with_key(mut self, credential: &str, scheme: AuthScheme) -> Self {
                    self.keys.insert(credential.to_string(), scheme);
                    self
                }

                /// Closes a gate (a feature or plan), so gated endpoints answer 403.
                pub fn with_closed_gate(mut self, gate: Gate) -> Self {
                    self.closed_gates.push(gate);
                    self
                }

                /// The status and body every call of `endpoint` answers, the body in its JSON
                /// form (text as a string, bytes as base64).
                pub fn example(endpoint: &str) -> ::std::option::Option<(u16, ::serde_json::Value)> {
                    let (status, text, _, json_form) = example_text(endpoint)?;
                    ::serde_json::from_str(json_form.unwrap_or(text)).ok().map(|body| (status, body))
                }
            }

            // Built once: a call costs a clone, so the mock is also a fair trivial
            // implementation to measure the router against.
            #(#statics)*

            /// A response's example: its status, body as sent (JSON, or the text a raw body
            /// sends), headers, and a raw body's JSON form.
            type Example = (u16, &'static str, &'static [(&'static str, &'static str)], Option<&'static str>);

            /// `endpoint`'s example.
            fn example_text(endpoint: &str) -> ::std::option::Option<Example> {
                match endpoint {
                    #(#examples,)*
                    _ => None,
                }
            }

            fn example<T>(endpoint: &str, read: fn(u16, &rt::http::HeaderMap, &[u8]) -> ::std::result::Result<T, ::std::string::String>) -> T {
                let (status, text, headers, _) = example_text(endpoint).unwrap_or((500, "null", &[], None));
                match read(status, &rt::headers::map_of(headers), text.as_bytes()) {
                    Ok(response) => response,
                    Err(e) => panic!("the spec's example for {endpoint} does not fit its type: {e}"),
                }
            }

            #[allow(deprecated)]
            impl #trait_name for MockServer {
                type Principal = AuthScheme;

                async fn authenticate(&self, scheme: AuthScheme, credential: &str) -> Result<AuthScheme, rt::server::AuthError> {
                    match self.keys.get(credential) {
                        Some(s) if *s == scheme => Ok(scheme),
                        Some(_) => Err(rt::server::AuthError::WrongKind),
                        None => Err(rt::server::AuthError::Unknown),
                    }
                }

                async fn gate_open(&self, _principal: ::std::option::Option<&AuthScheme>, gate: Gate) -> Result<bool, rt::server::Unavailable> {
                    Ok(!self.closed_gates.contains(&gate))
                }

                #scopes

                #(#methods)*
            }
        }
    }
}
