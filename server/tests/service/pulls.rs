//! Historical pulls: triggered in bulk, fetched from the providers' simulators by the pull
//! workers, kept, throttled per provider by the spec's rate limit, and announced once per
//! resource by a signed `historical.data.<resource>.created`.

use crate::harness::Harness;
use crate::on_both_backends;
use crate::users::create;
use crate::webhooks::{Receiver, endpoint, import, verified};
use covenant_runtime::Uuid;
use health_api::events::Payload;
use health_api::models::*;
use health_api::operations::*;
use std::collections::BTreeSet;
use std::time::Duration;

on_both_backends!(
    a_historical_pull_keeps_the_data_and_announces_each_resource_once,
    triggering_is_throttled_per_provider_by_the_spec_rate,
);

async fn trigger(h: &Harness, provider: BulkProvider, users: &[Uuid], wait: bool) {
    let body = BulkTriggerHistoricalPullRequest {
        user_ids: users.to_vec(),
        provider,
        wait_for_completion: wait,
    };
    let response = h
        .team()
        .bulk_trigger_historical_pull(BulkTriggerHistoricalPullInput {
            team_id: None,
            body,
        })
        .await
        .unwrap();
    assert!(
        matches!(
            response,
            BulkTriggerHistoricalPullResponse::Ok(_)
                | BulkTriggerHistoricalPullResponse::Accepted(_)
        ),
        "{response:?}"
    );
}

/// Rows of a query's single count.
async fn count(h: &Harness, sql: &str, user: Uuid) -> i64 {
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(user.0.to_string())
        .fetch_one(h.server.store().pool())
        .await
        .unwrap();
    n
}

async fn a_historical_pull_keeps_the_data_and_announces_each_resource_once(h: Harness) {
    let mut receiver = Receiver::start(0).await;
    // Daily events are taken too: a pull announces its range once, never each day.
    let hook = endpoint(&h, &receiver.url, &["historical.data.", "daily."]).await;
    let user = create(&h, "historical").await;
    import(&h, BulkProvider::Oura, &[user]).await;
    trigger(&h, BulkProvider::Oura, &[user], true).await;

    let (supported,): (String,) =
        sqlx::query_as("SELECT supported_resources FROM providers WHERE slug = 'oura'")
            .fetch_one(h.server.store().pool())
            .await
            .unwrap();
    let supported: BTreeSet<String> = serde_json::from_str(&supported).unwrap();
    let mut announced = BTreeSet::new();
    // A provider's temporary failures wait for their retry: the clock moves on meanwhile.
    for _ in 0..120 {
        if announced.len() == supported.len() {
            break;
        }
        let Some(delivery) = receiver.within(Duration::from_millis(250)).await else {
            h.clock.advance(chrono::Duration::minutes(5));
            continue;
        };
        let (envelope, payload) = verified(&h, &hook.secret.secret, &delivery);
        let Payload::HistoricalDataCreated { resource, data } = payload else {
            panic!("a historical event: {payload:?}");
        };
        assert_eq!(envelope.user_id, user);
        assert_eq!(data.extra["source"]["provider"], "oura");
        #[allow(deprecated)]
        let is_final = data.is_final;
        assert_eq!(is_final, None, "the removed flag is not sent");
        assert!(
            announced.insert(resource.as_str().to_string()),
            "once per resource"
        );
    }
    assert_eq!(announced, supported);
    assert_eq!(
        count(
            &h,
            "SELECT COUNT(*) FROM pulls WHERE user_id = $1 AND status <> 'success'",
            user
        )
        .await,
        0
    );
    // Fourteen days of each summary, and a day's samples at each resource's interval; of
    // today (the clock is at noon), the morning's.
    assert_eq!(
        count(
            &h,
            "SELECT COUNT(*) FROM summaries WHERE user_id = $1 AND resource = 'sleep'",
            user
        )
        .await,
        14
    );
    let heart = count(
        &h,
        "SELECT COUNT(*) FROM samples WHERE user_id = $1 AND resource = 'heartrate'",
        user,
    )
    .await;
    // The clock moves on while retries are awaited, so today's last sample may be later.
    assert!(
        (13 * 24 * 12 + 12 * 12 + 1..14 * 24 * 12).contains(&heart),
        "{heart} heart rate samples"
    );
    let pulls = pulls_of(&h, user).await;
    assert_eq!(pulls.len(), supported.len(), "one per resource");
    for pull in &pulls {
        assert_eq!(pull.provider, "oura");
        assert_eq!(pull.status, HistoricalPullState::Success, "{pull:?}");
        assert_eq!((pull.days_fetched, pull.days_total), (14, 14));
        assert_eq!(pull.error, None);
    }

    // Pulling again replaces what was kept: the same rows, and each resource announced again.
    trigger(&h, BulkProvider::Oura, &[user], true).await;
    let again = receiver.next().await;
    assert!(matches!(
        verified(&h, &hook.secret.secret, &again).1,
        Payload::HistoricalDataCreated { .. }
    ));
    assert_eq!(
        count(
            &h,
            "SELECT COUNT(*) FROM summaries WHERE user_id = $1 AND resource = 'sleep'",
            user
        )
        .await,
        14
    );
}

async fn triggering_is_throttled_per_provider_by_the_spec_rate(h: Harness) {
    // Garmin's tier: two users a minute.
    let tier = health_api::limits::HISTORICAL_PULL_TRIGGERING
        .tier_for("garmin")
        .unwrap();
    assert_eq!(
        tier.rate,
        covenant_runtime::limits::Rate::Windowed {
            count: 2,
            window: Duration::from_secs(60)
        }
    );
    let mut users = Vec::new();
    for n in 0..3 {
        users.push(create(&h, &format!("throttled-{n}")).await);
    }
    import(&h, BulkProvider::Garmin, &users).await;
    trigger(&h, BulkProvider::Garmin, &users, false).await;
    let triggered = || async {
        let (n,): (i64,) =
            sqlx::query_as("SELECT COUNT(DISTINCT user_id) FROM pulls WHERE provider = 'garmin'")
                .fetch_one(h.server.store().pool())
                .await
                .unwrap();
        n
    };
    for _ in 0..40 {
        if triggered().await == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(triggered().await, 2, "the third waits for the window");
    h.clock.advance(chrono::Duration::seconds(61));
    for _ in 0..60 {
        if triggered().await == 3 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the third user is triggered once the minute has passed");
}

/// A user's historical pulls, as the pull status endpoint lists them.
pub async fn pulls_of(h: &Harness, user: Uuid) -> Vec<HistoricalPullStatus> {
    let input = GetHistoricalPullsInput { user_id: user };
    match h.team().get_historical_pulls(input).await.unwrap() {
        GetHistoricalPullsResponse::Ok(pulls) => pulls.data,
        other => panic!("the user's pulls: {other:?}"),
    }
}
