//! Typed principals. Each `principal` the spec's schemes name is a type of the server's own
//! (`type Team`), made by a method of its own (`authenticate_team`), so an endpoint's method
//! receives the principal of the schemes it accepts and never checks its kind again. The
//! router carries every kind as one `Caller` enum until it hands the method its own.

use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// One kind of principal: what the schemes naming it identify.
pub struct Kind {
    /// The name the spec gives it (`principal team`).
    pub name: String,
    /// The server trait's associated type (`Team`), also the `Caller` variant.
    pub ty: Ident,
    /// The server trait's method that turns a credential into one (`authenticate_team`).
    pub method: Ident,
    /// The schemes whose credentials identify one, aliases (`same_as`) included.
    pub schemes: Vec<AuthId>,
}

/// Every kind, in the order the spec first names them; a `same_as` scheme identifies its
/// target's kind (the router authenticates it as its target). Names spelled alike in Rust
/// (`team_admin`, `team-admin`) are one kind.
pub fn kinds(spec: &Spec) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Vec::new();
    for (i, _) in spec.auth_schemes.iter().enumerate() {
        let id = AuthId(i as u32);
        let name = principal_of(spec, id);
        let ty = super::names::type_ident(&name);
        match kinds.iter_mut().find(|k| k.ty == ty) {
            Some(kind) => kind.schemes.push(id),
            None => kinds.push(Kind {
                ty,
                method: format_ident!("authenticate_{}", crate::lower::snake(&name)),
                name,
                schemes: vec![id],
            }),
        }
    }
    kinds
}

/// What a scheme's credentials identify: its target's principal for a `same_as` scheme (a
/// bounded walk: the checker refuses alias loops, and a broken spec must not hang the
/// emitter), else its own.
fn principal_of(spec: &Spec, mut id: AuthId) -> String {
    for _ in 0..=spec.auth_schemes.len() {
        match spec.auth(id).alias_of {
            Some(target) => id = target,
            None => break,
        }
    }
    let principal = &spec.auth(id).principal;
    if principal.is_empty() {
        spec.auth(id).name.clone()
    } else {
        principal.clone()
    }
}

/// The kinds (by index in [`kinds`]) an endpoint's required credential may identify, in
/// kind order; empty for a public endpoint.
pub fn accepted(kinds: &[Kind], ep: &Endpoint) -> Vec<usize> {
    let mut taken: Vec<usize> = ep
        .auth
        .any_of
        .iter()
        .filter_map(|id| kinds.iter().position(|k| k.schemes.contains(id)))
        .collect();
    taken.sort_unstable();
    taken.dedup();
    taken
}

/// The name of the enum of several kinds: `Caller` when it is all of them, else the kinds
/// joined (`BotTokenOrOAuth2`).
pub fn union_ident(kinds: &[Kind], taken: &[usize]) -> Ident {
    if taken.len() == kinds.len() {
        return format_ident!("Caller");
    }
    let names: Vec<String> = taken.iter().map(|&k| kinds[k].ty.to_string()).collect();
    format_ident!("{}", names.join("Or"))
}

/// Every union of several kinds some endpoint accepts, but `Caller` (always written).
pub fn unions(kinds: &[Kind], spec: &Spec) -> Vec<Vec<usize>> {
    let mut unions: Vec<Vec<usize>> = spec
        .endpoints
        .iter()
        .map(|ep| accepted(kinds, ep))
        .filter(|taken| taken.len() > 1 && taken.len() < kinds.len())
        .collect();
    unions.sort();
    unions.dedup();
    unions
}

/// The principal type an endpoint's method receives, over the server type `owner`
/// (`Self` in the trait, `S` in a handler), its enums reached through `module` (empty in
/// the server module, `super::server::` beside it).
pub fn principal_type(
    kinds: &[Kind],
    ep: &Endpoint,
    owner: &TokenStream,
    module: &TokenStream,
) -> TokenStream {
    let taken = accepted(kinds, ep);
    match taken.as_slice() {
        [] => quote!(()),
        [one] => {
            let ty = &kinds[*one].ty;
            quote!(#owner::#ty)
        }
        several => {
            let union = union_ident(kinds, several);
            quote!(#module #union<#owner>)
        }
    }
}

/// The function that takes an endpoint's principal from the router's `Option<Caller<S>>`
/// (see [`narrowers`]).
pub fn narrowing(kinds: &[Kind], ep: &Endpoint) -> Ident {
    narrower_ident(kinds, &accepted(kinds, ep))
}

fn narrower_ident(kinds: &[Kind], taken: &[usize]) -> Ident {
    match taken {
        [] => format_ident!("no_principal"),
        [one] => format_ident!("as_{}", crate::lower::snake(&kinds[*one].name)),
        several if several.len() == kinds.len() => format_ident!("any_caller"),
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|&k| crate::lower::snake(&kinds[k].name))
                .collect();
            format_ident!("as_{}", names.join("_or_"))
        }
    }
}

/// One function per principal type some endpoint takes: the principal from the router's
/// caller, `None` for a caller of a kind the endpoint does not accept (which authentication
/// never lets through).
pub fn narrowers(kinds: &[Kind], spec: &Spec, trait_name: &Ident) -> TokenStream {
    let mut taken: Vec<Vec<usize>> = spec
        .endpoints
        .iter()
        .map(|ep| accepted(kinds, ep))
        .collect();
    taken.sort();
    taken.dedup();
    let fns = taken.iter().map(|taken| {
        let name = narrower_ident(kinds, taken);
        match taken.as_slice() {
            [] => quote! {
                /// A public endpoint's principal: none.
                fn #name<C>(_: ::std::option::Option<C>) -> ::std::option::Option<()> {
                    Some(())
                }
            },
            [one] => {
                let ty = &kinds[*one].ty;
                let rest = (kinds.len() > 1).then(|| quote!(_ => None,));
                let none = (kinds.len() == 1).then(|| quote!(None => None,));
                let doc = format!(" The principal of an endpoint that takes `{}` credentials.", kinds[*one].name);
                quote! {
                    #[doc = #doc]
                    fn #name<S: #trait_name>(caller: ::std::option::Option<Caller<S>>) -> ::std::option::Option<S::#ty> {
                        match caller {
                            Some(Caller::#ty(p)) => Some(p),
                            #rest
                            #none
                        }
                    }
                }
            }
            several if several.len() == kinds.len() => quote! {
                /// The principal of an endpoint that takes every kind of credential.
                fn #name<S: #trait_name>(caller: ::std::option::Option<Caller<S>>) -> ::std::option::Option<Caller<S>> {
                    caller
                }
            },
            several => {
                let union = union_ident(kinds, several);
                let arms = several.iter().map(|&k| {
                    let ty = &kinds[k].ty;
                    quote!(Some(Caller::#ty(p)) => Some(#union::#ty(p)))
                });
                let doc = format!(" The principal of an endpoint that takes [`{union}`]'s kinds.");
                quote! {
                    #[doc = #doc]
                    fn #name<S: #trait_name>(caller: ::std::option::Option<Caller<S>>) -> ::std::option::Option<#union<S>> {
                        match caller {
                            #(#arms,)*
                            _ => None,
                        }
                    }
                }
            }
        }
    });
    quote!(#(#fns)*)
}

/// The `Caller` enum and the unions of several kinds, each with `Clone` and `Debug`.
pub fn enums(kinds: &[Kind], spec: &Spec, trait_name: &Ident) -> TokenStream {
    let all: Vec<usize> = (0..kinds.len()).collect();
    let caller = kind_enum(
        kinds,
        &all,
        trait_name,
        &format!(
            " Who is calling, of any kind: the principal an `authenticate_…` method of [`{trait_name}`] \
             made, as gates, scopes and the credentials sent beside the required one see it."
        ),
    );
    let unions = unions(kinds, spec).into_iter().map(|taken| {
        let names: Vec<String> = taken
            .iter()
            .map(|&k| format!("`{}`", kinds[k].name))
            .collect();
        let doc = format!(
            " The principal of an endpoint that accepts credentials identifying {}.",
            names.join(" or ")
        );
        kind_enum(kinds, &taken, trait_name, &doc)
    });
    quote! {
        #caller
        #(#unions)*
    }
}

/// One enum of the principals of `taken` kinds.
fn kind_enum(kinds: &[Kind], taken: &[usize], trait_name: &Ident, doc: &str) -> TokenStream {
    let name = union_ident(kinds, taken);
    let tys: Vec<&Ident> = taken.iter().map(|&k| &kinds[k].ty).collect();
    let labels: Vec<String> = tys.iter().map(|t| t.to_string()).collect();
    let variant_docs = taken
        .iter()
        .map(|&k| format!(" A credential identifying a `{}`.", kinds[k].name));
    // With no kinds at all the enum has no value; the server type is still its parameter.
    let (never, never_clone, never_debug) = if taken.is_empty() {
        (
            quote!(#[doc(hidden)] Never(::std::convert::Infallible, ::std::marker::PhantomData<fn() -> S>),),
            quote!(#name::Never(never, _) => match *never {},),
            quote!(#name::Never(never, _) => match *never {},),
        )
    } else {
        (TokenStream::new(), TokenStream::new(), TokenStream::new())
    };
    let debug_bounds = (!tys.is_empty()).then(|| quote!(where #( S::#tys: ::std::fmt::Debug, )*));
    quote! {
        #[doc = #doc]
        pub enum #name<S: #trait_name + ?Sized> {
            #( #[doc = #variant_docs] #tys(S::#tys), )*
            #never
        }

        impl<S: #trait_name + ?Sized> Clone for #name<S> {
            fn clone(&self) -> Self {
                match self {
                    #( #name::#tys(p) => #name::#tys(p.clone()), )*
                    #never_clone
                }
            }
        }

        impl<S: #trait_name + ?Sized> ::std::fmt::Debug for #name<S> #debug_bounds {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match self {
                    #( #name::#tys(p) => f.debug_tuple(#labels).field(p).finish(), )*
                    #never_debug
                }
            }
        }
    }
}

/// The trait's associated type and authenticate method of each kind.
pub fn trait_items(kinds: &[Kind], spec: &Spec, rt: &TokenStream) -> TokenStream {
    let items = kinds.iter().map(|kind| {
        let (ty, method) = (&kind.ty, &kind.method);
        let schemes: Vec<String> = kind
            .schemes
            .iter()
            .map(|&id| format!("`{}`", spec.auth(id).name))
            .collect();
        let type_doc = format!(
            " What a credential of {} identifies (a `{}`).",
            schemes.join(" or "),
            kind.name
        );
        let method_doc = format!(
            " Turns a credential of {} into a [`Self::{ty}`].",
            schemes.join(" or ")
        );
        quote! {
            #[doc = #type_doc]
            type #ty: Clone + Send + Sync + 'static;

            #[doc = #method_doc]
            /// `Err(Unknown)` answers 401; `Err(WrongKind)` (a valid key of another kind)
            /// answers 403; `Err(Unavailable)` answers 503 with `Retry-After`. The
            /// deprecated second header of a scheme arrives as that scheme.
            fn #method(&self, scheme: AuthScheme, credential: &str) -> impl Future<Output = ::std::result::Result<Self::#ty, #rt::server::AuthError>> + Send;
        }
    });
    quote!(#(#items)*)
}

/// The router's `authenticate`: each scheme's credential to the method of its kind.
pub fn dispatch(kinds: &[Kind], spec: &Spec, rt: &TokenStream) -> TokenStream {
    let variants = super::operations::auth_variants(spec);
    let arms = kinds.iter().flat_map(|kind| {
        kind.schemes.iter().map(|&id| {
            let (variant, method, ty) = (&variants[id.index()], &kind.method, &kind.ty);
            quote!(AuthScheme::#variant => self.service.#method(scheme, credential).await.map(Caller::#ty))
        })
    });
    // With no schemes there is no credential to read.
    let credential = if kinds.is_empty() {
        format_ident!("_credential")
    } else {
        format_ident!("credential")
    };
    quote! {
        async fn authenticate(&self, scheme: AuthScheme, #credential: &str) -> ::std::result::Result<Caller<S>, #rt::server::AuthError> {
            match scheme { #(#arms,)* }
        }
    }
}

/// Whether an endpoint's method name is one the kinds' methods take.
pub fn takes_method(kinds: &[Kind], method: &Ident) -> bool {
    kinds.iter().any(|k| k.method == *method)
}
