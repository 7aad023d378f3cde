//! Builders for models with required fields and many of them: `Pet::builder().name("Rex")
//! .photo_urls(vec![]).build()`, naming each field once, where a struct literal would need
//! every optional field spelled out and `Default` cannot exist.

use super::names::field_ident;
use crate::ir::{Field, Literal, Presence};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Models with fewer fields read well as struct literals.
const MIN_FIELDS: usize = 4;

/// A field of a struct with its Rust types: the value's, and the field's as declared.
pub struct TypedField<'a> {
    pub field: &'a Field,
    pub inner: TokenStream,
    pub ty: TokenStream,
}

/// `<Name>Builder` and `<Name>::builder()`, for a struct with at least [`MIN_FIELDS`]
/// fields. A setter takes what converts into the value (`&str` for a `String`); an optional
/// field's setter takes the value itself. `build()` fills what was not set with the spec's
/// default or leaves it absent, and names every required field left unset.
pub fn builder(
    rt: &TokenStream,
    name: &Ident,
    owner: &str,
    fields: &[TypedField],
    open: bool,
) -> Option<TokenStream> {
    if fields.len() < MIN_FIELDS {
        return None;
    }
    let builder = format_ident!("{}Builder", name);
    let type_name = name.to_string();
    let mut slots = Vec::new();
    let mut setters = Vec::new();
    let mut takes = Vec::new();
    let mut setter_names = setter_idents(fields).into_iter();
    for f in fields {
        let ident = field_ident(&f.field.ident);
        let (ty, inner) = (&f.ty, &f.inner);
        slots.push(quote!(#ident: ::std::option::Option<#ty>,));
        let (param, store) = match (f.field.presence, f.field.default.is_some()) {
            (Presence::Optional, false) => (inner.clone(), quote!(Some(value.into()))),
            _ => (ty.clone(), quote!(value.into())),
        };
        let doc = format!(" Sets `{}`.", f.field.name);
        let deprecated = f.field.deprecated.as_ref().map(|_| quote!(#[deprecated]));
        let setter = setter_names.next().unwrap_or_else(|| ident.clone());
        setters.push(quote! {
            #[doc = #doc]
            #deprecated
            pub fn #setter(mut self, value: impl Into<#param>) -> Self {
                self.#ident = Some(#store);
                self
            }
        });
        takes.push(match (f.field.presence, &f.field.default) {
            // A constant (`object: "card"`, `ok: true`) needs no setting.
            _ if f.field.constant_value().is_some() => match f.field.constant_value() {
                Some(Literal::Bool(b)) => quote!(#ident: self.#ident.unwrap_or(#b),),
                Some(Literal::Int(n)) => quote!(#ident: self.#ident.unwrap_or(#n),),
                _ => {
                    let text = f.field.constant().unwrap_or_default();
                    quote!(#ident: self.#ident.unwrap_or_else(|| #text.into()),)
                }
            },
            (Presence::Required | Presence::Nullable, _) => quote!(#ident,),
            (_, Some(_)) => {
                let path: syn::Path =
                    syn::parse_str(&super::default_fn_path(owner, &f.field.ident))
                        .expect("default function paths parse");
                quote!(#ident: self.#ident.unwrap_or_else(#path),)
            }
            (_, None) => quote!(#ident: self.#ident.unwrap_or_default(),),
        });
    }
    let required: Vec<(Ident, &String)> = fields
        .iter()
        .filter(|f| !f.field.presence.may_be_absent() && f.field.constant_value().is_none())
        .map(|f| (field_ident(&f.field.ident), &f.field.name))
        .collect();
    let (required_idents, required_wires): (Vec<_>, Vec<_>) = required.into_iter().unzip();
    // Every field may be left unset when the only required ones are constants.
    let check_required = (!required_idents.is_empty()).then(|| {
        quote! {
            let missing: Vec<&'static str> = [#((#required_wires, self.#required_idents.is_some())),*]
                .into_iter()
                .filter_map(|(name, set)| (!set).then_some(name))
                .collect();
            let (#(Some(#required_idents),)*) = (#(self.#required_idents,)*) else {
                return Err(#rt::BuildError { type_name: #type_name, missing });
            };
        }
    });
    let extra = open.then(|| quote!(extra: Default::default(),));
    let doc = format!(" Builds a [`{type_name}`] field by field; see [`{type_name}::builder`].");
    let builder_doc = " A builder: set each field once, then `build()`, which names every required field left unset.";
    let allow = fields
        .iter()
        .any(|f| f.field.deprecated.is_some())
        .then(|| quote!(#[allow(deprecated)]));
    Some(quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, Default)]
        pub struct #builder {
            #(#slots)*
        }

        impl #name {
            #[doc = #builder_doc]
            pub fn builder() -> #builder {
                <#builder as ::std::default::Default>::default()
            }
        }

        impl #builder {
            #(#setters)*

            /// The value, or the names of the required fields left unset.
            #allow
            pub fn build(self) -> ::std::result::Result<#name, #rt::BuildError> {
                #check_required
                Ok(#name {
                    #(#takes)*
                    #extra
                })
            }
        }
    })
}

/// Each field's setter: its own name, but `build`, which finishes the builder, is set with
/// `with_build` (numbered if a field has that name too).
fn setter_idents(fields: &[TypedField]) -> Vec<Ident> {
    let idents: Vec<Ident> = fields.iter().map(|f| field_ident(&f.field.ident)).collect();
    idents
        .iter()
        .map(|ident| {
            if ident != "build" {
                return ident.clone();
            }
            let mut candidate = "with_build".to_string();
            let mut n = 2;
            while idents.iter().any(|i| *i == candidate) {
                candidate = format!("with_build_{n}");
                n += 1;
            }
            format_ident!("{candidate}")
        })
        .collect()
}
