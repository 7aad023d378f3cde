//! Sending the outbox: each process runs one delivery loop that leases the owed deliveries
//! (on PostgreSQL skipping those another process has locked) and sends each on its own: an
//! attempt records its outcome when it ends, so an endpoint slow to answer holds up only its
//! own deliveries, never another endpoint's or another team's. A delivery is marked done
//! only after its endpoint answered 2xx, so a process killed between the two sends it again
//! when its lease runs out: at least once, every copy with the same `webhook-id`.

use super::endpoints::header_bounds;
use super::targets::{Targets, guarded_resolver, refused_by_resolver};
use crate::ReferenceServer;
use crate::domain::events::PENDING;
use crate::infra::clock::{Clock, jittered, to_micros};
use crate::infra::columns;
use crate::infra::query::Query;
use covenant_runtime::webhooks::{WebhookSecret, sign};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// How long after each failed attempt the next one is made (the spec's schedule); after the
/// last the delivery has failed.
pub const RETRY_WAITS: [Duration; 8] = [
    Duration::from_secs(5),
    Duration::from_secs(30),
    Duration::from_secs(2 * 60),
    Duration::from_secs(10 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(3600),
    Duration::from_secs(3 * 3600),
    Duration::from_secs(6 * 3600),
];
/// An endpoint that has not answered by then has failed the attempt.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// Deliveries one process has in flight at once, at most.
pub const IN_FLIGHT: usize = 2048;
/// Deliveries one process has in flight to one endpoint, at most: a new lease passes over
/// an endpoint this process is still sending to, so a slow endpoint holds at most this many
/// of the process's slots.
pub const PER_ENDPOINT: usize = 64;
/// Deliveries a lease considers at once; it takes at most [`PER_ENDPOINT`] of each endpoint.
const CANDIDATES: i64 = 2048;
/// Outcomes one write records at most: attempts that end together share a transaction.
const RECORDED_TOGETHER: usize = 256;
/// How long a process holds the deliveries it sends: longer than an attempt may last.
const LEASE: chrono::Duration = chrono::Duration::seconds(60);
/// How often an idle loop looks for retries that came due, for deliveries other processes
/// owe, and for a user's next event once the one before it was recorded; deliveries this
/// process owes, and recorded outcomes, wake it at once. A look is one indexed read.
const IDLE_LOOK: Duration = Duration::from_millis(50);

const DELIVERED: &str = "delivered";
const RETRYING: &str = "retrying";
const FAILED: &str = "failed";

/// What sends deliveries: an HTTP client that follows no redirect and connects only where
/// `targets` allows, whether the address is written in the URL or resolved from its name.
#[derive(Clone)]
pub struct Sender {
    http: reqwest::Client,
    targets: Targets,
}

impl Sender {
    pub fn new(targets: Targets) -> Result<Sender, reqwest::Error> {
        let http = reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would resolve names itself, past the guarded resolver.
            .no_proxy()
            .dns_resolver(guarded_resolver(targets))
            .build()?;
        Ok(Sender { http, targets })
    }
}

/// What this process is sending: a slot per delivery, and the endpoints it is sending to.
#[derive(Clone)]
struct InFlight {
    slots: Arc<Semaphore>,
    endpoints: Arc<Mutex<HashMap<String, usize>>>,
}

impl InFlight {
    fn new() -> InFlight {
        InFlight {
            slots: Arc::new(Semaphore::new(IN_FLIGHT)),
            endpoints: Arc::default(),
        }
    }

    /// Deliveries in flight to each endpoint this process is sending to.
    fn in_flight(&self) -> HashMap<String, usize> {
        self.endpoints
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Counts a delivery to `endpoint` in flight until the returned guard drops, however
    /// its attempt ends (a panic included).
    fn started(&self, endpoint: &str) -> Sending {
        let mut endpoints = self.endpoints.lock().unwrap_or_else(|e| e.into_inner());
        *endpoints.entry(endpoint.to_string()).or_default() += 1;
        Sending {
            in_flight: self.clone(),
            endpoint: endpoint.to_string(),
        }
    }

    fn ended(&self, endpoint: &str) {
        let mut endpoints = self.endpoints.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = endpoints.get_mut(endpoint) {
            *n -= 1;
            if *n == 0 {
                endpoints.remove(endpoint);
            }
        }
    }
}

/// A delivery in flight; dropped, it is counted no more.
struct Sending {
    in_flight: InFlight,
    endpoint: String,
}

impl Drop for Sending {
    fn drop(&mut self) {
        self.in_flight.ended(&self.endpoint);
    }
}

/// Delivers until the runtime stops. Errors of the database are logged and the loop goes on:
/// what it leased comes back to it, or to another process, when the lease runs out.
pub async fn keep_delivering(s: Arc<ReferenceServer>) {
    let client = match Sender::new(s.webhook_targets) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "cannot build the webhook client; nothing is delivered");
            return;
        }
    };
    let owed = s.store.deliveries_owed().clone();
    let in_flight = InFlight::new();
    let (ended, outcomes) = tokio::sync::mpsc::unbounded_channel();
    let _recording = AbortOnDrop(tokio::spawn(keep_recording(s.clone(), outcomes)));
    loop {
        match start_due(&s, &client, &in_flight, &ended).await {
            // Some started: there may be more for other endpoints.
            Ok(started) if started > 0 => continue,
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "webhook deliveries left for a later pass"),
        }
        let _ = tokio::time::timeout(IDLE_LOOK, owed.notified()).await;
    }
}

/// A task that stops when its owner does.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An attempt that ended, with its place in flight: given back once its outcome is written.
type Ended = (Outcome, Sending, tokio::sync::OwnedSemaphorePermit);

/// Writes the outcomes of attempts as they end, those that ended together in one
/// transaction, then gives their places in flight back.
async fn keep_recording(
    s: Arc<ReferenceServer>,
    mut ended: tokio::sync::mpsc::UnboundedReceiver<Ended>,
) {
    let mut batch = Vec::new();
    while ended.recv_many(&mut batch, RECORDED_TOGETHER).await > 0 {
        let (outcomes, held): (Vec<Outcome>, Vec<_>) = batch
            .drain(..)
            .map(|(o, sending, slot)| (o, (sending, slot)))
            .unzip();
        if let Err(error) = record(&s, &outcomes).await {
            tracing::warn!(%error, "outcomes of deliveries are left for their leases to run out");
        }
        drop(held);
        s.store.deliveries_owed().notify_one();
    }
}

/// One pass: leases what is due, as many as there are free places in flight and no more than
/// [`PER_ENDPOINT`] to an endpoint, and starts each attempt on its own; the recorder writes
/// each outcome as it ends. Answers how many it started.
async fn start_due(
    s: &Arc<ReferenceServer>,
    client: &Sender,
    in_flight: &InFlight,
    ended: &tokio::sync::mpsc::UnboundedSender<Ended>,
) -> Result<usize, sqlx::Error> {
    let free = in_flight.slots.available_permits();
    if free == 0 {
        return Ok(0);
    }
    if !anything_due(s).await? {
        return Ok(0);
    }
    let due = lease(s, free, &in_flight.in_flight()).await?;
    let started = due.len();
    for delivery in due {
        let Ok(slot) = in_flight.slots.clone().acquire_owned().await else {
            break;
        };
        let sending = in_flight.started(&delivery.endpoint_id);
        let (client, ended, now) = (client.clone(), ended.clone(), s.clock.now());
        tokio::spawn(async move {
            let outcome = attempt(&client, delivery, now.timestamp(), now).await;
            // The recorder stopped only when the loop did: the lease brings the delivery back.
            let _ = ended.send((outcome, sending, slot));
        });
    }
    Ok(started)
}

/// One delivery leased to this process, with what sending it needs.
#[derive(sqlx::FromRow)]
struct Due {
    seq: i64,
    attempts: i64,
    endpoint_id: String,
    url: String,
    headers: String,
    secret: String,
    previous_secret: Option<String>,
    previous_until: Option<i64>,
    message_id: String,
    body: String,
    /// The lease's end as this process wrote it: its outcome is recorded only while the
    /// lease is still this one (another process may have taken the delivery on since).
    #[sqlx(skip)]
    lease: i64,
}

/// Whether any delivery is due: a read, so an idle loop takes no write (which would also
/// drop the users the process keeps) every time it looks.
async fn anything_due(s: &ReferenceServer) -> Result<bool, sqlx::Error> {
    let now = to_micros(s.clock.now());
    let due: Option<(i64,)> = s
        .store
        .autocommit()
        .optional(
            sqlx::query(
                "SELECT seq FROM deliveries WHERE status = $1 AND next_attempt_at <= $2 \
                 AND (lease_until IS NULL OR lease_until < $2) LIMIT 1",
            )
            .bind(PENDING)
            .bind(now),
        )
        .await?;
    Ok(due.is_some())
}

/// Leases the deliveries that are due, oldest first, each the earliest owed for its user and
/// endpoint (a user's events arrive in order): at most `room`, and with those `in_flight`
/// at most [`PER_ENDPOINT`] to an endpoint; endpoints already at it are passed over.
async fn lease(
    s: &ReferenceServer,
    room: usize,
    in_flight: &HashMap<String, usize>,
) -> Result<Vec<Due>, sqlx::Error> {
    let busy: Vec<&String> = in_flight
        .iter()
        .filter(|(_, n)| **n >= PER_ENDPOINT)
        .map(|(endpoint, _)| endpoint)
        .collect();
    let now = s.clock.now();
    let skip_locked = s.store.backend().skip_locked();
    let passed_over = match busy.len() {
        0 => String::new(),
        n => {
            let marks: Vec<String> = (5..5 + n).map(|i| format!("${i}")).collect();
            format!(" AND d.endpoint_id NOT IN ({})", marks.join(", "))
        }
    };
    let mut tx = s.store.write().await?;
    let candidates = format!(
        "SELECT d.seq, d.endpoint_id FROM deliveries d WHERE d.status = $1 \
         AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until < $2) \
         AND NOT EXISTS (SELECT 1 FROM deliveries p WHERE p.endpoint_id = d.endpoint_id \
         AND p.user_id = d.user_id AND p.status = $1 AND p.seq < d.seq) \
         AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint_id \
         AND w.disabled = $3){passed_over} \
         ORDER BY d.next_attempt_at, d.seq LIMIT $4{skip_locked}"
    );
    let mut query = sqlx::query_as::<_, (i64, String)>(&candidates)
        .bind(PENDING)
        .bind(to_micros(now))
        .bind(crate::infra::store::flag(false))
        .bind(CANDIDATES);
    for endpoint in busy {
        query = query.bind(endpoint);
    }
    let found = query.fetch_all(&mut **tx).await?;
    let chosen = take_per_endpoint(found, room, in_flight);
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let lease_until = to_micros(now + LEASE);
    let placeholders: Vec<String> = (2..2 + chosen.len()).map(|n| format!("${n}")).collect();
    let statement = format!(
        "UPDATE deliveries SET lease_until = $1 WHERE seq IN ({})",
        placeholders.join(", ")
    );
    let mut update = sqlx::query(&statement).bind(lease_until);
    for seq in &chosen {
        update = update.bind(seq);
    }
    update.execute(&mut **tx).await?;
    let placeholders: Vec<String> = (1..=chosen.len()).map(|n| format!("${n}")).collect();
    let statement = format!(
        "SELECT d.seq, d.attempts, d.endpoint_id, w.url, w.headers, w.secret, w.previous_secret, \
         w.previous_until, e.id AS message_id, e.body FROM deliveries d \
         JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.seq = d.event_seq \
         WHERE d.seq IN ({}) ORDER BY d.seq",
        placeholders.join(", ")
    );
    let mut query = sqlx::query_as::<_, Due>(&statement);
    for seq in &chosen {
        query = query.bind(seq);
    }
    let mut due = query.fetch_all(&mut **tx).await?;
    tx.commit().await?;
    for delivery in &mut due {
        delivery.lease = lease_until;
    }
    Ok(due)
}

/// The deliveries to lease from the candidates, in their order: at most `room` in all, and
/// with those `in_flight` at most [`PER_ENDPOINT`] to any one endpoint.
fn take_per_endpoint(
    candidates: Vec<(i64, String)>,
    room: usize,
    in_flight: &HashMap<String, usize>,
) -> Vec<i64> {
    let mut per_endpoint = in_flight.clone();
    let mut chosen = Vec::new();
    for (seq, endpoint) in candidates {
        if chosen.len() == room {
            break;
        }
        let taken = per_endpoint.entry(endpoint).or_default();
        if *taken < PER_ENDPOINT {
            *taken += 1;
            chosen.push(seq);
        }
    }
    chosen
}

/// What one attempt found.
struct Outcome {
    seq: i64,
    lease: i64,
    endpoint_id: String,
    attempt: i64,
    attempted_at: i64,
    status_code: Option<i64>,
    error: Option<String>,
    duration_ms: i64,
}

impl Outcome {
    fn delivered(&self) -> bool {
        self.error.is_none()
    }
}

/// Signs and POSTs one delivery: with the endpoint's secret, and during a rotation's overlap
/// with the old one too.
async fn attempt(
    client: &Sender,
    due: Due,
    timestamp: i64,
    now: chrono::DateTime<chrono::Utc>,
) -> Outcome {
    let started = Instant::now();
    let mut outcome = Outcome {
        seq: due.seq,
        lease: due.lease,
        endpoint_id: due.endpoint_id.clone(),
        attempt: due.attempts + 1,
        attempted_at: to_micros(now),
        status_code: None,
        error: None,
        duration_ms: 0,
    };
    let result = send(client, &due, timestamp, to_micros(now)).await;
    outcome.duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    match result {
        Ok(status) => {
            outcome.status_code = Some(i64::from(status.as_u16()));
            if !status.is_success() {
                outcome.error = Some(format!("the endpoint answered {status}"));
            }
        }
        Err(error) => outcome.error = Some(error),
    }
    outcome
}

async fn send(
    client: &Sender,
    due: &Due,
    timestamp: i64,
    now: i64,
) -> Result<reqwest::StatusCode, String> {
    let secret = WebhookSecret::parse(&due.secret).map_err(|e| e.to_string())?;
    let previous = match (&due.previous_secret, due.previous_until) {
        (Some(text), Some(until)) if until > now => WebhookSecret::parse(text).ok(),
        _ => None,
    };
    let mut secrets = vec![&secret];
    secrets.extend(previous.as_ref());
    let signature = sign(&secrets, &due.message_id, timestamp, due.body.as_bytes());
    let extra: BTreeMap<String, String> =
        columns::from_json(&due.headers).map_err(|e| e.to_string())?;
    // An endpoint stored before the bounds on its headers is not sent to until they fit.
    if let Some(why) = header_bounds(&extra) {
        return Err(format!("the endpoint's own headers are refused: {why}"));
    }
    if let Some(why) = client.targets.literal_refusal(&due.url) {
        return Err(format!("deliveries cannot go there: {why}"));
    }
    let mut request = client
        .http
        .post(&due.url)
        .header("content-type", "application/json");
    for (name, value) in &extra {
        request = request.header(name, value);
    }
    for (name, value) in signature.headers() {
        request = request.header(name, value);
    }
    let response = request
        .body(due.body.clone())
        .send()
        .await
        .map_err(|e| describe(&e))?;
    Ok(response.status())
}

/// A failed send in words, for the attempt listing: timed out, refused, or the like.
fn describe(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        format!("no answer within {} s", ATTEMPT_TIMEOUT.as_secs())
    } else if refused_by_resolver(error) {
        "deliveries cannot go there: its name resolves to no public address".to_string()
    } else if error.is_connect() {
        "the endpoint could not be reached".to_string()
    } else if error.url().is_some_and(|url| url.scheme() == "https") {
        // Built without TLS, as the whole toolkit is: it serves plain-http receivers.
        "the reference server delivers over plain http only".to_string()
    } else if error.is_builder() {
        "the endpoint's address cannot be sent to".to_string()
    } else {
        "the request failed before an answer".to_string()
    }
}

/// Writes each attempt, and the delivery's next state: delivered, due again after its wait,
/// or failed after the last.
async fn record(s: &ReferenceServer, outcomes: &[Outcome]) -> Result<(), sqlx::Error> {
    let mut tx = s.store.write().await?;
    for outcome in outcomes {
        let (state, next_attempt_at) = next_state(outcome, &*s.clock);
        let status = match state {
            RETRYING => PENDING,
            done => done,
        };
        let updated = sqlx::query(
            "UPDATE deliveries SET status = $1, attempts = $2, next_attempt_at = $3, \
             lease_until = NULL WHERE seq = $4 AND lease_until = $5",
        )
        .bind(status)
        .bind(outcome.attempt)
        .bind(next_attempt_at)
        .bind(outcome.seq)
        .bind(outcome.lease)
        .execute(&mut **tx)
        .await?;
        // The endpoint was deleted or disabled meanwhile, or the lease ran out and another
        // process has the delivery now: this attempt changes nothing.
        if updated.rows_affected() == 0 {
            continue;
        }
        attempt_row(outcome, state).execute(&mut **tx).await?;
    }
    tx.commit().await
}

fn attempt_row<'q>(outcome: &'q Outcome, state: &'q str) -> Query<'q> {
    sqlx::query(
        "INSERT INTO delivery_attempts (delivery_seq, endpoint_id, attempt, attempted_at, \
         status_code, error, duration_ms, delivery) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(outcome.seq)
    .bind(&outcome.endpoint_id)
    .bind(outcome.attempt)
    .bind(outcome.attempted_at)
    .bind(outcome.status_code)
    .bind(&outcome.error)
    .bind(outcome.duration_ms)
    .bind(state)
}

/// The delivery's state after an attempt, and when it is due again.
fn next_state(outcome: &Outcome, clock: &dyn Clock) -> (&'static str, i64) {
    let now = clock.now();
    if outcome.delivered() {
        return (DELIVERED, to_micros(now));
    }
    let waited = usize::try_from(outcome.attempt - 1).unwrap_or(usize::MAX);
    match RETRY_WAITS.get(waited) {
        Some(wait) => {
            let wait = jittered(*wait);
            let wait = chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::zero());
            (RETRYING, to_micros(now + wait))
        }
        None => (FAILED, to_micros(now)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_a_fifth() {
        for _ in 0..1000 {
            let wait = jittered(Duration::from_secs(100));
            assert!(wait >= Duration::from_secs(80) && wait <= Duration::from_secs(120));
        }
    }

    #[test]
    fn the_schedule_grows_and_ends_within_a_day() {
        assert!(RETRY_WAITS.windows(2).all(|w| w[0] < w[1]));
        let total: Duration = RETRY_WAITS.iter().sum();
        assert!(total < Duration::from_secs(24 * 3600), "{total:?}");
    }
}
