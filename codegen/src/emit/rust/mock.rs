//! A mock of the service: the server trait answered with examples derived from the spec, for
//! tests of clients and routers, and as a stand-in server.

use super::RustBackend;
use super::operations::{input_ident, response_ident};
use super::server::{trait_ident, trait_method_ident};
use super::{parts, principals};
use covenant_runtime::contract::Example;
use proc_macro2::TokenStream;
use quote::quote;

impl RustBackend<'_> {
    pub fn mock(&self) -> TokenStream {
        let crate_path = &self.crate_path;
        let trait_name = trait_ident(self.spec);
        let arena = bumpalo::Bump::new();
        let built = crate::contract::examples(self.spec, &arena);
        let kinds = principals::kinds(self.spec);
        let mut examples = Vec::new();
        let mut methods = std::collections::HashMap::new();
        let mut statics = Vec::new();
        for (ep, built) in self.spec.endpoints.iter().zip(built) {
            let name = &ep.name;
            let example = example(built);
            examples.push(quote!(#name => Some(#example)));
            let method = trait_method_ident(&kinds, ep);
            let principal =
                principals::principal_type(&kinds, ep, &quote!(Self), &quote!(super::server::));
            let (input, response) = (input_ident(ep), response_ident(ep));
            let cached = quote::format_ident!(
                "{}",
                heck::ToShoutySnakeCase::to_shouty_snake_case(name.as_str())
            );
            // An answer holding `@secret` strings is read again each time, with values of
            // its own.
            let answer = if built.secrets.is_empty() {
                statics.push(quote! {
                    static #cached: std::sync::LazyLock<super::server::Answer<#response>> = std::sync::LazyLock::new(|| example(#name, #response::from_parts));
                });
                quote!(#cached.clone())
            } else {
                quote!(example(#name, #response::from_parts))
            };
            let written = quote! {
                async fn #method(&self, _ctx: super::server::Context<#principal, Self>, _input: #input) -> super::server::Answer<#response> {
                    #answer
                }
            };
            methods.insert(ep.name.as_str(), written);
        }
        let (own, parts) = parts::parts(self.spec, &trait_name);
        let own_methods = own.iter().map(|ep| &methods[ep.name.as_str()]);
        let part_impls = parts.iter().map(|part| {
            let ident = &part.ident;
            let written = part.endpoints.iter().map(|ep| &methods[ep.name.as_str()]);
            quote! {
                #[allow(deprecated)]
                impl super::server::#ident for MockServer {
                    #(#written)*
                }
            }
        });
        // Each kind of principal is the scheme its key was added for.
        let kind_items = kinds.iter().map(|kind| {
            let (ty, method) = (&kind.ty, &kind.method);
            quote! {
                type #ty = AuthScheme;

                async fn #method(&self, scheme: AuthScheme, credential: &str) -> Result<AuthScheme, rt::server::AuthError> {
                    self.access.authenticate(scheme, credential)
                }
            }
        });
        // The mock's keys hold every scope.
        let scopes = if super::server::requires_scopes(self.spec) {
            quote! {
                async fn has_scopes(&self, _caller: &super::server::Caller<Self>, _scheme: AuthScheme, _scopes: &'static [&'static str]) -> Result<bool, rt::server::Unavailable> {
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
            use rt::contract::Example;
            use rt::server::mock::MockAccess;

            /// Answers every endpoint with its first success status and an example body
            /// derived from the spec. Credentials are those added with [`MockServer::with_key`];
            /// the principal is the scheme a key was added for. The keys, the gates and the
            /// examples are those `covenant mock` serves, by the same runtime code.
            #[derive(Clone, Debug, Default)]
            pub struct MockServer {
                access: MockAccess<AuthScheme, Gate>,
            }

            impl MockServer {
                pub fn new() -> Self {
                    Self::default()
                }

                /// Accepts `credential` for `scheme`; sent under another scheme it is a key of the wrong kind.
                pub fn with_key(mut self, credential: &str, scheme: AuthScheme) -> Self {
                    self.access.insert_key(credential, scheme);
                    self
                }

                /// Closes a gate (a feature or plan), so gated endpoints answer 403.
                pub fn with_closed_gate(mut self, gate: Gate) -> Self {
                    self.access.close_gate(gate);
                    self
                }

                /// The status and body every call of `endpoint` answers, the body in its JSON
                /// form (text as a string, bytes as base64).
                pub fn example(endpoint: &str) -> ::std::option::Option<(u16, ::serde_json::Value)> {
                    example_of(endpoint)?.json_body()
                }
            }

            // Built once (but answers minting secrets): a call costs a clone, so the mock is
            // also a fair trivial implementation to measure the router against.
            #(#statics)*

            /// `endpoint`'s example.
            fn example_of(endpoint: &str) -> ::std::option::Option<Example<'static>> {
                match endpoint {
                    #(#examples,)*
                    _ => None,
                }
            }

            /// `endpoint`'s example as its response. The spec's checks make every example
            /// fit its type; one that does not is a fault, answered 500 and logged.
            fn example<T>(endpoint: &str, read: fn(u16, &rt::http::HeaderMap, &[u8]) -> ::std::result::Result<T, ::std::string::String>) -> super::server::Answer<T> {
                match example_of(endpoint).map(|e| e.read(read)) {
                    Some(Ok(response)) => Ok(response),
                    Some(Err(e)) => Err(rt::server::Rejection::fault(format!("the spec's example for {endpoint} does not fit its type: {e}"))),
                    None => Err(rt::server::Rejection::fault(format!("the spec has no example for {endpoint}"))),
                }
            }

            #[allow(deprecated)]
            impl #trait_name for MockServer {
                #(#kind_items)*

                async fn gate_open(&self, _caller: ::std::option::Option<&super::server::Caller<Self>>, gate: Gate) -> Result<bool, rt::server::Unavailable> {
                    Ok(self.access.gate_open(gate))
                }

                #scopes

                #(#own_methods)*
            }

            #(#part_impls)*
        }
    }
}

/// An example as a `rt::contract::Example` expression.
fn example(example: &Example<'_>) -> TokenStream {
    let Example {
        status,
        has_body,
        json,
        raw,
        content_type,
        headers,
        secrets,
    } = example;
    let raw = match raw {
        Some(bytes) => {
            let bytes = proc_macro2::Literal::byte_string(bytes);
            quote!(Some(#bytes))
        }
        None => quote!(None),
    };
    let headers = headers
        .iter()
        .map(|(header, value)| quote!((#header, #value)));
    quote! {
        Example { status: #status, has_body: #has_body, json: #json, raw: #raw, content_type: #content_type, headers: &[#(#headers),*], secrets: &[#(#secrets),*] }
    }
}
