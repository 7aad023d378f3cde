//! Historical pull triggering, throttled per team and provider by the spec's rate limit
//! (`health_api::limits::HISTORICAL_PULL_TRIGGERING`): the tier of a provider says how many
//! users may be pulling at a time, or may be triggered within a window.

use super::{FAILED, SUCCESS};
use crate::infra::clock::to_micros;
use crate::infra::store::Tx;
use covenant_runtime::limits::Rate;
use health_api::limits::HISTORICAL_PULL_TRIGGERING;

/// What the rate allows now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allowance {
    /// This many more users may be triggered.
    Now(usize),
    /// None now; look again after this long.
    Wait(chrono::Duration),
}

/// How long a full concurrent tier waits before it looks again: a pull ends on its own time.
const CONCURRENT_LOOK: chrono::Duration = chrono::Duration::seconds(1);

pub async fn allowance(
    tx: &mut Tx,
    team_id: &str,
    provider: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Allowance, sqlx::Error> {
    let Some(tier) = HISTORICAL_PULL_TRIGGERING.tier_for(provider) else {
        return Ok(Allowance::Now(usize::MAX));
    };
    match tier.rate {
        Rate::Concurrent(limit) => {
            let (pulling,): (i64,) = sqlx::query_as(
                "SELECT COUNT(DISTINCT user_id) FROM pulls WHERE team_id = $1 AND provider = $2 \
                 AND status <> $3 AND status <> $4",
            )
            .bind(team_id)
            .bind(provider)
            .bind(SUCCESS)
            .bind(FAILED)
            .fetch_one(&mut ***tx)
            .await?;
            Ok(match left(limit, pulling) {
                0 => Allowance::Wait(CONCURRENT_LOOK),
                n => Allowance::Now(n),
            })
        }
        Rate::Windowed { count, window } => {
            let window = chrono::Duration::from_std(window).unwrap_or(chrono::Duration::zero());
            let since = to_micros(now - window);
            let (triggered, oldest): (i64, Option<i64>) = sqlx::query_as(
                "SELECT COUNT(DISTINCT user_id), MIN(triggered_at) FROM pulls \
                 WHERE team_id = $1 AND provider = $2 AND triggered_at > $3",
            )
            .bind(team_id)
            .bind(provider)
            .bind(since)
            .fetch_one(&mut ***tx)
            .await?;
            Ok(match left(count, triggered) {
                0 => {
                    let frees_at = oldest.map_or(now, crate::infra::clock::from_micros) + window;
                    Allowance::Wait((frees_at - now).max(chrono::Duration::milliseconds(1)))
                }
                n => Allowance::Now(n),
            })
        }
    }
}

fn left(limit: u32, used: i64) -> usize {
    usize::try_from(i64::from(limit) - used).unwrap_or(0)
}
