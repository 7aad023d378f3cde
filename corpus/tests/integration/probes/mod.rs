//! Requests of every endpoint of a spec, well-formed and not, to compare two servers of it.

use base64::Engine;
use covenant_codegen::ir::{BodyMedia, Carrier, Endpoint, ParamLocation, Spec};
use covenant_codegen::samples::Samples;
use covenant_runtime::text::plain;
use serde_json::{Value, json};

/// One request, relative to a server's address.
#[derive(Debug)]
pub struct Probe {
    what: String,
    method: reqwest::Method,
    path: String,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    content_type: String,
}

/// What a server answered: status, headers and body (as JSON when it is JSON).
#[derive(Debug, PartialEq)]
pub struct Answer {
    status: u16,
    /// Every header but those that differ between two answers of one server.
    headers: Vec<(String, String)>,
    body: Value,
}

/// Headers that change from one response to the next whatever the server.
const PER_RESPONSE: &[&str] = &["date", "x-request-id"];

impl Probe {
    /// The endpoint and what the probe tries.
    pub fn what(&self) -> &str {
        &self.what
    }

    pub async fn send(&self, http: &reqwest::Client, base: &str) -> Answer {
        let query: Vec<String> = self
            .query
            .iter()
            .map(|(k, v)| format!("{}={}", url_segment(k), url_segment(v)))
            .collect();
        let separator = if query.is_empty() { "" } else { "?" };
        let url = format!("{base}{}{separator}{}", self.path, query.join("&"));
        let mut request = http.request(self.method.clone(), url);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(body) = &self.body {
            request = request
                .header("content-type", &self.content_type)
                .body(body.clone());
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let mut headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .filter(|(name, _)| !PER_RESPONSE.contains(&name.as_str()))
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.to_string(), value)
            })
            .collect();
        headers.sort();
        let text = response.text().await.expect("a body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Answer {
            status,
            headers,
            body,
        }
    }
}

/// The probes of every endpoint of `spec`. The i-th auth scheme's key is `key:i`.
pub fn of(spec: &Spec) -> Vec<Probe> {
    let samples = Samples::new(spec);
    spec.endpoints
        .iter()
        .flat_map(|ep| endpoint_probes(spec, &samples, ep))
        .collect()
}

fn endpoint_probes(spec: &Spec, samples: &Samples, ep: &Endpoint) -> Vec<Probe> {
    let valid = samples.endpoint_input(ep);
    let credential = ep.auth.any_of.first().map(|id| {
        let scheme = &spec.auth_schemes[id.0 as usize];
        (scheme.carrier.clone(), format!("key:{}", id.0))
    });
    let probe = |what: &str, input: &Value, credential: Option<(Carrier, String)>| {
        laid_out(spec, ep, what, input, credential)
    };
    let mut out = vec![probe("valid input", &valid, credential.clone())];
    if let Some((carrier, _)) = &credential {
        out.push(probe("no credentials", &valid, None));
        out.push(probe(
            "an unknown key",
            &valid,
            Some((carrier.clone(), "unknown:key".into())),
        ));
    }
    let junk_params: serde_json::Map<String, Value> = ep
        .params
        .iter()
        .map(|p| (p.field.name.clone(), json!("junk value")))
        .collect();
    out.push(probe(
        "every parameter junk",
        &Value::Object(junk_params),
        credential.clone(),
    ));
    if ep.body.is_some() {
        for (what, body) in [
            ("an empty object body", json!({})),
            ("an array body", json!([])),
            ("a string body", json!("text")),
        ] {
            let mut input = valid.clone();
            input["body"] = body;
            out.push(probe(what, &input, credential.clone()));
        }
        if let Some(fields) = valid.get("body").and_then(Value::as_object) {
            let junk: serde_json::Map<String, Value> = fields
                .keys()
                .map(|k| (k.clone(), json!({"junk": [1, "two"]})))
                .collect();
            let mut input = valid.clone();
            input["body"] = Value::Object(junk);
            out.push(probe("every body field junk", &input, credential.clone()));
        }
        let mut broken = probe("a body that is not JSON", &valid, credential.clone());
        broken.body = Some(b"{\"a\": tru".to_vec());
        out.push(broken);
    }
    out
}

/// Lays an input out as a request: path placeholders, query pairs, headers and the body.
fn laid_out(
    spec: &Spec,
    ep: &Endpoint,
    what: &str,
    input: &Value,
    credential: Option<(Carrier, String)>,
) -> Probe {
    let mut path = ep.path.clone();
    let mut query = Vec::new();
    let mut headers = Vec::new();
    let mut multipart_type = None;
    if let Some((carrier, key)) = credential {
        match (&carrier, carrier.header_value(&key)) {
            (_, Some((header, value))) => headers.push((header.to_string(), value)),
            (Carrier::Query(name), None) => query.push((name.clone(), key)),
            _ => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(&key);
                headers.push(("Authorization".to_string(), format!("Basic {encoded}")));
            }
        }
    }
    for p in &ep.params {
        let Some(value) = input.get(&p.field.name) else {
            continue;
        };
        let values: Vec<String> = match value {
            Value::Array(items) => items.iter().map(plain).collect(),
            Value::Null => continue,
            other => vec![plain(other)],
        };
        let name = p.field.name.clone();
        match p.location {
            ParamLocation::Path => {
                let encoded: String = url_segment(values.first().map_or("", String::as_str));
                path = path.replace(&format!("{{{name}}}"), &encoded);
            }
            ParamLocation::Query => query.extend(values.into_iter().map(|v| (name.clone(), v))),
            ParamLocation::Header => headers.extend(values.into_iter().map(|v| (name.clone(), v))),
        }
    }
    Probe {
        what: format!("{} {}: {what}", ep.method.as_str(), ep.path),
        method: reqwest::Method::from_bytes(ep.method.as_str().as_bytes()).unwrap(),
        path,
        query,
        headers,
        body: input.get("body").map(|body| match &ep.body_media {
            // A request body is never streamed: `check` refuses it.
            BodyMedia::Json | BodyMedia::JsonAs(_) | BodyMedia::Stream(_) => {
                body.to_string().into_bytes()
            }
            BodyMedia::Form => form(body).into_bytes(),
            BodyMedia::Multipart => {
                let (content_type, bytes) = multipart(spec, ep, body);
                multipart_type = Some(content_type);
                bytes
            }
            BodyMedia::Raw(_) => raw(ep, body),
        }),
        content_type: multipart_type.unwrap_or_else(|| ep.body_media.content_type().to_string()),
    }
}

/// A body as parts, as the generated client writes one (a malformed probe: as JSON text).
fn multipart(spec: &Spec, ep: &Endpoint, body: &Value) -> (String, Vec<u8>) {
    use covenant_codegen::ir::{Primitive, Type};
    use covenant_runtime::multipart::{PartKind, encode, parts_of};
    let kind_of = |name: &str| match spec.part_type(ep, name) {
        Some(Type::Primitive(Primitive::File)) => PartKind::File,
        Some(Type::Primitive(Primitive::Bytes)) => PartKind::Bytes,
        _ => PartKind::Text,
    };
    match parts_of(body, kind_of) {
        Ok(parts) => encode(&parts),
        Err(_) => encode(&[covenant_runtime::multipart::Part::text(
            "body",
            body.to_string(),
        )]),
    }
}

/// A body written as it is: its text, or the bytes its base64 stands for.
fn raw(ep: &Endpoint, body: &Value) -> Vec<u8> {
    let text = plain(body);
    let bytes = ep.body
        == Some(covenant_codegen::ir::Type::Primitive(
            covenant_codegen::ir::Primitive::Bytes,
        ));
    match base64::engine::general_purpose::STANDARD.decode(&text) {
        Ok(decoded) if bytes => decoded,
        _ => text.into_bytes(),
    }
}

/// A body as form fields, as the generated client writes one; anything but an object (a
/// malformed probe) as its JSON text.
fn form(body: &Value) -> String {
    match body {
        Value::Object(fields) => covenant_runtime::text::form_encode(fields),
        other => other.to_string(),
    }
}

/// A path segment or query component, percent-encoded by the toolkit's one set (everything
/// but RFC 3986's unreserved characters).
fn url_segment(s: &str) -> String {
    covenant_runtime::contract::encode_segment(s).into_owned()
}
