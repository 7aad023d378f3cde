//! Shared by the generated crate's tests: the spec's IR and validators of the checked-in
//! schemas, resolving `$ref`s between the files locally.

#![allow(dead_code)]

use covenant_codegen::ir::Spec;
use jsonschema::{Retrieve, Uri, Validator};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn spec() -> Spec {
    let path = crate_dir().join("../spec/health.covenant");
    let (file, checked) = covenant_codegen::check_path(&path).expect("read the spec");
    checked
        .spec
        .unwrap_or_else(|| panic!("{}", checked.diagnostics.render(&file)))
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Serves `$ref`s under the schema base from the schemas folder, and nothing else.
struct LocalSchemas {
    base: String,
    root: PathBuf,
}

impl Retrieve for LocalSchemas {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let relative = uri
            .as_str()
            .strip_prefix(&self.base)
            .ok_or_else(|| format!("{} is outside the generated schemas", uri.as_str()))?;
        let text = std::fs::read_to_string(self.root.join(relative))?;
        Ok(serde_json::from_str(&text)?)
    }
}

/// A validator of one checked-in schema file, formats asserted.
pub fn schema_validator(spec: &Spec, relative: &str) -> Validator {
    let root = crate_dir().join("schemas");
    let schema = read_json(&root.join(relative));
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_retriever(LocalSchemas {
            base: covenant_codegen::emit::schema_base(spec),
            root,
        })
        .build(&schema)
        .unwrap_or_else(|e| panic!("schemas/{relative}: {e}"))
}

use covenant_runtime::contract::BodyMedia;
use covenant_runtime::desc::Location;
use covenant_runtime::server::axum;
use health_api::descriptors::Endpoint;

/// Serves a router on a loopback port for the rest of the test; answers its base URL.
pub async fn serve(router: axum::Router) -> String {
    let spawned = covenant_runtime::server::spawn(router).await;
    spawned.expect("serve on loopback").detach()
}

/// Serves the generated router over a mock, for the rest of the test; answers its base URL.
pub async fn serve_with(
    mock: health_api::mock::MockServer,
    config: covenant_runtime::server::Config,
) -> String {
    serve(health_api::server::router(
        std::sync::Arc::new(mock),
        config,
    ))
    .await
}

/// Serves the generated router over [`mock`].
pub async fn serve_mock(config: covenant_runtime::server::Config) -> String {
    serve_with(mock(), config).await
}

/// The mock with one key per scheme: `<scheme>-key`.
pub fn mock() -> health_api::mock::MockServer {
    use health_api::operations::AuthScheme;
    AuthScheme::ALL
        .iter()
        .fold(health_api::mock::MockServer::new(), |m, s| {
            m.with_key(&key_of(*s), *s)
        })
}

pub fn key_of(scheme: health_api::operations::AuthScheme) -> String {
    format!("{}-key", scheme.name())
}

/// A raw request laid out from an endpoint's descriptor and a JSON input, with exactly the
/// headers given: no credentials are added.
pub fn raw_request(
    http: &reqwest::Client,
    base: &str,
    endpoint: &Endpoint,
    input: &Value,
    headers: &[(&str, String)],
) -> reqwest::RequestBuilder {
    let mut path = endpoint.path.to_string();
    let mut query: Vec<(String, String)> = Vec::new();
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for p in endpoint.params {
        let Some(v) = input.get(p.field.name).filter(|v| !v.is_null()) else {
            continue;
        };
        match p.location {
            Location::Path => {
                let text = text(v);
                let encoded = covenant_runtime::contract::encode_segment(&text);
                path = path.replace(&format!("{{{}}}", p.field.name), &encoded);
            }
            Location::Query => match v {
                Value::Array(items) => {
                    query.extend(items.iter().map(|i| (p.field.name.to_string(), text(i))))
                }
                v => query.push((p.field.name.to_string(), text(v))),
            },
            Location::Header => query.push((format!("header:{}", p.field.name), text(v))),
        }
    }
    let qs: Vec<String> = query
        .iter()
        .filter(|(k, _)| !k.starts_with("header:"))
        .map(|(k, v)| {
            format!(
                "{k}={}",
                v.bytes()
                    .map(|b| if b.is_ascii_alphanumeric() {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    })
                    .collect::<String>()
            )
        })
        .collect();
    let url = if qs.is_empty() {
        format!("{base}{path}")
    } else {
        format!("{base}{path}?{}", qs.join("&"))
    };
    let method = endpoint.method.clone();
    let mut request = http.request(method, url);
    for (k, v) in query
        .iter()
        .filter_map(|(k, v)| k.strip_prefix("header:").map(|k| (k, v)))
    {
        request = request.header(k, v);
    }
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    if endpoint.body.is_some()
        && let Some(body) = input.get("body")
    {
        request = match endpoint.body_media {
            BodyMedia::Form => request
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form_text(body)),
            _ => request.json(body),
        };
    }
    request
}

/// A body object as form fields: scalars as text, a list one pair per item, null left out
/// (a form has no null).
fn form_text(body: &Value) -> String {
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (name, value) in body.as_object().into_iter().flatten() {
        let items: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            scalar => vec![scalar],
        };
        for item in items.into_iter().filter(|v| !v.is_null()) {
            match item {
                Value::String(s) => form.append_pair(name, s),
                other => form.append_pair(name, &other.to_string()),
            };
        }
    }
    form.finish()
}

/// Sends and reads the status and body: JSON as it is (`null` when empty), a body of another
/// media type (an HTML page) as a string.
pub async fn send(request: reqwest::RequestBuilder) -> (u16, Value, reqwest::header::HeaderMap) {
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let json = headers
        .get("content-type")
        .is_none_or(|t| t.to_str().is_ok_and(|t| t.starts_with("application/json")));
    let text = response.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else if !json {
        Value::String(text)
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("non-JSON body {text:?}: {e}"))
    };
    (status, body, headers)
}

/// The credential headers that satisfy an endpoint's required auth (every scheme of the
/// service spec travels in a named header).
pub fn good_credentials(endpoint: &Endpoint) -> Vec<(&'static str, String)> {
    endpoint
        .auth_any_of
        .first()
        .map(|s| vec![(header_of(*s), key_of(s.primary()))])
        .unwrap_or_default()
}

/// The header a scheme of the service spec travels in: each is a named header.
pub fn header_of(scheme: health_api::operations::AuthScheme) -> &'static str {
    match scheme.carrier() {
        covenant_runtime::desc::Carrier::Header(name) => name,
        other => panic!("{scheme:?} travels as {other:?}, not in a named header"),
    }
}

pub fn descriptor(name: &str) -> &'static Endpoint {
    health_api::descriptors::ENDPOINTS
        .iter()
        .find(|e| e.name == name)
        .copied()
        .expect("endpoint descriptor")
}
