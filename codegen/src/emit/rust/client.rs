//! The client half: one async method per endpoint, page streams for paginated listings,
//! waiting helpers for operations a listing tracks, and `call_by_name`.

use super::RustBackend;
use super::descriptors::endpoint_static;
use super::names::method_ident;
use super::operations::{input_ident, response_ident};
use super::pages::{PathRead, listing_model};
use crate::ir::shapes::Shape;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl RustBackend<'_> {
    pub fn client(&mut self) -> TokenStream {
        let crate_path = self.crate_path.clone();
        let title = self
            .spec
            .service
            .title
            .clone()
            .unwrap_or_else(|| self.spec.service.name.clone());
        let doc = format!(
            " A typed client of the {title}: one method per endpoint, the spec's types in and out."
        );
        let spec = self.spec;
        let mut methods = Vec::new();
        for ep in &spec.endpoints {
            methods.push(self.client_method(ep));
            if let Some(paging) = &ep.paging {
                methods.push(self.pages_method(ep, paging));
            }
            if let Some(tracker) = ep.tracked_by {
                methods.push(self.wait_method(ep, spec.endpoint(tracker)));
            }
        }
        let names: Vec<&str> = spec.endpoints.iter().map(|e| e.name.as_str()).collect();
        let calls = spec.endpoints.iter().map(|e| method_ident(&e.name));
        quote! {
            #[allow(unused_imports)]
            use #crate_path as rt;
            #[allow(unused_imports)]
            use super::models::*;
            use super::descriptors;
            use super::operations::*;

            /// Settings of the client; credentials are configured once, by scheme.
            pub type Config = rt::client::Config<AuthScheme>;

            #[doc = #doc]
            ///
            /// Credentials are configured once, by scheme; each call sends the one its
            /// endpoint accepts. Idempotent calls are retried on 429, 5xx and timeouts per the
            /// config's [`rt::client::RetryPolicy`]; other calls only when it says so.
            #[derive(Clone, Debug)]
            pub struct Client {
                transport: rt::client::Transport<AuthScheme>,
            }

            impl Client {
                pub fn new(config: Config) -> ::std::result::Result<Self, rt::client::ClientError> {
                    Ok(Client { transport: rt::client::Transport::new(config)? })
                }

                #(#methods)*

                /// Calls an endpoint by its name in the spec with a JSON input (parameters by
                /// name, the body under `body`); answers the status and JSON body. For tools
                /// that replay recorded traffic.
                #[allow(deprecated)]
                pub async fn call_by_name(&self, endpoint: &str, input: ::serde_json::Value) -> ::std::result::Result<(u16, ::serde_json::Value), rt::client::ClientError> {
                    match endpoint {
                        #(#names => {
                            let input = ::serde_json::from_value(input).map_err(rt::client::ClientError::encode)?;
                            let response = self.#calls(input).await?;
                            let body = response.body_json().map_err(rt::client::ClientError::encode)?;
                            Ok((response.status(), body))
                        })*
                        other => Err(rt::client::ClientError::UnknownEndpoint(other.to_string())),
                    }
                }
            }
        }
    }

    fn client_method(&self, ep: &Endpoint) -> TokenStream {
        let method = method_ident(&ep.name);
        let (input, response) = (input_ident(ep), response_ident(ep));
        let desc = endpoint_static(&ep.name);
        let doc = super::endpoint_doc(ep);
        let deprecated = ep.deprecated.as_ref().map(super::deprecated_attr);
        quote! {
            #(#[doc = #doc])*
            #deprecated
            pub async fn #method(&self, input: #input) -> ::std::result::Result<#response, rt::client::ClientError> {
                self.transport.send(&descriptors::#desc, &input).await?.decode(#response::from_parts)
            }
        }
    }

    fn wait_method(&mut self, ep: &Endpoint, tracker: &Endpoint) -> TokenStream {
        let queued = ep
            .responses
            .iter()
            .any(|r| r.status == StatusPattern::Exact(202));
        let spec = self.spec;
        let Some(items_path) = tracker.paging.as_ref().and_then(|p| p.items()) else {
            return quote!();
        };
        let Some(page_model) = listing_model(spec, tracker) else {
            return quote!();
        };
        let Some(item_fields) = path_fields(spec, page_model, items_path) else {
            return quote!();
        };
        let Some(Type::List(item_ty, _)) = item_fields.last().map(|f| &f.ty) else {
            return quote!();
        };
        if !queued {
            return quote!();
        }
        let item = self.value_type(item_ty, Shape::Response, "TrackedItem");
        let name = format_ident!("{}_and_wait", crate::lower::snake(&ep.name));
        let method = method_ident(&ep.name);
        let pages = format_ident!("{}_pages", crate::lower::snake(&tracker.name));
        let (input, response) = (input_ident(ep), response_ident(ep));
        let listing = input_ident(tracker);
        let each = PathRead::of(quote!(page), &item_fields).slice();
        let doc = format!(
            " Calls `{}`; when the service queues the work (202), reads `{}` every `poll` until \
             `finished` accepts one of its items, or `deadline` passes. Answers the first \
             response and the finished item (`None` when it completed within the call).",
            ep.name, tracker.name
        );
        quote! {
            #[doc = #doc]
            pub async fn #name(
                &self,
                input: #input,
                finished: impl Fn(&#item) -> bool,
                poll: std::time::Duration,
                deadline: std::time::Duration,
            ) -> Result<(#response, Option<#item>), rt::client::ClientError> {
                let response = self.#method(input).await?;
                if response.status() != 202 {
                    return Ok((response, None));
                }
                let started = rt::client::Instant::now();
                loop {
                    let listing: #listing = ::serde_json::from_str("{}").map_err(rt::client::ClientError::encode)?;
                    let mut pages = std::pin::pin!(self.#pages(listing));
                    while let Some(page) = rt::client::StreamExt::next(&mut pages).await {
                        let page = page?;
                        if let Some(done) = #each.iter().find(|item| finished(item)) {
                            return Ok((response, Some(done.clone())));
                        }
                        if started.elapsed() >= deadline {
                            return Err(rt::client::ClientError::WaitTimedOut { waited: started.elapsed() });
                        }
                    }
                    if started.elapsed() >= deadline {
                        return Err(rt::client::ClientError::WaitTimedOut { waited: started.elapsed() });
                    }
                    rt::client::sleep(poll).await;
                }
            }
        }
    }
}
