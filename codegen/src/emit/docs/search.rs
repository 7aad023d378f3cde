//! The search index: every endpoint (by name and path), model, field, parameter, enum, enum
//! value, event, auth scheme, limit and state machine, as a script assigning a global, so
//! the pages search it opened from disk.

use super::{ids, paths};
use crate::ir::Spec;
use serde_json::{Value, json};

pub const SCRIPT: &str = include_str!("assets/search.js");

/// The global the index is assigned to, which `search.js` reads.
pub const GLOBAL: &str = "COVENANT_SEARCH_INDEX";

/// One entry: what it is, its name, a line saying more, and its page (with fragment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: &'static str,
    pub name: String,
    pub detail: String,
    pub url: String,
}

pub fn entries(spec: &Spec) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut put = |kind: &'static str, name: &str, detail: String, url: String| {
        out.push(Entry {
            kind,
            name: name.to_string(),
            detail,
            url,
        })
    };
    for ep in &spec.endpoints {
        let page = paths::endpoint(&ep.name);
        put(
            "endpoint",
            &ep.name,
            format!("{} {}", ep.method.as_str(), ep.path),
            page.clone(),
        );
        for p in &ep.params {
            let detail = format!("{} parameter of {}", p.location.as_str(), ep.name);
            let url = format!("{page}#{}", ids::param(&p.field.name));
            put("parameter", &p.field.name, detail, url);
        }
    }
    for m in &spec.models {
        let page = paths::model(&m.name);
        put("model", &m.name, "model".into(), page.clone());
        let mut seen: Vec<&str> = Vec::new();
        for f in &m.fields {
            if seen.contains(&f.name.as_str()) {
                continue;
            }
            seen.push(&f.name);
            let url = format!("{page}#{}", ids::field(&f.name));
            put("field", &f.name, format!("field of {}", m.name), url);
        }
    }
    for e in &spec.enums {
        let page = paths::enum_(&e.name);
        let what = if e.open { "open enum" } else { "closed enum" };
        put("enum", &e.name, what.into(), page.clone());
        for v in &e.values {
            let url = format!("{page}#{}", ids::value(&v.name));
            put("value", &v.name, format!("value of {}", e.name), url);
        }
    }
    for ev in &spec.events {
        put(
            "event",
            &ev.name,
            ev.pattern.clone(),
            paths::event(&ev.name),
        );
    }
    for a in &spec.auth_schemes {
        let url = format!("{}#{}", paths::AUTH, ids::scheme(&a.name));
        put("auth scheme", &a.name, a.carrier.describe(), url);
    }
    for l in &spec.limits {
        let url = format!("{}#{}", paths::LIMITS, ids::limit(&l.name));
        put("limit", &l.name, "limit".into(), url);
    }
    for r in &spec.rate_limits {
        let url = format!("{}#{}", paths::LIMITS, ids::rate_limit(&r.name));
        put("rate limit", &r.name, "rate limit".into(), url);
    }
    for s in &spec.state_machines {
        let url = format!("{}#{}", paths::STATES, ids::states(&s.name));
        put("states", &s.name, "state machine".into(), url);
    }
    out
}

/// `search-index.js`: the entries as JSON arrays, assigned to [`GLOBAL`].
pub fn index_script(spec: &Spec) -> String {
    let rows: Vec<Value> = entries(spec)
        .into_iter()
        .map(|e| json!([e.kind, e.name, e.detail, e.url]))
        .collect();
    let json = serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into());
    format!("window.{GLOBAL} = {json};\n")
}
