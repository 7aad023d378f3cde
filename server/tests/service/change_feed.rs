//! Two processes on one PostgreSQL database are one service: a user changed through one is
//! answered changed by the other at once, though each keeps users between reads.

use crate::harness::{Harness, send};
use crate::on_both_backends;
use crate::users::create;
use health_server::store::Location;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_backends!(a_user_changed_through_another_process_is_answered_changed);

/// The other process's write reaches this one's cache through LISTEN/NOTIFY: well within a
/// second (the bench measures the median), where the cache alone would keep the old user
/// until this process's next write.
async fn a_user_changed_through_another_process_is_answered_changed(h: Harness) {
    if matches!(h.database, Location::Sqlite(_)) {
        return; // One process per embedded database: nothing to hear.
    }
    let other = health_server::ReferenceServer::open(health_server::Settings::new(
        h.database.clone(),
        &h.base_url,
    ))
    .await
    .expect("a second process on the same database");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let other_url = format!("http://{}", listener.local_addr().unwrap());
    covenant_runtime::server::spawn_on(
        listener,
        health_server::router(other.clone()),
        covenant_runtime::server::transport::Transport::default(),
    )
    .unwrap()
    .detach();
    let user_id = create(&h, "watched").await;
    let resolve = "/v2/user/resolve/watched";
    for _ in 0..3 {
        let (status, user) = send(&h, "GET", resolve, &Value::Null).await;
        assert_eq!((status, &user["fallback_time_zone"]), (200, &Value::Null));
    }
    let changed = reqwest::Client::new()
        .patch(format!("{other_url}/v2/user/{user_id}"))
        .header("x-service-api-key", &h.keys.team_api_key)
        .json(&json!({ "fallback_time_zone": "Europe/Paris" }))
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), 200);
    let written = Instant::now();
    loop {
        let (_, user) = send(&h, "GET", resolve, &Value::Null).await;
        if user["fallback_time_zone"]["id"] == "Europe/Paris" {
            break;
        }
        assert!(
            written.elapsed() < Duration::from_secs(1),
            "still the old user after {:?}",
            written.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    other.store().close().await;
}
