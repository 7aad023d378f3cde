//! Page streams of the client: for each paginated listing, a method that fetches page after
//! page as the stream is read, asking for the next one as the listing's paging style says.

use super::RustBackend;
use super::descriptors::endpoint_static;
use super::names::{field_ident, method_ident};
use super::operations::{input_ident, response_ident, status_variant};
use crate::ir::shapes::Shape;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// A field read at a path into a value: the place itself while every step is always there,
/// else an `Option<&T>` from the first step that may be absent or null.
pub(super) enum PathRead {
    Always(TokenStream),
    Maybe(TokenStream),
}

impl PathRead {
    /// Reads `fields`, a path from `owner` (a model value).
    pub(super) fn of(owner: TokenStream, fields: &[&Field]) -> PathRead {
        let mut read = PathRead::Always(owner);
        for f in fields {
            let name = field_ident(&f.ident);
            let step = |owner: TokenStream| match (f.presence, f.default.is_some()) {
                (Presence::OptionalNullable, false) => quote!(#owner.#name.value()),
                _ => quote!(#owner.#name.as_ref()),
            };
            read = match (read, always_there(f)) {
                (PathRead::Always(place), true) => PathRead::Always(quote!(#place.#name)),
                (PathRead::Always(place), false) => PathRead::Maybe(step(place)),
                (PathRead::Maybe(read), true) => PathRead::Maybe(quote!(#read.map(|v| &v.#name))),
                (PathRead::Maybe(read), false) => {
                    let step = step(quote!(v));
                    PathRead::Maybe(quote!(#read.and_then(|v| #step)))
                }
            };
        }
        read
    }

    /// The value, owned: `Option<T>`.
    fn cloned(self) -> TokenStream {
        match self {
            PathRead::Always(place) => quote!(Some(#place.clone())),
            PathRead::Maybe(read) => quote!(#read.cloned()),
        }
    }

    /// A list's items as a slice, none where the list is not there.
    pub(super) fn slice(self) -> TokenStream {
        match self {
            PathRead::Always(place) => quote!(#place.as_slice()),
            PathRead::Maybe(read) => quote!(#read.map_or(&[][..], |v| v.as_slice())),
        }
    }

    /// A boolean, false where it is not there.
    fn flag(self) -> TokenStream {
        match self {
            PathRead::Always(place) => quote!(#place),
            PathRead::Maybe(read) => quote!(#read.copied().unwrap_or(false)),
        }
    }

    /// A text as `Option<&str>`.
    fn text(self) -> TokenStream {
        match self {
            PathRead::Always(place) => quote!(Some(#place.as_str())),
            PathRead::Maybe(read) => quote!(#read.map(String::as_str)),
        }
    }
}

/// Whether a field always holds a value in Rust (required, or optional with a default).
fn always_there(f: &Field) -> bool {
    matches!(
        (f.presence, f.default.is_some()),
        (Presence::Required, _) | (Presence::Optional, true)
    )
}

/// Reads a numeric input field as `Option<T>` whatever its Rust shape.
fn read_opt(owner: TokenStream, f: &Field) -> TokenStream {
    match PathRead::of(owner, &[f]) {
        PathRead::Always(place) => quote!(Some(#place)),
        PathRead::Maybe(read) => quote!(#read.copied()),
    }
}

/// Reads a numeric input field, falling back to `fallback` where it may be unset.
fn read_or(owner: TokenStream, f: &Field, fallback: TokenStream) -> TokenStream {
    match PathRead::of(owner, &[f]) {
        PathRead::Always(place) => place,
        PathRead::Maybe(read) => quote!(#read.copied().unwrap_or(#fallback)),
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

/// Where a listing declares no status but its 200, matching the 200 cannot fail: said so,
/// for the compiler.
fn only_status(spec: &Spec, ep: &Endpoint) -> Option<TokenStream> {
    (crate::ir::all_responses(spec, ep).count() == 1)
        .then(|| quote!(#[allow(irrefutable_let_patterns)]))
}

/// The model of a listing's 200 body.
fn ok_model(ep: &Endpoint) -> Option<ModelId> {
    let ok = ep
        .responses
        .iter()
        .find(|r| r.status == StatusPattern::Exact(200))?;
    match &ok.body {
        Some(Type::Model(id)) => Some(*id),
        _ => None,
    }
}

/// The model of a listing's 200 body.
pub(super) fn listing_model<'s>(spec: &'s Spec, ep: &Endpoint) -> Option<&'s Model> {
    ok_model(ep).map(|id| spec.model(id))
}

impl RustBackend<'_> {
    /// The 200 body's model of a listing, and its Rust type.
    fn page_model(&mut self, ep: &Endpoint) -> Option<(&Model, TokenStream)> {
        let id = ok_model(ep)?;
        let spec = self.spec;
        let ty = self.value_type(&Type::Model(id), Shape::Response, "Page");
        Some((spec.model(id), ty))
    }

    pub(super) fn pages_method(&mut self, ep: &Endpoint, paging: &Paging) -> TokenStream {
        match paging {
            Paging::Link { header, .. } => return self.link_pages_method(ep, header),
            Paging::NextUrl { next, .. } => return self.url_pages_method(ep, next),
            _ => {}
        }
        let spec = self.spec;
        let Some((page_model, page_ty)) = self.page_model(ep) else {
            return quote!();
        };
        let params: Vec<Field> = ep
            .params
            .iter()
            .map(|p| super::operations::param_view(&p.field))
            .collect();
        let param = |n: &str| params.iter().find(|f| f.name == n);
        let at = |path: &[String]| {
            path_fields(spec, page_model, path).map(|f| PathRead::of(quote!(page), &f))
        };
        let next = match paging {
            Paging::Page { page, size, items } => {
                let (Some(page_f), Some(items)) = (param(page), at(items)) else {
                    return quote!();
                };
                let size_read = param(size).map_or(quote!(i64::MAX), |f| {
                    read_or(quote!(input), f, quote!(i64::MAX))
                });
                let page_read = read_or(quote!(input), page_f, quote!(1));
                let count = items.slice();
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
            Paging::Offset {
                offset,
                limit,
                items,
            } => {
                let (Some(offset_f), Some(items)) = (param(offset), at(items)) else {
                    return quote!();
                };
                let limit_read = limit
                    .as_deref()
                    .and_then(param)
                    .map_or(quote!(None::<i64>), |f| read_opt(quote!(input), f));
                let offset_read = read_or(quote!(input), offset_f, quote!(0));
                let count = items.slice();
                let advance = write(quote!(next), offset_f, quote!(current.saturating_add(got)));
                quote! {
                    let got = i64::try_from(#count.len()).unwrap_or(i64::MAX);
                    let short = #limit_read.is_some_and(|limit| got < limit);
                    let current = #offset_read;
                    let next = if got == 0 || short {
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
                next: next_path,
                ..
            } => {
                let (Some(cursor_f), Some(next_read)) = (param(cursor), at(next_path)) else {
                    return quote!();
                };
                let next_read = next_read.cloned();
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
                items,
                id,
                more,
            } => {
                let (Some(after_f), Some(item_fields)) =
                    (param(after), path_fields(spec, page_model, items))
                else {
                    return quote!();
                };
                let Some(Type::List(item, _)) = item_fields.last().map(|f| &f.ty) else {
                    return quote!();
                };
                let Some(id_f) = (match item.as_ref() {
                    Type::Model(m) => spec.model(*m).field(id),
                    _ => None,
                }) else {
                    return quote!();
                };
                let id_field = field_ident(&id_f.ident);
                let list = PathRead::of(quote!(page), &item_fields).slice();
                let more = more
                    .as_deref()
                    .and_then(at)
                    .map_or(quote!(true), PathRead::flag);
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
            Paging::Link { .. } | Paging::NextUrl { .. } => return quote!(),
        };
        let name = format_ident!("{}_pages", crate::lower::snake(&ep.name));
        let method = method_ident(&ep.name);
        let input = input_ident(ep);
        let only_status = only_status(self.spec, ep);
        let page_pattern = self.page_pattern(ep);
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

    /// The pattern binding a 200's body as `page`.
    fn page_pattern(&self, ep: &Endpoint) -> TokenStream {
        let response = response_ident(ep);
        let ok = status_variant(StatusPattern::Exact(200));
        let with_headers = ep
            .responses
            .iter()
            .any(|r| r.status == StatusPattern::Exact(200) && !r.headers.is_empty());
        if with_headers {
            quote!(#response::#ok { body: page, .. })
        } else {
            quote!(#response::#ok(page))
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
        let response = response_ident(ep);
        let ok = status_variant(StatusPattern::Exact(200));
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
        let pattern = quote!(#response::#ok { body: page, headers });
        let next = quote!(rt::client::next_page(#link_read, &from, input));
        self.followed_pages(ep, page_ty, pattern, next, &doc)
    }

    /// Pages of a listing whose body holds the next page's URL (Twilio's `next_page_uri`).
    fn url_pages_method(&mut self, ep: &Endpoint, next: &[String]) -> TokenStream {
        let spec = self.spec;
        let Some((page_model, page_ty)) = self.page_model(ep) else {
            return quote!();
        };
        let Some(fields) = path_fields(spec, page_model, next) else {
            return quote!();
        };
        let url_read = PathRead::of(quote!(page), &fields).text();
        let doc = format!(
            " Every page of `{}`, fetched as the stream is read: each next page is at the URL \
             its `{}` holds.",
            ep.name,
            next.join(".")
        );
        let pattern = self.page_pattern(ep);
        let next = quote!(rt::client::next_url(#url_read, &from, input));
        self.followed_pages(ep, page_ty, pattern, next, &doc)
    }

    /// A page stream whose next page is a URL a page gives: asked for on the API's own
    /// address with the first request's credentials and header parameters.
    fn followed_pages(
        &mut self,
        ep: &Endpoint,
        page_ty: TokenStream,
        pattern: TokenStream,
        next: TokenStream,
        doc: &str,
    ) -> TokenStream {
        let name = format_ident!("{}_pages", crate::lower::snake(&ep.name));
        let (input, response) = (input_ident(ep), response_ident(ep));
        let desc = endpoint_static(&ep.name);
        let only_status = only_status(self.spec, ep);
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
                    let #pattern = response else {
                        return Err(rt::client::ClientError::NotAPage { status: response.status() });
                    };
                    let next = #next;
                    Ok((page, next))
                })
            }
        }
    }
}
