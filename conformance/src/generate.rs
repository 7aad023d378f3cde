//! The mechanical scenarios, generated from the spec rather than written by hand: every
//! constraint of every input violated once (`validation/`), the auth matrix of every
//! endpoint — missing, wrong, and another scheme's credential (`auth/`) — and unknown
//! resources (`not-found/`).
//!
//! Credentials are referenced by their scheme's name (`{{credentials.team_api_key}}`), the
//! names a credentials file uses.

use crate::cassette::{Exchange, Expect, Request, Scenario};
use crate::template::plain;
use covenant_codegen::ir::shapes::Shape;
use covenant_codegen::ir::{
    AuthId, BodyMedia, Endpoint, ParamLocation, Primitive, Provenance, Spec, Type,
};
use covenant_codegen::samples::Samples;
use covenant_runtime::contract::{BuiltEndpoint, TemplateValue};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The folder (under the output) and file of each generated cassette, with its text.
pub fn cassettes(spec: &Spec) -> BTreeMap<String, String> {
    let samples = Samples::new(spec);
    let arena = bumpalo::Bump::new();
    let contract = covenant_codegen::contract::build(spec, &arena);
    let mut files = BTreeMap::new();
    for (ep, route) in spec.endpoints.iter().zip(contract.endpoints) {
        let generator = Generator {
            spec,
            ep,
            route,
            samples: &samples,
        };
        for scenario in [
            generator.validation(),
            generator.auth(),
            generator.not_found(),
        ]
        .into_iter()
        .flatten()
        {
            let path = format!("{}.json", scenario.id.trim_start_matches("generated/"));
            let mut text = serde_json::to_string_pretty(&scenario).expect("scenarios serialize");
            text.push('\n');
            files.insert(path, text);
        }
    }
    files
}

struct Generator<'a> {
    spec: &'a Spec,
    ep: &'a Endpoint,
    route: &'a BuiltEndpoint<'a>,
    samples: &'a Samples<'a>,
}

impl Generator<'_> {
    fn declares(&self, status: u16) -> bool {
        self.route.response(status).is_some()
    }

    /// A scenario of this endpoint, with its tags and its source.
    fn scenario(&self, kind: &str, title: String, provenance: Provenance) -> Scenario {
        let mut tags = vec!["generated".to_string(), kind.to_string()];
        tags.extend(self.ep.tags.iter().cloned());
        Scenario {
            id: format!("generated/{kind}/{}", self.ep.name),
            title,
            tags,
            source: (!provenance.is_document()).then(|| provenance.word().to_string()),
            lets: Map::new(),
            headers: BTreeMap::new(),
            exchanges: Vec::new(),
        }
    }

    /// The header carrying the credential the endpoint takes first, and its value: a
    /// template naming the credential. Basic and query credentials have none.
    fn credential(&self) -> Option<(String, String)> {
        let id = *self.ep.auth.any_of.first()?;
        let template = format!("{{{{credentials.{}}}}}", self.credential_name(id)?);
        self.credential_as(&template)
    }

    /// The header and value that carry `credential` where the endpoint's first scheme
    /// takes it.
    fn credential_as(&self, credential: &str) -> Option<(String, String)> {
        let id = *self.ep.auth.any_of.first()?;
        let (header, value) = self.spec.auth(id).carrier.header_value(credential)?;
        Some((header.to_string(), value))
    }

    /// The credentials-file key of a scheme: its own name, or the name of the scheme it is
    /// an alias of. Single-use credentials (link tokens) are minted per user, never stored.
    fn credential_name(&self, id: AuthId) -> Option<String> {
        let scheme = self.spec.auth(id);
        if scheme.single_use {
            return None;
        }
        let named = scheme.alias_of.map_or(id, |a| a);
        Some(self.spec.auth(named).name.clone())
    }

    fn with_credential(&self, scenario: &mut Scenario) {
        if let Some((header, value)) = self.credential() {
            scenario.headers.insert(header, value);
        }
        scenario.headers.extend(self.sent_together());
    }

    /// The headers of the credentials sent with the first one (`auth a & b`), each a
    /// template naming its credential.
    fn sent_together(&self) -> Vec<(String, String)> {
        self.ep
            .auth
            .all_of
            .iter()
            .filter_map(|id| {
                let template = format!("{{{{credentials.{}}}}}", self.credential_name(*id)?);
                let (header, value) = self.spec.auth(*id).carrier.header_value(&template)?;
                Some((header.to_string(), value))
            })
            .collect()
    }

    /// The path with each placeholder filled from `input`, one encoded segment each; a value
    /// that refers to a capture (`{{id}}`) is written as it is, and a placeholder without a
    /// value is left as the spec writes it.
    fn path(&self, input: &Value) -> String {
        let filled = self.route.path.fill(|name| {
            Some(match input.get(name).map(plain) {
                Some(text) if text.contains("{{") => TemplateValue::Verbatim(text.into()),
                Some(text) => TemplateValue::Text(text.into()),
                None => TemplateValue::Verbatim(format!("{{{name}}}").into()),
            })
        });
        filled.unwrap_or_else(|_| self.route.path.to_string())
    }

    /// A valid request: every parameter from the spec's samples, the body a full example.
    fn request(&self, input: &Value) -> Request {
        let path = self.path(input);
        let mut query = Map::new();
        let mut headers = BTreeMap::new();
        for p in &self.ep.params {
            let Some(value) = input.get(&p.field.name) else {
                continue;
            };
            match p.location {
                ParamLocation::Path => {}
                ParamLocation::Query => {
                    let v = match value {
                        Value::Array(items) => {
                            Value::Array(items.iter().map(|i| Value::String(plain(i))).collect())
                        }
                        other => Value::String(plain(other)),
                    };
                    query.insert(p.field.name.clone(), v);
                }
                ParamLocation::Header => {
                    headers.insert(p.field.name.clone(), plain(value));
                }
            }
        }
        Request {
            method: Some(self.ep.method.as_str().to_string()),
            path,
            query,
            headers,
            body: input.get("body").cloned(),
            raw_body: None,
        }
    }

    fn exchange(&self, id: String, request: Request, status: u16) -> Exchange {
        Exchange {
            id: Some(id),
            endpoint: self.ep.name.clone(),
            request,
            expect: Expect {
                status,
                headers: BTreeMap::new(),
                body: None,
            },
            capture: BTreeMap::new(),
            events: Vec::new(),
            volatile: Vec::new(),
            timeout: None,
        }
    }

    /// Every constraint of every input violated once, each answered with the endpoint's
    /// validation status.
    fn validation(&self) -> Option<Scenario> {
        let status = [422, 400].into_iter().find(|s| self.declares(*s))?;
        let valid = self.samples.endpoint_input(self.ep);
        let mut scenario = self.scenario(
            "validation",
            format!(
                "Each constraint of {}'s inputs, violated once, is answered {status}",
                self.ep.name
            ),
            self.ep.provenance,
        );
        self.with_credential(&mut scenario);
        let mut exchanges = Vec::new();
        for p in &self.ep.params {
            let location = match p.location {
                ParamLocation::Path => "path",
                ParamLocation::Query => "query",
                ParamLocation::Header => "header",
            };
            let name = &p.field.name;
            for (value, what) in self.samples.field_violations(&p.field, Shape::Request) {
                // Parameters travel as text, which has no types: a "wrong type" there is
                // just other text.
                if what.contains("wrong type") || !representable(p.location, &value) {
                    continue;
                }
                let mut input = valid.clone();
                input[name] = value;
                exchanges.push((format!("{location} {name}: {what}"), input));
            }
            let optional = p.field.presence.may_be_absent() || p.field.default.is_some();
            let in_group = self.ep.exactly_one_of.iter().any(|g| g.contains(name));
            if !optional && !in_group && p.location != ParamLocation::Path {
                let mut input = valid.clone();
                input.as_object_mut().map(|o| o.remove(name));
                exchanges.push((format!("{location} {name}: missing"), input));
            }
        }
        for group in &self.ep.exactly_one_of {
            let mut neither = valid.clone();
            let mut both = valid.clone();
            for name in group {
                neither.as_object_mut().map(|o| o.remove(name));
                if let Some(p) = self.ep.params.iter().find(|p| &p.field.name == name) {
                    both[name] = self.samples.field_example(&p.field, Shape::Request);
                }
            }
            exchanges.push((format!("none of {}", group.join(", ")), neither));
            exchanges.push((format!("all of {}", group.join(", ")), both));
        }
        // A form's or multipart body's fields travel as text too, as parameters do: a "wrong
        // type" there is other text, and a null is an absent field. A body that is no object
        // cannot be written as a form at all (sent as JSON, it is a 415, not a 422).
        let as_text = matches!(self.ep.body_media, BodyMedia::Form | BodyMedia::Multipart);
        let untypeable = |what: &str| what.contains("wrong type") || what.ends_with(" null");
        if let Some(Type::Model(id)) = &self.ep.body {
            for sample in self
                .samples
                .model(*id, Shape::Request)
                .into_iter()
                .filter(|s| !s.valid)
                .filter(|s| !(as_text && (untypeable(&s.what) || !s.value.is_object())))
            {
                let mut input = valid.clone();
                input["body"] = sample.value;
                exchanges.push((format!("body: {}", sample.what), input));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (id, input) in exchanges {
            let id = unique_label(&mut seen, id);
            scenario
                .exchanges
                .push(self.exchange(id, self.request(&input), status));
        }
        scenario.exchanges.extend(self.mislabelled_body(&valid));
        (!scenario.exchanges.is_empty()).then_some(scenario)
    }

    /// A valid JSON or form body labelled `text/plain`, answered 415 by an endpoint that
    /// declares it: the label, not the bytes, says what a body is.
    fn mislabelled_body(&self, valid: &Value) -> Option<Exchange> {
        let labelled = self.ep.body_media.is_json() || self.ep.body_media == BodyMedia::Form;
        if !labelled || self.ep.body.is_none() || !self.declares(415) {
            return None;
        }
        let mut request = self.request(valid);
        let body = request.body.take()?;
        // Pretty: a compact `}}` would read as the end of a template placeholder.
        request.raw_body = Some(serde_json::to_string_pretty(&body).ok()?);
        request
            .headers
            .insert("content-type".into(), "text/plain".into());
        Some(self.exchange("body: labelled text/plain".into(), request, 415))
    }

    /// No credential, a wrong one, and each other scheme's credential.
    fn auth(&self) -> Option<Scenario> {
        let (header, _) = self.credential()?;
        let provenance = self
            .ep
            .auth
            .any_of
            .iter()
            .map(|id| self.spec.auth(*id).provenance)
            .find(|p| !p.is_document())
            .unwrap_or(Provenance::Document);
        let mut scenario = self.scenario(
            "auth",
            format!(
                "{} refuses a missing, a wrong, and another kind of credential",
                self.ep.name
            ),
            provenance,
        );
        let request = self.request(&self.samples.endpoint_input(self.ep));
        if self.declares(401) {
            scenario.exchanges.push(self.exchange(
                "missing credential".into(),
                request.clone(),
                401,
            ));
            let mut wrong = request.clone();
            wrong.headers.extend(self.sent_together());
            wrong
                .headers
                .extend(self.credential_as("not-a-valid-credential"));
            scenario
                .exchanges
                .push(self.exchange(format!("wrong {header}"), wrong, 401));
        }
        let accepted: Vec<String> = self
            .ep
            .auth
            .every_scheme()
            .filter_map(|id| self.credential_name(id))
            .collect();
        let mut others: Vec<String> = (0..self.spec.auth_schemes.len())
            .filter_map(|i| self.credential_name(AuthId(i as u32)))
            .filter(|name| !accepted.contains(name))
            .collect();
        others.sort();
        others.dedup();
        let wrong_kind = [403, 401].into_iter().find(|s| self.declares(*s));
        for other in others {
            let Some(status) = wrong_kind else { break };
            let mut r = request.clone();
            r.headers.extend(self.sent_together());
            r.headers
                .extend(self.credential_as(&format!("{{{{credentials.{other}}}}}")));
            scenario
                .exchanges
                .push(self.exchange(format!("{other} in {header}"), r, status));
        }
        (!scenario.exchanges.is_empty()).then_some(scenario)
    }

    /// Unknown ids in the path (fresh UUIDs, which no service has handed out) are answered 404.
    fn not_found(&self) -> Option<Scenario> {
        if !self.declares(404) {
            return None;
        }
        let uuid_params: Vec<&str> = self
            .ep
            .params_in(ParamLocation::Path)
            .filter(|p| {
                matches!(
                    p.field.ty,
                    Type::Primitive(Primitive::Uuid | Primitive::String)
                )
            })
            .map(|p| p.field.name.as_str())
            .collect();
        if uuid_params.is_empty() {
            return None;
        }
        let mut scenario = self.scenario(
            "not-found",
            format!("{} answers 404 for ids that name nothing", self.ep.name),
            self.ep.provenance,
        );
        self.with_credential(&mut scenario);
        let mut input = self.samples.endpoint_input(self.ep);
        for name in &uuid_params {
            input[*name] = Value::String("{{$uuid}}".into());
        }
        let label = format!("unknown {}", uuid_params.join(", "));
        scenario
            .exchanges
            .push(self.exchange(label, self.request(&input), 404));
        Some(scenario)
    }
}

/// Whether a value can be sent in a parameter of this location at all.
fn representable(location: ParamLocation, value: &Value) -> bool {
    match (location, value) {
        (_, Value::Null | Value::Object(_)) => false,
        (ParamLocation::Path, Value::Array(_)) => false,
        (ParamLocation::Path, v) => !plain(v).is_empty(),
        (ParamLocation::Header, Value::Array(_)) => false,
        (ParamLocation::Header, v) => plain(v).chars().all(|c| c.is_ascii_graphic() || c == ' '),
        _ => true,
    }
}

fn unique_label(seen: &mut std::collections::HashSet<String>, label: String) -> String {
    let mut candidate = label.clone();
    let mut n = 2;
    while !seen.insert(candidate.clone()) {
        candidate = format!("{label} ({n})");
        n += 1;
    }
    candidate
}
