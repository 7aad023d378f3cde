//! Example requests and responses, from the samples every other tool uses, written as they
//! travel: request line, headers, body.

use super::{Site, marks};
use crate::ir::shapes::Shape;
use crate::ir::{BodyMedia, Carrier, Endpoint, ParamLocation, Primitive, Response, Type};
use maud::{Markup, html};
use serde_json::Value;

/// An example request of `ep`, as it is sent.
pub fn request(site: &Site, ep: &Endpoint) -> Markup {
    let input = site.samples.endpoint_input(ep);
    // The input holds the body under `body`; a parameter of that name gets its own example.
    let value = |p: &crate::ir::Param| match p.field.name.as_str() {
        "body" if ep.body.is_some() => Some(site.samples.field_example(&p.field, Shape::Request)),
        name => input.get(name).cloned(),
    };
    let mut path = ep.path.clone();
    let mut query: Vec<String> = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    for p in &ep.params {
        let name = &p.field.name;
        let Some(v) = value(p) else {
            continue;
        };
        match p.location {
            ParamLocation::Path => {
                path = path.replace(&format!("{{{name}}}"), &encode(&scalar(&v)));
            }
            ParamLocation::Query => query.extend(encoded_pairs(name, &v)),
            ParamLocation::Header => headers.push((name.clone(), scalar(&v))),
        }
    }
    for id in ep.auth.any_of.first().into_iter().chain(&ep.auth.all_of) {
        let scheme = site.spec.auth(*id);
        let credential = format!("<{} credential>", scheme.name);
        match &scheme.carrier {
            Carrier::Query(name) => query.push(format!("{}={credential}", encode(name))),
            Carrier::Basic => headers.push((
                "Authorization".into(),
                "Basic <base64 of user:password>".into(),
            )),
            carrier => headers.extend(
                carrier
                    .header_value(&credential)
                    .map(|(h, v)| (h.to_string(), v)),
            ),
        }
    }
    let body = ep.body.as_ref().map(|t| {
        let v = input.get("body").cloned().unwrap_or(Value::Null);
        headers.push((
            "Content-Type".into(),
            ep.body_media.content_type().to_string(),
        ));
        written(&v, t, &ep.body_media)
    });
    let mut text = format!("{} {}", ep.method.as_str(), path);
    if !query.is_empty() {
        text.push('?');
        text.push_str(&query.join("&"));
    }
    text.push('\n');
    for (h, v) in &headers {
        text.push_str(&format!("{h}: {v}\n"));
    }
    if let Some(body) = body {
        text.push('\n');
        text.push_str(&body);
    }
    html! {
        section data-kind="example-request" {
            h2 id="example-request" { "Example request" }
            p { "Built from the spec: each value is one its type and constraints allow." }
            @if ep.body_media == BodyMedia::Multipart {
                p { "The body is multipart: each field below is a part, a file its name, media type and base64 content." }
            }
            pre { code { (text.trim_end()) } }
        }
    }
}

/// An example of one response, as it is answered.
pub fn response(site: &Site, r: &Response) -> Markup {
    let status = r.status.representative();
    let mut text = format!("HTTP/1.1 {status} {}", marks::reason_phrase(status))
        .trim_end()
        .to_string();
    text.push('\n');
    for (h, v) in site.samples.headers(r) {
        text.push_str(&format!("{h}: {v}\n"));
    }
    let not_shown = matches!(r.body, Some(Type::NotShown(_)));
    if let Some(t) = r.body.as_ref().filter(|_| !not_shown) {
        text.push_str(&format!("Content-Type: {}\n\n", r.media.content_type()));
        let v = site.samples.example(t, Shape::Response);
        text.push_str(&written(&v, t, &r.media));
    }
    html! {
        details.example {
            summary { "Example " (r.status) " response" }
            pre { code { (text.trim_end()) } }
            @if not_shown { p { "The source does not show the body, so no example is given." } }
        }
    }
}

/// A body in the form it travels in: JSON, form fields, or the raw text.
fn written(v: &Value, t: &Type, media: &BodyMedia) -> String {
    match media {
        BodyMedia::Form => match v {
            Value::Object(fields) => fields
                .iter()
                .flat_map(|(k, v)| encoded_pairs(k, v))
                .collect::<Vec<_>>()
                .join("&"),
            other => scalar(other),
        },
        BodyMedia::Raw(_) => {
            let text = scalar(v);
            if *t == Type::Primitive(Primitive::Bytes) {
                format!("<the bytes whose base64 is {text}>")
            } else {
                text
            }
        }
        BodyMedia::Stream(media) => {
            let items = v.as_array().cloned().unwrap_or_default();
            String::from_utf8(covenant_runtime::streams::write_items(media, &items))
                .unwrap_or_default()
        }
        BodyMedia::Json | BodyMedia::JsonAs(_) | BodyMedia::Multipart => {
            serde_json::to_string_pretty(v).unwrap_or_default()
        }
    }
}

/// A value as text: a string as it is, anything else as JSON.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Query or form pairs of one name, encoded: a list is one pair per item.
fn encoded_pairs(name: &str, v: &Value) -> Vec<String> {
    let pair = |item: &Value| format!("{}={}", encode(name), encode(&scalar(item)));
    match v {
        Value::Array(items) => items.iter().map(pair).collect(),
        other => vec![pair(other)],
    }
}

/// Percent-encoding of everything but RFC 3986's unreserved characters.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
