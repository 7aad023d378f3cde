//! Refresh: the user's last days fetched again from each connected provider, as durable
//! fetches the workers take like historical pulls. The request waits for them up to its
//! `timeout`, then answers where each stands; what is still fetching goes on, and what it
//! finds is announced by events however the request ended.

use super::{FAILED, Kind, SUCCESS, UserDays};
use crate::ReferenceServer;
use crate::domain::users::ensure_visible;
use crate::infra::clock::to_micros;
use crate::infra::columns;
use crate::infra::failure::Failure;
use health_api::models::RefreshResult;
use std::collections::BTreeMap;
use std::time::Duration;

/// Days a refresh fetches, ending with the user's today: yesterday's late data and today's.
pub const DAYS: i64 = 2;
/// Time kept, of the request's timeout, to answer in.
const ANSWER_MARGIN: Duration = Duration::from_millis(500);
/// How often a waiting request looks at its fetches.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// Records the fetches, waits up to `timeout` for them, and answers where each stands.
pub async fn refresh(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
    timeout: Duration,
) -> Result<RefreshResult, Failure> {
    let sources = trigger(s, team_id, user_id).await?;
    s.fetches_owed(Kind::Refresh).notify_one();
    // The answer is due by the timeout, so the waiting ends a little before it.
    let deadline = tokio::time::Instant::now() + timeout.saturating_sub(ANSWER_MARGIN);
    loop {
        let standing = stand(s, user_id, &sources).await?;
        let waiting = standing.iter().any(|(_, status)| !finished(status));
        if !waiting || tokio::time::Instant::now() >= deadline {
            return answer(user_id, standing);
        }
        tokio::time::sleep(LOOK_EVERY.min(deadline - tokio::time::Instant::now())).await;
    }
}

/// Records a fetch of each resource of each connected provider over the user's last days
/// (within their ingestion bounds), and answers the `(provider, resource)` pairs.
async fn trigger(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
) -> Result<Vec<(String, String)>, Failure> {
    let now = s.clock.now();
    let mut tx = s.store.write().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    let (time_zone, ingestion_start, ingestion_end): (
        Option<String>,
        Option<String>,
        Option<String>,
    ) = sqlx::query_as("SELECT time_zone, ingestion_start, ingestion_end FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_one(&mut **tx)
        .await?;
    let connections: Vec<(String, String)> = sqlx::query_as(
        "SELECT c.provider, p.supported_resources FROM connections c \
         JOIN providers p ON p.slug = c.provider WHERE c.user_id = $1 ORDER BY c.provider",
    )
    .bind(user_id)
    .fetch_all(&mut **tx)
    .await?;
    let user_days = UserDays::from_columns(
        time_zone.as_deref(),
        ingestion_start.as_deref(),
        ingestion_end.as_deref(),
    )?;
    let today = user_days.today(now);
    let days = user_days.within(today - chrono::Duration::days(DAYS - 1), today);
    let mut sources = Vec::new();
    for (provider, supported) in connections {
        let resources: Vec<String> = columns::from_json(&supported)?;
        if let Some(days) = days {
            let micros = to_micros(now);
            super::record(
                &mut tx,
                Kind::Refresh,
                team_id,
                user_id,
                &provider,
                &resources,
                days,
                micros,
            )
            .await?;
        }
        sources.extend(resources.into_iter().map(|r| (provider.clone(), r)));
    }
    tx.commit().await?;
    Ok(sources)
}

/// Each source's status, in the order of the provider's resources; one with nothing to fetch (outside the ingestion bounds) is done.
async fn stand(
    s: &ReferenceServer,
    user_id: &str,
    sources: &[(String, String)],
) -> Result<Vec<((String, String), String)>, Failure> {
    let rows: Vec<(String, String, String)> =
        sqlx::query_as("SELECT provider, resource, status FROM refreshes WHERE user_id = $1")
            .bind(user_id)
            .fetch_all(&mut **s.store.read().await?)
            .await?;
    let statuses: BTreeMap<(String, String), String> = rows
        .into_iter()
        .map(|(provider, resource, status)| ((provider, resource), status))
        .collect();
    Ok(sources
        .iter()
        .map(|source| {
            let status = statuses.get(source).map_or(SUCCESS, String::as_str);
            (source.clone(), status.to_string())
        })
        .collect())
}

fn finished(status: &str) -> bool {
    status == SUCCESS || status == FAILED
}

fn answer(
    user_id: &str,
    standing: Vec<((String, String), String)>,
) -> Result<RefreshResult, Failure> {
    let mut result = RefreshResult {
        success: true,
        user_id: columns::uuid(user_id)?,
        refreshed_sources: Vec::new(),
        in_progress_sources: Vec::new(),
        failed_sources: Vec::new(),
    };
    for ((provider, resource), status) in standing {
        let entry = format!("{provider}/{resource}");
        match status.as_str() {
            SUCCESS => result.refreshed_sources.push(entry),
            FAILED => result.failed_sources.push(entry),
            _ => result.in_progress_sources.push(entry),
        }
    }
    Ok(result)
}
