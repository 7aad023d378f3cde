//! Replaying scenarios: in parallel across scenarios, in order within one, each response
//! judged against the spec's schema and the cassette's expectations.

use crate::body::encode_body;
use crate::cassette::{Capture, Cassette, Exchange};
use crate::contract::{Contract, Route};
use crate::exec::{self, Incoming, Outgoing, TransportError};
use crate::expected::ExpectedFailures;
use crate::judge::judge;
use crate::outcome::{
    Coverage, ExchangeResult, Failure, FailureKind, Report, ScenarioResult, Verdict,
};
use crate::progress::Progress;
use crate::template::{Globals, Scope, TemplateError, plain, redact};
use crate::transcript::{self, Normalizer};
use futures_util::StreamExt;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How a run behaves.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// Scenarios replayed at once.
    pub jobs: usize,
    /// Stop starting scenarios after the first failure.
    pub fail_fast: bool,
    /// Extra attempts for a request whose connection fails; never for an answer.
    pub retries: u32,
    /// How long one response may take.
    pub timeout: Duration,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            fail_fast: false,
            retries: 2,
            timeout: Duration::from_secs(10),
        }
    }
}

static PLACEHOLDER: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\{[A-Za-z_][A-Za-z0-9_]*\}").unwrap());

/// Where the implementation under test is: a URL for each placeholder API bases use
/// (`{base_url}`, `{management_url}`).
#[derive(Clone, Debug, Default)]
pub struct Target {
    pub bases: HashMap<String, String>,
}

impl Target {
    /// The URL an API base (`{base_url}`, or a literal URL) stands for.
    pub fn resolve(&self, base: &str) -> Result<String, String> {
        let mut out = base.to_string();
        for (name, url) in &self.bases {
            out = out.replace(&format!("{{{name}}}"), url.trim_end_matches('/'));
        }
        // Bases the target names no URL for are served at the main one.
        if out.contains('{')
            && let Some(main) = self.bases.get("base_url")
        {
            out = PLACEHOLDER
                .replace_all(&out, main.trim_end_matches('/'))
                .into_owned();
        }
        if out.contains('{') {
            Err(format!(
                "no URL for the API base `{base}`: pass --target or a credentials file naming it"
            ))
        } else {
            Ok(out)
        }
    }

    /// The URL of the main API, for reports.
    pub fn label(&self) -> String {
        self.bases
            .get("base_url")
            .cloned()
            .or_else(|| self.bases.values().next().cloned())
            .unwrap_or_default()
    }
}

/// Everything one run shares.
struct Run {
    contract: Arc<Contract>,
    globals: Arc<Globals>,
    secrets: Vec<(String, String)>,
    target: Target,
    expected: ExpectedFailures,
    settings: RunSettings,
    client: reqwest::Client,
    stop: AtomicBool,
    progress: Progress,
}

/// Replays `cassettes` (already checked against the contract) and judges every response.
pub async fn run(
    contract: Arc<Contract>,
    cassettes: Vec<Cassette>,
    globals: Arc<Globals>,
    target: Target,
    expected: ExpectedFailures,
    settings: RunSettings,
    progress: Progress,
) -> Report {
    let started = Instant::now();
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(settings.jobs.max(1) * 2)
        .tcp_nodelay(true)
        .build()
        .expect("a client with no TLS configuration builds");
    progress.start(cassettes.len());
    let run = Arc::new(Run {
        secrets: globals.secrets(),
        contract,
        globals,
        target,
        expected,
        settings,
        client,
        stop: AtomicBool::new(false),
        progress,
    });
    let ids: Vec<String> = cassettes.iter().map(|c| c.scenario.id.clone()).collect();
    let jobs = run.settings.jobs.max(1);
    let mut scenarios: Vec<ScenarioResult> = futures_util::stream::iter(cassettes)
        .map(|cassette| {
            let run = run.clone();
            async move {
                let result = run.scenario(&cassette).await;
                run.progress.finished(&result);
                result
            }
        })
        .buffer_unordered(jobs)
        .collect()
        .await;
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    run.progress.done();
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    Report {
        target: run.target.label(),
        spec: run.contract.spec.service.name.clone(),
        started_at,
        duration_ms: millis(started.elapsed()),
        coverage: coverage(&run.contract, &scenarios),
        stale_expected_failures: run
            .expected
            .stale(&id_refs)
            .into_iter()
            .map(String::from)
            .collect(),
        scenarios,
    }
}

impl Run {
    async fn scenario(&self, cassette: &Cassette) -> ScenarioResult {
        let scenario = &cassette.scenario;
        let started = Instant::now();
        let mut scope = Scope::new(&self.globals);
        let mut let_error = None;
        for (name, value) in &scenario.lets {
            match scope.value(value) {
                Ok(v) => {
                    scope.values.insert(name.clone(), v);
                }
                Err(TemplateError(e)) => let_error = Some(format!("let {name}: {e}")),
            }
        }
        let skip_all = self.settings.fail_fast && self.stop.load(Ordering::Relaxed);
        let mut failed = let_error.is_some() || skip_all;
        let mut exchanges = Vec::new();
        let mut entries: Vec<Taken> = Vec::new();
        for (i, exchange) in scenario.exchanges.iter().enumerate() {
            let route = self
                .contract
                .route(&exchange.endpoint)
                .expect("cassettes are checked against the contract before a run");
            if failed {
                exchanges.push(skipped(exchange, i, route));
                continue;
            }
            if let Some(problem) = let_error.take() {
                exchanges.push(template_failure(exchange, i, route, problem));
                continue;
            }
            let (result, entry) = self
                .exchange(cassette, exchange, i, route, &mut scope)
                .await;
            failed |= result.verdict == Verdict::Failed;
            exchanges.push(result);
            if let Some(entry) = entry {
                entries.push(entry);
            }
        }
        let transcript = self.transcript(&scope, &entries);
        let failed_exchange = exchanges
            .iter()
            .find(|e| e.verdict == Verdict::Failed)
            .map(|e| e.label.clone());
        let listed = self
            .expected
            .reason(&scenario.id, failed_exchange.as_deref());
        let verdict = match (skip_all, failed_exchange.is_some(), listed) {
            (true, _, _) => Verdict::Skipped,
            (false, true, Some(_)) => Verdict::ExpectedFailure,
            (false, true, None) => Verdict::Failed,
            (false, false, Some(_)) => Verdict::UnexpectedPass,
            (false, false, None) => Verdict::Passed,
        };
        if verdict.fails_run() {
            self.stop.store(true, Ordering::Relaxed);
        }
        ScenarioResult {
            id: scenario.id.clone(),
            title: scenario.title.clone(),
            tags: scenario.tags.clone(),
            file: cassette.file.display().to_string(),
            verdict,
            expected_failure: listed.map(String::from),
            exchanges,
            duration_ms: millis(started.elapsed()),
            transcript,
        }
    }

    async fn exchange(
        &self,
        cassette: &Cassette,
        exchange: &Exchange,
        index: usize,
        route: &Route,
        scope: &mut Scope<'_>,
    ) -> (ExchangeResult, Option<Taken>) {
        let outgoing = match self.outgoing(exchange, route, scope, &cassette.scenario.headers) {
            Ok(o) => o,
            Err(problem) => return (template_failure(exchange, index, route, problem), None),
        };
        let curl = exec::curl(&outgoing, &self.secrets);
        let sent = exec::send(
            &self.client,
            &outgoing,
            self.settings.timeout,
            self.settings.retries,
        )
        .await;
        let mut failures = Vec::new();
        let (status, duration_ms, response) = match sent {
            Ok(incoming) => {
                let body = match route.declares(incoming.status) {
                    Some(declared) => declared.json_form(&incoming.body),
                    None => serde_json::from_slice::<Value>(&incoming.body).ok(),
                };
                failures = judge(
                    &self.contract,
                    route,
                    cassette,
                    exchange,
                    &incoming,
                    body.as_ref(),
                    scope,
                );
                capture(exchange, &incoming, body.as_ref(), scope, &mut failures);
                (
                    Some(incoming.status),
                    millis(incoming.elapsed),
                    Ok(incoming),
                )
            }
            Err(e) => {
                failures.push(transport_failure(&e, route));
                (None, 0.0, Err(e.to_string()))
            }
        };
        let result = ExchangeResult {
            label: exchange.label(index),
            endpoint: exchange.endpoint.clone(),
            method: outgoing.method.clone(),
            url: redact(&outgoing.url, &self.secrets),
            expected_status: exchange.expect.status,
            status,
            verdict: if failures.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed
            },
            failures: failures
                .into_iter()
                .map(|mut f| {
                    f.actual = redact(&f.actual, &self.secrets);
                    f.expected = redact(&f.expected, &self.secrets);
                    f
                })
                .collect(),
            curl,
            duration_ms,
        };
        let mut shown: Vec<String> = vec!["content-type".into()];
        shown.extend(
            exchange
                .expect
                .headers
                .keys()
                .filter(|h| !h.eq_ignore_ascii_case("content-type"))
                .cloned(),
        );
        let entry = Taken {
            request: outgoing,
            response,
            shown,
            label: result.label.clone(),
            endpoint: exchange.endpoint.clone(),
        };
        (result, Some(entry))
    }

    /// The request with every template filled in.
    fn outgoing(
        &self,
        exchange: &Exchange,
        route: &Route,
        scope: &Scope,
        scenario_headers: &std::collections::BTreeMap<String, String>,
    ) -> Result<Outgoing, String> {
        let request = &exchange.request;
        let base = self.target.resolve(&route.base)?;
        let fill = |s: &str| scope.string(s).map_err(|TemplateError(e)| e);
        let mut url = format!("{base}{}", fill(&request.path)?);
        if !request.query.is_empty() {
            let mut query = form_urlencoded::Serializer::new(String::new());
            for (name, value) in &request.query {
                let value = scope.value(value).map_err(|TemplateError(e)| e)?;
                match value {
                    Value::Array(items) => {
                        for item in items {
                            query.append_pair(name, &plain(&item));
                        }
                    }
                    other => {
                        query.append_pair(name, &plain(&other));
                    }
                }
            }
            url.push('?');
            url.push_str(&query.finish());
        }
        let mut headers: Vec<(String, String)> = Vec::new();
        for (name, value) in scenario_headers.iter().chain(&request.headers) {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push((name.clone(), fill(value)?));
        }
        let body = match (&request.body, &request.raw_body) {
            (Some(json), _) => {
                let filled = scope.value(json).map_err(|TemplateError(e)| e)?;
                let (content_type, bytes) = encode_body(route, &filled)?;
                // The parts' boundary is the one they were written with, whatever the
                // cassette says.
                let multipart = content_type.starts_with("multipart/");
                if multipart {
                    headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-type"));
                }
                if !headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                {
                    headers.push(("content-type".into(), content_type));
                }
                Some(bytes)
            }
            (None, Some(raw)) => Some(fill(raw)?.into_bytes()),
            (None, None) => None,
        };
        Ok(Outgoing {
            method: route.method.to_string(),
            url,
            headers,
            body,
        })
    }

    fn transcript(&self, scope: &Scope, entries: &[Taken]) -> String {
        let mut named: Vec<(String, Value)> = scope
            .values
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // Where the target runs changes from run to run.
        named.extend(
            self.target
                .bases
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone()))),
        );
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let mut normalizer = Normalizer::new(&self.secrets, &named, &self.globals.run_id);
        let mut out = String::new();
        for taken in entries {
            transcript::write_entry(
                &mut out,
                &mut normalizer,
                &transcript::Entry {
                    label: &taken.label,
                    endpoint: &taken.endpoint,
                    request: &taken.request,
                    response: taken.response.as_ref().map_err(Clone::clone),
                    shown_headers: &taken.shown,
                },
            );
        }
        out
    }
}

/// One exchange as sent and received, kept for the transcript.
struct Taken {
    request: Outgoing,
    response: Result<Incoming, String>,
    /// Response headers the transcript shows.
    shown: Vec<String>,
    label: String,
    endpoint: String,
}

/// Takes the exchange's captures from the response into the scope.
fn capture(
    exchange: &Exchange,
    incoming: &Incoming,
    body: Option<&Value>,
    scope: &mut Scope,
    failures: &mut Vec<Failure>,
) {
    for (name, capture) in &exchange.capture {
        let value = match capture {
            Capture::Header { header } => incoming.header(header).map(|v| Value::String(v.into())),
            Capture::Body(path) => body.and_then(|b| {
                serde_json_path::JsonPath::parse(path)
                    .ok()
                    .and_then(|p| p.query(b).first().cloned())
            }),
        };
        match value {
            Some(v) => {
                scope.values.insert(name.clone(), v);
            }
            None => failures.push(Failure {
                kind: FailureKind::Capture,
                path: match capture {
                    Capture::Body(p) => p.clone(),
                    Capture::Header { header } => format!("header {header}"),
                },
                expected: format!("a value to capture as `{name}`"),
                actual: "nothing there".into(),
                source: "toolkit".into(),
            }),
        }
    }
}

fn transport_failure(e: &TransportError, route: &Route) -> Failure {
    let kind = match e {
        TransportError::Timeout(_) => FailureKind::Timeout,
        _ => FailureKind::Transport,
    };
    Failure {
        kind,
        path: "response".into(),
        expected: "a response".into(),
        actual: e.to_string(),
        source: route.provenance.word().into(),
    }
}

fn skipped(exchange: &Exchange, index: usize, route: &Route) -> ExchangeResult {
    ExchangeResult {
        label: exchange.label(index),
        endpoint: exchange.endpoint.clone(),
        method: route.method.to_string(),
        url: exchange.request.path.clone(),
        expected_status: exchange.expect.status,
        status: None,
        verdict: Verdict::Skipped,
        failures: Vec::new(),
        curl: String::new(),
        duration_ms: 0.0,
    }
}

fn template_failure(
    exchange: &Exchange,
    index: usize,
    route: &Route,
    problem: String,
) -> ExchangeResult {
    ExchangeResult {
        verdict: Verdict::Failed,
        failures: vec![Failure {
            kind: FailureKind::Template,
            path: "request".into(),
            expected: "a request whose templates fill in".into(),
            actual: problem,
            source: "toolkit".into(),
        }],
        ..skipped(exchange, index, route)
    }
}

/// Every declared status of every endpoint, with the scenarios that got it.
fn coverage(contract: &Contract, scenarios: &[ScenarioResult]) -> Coverage {
    let mut coverage = Coverage::default();
    for route in contract.routes() {
        let statuses = coverage.matrix.entry(route.name.clone()).or_default();
        for s in &route.statuses {
            statuses.entry(s.status).or_default();
        }
    }
    for scenario in scenarios {
        for exchange in &scenario.exchanges {
            let Some(status) = exchange.status else {
                continue;
            };
            if let Some(ids) = coverage
                .matrix
                .get_mut(&exchange.endpoint)
                .and_then(|s| s.get_mut(&status))
                && ids.last() != Some(&scenario.id)
            {
                ids.push(scenario.id.clone());
            }
        }
    }
    coverage
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}
