//! Turning recorded traffic into a cassette that replays as it is: each exchange matched to
//! its spec endpoint, secrets replaced by references, values the service made up (ids,
//! tokens, instants) captured where a later request uses them and matched by kind where it
//! does not.

mod files;
pub mod har;
mod header_credentials;
mod hidden;
pub mod personal;
pub mod proxy;
mod request_secrets;
mod values;
mod volatiles;

pub use files::{HarRecording, checked_name, record_har};
pub use values::{escape_braces, split_url};
use values::{identifier, map_strings, rename_keys, string_leaves};
use volatiles::{Index, Volatile};

use crate::cassette::{Capture, Exchange, Expect, Request, Scenario};
use crate::contract::Contract;
use header_credentials::{Reach, credentials_in_headers};
use hidden::{Minted, is_hidden, unknown_credential};
use personal::StandIns;
use regex::Regex;
use request_secrets::RequestSecrets;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// One exchange as seen on the wire.
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    pub method: String,
    /// The path after the API's base.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub status: u16,
    pub response_headers: Vec<(String, String)>,
    pub response_body: Vec<u8>,
}

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$").unwrap()
});
static INSTANT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}").unwrap());

/// Request headers a replay sets itself or that say nothing about the API.
const DROPPED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "connection",
    "accept-encoding",
    "user-agent",
    "accept",
    "transfer-encoding",
    "keep-alive",
    "te",
    "upgrade",
    "proxy-connection",
    "cookie",
    "origin",
    "referer",
    "x-request-id",
];

/// Builds cassettes from recordings.
pub struct Recorder<'a> {
    contract: &'a Contract,
    /// Replaces secret values by their references (`{{credentials.team_api_key}}`), by the
    /// runner's rules.
    redactor: crate::secrets::Redactor,
    /// The keys of the credentials file.
    credential_names: std::collections::HashSet<String>,
}

/// A recorded exchange matched to its endpoint, its answer read once.
struct Matched<'r> {
    recorded: &'r Recorded,
    endpoint: String,
    /// The response body, when it is JSON.
    answer: Option<Value>,
}

impl<'a> Recorder<'a> {
    /// A recorder for `contract`; `secrets` are values and the references that replace them.
    pub fn new(contract: &'a Contract, secrets: Vec<(String, String)>) -> Recorder<'a> {
        let credential_names = secrets
            .iter()
            .filter_map(|(_, reference)| {
                let name = reference
                    .strip_prefix("{{credentials.")?
                    .strip_suffix("}}")?;
                Some(name.to_string())
            })
            .collect();
        Recorder {
            contract,
            credential_names,
            redactor: crate::secrets::Redactor::new(secrets),
        }
    }

    /// The scenario of a recorded session, and a warning for each exchange left out.
    pub fn scenario(
        &self,
        id: &str,
        title: &str,
        recorded: &[Recorded],
    ) -> (Scenario, Vec<String>) {
        let mut warnings = Vec::new();
        let mut kept: Vec<Matched> = Vec::new();
        for r in recorded {
            match self.contract.route_for(&r.method, &r.path) {
                Some(route) if route.response(r.status).is_some() => kept.push(Matched {
                    recorded: r,
                    endpoint: route.name.to_string(),
                    answer: serde_json::from_slice(&r.response_body).ok(),
                }),
                Some(route) => warnings.push(format!(
                    "{} {}: `{}` does not declare status {}; left out",
                    r.method, r.path, route.name, r.status
                )),
                None => warnings.push(format!(
                    "{} {}: no endpoint of the spec; left out",
                    r.method, r.path
                )),
            }
        }
        let kept = self.drop_unsourced(kept, &mut warnings);
        let mut volatiles = self.volatiles(&kept);
        self.capture_hidden(&kept, &mut volatiles);
        let request_secrets = self.request_secrets(&kept);
        let mut stand_ins = StandIns::default();
        for m in &kept {
            if let Ok(body) = serde_json::from_slice::<Value>(&m.recorded.body) {
                stand_ins.learn(self.contract, &m.endpoint, &body);
            }
            if let Some(answer) = &m.answer {
                stand_ins.learn_answer(self.contract, &m.endpoint, m.recorded.status, answer);
            }
        }
        let index = Index::new(volatiles);
        let mut exchanges = Vec::new();
        let mut labels = volatiles::Names::default();
        for (i, m) in kept.iter().enumerate() {
            let label = labels.unique_label(&m.endpoint);
            let mut exchange = self.exchange(m, label, i, &index, &stand_ins, &mut warnings);
            request_secrets.refer(&mut exchange);
            exchanges.push(exchange);
        }
        let scenario = Scenario {
            id: id.to_string(),
            title: title.to_string(),
            tags: vec!["recorded".into()],
            source: None,
            lets: request_secrets.lets(),
            headers: BTreeMap::new(),
            exchanges,
        };
        (scenario, grouped(warnings))
    }

    /// The values of the `@secret` fields the recorded requests send (a bulk import's
    /// provider tokens, a sign-in's password), each under a name of its own.
    fn request_secrets(&self, kept: &[Matched]) -> RequestSecrets {
        let mut secrets = RequestSecrets::default();
        let auth_headers = self.auth_headers();
        for m in kept {
            // A credential header no auth scheme of the spec reads (a proxy's, a gateway's).
            let headers: Value = m
                .recorded
                .headers
                .iter()
                .filter(|(name, _)| {
                    !auth_headers
                        .iter()
                        .any(|(h, _, _)| h.eq_ignore_ascii_case(name))
                })
                .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                .collect::<Map<String, Value>>()
                .into();
            let mut found = Vec::new();
            credentials_in_headers(&headers, &mut found);
            for f in found {
                secrets.name_found(f);
            }
            let (Some(ty), Ok(body)) = (
                self.contract.request_body_type(&m.endpoint),
                serde_json::from_slice::<Value>(&m.recorded.body),
            ) else {
                continue;
            };
            let mut found = Vec::new();
            crate::secrets::secret_values(&self.contract.spec, ty, &body, &mut found);
            for (field, value) in found {
                secrets.name(&field, value, Reach::Everywhere);
            }
            let mut found = Vec::new();
            credentials_in_headers(&body, &mut found);
            for f in found {
                secrets.name_found(f);
            }
        }
        secrets
    }

    /// The credentials of a request a tool hid that an answer mints rather than a
    /// credentials file gives, by header and scheme: a `@secret` field has the scheme's
    /// name (the `link_token` a response holds). Any other hidden credential is the
    /// deployment's, written as its reference. None for a refused request (401), whose
    /// placeholder is what it sent as far as a replay is concerned.
    fn hidden_unknown_credentials(&self, r: &Recorded) -> Vec<(String, String)> {
        let minted = |scheme: &str| self.contract.secret_names().iter().any(|n| n == scheme);
        let auth_headers = self.auth_headers();
        r.headers
            .iter()
            .filter_map(|(name, value)| {
                let (_, scheme, prefix) = auth_headers
                    .iter()
                    .find(|(h, _, _)| h.eq_ignore_ascii_case(name))?;
                let credential = value.strip_prefix(prefix.as_str()).unwrap_or(value).trim();
                let unknown = !self.credential_names.contains(scheme) && minted(scheme);
                (is_hidden(credential) && unknown && !self.refused(r, name))
                    .then(|| (name.clone(), scheme.clone()))
            })
            .collect()
    }

    /// Whether the answer refused the credential in `header` (401): the one its body names
    /// when it names one of the request's hidden credentials, else every hidden one.
    fn refused(&self, r: &Recorded, header: &str) -> bool {
        if r.status != 401 {
            return false;
        }
        let auth_headers = self.auth_headers();
        let hidden: Vec<String> = r
            .headers
            .iter()
            .filter(|(name, value)| {
                auth_headers.iter().any(|(h, _, prefix)| {
                    h.eq_ignore_ascii_case(name)
                        && is_hidden(value.strip_prefix(prefix.as_str()).unwrap_or(value).trim())
                })
            })
            .map(|(name, _)| name.to_ascii_lowercase())
            .collect();
        let body = String::from_utf8_lossy(&r.response_body).to_ascii_lowercase();
        let named: Vec<&String> = hidden
            .iter()
            .filter(|h| body.contains(h.as_str()))
            .collect();
        named.is_empty() || named.iter().any(|h| h.eq_ignore_ascii_case(header))
    }

    /// Leaves out each exchange with a hidden credential that neither the credentials file
    /// nor an earlier answer (a value under the scheme's name, as the `link_token` a
    /// response minted) gives: replayed with the placeholder, it would test something else.
    fn drop_unsourced<'r>(
        &self,
        kept: Vec<Matched<'r>>,
        warnings: &mut Vec<String>,
    ) -> Vec<Matched<'r>> {
        let mut out: Vec<Matched> = Vec::new();
        let mut minted = Minted::default();
        for m in kept {
            let r = m.recorded;
            let unsourced = self
                .hidden_unknown_credentials(r)
                .into_iter()
                .find(|(_, scheme)| minted.latest(scheme).is_none());
            match unsourced {
                Some((header, scheme)) => warnings.push(format!(
                    "{} {}: the `{header}` credential was hidden by the tool that recorded it, and neither the credentials nor an earlier answer give `{scheme}`; left out",
                    r.method, r.path
                )),
                None => {
                    minted.learn(out.len(), m.answer.as_ref());
                    out.push(m);
                }
            }
        }
        out
    }

    /// Captures, for each hidden credential, the latest earlier answer's value under the
    /// scheme's name; the exchange refers to it.
    fn capture_hidden(&self, kept: &[Matched], volatiles: &mut Vec<Volatile>) {
        let mut minted = Minted::default();
        let mut names = volatiles::Names::taking(volatiles.iter().map(|v| v.name.clone()));
        let mut by_value: std::collections::HashMap<String, usize> = volatiles
            .iter()
            .enumerate()
            .map(|(i, v)| (v.value.clone(), i))
            .collect();
        for (i, m) in kept.iter().enumerate() {
            for (_, scheme) in self.hidden_unknown_credentials(m.recorded) {
                let Some((exchange, path, value)) = minted.latest(&scheme).cloned() else {
                    continue;
                };
                match by_value.get(&value) {
                    Some(at) => volatiles[*at].stands_for = Some(scheme.clone()),
                    None => {
                        let name = names.unique(&identifier(&scheme));
                        by_value.insert(value.clone(), volatiles.len());
                        volatiles.push(Volatile {
                            name,
                            value,
                            exchange,
                            path,
                            stands_for: Some(scheme),
                        });
                    }
                }
            }
            minted.learn(i, m.answer.as_ref());
        }
    }

    /// Made-up values of responses that a later request uses, each with a unique name.
    fn volatiles(&self, kept: &[Matched]) -> Vec<Volatile> {
        let answers: Vec<Option<&Value>> = kept.iter().map(|m| m.answer.as_ref()).collect();
        let requests: Vec<&Recorded> = kept.iter().map(|m| m.recorded).collect();
        volatiles::find(&answers, &requests)
    }

    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &self,
        m: &Matched,
        label: String,
        index: usize,
        volatiles: &Index,
        stand_ins: &StandIns,
        warnings: &mut Vec<String>,
    ) -> Exchange {
        let (r, endpoint) = (m.recorded, m.endpoint.as_str());
        let route = self.contract.route(endpoint).expect("matched above");
        let fill =
            |text: &str| -> String { volatiles.fill(&self.redact(&escape_braces(text)), index) };
        let mut query = Map::new();
        for (name, value) in &r.query {
            // A key in brackets (`filter[status]`) is kept as it was sent.
            let base = covenant_runtime::deep::split_key(name).map_or(name.as_str(), |(b, _)| b);
            if !route
                .params_in(covenant_runtime::contract::Location::Query)
                .any(|q| q == base)
            {
                warnings.push(format!(
                    "{} {}: query parameter `{name}` is not in the spec; left out of the request",
                    r.method, r.path
                ));
                continue;
            }
            let value = Value::String(fill(value));
            match query.get_mut(name) {
                Some(Value::Array(items)) => items.push(value),
                Some(first) => *first = Value::Array(vec![first.clone(), value]),
                None => {
                    query.insert(name.clone(), value);
                }
            }
        }
        let auth_headers = self.auth_headers();
        let mut headers = BTreeMap::new();
        for (name, value) in &r.headers {
            let lower = name.to_ascii_lowercase();
            if DROPPED_HEADERS.contains(&lower.as_str()) {
                continue;
            }
            let filled = fill(value);
            let value = match auth_headers
                .iter()
                .find(|(h, _, _)| h.eq_ignore_ascii_case(name))
            {
                // Neither a credential of the file nor a value an earlier answer minted.
                Some((_, scheme, prefix)) if filled == escape_braces(value) => {
                    let hidden = value.strip_prefix(prefix.as_str()).unwrap_or(value).trim();
                    let minted = volatiles.minted_for(scheme, index);
                    let refused = self.refused(r, name);
                    match minted {
                        Some(v) if is_hidden(hidden) && !refused => {
                            format!("{prefix}{{{{{}}}}}", v.name)
                        }
                        _ => unknown_credential(r, name, value, scheme, prefix, refused, warnings),
                    }
                }
                _ => filled,
            };
            headers.insert(lower, value);
        }
        let (body, raw_body) = match serde_json::from_slice::<Value>(&r.body) {
            _ if r.body.is_empty() => (None, None),
            Ok(json) => {
                headers
                    .remove("content-type")
                    .filter(|c| !c.starts_with("application/json"))
                    .map(|c| headers.insert("content-type".into(), c));
                let personal_or_fill = |key: &str, text: &str| match stand_ins.get(key, text) {
                    Some(stand_in) => stand_in.to_string(),
                    None => fill(text),
                };
                let mut body = map_strings(&json, "", &personal_or_fill);
                // A personal value may also be a key (a map's): the answer naming it (a
                // 422's `loc`) gets the stand-in, so the request must send the same.
                rename_keys(&mut body, &|k| stand_ins.get("", k).map(str::to_string));
                (Some(body), None)
            }
            Err(_) => (None, Some(fill(&String::from_utf8_lossy(&r.body)))),
        };
        let captures: BTreeMap<String, Capture> = volatiles
            .captured_at(index)
            .map(|v| (v.name.clone(), Capture::Body(v.path.clone())))
            .collect();
        let varies = m
            .answer
            .as_ref()
            .zip(self.contract.response_body_type(endpoint, r.status))
            .map(|(body, ty)| {
                let mut names = std::collections::BTreeSet::new();
                varying_fields(&self.contract.spec, ty, body, &mut names, 0);
                names
            })
            .unwrap_or_default();
        if !varies.is_empty() {
            let names: Vec<String> = varies.iter().map(|n| format!("`{n}`")).collect();
            warnings.push(format!(
                "{} {}: {} vary between runs (`@varies`): recorded by their type, not the values seen",
                r.method,
                r.path,
                names.join(", ")
            ));
        }
        let expected_body = m.answer.as_ref().map(|b| {
            let known = Known {
                volatiles,
                exchange: index,
                varies: &varies,
                stand_ins,
                made_up: made_up_values(b),
            };
            self.expectation(b, "value", &known)
        });
        let mut expect_headers = BTreeMap::new();
        if let Some((_, ct)) = r
            .response_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        {
            let media = ct.split(';').next().unwrap_or("").trim();
            expect_headers.insert(
                "content-type".into(),
                json!({"$match": "regex", "pattern": format!("^{}", regex::escape(media))}),
            );
        }
        Exchange {
            id: Some(label),
            endpoint: endpoint.to_string(),
            request: Request {
                method: Some(r.method.to_ascii_uppercase()),
                path: fill(&r.path),
                query,
                headers,
                body,
                raw_body,
            },
            expect: Expect {
                status: r.status,
                headers: expect_headers,
                body: expected_body,
            },
            capture: captures,
            events: Vec::new(),
            volatile: Vec::new(),
            timeout: None,
        }
    }

    /// The recorded response as an expectation: earlier captures by reference, made-up
    /// values by kind, everything else exactly.
    fn expectation(&self, v: &Value, key: &str, known: &Known) -> Value {
        if known.varies.contains(key) {
            return shape_of(v);
        }
        match v {
            Value::String(s) => {
                if let Some(stand_in) = known.stand_ins.get(key, s) {
                    return Value::String(stand_in.to_string());
                }
                if let Some(captured) = known.volatiles.earlier_whole(s, known.exchange) {
                    return Value::String(format!("{{{{{}}}}}", captured.name));
                }
                let redacted = self.redact(s);
                if redacted != *s {
                    let whole = crate::template::text::Text::parse(&redacted)
                        .is_ok_and(|text| text.whole().is_some());
                    return if whole {
                        Value::String(redacted)
                    } else {
                        json!({"$match": "type", "type": "string"})
                    };
                }
                if s.contains("{{") || s.contains("}}") {
                    return Value::String(escape_braces(s));
                }
                if INSTANT.is_match(s) {
                    return json!({"$match": "type", "type": "string"});
                }
                if UUID.is_match(s) {
                    return json!({"$match": "regex", "pattern": "^[0-9a-fA-F-]{36}$"});
                }
                if is_made_up(key, s) || self.contract.secret_names().iter().any(|n| n == key) {
                    return json!({"$match": "type", "type": "string"});
                }
                if let Some(pattern) = pattern_around(s, &known.made_up) {
                    return json!({"$match": "regex", "pattern": pattern});
                }
                Value::String(s.clone())
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|i| self.expectation(i, key, known))
                    .collect(),
            ),
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| {
                        // A key that is a personal value is written as the request wrote it.
                        let written = known.stand_ins.get("", k).map_or(k.clone(), String::from);
                        (written, self.expectation(v, k, known))
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn redact(&self, text: &str) -> String {
        self.redactor.text(text)
    }

    /// Every credential header of the spec, with the credentials key that fills it and
    /// what comes before the credential in the header (`Bearer `).
    fn auth_headers(&self) -> Vec<(String, String, String)> {
        let spec = &self.contract.spec;
        spec.auth_schemes
            .iter()
            .filter_map(|s| {
                let named = s.alias_of.map_or(s, |a| spec.auth(a));
                let (header, prefix) = match s.carrier.header_value("") {
                    Some((header, prefix)) => (header.to_string(), prefix),
                    None => (s.carrier.header()?.to_string(), String::new()),
                };
                Some((header, named.name.clone(), prefix))
            })
            .collect()
    }
}

/// What a response's expectation is written with: values captured earlier, stand-ins for
/// personal data, and the values this response made up.
struct Known<'a> {
    volatiles: &'a Index,
    /// The exchange whose answer this is: values made up before it are captures.
    exchange: usize,
    /// The answer's fields the spec says vary between runs (`@varies`).
    varies: &'a std::collections::BTreeSet<String>,
    stand_ins: &'a StandIns,
    made_up: Vec<String>,
}

/// The values of a response the service made up (ids, tokens, instants), long enough to
/// stand out inside another string.
fn made_up_values(body: &Value) -> Vec<String> {
    let mut leaves = Vec::new();
    string_leaves(body, "$", "value", &mut leaves);
    leaves
        .into_iter()
        .filter(|(_, key, value)| value.len() >= 8 && is_made_up(key, value))
        .map(|(_, _, value)| value)
        .collect()
}

/// A string that holds a value made up by the same response (a URL carrying a fresh
/// token), or that names the recording server's address, as a pattern: the made-up parts
/// and the address match anything, the rest is literal. Such a string is never written as
/// it was: it would carry the token, and the replaying server has another address.
fn pattern_around(text: &str, made_up: &[String]) -> Option<String> {
    let mut pieces: Vec<(usize, usize)> = made_up
        .iter()
        .filter(|m| m.as_str() != text)
        .flat_map(|m| {
            text.match_indices(m.as_str())
                .map(|(at, m)| (at, at + m.len()))
        })
        .collect();
    let origin = ORIGIN.find(text).map(|m| m.end());
    if pieces.is_empty() {
        return None;
    }
    pieces.sort();
    let mut pattern = String::from("^");
    let mut copied = match origin {
        Some(end) => {
            pattern.push_str("https?://[^/]+");
            end
        }
        None => 0,
    };
    for (start, end) in pieces {
        if start < copied {
            continue;
        }
        pattern.push_str(&regex::escape(&text[copied..start]));
        pattern.push_str(".+?");
        copied = end;
    }
    pattern.push_str(&regex::escape(&text[copied..]));
    pattern.push('$');
    Some(pattern)
}

static ORIGIN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^https?://[^/?#]+").unwrap());

/// What a recording wrote and left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub written: usize,
    pub left_out: usize,
    pub warnings: Vec<String>,
}

impl Summary {
    pub fn of(recorded: usize, scenario: &Scenario, warnings: Vec<String>) -> Summary {
        Summary {
            written: scenario.exchanges.len(),
            left_out: recorded.saturating_sub(scenario.exchanges.len()),
            warnings,
        }
    }
}

/// Warnings saying the same of many requests, said once: a tool's HAR of a thousand
/// requests with a hidden key would otherwise bury the one warning that matters.
fn grouped(warnings: Vec<String>) -> Vec<String> {
    let mut by_message: Vec<(String, Vec<String>)> = Vec::new();
    for warning in warnings {
        let (request, message) = match warning.split_once(": ") {
            Some((request, message)) => (request.to_string(), message.to_string()),
            None => (String::new(), warning),
        };
        match by_message.iter_mut().find(|(m, _)| *m == message) {
            Some((_, requests)) => requests.push(request),
            None => by_message.push((message, vec![request])),
        }
    }
    by_message
        .into_iter()
        .map(|(message, requests)| match requests.as_slice() {
            [only] if only.is_empty() => message,
            [only] => format!("{only}: {message}"),
            [first, ..] => format!("{} requests (the first {first}): {message}", requests.len()),
            [] => message,
        })
        .collect()
}

/// Whether a response value was made up by the service: an id, an instant, a token.
fn is_made_up(key: &str, value: &str) -> bool {
    let key = key.to_ascii_lowercase();
    UUID.is_match(value)
        || INSTANT.is_match(value)
        || (["key", "token", "secret", "password", "cursor"]
            .iter()
            .any(|w| key.contains(w))
            && value.len() >= 8)
        || (value.len() >= 20
            && !value.contains(' ')
            && value.chars().any(|c| c.is_ascii_digit())
            && value.chars().any(|c| c.is_ascii_alphabetic())
            && !value.contains("://"))
}

/// Writes a recorded cassette whole (a reader never sees half of it), readable and
/// writable by its owner only: a recording may hold what the recorder could not tell apart
/// from ordinary data, so it is kept as a credentials file is.
pub fn write_cassette(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let partial = path.with_extension("json.partial");
    let _ = std::fs::remove_file(&partial);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&partial)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&partial, path)
}

/// The text of a cassette file for a scenario.
pub fn cassette_text(scenario: &Scenario) -> String {
    let mut text = serde_json::to_string_pretty(scenario).expect("scenarios serialize");
    text.push('\n');
    text
}

/// The names of the fields of `value` (of type `ty`) the spec marks `@varies`.
fn varying_fields(
    spec: &covenant_codegen::Spec,
    ty: &covenant_codegen::ir::Type,
    value: &Value,
    out: &mut std::collections::BTreeSet<String>,
    depth: usize,
) {
    use covenant_codegen::ir::Type;
    if depth > 32 {
        return;
    }
    match (ty, value) {
        (Type::Model(id), Value::Object(fields)) => {
            for field in &spec.model(*id).fields {
                match fields.get(&field.name) {
                    Some(_) if field.varies => {
                        out.insert(field.name.clone());
                    }
                    Some(held) => varying_fields(spec, &field.ty, held, out, depth + 1),
                    None => {}
                }
            }
        }
        (Type::List(item, _), Value::Array(items)) => items
            .iter()
            .for_each(|v| varying_fields(spec, item, v, out, depth + 1)),
        (Type::Map(item, _), Value::Object(entries)) => entries
            .values()
            .for_each(|v| varying_fields(spec, item, v, out, depth + 1)),
        (Type::Union(members), _) => members
            .iter()
            .for_each(|m| varying_fields(spec, m, value, out, depth + 1)),
        (Type::NamedUnion(id), _) => spec
            .union(*id)
            .members
            .iter()
            .for_each(|m| varying_fields(spec, m, value, out, depth + 1)),
        _ => {}
    }
}

/// A value written by its JSON type: what a field that varies between runs is held to.
fn shape_of(value: &Value) -> Value {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    json!({"$match": "type", "type": kind})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contract() -> Contract {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
        let (_, checked) = covenant_codegen::check_path(&path).unwrap();
        Contract::new(checked.spec.unwrap()).unwrap()
    }

    fn create_user(key: &str, client_user_id: &str, status: u16) -> Recorded {
        Recorded {
            method: "POST".into(),
            path: "/v2/user".into(),
            headers: vec![("x-service-api-key".into(), key.into())],
            body: format!(r#"{{"client_user_id": "{client_user_id}"}}"#).into_bytes(),
            status,
            response_headers: vec![("content-type".into(), "application/json".into())],
            response_body: br#"{"detail": "no"}"#.to_vec(),
            ..Recorded::default()
        }
    }

    #[test]
    fn a_known_key_is_a_reference_another_stays_and_braces_are_escaped() {
        let contract = contract();
        let recorder = Recorder::new(
            &contract,
            vec![("sk_real".into(), "{{credentials.team_api_key}}".into())],
        );
        let recorded = [
            create_user("sk_real", "a{{b}}", 401),
            create_user("not-a-key", "c", 401),
            create_user("sk_real", "d", 299),
        ];
        let (scenario, warnings) = recorder.scenario("recorded/t", "t", &recorded);
        assert_eq!(scenario.exchanges.len(), 2, "{warnings:?}");
        let header = |i: usize| scenario.exchanges[i].request.headers["x-service-api-key"].clone();
        assert_eq!(header(0), "{{credentials.team_api_key}}");
        assert_eq!(header(1), "not-a-key");
        assert_eq!(
            scenario.exchanges[0].request.body.as_ref().unwrap()["client_user_id"],
            "a{{$open}}b{{$close}}"
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("does not declare status 299"))
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("in no credentials file"))
        );
    }

    /// A bulk import's provider tokens are `@secret` in a request: the cassette holds a
    /// reference to a value each replay makes up, never the token.
    #[test]
    fn secret_values_of_requests_are_written_as_references() {
        let contract = contract();
        let recorder = Recorder::new(&contract, Vec::new());
        let body = r#"{"provider": "fitbit", "connections": [
            {"user_id": "u1", "access_token": "ya29.A0ARrdaM-token-1", "refresh_token": "1//0refresh-1", "provider_id": "p1", "expires_at": 1},
            {"user_id": "u2", "access_token": "ya29.A0ARrdaM-token-1", "refresh_token": "1//0refresh-2", "provider_id": "p2", "expires_at": 1}]}"#;
        let recorded = Recorded {
            method: "POST".into(),
            path: "/v2/link/bulk_import".into(),
            body: body.as_bytes().to_vec(),
            status: 200,
            response_headers: vec![("content-type".into(), "application/json".into())],
            response_body: br#"{"user_ids_imported": ["u1", "u2"]}"#.to_vec(),
            ..Recorded::default()
        };
        let (scenario, warnings) = recorder.scenario("recorded/bulk", "t", &[recorded]);
        let text = cassette_text(&scenario);
        assert!(
            !text.contains("ya29") && !text.contains("refresh-"),
            "{text}"
        );
        let sent = scenario.exchanges[0].request.body.as_ref().unwrap();
        assert_eq!(
            sent["connections"][0]["access_token"],
            "{{secret_access_token}}"
        );
        assert_eq!(
            sent["connections"][1]["access_token"],
            "{{secret_access_token}}"
        );
        assert_eq!(
            sent["connections"][1]["refresh_token"],
            "{{secret_refresh_token_2}}"
        );
        let stand_in = scenario.lets["secret_refresh_token_2"].as_str().unwrap();
        assert_eq!(stand_in.len(), "1//0refresh-2".len(), "{warnings:?}");
        assert_ne!(stand_in, "1//0refresh-2");
    }

    /// Without a credentials file, a key the upstream accepted is still written as its
    /// reference, and a credential header the spec's auth does not read (a gateway's
    /// bearer token) as a made-up value: no mode writes a live credential.
    #[test]
    fn accepted_keys_and_other_credential_headers_are_never_written() {
        let contract = contract();
        let recorder = Recorder::new(&contract, Vec::new());
        let mut accepted = create_user("sk_live_accepted_4f9a1c", "a", 200);
        accepted.response_body = br#"{"user_id": "5d3b1c2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d"}"#.to_vec();
        accepted
            .headers
            .push(("Authorization".into(), "Bearer gw".into()));
        let refused = create_user("wrong-key", "b", 401);
        let (scenario, warnings) = recorder.scenario("recorded/k", "k", &[accepted, refused]);
        let text = cassette_text(&scenario);
        assert!(
            !text.contains("sk_live_accepted") && !text.contains("Bearer gw\""),
            "{text}"
        );
        let headers = |i: usize| &scenario.exchanges[i].request.headers;
        assert_eq!(
            headers(0)["x-service-api-key"],
            "{{credentials.team_api_key}}"
        );
        assert_eq!(
            headers(0)["authorization"],
            "Bearer {{secret_authorization}}"
        );
        assert_eq!(headers(1)["x-service-api-key"], "wrong-key", "{warnings:?}");
    }

    /// A refresh's lists of sources depend on how fast each provider answered: recorded by
    /// their type, so the cassette replays whatever a second run's timing gives, and the
    /// recorder says so.
    #[test]
    fn fields_that_vary_between_runs_are_recorded_by_their_type() {
        let contract = contract();
        let recorder = Recorder::new(&contract, Vec::new());
        let user = "5d3b1c2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d";
        let answer = format!(
            r#"{{"success": true, "user_id": "{user}", "refreshed_sources": ["oura/sleep", "oura/activity"], "in_progress_sources": [], "failed_sources": []}}"#
        );
        let recorded = Recorded {
            method: "POST".into(),
            path: format!("/v2/user/refresh/{user}"),
            status: 200,
            response_headers: vec![("content-type".into(), "application/json".into())],
            response_body: answer.into_bytes(),
            ..Recorded::default()
        };
        let (scenario, warnings) = recorder.scenario("recorded/r", "r", &[recorded]);
        let body = scenario.exchanges[0].expect.body.as_ref().unwrap();
        assert_eq!(
            body["refreshed_sources"],
            json!({"$match": "type", "type": "array"})
        );
        assert_eq!(
            body["failed_sources"],
            json!({"$match": "type", "type": "array"})
        );
        assert_eq!(
            body["success"], true,
            "what does not vary is written as it was"
        );
        assert!(
            warnings.iter().any(|w| w.contains(
                "`failed_sources`, `in_progress_sources`, `refreshed_sources` vary between runs"
            )),
            "{warnings:?}"
        );
    }

    #[test]
    fn personal_values_are_written_as_stand_ins_wherever_they_appear() {
        let contract = contract();
        let recorder = Recorder::new(&contract, Vec::new());
        let patient = r#"{"first_name": "Jane", "last_name": "Doe", "email": "jane@corp.com", "phone_number": "+14155550100", "gender": "female", "dob": "1990-05-04", "address": {"first_line": "1 Main St"}}"#;
        let recorded = Recorded {
            method: "PATCH".into(),
            path: "/v2/user/5d3b1c2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d/info".into(),
            body: patient.as_bytes().to_vec(),
            status: 200,
            response_headers: vec![("content-type".into(), "application/json".into())],
            response_body: patient.as_bytes().to_vec(),
            ..Recorded::default()
        };
        let (scenario, warnings) = recorder.scenario("recorded/p", "p", &[recorded]);
        assert_eq!(scenario.exchanges.len(), 1, "{warnings:?}");
        let text = cassette_text(&scenario);
        for personal in [
            "Jane",
            "Doe",
            "jane@corp.com",
            "+14155550100",
            "1990-05-04",
            "1 Main St",
        ] {
            assert!(!text.contains(personal), "{personal} in {text}");
        }
        assert!(
            text.contains("\"xxxx@xxxx.xxx\"") && text.contains("\"1970-01-01\""),
            "{text}"
        );
        assert!(text.contains("\"female\""), "what is not personal stays");
    }

    #[test]
    fn a_personal_value_sent_as_a_key_is_replaced_there_too() {
        let contract = contract();
        let recorder = Recorder::new(&contract, Vec::new());
        let patient = r#"{"first_name": "Mainframe", "last_name": "Doe", "email": "a@b.co", "phone_number": "+1", "gender": "f", "dob": "1990-05-04", "address": {}}"#;
        let info = Recorded {
            method: "PATCH".into(),
            path: "/v2/user/5d3b1c2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d/info".into(),
            body: patient.as_bytes().to_vec(),
            status: 200,
            response_headers: vec![("content-type".into(), "application/json".into())],
            response_body: patient.as_bytes().to_vec(),
            ..Recorded::default()
        };
        let hook = Recorded {
            method: "POST".into(),
            path: "/v2/webhook/endpoint".into(),
            body: br#"{"url": "https://x.example", "headers": {"Mainframe": "1"}}"#.to_vec(),
            status: 422,
            response_headers: vec![("content-type".into(), "application/json".into())],
            response_body: br#"{"detail": [{"loc": ["body", "headers", "Mainframe"], "msg": "no", "type": "t"}]}"#.to_vec(),
            ..Recorded::default()
        };
        let (scenario, warnings) = recorder.scenario("recorded/k", "k", &[info, hook]);
        assert_eq!(scenario.exchanges.len(), 2, "{warnings:?}");
        let sent = scenario.exchanges[1].request.body.as_ref().unwrap();
        let echoed = scenario.exchanges[0].expect.body.as_ref().unwrap();
        assert_eq!(echoed["first_name"], "Xxxxxxxxx", "{echoed}");
        assert_eq!(sent["headers"]["Xxxxxxxxx"], "1", "{sent}");
        let text = cassette_text(&scenario);
        assert!(!text.contains("Mainframe"), "{text}");
    }
}
