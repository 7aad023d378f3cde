//! Generated code names the standard library and serde by absolute paths (`::std::fmt`), so
//! a module of the user's named `std` or `serde` cannot capture them where the macro expands.

use proc_macro2::{Group, Spacing, TokenStream, TokenTree};

/// The crates whose paths are made absolute.
const CRATES: &[&str] = &["std", "core", "alloc", "serde", "serde_json"];

/// Prefixes `::` to every path that starts with one of [`CRATES`] and is not already
/// absolute or nested (`a::std::x` is left alone).
pub fn absolute(tokens: TokenStream) -> TokenStream {
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
    use quote::quote;

    #[test]
    fn std_and_serde_paths_become_absolute_once() {
        let out = absolute(quote! {
            use serde::Serialize;
            fn f(x: std::fmt::Result, y: ::std::sync::Arc<u8>, z: rt::std::X) -> serde_json::Value { std(x) }
        });
        let text = out.to_string();
        assert!(text.contains(":: serde :: Serialize"), "{text}");
        assert!(text.contains(":: std :: fmt :: Result"), "{text}");
        assert!(!text.contains(":: :: std"), "{text}");
        assert!(text.contains("rt :: std :: X"), "{text}");
        assert!(text.contains(":: serde_json :: Value"), "{text}");
        assert!(text.contains("{ std (x) }"), "{text}");
    }
}
