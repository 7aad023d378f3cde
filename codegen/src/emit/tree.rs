//! The whole tree `covenant generate` writes: the crate's files around the Rust modules,
//! the JSON Schemas and the OpenAPI documents (each written on a thread of its own), and
//! the reference site.

use super::{Files, Settings, docs, openapi, rust, schema};
use crate::ir::{Provenance, Spec, all_responses, response_provenance};

pub fn generate(spec: &Spec, settings: &Settings) -> Files {
    // The Rust code, the schemas and the OpenAPI documents share nothing but the spec: each
    // is written on a thread of its own (token streams stay on the thread that made them).
    std::thread::scope(|scope| {
        let schemas = scope.spawn(|| schema_files(spec));
        let documents = scope.spawn(|| openapi::documents(spec));
        let mut files = rust_files(spec, settings);
        files.extend(
            schemas
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
        );
        files.extend(
            documents
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
        );
        files
    })
}

/// The parts written on the thread that writes the models, the others on a second thread:
/// about half the text each on large specs (Kubernetes' operations alone are 9 MB of 21).
const BESIDE_MODELS: [rust::Part; 3] = [
    rust::Part::Descriptors,
    rust::Part::Client,
    rust::Part::Mock,
];

/// A module written out: its name, the cargo feature it needs, its summary and its text.
type ModuleText = (&'static str, Option<&'static str>, &'static str, String);

/// The generated crate's sources. The modules are written on two threads, each with a
/// backend of its own (token streams cannot cross threads): the operations, server, events
/// and limits on one, which hands over the unions they meet once their tokens are written;
/// the [`BESIDE_MODELS`] parts on the other, which then writes the models with those unions
/// and its own. The files are the same as one backend writes.
fn rust_files(spec: &Spec, settings: &Settings) -> Files {
    use rust::{GeneratedModule, Part, RustBackend};
    let render = |m: GeneratedModule| -> ModuleText {
        let text = rust::render_file(&m.file, &settings.spec_name);
        (m.name, m.feature, m.summary, text)
    };
    let (models, mine, theirs) = std::thread::scope(|scope| {
        let (send_unions, unions) = std::sync::mpsc::channel();
        let other = scope.spawn(move || {
            let mut rust = RustBackend::new(spec, &settings.rust);
            let parts: Vec<Part> = (Part::ALL.into_iter())
                .filter(|part| !BESIDE_MODELS.contains(part))
                .collect();
            let written = rust.written_parts(&parts);
            // Sent before parsing, so the models are written meanwhile.
            let _ = send_unions.send(rust.take_unions());
            let rendered: Vec<ModuleText> =
                written.into_iter().map(|w| render(w.parse())).collect();
            rendered
        });
        let mut rust = RustBackend::new(spec, &settings.rust);
        let mine: Vec<ModuleText> = rust.parts(&BESIDE_MODELS).into_iter().map(render).collect();
        // None only when the other thread panicked, which its join reports.
        if let Ok(unions) = unions.recv() {
            rust.add_unions(unions);
        }
        let models = render(rust.models_module());
        let theirs = other
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (models, mine, theirs)
    });
    // The crate lists its modules as one backend writes them: models first, then each part.
    let mut parts: Vec<ModuleText> = mine.into_iter().chain(theirs).collect();
    parts.sort_by_key(|(name, ..)| Part::ALL.iter().position(|part| part.name() == *name));
    let modules: Vec<ModuleText> = std::iter::once(models).chain(parts).collect();
    let mut files = Files::new();
    files.insert(
        "src/lib.rs".into(),
        lib_rs(spec, &settings.spec_name, &modules),
    );
    for (name, _, _, text) in modules {
        files.insert(format!("src/{name}.rs"), text);
    }
    files
}

/// The folder of the output the reference site goes in when generation writes it too.
pub const DOCS_DIR: &str = "docs";

/// The reference site as files of the output folder, under [`DOCS_DIR`].
pub fn docs_files(spec: &Spec, settings: &Settings) -> Files {
    let docs = docs::DocsSettings {
        spec_name: settings.spec_name.clone(),
    };
    docs::site(spec, &docs)
        .into_iter()
        .map(|(path, page)| (format!("{DOCS_DIR}/{path}"), page))
        .collect()
}

/// The base of every schema `$id`. The `.invalid` domain (RFC 2606) is never resolved:
/// the ids name the files; tools resolve `$ref`s between them locally.
pub fn schema_base(spec: &Spec) -> String {
    use heck::ToKebabCase;
    format!(
        "https://schemas.invalid/{}/",
        spec.service.name.to_kebab_case()
    )
}

/// One schema file per model shape, enum, event, endpoint request body and response status.
pub fn schema_files(spec: &Spec) -> Files {
    let shapes = crate::ir::shapes::Shapes::new(spec);
    let base = schema_base(spec);
    let mut files = Files::new();
    let mut put = |path: String, schema: serde_json::Value| {
        files.insert(format!("schemas/{path}"), schema_file(&base, &path, schema));
    };
    let top = schema::SchemaBuilder {
        spec,
        shapes: &shapes,
        style: schema::RefStyle::Files { depth: 1 },
    };
    for (id, shape) in shapes.all() {
        put(
            format!("models/{}.json", shapes.name(id, shape)),
            top.model_schema(id, shape),
        );
    }
    for e in &spec.enums {
        put(format!("enums/{}.json", e.name), top.enum_schema(e));
    }
    for u in &spec.unions {
        put(format!("types/{}.json", u.name), top.union_schema(u));
    }
    for event in &spec.events {
        put(
            format!("events/{}.json", event.name),
            top.event_schema(event),
        );
    }
    let nested = schema::SchemaBuilder {
        spec,
        shapes: &shapes,
        style: schema::RefStyle::Files { depth: 2 },
    };
    for ep in &spec.endpoints {
        if let Some(mut s) = nested.request_body_schema(ep) {
            titled(&mut s, format!("{} request body", ep.name));
            sourced(&mut s, ep.provenance);
            put(format!("endpoints/{}/request.json", ep.name), s);
        }
        for r in all_responses(spec, ep) {
            let mut s = nested
                .response_body_schema(r)
                .unwrap_or_else(|| serde_json::json!({ "description": "No body." }));
            titled(&mut s, format!("{} {} response", ep.name, r.status));
            sourced(&mut s, response_provenance(ep, r));
            put(format!("endpoints/{}/{}.json", ep.name, r.status), s);
            if !r.headers.is_empty() {
                let mut s = headers_schema(&nested, &r.headers);
                titled(&mut s, format!("{} {} response headers", ep.name, r.status));
                put(
                    format!("endpoints/{}/{}.headers.json", ep.name, r.status),
                    s,
                );
            }
        }
    }
    files
}

/// A response's headers as an object keyed by lower-case header name (names compare without
/// case), each value as its type reads from the header's text.
fn headers_schema(
    builder: &schema::SchemaBuilder,
    headers: &[crate::ir::Field],
) -> serde_json::Value {
    let shape = crate::ir::shapes::Shape::Response;
    let properties: serde_json::Map<String, serde_json::Value> = headers
        .iter()
        .map(|h| (h.name.to_ascii_lowercase(), builder.field_schema(h, shape)))
        .collect();
    let required: Vec<String> = headers
        .iter()
        .filter(|h| !h.presence.may_be_absent())
        .map(|h| h.name.to_ascii_lowercase())
        .collect();
    serde_json::json!({
        "description": "Header names are lower case: they compare without case.",
        "type": "object",
        "properties": properties,
        "required": required,
    })
}

fn sourced(schema: &mut serde_json::Value, provenance: Provenance) {
    if let Some(obj) = schema.as_object_mut() {
        schema::put_source(obj, provenance);
    }
}

fn titled(schema: &mut serde_json::Value, title: String) {
    if let Some(obj) = schema.as_object_mut() {
        obj.shift_insert(0, "title".into(), serde_json::Value::String(title));
    }
}

/// A schema file: `$schema` and `$id` first, pretty-printed with a final newline.
fn schema_file(base: &str, path: &str, schema: serde_json::Value) -> String {
    let mut out = serde_json::Map::new();
    out.insert("$schema".into(), schema::DRAFT.into());
    out.insert("$id".into(), format!("{base}{path}").into());
    if let serde_json::Value::Object(fields) = schema {
        out.extend(fields);
    }
    json_text(&serde_json::Value::Object(out))
}

/// Stable JSON text: two-space indent, keys in emission order, final newline.
pub fn json_text(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    text.push('\n');
    text
}

/// The crate root: each module, by name, feature and summary, listed and declared.
fn lib_rs(spec: &Spec, spec_name: &str, modules: &[ModuleText]) -> String {
    let title = spec.service.title.as_deref().unwrap_or(&spec.service.name);
    let mut out = format!(
        "// Generated by `covenant generate` from {spec_name}. Do not edit: change the spec and regenerate.\n\n\
         //! Types, server and client of the {title}, generated from its spec.\n//!\n"
    );
    for (name, feature, summary, _) in modules {
        let gate = feature
            .map(|f| format!(" (feature `{f}`)"))
            .unwrap_or_default();
        out.push_str(&format!("//! - [`{name}`]{gate}: {summary}.\n"));
    }
    out.push_str(
        "\n// Formatted by prettyplease when generated; rustfmt would disagree with it.\n",
    );
    for (name, feature, _, _) in modules {
        if let Some(f) = feature {
            out.push_str(&format!("#[cfg(feature = \"{f}\")]\n"));
        }
        out.push_str(&format!("#[rustfmt::skip]\npub mod {name};\n"));
    }
    out
}
