//! Reading cassettes into plans and checking them against the spec in the same pass: every
//! endpoint, parameter and status exists, paths fit their endpoint, every `{{name}}` is
//! defined where it is used, every matcher and capture is well-formed. Every problem of
//! every file is told at once, each at its `file:line:col`.

use super::{CapturePlan, EventPlan, ExchangePlan, ExpectPlan, ScenarioPlan};
use crate::cassette::locate::Step;
use crate::cassette::{Capture, Cassette, CassetteError, EventExpect, Exchange};
use crate::contract::{Contract, Route};
use crate::suggest::{Likeness, closest};
use crate::template::Globals;
use crate::template::text::{PathStep, Reader, Reference, Text, Tree};
use covenant_runtime::contract::Location;
use serde_json::Value;
use std::collections::HashSet;

/// The plans of every cassette that reads cleanly, and every problem of the others, in
/// file order.
pub fn compile_all(
    cassettes: Vec<Cassette>,
    contract: &Contract,
    globals: &Globals,
) -> (Vec<ScenarioPlan>, Vec<CassetteError>) {
    let mut plans = Vec::new();
    let mut errors = Vec::new();
    for cassette in cassettes {
        match compile(cassette, contract, globals) {
            Ok(plan) => plans.push(plan),
            Err(mut problems) => errors.append(&mut problems),
        }
    }
    errors.sort();
    (plans, errors)
}

/// Every problem of every cassette, in file order; none when all can run.
pub fn check_all(
    cassettes: &[Cassette],
    contract: &Contract,
    globals: &Globals,
) -> Vec<CassetteError> {
    compile_all(cassettes.to_vec(), contract, globals).1
}

/// The plan of one cassette, or every problem it has.
pub fn compile(
    cassette: Cassette,
    contract: &Contract,
    globals: &Globals,
) -> Result<ScenarioPlan, Vec<CassetteError>> {
    let mut compiler = Compiler {
        cassette: &cassette,
        globals,
        defined: cassette.scenario.lets.keys().cloned().collect(),
        errors: Vec::new(),
    };
    let scenario = &cassette.scenario;
    if scenario.id.trim().is_empty() {
        compiler.error(&["id".into()], "the scenario id is empty".into());
    }
    let lets: Vec<(String, Tree)> = scenario
        .lets
        .iter()
        .map(|(name, value)| {
            let tree = compiler.tree(value, &["let".into(), name.as_str().into()]);
            (name.clone(), tree)
        })
        .collect();
    let headers: Vec<(String, Text)> = scenario
        .headers
        .iter()
        .map(|(name, value)| {
            let text = compiler.text(value, &["headers".into(), name.as_str().into()]);
            (name.clone(), text)
        })
        .collect();
    if scenario.exchanges.is_empty() {
        compiler.error(
            &["exchanges".into()],
            "a scenario needs at least one exchange".into(),
        );
    }
    let mut labels = HashSet::new();
    let mut exchanges = Vec::new();
    for (i, exchange) in scenario.exchanges.iter().enumerate() {
        let label = exchange.label(i);
        if !labels.insert(label.clone()) {
            compiler.error(
                &["exchanges".into(), i.into(), "id".into()],
                format!("exchange id `{label}` is used twice"),
            );
        }
        let at = At {
            steps: vec!["exchanges".into(), i.into()],
        };
        if let Some(plan) = compiler.exchange(exchange, label, contract, &headers, &at) {
            exchanges.push(plan);
        }
    }
    let errors = compiler.errors;
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(ScenarioPlan {
        cassette,
        lets,
        headers,
        exchanges,
    })
}

/// The steps to one exchange of a cassette.
struct At {
    steps: Vec<Step>,
}

impl At {
    fn then(&self, rest: &[&str]) -> Vec<Step> {
        let mut steps = self.steps.clone();
        steps.extend(rest.iter().map(|s| Step::from(*s)));
        steps
    }
}

struct Compiler<'a> {
    cassette: &'a Cassette,
    globals: &'a Globals,
    /// Names defined so far: `let` values, then captures of earlier exchanges.
    defined: HashSet<String>,
    errors: Vec<CassetteError>,
}

impl Compiler<'_> {
    fn error(&mut self, steps: &[Step], message: String) {
        self.errors.push(self.cassette.error_at(steps, message));
    }

    /// Reads a part of the cassette at `steps` with `read`, every problem located.
    fn read<T>(&mut self, steps: &[Step], read: impl FnOnce(&mut Reader) -> T) -> T {
        let (out, problems) = {
            let vet = |r: &Reference| self.undefined(r);
            let mut reader = Reader::new(&vet);
            let out = read(&mut reader);
            (out, reader.problems)
        };
        for (inner, message) in problems {
            self.error(&located(steps, &inner), message);
        }
        out
    }

    fn tree(&mut self, value: &Value, steps: &[Step]) -> Tree {
        self.read(steps, |r| r.tree(value))
    }

    fn text(&mut self, text: &str, steps: &[Step]) -> Text {
        self.read(steps, |r| r.text(text))
            .unwrap_or_else(|| Text::literal(text))
    }

    fn exchange(
        &mut self,
        exchange: &Exchange,
        label: String,
        contract: &Contract,
        scenario_headers: &[(String, Text)],
        at: &At,
    ) -> Option<ExchangePlan> {
        let Some(route) = contract.route(&exchange.endpoint) else {
            let help = closest(
                &exchange.endpoint,
                contract.routes().iter().map(|r| r.name),
                Likeness::Close,
            )
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
            self.error(
                &at.then(&["endpoint"]),
                format!("the spec has no endpoint `{}`{help}", exchange.endpoint),
            );
            return None;
        };
        let request = &exchange.request;
        self.check_method(route, request.method.as_deref(), at);
        self.check_path(route, &request.path, at);
        let path = self.text(&request.path, &at.then(&["request", "path"]));
        let query = request
            .query
            .iter()
            .map(|(name, value)| {
                let steps = at.then(&["request", "query", name.as_str()]);
                self.check_query_name(route, name, &steps);
                (name.clone(), self.tree(value, &steps))
            })
            .collect();
        let mut headers: Vec<(String, Text)> = scenario_headers.to_vec();
        for (name, value) in &request.headers {
            let text = self.text(value, &at.then(&["request", "headers", name.as_str()]));
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push((name.clone(), text));
        }
        let body = request
            .body
            .as_ref()
            .map(|b| self.tree(b, &at.then(&["request", "body"])));
        let raw_body = request
            .raw_body
            .as_ref()
            .map(|b| self.text(b, &at.then(&["request", "raw_body"])));
        if request.body.is_some() && request.raw_body.is_some() {
            self.error(
                &at.then(&["request", "raw_body"]),
                "a request has `body` or `raw_body`, not both".into(),
            );
        }
        let expect = self.expect(exchange, route, at);
        let captures = self.captures(exchange, at);
        let events = exchange
            .events
            .iter()
            .enumerate()
            .filter_map(|(i, event)| {
                let at = At {
                    steps: at
                        .then(&["events"])
                        .into_iter()
                        .chain([Step::from(i)])
                        .collect(),
                };
                self.event(event, contract, &at)
            })
            .collect();
        Some(ExchangePlan {
            label,
            route,
            path,
            query,
            headers,
            body,
            raw_body,
            literals: literal_strings(self.cassette, exchange),
            expect,
            captures,
            events,
            volatile: self.volatile(&exchange.volatile, at.then(&["volatile"])),
            timeout: exchange
                .timeout
                .as_ref()
                .map(|text| self.wait(text, at.then(&["timeout"]))),
        })
    }

    /// A wait the cassette writes (`30s`, `2m`): more than nothing and at most 10 minutes.
    fn wait(&mut self, text: &str, at: Vec<Step>) -> std::time::Duration {
        match crate::template::text::parse_duration(text).and_then(|d| d.to_std().ok()) {
            Some(d) if d <= super::MAX_WAIT && !d.is_zero() => d,
            _ => {
                self.error(
                    &at,
                    format!("`{text}` is no wait: write seconds or minutes, as `10s` or `2m`, at most 10 minutes"),
                );
                // The cassette is refused; this stands in until the errors are reported.
                super::MAX_WAIT
            }
        }
    }

    /// The JSON paths a transcript shows as their shape.
    fn volatile(&mut self, paths: &[String], at: Vec<Step>) -> Vec<serde_json_path::JsonPath> {
        let mut parsed = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            match serde_json_path::JsonPath::parse(path) {
                Ok(path) => parsed.push(path),
                Err(e) => {
                    let mut here = at.clone();
                    here.push(Step::from(i));
                    self.error(&here, format!("`{path}` is not a JSON path: {e}"));
                }
            }
        }
        parsed
    }

    /// An awaited event: its type one the spec can produce, its wait bounded, its matcher
    /// and captures well-formed; its captures are defined for what follows.
    fn event(&mut self, event: &EventExpect, contract: &Contract, at: &At) -> Option<EventPlan> {
        let event_type = self.text(&event.event_type, &at.then(&["event_type"]));
        if !event.event_type.contains("{{") && contract.events_of_type(&event.event_type).is_empty()
        {
            let patterns: Vec<&str> = contract
                .events()
                .iter()
                .map(|e| e.pattern.as_str())
                .collect();
            let help = closest(&event.event_type, patterns.iter().copied(), Likeness::Close)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            let known = match patterns.is_empty() {
                true => "the spec declares no events".to_string(),
                false => format!("declared: {}", patterns.join(", ")),
            };
            self.error(
                &at.then(&["event_type"]),
                format!(
                    "no event of the spec has type `{}` ({known}){help}",
                    event.event_type
                ),
            );
        }
        let within = match &event.within {
            None => super::DEFAULT_EVENT_WAIT,
            Some(text) => self.wait(text, at.then(&["within"])),
        };
        let expected = event
            .matches
            .as_ref()
            .map(|m| self.read(&at.then(&["match"]), |r| r.expected(m)));
        let mut captures = Vec::new();
        for (name, path) in &event.capture {
            match serde_json_path::JsonPath::parse(path) {
                Ok(parsed) => captures.push((
                    name.clone(),
                    CapturePlan::Body {
                        path: parsed,
                        written: path.clone(),
                    },
                )),
                Err(e) => self.error(
                    &at.then(&["capture", name.as_str()]),
                    format!("`{path}` is not a JSON path: {e}"),
                ),
            }
            self.defined.insert(name.clone());
        }
        let volatile = self.volatile(&event.volatile, at.then(&["volatile"]));
        if event.none && !event.capture.is_empty() {
            self.error(
                &at.then(&["capture"]),
                "an event that must not arrive has nothing to capture".to_string(),
            );
        }
        Some(EventPlan {
            event_type,
            within,
            expected,
            captures,
            volatile,
            none: event.none,
        })
    }

    fn check_method(&mut self, route: &Route, method: Option<&str>, at: &At) {
        if let Some(method) = method
            && !method.eq_ignore_ascii_case(route.method.as_str())
        {
            self.error(
                &at.then(&["request", "method"]),
                format!(
                    "`{}` is {} {}, not {method}",
                    route.name, route.method, route.path
                ),
            );
        }
    }

    fn check_path(&mut self, route: &Route, path: &str, at: &At) {
        let problem = if path.contains('?') {
            format!(
                "`{path}` holds a query: give its parameters in `query`, where they are checked and encoded"
            )
        } else if !route.path.matches(path) {
            format!(
                "`{path}` does not fit `{}`'s path {}",
                route.name, route.path
            )
        } else {
            return;
        };
        self.error(&at.then(&["request", "path"]), problem);
    }

    fn check_query_name(&mut self, route: &Route, name: &str, steps: &[Step]) {
        let query: Vec<&str> = route.params_in(Location::Query).collect();
        // `filter[status]`: a key of a parameter written in brackets, as a recording keeps it.
        let base = covenant_runtime::deep::split_key(name).map_or(name, |(base, _)| base);
        if query.contains(&base) {
            return;
        }
        let declared = if query.is_empty() {
            "none".to_string()
        } else {
            query.join(", ")
        };
        let help = closest(name, query.iter().copied(), Likeness::Close)
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        self.error(
            steps,
            format!(
                "`{}` has no query parameter `{name}` (declared: {declared}){help}",
                route.name
            ),
        );
    }

    fn expect(&mut self, exchange: &Exchange, route: &Route, at: &At) -> ExpectPlan {
        let status = exchange.expect.status;
        if route.response(status).is_none() {
            let declared: Vec<String> = route.statuses.iter().map(ToString::to_string).collect();
            self.error(
                &at.then(&["expect", "status"]),
                format!(
                    "`{}` does not declare status {status} (declared: {})",
                    route.name,
                    declared.join(", ")
                ),
            );
        }
        let headers = exchange
            .expect
            .headers
            .iter()
            .map(|(name, value)| {
                let steps = at.then(&["expect", "headers", name.as_str()]);
                (name.clone(), self.read(&steps, |r| r.expected(value)))
            })
            .collect();
        let body = exchange
            .expect
            .body
            .as_ref()
            .map(|b| self.read(&at.then(&["expect", "body"]), |r| r.expected(b)));
        ExpectPlan {
            status,
            headers,
            body,
        }
    }

    /// The exchange's captures; each name is defined for the exchanges after it.
    fn captures(&mut self, exchange: &Exchange, at: &At) -> Vec<(String, CapturePlan)> {
        let mut captures = Vec::new();
        for (name, capture) in &exchange.capture {
            let plan = match capture {
                Capture::Header { header } => Some(CapturePlan::Header(header.clone())),
                Capture::Body(path) => match serde_json_path::JsonPath::parse(path) {
                    Ok(parsed) => Some(CapturePlan::Body {
                        path: parsed,
                        written: path.clone(),
                    }),
                    Err(e) => {
                        self.error(
                            &at.then(&["capture", name.as_str()]),
                            format!("`{path}` is not a JSON path: {e}"),
                        );
                        None
                    }
                },
            };
            captures.extend(plan.map(|p| (name.clone(), p)));
            self.defined.insert(name.clone());
        }
        captures
    }

    /// What is wrong with a reference at this point of the scenario, if anything.
    fn undefined(&self, reference: &Reference) -> Option<String> {
        match reference {
            Reference::Generator(_) => None,
            Reference::Credential(key) => (!self.globals.credentials.is_empty()
                && !self.globals.credentials.contains_key(key))
            .then(|| format!("the credentials have no `{key}`")),
            Reference::Env(var) => (!self.globals.env.contains_key(var))
                .then(|| format!("environment variable `{var}` is not set")),
            Reference::Value(name) => (!self.defined.contains(name)).then(|| {
                format!(
                    "`{{{{{name}}}}}` is not defined here: not a `let` value nor captured by an earlier exchange"
                )
            }),
        }
    }
}

/// The steps of a problem found `inner` steps inside the value at `outer`.
fn located(outer: &[Step], inner: &[PathStep]) -> Vec<Step> {
    let mut steps = outer.to_vec();
    steps.extend_from_slice(inner);
    steps
}

/// Every string an exchange's request (and its scenario's headers) writes with no
/// template in it.
fn literal_strings(cassette: &Cassette, exchange: &Exchange) -> HashSet<String> {
    fn strings(value: &Value, out: &mut HashSet<String>) {
        match value {
            Value::String(s) if !s.contains("{{") => {
                out.insert(s.clone());
            }
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(fields) => fields.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let request = &exchange.request;
    let mut out = HashSet::new();
    let headers = cassette
        .scenario
        .headers
        .values()
        .chain(request.headers.values());
    out.extend(headers.filter(|v| !v.contains("{{")).cloned());
    request.query.values().for_each(|v| strings(v, &mut out));
    if let Some(body) = &request.body {
        strings(body, &mut out);
    }
    out
}
