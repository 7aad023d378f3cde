//! Swagger 2.0 read as the OpenAPI 3 it would be: definitions become components, body and
//! form parameters a request body, `produces` the media types of responses, host and base
//! path a server. The rest of the importer then knows one dialect.

use serde_json::{Map, Value, json};

/// The OpenAPI 3.0 form of a Swagger 2.0 document.
pub fn upgrade(swagger: &Value) -> Value {
    let mut out = Map::new();
    out.insert("openapi".into(), json!("3.0.3"));
    for key in ["info", "tags", "externalDocs", "security"] {
        if let Some(v) = swagger.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(server) = server(swagger) {
        out.insert("servers".into(), json!([{ "url": server }]));
    }
    let consumes = strings(swagger.get("consumes"));
    let produces = strings(swagger.get("produces"));
    let mut paths = Map::new();
    if let Some(Value::Object(items)) = swagger.get("paths") {
        for (path, item) in items {
            paths.insert(path.clone(), path_item(swagger, item, &consumes, &produces));
        }
    }
    out.insert("paths".into(), Value::Object(paths));
    let mut components = Map::new();
    if let Some(definitions) = swagger.get("definitions") {
        components.insert("schemas".into(), rewrite_refs(definitions));
    }
    if let Some(Value::Object(parameters)) = swagger.get("parameters") {
        let converted = parameters
            .iter()
            .map(|(name, p)| (name.clone(), parameter(p)))
            .collect();
        components.insert("parameters".into(), Value::Object(converted));
    }
    if let Some(Value::Object(responses)) = swagger.get("responses") {
        let converted = responses
            .iter()
            .map(|(name, r)| (name.clone(), response(r, &produces)))
            .collect();
        components.insert("responses".into(), Value::Object(converted));
    }
    if let Some(Value::Object(schemes)) = swagger.get("securityDefinitions") {
        let converted = schemes
            .iter()
            .map(|(name, s)| (name.clone(), security_scheme(s)))
            .collect();
        components.insert("securitySchemes".into(), Value::Object(converted));
    }
    out.insert("components".into(), Value::Object(components));
    Value::Object(out)
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn server(swagger: &Value) -> Option<String> {
    let host = swagger.get("host").and_then(Value::as_str)?;
    let scheme = strings(swagger.get("schemes"))
        .into_iter()
        .find(|s| s == "https")
        .unwrap_or_else(|| "https".to_string());
    let base = swagger
        .get("basePath")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim_end_matches('/');
    Some(format!("{scheme}://{host}{base}"))
}

/// `#/definitions/X` becomes `#/components/schemas/X` everywhere below `value`.
fn rewrite_refs(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => Value::String(rewrite_ref(r)),
                        _ => rewrite_refs(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(rewrite_refs).collect()),
        other => other.clone(),
    }
}

fn rewrite_ref(reference: &str) -> String {
    for (from, to) in [
        ("#/definitions/", "#/components/schemas/"),
        ("#/parameters/", "#/components/parameters/"),
        ("#/responses/", "#/components/responses/"),
    ] {
        if let Some(rest) = reference.strip_prefix(from) {
            return format!("{to}{rest}");
        }
    }
    reference.to_string()
}

fn path_item(swagger: &Value, item: &Value, consumes: &[String], produces: &[String]) -> Value {
    let Value::Object(map) = item else {
        return item.clone();
    };
    let shared: Vec<Value> = map
        .get("parameters")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "get" | "put" | "post" | "delete" | "patch" | "head" | "options" => {
                out.insert(
                    key.clone(),
                    operation(swagger, value, &shared, consumes, produces),
                );
            }
            "parameters" => {}
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

fn operation(
    swagger: &Value,
    op: &Value,
    shared: &[Value],
    consumes: &[String],
    produces: &[String],
) -> Value {
    let Value::Object(map) = op else {
        return op.clone();
    };
    let consumes = match map.get("consumes") {
        Some(v) => strings(Some(v)),
        None => consumes.to_vec(),
    };
    let produces = match map.get("produces") {
        Some(v) => strings(Some(v)),
        None => produces.to_vec(),
    };
    let mut out = Map::new();
    for (key, value) in map {
        if !matches!(
            key.as_str(),
            "parameters" | "responses" | "consumes" | "produces" | "schemes"
        ) {
            out.insert(key.clone(), rewrite_refs(value));
        }
    }
    // Operation parameters override path-level ones of the same name and place.
    let own: Vec<Value> = map
        .get("parameters")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut all: Vec<Value> = shared
        .iter()
        .filter(|p| !own.iter().any(|o| same_parameter(o, p)))
        .cloned()
        .collect();
    all.extend(own);
    let mut parameters = Vec::new();
    let mut form = Vec::new();
    let mut body = None;
    for p in all {
        let reference = p.get("$ref").and_then(Value::as_str).map(str::to_string);
        // A shared parameter may be the body: read it where it is declared.
        let p = match &reference {
            Some(r) => r
                .strip_prefix('#')
                .and_then(|pointer| swagger.pointer(pointer))
                .cloned()
                .unwrap_or(p),
            None => p,
        };
        match p.get("in").and_then(Value::as_str) {
            Some("body") => body = Some(p),
            Some("formData") => form.push(p),
            _ => parameters.push(match reference {
                Some(r) => json!({ "$ref": rewrite_ref(&r) }),
                None => parameter(&p),
            }),
        }
    }
    if !parameters.is_empty() {
        out.insert("parameters".into(), Value::Array(parameters));
    }
    if let Some(body) = body {
        out.insert("requestBody".into(), body_request(&body, &consumes));
    } else if !form.is_empty() {
        out.insert("requestBody".into(), form_request(&form, &consumes));
    }
    if let Some(Value::Object(responses)) = map.get("responses") {
        let converted = responses
            .iter()
            .map(|(status, r)| (status.clone(), response(r, &produces)))
            .collect();
        out.insert("responses".into(), Value::Object(converted));
    }
    Value::Object(out)
}

fn same_parameter(a: &Value, b: &Value) -> bool {
    a.get("name").is_some() && a.get("name") == b.get("name") && a.get("in") == b.get("in")
}

/// A non-body parameter: its type and constraints move into `schema`.
fn parameter(p: &Value) -> Value {
    let Value::Object(map) = p else {
        return p.clone();
    };
    if let Some(Value::String(r)) = map.get("$ref") {
        return json!({ "$ref": rewrite_ref(r) });
    }
    let mut out = Map::new();
    let mut schema = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "name" | "in" | "description" | "required" | "deprecated" | "allowEmptyValue" => {
                out.insert(key.clone(), value.clone());
            }
            "collectionFormat" => {
                let (style, explode) = match value.as_str() {
                    Some("csv") => ("form", false),
                    Some("ssv") => ("spaceDelimited", false),
                    Some("pipes") => ("pipeDelimited", false),
                    Some("tsv") => ("tabDelimited", false),
                    _ => ("form", true),
                };
                out.insert("style".into(), json!(style));
                out.insert("explode".into(), json!(explode));
            }
            "x-example" => {
                out.insert("example".into(), value.clone());
            }
            key if key.starts_with("x-") => {
                out.insert(key.to_string(), value.clone());
            }
            _ => {
                schema.insert(key.clone(), rewrite_refs(value));
            }
        }
    }
    // Swagger's arrays default to comma-separated values.
    if schema.get("type").and_then(Value::as_str) == Some("array") && !out.contains_key("style") {
        out.insert("style".into(), json!("form"));
        out.insert("explode".into(), json!(false));
    }
    out.insert("schema".into(), Value::Object(schema));
    Value::Object(out)
}

fn body_request(body: &Value, consumes: &[String]) -> Value {
    let schema = body.get("schema").map(rewrite_refs).unwrap_or(json!({}));
    let media = if consumes.is_empty() {
        vec!["application/json".to_string()]
    } else {
        consumes.to_vec()
    };
    let content: Map<String, Value> = media
        .into_iter()
        .map(|m| (m, json!({ "schema": schema.clone() })))
        .collect();
    let mut out = Map::new();
    if let Some(d) = body.get("description") {
        out.insert("description".into(), d.clone());
    }
    out.insert(
        "required".into(),
        body.get("required").cloned().unwrap_or(json!(false)),
    );
    out.insert("content".into(), Value::Object(content));
    Value::Object(out)
}

fn form_request(fields: &[Value], consumes: &[String]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut multipart = false;
    for f in fields {
        let Some(name) = f.get("name").and_then(Value::as_str) else {
            continue;
        };
        let converted = parameter(f);
        let mut schema = converted.get("schema").cloned().unwrap_or(json!({}));
        if schema.get("type").and_then(Value::as_str) == Some("file") {
            multipart = true;
            schema = json!({ "type": "string", "format": "binary" });
        }
        if let (Some(d), Value::Object(map)) = (f.get("description"), &mut schema) {
            map.insert("description".into(), d.clone());
        }
        if f.get("required").and_then(Value::as_bool) == Some(true) {
            required.push(json!(name));
        }
        properties.insert(name.to_string(), schema);
    }
    let media = if multipart || consumes.iter().any(|c| c == "multipart/form-data") {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    json!({
        "required": true,
        "content": { media: { "schema": {
            "type": "object",
            "properties": properties,
            "required": required,
        } } }
    })
}

fn response(r: &Value, produces: &[String]) -> Value {
    let Value::Object(map) = r else {
        return r.clone();
    };
    if let Some(Value::String(reference)) = map.get("$ref") {
        return json!({ "$ref": rewrite_ref(reference) });
    }
    let mut out = Map::new();
    out.insert(
        "description".into(),
        map.get("description").cloned().unwrap_or(json!("")),
    );
    if let Some(schema) = map.get("schema") {
        let schema = rewrite_refs(schema);
        let media = if produces.is_empty() {
            vec!["application/json".to_string()]
        } else {
            produces.to_vec()
        };
        let content: Map<String, Value> = media
            .into_iter()
            .map(|m| (m, json!({ "schema": schema.clone() })))
            .collect();
        out.insert("content".into(), Value::Object(content));
    }
    if let Some(Value::Object(headers)) = map.get("headers") {
        let converted = headers
            .iter()
            .map(|(name, h)| {
                let mut schema = h.clone();
                let description = schema.as_object_mut().and_then(|m| m.remove("description"));
                let mut header = json!({ "schema": schema });
                if let Some(d) = description {
                    header["description"] = d;
                }
                (name.clone(), header)
            })
            .collect();
        out.insert("headers".into(), Value::Object(converted));
    }
    Value::Object(out)
}

fn security_scheme(s: &Value) -> Value {
    match s.get("type").and_then(Value::as_str) {
        Some("basic") => {
            json!({ "type": "http", "scheme": "basic", "description": s.get("description") })
        }
        Some("oauth2") => {
            let scopes = s.get("scopes").cloned().unwrap_or(json!({}));
            let mut flow = Map::new();
            if let Some(u) = s.get("authorizationUrl") {
                flow.insert("authorizationUrl".into(), u.clone());
            }
            if let Some(u) = s.get("tokenUrl") {
                flow.insert("tokenUrl".into(), u.clone());
            }
            flow.insert("scopes".into(), scopes);
            let name = match s.get("flow").and_then(Value::as_str) {
                Some("implicit") => "implicit",
                Some("password") => "password",
                Some("application") => "clientCredentials",
                _ => "authorizationCode",
            };
            json!({ "type": "oauth2", "flows": { name: flow }, "description": s.get("description") })
        }
        _ => s.clone(),
    }
}
