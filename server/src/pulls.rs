//! Historical pulls: a trigger records one pull per resource the provider supports, and the
//! pull workers of every process fetch them a few days at a time from the provider's
//! simulator, keeping the data and the progress in one transaction per step. A provider's
//! temporary failure puts the pull in `retrying` with a growing wait; five in a row fail it
//! with the reason. After the last day, `historical.data.<resource>.created` is emitted in
//! the same transaction, so it is emitted exactly once per pull.

use crate::ReferenceServer;
use crate::clock::to_micros;
use crate::columns;
use crate::events::{Outbox, Subject};
use crate::provider_data::keep_day;
use crate::simulator;
use crate::store::Tx;
use chrono::NaiveDate;
use health_api::events::Payload;
use health_api::models::{HistoricalData, ProviderResource};
use std::sync::Arc;
use std::time::Duration;

pub const QUEUED: &str = "queued";
pub const IN_PROGRESS: &str = "in_progress";
pub const RETRYING: &str = "retrying";
pub const SUCCESS: &str = "success";
pub const FAILED: &str = "failed";

/// Days a pull reaches back when the user states no ingestion start: the toolkit's default
/// for the team data pull preferences the document mentions and does not show.
pub const DEFAULT_DAYS: i64 = 14;
/// Days one step fetches and keeps in one transaction.
const DAYS_PER_STEP: i64 = 7;
/// Temporary failures in a row after which a pull has failed.
const MAX_FAILURES: i64 = 5;
/// The wait after the first temporary failure; each further one doubles it.
const FIRST_RETRY: Duration = Duration::from_secs(5);
/// Pulls one pass leases.
const BATCH: i64 = 16;
const LEASE: chrono::Duration = chrono::Duration::seconds(60);
const IDLE_LOOK: Duration = Duration::from_millis(500);

/// Records a pull of every resource `provider` supports for the user; a pull already under
/// way is left as it is, a finished one starts again. Answers false when the user is not
/// connected to the provider.
pub async fn trigger(
    tx: &mut Tx,
    team_id: &str,
    user_id: &str,
    provider: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<bool, sqlx::Error> {
    let row: Option<PulledUser> = sqlx::query_as(
        "SELECT u.time_zone, u.ingestion_start, u.ingestion_end, p.supported_resources \
         FROM users u JOIN connections c ON c.user_id = u.id JOIN providers p ON p.slug = c.provider \
         WHERE u.id = $1 AND u.team_id = $2 AND u.deleted_at IS NULL AND c.provider = $3",
    )
    .bind(user_id)
    .bind(team_id)
    .bind(provider)
    .fetch_optional(&mut ***tx)
    .await?;
    let Some(PulledUser {
        time_zone,
        ingestion_start: start,
        ingestion_end: end,
        supported_resources: resources,
    }) = row
    else {
        return Ok(false);
    };
    let resources: Vec<String> = columns::from_json(&resources)?;
    let today = now.with_timezone(&zone(time_zone.as_deref())).date_naive();
    let first = match start.as_deref().map(columns::date).transpose()? {
        Some(date) => date.0,
        None => today - chrono::Duration::days(DEFAULT_DAYS - 1),
    };
    let last = match end.as_deref().map(columns::date).transpose()? {
        Some(date) => date.0.min(today),
        None => today,
    };
    let micros = to_micros(now);
    for resource in resources {
        sqlx::query(
            "INSERT INTO pulls (team_id, user_id, provider, resource, status, first_day, last_day, \
             next_day, failures, triggered_at, next_attempt_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $6, 0, $8, $8, $8) \
             ON CONFLICT (user_id, provider, resource) DO UPDATE SET status = excluded.status, \
             first_day = excluded.first_day, last_day = excluded.last_day, \
             next_day = excluded.next_day, failures = 0, error = NULL, \
             triggered_at = excluded.triggered_at, next_attempt_at = excluded.next_attempt_at, \
             lease_until = NULL, updated_at = excluded.updated_at \
             WHERE pulls.status = $9 OR pulls.status = $10",
        )
        .bind(team_id)
        .bind(user_id)
        .bind(provider)
        .bind(&resource)
        .bind(QUEUED)
        .bind(first.to_string())
        .bind(last.to_string())
        .bind(micros)
        .bind(SUCCESS)
        .bind(FAILED)
        .execute(&mut ***tx)
        .await?;
    }
    Ok(true)
}

/// What a trigger reads of a user connected to the provider.
#[derive(sqlx::FromRow)]
struct PulledUser {
    time_zone: Option<String>,
    ingestion_start: Option<String>,
    ingestion_end: Option<String>,
    supported_resources: String,
}

/// The user's fallback time zone, UTC when they have none.
fn zone(name: Option<&str>) -> chrono_tz::Tz {
    name.and_then(|n| n.parse().ok()).unwrap_or(chrono_tz::UTC)
}

/// Fetches until the runtime stops; errors are logged and the pull comes back when its lease
/// runs out.
pub async fn keep_pulling(s: Arc<ReferenceServer>) {
    loop {
        match pull_due(&s).await {
            Ok(stepped) if stepped > 0 => continue,
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "historical pulls left for a later pass"),
        }
        tokio::time::sleep(IDLE_LOOK).await;
    }
}

/// One pass: leases the due pulls and takes one step of each. Answers how many stepped.
pub async fn pull_due(s: &ReferenceServer) -> Result<usize, sqlx::Error> {
    let due = lease(s).await?;
    for pull in &due {
        step(s, pull).await?;
    }
    Ok(due.len())
}

/// A pull leased to this process.
#[derive(sqlx::FromRow)]
struct Due {
    seq: i64,
    team_id: String,
    user_id: String,
    provider: String,
    resource: String,
    first_day: String,
    last_day: String,
    next_day: String,
    failures: i64,
    /// The lease's end as this process wrote it: a step is kept only while the lease is
    /// still this one.
    lease_until: i64,
}

async fn lease(s: &ReferenceServer) -> Result<Vec<Due>, sqlx::Error> {
    let now = s.clock.now();
    let skip_locked = s.store.backend().skip_locked();
    let mut tx = s.store.write().await?;
    let due: Vec<Due> = sqlx::query_as(&format!(
        "WITH picked AS MATERIALIZED (\
         SELECT seq FROM pulls WHERE status IN ($2, $3, $4) AND next_attempt_at <= $5 \
         AND (lease_until IS NULL OR lease_until < $5) ORDER BY next_attempt_at, seq \
         LIMIT $6{skip_locked}) \
         UPDATE pulls SET lease_until = $1 WHERE seq IN (SELECT seq FROM picked) \
         RETURNING seq, team_id, user_id, provider, resource, first_day, last_day, next_day, \
         failures, \
         lease_until"
    ))
    .bind(to_micros(now + LEASE))
    .bind(QUEUED)
    .bind(IN_PROGRESS)
    .bind(RETRYING)
    .bind(to_micros(now))
    .bind(BATCH)
    .fetch_all(&mut **tx)
    .await?;
    tx.commit().await?;
    Ok(due)
}

/// Fetches up to [`DAYS_PER_STEP`] days from the next one, keeps them with the progress, and
/// ends the pull after its last day.
async fn step(s: &ReferenceServer, pull: &Due) -> Result<(), sqlx::Error> {
    let now = s.clock.now();
    let micros = to_micros(now);
    let mut tx = s.store.write().await?;
    let user: Option<(String, Option<String>)> =
        sqlx::query_as("SELECT client_user_id, time_zone FROM users WHERE id = $1")
            .bind(&pull.user_id)
            .fetch_optional(&mut **tx)
            .await?;
    let Some((client_user_id, time_zone)) = user else {
        return Ok(());
    };
    let (source_type,): (String,) =
        sqlx::query_as("SELECT source_type FROM providers WHERE slug = $1")
            .bind(&pull.provider)
            .fetch_one(&mut **tx)
            .await?;
    let subject =
        simulator::Subject::new(&pull.user_id, &pull.provider, zone(time_zone.as_deref()));
    let last = columns::date(&pull.last_day)?.0;
    let mut day = columns::date(&pull.next_day)?.0;
    let mut failure = None;
    let mut fetched = 0;
    while day <= last && fetched < DAYS_PER_STEP {
        let attempt = u32::try_from(pull.failures).unwrap_or(u32::MAX);
        if let Err(temporary) = subject.fetch(&pull.resource, day, attempt) {
            failure = Some(temporary.reason);
            break;
        }
        keep_day(&mut tx, &subject, &source_type, &pull.resource, day, micros).await?;
        fetched += 1;
        day = day.succ_opt().unwrap_or(day);
    }
    // A step that fetched days before failing starts a new run of failures.
    let failures_in_a_row = if fetched > 0 { 1 } else { pull.failures + 1 };
    let (status, failures, error, next_attempt_at) = match failure {
        Some(reason) if failures_in_a_row >= MAX_FAILURES => (
            FAILED,
            failures_in_a_row,
            Some(format!(
                "the provider failed {MAX_FAILURES} tries in a row: {reason}"
            )),
            micros,
        ),
        Some(reason) => {
            let doublings = u32::try_from(failures_in_a_row - 1).unwrap_or(0).min(6);
            let wait = FIRST_RETRY * 2u32.pow(doublings);
            let wait = chrono::Duration::from_std(crate::clock::jittered(wait))
                .unwrap_or(chrono::Duration::zero());
            (
                RETRYING,
                pull.failures + 1,
                Some(reason.to_string()),
                to_micros(now + wait),
            )
        }
        None if day > last => (SUCCESS, 0, None, micros),
        None => (IN_PROGRESS, 0, None, micros),
    };
    let advanced = sqlx::query(
        "UPDATE pulls SET status = $1, next_day = $2, failures = $3, error = $4, \
         next_attempt_at = $5, lease_until = NULL, updated_at = $6 \
         WHERE seq = $7 AND lease_until = $8",
    )
    .bind(status)
    .bind(day.to_string())
    .bind(failures)
    .bind(error)
    .bind(next_attempt_at)
    .bind(micros)
    .bind(pull.seq)
    .bind(pull.lease_until)
    .execute(&mut **tx)
    .await?;
    // Another process took the pull on meanwhile (this one's lease ran out): its step stands.
    if advanced.rows_affected() != 1 {
        return Ok(());
    }
    if status == SUCCESS {
        let subject = Subject {
            team_id: pull.team_id.clone(),
            user_id: pull.user_id.clone(),
            client_user_id,
        };
        let payload = completed(pull, &source_type, last);
        let outbox = Outbox::open(&mut tx, &pull.team_id).await?;
        outbox.emit(&mut tx, &subject, &payload, micros).await?;
    }
    tx.commit().await
}

/// `historical.data.<resource>.created`: which user, source and days the pull covered.
fn completed(pull: &Due, source_type: &str, last: NaiveDate) -> Payload {
    let data = HistoricalData {
        extra: serde_json::Map::from_iter([
            ("user_id".to_string(), pull.user_id.clone().into()),
            (
                "source".to_string(),
                serde_json::json!({ "provider": pull.provider, "type": source_type }),
            ),
            ("start_date".to_string(), pull.first_day.clone().into()),
            ("end_date".to_string(), last.to_string().into()),
        ]),
        ..HistoricalData::default()
    };
    let Ok(resource) = pull.resource.parse::<ProviderResource>();
    Payload::HistoricalDataCreated { resource, data }
}
