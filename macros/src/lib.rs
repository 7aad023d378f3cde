//! `include_spec!("path/to/spec.covenant")`: the modules `covenant generate` writes, expanded
//! in place at compile time. Thin by design: parsing, validation and emission are
//! `covenant-codegen`'s, so the macro and the CLI cannot disagree.
//!
//! The path is relative to the file that invokes the macro, as with `include_str!`. The
//! expansion is `pub mod models`, `descriptors` and `operations`; `include_spec!("…", server)`
//! adds `server` and `mock`, `include_spec!("…", client)` adds `client`. The invoking crate
//! needs `covenant-runtime` (with its `server` or `client` feature for those), `serde`,
//! `serde_json` and `regex`.

use proc_macro::TokenStream;
use proc_macro2::Span;
use std::path::{Path, PathBuf};
use syn::LitStr;
use syn::parse::{Parse, ParseStream};

/// `"path"` optionally followed by `, server` and/or `, client`.
struct Input {
    path: LitStr,
    halves: Vec<syn::Ident>,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let path: LitStr = input.parse()?;
        let mut halves = Vec::new();
        while input.parse::<Option<syn::Token![,]>>()?.is_some() {
            if input.is_empty() {
                break;
            }
            let half: syn::Ident = input.parse()?;
            if half != "server" && half != "client" {
                return Err(syn::Error::new(
                    half.span(),
                    "expected `server` or `client`",
                ));
            }
            halves.push(half);
        }
        Ok(Input { path, halves })
    }
}

/// Expands to the models of a spec: one struct per model and shape, one enum per enum,
/// `validate()`, and the name-based `parse_and_validate`.
///
/// ```ignore
/// mod shop {
///     covenant_macros::include_spec!("../spec/examples/bookshop.covenant");
/// }
/// ```
#[proc_macro]
pub fn include_spec(input: TokenStream) -> TokenStream {
    let Input {
        path: literal,
        halves,
    } = syn::parse_macro_input!(input as Input);
    let base = literal
        .span()
        .unwrap()
        .local_file()
        .and_then(|file| file.parent().map(Path::to_path_buf));
    let wanted: Vec<String> = halves.iter().map(ToString::to_string).collect();
    match expand(&literal, base, &wanted) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The expansion, or a compile error at the literal. `base` is the invoking file's folder.
fn expand(
    literal: &LitStr,
    base: Option<PathBuf>,
    halves: &[String],
) -> syn::Result<proc_macro2::TokenStream> {
    let written = literal.value();
    let path = resolve(&written, base);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        syn::Error::new(
            literal.span(),
            format!("cannot read spec `{written}` (relative to this file): {e}"),
        )
    })?;
    let file = covenant_codegen::SourceFile::new(written.clone(), text);
    let checked = covenant_codegen::check_source(&file);
    let Some(spec) = checked.spec else {
        return Err(spec_error(literal.span(), &file, &checked.diagnostics));
    };
    let settings = covenant_codegen::emit::rust::RustSettings::default();
    let modules = covenant_codegen::emit::rust::RustBackend::new(&spec, &settings).modules();
    let included = modules
        .into_iter()
        .filter(|m| m.feature.is_none_or(|f| halves.iter().any(|h| h == f)));
    let items = included.map(|m| {
        let name = syn::Ident::new(m.name, Span::call_site());
        let file = m.file;
        // The generated code uses the spec's deprecated items itself; a user's own uses of them
        // still warn, at the user's code.
        quote::quote!(#[allow(deprecated)] pub mod #name { #file })
    });
    let tracked = path.display().to_string();
    Ok(quote::quote! {
        #(#items)*
        // Rebuild when the spec changes.
        const _: &[u8] = include_bytes!(#tracked);
    })
}

/// The spec's diagnostics as one compile error: the first problem's `file:line:col` and
/// message on the first line, the rendered diagnostics below.
fn spec_error(
    span: Span,
    file: &covenant_codegen::SourceFile,
    diags: &covenant_codegen::Diagnostics,
) -> syn::Error {
    let first = diags.items.iter().find(|d| d.is_error());
    let headline = match first {
        Some(d) => format!("invalid spec: {}: {}", file.location(d.span), d.message),
        None => "invalid spec".to_string(),
    };
    syn::Error::new(
        span,
        format!("{headline}\n\n{}", diags.render(file).trim_end()),
    )
}

/// An absolute path, because `include_bytes!` in the expansion resolves a relative one
/// against the invoking file, not against rustc's working folder where `local_file()`'s
/// relative paths start (cargo passes workspace members' files relative to the workspace).
fn resolve(written: &str, base: Option<PathBuf>) -> PathBuf {
    let written = Path::new(written);
    if written.is_absolute() {
        return written.to_path_buf();
    }
    let base = base
        .unwrap_or_else(|| PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()));
    let joined = base.join(written);
    let absolute = if joined.is_absolute() {
        joined
    } else {
        std::env::current_dir().map_or(joined.clone(), |cwd| cwd.join(&joined))
    };
    absolute.canonicalize().unwrap_or(absolute)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn expansion_equals_the_checked_in_generated_modules() {
        let literal = LitStr::new("../spec/health.covenant", Span::call_site());
        let halves = ["server".to_string(), "client".to_string()];
        let tokens =
            expand(&literal, Some(manifest_dir()), &halves).expect("the service spec expands");
        let mut file: syn::File = syn::parse2(tokens).expect("the expansion parses");
        let tracker = file
            .items
            .pop()
            .expect("the include_bytes! tracker comes last");
        assert!(
            quote::quote!(#tracker)
                .to_string()
                .contains("include_bytes")
        );
        let mut seen = Vec::new();
        for item in file.items {
            let syn::Item::Mod(module) = item else {
                panic!("only modules are expanded")
            };
            let name = module.ident.to_string();
            let items = module.content.expect("inline module").1;
            let expanded = prettyplease::unparse(&syn::File {
                shebang: None,
                attrs: Vec::new(),
                items,
            });
            let path = manifest_dir().join(format!("../generated/src/{name}.rs"));
            let checked_in = std::fs::read_to_string(&path).unwrap();
            let body = checked_in.split_once("\n\n").map(|(_, body)| body).unwrap();
            assert!(
                expanded == body,
                "the macro and `covenant generate` disagree on {name}; run `cargo run -- generate`"
            );
            seen.push(name);
        }
        assert_eq!(
            seen,
            [
                "models",
                "descriptors",
                "operations",
                "server",
                "client",
                "mock",
                "events",
                "limits"
            ]
        );
    }

    #[test]
    fn halves_are_opt_in() {
        let literal = LitStr::new("../spec/examples/bookshop.covenant", Span::call_site());
        let tokens = expand(&literal, Some(manifest_dir()), &[])
            .unwrap()
            .to_string();
        assert!(tokens.contains("pub mod models") && tokens.contains("pub mod operations"));
        assert!(!tokens.contains("pub mod server") && !tokens.contains("pub mod client"));
    }

    #[test]
    fn spec_errors_name_the_location() {
        let dir = std::env::temp_dir().join(format!("covenant-macro-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.covenant"), "model A {\n    b: Missing\n}\n").unwrap();
        let literal = LitStr::new("bad.covenant", Span::call_site());
        let message = expand(&literal, Some(dir.clone()), &[])
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("invalid spec: bad.covenant:2:8: unknown type `Missing`"),
            "{message}"
        );
        assert!(message.contains("--> bad.covenant:2:8"), "{message}");
        std::fs::remove_dir_all(dir).ok();
    }
}
