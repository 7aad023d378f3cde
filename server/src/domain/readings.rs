//! Reading what providers reported: a user's summaries and timeseries over a range of their
//! days, and a workout's stream. The store holds only the latest version of each summary and
//! sample (the document's replace rules), so a read answers exactly that.

use crate::ReferenceServer;
use crate::domain::simulator::{self, stream};
use crate::domain::sources::Source;
use crate::domain::users::ensure_visible;
use crate::infra::clock::zone;
use crate::infra::columns;
use crate::infra::failure::Failure;
use crate::infra::store::Tx;
use chrono::NaiveDate;
use health_api::limits::DATA_READ_DAYS;
use health_api::models::{
    ErrorMessage, Sample, SummaryData, SummaryList, TimeseriesData, TimeseriesList, WorkoutStream,
};
use serde_json::Value;
use std::collections::BTreeMap;

/// The days asked for, or why they cannot be read.
fn days(start: NaiveDate, end: Option<NaiveDate>) -> Result<(NaiveDate, NaiveDate), ErrorMessage> {
    let end = end.unwrap_or(start);
    let detail = if end < start {
        format!("end_date {end} is before start_date {start}")
    } else if (end - start).num_days() >= DATA_READ_DAYS as i64 {
        format!(
            "a read spans at most {DATA_READ_DAYS} days: start_date {start} to end_date {end} is longer"
        )
    } else {
        return Ok((start, end));
    };
    Err(ErrorMessage { detail })
}

/// A user's summaries of `resource` on the days asked for, in day order.
pub async fn summaries(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
    resource: &str,
    (start, end): (NaiveDate, Option<NaiveDate>),
    provider: Option<&str>,
) -> Result<Result<SummaryList, ErrorMessage>, Failure> {
    let (first, last) = match days(start, end) {
        Ok(days) => days,
        Err(refused) => return Ok(Err(refused)),
    };
    let mut tx = s.store.read().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    let statement = format!(
        "SELECT provider, body FROM summaries WHERE user_id = $1 AND resource = $2 \
         AND calendar_date >= $3 AND calendar_date <= $4{} \
         ORDER BY calendar_date, provider, id",
        of_provider(provider)
    );
    let rows: Vec<(String, String)> = sqlx::query_as(&statement)
        .bind(user_id)
        .bind(resource)
        .bind(first.to_string())
        .bind(last.to_string())
        .bind(provider.unwrap_or_default())
        .fetch_all(&mut **tx)
        .await?;
    let user = columns::uuid(user_id)?;
    let mut sources = Sources::default();
    let mut data = Vec::with_capacity(rows.len());
    for (provider, body) in rows {
        let Value::Object(mut fields) = columns::from_json(&body)? else {
            continue;
        };
        let id = fields.remove("id").unwrap_or(Value::Null);
        data.push(SummaryData {
            id,
            user_id: user,
            source: sources.get(&mut tx, &provider).await?.context(),
            extra: fields,
        });
    }
    Ok(Ok(SummaryList { data }))
}

/// A user's samples of `resource` on the days asked for: a batch per provider and source
/// type, samples in time order.
pub async fn timeseries(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
    resource: &str,
    (start, end): (NaiveDate, Option<NaiveDate>),
    provider: Option<&str>,
) -> Result<Result<TimeseriesList, ErrorMessage>, Failure> {
    let (first, last) = match days(start, end) {
        Ok(days) => days,
        Err(refused) => return Ok(Err(refused)),
    };
    let mut tx = s.store.read().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    let (time_zone,): (Option<String>,) =
        sqlx::query_as("SELECT time_zone FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_one(&mut **tx)
            .await?;
    let time_zone = zone(time_zone.as_deref());
    let (from, _) = simulator::day_in(time_zone, first);
    let (_, until) = simulator::day_in(time_zone, last);
    let statement = format!(
        "SELECT provider, source_type, body FROM samples WHERE user_id = $1 AND resource = $2 \
         AND at >= $3 AND at < $4{} ORDER BY provider, source_type, at",
        of_provider(provider)
    );
    let rows: Vec<(String, String, String)> = sqlx::query_as(&statement)
        .bind(user_id)
        .bind(resource)
        .bind(from.timestamp_micros())
        .bind(until.timestamp_micros())
        .bind(provider.unwrap_or_default())
        .fetch_all(&mut **tx)
        .await?;
    let user = columns::uuid(user_id)?;
    let mut batches: BTreeMap<(String, String), Vec<Sample>> = BTreeMap::new();
    for (provider, source_type, body) in rows {
        batches
            .entry((provider, source_type))
            .or_default()
            .push(columns::from_json(&body)?);
    }
    let mut sources = Sources::default();
    let mut data = Vec::with_capacity(batches.len());
    for ((provider, source_type), samples) in batches {
        let source = sources.get(&mut tx, &provider).await?;
        let mut context = source.context();
        context.r#type = Some(source_type);
        data.push(TimeseriesData {
            user_id: user,
            source: context,
            source_id: source.source_id,
            data: samples,
        });
    }
    Ok(Ok(TimeseriesList { data }))
}

/// The stream of a workout of one of the team's users, drawn from its stored summary.
pub async fn workout_stream(
    s: &ReferenceServer,
    team_id: &str,
    workout_id: &str,
) -> Result<WorkoutStream, Failure> {
    let mut tx = s.store.read().await?;
    let row: Option<(String, String, String)> = sqlx::query_as(
        "SELECT s.user_id, s.provider, s.body FROM summaries s JOIN users u ON u.id = s.user_id \
         WHERE s.id = $1 AND s.resource = $2 AND u.team_id = $3 AND u.deleted_at IS NULL",
    )
    .bind(workout_id)
    .bind("workouts")
    .bind(team_id)
    .fetch_optional(&mut **tx)
    .await?;
    let Some((user_id, provider, body)) = row else {
        return Err(Failure::NotFound(format!("Workout {workout_id} not found")));
    };
    let workout: Value = columns::from_json(&body)?;
    let seconds = match (
        instant(&workout["time_start"]),
        instant(&workout["time_end"]),
    ) {
        (Some(start), Some(end)) => (end - start).num_seconds(),
        _ => 0,
    };
    let subject = simulator::Subject::new(&user_id, &provider, chrono_tz::UTC);
    let drawn = stream::stream(
        &subject,
        &stream::Workout {
            id: workout_id,
            seconds,
            distance: workout["distance"].as_f64().unwrap_or(0.0),
            average_hr: workout["average_hr"].as_f64().unwrap_or(0.0),
        },
    );
    let source = Source::read(&mut tx, &provider).await?;
    Ok(WorkoutStream {
        workout_id: columns::uuid(workout_id)?,
        user_id: columns::uuid(&user_id)?,
        source: source.context(),
        time: drawn.time,
        heartrate: drawn.heartrate,
        velocity_smooth: drawn.velocity_smooth,
        distance: drawn.distance,
    })
}

fn instant(value: &Value) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    chrono::DateTime::parse_from_rfc3339(value.as_str()?).ok()
}

/// The filter on `$5` when a provider is asked for; `$5` is bound either way (and unused
/// without one), so each statement binds the same values.
fn of_provider(provider: Option<&str>) -> &'static str {
    match provider {
        Some(_) => " AND provider = $5",
        None => " AND $5 = $5",
    }
}

/// Each provider's source read once per request.
#[derive(Default)]
struct Sources(BTreeMap<String, std::sync::Arc<Source>>);

impl Sources {
    async fn get(
        &mut self,
        tx: &mut Tx,
        provider: &str,
    ) -> Result<std::sync::Arc<Source>, sqlx::Error> {
        if let Some(source) = self.0.get(provider) {
            return Ok(source.clone());
        }
        let source = std::sync::Arc::new(Source::read(tx, provider).await?);
        self.0.insert(provider.to_string(), source.clone());
        Ok(source)
    }
}
