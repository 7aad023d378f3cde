//! The spec as the runner needs it: endpoints by name and by route, the statuses each
//! declares, and a compiled JSON Schema validator for every endpoint and status — the same
//! schemas `generate` writes, built in memory from the spec.

use covenant_codegen::emit::{all_responses, response_provenance, schema_base, schema_files};
use covenant_codegen::ir::{
    BodyMedia, Carrier, Endpoint, ParamLocation, Primitive, Provenance, Spec, Type,
};
use covenant_runtime::multipart::PartKind;
use jsonschema::{Retrieve, Uri, Validator};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// One declared response of an endpoint.
#[derive(Clone, Debug)]
pub struct DeclaredStatus {
    pub status: u16,
    pub has_body: bool,
    /// JSON, or text or bytes written as they are.
    pub media: BodyMedia,
    /// The body is `bytes`: its JSON form is base64.
    pub bytes: bool,
    pub provenance: Provenance,
}

impl DeclaredStatus {
    /// A received body in the JSON form the schemas and cassettes describe: a raw body as a
    /// string of its text (base64 of `bytes`), anything else as the JSON it holds.
    pub fn json_form(&self, body: &[u8]) -> Option<Value> {
        match &self.media {
            BodyMedia::Raw(_) if self.bytes => Some(Value::String(
                covenant_runtime::Bytes::from(body).to_base64(),
            )),
            BodyMedia::Raw(_) => std::str::from_utf8(body)
                .ok()
                .map(|t| Value::String(t.into())),
            _ => serde_json::from_slice(body).ok(),
        }
    }
}

/// An endpoint, indexed for resolving cassettes and matching recorded traffic.
#[derive(Debug)]
pub struct Route {
    pub name: String,
    pub method: &'static str,
    /// The path's segments; `None` for a placeholder.
    pub segments: Vec<Option<String>>,
    pub path_template: String,
    /// The API's name.
    pub api: String,
    /// The API's base, as the spec writes it (`{base_url}`).
    pub base: String,
    /// The name a target gives the base's URL by (`base_url`, `management_url`).
    pub base_name: String,
    pub query: Vec<String>,
    pub headers: Vec<String>,
    pub statuses: Vec<DeclaredStatus>,
    pub provenance: Provenance,
    pub tags: Vec<String>,
    /// How the request body is written: JSON, form fields, parts, or as it is.
    pub body_media: BodyMedia,
    /// The request body is `bytes`: a cassette gives it as base64.
    pub bytes_body: bool,
    /// How each field of a multipart body is sent.
    pub part_kinds: Vec<(String, PartKind)>,
}

impl Route {
    pub fn declares(&self, status: u16) -> Option<&DeclaredStatus> {
        self.statuses.iter().find(|s| s.status == status)
    }

    /// Whether a concrete path (`/v2/user/abc`) is this endpoint's.
    pub fn matches_path(&self, path: &str) -> bool {
        let parts: Vec<&str> = split_path(path);
        parts.len() == self.segments.len()
            && self
                .segments
                .iter()
                .zip(parts)
                .all(|(s, p)| s.as_deref().is_none_or(|lit| lit == p))
    }
}

/// The path's segments without the leading slash; a trailing slash keeps an empty last one.
pub fn split_path(path: &str) -> Vec<&str> {
    path.strip_prefix('/').unwrap_or(path).split('/').collect()
}

/// A spec, compiled for checking responses.
pub struct Contract {
    pub spec: Spec,
    routes: Vec<Arc<Route>>,
    by_name: HashMap<String, usize>,
    validators: HashMap<(usize, u16), Arc<Validator>>,
    header_checks: HashMap<(usize, u16), HeaderCheck>,
    carriers: Vec<(String, Carrier)>,
    secret_names: Vec<String>,
}

/// The headers a response declares: the schema of their values, and how each reads from text.
#[derive(Debug)]
pub struct HeaderCheck {
    pub validator: Validator,
    /// Each declared header by lower-case name, with the JSON type its text reads as.
    headers: Vec<(String, TextKind)>,
}

/// The JSON type a header's text reads as before its schema checks it.
#[derive(Clone, Copy, Debug)]
enum TextKind {
    Integer,
    Number,
    Boolean,
    String,
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
                TextKind::Integer => text.trim().parse::<i64>().ok().map(Value::from),
                TextKind::Number => parse_number(text.trim()).map(Value::from),
                TextKind::Boolean => parse_bool(text.trim()).map(Value::from),
                TextKind::String => None,
            };
            out.insert(name.clone(), parsed.unwrap_or(Value::String(text)));
        }
        Value::Object(out)
    }
}

fn text_kind(spec: &Spec, ty: &Type) -> TextKind {
    use covenant_codegen::ir::{EnumRepr, Primitive};
    match ty {
        Type::Primitive(Primitive::Int) => TextKind::Integer,
        Type::Primitive(Primitive::Number) => TextKind::Number,
        Type::Primitive(Primitive::Bool) => TextKind::Boolean,
        Type::Enum(id) if spec.enum_(*id).repr == EnumRepr::Int => TextKind::Integer,
        _ => TextKind::String,
    }
}

impl std::fmt::Debug for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contract")
            .field("routes", &self.routes.len())
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
        let mut routes = Vec::new();
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
        for ep in &spec.endpoints {
            let index = routes.len();
            for r in all_responses(&spec, ep) {
                let path = format!("schemas/endpoints/{}/{}.json", ep.name, r.status);
                if let Some(validator) = compile(&path)? {
                    validators.insert((index, r.status), Arc::new(validator));
                }
                let path = format!("schemas/endpoints/{}/{}.headers.json", ep.name, r.status);
                if let Some(validator) = compile(&path)? {
                    let headers = r
                        .headers
                        .iter()
                        .map(|h| (h.name.to_ascii_lowercase(), text_kind(&spec, &h.ty)))
                        .collect();
                    header_checks.insert((index, r.status), HeaderCheck { validator, headers });
                }
            }
            by_name.insert(ep.name.clone(), index);
            routes.push(Arc::new(route(&spec, ep)));
        }
        Ok(Contract {
            carriers: secret_carriers(&spec),
            secret_names: crate::secrets::secret_field_names(&spec),
            spec,
            routes,
            by_name,
            validators,
            header_checks,
        })
    }

    pub fn routes(&self) -> &[Arc<Route>] {
        &self.routes
    }

    /// The endpoint of that name; shared, so a plan holds its routes without copies.
    pub fn route(&self, name: &str) -> Option<&Arc<Route>> {
        self.by_name.get(name).map(|&i| &self.routes[i])
    }

    /// The endpoint a recorded request calls: the method and the path agree, literal
    /// segments preferred over placeholders.
    pub fn route_for(&self, method: &str, path: &str) -> Option<&Route> {
        self.routes
            .iter()
            .filter(|r| r.method.eq_ignore_ascii_case(method) && r.matches_path(path))
            .max_by_key(|r| r.segments.iter().filter(|s| s.is_some()).count())
            .map(Arc::as_ref)
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
        let ep = self.spec.endpoint_named(endpoint)?;
        all_responses(&self.spec, ep)
            .find(|r| r.status == status)?
            .body
            .as_ref()
    }

    pub fn validator(&self, endpoint: &str, status: u16) -> Option<&Validator> {
        let index = *self.by_name.get(endpoint)?;
        self.validators.get(&(index, status)).map(|v| v.as_ref())
    }

    /// The check of the headers a status of `endpoint` declares, when it declares some.
    pub fn header_check(&self, endpoint: &str, status: u16) -> Option<&HeaderCheck> {
        let index = *self.by_name.get(endpoint)?;
        self.header_checks.get(&(index, status))
    }

    /// Where the rule a schema error at `instance_path` (a JSON pointer) enforces comes
    /// from: the most specific `@source` on the way from the response to that value.
    pub fn provenance_at(&self, endpoint: &str, status: u16, instance_path: &str) -> Provenance {
        let Some(ep) = self.spec.endpoint_named(endpoint) else {
            return Provenance::Document;
        };
        let Some(response) = all_responses(&self.spec, ep).find(|r| r.status == status) else {
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
            Type::List(item) | Type::Map(item) => Some((item, Provenance::Document)),
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

fn route(spec: &Spec, ep: &Endpoint) -> Route {
    let names = |location| {
        ep.params_in(location)
            .map(|p| p.field.name.clone())
            .collect::<Vec<_>>()
    };
    Route {
        name: ep.name.clone(),
        method: ep.method.as_str(),
        segments: split_path(&ep.path)
            .into_iter()
            .map(|s| (!(s.starts_with('{') && s.ends_with('}'))).then(|| s.to_string()))
            .collect(),
        path_template: ep.path.clone(),
        api: spec.api(ep.api).name.clone(),
        base: spec.api(ep.api).base_url.clone(),
        base_name: spec.api(ep.api).base_name(),
        query: names(ParamLocation::Query),
        headers: names(ParamLocation::Header),
        statuses: all_responses(spec, ep)
            .map(|r| DeclaredStatus {
                status: r.status,
                has_body: r.body.is_some(),
                media: r.media.clone(),
                bytes: is_bytes(r.body.as_ref()),
                provenance: response_provenance(ep, r),
            })
            .collect(),
        provenance: ep.provenance,
        tags: ep.tags.clone(),
        body_media: ep.body_media.clone(),
        bytes_body: is_bytes(ep.body.as_ref()),
        part_kinds: part_kinds(spec, ep),
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

fn is_bytes(ty: Option<&Type>) -> bool {
    ty == Some(&Type::Primitive(Primitive::Bytes))
}

/// How each field of a multipart body is sent; empty for other bodies.
fn part_kinds(spec: &Spec, ep: &Endpoint) -> Vec<(String, PartKind)> {
    let Some(Type::Model(id)) = ep
        .body
        .as_ref()
        .filter(|_| ep.body_media == BodyMedia::Multipart)
    else {
        return Vec::new();
    };
    spec.model(*id)
        .fields
        .iter()
        .map(|f| {
            let item = match &f.ty {
                Type::List(item) => item,
                ty => ty,
            };
            let kind = match item {
                Type::Primitive(Primitive::File) => PartKind::File,
                Type::Primitive(Primitive::Bytes) => PartKind::Bytes,
                _ => PartKind::Text,
            };
            (f.name.clone(), kind)
        })
        .collect()
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
