//! Provider data as a consumer sees it: a refresh announces what is new or changed with
//! signed `daily.data.*` events (and the deprecated hypnogram ones beside sleep cycles), and
//! the summary, timeseries and workout stream endpoints serve the latest of what was kept.

use crate::harness::Harness;
use crate::on_both_backends;
use crate::users::create;
use crate::webhooks::{Receiver, endpoint, import, verified};
use covenant_runtime::{Date, Uuid};
use health_api::events::Payload;
use health_api::models::*;
use health_api::operations::*;
use health_server::clock::Clock;
use std::collections::BTreeMap;
use std::time::Duration;

on_both_backends!(
    a_refresh_announces_what_is_new_or_changed_and_reads_serve_the_latest,
    reads_refuse_ranges_they_cannot_serve,
);

async fn refresh(h: &Harness, user: Uuid) -> RefreshResult {
    let input = RefreshUserInput {
        user_id: user,
        timeout: 5.0,
    };
    match h.team().refresh_user(input).await.unwrap() {
        RefreshUserResponse::Ok(result) => result,
        other => panic!("refresh: {other:?}"),
    }
}

/// Refreshes not yet finished: a provider's temporary failure waits for its retry.
async fn unfinished(h: &Harness, user: Uuid) -> i64 {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM refreshes WHERE user_id = $1 AND status NOT IN ('success', 'failed')",
    )
    .bind(user.0.to_string())
    .fetch_one(h.server.store().pool())
    .await
    .unwrap();
    n
}

/// Every event of the refreshes under way, once they have all finished; the clock moves a
/// minute each time a retry is awaited.
async fn events_until_done(
    h: &Harness,
    receiver: &mut Receiver,
    secret: &str,
    user: Uuid,
) -> Vec<Payload> {
    let mut received = Vec::new();
    for _ in 0..400 {
        match receiver.within(Duration::from_millis(200)).await {
            Some(delivery) => {
                let (envelope, payload) = verified(h, secret, &delivery);
                assert_eq!(envelope.user_id, user);
                received.push(payload);
            }
            None if unfinished(h, user).await == 0 => {
                // The fetches are done, but their events go out from the outbox after they
                // commit: a loaded machine may still have some on the way.
                while let Some(delivery) = receiver.within(Duration::from_secs(2)).await {
                    let (envelope, payload) = verified(h, secret, &delivery);
                    assert_eq!(envelope.user_id, user);
                    received.push(payload);
                }
                return received;
            }
            None => h.clock.advance(chrono::Duration::minutes(1)),
        }
    }
    panic!("the refreshes did not finish");
}

fn by_type(events: &[Payload]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for event in events {
        *counts.entry(event.event_type()).or_default() += 1;
    }
    counts
}

async fn a_refresh_announces_what_is_new_or_changed_and_reads_serve_the_latest(h: Harness) {
    let mut receiver = Receiver::start(0).await;
    let hook = endpoint(&h, &receiver.url, &["daily."]).await;
    let secret = hook.secret.secret.clone();
    let user = create(&h, "refreshing").await;
    import(&h, BulkProvider::Garmin, &[user]).await;

    // At noon: yesterday whole, today's morning.
    let first = refresh(&h, user).await;
    let answered = first.refreshed_sources.len()
        + first.in_progress_sources.len()
        + first.failed_sources.len();
    assert_eq!(answered, 26, "each Garmin resource: {first:?}");
    assert!(
        first
            .refreshed_sources
            .iter()
            .all(|s| s.starts_with("garmin/")),
        "{first:?}"
    );
    let events = events_until_done(&h, &mut receiver, &secret, user).await;
    let counts = by_type(&events);
    for expected in [
        "daily.data.activity.created",
        "daily.data.sleep_cycle.created",
        "daily.timeseries.hypnogram.created",
        "daily.data.workouts.created",
        "daily.data.workout_stream.created",
        "daily.data.heartrate.created",
        "daily.data.steps.created",
    ] {
        assert!(counts.contains_key(expected), "{expected} in {counts:?}");
    }
    assert_eq!(
        counts["daily.data.workouts.created"], 1,
        "yesterday's workout; today's has not happened yet"
    );
    let summary = events
        .iter()
        .find_map(|e| match e {
            Payload::DailySummaryCreated { resource, data } if resource.as_str() == "activity" => {
                Some(data.clone())
            }
            _ => None,
        })
        .unwrap();
    #[allow(deprecated)]
    let slug = summary.source.slug.clone();
    assert_eq!(summary.source.provider.as_deref(), Some("garmin"));
    assert_eq!(
        slug.as_deref(),
        Some("garmin"),
        "the deprecated slug beside it"
    );
    assert_eq!(summary.user_id, user);
    let Some(Payload::DailyWorkoutStreamCreated { data: stream_event }) = events
        .iter()
        .find(|e| matches!(e, Payload::DailyWorkoutStreamCreated { .. }))
    else {
        unreachable!()
    };

    // Two hours later: today has more samples, its open hour is complete, its activity
    // summary grew; yesterday is unchanged and announced no more.
    h.clock.advance(chrono::Duration::hours(2));
    refresh(&h, user).await;
    let later = by_type(&events_until_done(&h, &mut receiver, &secret, user).await);
    for expected in [
        "daily.data.activity.updated",
        "daily.data.heartrate.created",
        "daily.data.steps.created",
        "daily.data.steps.updated",
    ] {
        assert!(later.contains_key(expected), "{expected} in {later:?}");
    }
    for unchanged in [
        "daily.data.sleep_cycle.created",
        "daily.data.sleep_cycle.updated",
        "daily.data.workouts.created",
    ] {
        assert!(!later.contains_key(unchanged), "{unchanged} in {later:?}");
    }

    // The reads serve the latest versions.
    let today = Date(h.clock.now().date_naive());
    let yesterday = Date(today.0.pred_opt().unwrap());
    let input = GetSummariesInput {
        resource: SummaryResource::Activity,
        user_id: user,
        start_date: yesterday,
        end_date: Some(today),
        provider: None,
    };
    let GetSummariesResponse::Ok(activity) = h.team().get_summaries(input).await.unwrap() else {
        panic!("summaries");
    };
    assert_eq!(activity.data.len(), 2, "one a day");
    assert_eq!(
        activity.data[0].extra["calendar_date"],
        yesterday.0.to_string()
    );
    assert_eq!(activity.data[1].source.provider.as_deref(), Some("garmin"));

    let input = GetTimeseriesInput {
        user_id: user,
        resource: TimeseriesResource::Heartrate,
        start_date: today,
        end_date: None,
        provider: Some("garmin".into()),
    };
    let GetTimeseriesResponse::Ok(heart) = h.team().get_timeseries(input).await.unwrap() else {
        panic!("timeseries");
    };
    assert_eq!(heart.data.len(), 1, "one source");
    let samples = &heart.data[0].data;
    let now = h.clock.now();
    assert!(samples.iter().all(|s| s.timestamp.0 <= now));
    assert!(
        samples
            .windows(2)
            .all(|w| w[0].timestamp.0 < w[1].timestamp.0)
    );
    assert!(
        samples.len() > 12 * 12,
        "samples to after 14:00: {}",
        samples.len()
    );

    let input = GetWorkoutStreamInput {
        workout_id: stream_event.workout_id,
    };
    let GetWorkoutStreamResponse::Ok(stream) = h.team().get_workout_stream(input).await.unwrap()
    else {
        panic!("the stream the event announced");
    };
    assert_eq!(stream.user_id, user);
    assert_eq!(stream.time.len(), 361, "an hour, every ten seconds");
    assert_eq!(stream.heartrate.len(), stream.time.len());
    let unknown = GetWorkoutStreamInput {
        workout_id: Uuid(uuid::Uuid::new_v4()),
    };
    assert!(matches!(
        h.team().get_workout_stream(unknown).await.unwrap(),
        GetWorkoutStreamResponse::NotFound(_)
    ));
}

async fn reads_refuse_ranges_they_cannot_serve(h: Harness) {
    let user = create(&h, "ranges").await;
    let day = |text: &str| Date(text.parse().unwrap());
    let read = |start: &str, end: &str| GetSummariesInput {
        resource: SummaryResource::Sleep,
        user_id: user,
        start_date: day(start),
        end_date: Some(day(end)),
        provider: None,
    };
    for (start, end) in [("2026-02-10", "2026-02-01"), ("2026-01-01", "2026-02-01")] {
        let GetSummariesResponse::BadRequest(refused) =
            h.team().get_summaries(read(start, end)).await.unwrap()
        else {
            panic!("{start} to {end} refused");
        };
        assert!(refused.detail.contains(end), "{}", refused.detail);
    }
    let GetSummariesResponse::Ok(none) = h
        .team()
        .get_summaries(read("2026-01-01", "2026-01-31"))
        .await
        .unwrap()
    else {
        panic!("31 days are read");
    };
    assert!(none.data.is_empty(), "a user with no provider has no data");
    let stranger = GetSummariesInput {
        user_id: Uuid(uuid::Uuid::new_v4()),
        ..read("2026-01-01", "2026-01-02")
    };
    assert!(matches!(
        h.team().get_summaries(stranger).await.unwrap(),
        GetSummariesResponse::NotFound(_)
    ));
}
