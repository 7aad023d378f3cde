//! The `limits` module: the spec's stated limits as constants (durations as `Duration`,
//! sizes in bytes, other amounts as numbers) and its rate limits as
//! `rt::limits::RateLimit`, so an implementation applies the spec's values, not a copy.

use super::RustBackend;
use super::doc_lines;
use crate::ir::{Dimension, Limit, LimitValue, Provenance, Quantity, RateLimit, RateTier};
use heck::ToShoutySnakeCase;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

impl RustBackend<'_> {
    /// `None` when the spec states no limit with a value and no rate limit.
    pub fn limits(&self) -> Option<TokenStream> {
        let constants: Vec<TokenStream> = self.spec.limits.iter().filter_map(constant).collect();
        let rates: Vec<TokenStream> = self
            .spec
            .rate_limits
            .iter()
            .map(|rl| self.rate_limit(rl))
            .collect();
        if constants.is_empty() && rates.is_empty() {
            return None;
        }
        let crate_path = &self.crate_path;
        Some(quote! {
            #[allow(unused_imports)]
            use #crate_path as rt;
            #(#constants)*
            #(#rates)*
        })
    }

    fn rate_limit(&self, rl: &RateLimit) -> TokenStream {
        let rt = &self.rt;
        let ident = format_ident!("{}", rl.name.to_shouty_snake_case());
        let name = &rl.name;
        let doc = docs(rl.doc.as_deref(), rl.provenance);
        let per = match &rl.per {
            Some(per) => quote!(Some(#per)),
            None => quote!(None),
        };
        let tiers = rl.tiers.iter().map(|t| tier(rt, t));
        quote! {
            #(#[doc = #doc])*
            pub static #ident: #rt::limits::RateLimit = #rt::limits::RateLimit {
                name: #name,
                per: #per,
                tiers: &[#(#tiers),*],
            };
        }
    }
}

fn tier(rt: &TokenStream, t: &RateTier) -> TokenStream {
    let assigned = &t.assigned;
    let is_default = t.is_default;
    let rate = match (t.concurrent, t.count, t.window.as_ref().and_then(seconds)) {
        (Some(n), _, _) => {
            let n = Literal::u32_unsuffixed(n);
            quote!(#rt::limits::Rate::Concurrent(#n))
        }
        (None, Some(count), Some(secs)) => {
            let (count, secs) = (
                Literal::u32_unsuffixed(count),
                Literal::u64_unsuffixed(secs),
            );
            quote! {
            #rt::limits::Rate::Windowed {
                count: #count,
                window: ::std::time::Duration::from_secs(#secs),
            }
            }
        }
        // Lowering refuses a tier with neither; a window in another unit is not a rate.
        _ => quote!(#rt::limits::Rate::Concurrent(0)),
    };
    quote! {
        #rt::limits::RateTier {
            assigned: &[#(#assigned),*],
            is_default: #is_default,
            rate: #rate,
        }
    }
}

/// A limit with a value, as a constant of its kind.
fn constant(limit: &Limit) -> Option<TokenStream> {
    let LimitValue::Quantity(q) = &limit.value else {
        return None;
    };
    let ident = format_ident!("{}", limit.name.to_shouty_snake_case());
    let doc = docs(limit.doc.as_deref(), limit.provenance);
    let value = if let Some(secs) = seconds(q) {
        let secs = Literal::u64_unsuffixed(secs);
        quote!(::std::time::Duration = ::std::time::Duration::from_secs(#secs))
    } else if let Some(bytes) = bytes(q) {
        let bytes = Literal::u64_unsuffixed(bytes);
        quote!(u64 = #bytes)
    } else if q.amount.fract() == 0.0 && q.amount >= 0.0 {
        let n = Literal::u64_unsuffixed(q.amount as u64);
        quote!(u64 = #n)
    } else {
        let n = Literal::f64_unsuffixed(q.amount);
        quote!(f64 = #n)
    };
    Some(quote! {
        #(#[doc = #doc])*
        pub const #ident: #value;
    })
}

/// Whole seconds of a duration; `None` for another unit.
fn seconds(q: &Quantity) -> Option<u64> {
    match q.measure()? {
        (Dimension::Time, seconds) => Some(seconds.round() as u64),
        _ => None,
    }
}

/// Bytes of a size; `None` for another unit.
fn bytes(q: &Quantity) -> Option<u64> {
    match q.measure()? {
        (Dimension::Size, bytes) => Some(bytes.round() as u64),
        _ => None,
    }
}

/// The doc lines, and where the fact comes from when it is not the document.
fn docs(doc: Option<&str>, provenance: Provenance) -> Vec<String> {
    let mut lines: Vec<String> = doc.map(doc_lines).unwrap_or_default();
    if let Some(source) = provenance.x_source() {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(format!(" Source: {source}."));
    }
    lines
}
