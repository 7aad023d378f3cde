//! Security schemes as `auth` items, and an operation's requirements as its `auth` clause.

use crate::build::*;
use crate::document::join;
use crate::importer::Importer;
use covenant_codegen::ast::{Attrs, AuthDecl, AuthRef, EndpointMember, Item, ItemKind, Member};
use serde_json::Value;

/// A scheme of the document and what the spec writes for it.
pub struct Scheme {
    /// The name in the document (`components.securitySchemes`).
    pub key: String,
    /// The auth item's name.
    pub name: String,
    pub location: &'static str,
    /// The header, query parameter or cookie name.
    pub carrier: Option<String>,
    pub doc: Option<String>,
    /// OAuth 2.0 endpoints: (setting, URL).
    pub urls: Vec<(&'static str, String)>,
    /// OAuth 2.0 flows stated by name (`flows authorization_code, implicit`), when there
    /// are several.
    pub flows: Vec<&'static str>,
    /// Scopes, in the document's order; more are added as operations require them.
    pub scopes: Vec<String>,
    pub markers: Vec<covenant_codegen::ast::Annotation>,
}

/// An OAuth 2.0 flow: its key in OpenAPI, its word in the spec, and its URL settings (the
/// document's key and the spec's).
type FlowKind = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

impl<'d> Importer<'d> {
    /// The document's security schemes, named.
    pub fn read_schemes(&mut self) -> Vec<Scheme> {
        let Some(Value::Object(schemes)) = self.doc.pointer("/components/securitySchemes") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, scheme) in schemes {
            let at = join("#/components/securitySchemes", key);
            let scheme = self.follow(scheme);
            let name = self.schemes.other_name(key);
            let written = self.as_owner(&format!("auth {name}"), |this| {
                this.scheme(key, &name, scheme, &at)
            });
            out.push(written);
        }
        out
    }

    fn scheme(&mut self, key: &str, name: &str, scheme: &Value, at: &str) -> Scheme {
        let text = |k: &str| scheme.get(k).and_then(Value::as_str).map(str::to_string);
        let mut written = Scheme {
            key: key.to_string(),
            name: name.to_string(),
            location: "bearer",
            carrier: None,
            doc: text("description").filter(|d| !d.trim().is_empty()),
            urls: Vec::new(),
            flows: Vec::new(),
            scopes: Vec::new(),
            markers: Vec::new(),
        };
        match (text("type").as_deref(), text("in").as_deref()) {
            (Some("apiKey"), Some(place @ ("header" | "query" | "cookie"))) => {
                written.location = match place {
                    "header" => "header",
                    "query" => "query",
                    _ => "cookie",
                };
                written.carrier = text("name");
                if written.carrier.is_none() {
                    written.location = "header";
                    written.carrier = Some("Authorization".to_string());
                    let marker =
                        self.lose(at, "an API key without a name", "the Authorization header");
                    written.markers.push(marker);
                }
            }
            (Some("http"), _) => {
                let scheme_name = text("scheme").unwrap_or_default().to_lowercase();
                match scheme_name.as_str() {
                    "bearer" => written.location = "bearer",
                    "basic" => written.location = "basic",
                    other => {
                        written.location = "header";
                        written.carrier = Some("Authorization".to_string());
                        let marker = self.lose(
                            &join(at, "scheme"),
                            format!("the HTTP authentication scheme `{other}`"),
                            "the whole Authorization header",
                        );
                        written.markers.push(marker);
                    }
                }
            }
            (Some("oauth2"), _) => {
                written.location = "oauth2";
                self.flows(scheme, at, &mut written);
            }
            (kind, _) => {
                let kind = kind.unwrap_or("unknown").to_string();
                let marker = self.lose(at, format!("a `{kind}` security scheme"), "a bearer token");
                written.markers.push(marker);
            }
        }
        written
    }

    /// The OAuth 2.0 flows: every one, when they share their URLs (one authorization URL,
    /// one token URL, one refresh URL); else the first of authorization code, client
    /// credentials, implicit and password, the others marked.
    fn flows(&mut self, scheme: &Value, at: &str, written: &mut Scheme) {
        let Some(Value::Object(flows)) = scheme.get("flows") else {
            let marker = self.lose(at, "an OAuth 2.0 scheme without flows", "no URL");
            written.markers.push(marker);
            written.location = "bearer";
            return;
        };
        const KINDS: [FlowKind; 4] = [
            (
                "authorizationCode",
                "authorization_code",
                &[
                    ("authorizationUrl", "authorization_url"),
                    ("tokenUrl", "token_url"),
                    ("refreshUrl", "refresh_url"),
                ],
            ),
            (
                "clientCredentials",
                "client_credentials",
                &[("tokenUrl", "token_url"), ("refreshUrl", "refresh_url")],
            ),
            (
                "implicit",
                "implicit",
                &[
                    ("authorizationUrl", "authorization_url"),
                    ("refreshUrl", "refresh_url"),
                ],
            ),
            (
                "password",
                "password",
                &[("tokenUrl", "token_url"), ("refreshUrl", "refresh_url")],
            ),
        ];
        let present: Vec<_> = KINDS
            .iter()
            .filter(|(k, _, _)| flows.contains_key(*k))
            .collect();
        if present.is_empty() {
            written.location = "bearer";
            return;
        }
        for (_, flow) in flows {
            if let Some(Value::Object(scopes)) = flow.get("scopes") {
                for scope in scopes.keys() {
                    if !written.scopes.contains(scope) {
                        written.scopes.push(scope.clone());
                    }
                }
            }
        }
        // Each URL setting with the one value every flow that has it gives.
        let mut urls: Vec<(&'static str, String)> = Vec::new();
        let mut agree = true;
        for (key, _, settings) in &present {
            for (document_key, setting) in settings.iter() {
                let Some(url) = flows[*key].get(*document_key).and_then(Value::as_str) else {
                    continue;
                };
                match urls.iter().find(|(s, _)| s == setting) {
                    Some((_, known)) if known != url => agree = false,
                    Some(_) => {}
                    None => urls.push((setting, url.to_string())),
                }
            }
        }
        let chosen = if agree {
            present.clone()
        } else {
            present[..1].to_vec()
        };
        if !agree {
            let (key, _, settings) = chosen[0];
            urls = settings
                .iter()
                .filter_map(|(document_key, setting)| {
                    let url = flows[*key].get(*document_key)?.as_str()?;
                    Some((*setting, url.to_string()))
                })
                .collect();
            for (other, _, _) in &present[1..] {
                let marker = self.lose(
                    &join(&join(at, "flows"), other),
                    format!("the `{other}` flow, whose URLs are another flow's"),
                    format!("the `{key}` flow alone"),
                );
                written.markers.push(marker);
            }
        }
        written.urls = urls;
        // The URLs alone say which one flow is meant, but for the password flow.
        let implied = chosen.len() == 1 && chosen[0].0 != "password";
        if !implied {
            written.flows = chosen.iter().map(|(_, word, _)| *word).collect();
        }
    }

    /// An operation's `auth` clause (or `public`) from its requirements.
    pub fn auth_members(
        &mut self,
        requirements: Option<&Value>,
        at: &str,
        schemes: &mut [Scheme],
    ) -> Vec<Member<EndpointMember>> {
        let Some(Value::Array(requirements)) = requirements else {
            return vec![member(
                Attrs::default(),
                EndpointMember::Public(Default::default()),
            )];
        };
        if let Some(members) = self.required_with_extras(requirements, at, schemes) {
            return members;
        }
        if let Some(members) = self.sent_together(requirements, schemes) {
            return members;
        }
        let mut refs: Vec<AuthRef> = Vec::new();
        let mut optional = false;
        let mut attrs = Attrs::default();
        for (index, requirement) in requirements.iter().enumerate() {
            let Value::Object(all) = requirement else {
                continue;
            };
            if all.is_empty() {
                optional = true;
                continue;
            }
            let requirement_at = join(at, &index.to_string());
            for (position, (key, scopes)) in all.iter().enumerate() {
                let Some(scheme) = schemes.iter_mut().find(|s| &s.key == key) else {
                    let marker = self.lose(
                        &requirement_at,
                        format!("the undeclared security scheme `{key}`"),
                        "left out",
                    );
                    attrs.annotations.push(marker);
                    continue;
                };
                if position > 0 {
                    let marker = self.lose(
                        &requirement_at,
                        format!("`{key}` required together with another scheme"),
                        "either scheme alone",
                    );
                    attrs.annotations.push(marker);
                }
                self.uses_type(&format!("auth {}", scheme.name));
                let scopes: Vec<String> = scopes
                    .as_array()
                    .map(|s| {
                        s.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                for scope in &scopes {
                    if !scheme.scopes.contains(scope) {
                        scheme.scopes.push(scope.clone());
                    }
                }
                if let Some(existing) = refs.iter_mut().find(|r| r.scheme.text == scheme.name) {
                    for scope in scopes {
                        if !existing.scopes.iter().any(|s| s.value == scope) {
                            existing.scopes.push(string(scope));
                        }
                    }
                } else {
                    refs.push(AuthRef {
                        scheme: ident(scheme.name.clone()),
                        scopes: scopes.into_iter().map(string).collect(),
                    });
                }
            }
        }
        if refs.is_empty() {
            return vec![member(attrs, EndpointMember::Public(Default::default()))];
        }
        if optional {
            return vec![
                member(attrs, EndpointMember::Public(Default::default())),
                member(
                    Attrs::default(),
                    EndpointMember::Auth {
                        optional: true,
                        schemes: refs,
                        together: false,
                    },
                ),
            ];
        }
        vec![member(
            attrs,
            EndpointMember::Auth {
                optional: false,
                schemes: refs,
                together: false,
            },
        )]
    }
}

impl<'d> Importer<'d> {
    /// `[{a, b}]`: both are sent (`auth a & b`), when each travels in a place of its own.
    fn sent_together(
        &mut self,
        requirements: &[Value],
        schemes: &mut [Scheme],
    ) -> Option<Vec<Member<EndpointMember>>> {
        let [Value::Object(set)] = requirements else {
            return None;
        };
        if set.len() < 2 {
            return None;
        }
        let mut places: Vec<(&str, String)> = Vec::new();
        let mut refs = Vec::new();
        for (key, scopes) in set {
            let scheme = schemes.iter().find(|s| &s.key == key)?;
            let place = (
                scheme.location,
                scheme
                    .carrier
                    .clone()
                    .unwrap_or_default()
                    .to_ascii_lowercase(),
            );
            if places.contains(&place) {
                return None;
            }
            places.push(place);
            refs.push(AuthRef {
                scheme: ident(scheme.name.clone()),
                scopes: scopes
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(string)
                    .collect(),
            });
        }
        for key in set.keys() {
            if let Some(scheme) = schemes.iter_mut().find(|s| &s.key == key) {
                self.uses_type(&format!("auth {}", scheme.name));
                for scope in set[key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !scheme.scopes.iter().any(|s| s == scope) {
                        scheme.scopes.push(scope.to_string());
                    }
                }
            }
        }
        Some(vec![member(
            Attrs::default(),
            EndpointMember::Auth {
                optional: false,
                schemes: refs,
                together: true,
            },
        )])
    }

    /// `[{a}, {a, b}]`: `a` is required and `b` may be sent with it (`auth a`, `auth? b`).
    fn required_with_extras(
        &mut self,
        requirements: &[Value],
        _at: &str,
        schemes: &mut [Scheme],
    ) -> Option<Vec<Member<EndpointMember>>> {
        let sets: Vec<Vec<&String>> = requirements
            .iter()
            .map(|r| r.as_object().map(|m| m.keys().collect()))
            .collect::<Option<_>>()?;
        let smallest = sets.iter().min_by_key(|s| s.len())?;
        let [required] = smallest.as_slice() else {
            return None;
        };
        if sets.len() < 2 || !sets.iter().all(|s| s.contains(required)) {
            return None;
        }
        let scopes_of = |key: &str| -> Vec<covenant_codegen::ast::StrLit> {
            requirements
                .iter()
                .filter_map(|r| r.get(key))
                .filter_map(Value::as_array)
                .flatten()
                .filter_map(Value::as_str)
                .map(string)
                .collect()
        };
        let name_of = |key: &str, schemes: &[Scheme]| {
            schemes
                .iter()
                .find(|s| s.key == key)
                .map(|s| s.name.clone())
        };
        let required_name = name_of(required, schemes)?;
        let mut extras = Vec::new();
        for set in &sets {
            for key in set.iter().filter(|k| *k != required) {
                let name = name_of(key, schemes)?;
                if !extras.iter().any(|r: &AuthRef| r.scheme.text == name) {
                    extras.push(AuthRef {
                        scheme: ident(name),
                        scopes: scopes_of(key),
                    });
                }
            }
        }
        for key in sets.iter().flatten() {
            if let Some(scheme) = schemes.iter_mut().find(|s| &&s.key == key) {
                self.uses_type(&format!("auth {}", scheme.name));
            }
        }
        Some(vec![
            member(
                Attrs::default(),
                EndpointMember::Auth {
                    optional: false,
                    schemes: vec![AuthRef {
                        scheme: ident(required_name),
                        scopes: scopes_of(required),
                    }],
                    together: false,
                },
            ),
            member(
                Attrs::default(),
                EndpointMember::Auth {
                    optional: true,
                    schemes: extras,
                    together: false,
                },
            ),
        ])
    }
}

/// The auth items of the schemes, with every scope an operation required.
pub fn auth_items(schemes: Vec<Scheme>) -> Vec<Item> {
    schemes
        .into_iter()
        .map(|scheme| {
            let mut props = vec![prop("principal", vec![reference(scheme.name.clone())])];
            for (setting, url) in &scheme.urls {
                props.push(prop(setting, vec![str_value(url.clone())]));
            }
            if !scheme.flows.is_empty() {
                props.push(prop(
                    "flows",
                    scheme.flows.iter().map(|f| reference(*f)).collect(),
                ));
            }
            if !scheme.scopes.is_empty() {
                props.push(prop(
                    "scopes",
                    scheme.scopes.iter().map(|s| str_value(s.clone())).collect(),
                ));
            }
            let attrs = Attrs {
                doc: scheme.doc.clone(),
                annotations: scheme.markers,
            };
            item(
                attrs,
                ItemKind::Auth(AuthDecl {
                    name: ident(scheme.name),
                    location: ident(scheme.location),
                    key: scheme.carrier.map(string),
                    props,
                }),
            )
        })
        .collect()
}
