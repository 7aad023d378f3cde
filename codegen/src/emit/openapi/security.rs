//! Security: each scheme's `securitySchemes` entry (API key, HTTP bearer or basic, OAuth2
//! flows) and each operation's requirements with the scopes they need.

use super::super::schema::{deprecation_json, description, put_source};
use super::Document;
use crate::ir::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

impl Document<'_> {
    /// One requirement per accepted scheme, with its scopes and the schemes sent together
    /// with it; optional schemes are added to each.
    pub(super) fn security(&self, ep: &Endpoint) -> Value {
        if ep.auth.public {
            return json!([]);
        }
        let requirement = |id: AuthId| {
            (
                self.spec.auth(id).name.clone(),
                json!(ep.auth.scopes_of(id)),
            )
        };
        let optional: Vec<(String, Value)> =
            ep.auth.optional.iter().map(|id| requirement(*id)).collect();
        let mut reqs = Vec::new();
        for id in &ep.auth.any_of {
            let mut alone = Map::new();
            alone.extend(
                std::iter::once(*id)
                    .chain(ep.auth.all_of.iter().copied())
                    .map(requirement),
            );
            if !optional.is_empty() {
                let mut with = alone.clone();
                with.extend(optional.iter().cloned());
                reqs.push(Value::Object(with));
            }
            reqs.push(Value::Object(alone));
        }
        Value::Array(reqs)
    }

    pub(super) fn security_schemes(&self) -> Value {
        let used: BTreeSet<AuthId> = self
            .endpoints
            .iter()
            .flat_map(|e| e.auth.every_scheme())
            .collect();
        let mut out = Map::new();
        for id in used {
            let scheme = self.spec.auth(id);
            let primary = scheme.alias_of.map_or(scheme, |a| self.spec.auth(a));
            let mut s = carrier_json(scheme, primary);
            if let Some(d) = description(scheme.doc.as_deref(), &scheme.not_shown) {
                s.insert("description".into(), json!(d));
            }
            s.insert("x-principal".into(), json!(primary.principal));
            if !scheme.scopes.is_empty() && scheme.oauth2.is_none() {
                s.insert("x-scopes".into(), json!(scheme.scopes));
            }
            if let Some(alias) = scheme.alias_of {
                s.insert("x-same-as".into(), json!(self.spec.auth(alias).name));
            }
            if let Some(l) = &scheme.lifetime {
                let mut lifetime = Map::new();
                lifetime.insert("value".into(), json!(l.to_string()));
                put_source(&mut lifetime, scheme.lifetime_provenance);
                s.insert("x-lifetime".into(), Value::Object(lifetime));
            }
            if scheme.single_use {
                let mut single_use = Map::new();
                single_use.insert("value".into(), json!(true));
                put_source(&mut single_use, scheme.single_use_provenance);
                s.insert("x-single-use".into(), Value::Object(single_use));
            }
            if let Some(dep) = &scheme.deprecated {
                s.insert("x-deprecated".into(), json!(true));
                s.insert("x-deprecation".into(), deprecation_json(dep));
            }
            put_source(&mut s, scheme.provenance);
            out.insert(scheme.name.clone(), Value::Object(s));
        }
        Value::Object(out)
    }
}

/// `type` and where the credential goes: `apiKey` in a header, query or cookie; `http`
/// bearer or basic; `oauth2` with its flows (those of the primary, for a second header).
fn carrier_json(scheme: &AuthScheme, primary: &AuthScheme) -> Map<String, Value> {
    let value = match (&scheme.carrier, &primary.oauth2) {
        (Carrier::Bearer, Some(flows)) => {
            json!({ "type": "oauth2", "flows": flows_json(flows, &primary.scopes) })
        }
        (Carrier::Bearer, None) => json!({ "type": "http", "scheme": "bearer" }),
        (Carrier::Basic, _) => json!({ "type": "http", "scheme": "basic" }),
        (Carrier::Header(name), _) => json!({ "type": "apiKey", "in": "header", "name": name }),
        (Carrier::Query(name), _) => json!({ "type": "apiKey", "in": "query", "name": name }),
        (Carrier::Cookie(name), _) => json!({ "type": "apiKey", "in": "cookie", "name": name }),
    };
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The OAuth2 flows the scheme's URLs allow, each listing every declared scope.
fn flows_json(flows: &OAuthFlows, scopes: &[String]) -> Value {
    let scopes: Map<String, Value> = scopes.iter().map(|s| (s.clone(), json!(""))).collect();
    let flow = |authorization: bool, token: bool| {
        let mut f = Map::new();
        if authorization && let Some(url) = &flows.authorization_url {
            f.insert("authorizationUrl".into(), json!(url));
        }
        if token && let Some(url) = &flows.token_url {
            f.insert("tokenUrl".into(), json!(url));
        }
        if let Some(url) = &flows.refresh_url {
            f.insert("refreshUrl".into(), json!(url));
        }
        f.insert("scopes".into(), Value::Object(scopes.clone()));
        Value::Object(f)
    };
    let mut out = Map::new();
    for kind in flows.flows() {
        let (authorization, token) = kind.urls();
        out.insert(kind.openapi_key().into(), flow(authorization, token));
    }
    Value::Object(out)
}
