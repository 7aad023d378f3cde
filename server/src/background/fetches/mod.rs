//! Fetching from providers in the background: historical pulls and refreshes. A trigger
//! records one fetch per resource the provider supports, and the workers of every process
//! take them a few days at a time from the provider's simulator, keeping the data, its
//! events and the progress in one transaction per step. A provider's temporary failure puts
//! the fetch in `retrying` with a growing wait; five in a row fail it with the reason.
//!
//! - [`historical`]: after the last day, `historical.data.<resource>.created` in the same
//!   transaction, so it is emitted exactly once per pull; and where pulls stand.
//! - [`refresh`]: the user's last days; each summary and batch of samples found new or
//!   changed is announced as `daily.data.<resource>.created` or `.updated` ([`daily`]).

pub mod daily;
pub mod historical;
pub mod refresh;
pub mod throttle;

use crate::ReferenceServer;
use crate::domain::events::{Outbox, Subject};
use crate::domain::provider_data::{Compare, Reported, keep_day};
use crate::domain::simulator;
use crate::infra::clock::to_micros;
use crate::infra::columns;
use crate::infra::store::Tx;
use chrono::NaiveDate;
use health_api::events::Payload;
use std::sync::Arc;
use std::time::Duration;

pub const QUEUED: &str = "queued";
pub const IN_PROGRESS: &str = "in_progress";
pub const RETRYING: &str = "retrying";
pub const SUCCESS: &str = "success";
pub const FAILED: &str = "failed";

/// Temporary failures in a row after which a fetch has failed.
const MAX_FAILURES: i64 = 5;
/// The wait after the first temporary failure; each further one doubles it (a server's
/// `Settings::first_retry`).
pub const FIRST_RETRY: Duration = Duration::from_secs(5);
/// Fetches one pass leases.
const BATCH: i64 = 16;
const LEASE: chrono::Duration = chrono::Duration::seconds(60);
const IDLE_LOOK: Duration = Duration::from_millis(500);

/// The two kinds of fetch: alike but for their table, how far a step goes, and what they
/// announce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Historical,
    Refresh,
}

impl Kind {
    pub fn table(self) -> &'static str {
        match self {
            Kind::Historical => "pulls",
            Kind::Refresh => "refreshes",
        }
    }

    /// Days one step fetches and keeps in one transaction.
    fn days_per_step(self) -> i64 {
        match self {
            Kind::Historical => 7,
            Kind::Refresh => refresh::DAYS,
        }
    }
}

/// Records a fetch of each of `resources` from `provider` for the user over the days from
/// `first` to `last`; a fetch already under way is left as it is, a finished one starts again.
#[allow(clippy::too_many_arguments)]
async fn record(
    tx: &mut Tx,
    kind: Kind,
    team_id: &str,
    user_id: &str,
    provider: &str,
    resources: &[String],
    (first, last): (NaiveDate, NaiveDate),
    now: i64,
) -> Result<(), sqlx::Error> {
    let table = kind.table();
    for resource in resources {
        sqlx::query(&format!(
            "INSERT INTO {table} (team_id, user_id, provider, resource, status, first_day, \
             last_day, next_day, failures, triggered_at, next_attempt_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $6, 0, $8, $8, $8) \
             ON CONFLICT (user_id, provider, resource) DO UPDATE SET status = excluded.status, \
             first_day = excluded.first_day, last_day = excluded.last_day, \
             next_day = excluded.next_day, failures = 0, error = NULL, \
             triggered_at = excluded.triggered_at, next_attempt_at = excluded.next_attempt_at, \
             lease_until = NULL, updated_at = excluded.updated_at \
             WHERE {table}.status = $9 OR {table}.status = $10"
        ))
        .bind(team_id)
        .bind(user_id)
        .bind(provider)
        .bind(resource)
        .bind(QUEUED)
        .bind(first.to_string())
        .bind(last.to_string())
        .bind(now)
        .bind(SUCCESS)
        .bind(FAILED)
        .execute(&mut ***tx)
        .await?;
    }
    Ok(())
}

/// A user's days as a trigger counts them: where they start, and the ingestion bounds.
struct UserDays {
    time_zone: chrono_tz::Tz,
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
}

impl UserDays {
    /// From the user's stored columns.
    fn from_columns(
        time_zone: Option<&str>,
        start: Option<&str>,
        end: Option<&str>,
    ) -> Result<UserDays, sqlx::Error> {
        let date = |text: Option<&str>| text.map(|t| columns::date(t).map(|d| d.0)).transpose();
        Ok(UserDays {
            time_zone: crate::infra::clock::zone(time_zone),
            start: date(start)?,
            end: date(end)?,
        })
    }

    fn today(&self, now: chrono::DateTime<chrono::Utc>) -> NaiveDate {
        now.with_timezone(&self.time_zone).date_naive()
    }

    /// The days from `first` to `last` that lie within the ingestion bounds (either open);
    /// `None` when none do.
    fn within(&self, first: NaiveDate, last: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
        let first = self.start.map_or(first, |start| start.max(first));
        let last = self.end.map_or(last, |end| end.min(last));
        (first <= last).then_some((first, last))
    }
}

/// Fetches until the runtime stops; errors are logged and the fetch comes back when its
/// lease runs out. A trigger in this process wakes it at once.
pub async fn keep_fetching(s: Arc<ReferenceServer>, kind: Kind) {
    let owed = s.fetches_owed(kind).clone();
    loop {
        match fetch_due(&s, kind).await {
            Ok(stepped) if stepped > 0 => continue,
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, ?kind, "fetches left for a later pass"),
        }
        let _ = tokio::time::timeout(IDLE_LOOK, owed.notified()).await;
    }
}

/// One pass: leases the due fetches and takes one step of each. Answers how many stepped.
pub async fn fetch_due(s: &ReferenceServer, kind: Kind) -> Result<usize, sqlx::Error> {
    let due = lease(s, kind).await?;
    for fetch in &due {
        // One fetch's failure holds up no other: it comes back when its lease runs out.
        if let Err(error) = step(s, kind, fetch).await {
            tracing::warn!(%error, ?kind, resource = fetch.resource, "a fetch step failed");
        }
    }
    Ok(due.len())
}

/// A fetch leased to this process.
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

async fn lease(s: &ReferenceServer, kind: Kind) -> Result<Vec<Due>, sqlx::Error> {
    let now = s.clock.now();
    let skip_locked = s.store.backend().skip_locked();
    let table = kind.table();
    // A look first, so an idle worker does not take SQLite's one writer turn every pass.
    let any: Option<(i64,)> = sqlx::query_as(&format!(
        "SELECT seq FROM {table} WHERE status IN ($1, $2, $3) AND next_attempt_at <= $4 \
         AND (lease_until IS NULL OR lease_until < $4) LIMIT 1"
    ))
    .bind(QUEUED)
    .bind(IN_PROGRESS)
    .bind(RETRYING)
    .bind(to_micros(now))
    .fetch_optional(&mut **s.store.read().await?)
    .await?;
    if any.is_none() {
        return Ok(Vec::new());
    }
    let mut tx = s.store.write().await?;
    let due: Vec<Due> = sqlx::query_as(&format!(
        "WITH picked AS MATERIALIZED (\
         SELECT seq FROM {table} WHERE status IN ($2, $3, $4) AND next_attempt_at <= $5 \
         AND (lease_until IS NULL OR lease_until < $5) ORDER BY next_attempt_at, seq \
         LIMIT $6{skip_locked}) \
         UPDATE {table} SET lease_until = $1 WHERE seq IN (SELECT seq FROM picked) \
         RETURNING seq, team_id, user_id, provider, resource, first_day, last_day, next_day, \
         failures, lease_until"
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

/// Fetches up to a step's days from the next one, keeps them with their events and the
/// progress, and ends the fetch after its last day. The provider is asked before the write
/// transaction opens, so the one SQLite writer is held for the keeping only.
async fn step(s: &ReferenceServer, kind: Kind, fetch: &Due) -> Result<(), sqlx::Error> {
    let now = s.clock.now();
    let micros = to_micros(now);
    let (user, source) = {
        let mut tx = s.store.read().await?;
        let user: Option<(String, Option<String>)> = sqlx::query_as(
            "SELECT client_user_id, time_zone FROM users WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind(&fetch.user_id)
        .fetch_optional(&mut **tx)
        .await?;
        (
            user,
            crate::domain::sources::Source::read(&mut tx, &fetch.provider).await?,
        )
    };
    let Some((client_user_id, time_zone)) = user else {
        return Ok(());
    };
    let subject = simulator::Subject::new(
        &fetch.user_id,
        &fetch.provider,
        crate::infra::clock::zone(time_zone.as_deref()),
    );
    let last = columns::date(&fetch.last_day)?.0;
    let mut day = columns::date(&fetch.next_day)?.0;
    let mut failure = None;
    let mut drawn = Vec::new();
    while day <= last && (drawn.len() as i64) < kind.days_per_step() {
        let attempt = u32::try_from(fetch.failures).unwrap_or(u32::MAX);
        if let Err(temporary) = subject.fetch(&fetch.resource, day, attempt) {
            failure = Some(temporary.reason);
            break;
        }
        drawn.push(Reported::draw(&subject, &fetch.resource, day, now)?);
        day = day.succ_opt().unwrap_or(day);
    }
    let fetched = drawn.len() as i64;
    let compare = match kind {
        Kind::Historical => Compare::Overwrite,
        Kind::Refresh => Compare::Changes,
    };
    let mut tx = s.store.write().await?;
    let mut payloads: Vec<Payload> = Vec::new();
    for reported in drawn {
        let changes = keep_day(
            &mut tx,
            &subject,
            &source.source_type,
            &fetch.resource,
            reported,
            compare,
        )
        .await?;
        // A historical pull announces its whole range once, at its end.
        if compare == Compare::Changes {
            payloads.extend(daily::payloads(
                &source,
                &fetch.user_id,
                &fetch.resource,
                changes,
            ));
        }
    }
    let progress = progress(fetch, failure, fetched, day > last, now, s.first_retry);
    let advanced = sqlx::query(&format!(
        "UPDATE {} SET status = $1, next_day = $2, failures = $3, error = $4, \
         next_attempt_at = $5, lease_until = NULL, updated_at = $6 \
         WHERE seq = $7 AND lease_until = $8",
        kind.table()
    ))
    .bind(progress.status)
    .bind(day.to_string())
    .bind(progress.failures)
    .bind(progress.error)
    .bind(progress.next_attempt_at)
    .bind(micros)
    .bind(fetch.seq)
    .bind(fetch.lease_until)
    .execute(&mut **tx)
    .await?;
    // Another process took the fetch on meanwhile (this one's lease ran out): its step
    // stands, and this one's is rolled back.
    if advanced.rows_affected() != 1 {
        return Ok(());
    }
    if progress.status == SUCCESS && kind == Kind::Historical {
        payloads.extend(historical::completed(fetch, &source, last));
    }
    if !payloads.is_empty() {
        let subject = Subject {
            team_id: fetch.team_id.clone(),
            user_id: fetch.user_id.clone(),
            client_user_id,
        };
        let outbox = Outbox::open(&mut tx, &fetch.team_id).await?;
        for payload in &payloads {
            outbox.emit(&mut tx, &subject, payload, micros).await?;
        }
    }
    tx.commit().await
}

/// Where a fetch stands after a step.
struct Progress {
    status: &'static str,
    failures: i64,
    error: Option<String>,
    next_attempt_at: i64,
}

fn progress(
    fetch: &Due,
    failure: Option<&'static str>,
    fetched: i64,
    done: bool,
    now: chrono::DateTime<chrono::Utc>,
    first_retry: Duration,
) -> Progress {
    let micros = to_micros(now);
    // A step that fetched days before failing starts a new run of failures.
    let failures_in_a_row = if fetched > 0 { 1 } else { fetch.failures + 1 };
    match failure {
        Some(reason) if failures_in_a_row >= MAX_FAILURES => Progress {
            status: FAILED,
            failures: failures_in_a_row,
            error: Some(format!(
                "the provider failed {MAX_FAILURES} tries in a row: {reason}"
            )),
            next_attempt_at: micros,
        },
        Some(reason) => {
            let doublings = u32::try_from(failures_in_a_row - 1).unwrap_or(0).min(6);
            let wait = first_retry * 2u32.pow(doublings);
            let wait = chrono::Duration::from_std(crate::infra::clock::jittered(wait))
                .unwrap_or(chrono::Duration::zero());
            Progress {
                status: RETRYING,
                failures: failures_in_a_row,
                error: Some(reason.to_string()),
                next_attempt_at: to_micros(now + wait),
            }
        }
        None => Progress {
            status: if done { SUCCESS } else { IN_PROGRESS },
            failures: 0,
            error: None,
            next_attempt_at: micros,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn days_are_clamped_to_the_ingestion_bounds() {
        let within = |start: Option<&str>, end: Option<&str>| {
            let days = UserDays::from_columns(None, start, end).unwrap();
            days.within(date("2026-01-01"), date("2026-01-10"))
                .map(|(first, last)| (first.to_string(), last.to_string()))
        };
        let both = |a: &str, b: &str| Some((a.to_string(), b.to_string()));
        assert_eq!(within(None, None), both("2026-01-01", "2026-01-10"));
        assert_eq!(
            within(Some("2026-01-08"), None),
            both("2026-01-08", "2026-01-10")
        );
        assert_eq!(
            within(None, Some("2026-01-02")),
            both("2026-01-01", "2026-01-02")
        );
        assert_eq!(within(Some("2026-02-01"), None), None);
    }
}
