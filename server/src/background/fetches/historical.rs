//! Historical pulls: triggered for a connected user (one pull per resource the provider
//! supports, over the user's ingestion bounds), announced once complete, and listed.

use super::{Due, Kind, UserDays};
use crate::ReferenceServer;
use crate::domain::sources::Source;
use crate::infra::clock::{to_micros, wire_time};
use crate::infra::columns;
use crate::infra::failure::Failure;
use crate::infra::store::Tx;
use chrono::NaiveDate;
use health_api::events::Payload;
use health_api::models::{
    HistoricalData, HistoricalPullList, HistoricalPullState, HistoricalPullStatus,
    ProviderResource, TimeseriesData,
};

/// Days a pull reaches back when the user states no ingestion start: the toolkit's default
/// for the team data pull preferences the document mentions and does not show.
pub const DEFAULT_DAYS: i64 = 14;
/// The most days a pull reaches back, whatever the ingestion start: the toolkit's bound on
/// the work one trigger may cause (a year of every resource).
pub const MAX_DAYS: i64 = 365;

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
    let Some(user) = row else {
        return Ok(false);
    };
    let resources: Vec<String> = columns::from_json(&user.supported_resources)?;
    let user_days = UserDays::from_columns(
        user.time_zone.as_deref(),
        user.ingestion_start.as_deref(),
        user.ingestion_end.as_deref(),
    )?;
    let today = user_days.today(now);
    let from = user_days
        .start
        .unwrap_or(today - chrono::Duration::days(DEFAULT_DAYS - 1));
    let Some((first, last)) = user_days.within(from, today) else {
        // The ingestion bounds leave nothing to fetch (a start in the future).
        return Ok(true);
    };
    let first = first.max(last - chrono::Duration::days(MAX_DAYS - 1));
    let days = (first, last);
    let now = to_micros(now);
    super::record(
        tx,
        Kind::Historical,
        team_id,
        user_id,
        provider,
        &resources,
        days,
        now,
    )
    .await?;
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

/// `historical.data.<resource>.created`: which user, source and days the pull covered; for
/// sleep cycles, the deprecated hypnogram event beside it for consumers not yet moved. Like
/// the historical event, it announces the data rather than carrying it (its batch is empty):
/// a pull's samples are read through the timeseries endpoint.
pub(super) fn completed(pull: &Due, source: &Source, last: NaiveDate) -> Vec<Payload> {
    let data = HistoricalData {
        extra: serde_json::Map::from_iter([
            ("user_id".to_string(), pull.user_id.clone().into()),
            (
                "source".to_string(),
                serde_json::to_value(source.context()).unwrap_or_default(),
            ),
            ("start_date".to_string(), pull.first_day.clone().into()),
            ("end_date".to_string(), last.to_string().into()),
        ]),
        ..HistoricalData::default()
    };
    let Ok(resource) = pull.resource.parse::<ProviderResource>();
    let mut payloads = vec![Payload::HistoricalDataCreated { resource, data }];
    if pull.resource == "sleep_cycle"
        && let Ok(user_id) = columns::uuid(&pull.user_id)
    {
        #[allow(deprecated)]
        payloads.push(Payload::HistoricalHypnogramCreated {
            data: TimeseriesData {
                user_id,
                source: source.context(),
                source_id: source.source_id,
                data: Vec::new(),
            },
        });
    }
    payloads
}

/// Every pull of the user, by provider and resource.
pub async fn list(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
) -> Result<HistoricalPullList, Failure> {
    let mut tx = s.store.read().await?;
    crate::domain::users::ensure_visible(&mut tx, team_id, user_id).await?;
    let rows: Vec<PullRow> = sqlx::query_as(
        "SELECT provider, resource, status, first_day, last_day, next_day, error, triggered_at, \
         updated_at FROM pulls WHERE user_id = $1 ORDER BY provider, resource",
    )
    .bind(user_id)
    .fetch_all(&mut **tx)
    .await?;
    let data = rows
        .into_iter()
        .map(PullRow::status)
        .collect::<Result<_, _>>()?;
    Ok(HistoricalPullList { data })
}

#[derive(sqlx::FromRow)]
struct PullRow {
    provider: String,
    resource: String,
    status: String,
    first_day: String,
    last_day: String,
    next_day: String,
    error: Option<String>,
    triggered_at: i64,
    updated_at: i64,
}

impl PullRow {
    fn status(self) -> Result<HistoricalPullStatus, sqlx::Error> {
        let first = columns::date(&self.first_day)?;
        let last = columns::date(&self.last_day)?;
        let next = columns::date(&self.next_day)?;
        let days = |from: NaiveDate, to: NaiveDate| (to - from).num_days().max(0);
        let Ok(resource) = self.resource.parse::<ProviderResource>();
        Ok(HistoricalPullStatus {
            provider: self.provider,
            resource,
            status: columns::stored::<HistoricalPullState>(&self.status)?,
            days_fetched: days(first.0, next.0).min(days(first.0, last.0) + 1),
            days_total: days(first.0, last.0) + 1,
            start_date: first,
            end_date: last,
            error: self.error,
            triggered_at: wire_time(self.triggered_at),
            updated_at: wire_time(self.updated_at),
        })
    }
}
