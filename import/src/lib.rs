//! `covenant import`: an OpenAPI 3.0 or 3.1 or Swagger 2.0 document (JSON or YAML) read into
//! a spec. The spec is built as the language's own parse tree and printed in `fmt`'s layout;
//! whatever the spec cannot state exactly is written as close as it can be, marked in place
//! with `@lossy("#/json/pointer", "…")`, and listed in the [`Report`].
//!
//! ```
//! let document = r#"{"openapi": "3.0.3", "info": {"title": "Pets", "version": "1"},
//!   "paths": {"/pets/{id}": {"get": {"operationId": "getPet",
//!     "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
//!     "responses": {"200": {"description": "A pet", "content": {"application/json":
//!       {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}}}}}}"#;
//! let imported = covenant_import::import("pets.json", document).unwrap();
//! assert!(imported.spec.contains("endpoint get_pet: GET \"/pets/{id}\" {"));
//! assert_eq!(imported.report.summary(), "imported 1 operations: 1 stated fully, 0 with losses, 0 left out");
//! ```

mod build;
mod document;
mod faults;
mod importer;
mod losses;
mod media;
mod named_types;
mod names;
mod operations;
mod parameters;
mod rejections;
mod responses;
mod schemas;
mod security;
mod swagger;
mod types;

pub use document::{Dialect, ImportError, MAX_DEPTH};
pub use losses::{Completeness, Loss, OperationReport, Report};

use build::*;
use covenant_codegen::ast::{Attrs, File, Item, ItemKind, PropBlock};
use covenant_codegen::print::print_file;
use importer::Importer;
use serde_json::Value;

/// A spec made from a document, and the account of what it could not say.
pub struct Imported {
    pub spec: String,
    pub report: Report,
}

/// Imports the document `text`, named `source` in the spec's header and the report.
pub fn import(source: &str, text: &str) -> Result<Imported, ImportError> {
    let document = document::read(text)?;
    let dialect = document::dialect(&document)?;
    let document = match dialect {
        Dialect::Swagger2 => swagger::upgrade(&document),
        _ => document,
    };
    Ok(import_document(source, &document, dialect))
}

fn import_document(source: &str, document: &Value, dialect: Dialect) -> Imported {
    let mut importer = Importer::new(document, dialect);
    let mut items = vec![service(document)];
    items.push(api(&mut importer, document));
    importer.name_endpoints();
    importer.declare_components();
    let mut schemes = importer.read_schemes();
    let mut operations = importer.operations(&mut schemes);
    items.extend(security::auth_items(schemes));
    let api_rejections = importer.rejections_model();
    if let Some(model) = &api_rejections
        && let Some(ItemKind::Api(api)) = items.get_mut(1).map(|i| &mut i.kind)
    {
        api.props
            .push(prop("rejections", vec![reference(model.clone())]));
    }
    importer.endpoint_rejections(api_rejections.as_deref(), &mut operations);
    let mut report = Report {
        source: source.to_string(),
        ..Report::default()
    };
    for written in operations {
        if let Some(item) = written.item {
            items.push(item);
        }
        report.operations.push(written.report);
    }
    items.append(&mut importer.type_items);
    if document
        .get("tags")
        .and_then(Value::as_array)
        .is_some_and(|tags| tags.iter().any(|t| t.get("description").is_some()))
    {
        importer.owner = String::new();
        let marker = importer.lose("#/tags", "descriptions of tags", "left out");
        if let Some(first) = items.first_mut() {
            first.attrs.annotations.push(marker);
        }
    }
    for keyword in ["webhooks", "x-webhooks"] {
        if document
            .get(keyword)
            .is_some_and(|w| w.as_object().is_some_and(|m| !m.is_empty()))
        {
            importer.owner = String::new();
            let marker = importer.lose(&format!("#/{keyword}"), "webhooks", "left out");
            if let Some(first) = items.first_mut() {
                first.attrs.annotations.push(marker);
            }
        }
    }
    // A schema read twice (a request's and an answer's) loses the same thing twice: the
    // report names each loss once.
    let mut seen = std::collections::HashSet::new();
    let left_out = report
        .operations
        .iter()
        .filter(|op| op.status == Completeness::LeftOut)
        .flat_map(|op| op.losses.iter());
    (report.faults, report.losses) = importer
        .losses
        .iter()
        .map(|(_, l)| l)
        .chain(left_out)
        .filter(|l| seen.insert((*l).clone()))
        .cloned()
        .partition(|loss| loss.fault);
    let header = format!(
        "Imported from {source} by `covenant import`.\n`@lossy` marks what the spec states less exactly than the document."
    );
    let spec = print_file(&File { items }, Some(&header));
    Imported { spec, report }
}

/// The `service` item: title, version and description of `info`.
fn service(document: &Value) -> Item {
    let info = document.get("info").cloned().unwrap_or(Value::Null);
    let text = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_string);
    let title = text("title").unwrap_or_else(|| "Imported API".to_string());
    let mut names = names::Names::default();
    let name = names.type_name(&title);
    let mut props = vec![prop("title", vec![str_value(title)])];
    props.push(prop(
        "version",
        vec![str_value(
            text("version").unwrap_or_else(|| "0".to_string()),
        )],
    ));
    item(
        Attrs {
            doc: text("description")
                .map(|d| d.trim().to_string())
                .filter(|d| !d.is_empty()),
            annotations: Vec::new(),
        },
        ItemKind::Service(PropBlock {
            name: ident(name),
            props,
        }),
    )
}

/// The one `api`, at the document's first server.
fn api(importer: &mut Importer, document: &Value) -> Item {
    let servers = document.get("servers").and_then(Value::as_array);
    let mut annotations = Vec::new();
    let first = servers.and_then(|s| s.first());
    let url = first.and_then(|s| s.get("url")).and_then(Value::as_str);
    let whole_placeholder =
        url.is_some_and(|u| u.starts_with('{') && u.ends_with('}') && u.matches('{').count() == 1);
    let base = match url {
        // `{base_url}`: the address is the deployment's, as the spec's own placeholder says.
        Some(url) if whole_placeholder => url.to_string(),
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            let mut base = url.trim_end_matches('/').to_string();
            if let Some(Value::Object(variables)) = first.and_then(|s| s.get("variables")) {
                for (name, variable) in variables {
                    let default = variable
                        .get("default")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    base = base.replace(&format!("{{{name}}}"), default);
                }
                annotations.push(importer.lose(
                    "#/servers/0/variables",
                    "server variables",
                    "their defaults",
                ));
            }
            base
        }
        Some(other) => {
            annotations.push(importer.lose(
                "#/servers/0/url",
                format!("the relative server address `{other}`"),
                "an address the deployment gives",
            ));
            "{base_url}".to_string()
        }
        None => "{base_url}".to_string(),
    };
    if servers.is_some_and(|s| s.len() > 1) {
        annotations.push(importer.lose("#/servers", "further servers", "the first alone"));
    }
    item(
        Attrs {
            doc: None,
            annotations,
        },
        ItemKind::Api(covenant_codegen::ast::ApiDecl {
            name: ident("main"),
            props: vec![prop("base", vec![str_value(base)])],
            errors: Vec::new(),
            headers: Vec::new(),
        }),
    )
}
