//! Generated code names the standard library and serde by absolute paths (`::std::fmt`), so
//! a module of the user's named `std` or `serde` cannot capture them where the macro expands.
//!
//! The paths are made absolute in the parsed module, where only paths are visited: rebuilding
//! a module's whole token stream for it cost as much as a sixth of `generate` on large specs.
//! Tokens syn leaves unparsed (macro arguments, attribute lists, verbatim items) are rewritten
//! as tokens.

use proc_macro2::{Group, Spacing, TokenStream, TokenTree};
use syn::visit_mut::VisitMut;

/// The crates whose paths are made absolute.
const CRATES: &[&str] = &["std", "core", "alloc", "serde", "serde_json"];

/// Prefixes `::` to every path in `file` that starts with one of [`CRATES`] and is not
/// already absolute.
pub fn make_absolute(file: &mut syn::File) {
    Absolute.visit_file_mut(file);
}

struct Absolute;

impl VisitMut for Absolute {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_none()
            && path.segments.len() > 1
            && names_crate(&path.segments[0].ident)
        {
            path.leading_colon = Some(Default::default());
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_item_use_mut(&mut self, item: &mut syn::ItemUse) {
        if item.leading_colon.is_none() {
            match &mut item.tree {
                syn::UseTree::Path(first) if names_crate(&first.ident) => {
                    item.leading_colon = Some(Default::default());
                }
                // `use {std::fmt, serde::Serialize};` becomes `use ::{…};` when every path of
                // the group names one of the crates (a group mixing in the crate's own modules
                // is left as it is).
                syn::UseTree::Group(group) if group.items.iter().all(starts_with_crate) => {
                    item.leading_colon = Some(Default::default());
                }
                _ => {}
            }
        }
        syn::visit_mut::visit_item_use_mut(self, item);
    }

    fn visit_impl_item_mut(&mut self, item: &mut syn::ImplItem) {
        if let syn::ImplItem::Verbatim(tokens) = item {
            rewrite(tokens);
        }
        syn::visit_mut::visit_impl_item_mut(self, item);
    }

    fn visit_trait_item_mut(&mut self, item: &mut syn::TraitItem) {
        if let syn::TraitItem::Verbatim(tokens) = item {
            rewrite(tokens);
        }
        syn::visit_mut::visit_trait_item_mut(self, item);
    }

    fn visit_foreign_item_mut(&mut self, item: &mut syn::ForeignItem) {
        if let syn::ForeignItem::Verbatim(tokens) = item {
            rewrite(tokens);
        }
        syn::visit_mut::visit_foreign_item_mut(self, item);
    }

    fn visit_pat_mut(&mut self, pat: &mut syn::Pat) {
        if let syn::Pat::Verbatim(tokens) = pat {
            rewrite(tokens);
        }
        syn::visit_mut::visit_pat_mut(self, pat);
    }

    fn visit_type_param_bound_mut(&mut self, bound: &mut syn::TypeParamBound) {
        if let syn::TypeParamBound::Verbatim(tokens) = bound {
            rewrite(tokens);
        }
        syn::visit_mut::visit_type_param_bound_mut(self, bound);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        rewrite(&mut mac.tokens);
        syn::visit_mut::visit_macro_mut(self, mac);
    }

    fn visit_meta_list_mut(&mut self, list: &mut syn::MetaList) {
        rewrite(&mut list.tokens);
        syn::visit_mut::visit_meta_list_mut(self, list);
    }

    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        if let syn::Item::Verbatim(tokens) = item {
            rewrite(tokens);
        }
        syn::visit_mut::visit_item_mut(self, item);
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Verbatim(tokens) = expr {
            rewrite(tokens);
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Verbatim(tokens) = ty {
            rewrite(tokens);
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// Rewrites tokens syn left unparsed in place.
fn rewrite(tokens: &mut TokenStream) {
    *tokens = absolute(std::mem::take(tokens));
}

fn names_crate(ident: &proc_macro2::Ident) -> bool {
    CRATES.iter().any(|name| ident == name)
}

/// A use tree whose every path begins with one of [`CRATES`].
fn starts_with_crate(tree: &syn::UseTree) -> bool {
    match tree {
        syn::UseTree::Path(path) => names_crate(&path.ident),
        syn::UseTree::Name(_) | syn::UseTree::Rename(_) | syn::UseTree::Glob(_) => false,
        syn::UseTree::Group(group) => group.items.iter().all(starts_with_crate),
    }
}

/// Prefixes `::` to every path in `tokens` that starts with one of [`CRATES`] and is not
/// already absolute or nested (`a::std::x` is left alone).
fn absolute(tokens: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), absolute(g.stream()));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            TokenTree::Ident(ident)
                if CRATES.iter().any(|name| ident == name)
                    && starts_path(&trees[i + 1..])
                    && !after_path_separator(&trees[..i]) =>
            {
                let span = ident.span();
                let mut joint = proc_macro2::Punct::new(':', Spacing::Joint);
                joint.set_span(span);
                let mut alone = proc_macro2::Punct::new(':', Spacing::Alone);
                alone.set_span(span);
                out.push(TokenTree::Punct(joint));
                out.push(TokenTree::Punct(alone));
                out.push(tree.clone());
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

fn is_colon(tree: Option<&TokenTree>) -> bool {
    matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

/// `::` follows.
fn starts_path(rest: &[TokenTree]) -> bool {
    is_colon(rest.first()) && is_colon(rest.get(1))
}

/// `::` precedes: the ident is already absolute or inside a longer path.
fn after_path_separator(before: &[TokenTree]) -> bool {
    let n = before.len();
    n >= 2 && is_colon(before.get(n - 1)) && is_colon(before.get(n - 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{ToTokens, quote};

    fn made_absolute(tokens: TokenStream) -> String {
        let mut file: syn::File = syn::parse2(tokens).unwrap();
        make_absolute(&mut file);
        file.to_token_stream().to_string()
    }

    #[test]
    fn std_and_serde_paths_become_absolute_once() {
        let text = made_absolute(quote! {
            use serde::Serialize;
            use ::std::fmt;
            use {std::io, serde_json::Map};
            #[derive(serde::Deserialize)]
            struct S(core::marker::PhantomData<u8>);
            fn f(x: std::fmt::Result, y: ::std::sync::Arc<u8>, z: rt::std::X) -> serde_json::Value {
                let v: alloc::vec::Vec<u8> = vec![std::mem::take(&mut 0u8)];
                <u8 as std::str::FromStr>::from_str("1");
                std(x)
            }
        });
        for wanted in [
            ":: serde :: Serialize",
            "use :: std :: fmt",
            "use :: { std :: io , serde_json :: Map }",
            "derive (:: serde :: Deserialize)",
            ":: core :: marker :: PhantomData",
            ":: std :: fmt :: Result",
            ":: alloc :: vec :: Vec",
            "vec ! [:: std :: mem :: take",
            "< u8 as :: std :: str :: FromStr >",
            "rt :: std :: X",
            ":: serde_json :: Value",
            "std (x)",
        ] {
            assert!(text.contains(wanted), "{wanted}: {text}");
        }
        assert!(!text.contains(":: :: std"), "{text}");
    }
}
