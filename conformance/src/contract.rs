//! The spec as the runner needs it: its contract ([`covenant_runtime::contract`], the model
//! the router and the client read too), resolving cassettes and recordings to endpoints, and
//! a compiled JSON Schema validator for every endpoint and status — the same schemas
//! `generate` writes, built in memory from the spec.

use covenant_codegen::emit::{schema_base, schema_files};
use covenant_codegen::ir::{
    Carrier, ParamLocation, Provenance, Response, Spec, Type, all_responses, response_provenance,
};
use covenant_runtime::contract::{
    BodyMedia, BuiltEndpoint, ResponseDesc, ScalarKind, StatusPattern,
};
use jsonschema::{Retrieve, Uri, Validator};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// An endpoint, as the runner resolves cassettes and recordings to it.
pub type Route = BuiltEndpoint<'static>;

/// A received body in the JSON form the schemas and cassettes describe: a raw body as a
/// string of its text (base64 of `bytes`), a stream as the list of its items, anything else
/// as the JSON it holds.
pub fn json_form(declared: &ResponseDesc<'_>, body: &[u8]) -> Option<Value> {
    match declared.media {
        BodyMedia::Raw(_) if declared.bytes => Some(Value::String(
            covenant_runtime::Bytes::from(body).to_base64(),
        )),
        BodyMedia::Raw(_) => std::str::from_utf8(body)
            .ok()
            .map(|t| Value::String(t.into())),
        BodyMedia::Stream(media) => covenant_runtime::streams::read_items(media, body)
            .ok()
            .map(Value::Array),
        _ => serde_json::from_slice(body).ok(),
    }
}

/// A spec, compiled for checking responses.
pub struct Contract {
    pub spec: Spec,
    /// The spec's contract, built once for the run.
    built: covenant_runtime::contract::Contract<'static>,
    by_name: HashMap<String, usize>,
    validators: HashMap<(usize, StatusPattern), Arc<Validator>>,
    header_checks: HashMap<(usize, StatusPattern), HeaderCheck>,
    carriers: Vec<(String, Carrier)>,
    secret_names: Vec<String>,
    /// Each event of the spec: its name, its event type pattern and its schema.
    events: Vec<EventCheck>,
}

/// An event of the spec as a received delivery is checked against it.
pub struct EventCheck {
    pub name: String,
    /// The event type with `{placeholder}`s.
    pub pattern: String,
    pub validator: Validator,
}

/// The headers a response declares: the schema of their values, and how each reads from text.
#[derive(Debug)]
pub struct HeaderCheck {
    pub validator: Validator,
    /// Each declared header by lower-case name, with the JSON type its text reads as.
    headers: Vec<(String, ScalarKind)>,
}

impl HeaderCheck {
    /// The declared headers present in `received` as a JSON object keyed by lower-case name:
    /// numbers and booleans parsed where they parse (by the runtime's rules), the text kept
    /// where not (so the schema names the value that is no number).
    pub fn read(&self, received: &[(String, String)]) -> Value {
        let mut out = serde_json::Map::new();
        use covenant_runtime::text::{parse_bool, parse_number};
        for (name, kind) in &self.headers {
            // As the generated client reads them: several lines joined by commas.
            let lines: Vec<&str> = received
                .iter()
                .filter(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
                .collect();
            if lines.is_empty() {
                continue;
            }
            let text = lines.join(", ");
            let parsed = match kind {
                ScalarKind::Integer => text.trim().parse::<i64>().ok().map(Value::from),
                ScalarKind::Number => parse_number(text.trim()).map(Value::from),
                ScalarKind::Boolean => parse_bool(text.trim()).map(Value::from),
                ScalarKind::String => None,
            };
            out.insert(name.clone(), parsed.unwrap_or(Value::String(text)));
        }
        Value::Object(out)
    }
}

impl std::fmt::Debug for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contract")
            .field("routes", &self.built.endpoints.len())
            .finish()
    }
}

impl Contract {
    /// Indexes the spec and compiles every response schema. Fails only if the toolkit's own
    /// schemas do not compile, which its tests rule out.
    pub fn new(spec: Spec) -> Result<Contract, String> {
        let files = schema_files(&spec);
        let retriever = InMemorySchemas {
            base: schema_base(&spec),
            files: files.clone(),
        };
        let built = covenant_codegen::contract::build_static(&spec);
        let routes = built.endpoints;
        let mut by_name = HashMap::new();
        let mut validators = HashMap::new();
        let mut header_checks = HashMap::new();
        let compile = |path: &str| -> Result<Option<Validator>, String> {
            let Some(text) = files.get(path) else {
                return Ok(None);
            };
            let schema: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .with_retriever(retriever.clone())
                .build(&schema)
                .map(Some)
                .map_err(|e| format!("{path}: {e}"))
        };
        for (index, ep) in spec.endpoints.iter().enumerate() {
            for r in all_responses(&spec, ep) {
                let path = format!("schemas/endpoints/{}/{}.json", ep.name, r.status);
                if let Some(validator) = compile(&path)? {
                    validators.insert((index, r.status), Arc::new(validator));
                }
                let path = format!("schemas/endpoints/{}/{}.headers.json", ep.name, r.status);
                if let Some(validator) = compile(&path)? {
                    let headers = routes[index]
                        .responses
                        .iter()
                        .find(|declared| declared.status == r.status)
                        .map(|declared| declared.headers)
                        .unwrap_or_default()
                        .iter()
                        .map(|h| (h.name.to_ascii_lowercase(), h.kind))
                        .collect();
                    header_checks.insert((index, r.status), HeaderCheck { validator, headers });
                }
            }
            by_name.insert(ep.name.clone(), index);
        }
        let mut events = Vec::new();
        for event in &spec.events {
            if let Some(validator) = compile(&format!("schemas/events/{}.json", event.name))? {
                events.push(EventCheck {
                    name: event.name.clone(),
                    pattern: event.pattern.clone(),
                    validator,
                });
            }
        }
        Ok(Contract {
            events,
            carriers: secret_carriers(&spec),
            secret_names: crate::secrets::secret_field_names(&spec),
            spec,
            built,
            by_name,
            validators,
            header_checks,
        })
    }

    /// The events whose type pattern `event_type` fits, in spec order: one, or several
    /// sharing a pattern (two payload kinds both sent as `item.{kind}.created`).
    pub fn events_of_type(&self, event_type: &str) -> Vec<&EventCheck> {
        self.events
            .iter()
            .filter(|e| {
                covenant_runtime::events::match_event_type(&e.pattern, event_type).is_some()
            })
            .collect()
    }

    /// Every event of the spec with its schema.
    pub fn events(&self) -> &[EventCheck] {
        &self.events
    }

    pub fn routes(&self) -> &'static [Route] {
        self.built.endpoints
    }

    /// The endpoint of that name; built once for the run, so a plan holds its routes
    /// without copies.
    pub fn route(&self, name: &str) -> Option<&'static Route> {
        self.by_name.get(name).map(|&i| &self.built.endpoints[i])
    }

    /// The endpoint a recorded request calls: the method and the path agree, literal
    /// segments preferred over placeholders, by the contract's one rule.
    pub fn route_for(&self, method: &str, path: &str) -> Option<&'static Route> {
        self.built.route(method, path)
    }

    /// Where requests carry secrets, by the name that stands for them: every auth
    /// scheme's credential, and every parameter marked `@secret`.
    pub fn secret_carriers(&self) -> &[(String, Carrier)] {
        &self.carriers
    }

    /// The names of the fields the spec marks `@secret`.
    pub fn secret_names(&self) -> &[String] {
        &self.secret_names
    }

    /// The type of an endpoint's request body.
    pub fn request_body_type(&self, endpoint: &str) -> Option<&Type> {
        self.spec.endpoint_named(endpoint)?.body.as_ref()
    }

    /// The type of the body an endpoint declares for a status.
    pub fn response_body_type(&self, endpoint: &str, status: u16) -> Option<&Type> {
        self.declared_response(endpoint, status)?.body.as_ref()
    }

    /// The response an endpoint declares for an answer of `status`: its own, its class's
    /// (`4XX`) or `default`.
    fn declared_response(&self, endpoint: &str, status: u16) -> Option<&Response> {
        let ep = self.spec.endpoint_named(endpoint)?;
        StatusPattern::resolve(all_responses(&self.spec, ep).map(|r| (r.status, r)), status)
    }

    /// The key of the response that answers `status`, for the compiled checks.
    fn key(&self, endpoint: &str, status: u16) -> Option<(usize, StatusPattern)> {
        let index = *self.by_name.get(endpoint)?;
        Some((index, self.routes().get(index)?.response(status)?.status))
    }

    pub fn validator(&self, endpoint: &str, status: u16) -> Option<&Validator> {
        self.validators
            .get(&self.key(endpoint, status)?)
            .map(|v| v.as_ref())
    }

    /// The check of the headers a status of `endpoint` declares, when it declares some.
    pub fn header_check(&self, endpoint: &str, status: u16) -> Option<&HeaderCheck> {
        self.header_checks.get(&self.key(endpoint, status)?)
    }

    /// Where the rule a schema error at `instance_path` (a JSON pointer) enforces comes
    /// from: the most specific `@source` on the way from the response to that value.
    pub fn provenance_at(&self, endpoint: &str, status: u16, instance_path: &str) -> Provenance {
        let Some(ep) = self.spec.endpoint_named(endpoint) else {
            return Provenance::Document;
        };
        let Some(response) = self.declared_response(endpoint, status) else {
            return Provenance::Document;
        };
        let mut provenance = response_provenance(ep, response);
        let Some(mut ty) = response.body.as_ref() else {
            return provenance;
        };
        for step in instance_path.split('/').skip(1) {
            match self.step_into(ty, step) {
                Some((next, p)) => {
                    if !p.is_document() {
                        provenance = p;
                    }
                    ty = next;
                }
                None => break,
            }
        }
        provenance
    }

    fn step_into<'a>(&'a self, ty: &'a Type, step: &str) -> Option<(&'a Type, Provenance)> {
        match ty {
            Type::List(item, _) | Type::Map(item, _) => Some((item, Provenance::Document)),
            Type::Model(id) => {
                let model = self.spec.model(*id);
                let field = model.field(step)?;
                let p = if field.provenance.is_document() {
                    model.provenance
                } else {
                    field.provenance
                };
                Some((&field.ty, p))
            }
            Type::Union(members) => members.iter().find_map(|m| self.step_into(m, step)),
            _ => None,
        }
    }
}

/// Every auth scheme's carrier, and a header or query parameter of any endpoint marked
/// `@secret` as a carrier of its own name.
fn secret_carriers(spec: &Spec) -> Vec<(String, Carrier)> {
    let mut out: Vec<(String, Carrier)> = spec
        .auth_schemes
        .iter()
        .map(|s| (s.name.clone(), s.carrier.clone()))
        .collect();
    for param in spec.endpoints.iter().flat_map(|ep| &ep.params) {
        let name = &param.field.name;
        let carrier = match param.location {
            ParamLocation::Header if param.field.secret => Carrier::Header(name.clone()),
            ParamLocation::Query if param.field.secret => Carrier::Query(name.clone()),
            _ => continue,
        };
        if !out.iter().any(|(_, c)| *c == carrier) {
            out.push((name.clone(), carrier));
        }
    }
    out
}

/// Serves `$ref`s between the generated schema files from memory.
#[derive(Clone)]
struct InMemorySchemas {
    base: String,
    files: std::collections::BTreeMap<String, String>,
}

impl Retrieve for InMemorySchemas {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let relative = uri
            .as_str()
            .strip_prefix(&self.base)
            .ok_or_else(|| format!("{} is outside the spec's schemas", uri.as_str()))?;
        let text = self
            .files
            .get(&format!("schemas/{relative}"))
            .ok_or_else(|| format!("no schema {relative}"))?;
        Ok(serde_json::from_str(text)?)
    }
}
