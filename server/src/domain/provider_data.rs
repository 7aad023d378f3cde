//! Keeping what a provider reports: summaries by their `id`, samples by resource, provider,
//! source type and instant, the latest version replacing the others (the document's rules),
//! so fetching a day again changes nothing but what the provider changed. What a fetch
//! changed is answered, created apart from updated, for the events that announce it.

use crate::domain::simulator::{self, Subject, series::Sample};
use crate::infra::columns;
use crate::infra::store::Tx;
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;
use std::collections::HashMap;

/// Rows a multi-row insert of samples writes at once: 6 values each, well within both
/// databases' limits on bound values.
const SAMPLES_PER_STATEMENT: usize = 200;

/// What one fetch of one day of one resource changed in the store.
#[derive(Debug, Default, PartialEq)]
pub struct Changes {
    pub summaries_created: Vec<Value>,
    pub summaries_updated: Vec<Value>,
    pub samples_created: Vec<Sample>,
    pub samples_updated: Vec<Sample>,
}

/// One day of one resource as a provider reported it: drawn before the write transaction,
/// so the one SQLite writer is held for the keeping only.
pub struct Reported {
    date: NaiveDate,
    as_of: DateTime<Utc>,
    summaries: Vec<Value>,
    samples: Option<Vec<Sample>>,
}

impl Reported {
    /// What `subject`'s provider had reported of `resource` on `date` at `as_of`.
    pub fn draw(
        subject: &Subject,
        resource: &str,
        date: NaiveDate,
        as_of: DateTime<Utc>,
    ) -> Result<Reported, sqlx::Error> {
        let summaries = match simulator::reported::summary(subject, resource, date, as_of) {
            None => Vec::new(),
            Some(summary) => match serde_json::to_value(&summary).map_err(encode)? {
                Value::Array(items) => items,
                one => vec![one],
            },
        };
        Ok(Reported {
            date,
            as_of,
            summaries,
            samples: simulator::reported::samples(subject, resource, date, as_of),
        })
    }
}

/// How much a keep finds out about what it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// Each item is compared with the stored one: the changes are answered (for events).
    Changes,
    /// Everything is written over: nothing is answered (a historical pull announces the
    /// whole range at its end, not each item).
    Overwrite,
}

/// Keeps what `reported` holds of `resource`.
pub async fn keep_day(
    tx: &mut Tx,
    subject: &Subject,
    source_type: &str,
    resource: &str,
    reported: Reported,
    compare: Compare,
) -> Result<Changes, sqlx::Error> {
    let mut changes = Changes::default();
    let updated_at = crate::infra::clock::to_micros(reported.as_of);
    let date = reported.date;
    for body in reported.summaries {
        match keep_summary(tx, subject, resource, date, &body, updated_at, compare).await? {
            Kept::Created => changes.summaries_created.push(body),
            Kept::Updated => changes.summaries_updated.push(body),
            Kept::Unchanged => {}
        }
    }
    if let Some(samples) = reported.samples {
        let (created, updated) = match compare {
            Compare::Changes => {
                changed_samples(tx, subject, source_type, resource, date, samples).await?
            }
            Compare::Overwrite => (samples, Vec::new()),
        };
        for chunk in created.chunks(SAMPLES_PER_STATEMENT) {
            keep_samples(tx, subject, source_type, resource, chunk).await?;
        }
        for chunk in updated.chunks(SAMPLES_PER_STATEMENT) {
            keep_samples(tx, subject, source_type, resource, chunk).await?;
        }
        if compare == Compare::Changes {
            changes.samples_created = created;
            changes.samples_updated = updated;
        }
    }
    Ok(changes)
}

/// What keeping one item did.
enum Kept {
    Created,
    Updated,
    Unchanged,
}

async fn keep_summary(
    tx: &mut Tx,
    subject: &Subject,
    resource: &str,
    date: NaiveDate,
    body: &Value,
    updated_at: i64,
    compare: Compare,
) -> Result<Kept, sqlx::Error> {
    let id = body["id"].as_str().unwrap_or_default();
    let stored: Option<(String,)> = match compare {
        Compare::Changes => {
            sqlx::query_as("SELECT body FROM summaries WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut ***tx)
                .await?
        }
        Compare::Overwrite => None,
    };
    let kept = match stored {
        None => Kept::Created,
        Some((text,)) if columns::from_json::<Value>(&text)? == *body => {
            return Ok(Kept::Unchanged);
        }
        Some(_) => Kept::Updated,
    };
    sqlx::query(
        "INSERT INTO summaries (id, user_id, provider, resource, calendar_date, body, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at \
         WHERE summaries.updated_at <= excluded.updated_at",
    )
    .bind(id)
    .bind(&subject.user_id)
    .bind(&subject.provider)
    .bind(resource)
    .bind(date.to_string())
    .bind(columns::json(body)?)
    .bind(updated_at)
    .execute(&mut ***tx)
    .await?;
    Ok(kept)
}

/// Splits the reported samples into those the store lacks and those it holds with another
/// value; the same ones are left out.
async fn changed_samples(
    tx: &mut Tx,
    subject: &Subject,
    source_type: &str,
    resource: &str,
    date: NaiveDate,
    samples: Vec<Sample>,
) -> Result<(Vec<Sample>, Vec<Sample>), sqlx::Error> {
    let (start, end) = subject.day(date);
    let stored: Vec<(i64, String)> = sqlx::query_as(
        "SELECT at, body FROM samples WHERE user_id = $1 AND resource = $2 AND provider = $3 \
         AND source_type = $4 AND at >= $5 AND at < $6",
    )
    .bind(&subject.user_id)
    .bind(resource)
    .bind(&subject.provider)
    .bind(source_type)
    .bind(start.timestamp_micros())
    .bind(end.timestamp_micros())
    .fetch_all(&mut ***tx)
    .await?;
    let stored: HashMap<i64, String> = stored.into_iter().collect();
    let (mut created, mut updated) = (Vec::new(), Vec::new());
    for sample in samples {
        match stored.get(&instant(&sample)?) {
            None => created.push(sample),
            Some(text) if columns::from_json::<Sample>(text)? == sample => {}
            Some(_) => updated.push(sample),
        }
    }
    Ok((created, updated))
}

async fn keep_samples(
    tx: &mut Tx,
    subject: &Subject,
    source_type: &str,
    resource: &str,
    samples: &[Sample],
) -> Result<(), sqlx::Error> {
    let rows: Vec<String> = (0..samples.len())
        .map(|i| {
            let p = |k: usize| format!("${}", i * 6 + k);
            format!(
                "({}, {}, {}, {}, {}, {})",
                p(1),
                p(2),
                p(3),
                p(4),
                p(5),
                p(6)
            )
        })
        .collect();
    let statement = format!(
        "INSERT INTO samples (user_id, resource, provider, source_type, at, body) VALUES {} \
         ON CONFLICT (user_id, resource, provider, source_type, at) \
         DO UPDATE SET body = excluded.body",
        rows.join(", ")
    );
    let mut query = sqlx::query(&statement);
    for sample in samples {
        query = query
            .bind(&subject.user_id)
            .bind(resource)
            .bind(&subject.provider)
            .bind(source_type)
            .bind(instant(sample)?)
            .bind(columns::json(sample)?);
    }
    query.execute(&mut ***tx).await?;
    Ok(())
}

/// A sample's instant, in microseconds: the key it is stored under.
fn instant(sample: &Sample) -> Result<i64, sqlx::Error> {
    Ok(DateTime::parse_from_rfc3339(&sample.timestamp)
        .map_err(|e| sqlx::Error::Decode(Box::new(e)))?
        .timestamp_micros())
}

fn encode(error: serde_json::Error) -> sqlx::Error {
    sqlx::Error::Encode(Box::new(error))
}
