//! The search index: every endpoint (by name and path), model, field, parameter, enum, enum
//! value, event, auth scheme, limit and state machine, with its description, as a script
//! assigning a global, so the pages search it opened from disk. Words found in a name rank
//! above words found only in a description.

use super::{ids, paths};
use crate::ir::Spec;
use serde_json::{Value, json};

pub const SCRIPT: &str = include_str!("assets/search.js");

/// The global the index is assigned to, which `search.js` reads.
pub const GLOBAL: &str = "COVENANT_SEARCH_INDEX";

/// One entry: what it is, its name, a line saying more, its page (with fragment), and its
/// description (the doc comment, empty without one) for full-text search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: &'static str,
    pub name: String,
    pub detail: String,
    pub url: String,
    pub text: String,
}

pub fn entries(spec: &Spec) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut put =
        |kind: &'static str, name: &str, detail: String, url: String, doc: &Option<String>| {
            out.push(Entry {
                kind,
                name: name.to_string(),
                detail,
                url,
                text: doc.clone().unwrap_or_default(),
            })
        };
    for ep in &spec.endpoints {
        let page = paths::endpoint(&ep.name);
        put(
            "endpoint",
            &ep.name,
            format!("{} {}", ep.method.as_str(), ep.path),
            page.clone(),
            &ep.doc,
        );
        for p in &ep.params {
            let detail = format!("{} parameter of {}", p.location.as_str(), ep.name);
            let url = format!("{page}#{}", ids::param(&p.field.name));
            put("parameter", &p.field.name, detail, url, &p.field.doc);
        }
    }
    for m in &spec.models {
        let page = paths::model(&m.name);
        put("model", &m.name, "model".into(), page.clone(), &m.doc);
        let mut seen: Vec<&str> = Vec::new();
        for f in &m.fields {
            if seen.contains(&f.name.as_str()) {
                continue;
            }
            seen.push(&f.name);
            let url = format!("{page}#{}", ids::field(&f.name));
            put(
                "field",
                &f.name,
                format!("field of {}", m.name),
                url,
                &f.doc,
            );
        }
    }
    for e in &spec.enums {
        let page = paths::enum_(&e.name);
        let what = if e.open { "open enum" } else { "closed enum" };
        put("enum", &e.name, what.into(), page.clone(), &e.doc);
        for v in &e.values {
            let url = format!("{page}#{}", ids::value(&v.name));
            put(
                "value",
                &v.name,
                format!("value of {}", e.name),
                url,
                &v.doc,
            );
        }
    }
    for ev in &spec.events {
        put(
            "event",
            &ev.name,
            ev.pattern.clone(),
            paths::event(&ev.name),
            &ev.doc,
        );
    }
    for a in &spec.auth_schemes {
        let url = format!("{}#{}", paths::AUTH, ids::scheme(&a.name));
        put("auth scheme", &a.name, a.carrier.describe(), url, &a.doc);
    }
    for l in &spec.limits {
        let url = format!("{}#{}", paths::LIMITS, ids::limit(&l.name));
        put("limit", &l.name, "limit".into(), url, &l.doc);
    }
    for r in &spec.rate_limits {
        let url = format!("{}#{}", paths::LIMITS, ids::rate_limit(&r.name));
        put("rate limit", &r.name, "rate limit".into(), url, &r.doc);
    }
    for s in &spec.state_machines {
        let url = format!("{}#{}", paths::STATES, ids::states(&s.name));
        put("states", &s.name, "state machine".into(), url, &s.doc);
    }
    out
}

/// `search-index.js`: the entries as JSON arrays, assigned to [`GLOBAL`].
pub fn index_script(spec: &Spec) -> String {
    let rows: Vec<Value> = entries(spec)
        .into_iter()
        .map(|e| json!([e.kind, e.name, e.detail, e.url, e.text]))
        .collect();
    let json = serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into());
    // Descriptions are the spec's text: written as escapes, no `<`, `>` or `&` of theirs can
    // end a script or start markup wherever the index is read.
    let json = json
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    format!("window.{GLOBAL} = {json};\n")
}
