//! Keeping what a provider reports: summaries by their `id`, samples by resource, provider,
//! source type and instant, the latest version replacing the others (the document's rules),
//! so fetching a day again changes nothing but what the provider changed.

use crate::columns;
use crate::simulator::{self, Subject};
use crate::store::Tx;
use serde_json::Value;

/// Rows a multi-row insert of samples writes at once: 6 values each, well within both
/// databases' limits on bound values.
const SAMPLES_PER_STATEMENT: usize = 200;

/// What one day of one resource left in the store.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Kept {
    pub summaries: usize,
    pub samples: usize,
}

/// Keeps one day of one resource as `subject`'s provider reports it.
pub async fn keep_day(
    tx: &mut Tx,
    subject: &Subject,
    source_type: &str,
    resource: &str,
    date: chrono::NaiveDate,
    now: i64,
) -> Result<Kept, sqlx::Error> {
    let mut kept = Kept::default();
    if let Some(summary) = simulator::summaries::summary(subject, resource, date) {
        let summaries = match serde_json::to_value(&summary).map_err(encode)? {
            Value::Array(items) => items,
            one => vec![one],
        };
        for body in summaries {
            keep_summary(tx, subject, resource, &date.to_string(), &body, now).await?;
            kept.summaries += 1;
        }
    }
    if let Some(samples) = simulator::series::samples(subject, resource, date) {
        for chunk in samples.chunks(SAMPLES_PER_STATEMENT) {
            keep_samples(tx, subject, source_type, resource, chunk).await?;
        }
        kept.samples = samples.len();
    }
    Ok(kept)
}

async fn keep_summary(
    tx: &mut Tx,
    subject: &Subject,
    resource: &str,
    calendar_date: &str,
    body: &Value,
    now: i64,
) -> Result<(), sqlx::Error> {
    let id = body["id"].as_str().unwrap_or_default();
    sqlx::query(
        "INSERT INTO summaries (id, user_id, provider, resource, calendar_date, body, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
    )
    .bind(id)
    .bind(&subject.user_id)
    .bind(&subject.provider)
    .bind(resource)
    .bind(calendar_date)
    .bind(columns::json(body)?)
    .bind(now)
    .execute(&mut ***tx)
    .await?;
    Ok(())
}

async fn keep_samples(
    tx: &mut Tx,
    subject: &Subject,
    source_type: &str,
    resource: &str,
    samples: &[simulator::series::Sample],
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
        let at = chrono::DateTime::parse_from_rfc3339(&sample.timestamp)
            .map_err(|e| sqlx::Error::Decode(Box::new(e)))?
            .timestamp_micros();
        query = query
            .bind(&subject.user_id)
            .bind(resource)
            .bind(&subject.provider)
            .bind(source_type)
            .bind(at)
            .bind(columns::json(sample)?);
    }
    query.execute(&mut ***tx).await?;
    Ok(())
}

fn encode(error: serde_json::Error) -> sqlx::Error {
    sqlx::Error::Encode(Box::new(error))
}
