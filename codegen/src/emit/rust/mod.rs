//! The Rust backend: the generated crate's modules (models, operations, descriptors, server,
//! client, mock, events, limits), each printed by a module of its own here.

mod builders;
mod client;
mod descriptors;
mod enums;
mod events;
mod limits;
mod mock;
mod models;
pub mod names;
mod operations;
mod pages;
mod parts;
mod paths;
mod principals;
mod server;
pub mod validate;

use crate::ir::*;
use names::{field_ident, type_ident};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

use crate::ir::shapes::Shapes;
pub use crate::ir::shapes::{Shape, in_shape};
pub use models::{DefaultImpl, impl_default, union_name};
pub(crate) use models::{default_fn_path, deprecated_attr};

/// Settings of the Rust emitter.
#[derive(Clone, Debug)]
pub struct RustSettings {
    /// The runtime crate's path; generated modules alias it as `rt`.
    pub runtime_crate: String,
}

impl Default for RustSettings {
    fn default() -> Self {
        RustSettings {
            runtime_crate: "::covenant_runtime".to_string(),
        }
    }
}

/// Everything the emitter derives from the spec before writing code.
pub struct RustBackend<'a> {
    spec: &'a Spec,
    rt: TokenStream,
    /// The runtime crate, aliased as `rt` at the top of each module.
    crate_path: TokenStream,
    /// The runtime path as text, for serde attributes that take paths in strings.
    rt_path: String,
    shapes: Shapes<'a>,
    /// Union types met in fields, by generated name.
    unions: BTreeMap<String, Vec<Type>>,
    /// Unions written alike in more than one place, with the one name they share.
    shared_unions: Vec<(Vec<Type>, String)>,
    /// The static each distinct pattern compiles into, by pattern.
    patterns: BTreeMap<String, Ident>,
    /// Models that contain themselves: held in a `Box` wherever a value holds them in place.
    boxed: std::collections::HashSet<ModelId>,
    /// Type names the spec's models and enums and the code generated for its endpoints
    /// take, which a union named after its place must not take too.
    taken_names: std::collections::HashSet<String>,
}

impl<'a> RustBackend<'a> {
    pub fn new(spec: &'a Spec, settings: &RustSettings) -> Self {
        let crate_path: TokenStream = settings
            .runtime_crate
            .parse()
            .unwrap_or_else(|_| quote!(::covenant_runtime));
        RustBackend {
            spec,
            rt: quote!(rt),
            crate_path,
            rt_path: "rt".to_string(),
            shapes: Shapes::new(spec),
            unions: BTreeMap::new(),
            shared_unions: names::shared_unions(spec),
            patterns: validate::collect_patterns(spec),
            boxed: spec.self_containing_models(Containment::InPlace),
            taken_names: names::taken_type_names(spec, &Shapes::new(spec)),
        }
    }

    /// The Rust name of a model in a shape.
    pub fn struct_name(&self, id: ModelId, shape: Shape) -> Ident {
        type_ident(&self.shapes.name(id, shape))
    }

    /// Every generated module: name, the cargo feature it needs, contents. Models come last
    /// so that unions met in any module are emitted with them.
    pub fn modules(&mut self) -> Vec<GeneratedModule> {
        let mut rest = self.parts(&Part::ALL);
        let mut modules = vec![self.models_module()];
        modules.append(&mut rest);
        modules
    }

    /// The modules of `parts`, in that order (one with nothing to hold is left out).
    pub fn parts(&mut self, parts: &[Part]) -> Vec<GeneratedModule> {
        let written = self.written_parts(parts);
        written.into_iter().map(WrittenPart::parse).collect()
    }

    /// The token streams of `parts`: every union they meet is known once they are written,
    /// before they are parsed.
    pub fn written_parts(&mut self, parts: &[Part]) -> Vec<WrittenPart> {
        parts.iter().filter_map(|part| self.part(*part)).collect()
    }

    fn part(&mut self, part: Part) -> Option<WrittenPart> {
        let (feature, summary, tokens) = match part {
            Part::Descriptors => {
                let crate_path = self.crate_path.clone();
                let descriptors = self.descriptors();
                let tokens = quote! {
                    #[allow(unused_imports)]
                    use #crate_path as rt;
                    #descriptors
                };
                (
                    None,
                    "static descriptors of types and endpoints, for routers and clients",
                    tokens,
                )
            }
            Part::Operations => (
                None,
                "per endpoint, an `Input` struct and a response enum with one variant per status",
                self.operations(),
            ),
            Part::Server => (
                Some("server"),
                "the server trait and its routers",
                self.server(),
            ),
            Part::Client => (Some("client"), "the typed client", self.client()),
            Part::Mock => (
                Some("server"),
                "a mock implementation of the server trait, answering examples from the spec",
                self.mock(),
            ),
            Part::Events => (
                None,
                "one payload variant per event: the type it is sent as, deliveries written and read",
                self.events()?,
            ),
            Part::Limits => (
                None,
                "the spec's limits with a value as constants, and its rate limits",
                self.limits()?,
            ),
        };
        Some(WrittenPart {
            name: part.name(),
            feature,
            summary,
            tokens,
        })
    }

    /// The models module: written last, as it holds the unions every other module met.
    pub fn models_module(&mut self) -> GeneratedModule {
        GeneratedModule::new(
            "models",
            None,
            "one struct per model and shape, one enum per enum, each with `validate()`",
            self.file(),
        )
    }

    /// The unions met so far, for the backend that writes the models.
    pub fn take_unions(&mut self) -> BTreeMap<String, Vec<Type>> {
        std::mem::take(&mut self.unions)
    }

    /// Unions another backend met, written with this one's models.
    pub fn add_unions(&mut self, unions: BTreeMap<String, Vec<Type>>) {
        self.unions.extend(unions);
    }

    /// The imports every generated module starts with: serde's derives and the runtime as `rt`.
    pub(crate) fn preamble(&self) -> TokenStream {
        let crate_path = &self.crate_path;
        quote! {
            #[allow(unused_imports)]
            use serde::{Deserialize, Serialize};
            #[allow(unused_imports)]
            use #crate_path as rt;
        }
    }
}

/// An endpoint's doc lines, ending with its method and path: the server trait's method and
/// the client's say the same.
pub(crate) fn endpoint_doc(ep: &Endpoint) -> Vec<String> {
    let mut doc: Vec<String> = ep.doc.as_deref().map(doc_lines).unwrap_or_default();
    doc.push(format!(" `{} {}`.", ep.method.as_str(), ep.path));
    doc
}

/// Doc lines (each with a leading space, as `///` would give).
pub(crate) fn doc_lines(text: &str) -> Vec<String> {
    text.lines().map(|l| format!(" {l}")).collect()
}

/// The generated modules besides the models, in the order the crate lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Descriptors,
    Operations,
    Server,
    Client,
    Mock,
    Events,
    Limits,
}

impl Part {
    pub const ALL: [Part; 7] = [
        Part::Descriptors,
        Part::Operations,
        Part::Server,
        Part::Client,
        Part::Mock,
        Part::Events,
        Part::Limits,
    ];

    /// The module's name.
    pub fn name(self) -> &'static str {
        match self {
            Part::Descriptors => "descriptors",
            Part::Operations => "operations",
            Part::Server => "server",
            Part::Client => "client",
            Part::Mock => "mock",
            Part::Events => "events",
            Part::Limits => "limits",
        }
    }
}

/// A module's tokens, not yet parsed.
pub struct WrittenPart {
    name: &'static str,
    feature: Option<&'static str>,
    summary: &'static str,
    tokens: TokenStream,
}

impl WrittenPart {
    pub fn parse(self) -> GeneratedModule {
        GeneratedModule::parse(self.name, self.feature, self.summary, self.tokens)
    }
}

/// One generated module.
pub struct GeneratedModule {
    pub name: &'static str,
    /// The cargo feature that enables it, if it needs one.
    pub feature: Option<&'static str>,
    pub summary: &'static str,
    pub file: syn::File,
}

impl GeneratedModule {
    fn new(
        name: &'static str,
        feature: Option<&'static str>,
        summary: &'static str,
        file: syn::File,
    ) -> Self {
        GeneratedModule {
            name,
            feature,
            summary,
            file,
        }
    }

    fn parse(
        name: &'static str,
        feature: Option<&'static str>,
        summary: &'static str,
        tokens: TokenStream,
    ) -> Self {
        let mut file = syn::parse2(tokens)
            .unwrap_or_else(|e| panic!("generated {name} module does not parse: {e}"));
        paths::make_absolute(&mut file);
        GeneratedModule::new(name, feature, summary, file)
    }
}

/// Formats generated tokens as a Rust file with a header saying where it comes from.
pub fn render_file(file: &syn::File, spec_name: &str) -> String {
    format!(
        "// Generated by `covenant generate` from {spec_name}. Do not edit: change the spec and regenerate.\n\n{}",
        prettyplease::unparse(file)
    )
}
