//! Checks cassettes against the spec before anything is sent: every endpoint, parameter and
//! status exists, paths fit their endpoint, every `{{name}}` is defined where it is used,
//! every matcher and capture is well-formed.

use crate::cassette::locate::Step;
use crate::cassette::{Capture, Cassette, CassetteError, Exchange};
use crate::contract::{Contract, Route, split_path};
use crate::matcher::{MATCHERS, matcher_kind};
use crate::template::{Globals, references};
use serde_json::Value;
use std::collections::HashSet;

/// Every problem of every cassette, in file order.
pub fn check_all(
    cassettes: &[Cassette],
    contract: &Contract,
    globals: &Globals,
) -> Vec<CassetteError> {
    let mut errors: Vec<CassetteError> = cassettes
        .iter()
        .flat_map(|c| check(c, contract, globals))
        .collect();
    errors.sort();
    errors
}

/// Every problem of one cassette.
pub fn check(cassette: &Cassette, contract: &Contract, globals: &Globals) -> Vec<CassetteError> {
    let mut checker = Checker {
        cassette,
        globals,
        defined: cassette.scenario.lets.keys().cloned().collect(),
        errors: Vec::new(),
    };
    let scenario = &cassette.scenario;
    if scenario.id.trim().is_empty() {
        checker.error(vec!["id".into()], "the scenario id is empty".into());
    }
    for (name, value) in &scenario.lets {
        checker.templates(value, vec!["let".into(), name.as_str().into()]);
    }
    for (name, value) in &scenario.headers {
        checker.template(value, vec!["headers".into(), name.as_str().into()]);
    }
    if scenario.exchanges.is_empty() {
        checker.error(
            vec!["exchanges".into()],
            "a scenario needs at least one exchange".into(),
        );
    }
    let mut ids = HashSet::new();
    for (i, exchange) in scenario.exchanges.iter().enumerate() {
        let at = |rest: &[&str]| -> Vec<Step> {
            let mut steps: Vec<Step> = vec!["exchanges".into(), i.into()];
            steps.extend(rest.iter().map(|s| Step::from(*s)));
            steps
        };
        if !ids.insert(exchange.label(i)) {
            checker.error(
                at(&["id"]),
                format!("exchange id `{}` is used twice", exchange.label(i)),
            );
        }
        checker.exchange(exchange, contract, &at);
    }
    checker.errors
}

struct Checker<'a> {
    cassette: &'a Cassette,
    globals: &'a Globals,
    /// Names defined so far: `let` values, then captures of earlier exchanges.
    defined: HashSet<String>,
    errors: Vec<CassetteError>,
}

impl Checker<'_> {
    fn error(&mut self, steps: Vec<Step>, message: String) {
        self.errors.push(self.cassette.error_at(&steps, message));
    }

    fn exchange(
        &mut self,
        exchange: &Exchange,
        contract: &Contract,
        at: &dyn Fn(&[&str]) -> Vec<Step>,
    ) {
        let Some(route) = contract.route(&exchange.endpoint) else {
            let suggestion = closest(
                &exchange.endpoint,
                contract.routes().iter().map(|r| r.name.as_str()),
            );
            let help = suggestion
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            self.error(
                at(&["endpoint"]),
                format!("the spec has no endpoint `{}`{help}", exchange.endpoint),
            );
            return;
        };
        let request = &exchange.request;
        if let Some(method) = &request.method
            && !method.eq_ignore_ascii_case(route.method)
        {
            self.error(
                at(&["request", "method"]),
                format!(
                    "`{}` is {} {}, not {method}",
                    route.name, route.method, route.path_template
                ),
            );
        }
        if request.path.contains('?') {
            self.error(
                at(&["request", "path"]),
                format!(
                    "`{}` holds a query: give its parameters in `query`, where they are checked and encoded",
                    request.path
                ),
            );
        } else if !path_fits(route, &request.path) {
            self.error(
                at(&["request", "path"]),
                format!(
                    "`{}` does not fit `{}`'s path {}",
                    request.path, route.name, route.path_template
                ),
            );
        }
        self.template(&request.path, at(&["request", "path"]));
        for (name, value) in &request.query {
            let mut steps = at(&["request", "query"]);
            steps.push(name.as_str().into());
            if !route.query.iter().any(|q| q == name) {
                let declared = if route.query.is_empty() {
                    "none".to_string()
                } else {
                    route.query.join(", ")
                };
                self.error(
                    steps.clone(),
                    format!(
                        "`{}` has no query parameter `{name}` (declared: {declared})",
                        route.name
                    ),
                );
            }
            self.templates(value, steps);
        }
        for (name, value) in &request.headers {
            let mut steps = at(&["request", "headers"]);
            steps.push(name.as_str().into());
            self.template(value, steps);
        }
        if let Some(body) = &request.body {
            self.templates(body, at(&["request", "body"]));
        }
        if request.body.is_some() && request.raw_body.is_some() {
            self.error(
                at(&["request", "raw_body"]),
                "a request has `body` or `raw_body`, not both".into(),
            );
        }
        if route.declares(exchange.expect.status).is_none() {
            let declared: Vec<String> = route
                .statuses
                .iter()
                .map(|s| s.status.to_string())
                .collect();
            self.error(
                at(&["expect", "status"]),
                format!(
                    "`{}` does not declare status {} (declared: {})",
                    route.name,
                    exchange.expect.status,
                    declared.join(", ")
                ),
            );
        }
        for (name, value) in &exchange.expect.headers {
            let mut steps = at(&["expect", "headers"]);
            steps.push(name.as_str().into());
            self.expectation(value, steps);
        }
        if let Some(body) = &exchange.expect.body {
            self.expectation(body, at(&["expect", "body"]));
        }
        for (name, capture) in &exchange.capture {
            let mut steps = at(&["capture"]);
            steps.push(name.as_str().into());
            if let Capture::Body(path) = capture
                && let Err(e) = serde_json_path::JsonPath::parse(path)
            {
                self.error(steps, format!("`{path}` is not a JSON path: {e}"));
            }
            self.defined.insert(name.clone());
        }
    }

    /// Checks matchers and the templates in plain values.
    fn expectation(&mut self, value: &Value, steps: Vec<Step>) {
        self.walk(value, steps, true);
    }

    /// Checks the templates of every string in a value.
    fn templates(&mut self, value: &Value, steps: Vec<Step>) {
        self.walk(value, steps, false);
    }

    fn walk(&mut self, value: &Value, steps: Vec<Step>, matchers: bool) {
        if matchers && let Some(kind) = matcher_kind(value) {
            for problem in matcher_problems(kind, value) {
                self.error(steps.clone(), problem);
            }
            for (child_steps, child) in children(value, &steps) {
                if !matches!(child_steps.last(), Some(Step::Key(k)) if k == "$match" || k == "pattern")
                {
                    self.walk(child, child_steps, true);
                }
            }
            return;
        }
        match value {
            Value::String(s) => self.template(s, steps),
            _ => {
                for (child_steps, child) in children(value, &steps) {
                    self.walk(child, child_steps, matchers);
                }
            }
        }
    }

    fn template(&mut self, text: &str, steps: Vec<Step>) {
        if text.matches("{{").count() != text.matches("}}").count() {
            self.error(
                steps.clone(),
                format!("unbalanced `{{{{`/`}}}}` in `{text}`"),
            );
        }
        for name in references(text) {
            if let Some(problem) = self.undefined(name) {
                self.error(steps.clone(), problem);
            }
        }
    }

    fn undefined(&self, name: &str) -> Option<String> {
        if let Some(generator) = name.strip_prefix('$') {
            let known = ["uuid", "unique", "open", "close"].contains(&generator)
                || ["now", "date"].iter().any(|base| {
                    generator == *base
                        || generator
                            .strip_prefix(base)
                            .and_then(crate::template::parse_offset)
                            .is_some()
                });
            return (!known).then(|| format!("unknown generator `${generator}` (known: $uuid, $unique, $now, $now+1h, $date, $date-7d, $open, $close)"));
        }
        if let Some(key) = name.strip_prefix("credentials.") {
            return (!self.globals.credentials.is_empty()
                && !self.globals.credentials.contains_key(key))
            .then(|| format!("the credentials have no `{key}`"));
        }
        if let Some(var) = name.strip_prefix("env.") {
            return (!self.globals.env.contains_key(var))
                .then(|| format!("environment variable `{var}` is not set"));
        }
        (!self.defined.contains(name)).then(|| format!("`{{{{{name}}}}}` is not defined here: not a `let` value nor captured by an earlier exchange"))
    }
}

/// JSON types a `type` matcher names.
const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// What is wrong with one matcher: its name, its arguments, a pattern that does not compile.
fn matcher_problems(kind: &str, value: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if !MATCHERS.contains(&kind) {
        let help = closest(kind, MATCHERS.iter().copied())
            .map(|c| format!("did you mean `{c}`?"))
            .unwrap_or_else(|| format!("known: {}", MATCHERS.join(", ")));
        problems.push(format!("unknown matcher `{kind}`; {help}"));
        return problems;
    }
    let arg = |name: &str| value.get(name);
    match kind {
        "type" => match arg("type").and_then(Value::as_str) {
            Some(t) if JSON_TYPES.contains(&t) => {}
            Some(t) => {
                let help = closest(t, JSON_TYPES.iter().copied())
                    .map(|c| format!("; did you mean `{c}`?"))
                    .unwrap_or_default();
                problems.push(format!(
                    "`{t}` is not a JSON type (known: {}){help}",
                    JSON_TYPES.join(", ")
                ));
            }
            None => problems.push("a `type` matcher needs `\"type\": NAME`".into()),
        },
        "regex" => match arg("pattern").and_then(Value::as_str) {
            Some(pattern) => {
                if let Err(e) = regex::Regex::new(pattern) {
                    problems.push(format!("the pattern does not compile: {e}"));
                }
            }
            None => problems.push("a `regex` matcher needs `\"pattern\": TEXT`".into()),
        },
        "length" | "range" => {
            let bound = |name: &'static str| arg(name).map(|v| v.as_f64().ok_or(name));
            match (bound("min"), bound("max")) {
                (None, None) => problems.push(format!(
                    "a `{kind}` matcher needs a bound: `min`, `max` or both"
                )),
                (Some(Err(name)), _) | (_, Some(Err(name))) => {
                    problems.push(format!("`{name}` of a `{kind}` matcher is a number"))
                }
                (Some(Ok(min)), Some(Ok(max))) if min > max => {
                    problems.push(format!("`min` {min} is above `max` {max}: nothing matches"))
                }
                _ => {}
            }
        }
        "contains" if !arg("items").is_some_and(Value::is_array) => {
            problems.push("a `contains` matcher needs `\"items\": [...]`".into())
        }
        "datetime" => {
            if let Some(within) = arg("within")
                && within
                    .as_str()
                    .and_then(crate::template::parse_duration)
                    .is_none()
            {
                problems.push(format!(
                    "`within` {within} is not a duration: write 30s, 5m, 2h or 7d"
                ));
            }
        }
        "exact" if arg("value").is_none() => {
            problems.push("an `exact` matcher needs `\"value\": …`".into())
        }
        _ => {}
    }
    problems
}

/// The items of an array or the fields of an object, each with its steps.
fn children<'v>(value: &'v Value, steps: &[Step]) -> Vec<(Vec<Step>, &'v Value)> {
    let with = |step: Step| {
        let mut s = steps.to_vec();
        s.push(step);
        s
    };
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (with(i.into()), v))
            .collect(),
        Value::Object(fields) => fields
            .iter()
            .map(|(k, v)| (with(k.as_str().into()), v))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a cassette path fits the endpoint's template: literal segments equal, a
/// placeholder taking any segment.
fn path_fits(route: &Route, path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    let parts = split_path(path);
    parts.len() == route.segments.len()
        && route
            .segments
            .iter()
            .zip(parts)
            .all(|(segment, part)| match segment {
                Some(literal) => literal == part,
                None => !part.is_empty(),
            })
}

fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}
