//! The deliveries a run received: each checked once as it arrives (signature, envelope
//! against the spec's event schemas, repeats of one id), kept within bounds, and handed to
//! the exchange that awaits it.

use crate::contract::Contract;
use crate::matcher::{self, Mismatch};
use crate::outcome::{EventsReport, Failure, FailureKind, ReceivedEvent};
use crate::plan::expected::Expected;
use crate::template::Scope;
use covenant_codegen::ir::EventTypeCarrier;
use covenant_runtime::webhooks::{self, WebhookSecret};
use http::{HeaderMap, StatusCode};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// Deliveries a run keeps; later ones are refused with 503, and counted.
pub const MAX_DELIVERIES: usize = 10_000;
/// Envelope bytes a run keeps in all, counted as received (parsed, an envelope takes up to
/// about 16 times its size); past them deliveries are refused likewise.
pub const MAX_KEPT_BYTES: usize = 16 * 1024 * 1024;
/// Failures kept per delivery, its repeats' included.
const MAX_FAILURES_PER_DELIVERY: usize = 25;
/// How far a delivery's timestamp may be from the receiver's clock.
pub const TIMESTAMP_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// The run's inbox of deliveries.
pub struct EventHub {
    contract: Arc<Contract>,
    /// The secrets deliveries are signed with: the subscription's, or the one configured.
    secrets: RwLock<Vec<WebhookSecret>>,
    inbox: Mutex<Inbox>,
    arrived: tokio::sync::Notify,
    /// Where deliveries are received, once listening: transcripts name it `[webhooks_url]`,
    /// as it changes from run to run.
    url: std::sync::OnceLock<String>,
    /// Whether deliveries are taken in: once the subscription (and its secret) is known.
    ready: std::sync::atomic::AtomicBool,
}

/// What [`EventHub::check`] finds.
type Checked = (
    bool,
    Option<Value>,
    Option<String>,
    Option<String>,
    Vec<Failure>,
);

impl std::fmt::Debug for EventHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHub").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Inbox {
    deliveries: Vec<Delivery>,
    /// Index of each delivery by its id.
    by_id: HashMap<String, usize>,
    bytes: usize,
    refused: usize,
}

struct Delivery {
    id: Option<String>,
    event_type: Option<String>,
    event: Option<String>,
    envelope: Option<Value>,
    repeats: usize,
    awaited_by: Option<String>,
    failures: Vec<Failure>,
}

/// An awaited event that arrived: its envelope, and the checks it failed on arrival.
pub struct Arrived {
    pub envelope: Value,
    pub failures: Vec<Failure>,
}

impl EventHub {
    pub fn new(contract: Arc<Contract>) -> EventHub {
        EventHub {
            contract,
            secrets: RwLock::new(Vec::new()),
            inbox: Mutex::new(Inbox::default()),
            arrived: tokio::sync::Notify::new(),
            url: std::sync::OnceLock::new(),
            ready: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Where deliveries are received, once the receiver listens.
    pub fn url(&self) -> Option<&str> {
        self.url.get().map(String::as_str)
    }

    pub(super) fn listening_at(&self, url: &str) {
        let _ = self.url.set(url.to_string());
    }

    /// Adds a secret deliveries may be signed with, read as the spec's scheme reads it
    /// (`whsec_…` for Standard Webhooks).
    pub fn add_secret(&self, text: &str) -> Result<(), String> {
        let scheme = self.contract.spec.event_signing;
        let secret = match scheme {
            Some(scheme) => scheme.secret(text),
            None => WebhookSecret::parse(text),
        }
        .map_err(|e| e.to_string())?;
        self.secrets
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(secret);
        Ok(())
    }

    /// Takes one delivery in; answers the status the receiver sends back.
    pub fn receive(&self, headers: &HeaderMap, body: &[u8]) -> StatusCode {
        if !self.ready.load(std::sync::atomic::Ordering::Acquire) {
            // Not subscribed yet: the secret is not known, and the sender will try again.
            return StatusCode::SERVICE_UNAVAILABLE;
        }
        let id_header = match self.contract.spec.event_signing {
            Some(scheme) => scheme.id_header(),
            None => Some(webhooks::ID_HEADER),
        };
        let id = id_header
            .and_then(|name| headers.get(name))
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let repeat_of = {
            let mut inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
            let repeat_of = id.as_ref().and_then(|id| inbox.by_id.get(id)).copied();
            if repeat_of.is_none()
                && (inbox.deliveries.len() >= MAX_DELIVERIES
                    || inbox.bytes + body.len() > MAX_KEPT_BYTES)
            {
                inbox.refused += 1;
                return StatusCode::SERVICE_UNAVAILABLE;
            }
            repeat_of
        };
        let (verified, envelope, event_type, event, failures) = self.check(headers, body);
        let mut inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(earlier) = repeat_of {
            // A repeat is checked as the first was; what it adds is told once.
            let first = &mut inbox.deliveries[earlier];
            first.repeats = first.repeats.saturating_add(1);
            let mut added = failures;
            if first.envelope != envelope {
                added.push(failure(
                    FailureKind::Event,
                    "webhook-id",
                    "a repeat to carry the body of the first delivery with its id",
                    "another body",
                ));
            }
            for f in with_source(added, self.source()) {
                if first.failures.len() < MAX_FAILURES_PER_DELIVERY && !first.failures.contains(&f)
                {
                    first.failures.push(f);
                }
            }
            return status_for(verified);
        }
        inbox.bytes += body.len();
        if let Some(id) = &id {
            let at = inbox.deliveries.len();
            inbox.by_id.insert(id.clone(), at);
        }
        inbox.deliveries.push(Delivery {
            id,
            event_type,
            event,
            envelope,
            repeats: 0,
            awaited_by: None,
            failures,
        });
        drop(inbox);
        self.arrived.notify_waiters();
        status_for(verified)
    }

    /// Every check of one delivery: whether its signature holds, its envelope, event type
    /// and spec event, and what failed.
    fn check(&self, headers: &HeaderMap, body: &[u8]) -> Checked {
        let mut failures = Vec::new();
        let verified = self.verify(headers, body, &mut failures);
        let envelope: Option<Value> = match serde_json::from_slice(body) {
            Ok(v) => Some(v),
            Err(e) => {
                failures.push(failure(
                    FailureKind::ContentType,
                    "body",
                    "a JSON envelope",
                    &format!("no JSON ({e})"),
                ));
                None
            }
        };
        let event_type = self.event_type(headers, envelope.as_ref());
        let event = match (&event_type, &envelope) {
            (Some(t), Some(envelope)) => self.judge(t, envelope, &mut failures),
            (None, Some(_)) => {
                failures.push(failure(
                    FailureKind::Event,
                    "event_type",
                    "the event type where the spec says deliveries name it",
                    "none",
                ));
                None
            }
            _ => None,
        };
        failures.truncate(MAX_FAILURES_PER_DELIVERY);
        let failures = with_source(failures, self.source());
        (verified, envelope, event_type, event, failures)
    }

    /// Deliveries are taken in from now on: the run knows the secret they are signed with.
    pub fn ready(&self) {
        self.ready.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Checks the signature when the spec signs deliveries; `false` when it fails.
    fn verify(&self, headers: &HeaderMap, body: &[u8], failures: &mut Vec<Failure>) -> bool {
        let Some(scheme) = self.contract.spec.event_signing else {
            return true;
        };
        let secrets = self.secrets.read().unwrap_or_else(|e| e.into_inner());
        if secrets.is_empty() {
            failures.push(failure(
                FailureKind::Event,
                "signature",
                "a delivery verifiable with the endpoint's secret",
                "no secret to verify it with: set COVENANT_WEBHOOK_SECRET to the secret the target signs with",
            ));
            return false;
        }
        let now = webhooks::now();
        let mut problems: Vec<String> = Vec::new();
        for secret in secrets.iter() {
            match scheme.verify(secret, headers, body, now, TIMESTAMP_TOLERANCE) {
                Ok(_) => return true,
                Err(e) => problems.push(e.to_string()),
            }
        }
        problems.dedup();
        failures.push(failure(
            FailureKind::Event,
            "signature",
            &format!(
                "a valid {} signature by the endpoint's secret",
                covenant_codegen::ir::signing_title(scheme).replace('`', "")
            ),
            &problems.join("; "),
        ));
        false
    }

    fn source(&self) -> &'static str {
        self.contract.spec.envelope.map_or("document", |id| {
            self.contract.spec.model(id).provenance.word()
        })
    }

    fn event_type(&self, headers: &HeaderMap, envelope: Option<&Value>) -> Option<String> {
        match self.contract.spec.event_type.as_ref()? {
            EventTypeCarrier::Field(name) => envelope?.get(name)?.as_str().map(String::from),
            EventTypeCarrier::Header(name) => headers
                .get(name.as_str())
                .and_then(|v| v.to_str().ok())
                .map(String::from),
        }
    }

    /// The spec's event the envelope is: the first whose type pattern fits and whose schema
    /// it meets; every schema error of the first candidate otherwise.
    fn judge(
        &self,
        event_type: &str,
        envelope: &Value,
        failures: &mut Vec<Failure>,
    ) -> Option<String> {
        let candidates = self.contract.events_of_type(event_type);
        if candidates.is_empty() {
            failures.push(failure(
                FailureKind::Event,
                "event_type",
                "an event type of the spec",
                &format!("`{event_type}`"),
            ));
            return None;
        }
        if let Some(event) = candidates.iter().find(|c| c.validator.is_valid(envelope)) {
            return Some(event.name.clone());
        }
        let first = candidates[0];
        for error in first.validator.iter_errors(envelope).take(20) {
            let path = error.instance_path().as_str().to_string();
            failures.push(failure(
                FailureKind::Schema,
                &format!("$event{}", path.replace('/', ".")),
                &format!("the schema of event `{}`", first.name),
                // Masked: a report names what is wrong, never the payload's values.
                &error.masked().to_string(),
            ));
        }
        Some(first.name.clone())
    }

    /// Waits up to `within` for a delivery of `event_type` that `expected` matches and no
    /// other expectation took; takes it for `claimant`. `Err` says what arrived instead.
    pub async fn await_event(
        &self,
        event_type: &str,
        expected: Option<&Expected>,
        scope: &Scope<'_>,
        within: Duration,
        claimant: &str,
    ) -> Result<Arrived, String> {
        self.watch(within, || self.claim(event_type, expected, scope, claimant))
            .await
            .ok_or_else(|| self.why_none(event_type, expected, scope))
    }

    /// Runs `look` now and again after each delivery, until it finds something or `within`
    /// has passed.
    async fn watch<T>(&self, within: Duration, mut look: impl FnMut() -> Option<T>) -> Option<T> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            // Enabled before looking, so a delivery between the look and the wait wakes it.
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if let Some(found) = look() {
                return Some(found);
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return None;
            }
        }
    }

    /// How many deliveries arrived so far: where a wait for one that must not arrive starts.
    pub fn received(&self) -> usize {
        self.inbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .deliveries
            .len()
    }

    /// Waits out `within` for a delivery of `event_type` that `expected` matches, among those
    /// that arrived after the first `since`; takes none of them, as a delivery that must not
    /// arrive is no other expectation's to lose. One `claimant` took itself was wanted
    /// (`{type X}` then `{type X, none}` says "exactly once"); one another scenario took
    /// still counts, or whichever scenario looked first would decide the verdict. Answers
    /// the envelope of one that came.
    pub async fn await_unwanted(
        &self,
        event_type: &str,
        expected: Option<&Expected>,
        scope: &Scope<'_>,
        within: Duration,
        since: usize,
        claimant: &str,
    ) -> Option<Value> {
        self.watch(within, || {
            let inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
            inbox.deliveries.iter().skip(since).find_map(|d| {
                let envelope = d.envelope.as_ref()?;
                (d.awaited_by.as_deref() != Some(claimant)
                    && d.event_type.as_deref() == Some(event_type)
                    && mismatches(expected, envelope, scope).is_empty())
                .then(|| envelope.clone())
            })
        })
        .await
    }

    /// Whether a delivery of `event_type` no expectation took arrived after the first
    /// `since`, faulty (a bad signature, a body off its schema) when `faulty_only`: the
    /// target sent something wrong before it was lost. With scenarios running alongside, a
    /// well-formed one that did not match may be another's, so it says nothing of this one.
    pub fn unclaimed_since(&self, event_type: &str, since: usize, faulty_only: bool) -> bool {
        let inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
        (inbox.deliveries.iter().skip(since)).any(|d| {
            d.awaited_by.is_none()
                && (!faulty_only || !d.failures.is_empty())
                && d.event_type.as_deref() == Some(event_type)
        })
    }

    fn claim(
        &self,
        event_type: &str,
        expected: Option<&Expected>,
        scope: &Scope<'_>,
        claimant: &str,
    ) -> Option<Arrived> {
        let mut inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
        let delivery = inbox.deliveries.iter_mut().find(|d| {
            d.awaited_by.is_none()
                && d.event_type.as_deref() == Some(event_type)
                && d.envelope
                    .as_ref()
                    .is_some_and(|e| mismatches(expected, e, scope).is_empty())
        })?;
        delivery.awaited_by = Some(claimant.to_string());
        Some(Arrived {
            envelope: delivery.envelope.clone().unwrap_or(Value::Null),
            failures: delivery.failures.clone(),
        })
    }

    /// What arrived of the awaited type, for the failure: how many, and how the latest one
    /// differs from the expectation.
    fn why_none(&self, event_type: &str, expected: Option<&Expected>, scope: &Scope<'_>) -> String {
        let inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
        let of_type: Vec<&Delivery> = inbox
            .deliveries
            .iter()
            .filter(|d| d.event_type.as_deref() == Some(event_type))
            .collect();
        let free: Vec<&&Delivery> = of_type.iter().filter(|d| d.awaited_by.is_none()).collect();
        let Some(latest) = free.last() else {
            return match of_type.len() {
                0 => format!(
                    "no delivery of `{event_type}` ({} deliveries in all)",
                    inbox.deliveries.len()
                ),
                n => format!("{n} deliveries of `{event_type}`, each taken by another expectation"),
            };
        };
        // Where it differs, not with what: the delivery may be another scenario's, and a
        // report does not publish payloads.
        let differences: Vec<String> = latest
            .envelope
            .as_ref()
            .map(|e| mismatches(expected, e, scope))
            .unwrap_or_default()
            .iter()
            .take(3)
            .map(|m| format!("{} (expected {})", m.path, m.expected))
            .collect();
        format!(
            "{} deliveries of `{event_type}` not yet taken, none matching; the latest differs at {}{}",
            free.len(),
            differences.join(", "),
            refused_note(inbox.refused)
        )
    }

    /// Deliveries received of each event of the spec, for the coverage matrix.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        let mut counts: BTreeMap<String, usize> = self
            .contract
            .events()
            .iter()
            .map(|e| (e.name.clone(), 0))
            .collect();
        let inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
        for event in inbox.deliveries.iter().filter_map(|d| d.event.as_ref()) {
            *counts.entry(event.clone()).or_default() += 1;
        }
        counts
    }

    /// The report of what arrived, payloads left out.
    pub fn report(&self, receiver: &str, subscription: &str) -> EventsReport {
        let inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
        EventsReport {
            receiver: receiver.to_string(),
            subscription: subscription.to_string(),
            received: inbox
                .deliveries
                .iter()
                .map(|d| ReceivedEvent {
                    id: d.id.clone(),
                    event_type: d.event_type.clone(),
                    event: d.event.clone(),
                    repeats: d.repeats,
                    awaited_by: d.awaited_by.clone(),
                    failures: d.failures.clone(),
                })
                .collect(),
            refused: inbox.refused,
        }
    }
}

fn refused_note(refused: usize) -> String {
    match refused {
        0 => String::new(),
        n => format!("; {n} deliveries were refused, the receiver being full"),
    }
}

fn mismatches(expected: Option<&Expected>, envelope: &Value, scope: &Scope<'_>) -> Vec<Mismatch> {
    let mut out = Vec::new();
    if let Some(expected) = expected {
        matcher::check(expected, Some(envelope), "$event", scope, &mut out);
    }
    out
}

/// 401 to a delivery whose signature fails, as a consumer would answer; 204 to any other,
/// its failures recorded: a sender told 4xx would try again, or give up on the endpoint,
/// and the run would miss what follows.
fn status_for(verified: bool) -> StatusCode {
    match verified {
        false => StatusCode::UNAUTHORIZED,
        true => StatusCode::NO_CONTENT,
    }
}

/// A delivery's failure, located at what awaits the event.
fn failure(kind: FailureKind, path: &str, expected: &str, actual: &str) -> Failure {
    Failure::new(kind, path, expected, actual, "document")
        .written_at(vec![crate::cassette::locate::Step::from("events")])
}

/// Where the rules a delivery is held to come from: the envelope's `@source`.
fn with_source(mut failures: Vec<Failure>, source: &str) -> Vec<Failure> {
    failures
        .iter_mut()
        .for_each(|f| f.source = source.to_string());
    failures
}
