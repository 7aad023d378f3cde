//! Enums. Open ones keep an unknown value in `UnknownValue` and write it back unchanged;
//! closed ones reject unknown values with an error naming the allowed ones.

use super::names::{type_ident, variant_idents};
use crate::ir::{Enum, EnumRepr};
use proc_macro2::TokenStream;
use quote::quote;

/// The catch-all variant of open enums.
pub const UNKNOWN_VARIANT: &str = "UnknownValue";

pub fn enum_items(e: &Enum, rt: &TokenStream) -> TokenStream {
    let name = type_ident(&e.name);
    let validate = quote! {
        /// Serde already checked the value: nothing more to validate.
        impl #rt::Validate for #name {}
    };
    let values: Vec<&str> = e.values.iter().map(|v| v.name.as_str()).collect();
    let variants = variant_idents(&values, UNKNOWN_VARIANT);
    let docs: Vec<Vec<String>> = e
        .values
        .iter()
        .map(|v| v.doc.as_deref().map(super::doc_lines).unwrap_or_default())
        .collect();
    let deprecated: Vec<TokenStream> = e
        .values
        .iter()
        .map(|v| match &v.deprecated {
            Some(d) => {
                let mut note = d.note.clone().unwrap_or_else(|| "deprecated".into());
                if let Some(r) = &d.replacement {
                    note.push_str(&format!("; use `{r}`"));
                }
                quote!(#[deprecated(note = #note)])
            }
            None => quote!(),
        })
        .collect();
    let mut doc: Vec<String> = e.doc.as_deref().map(super::doc_lines).unwrap_or_default();
    if !doc.is_empty() {
        doc.push(String::new());
    }
    doc.push(if e.open {
        " Open: the service may add values; unknown ones are kept in `UnknownValue` and written back unchanged.".to_string()
    } else {
        " Closed: any other value is rejected.".to_string()
    });
    for ns in &e.not_shown {
        doc.push(format!(" Not shown by the source: {ns}."));
    }
    let items = match e.repr {
        EnumRepr::String => string_enum(e, &name, &values, &variants, &docs, &deprecated, &doc),
        EnumRepr::Int => int_enum(e, &name, &values, &variants, &doc),
    };
    quote!(#items #validate)
}

fn string_enum(
    e: &Enum,
    name: &proc_macro2::Ident,
    values: &[&str],
    variants: &[proc_macro2::Ident],
    docs: &[Vec<String>],
    deprecated: &[TokenStream],
    doc: &[String],
) -> TokenStream {
    let enum_name = &e.name;
    let allowed = values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let unknown_variant = e.open.then(|| quote!(UnknownValue(String),));
    let unknown_as_str = e.open.then(|| quote!(Self::UnknownValue(value) => value,));
    let from_str_fallback = if e.open {
        quote!(other => Ok(Self::UnknownValue(other.to_string())),)
    } else {
        quote!(other => Err(format!("unknown value {:?} for {}; expected one of: {}", other, #enum_name, #allowed)),)
    };
    let from_str_impl = e.open.then(|| {
        quote! {
            impl From<&str> for #name {
                fn from(value: &str) -> Self {
                    match value.parse() {
                        Ok(v) => v,
                        Err(never) => match never {},
                    }
                }
            }
        }
    });
    let err_ty = if e.open {
        quote!(std::convert::Infallible)
    } else {
        quote!(String)
    };
    quote! {
        #(#[doc = #doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum #name {
            #(
                #(#[doc = #docs])*
                #deprecated
                #variants,
            )*
            #unknown_variant
        }

        #[allow(deprecated)]
        impl #name {
            /// The values the spec lists, in its order.
            pub const KNOWN: &'static [&'static str] = &[#(#values),*];

            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#variants => #values,)*
                    #unknown_as_str
                }
            }
        }

        #[allow(deprecated)]
        impl std::str::FromStr for #name {
            type Err = #err_ty;
            fn from_str(value: &str) -> Result<Self, Self::Err> {
                match value {
                    #(#values => Ok(Self::#variants),)*
                    #from_str_fallback
                }
            }
        }

        #from_str_impl

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                value.parse().map_err(serde::de::Error::custom)
            }
        }
    }
}

fn int_enum(
    e: &Enum,
    name: &proc_macro2::Ident,
    values: &[&str],
    variants: &[proc_macro2::Ident],
    doc: &[String],
) -> TokenStream {
    let enum_name = &e.name;
    let numbers: Vec<i64> = values
        .iter()
        .map(|v| v.parse().unwrap_or_default())
        .collect();
    let allowed = values.join(", ");
    let unknown_variant = e.open.then(|| quote!(UnknownValue(i64),));
    let unknown_as = e.open.then(|| quote!(Self::UnknownValue(value) => *value,));
    let fallback = if e.open {
        quote!(other => Ok(Self::UnknownValue(other)),)
    } else {
        quote!(other => Err(format!("unknown value {} for {}; expected one of: {}", other, #enum_name, #allowed)),)
    };
    quote! {
        #(#[doc = #doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum #name {
            #(#variants,)*
            #unknown_variant
        }

        impl #name {
            /// The values the spec lists, in its order.
            pub const KNOWN: &'static [i64] = &[#(#numbers),*];

            pub fn as_i64(&self) -> i64 {
                match self {
                    #(Self::#variants => #numbers,)*
                    #unknown_as
                }
            }

            pub fn try_from_i64(value: i64) -> Result<Self, String> {
                match value {
                    #(#numbers => Ok(Self::#variants),)*
                    #fallback
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.as_i64())
            }
        }

        impl Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_i64(self.as_i64())
            }
        }

        impl<'de> Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = i64::deserialize(deserializer)?;
                Self::try_from_i64(value).map_err(serde::de::Error::custom)
            }
        }
    }
}
