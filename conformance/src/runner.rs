//! Replaying scenarios: in parallel across scenarios, in order within one, each response
//! judged against the spec's schema and the cassette's expectations.

use crate::body::encode_body;
use crate::cassette::locate::Step;
use crate::contract::{Contract, Route};
use crate::exec::{self, Incoming, Outgoing, TransportError};
use crate::judge::judge;
use crate::known_failures::ExpectedFailures;
use crate::outcome::{
    Coverage, ExchangeResult, Failure, FailureKind, Report, ScenarioResult, Stopped, Verdict,
};
use crate::plan::{CapturePlan, ExchangePlan, ScenarioPlan};
use crate::progress::Progress;
use crate::secrets::SecretBook;
use crate::target::Target;
use crate::template::{Globals, Scope, TemplateError};
use crate::transcript::{self, Normalizer};
use covenant_runtime::contract::{Encoding, Location};
use covenant_runtime::text::text_pairs;
use futures_util::StreamExt;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest response body a run reads by default: 10 MiB.
pub const DEFAULT_MAX_BODY: usize = 10 * 1024 * 1024;

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
    /// The longest response body read; a longer one is a failure, read no further.
    pub max_body: usize,
    /// The run's webhook inbox, when it listens for events; scenarios that await events
    /// are skipped without one.
    pub events: Option<Arc<crate::events::EventHub>>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            fail_fast: false,
            retries: 2,
            timeout: Duration::from_secs(10),
            max_body: DEFAULT_MAX_BODY,
            events: None,
        }
    }
}

/// Everything one run shares.
struct Run {
    contract: Arc<Contract>,
    globals: Arc<Globals>,
    /// Every secret seen so far: the credentials, and those scenarios learn as they go.
    secrets: SecretBook,
    target: Target,
    expected: ExpectedFailures,
    settings: RunSettings,
    client: reqwest::Client,
    stop: AtomicBool,
    /// Where the target was lost, when a request found it gone: the run stops there.
    lost: std::sync::Mutex<Option<String>>,
    progress: Progress,
    /// Body bytes the transcripts may still hold.
    transcript_budget: AtomicUsize,
}

/// Replays the scenarios of a plan and judges every response.
pub async fn run(
    contract: Arc<Contract>,
    plans: Vec<ScenarioPlan>,
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
    progress.start(plans.len());
    let secrets = SecretBook::new();
    for (value, reference) in globals.secrets() {
        secrets.add(&value, &reference);
    }
    let run = Arc::new(Run {
        secrets,
        contract,
        globals,
        target,
        expected,
        settings,
        client,
        stop: AtomicBool::new(false),
        lost: std::sync::Mutex::new(None),
        progress,
        transcript_budget: AtomicUsize::new(transcript::TRANSCRIPT_BUDGET),
    });
    let ids: Vec<String> = plans.iter().map(|p| p.id().to_string()).collect();
    let jobs = run.settings.jobs.max(1);
    let mut scenarios: Vec<ScenarioResult> = futures_util::stream::iter(plans)
        .map(|plan| {
            let run = run.clone();
            async move {
                let result = run.scenario(&plan).await;
                run.progress.finished(&result);
                result
            }
        })
        .buffer_unordered(jobs)
        .collect()
        .await;
    // Suite order: the order the cassettes were read in (by path).
    let position: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    scenarios.sort_by_key(|s| position.get(s.id.as_str()).copied());
    run.progress.done();
    let mut report = Report {
        target: run.target.label(),
        bases: run.target.bases.clone(),
        spec: run.contract.spec.service.name.clone(),
        started_at,
        duration_ms: millis(started.elapsed()),
        // Deliveries go on arriving after the last scenario: the session that listens
        // counts them when it closes (`events::Session::close`).
        coverage: coverage(&run.contract, &scenarios),
        // Staleness is a property of the whole suite read, which a run of a selection
        // does not see: the caller that read the suite says (`ExpectedFailures::stale`).
        stale_expected_failures: Vec::new(),
        scenarios,
        snapshots: Vec::new(),
        stopped: run.lost().map(|reason| Stopped {
            exit: crate::verdict::EXIT_UNREACHABLE,
            reason,
        }),
        fail_on_skip: false,
        implementation: None,
        expected_failures: None,
        events: None,
    };
    // A secret learnt late in one scenario may have been written by another earlier.
    report.redact(&run.secrets.redactor());
    report
}

impl Run {
    async fn scenario(&self, plan: &ScenarioPlan) -> ScenarioResult {
        let scenario = &plan.cassette.scenario;
        let started = Instant::now();
        let mut scope = Scope::new(&self.globals);
        let mut let_error = None;
        for (name, value) in &plan.lets {
            match scope.tree(value) {
                Ok(v) => {
                    scope.values.insert(name.clone(), v);
                }
                Err(TemplateError(e)) => let_error = Some(format!("let {name}: {e}")),
            }
        }
        let no_receiver = plan.awaits_events() && self.settings.events.is_none();
        let mut skip_reason = if no_receiver {
            Some("it awaits events: run with --webhooks ADDR to receive them".to_string())
        } else if let Some(lost) = self.lost() {
            Some(format!("not run: the run stopped, {lost}"))
        } else if self.settings.fail_fast && self.stop.load(Ordering::Relaxed) {
            Some("not run: --fail-fast stopped the run at the first failure".to_string())
        } else {
            None
        };
        let mut failed = let_error.is_some() || skip_reason.is_some();
        let mut exchanges = Vec::new();
        let mut entries: Vec<Taken> = Vec::new();
        for exchange in &plan.exchanges {
            if failed {
                exchanges.push(skipped(exchange));
                continue;
            }
            if let Some(problem) = let_error.take() {
                exchanges.push(template_failure(exchange, problem));
                continue;
            }
            // Where deliveries this exchange must not cause would start.
            let since = self
                .settings
                .events
                .as_ref()
                .map_or(0, |hub| hub.received());
            let (mut result, mut entry) = self
                .exchange(exchange, scenario.source.as_deref(), &mut scope)
                .await;
            if let Some(lost) = self.lost_at(&scenario.id, exchange, &result).await {
                // Not a failure of the target's conformance: the run stops here.
                skip_reason = Some(format!("not finished: the run stopped, {lost}"));
                exchanges.push(skipped(exchange));
                failed = true;
                continue;
            }
            if result.verdict == Verdict::Passed && !exchange.events.is_empty() {
                let claimant = format!("{} / {}", scenario.id, exchange.label);
                let source = scenario.source.as_deref().unwrap_or("document");
                let mut arrived = self
                    .await_events(exchange, &mut scope, &claimant, source, since)
                    .await;
                // A delivery the target could not send once it was lost says nothing of it;
                // one that arrived wrong (a bad signature) still fails it.
                let lost = match arrived.missing {
                    true => self.lost_awaiting(&scenario.id, exchange).await,
                    false => None,
                };
                if let Some(lost) = lost {
                    arrived.failures.pop();
                    if arrived.failures.is_empty() {
                        skip_reason = Some(format!("not finished: the run stopped, {lost}"));
                        exchanges.push(skipped(exchange));
                        failed = true;
                        continue;
                    }
                }
                result.failures.extend(arrived.failures);
                if !result.failures.is_empty() {
                    result.verdict = Verdict::Failed;
                }
                if let Some(entry) = &mut entry {
                    entry.events = arrived.envelopes;
                }
            }
            failed |= result.verdict == Verdict::Failed;
            exchanges.push(result);
            if let Some(entry) = entry {
                entries.push(entry);
            }
        }
        locate(plan, &mut exchanges);
        let transcript = self.transcript(&scope, &entries);
        let failed_exchange = exchanges
            .iter()
            .find(|e| e.verdict == Verdict::Failed)
            .map(|e| e.label.clone());
        let listed = self
            .expected
            .reason(&scenario.id, failed_exchange.as_deref());
        let verdict = match (skip_reason.is_some(), failed_exchange.is_some(), listed) {
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
            file: plan.cassette.file.display().to_string(),
            verdict,
            expected_failure: listed.map(String::from),
            exchanges,
            duration_ms: millis(started.elapsed()),
            transcript,
            skip_reason,
        }
    }

    /// Where the target was lost, once a request found it gone.
    fn lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|lost| lost.clone())
    }

    /// Whether the exchange found the target gone: its connection failed or broke off, and
    /// the base no longer accepts connections. The first exchange to find it is named.
    async fn lost_at(
        &self,
        scenario: &str,
        exchange: &ExchangePlan,
        result: &ExchangeResult,
    ) -> Option<String> {
        let error = result
            .failures
            .iter()
            .find(|f| f.kind == FailureKind::Transport)
            .filter(|_| result.status.is_none())?;
        self.gone(scenario, exchange, &format!(": {}", error.actual))
            .await
    }

    /// Whether an awaited delivery is missing because the target is gone.
    async fn lost_awaiting(&self, scenario: &str, exchange: &ExchangePlan) -> Option<String> {
        match self.lost() {
            Some(lost) => Some(lost),
            None => {
                let seen = " once its events were awaited";
                self.gone(scenario, exchange, seen).await
            }
        }
    }

    /// Whether the target's base takes no new connection, so the run stops: the first
    /// exchange to find it so is named, with what it `seen`.
    async fn gone(&self, scenario: &str, exchange: &ExchangePlan, seen: &str) -> Option<String> {
        let base = self.target.resolve(exchange.route).ok()?;
        if accepts_connections(&base).await {
            return None;
        }
        let mut lost = self.lost.lock().ok()?;
        self.stop.store(true, Ordering::Relaxed);
        Some(
            lost.get_or_insert_with(|| {
                format!(
                    "the target was lost at {scenario} / {} ({base} accepts no connection{seen})",
                    exchange.label
                )
            })
            .clone(),
        )
    }

    /// Awaits the exchange's events in order, taking captures from each; stops at the
    /// first that does not arrive, as later ones may need its captures. An event that must
    /// not arrive is looked for among the deliveries after the first `since`.
    async fn await_events(
        &self,
        exchange: &ExchangePlan,
        scope: &mut Scope<'_>,
        claimant: &str,
        source: &str,
        since: usize,
    ) -> AwaitedEvents {
        let mut out = AwaitedEvents::default();
        let Some(hub) = &self.settings.events else {
            return out;
        };
        for event in &exchange.events {
            let event_type = match scope.text(&event.event_type) {
                Ok(t) => t,
                Err(TemplateError(problem)) => {
                    out.failures.push(event_failure(
                        "event_type",
                        "a filled-in event type",
                        &problem,
                        source,
                    ));
                    return out;
                }
            };
            let wanted = match &event.expected {
                Some(e) => format!(
                    "`{event_type}` matching {}",
                    crate::shown::show(&e.written())
                ),
                None => format!("`{event_type}`"),
            };
            if event.none {
                // Waits the time out: any such delivery in it fails the exchange.
                let unwanted = hub
                    .await_unwanted(
                        &event_type,
                        event.expected.as_ref(),
                        scope,
                        event.within,
                        since,
                        claimant,
                    )
                    .await;
                if let Some(envelope) = unwanted {
                    let id = envelope
                        .get("id")
                        .map_or_else(String::new, |id| format!(" ({})", crate::shown::show(id)));
                    let within = format!("within {} s, no {wanted}", event.within.as_secs_f64());
                    out.failures.push(event_failure(
                        "event",
                        &within,
                        &format!("one arrived{id}"),
                        source,
                    ));
                    return out;
                }
                continue;
            }
            match hub
                .await_event(
                    &event_type,
                    event.expected.as_ref(),
                    scope,
                    event.within,
                    claimant,
                )
                .await
            {
                Ok(arrived) => {
                    self.secrets
                        .learn_by_name(self.contract.secret_names(), &arrived.envelope);
                    out.failures.extend(arrived.failures);
                    for (name, plan) in &event.captures {
                        let CapturePlan::Body { path, written } = plan else {
                            continue;
                        };
                        match path.query(&arrived.envelope).first() {
                            Some(value) => {
                                scope.values.insert(name.clone(), value.clone());
                            }
                            // Located at what awaits the event.
                            None => out.failures.push(
                                Failure::new(
                                    FailureKind::Capture,
                                    written,
                                    &format!("a value for `{name}` in the event"),
                                    "nothing there",
                                    source,
                                )
                                .written_at(vec![Step::from("events")]),
                            ),
                        }
                    }
                    let mut shown = arrived.envelope;
                    transcript::show_shapes(&mut shown, &event.volatile);
                    out.envelopes.push((event_type, shown));
                }
                Err(why) => {
                    let within = format!("within {} s, {wanted}", event.within.as_secs_f64());
                    out.failures
                        .push(event_failure("event", &within, &why, source));
                    // One that came faulty is the target's failure, lost or not; run alone,
                    // so is one that came and did not match.
                    let alone = self.settings.jobs <= 1;
                    out.missing = !hub.unclaimed_since(&event_type, since, !alone);
                    return out;
                }
            }
        }
        out
    }

    async fn exchange(
        &self,
        exchange: &ExchangePlan,
        scenario_source: Option<&str>,
        scope: &mut Scope<'_>,
    ) -> (ExchangeResult, Option<Taken>) {
        let route = &exchange.route;
        let (outgoing, json_body) = match self.outgoing(exchange, scope) {
            Ok(o) => o,
            Err(problem) => return (template_failure(exchange, problem), None),
        };
        self.learn_request_secrets(exchange, &outgoing, json_body.as_ref());
        let curl = exec::curl(&outgoing, &self.secrets.redactor());
        let limits = exec::Limits {
            // A cassette's timeout gives a held answer more time, never less than the run's.
            timeout: exchange
                .timeout
                .map_or(self.settings.timeout, |t| t.max(self.settings.timeout)),
            retries: self.settings.retries,
            max_body: self.settings.max_body,
        };
        let sent = exec::send(&self.client, &outgoing, &limits).await;
        let mut failures = Vec::new();
        let mut response_kept = transcript::Kept::Whole;
        let (status, duration_ms, response) = match sent {
            Ok(incoming) => {
                let body = match route.response(incoming.status) {
                    Some(declared) => crate::contract::json_form(declared, &incoming.body),
                    None => serde_json::from_slice::<Value>(&incoming.body).ok(),
                };
                self.learn_response_secrets(route, &incoming, body.as_ref());
                failures = judge(
                    &self.contract,
                    exchange,
                    scenario_source,
                    &incoming,
                    body.as_ref(),
                    scope,
                );
                capture(exchange, &incoming, body.as_ref(), scope, &mut failures);
                let mut kept = incoming;
                // Judged and captured: what varies from run to run is shown by its shape.
                let shown = match body {
                    Some(mut json) if !exchange.volatile.is_empty() => {
                        transcript::show_shapes(&mut json, &exchange.volatile);
                        kept.body = serde_json::to_vec(&json).unwrap_or_default();
                        Some(json)
                    }
                    body => body,
                };
                response_kept = self.keep_for_transcript(&mut kept.body, shown.as_ref(), &failures);
                (Some(kept.status), millis(kept.elapsed), Ok(kept))
            }
            Err(e) => {
                failures.push(transport_failure(&e, route));
                (None, 0.0, Err(e.to_string()))
            }
        };
        // Secrets are replaced in the whole report once the run ends (`Report::redact`).
        let result = ExchangeResult {
            label: exchange.label.clone(),
            endpoint: route.name.to_string(),
            method: outgoing.method.clone(),
            url: outgoing.url.clone(),
            expected_status: exchange.expect.status,
            status,
            verdict: if failures.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed
            },
            failures,
            curl,
            duration_ms,
        };
        let mut shown: Vec<String> = vec!["content-type".into()];
        shown.extend(
            exchange
                .expect
                .headers
                .iter()
                .map(|(name, _)| name)
                .filter(|h| !h.eq_ignore_ascii_case("content-type"))
                .cloned(),
        );
        let entry = Taken {
            events: Vec::new(),
            request: outgoing,
            response,
            response_kept,
            shown,
            label: result.label.clone(),
            endpoint: route.name.to_string(),
        };
        (result, Some(entry))
    }

    /// Keeps of a judged body what its transcript shows, within the run's budget.
    fn keep_for_transcript(
        &self,
        body: &mut Vec<u8>,
        json: Option<&Value>,
        failures: &[Failure],
    ) -> transcript::Kept {
        let limit = if failures.is_empty() {
            transcript::SHOWN_BODY
        } else {
            transcript::SHOWN_FAILED_BODY
        };
        let kept = transcript::keep_for_transcript(body, json, limit, &self.secrets.redactor());
        let spent =
            self.transcript_budget
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                    left.checked_sub(body.len())
                });
        if spent.is_err() {
            *body = Vec::new();
            return transcript::Kept::Withheld;
        }
        kept
    }

    /// Learns the credentials a request carries and the `@secret` values of its body. A
    /// value the cassette writes as it is was never a secret of the run and stays; what a
    /// template filled in (a capture, a credential) is learnt.
    fn learn_request_secrets(
        &self,
        exchange: &ExchangePlan,
        outgoing: &Outgoing,
        body: Option<&Value>,
    ) {
        let literals = &exchange.literals;
        let templated = |pairs: &[(String, String)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .filter(|(_, v)| !literals.contains(v.as_str()))
                .cloned()
                .collect()
        };
        let query: Vec<(String, String)> = reqwest::Url::parse(&outgoing.url)
            .map(|url| {
                url.query_pairs()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        self.secrets.learn_credentials(
            self.contract.secret_carriers(),
            &templated(&outgoing.headers),
            &templated(&query),
        );
        let (Some(ty), Some(body)) = (self.contract.request_body_type(exchange.route.name), body)
        else {
            return;
        };
        let mut found = Vec::new();
        crate::secrets::secret_values(&self.contract.spec, ty, body, &mut found);
        for (field, value) in found {
            if !literals.contains(&value) {
                self.secrets.add_field_value(&field, &value);
            }
        }
    }

    /// Learns the `@secret` values of a response: by its declared type, and by field name
    /// whatever its shape, so an answer no status of the spec describes (or a body that
    /// is not the JSON the status promises) reveals nothing either.
    fn learn_response_secrets(&self, route: &Route, incoming: &Incoming, body: Option<&Value>) {
        let names = self.contract.secret_names();
        if let Some(body) = body {
            if let Some(ty) = self
                .contract
                .response_body_type(route.name, incoming.status)
            {
                self.secrets.learn_body(&self.contract.spec, ty, body);
            }
            self.secrets.learn_by_name(names, body);
        } else if !names.is_empty()
            && let Ok(json) = serde_json::from_slice::<Value>(&incoming.body)
        {
            self.secrets.learn_by_name(names, &json);
        }
    }

    /// The request with every template filled in, and its body's JSON form when it has one.
    fn outgoing(
        &self,
        exchange: &ExchangePlan,
        scope: &Scope,
    ) -> Result<(Outgoing, Option<Value>), String> {
        let route = &exchange.route;
        let base = self.target.resolve(route)?;
        let path = scope.path(&exchange.path).map_err(|TemplateError(e)| e)?;
        let mut url = format!("{base}{path}");
        if !exchange.query.is_empty() {
            let mut pairs = Vec::new();
            for (name, value) in &exchange.query {
                let value = scope.tree(value).map_err(|TemplateError(e)| e)?;
                let encoding = route
                    .params
                    .iter()
                    .find(|p| p.location == Location::Query && p.field.name == name)
                    .map_or(Encoding::Repeated, |p| p.field.encoding);
                text_pairs(name, &value, encoding, &mut pairs);
            }
            url.push('?');
            url.push_str(
                &form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(&pairs)
                    .finish(),
            );
        }
        let fill = |text| scope.text(text).map_err(|TemplateError(e)| e);
        let mut headers: Vec<(String, String)> = Vec::with_capacity(exchange.headers.len() + 1);
        for (name, value) in &exchange.headers {
            headers.push((name.clone(), fill(value)?));
        }
        let mut json_body = None;
        let body = match (&exchange.body, &exchange.raw_body) {
            (Some(json), _) => {
                let filled = scope.tree(json).map_err(|TemplateError(e)| e)?;
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
                json_body = Some(filled);
                Some(bytes)
            }
            (None, Some(raw)) => Some(fill(raw)?.into_bytes()),
            (None, None) => None,
        };
        let outgoing = Outgoing {
            method: route.method.to_string(),
            url,
            headers,
            body,
        };
        Ok((outgoing, json_body))
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
        if let Some(url) = self.settings.events.as_ref().and_then(|hub| hub.url()) {
            named.push(("webhooks_url".into(), Value::String(url.to_string())));
        }
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let mut normalizer =
            Normalizer::new(&self.secrets.snapshot(), &named, &self.globals.run_id);
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
                    response_kept: taken.response_kept,
                    events: &taken.events,
                },
            );
        }
        out
    }
}

/// The line and column of each failed expectation, at the place its failure names; the
/// cassette's text is read for them once, and only when something failed.
fn locate(plan: &ScenarioPlan, results: &mut [ExchangeResult]) {
    if results.iter().all(|r| r.failures.is_empty()) {
        return;
    }
    let cassette = &plan.cassette;
    let locator = crate::cassette::locate::Locator::new(&cassette.text);
    let file = cassette.file.display().to_string();
    for (index, result) in results.iter_mut().enumerate() {
        crate::located::locate_failures(&locator, &file, index, &mut result.failures);
    }
}

/// What awaiting an exchange's events found.
#[derive(Default)]
struct AwaitedEvents {
    failures: Vec<Failure>,
    /// Whether the last failure is an awaited delivery of which nothing arrived: nothing
    /// faulty of its type since the exchange began that no expectation took.
    missing: bool,
    /// Each event that arrived, by type, for the transcript.
    envelopes: Vec<(String, Value)>,
}

fn event_failure(path: &str, expected: &str, actual: &str, source: &str) -> Failure {
    Failure::new(FailureKind::Event, path, expected, actual, source)
}

/// One exchange as sent and received, kept for the transcript.
struct Taken {
    /// Events the exchange awaited, as they arrived.
    events: Vec<(String, Value)>,
    request: Outgoing,
    response: Result<Incoming, String>,
    /// How much of the response body was kept.
    response_kept: transcript::Kept,
    /// Response headers the transcript shows.
    shown: Vec<String>,
    label: String,
    endpoint: String,
}

/// Takes the exchange's captures from the response into the scope.
fn capture(
    exchange: &ExchangePlan,
    incoming: &Incoming,
    body: Option<&Value>,
    scope: &mut Scope,
    failures: &mut Vec<Failure>,
) {
    for (name, capture) in &exchange.captures {
        let value = match capture {
            CapturePlan::Header(header) => incoming.header(header).map(|v| Value::String(v.into())),
            CapturePlan::Body { path, .. } => body.and_then(|b| path.query(b).first().cloned()),
        };
        match value {
            Some(v) => {
                scope.values.insert(name.clone(), v);
            }
            None => failures.push(Failure {
                kind: FailureKind::Capture,
                path: capture.place(),
                expected: format!("a value to capture as `{name}`"),
                actual: "nothing there".into(),
                source: "toolkit".into(),
                at: None,
                written: vec![Step::from("capture"), Step::from(name.as_str())],
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
        at: None,
        written: Vec::new(),
    }
}

fn skipped(exchange: &ExchangePlan) -> ExchangeResult {
    let route = &exchange.route;
    ExchangeResult {
        label: exchange.label.clone(),
        endpoint: route.name.to_string(),
        method: route.method.to_string(),
        url: exchange.path.written().to_string(),
        expected_status: exchange.expect.status,
        status: None,
        verdict: Verdict::Skipped,
        failures: Vec::new(),
        curl: String::new(),
        duration_ms: 0.0,
    }
}

fn template_failure(exchange: &ExchangePlan, problem: String) -> ExchangeResult {
    ExchangeResult {
        verdict: Verdict::Failed,
        failures: vec![Failure {
            kind: FailureKind::Template,
            path: "request".into(),
            expected: "a request whose templates fill in".into(),
            actual: problem,
            source: "toolkit".into(),
            at: None,
            written: Vec::new(),
        }],
        ..skipped(exchange)
    }
}

/// Every declared status of every endpoint, with the scenarios that got it.
fn coverage(contract: &Contract, scenarios: &[ScenarioResult]) -> Coverage {
    let mut coverage = Coverage::default();
    for route in contract.routes() {
        let statuses = coverage.matrix.entry(route.name.to_string()).or_default();
        for status in route.statuses {
            statuses.entry(status.to_string()).or_default();
        }
    }
    for scenario in scenarios {
        for exchange in &scenario.exchanges {
            let Some(status) = exchange.status else {
                continue;
            };
            let Some(declared) = contract
                .route(&exchange.endpoint)
                .and_then(|route| route.response(status))
            else {
                continue;
            };
            if let Some(ids) = coverage
                .matrix
                .get_mut(&exchange.endpoint)
                .and_then(|s| s.get_mut(&declared.status.to_string()))
                && ids.last() != Some(&scenario.id)
            {
                ids.push(scenario.id.clone());
            }
        }
    }
    coverage
}

/// Whether `base`'s host accepts a TCP connection within 2 s.
async fn accepts_connections(base: &str) -> bool {
    match reqwest::Url::parse(base) {
        Ok(url) => connect(&url, Duration::from_secs(2)).await.is_ok(),
        Err(_) => false,
    }
}

/// Opens (and closes) a TCP connection to `url`'s host and port, or says why it could not
/// within `wait`.
pub async fn connect(url: &reqwest::Url, wait: Duration) -> Result<(), String> {
    // An IPv6 host without its brackets: `host_str` keeps them.
    let host = url
        .host_str()
        .unwrap_or("localhost")
        .trim_start_matches('[')
        .trim_end_matches(']');
    let port = url.port_or_known_default().unwrap_or(80);
    match tokio::time::timeout(wait, tokio::net::TcpStream::connect((host, port))).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer in {} s", wait.as_secs())),
    }
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}
