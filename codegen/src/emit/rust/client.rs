//! The client half: one async method per endpoint, page streams for paginated listings,
//! waiting helpers for operations a listing tracks, and `call_by_name`.

use super::RustBackend;
use super::descriptors::endpoint_static;
use super::names::{field_ident, method_ident};
use super::operations::{input_ident, response_ident, status_variant};
use crate::ir::shapes::Shape;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Reads a field as `Option<T>` whatever its Rust shape.
fn read_opt(owner: TokenStream, f: &Field, clone: bool) -> TokenStream {
    let name = field_ident(&f.ident);
    let take = if clone {
        quote!(.cloned())
    } else {
        quote!(.copied())
    };
    match (f.presence, f.default.is_some()) {
        (Presence::Required, _) | (Presence::Optional, true) => {
            if clone {
                quote!(Some(#owner.#name.clone()))
            } else {
                quote!(Some(#owner.#name))
            }
        }
        (Presence::OptionalNullable, false) => quote!(#owner.#name.value()#take),
        _ => quote!(#owner.#name.as_ref()#take),
    }
}

/// Reads a numeric field, falling back to `fallback` where it may be unset.
fn read_or(owner: TokenStream, f: &Field, fallback: TokenStream) -> TokenStream {
    let name = field_ident(&f.ident);
    match (f.presence, f.default.is_some()) {
        (Presence::Required, _) | (Presence::Optional, true) => quote!(#owner.#name),
        _ => {
            let read = read_opt(owner, f, false);
            quote!(#read.unwrap_or(#fallback))
        }
    }
}

/// Writes `value` into a field whatever its Rust shape.
fn write(owner: TokenStream, f: &Field, value: TokenStream) -> TokenStream {
    let name = field_ident(&f.ident);
    match (f.presence, f.default.is_some()) {
        (Presence::Required, _) | (Presence::Optional, true) => quote!(#owner.#name = #value),
        (Presence::OptionalNullable, false) => quote!(#owner.#name = rt::Tristate::Value(#value)),
        _ => quote!(#owner.#name = Some(#value)),
    }
}

/// The items of a list field as a slice.
fn items(owner: TokenStream, f: &Field) -> TokenStream {
    let name = field_ident(&f.ident);
    match (f.presence, f.default.is_some()) {
        (Presence::Required, _) | (Presence::Optional, true) => quote!(#owner.#name.as_slice()),
        (Presence::OptionalNullable, false) => {
            quote!(#owner.#name.value().map_or(&[][..], |v| v.as_slice()))
        }
        _ => quote!(#owner.#name.as_deref().unwrap_or_default()),
    }
}

/// Where a listing declares no status but its 200, matching the 200 cannot fail: said so,
/// for the compiler.
fn only_status(spec: &Spec, ep: &Endpoint) -> Option<TokenStream> {
    (crate::ir::all_responses(spec, ep).count() == 1)
        .then(|| quote!(#[allow(irrefutable_let_patterns)]))
}

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

    /// The 200 body's model of a listing, and its Rust type.
    fn page_model(&mut self, ep: &Endpoint) -> Option<(&Model, TokenStream)> {
        let ok = ep
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Exact(200))?;
        let Some(Type::Model(id)) = &ok.body else {
            return None;
        };
        let spec = self.spec;
        let ty = self.value_type(&Type::Model(*id), Shape::Response, "Page");
        Some((spec.model(*id), ty))
    }

    fn pages_method(&mut self, ep: &Endpoint, paging: &Paging) -> TokenStream {
        if let Paging::Link { header, .. } = paging {
            return self.link_pages_method(ep, header);
        }
        let spec = self.spec;
        let Some((page_model, page_ty)) = self.page_model(ep) else {
            return quote!();
        };
        let name = format_ident!("{}_pages", crate::lower::snake(&ep.name));
        let method = method_ident(&ep.name);
        let (input, response) = (input_ident(ep), response_ident(ep));
        let params: Vec<Field> = ep
            .params
            .iter()
            .map(|p| super::operations::param_view(&p.field))
            .collect();
        let param = |n: &str| params.iter().find(|f| f.name == n);
        let next = match paging {
            Paging::Page {
                page,
                size,
                items: items_name,
            } => {
                let (Some(page_f), Some(items_f)) = (param(page), page_model.field(items_name))
                else {
                    return quote!();
                };
                let size_read = param(size).map_or(quote!(i64::MAX), |f| {
                    read_or(quote!(input), f, quote!(i64::MAX))
                });
                let page_read = read_or(quote!(input), page_f, quote!(1));
                let count = items(quote!(page), items_f);
                let advance = write(quote!(next), page_f, quote!(current + 1));
                quote! {
                    let count = #count.len();
                    let size = usize::try_from(#size_read).unwrap_or(usize::MAX);
                    let current = #page_read;
                    let next = if count == 0 || count < size {
                        None
                    } else {
                        let mut next = input;
                        #advance;
                        Some(next)
                    };
                }
            }
            Paging::Cursor {
                param: cursor,
                next: next_name,
                ..
            } => {
                let (Some(cursor_f), Some(next_f)) = (param(cursor), page_model.field(next_name))
                else {
                    return quote!();
                };
                let next_read = read_opt(quote!(page), next_f, true);
                let advance = write(quote!(next), cursor_f, quote!(cursor));
                quote! {
                    let next = match #next_read.filter(|c| !c.is_empty()) {
                        Some(cursor) => {
                            let mut next = input;
                            #advance;
                            Some(next)
                        }
                        None => None,
                    };
                }
            }
            Paging::After {
                param: after,
                items: items_name,
                id,
                more,
            } => {
                let (Some(after_f), Some(items_f)) = (param(after), page_model.field(items_name))
                else {
                    return quote!();
                };
                let Type::List(item, _) = &items_f.ty else {
                    return quote!();
                };
                let Some(id_f) = (match item.as_ref() {
                    Type::Model(m) => spec.model(*m).field(id),
                    _ => None,
                }) else {
                    return quote!();
                };
                let id_field = field_ident(&id_f.ident);
                let list = items(quote!(page), items_f);
                let more = more
                    .as_deref()
                    .and_then(|m| page_model.field(m))
                    .map_or(quote!(true), |f| read_or(quote!(page), f, quote!(false)));
                let advance = write(quote!(next), after_f, quote!(last));
                quote! {
                    let next = match #list.last() {
                        Some(item) if #more => {
                            let last = item.#id_field.clone();
                            let mut next = input;
                            #advance;
                            Some(next)
                        }
                        _ => None,
                    };
                }
            }
            Paging::Link { .. } => return quote!(),
        };
        let only_status = only_status(self.spec, ep);
        let ok = status_variant(StatusPattern::Exact(200));
        let with_headers = ep
            .responses
            .iter()
            .any(|r| r.status == StatusPattern::Exact(200) && !r.headers.is_empty());
        let page_pattern = if with_headers {
            quote!(#response::#ok { body: page, .. })
        } else {
            quote!(#response::#ok(page))
        };
        let doc = format!(
            " Every page of `{}`, fetched as the stream is read.",
            ep.name
        );
        quote! {
            #[doc = #doc]
            pub fn #name(&self, input: #input) -> impl rt::client::Stream<Item = Result<#page_ty, rt::client::ClientError>> + '_ {
                rt::client::paginate(input, move |input: #input| async move {
                    let response = self.#method(input.clone()).await?;
                    #only_status
                    let #page_pattern = response else {
                        return Err(rt::client::ClientError::NotAPage { status: response.status() });
                    };
                    #next
                    Ok((page, next))
                })
            }
        }
    }

    /// Pages of a listing whose 200 links to the next page in a header: the first page from
    /// the input, each next one from the link, until a page links to none.
    fn link_pages_method(&mut self, ep: &Endpoint, header: &str) -> TokenStream {
        let Some(ok) = ep
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Exact(200))
        else {
            return quote!();
        };
        let (Some(body), Some(link)) = (&ok.body, ok.headers.iter().find(|h| h.name == header))
        else {
            return quote!();
        };
        // The hint the response enum gives the 200's body, so a union there is one type.
        let hint = format!("{}200", response_ident(ep));
        let page_ty = self.value_type(body, Shape::Response, &hint);
        let name = format_ident!("{}_pages", crate::lower::snake(&ep.name));
        let (input, response) = (input_ident(ep), response_ident(ep));
        let desc = endpoint_static(&ep.name);
        let ok = status_variant(StatusPattern::Exact(200));
        let only_status = only_status(self.spec, ep);
        let link_field = field_ident(&link.ident);
        let link_read = match (link.presence.may_be_absent(), link.default.is_some()) {
            (true, false) => quote!(headers.#link_field.as_deref()),
            _ => quote!(Some(headers.#link_field.as_str())),
        };
        let doc = format!(
            " Every page of `{}`, fetched as the stream is read: each next page is the one \
             its `{header}` header links to.",
            ep.name
        );
        quote! {
            #[doc = #doc]
            pub fn #name(&self, input: #input) -> impl rt::client::Stream<Item = Result<#page_ty, rt::client::ClientError>> + '_ {
                rt::client::paginate(rt::client::PageRequest::First(input), move |request| async move {
                    let (reply, input) = match request {
                        rt::client::PageRequest::First(input) => (self.transport.send(&descriptors::#desc, &input).await?, input),
                        rt::client::PageRequest::Next { url, input } => (self.transport.follow(&descriptors::#desc, &url, &input).await?, input),
                    };
                    let from = reply.url.clone();
                    let response = reply.decode(#response::from_parts)?;
                    #only_status
                    let #response::#ok { body: page, headers } = response else {
                        return Err(rt::client::ClientError::NotAPage { status: response.status() });
                    };
                    let next = rt::client::next_page(#link_read, &from, input);
                    Ok((page, next))
                })
            }
        }
    }

    fn wait_method(&mut self, ep: &Endpoint, tracker: &Endpoint) -> TokenStream {
        let queued = ep
            .responses
            .iter()
            .any(|r| r.status == StatusPattern::Exact(202));
        let Some(items_name) = tracker
            .paging
            .as_ref()
            .and_then(|p| p.items().map(str::to_string))
        else {
            return quote!();
        };
        let Some((page_model, _)) = self.page_model(tracker) else {
            return quote!();
        };
        let Some(items_f) = page_model.field(&items_name).cloned() else {
            return quote!();
        };
        let Type::List(item_ty, _) = &items_f.ty else {
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
        let each = items(quote!(page), &items_f);
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
