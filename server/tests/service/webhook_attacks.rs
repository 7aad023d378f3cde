//! What a hostile team tries with webhook endpoints: reaching the server's own network
//! (SSRF), stalling other teams' deliveries, unbounded headers, more endpoints than a team
//! may have. Each test failed before the rule it checks.

use crate::harness::{Harness, send, send_as};
use crate::on_both_backends;
use crate::users::create;
use crate::webhooks::Receiver;
use health_api::models::{Region, TeamFeature, UpdateTeamRequest};
use health_api::operations::UpdateTeamInput;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

mod public_only {
    use super::*;
    on_both_backends!(
        targets = health_server::webhooks::targets::Targets::PublicOnly;
        endpoints_on_loopback_and_private_addresses_are_refused,
        a_stored_private_address_is_never_sent_to,
    );
}

on_both_backends!(
    a_slow_endpoint_holds_up_no_other_teams_deliveries,
    an_endpoints_own_headers_are_bounded,
    concurrent_creates_keep_the_endpoints_per_team,
);

const ENDPOINTS: &str = "/v2/webhook/endpoint";

/// Every spelling of loopback, private and link-local is refused when an endpoint is
/// registered or moved, and nothing is stored; a public address is taken.
async fn endpoints_on_loopback_and_private_addresses_are_refused(h: Harness) {
    let refused = [
        "http://127.0.0.1:9/x",
        "http://localhost:9/x",
        "http://[::1]:9/x",
        "http://0x7f000001:9/x",
        "http://2130706433:9/x",
        "http://127.1:9/x",
        "http://0177.0.0.1:9/x",
        "http://[::ffff:127.0.0.1]:9/x",
        "http://10.0.0.1/x",
        "http://192.168.0.1/x",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd12::1]/x",
    ];
    for url in refused {
        let (status, body) = send(&h, "POST", ENDPOINTS, &json!({ "url": url })).await;
        assert_eq!(status, 422, "{url}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["body", "url"]), "{url}");
    }
    let (_, listed) = send(&h, "GET", ENDPOINTS, &Value::Null).await;
    assert_eq!(listed["data"], json!([]));
    let (status, created) = send(
        &h,
        "POST",
        ENDPOINTS,
        &json!({ "url": "http://93.184.215.14/x" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let path = format!(
        "{ENDPOINTS}/{}",
        created["endpoint"]["id"].as_str().unwrap()
    );
    let (status, body) = send(
        &h,
        "PATCH",
        &path,
        &json!({ "url": "http://127.0.0.1:9/x" }),
    )
    .await;
    assert_eq!(status, 422, "{body}");
}

/// An endpoint stored at an inside address (before the rule, or by a name that later points
/// inside) is never connected to: the attempt says why, and says nothing of what an inside
/// service would have answered.
async fn a_stored_private_address_is_never_sent_to(h: Harness) {
    enable_bulk_import(&h, &h.keys.team_id).await;
    let mut by_address = Receiver::start(0).await;
    let mut by_name = Receiver::start(0).await;
    let mut ids = Vec::new();
    for receiver in [&by_address, &by_name] {
        let (status, created) = send(
            &h,
            "POST",
            ENDPOINTS,
            &json!({ "url": "http://93.184.215.14/x" }),
        )
        .await;
        assert_eq!(status, 201, "{created}");
        let id = created["endpoint"]["id"].as_str().unwrap().to_string();
        let inside = match ids.is_empty() {
            true => receiver.url.clone(),
            false => receiver.url.replace("127.0.0.1", "localhost"),
        };
        sqlx::query("UPDATE webhook_endpoints SET url = $1 WHERE id = $2")
            .bind(&inside)
            .bind(&id)
            .execute(h.server.store().pool())
            .await
            .unwrap();
        ids.push(id);
    }
    let user = create(&h, "inside").await;
    import(&h, &h.keys.team_api_key, &[user.0.to_string()]).await;
    for id in &ids {
        let attempts = format!("{ENDPOINTS}/{id}/attempt");
        let error = wait_for_attempt(&h, &h.keys.team_api_key, &attempts).await;
        assert!(error.contains("deliveries cannot go there"), "{error}");
    }
    assert!(
        by_address
            .within(Duration::from_millis(300))
            .await
            .is_none()
    );
    assert!(by_name.within(Duration::from_millis(300)).await.is_none());
}

/// A team whose 20 endpoints never answer does not hold up another team's delivery: each
/// attempt runs on its own, and a process sends at most a few at a time to one endpoint.
async fn a_slow_endpoint_holds_up_no_other_teams_deliveries(h: Harness) {
    let black_hole = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hole_url = format!("http://{}/never", black_hole.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = black_hole.accept().await {
            open.push(socket);
        }
    });
    let slow_team = h.new_team("Slow receivers", Region::Us).await;
    let slow_key = h.new_team_key(slow_team.id).await;
    enable_bulk_import(&h, &slow_team.id.0.to_string()).await;
    for _ in 0..20 {
        let (status, body) = send_as(
            &h,
            &slow_key,
            "POST",
            ENDPOINTS,
            &json!({ "url": hole_url }),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let mut slow_users = Vec::new();
    for n in 0..10 {
        let body = json!({ "client_user_id": format!("slow-{n}") });
        let (_, created) = send_as(&h, &slow_key, "POST", "/v2/user", &body).await;
        slow_users.push(created["user_id"].as_str().unwrap().to_string());
    }
    import(&h, &slow_key, &slow_users).await;

    enable_bulk_import(&h, &h.keys.team_id).await;
    let mut receiver = Receiver::start(0).await;
    let (status, _) = send(&h, "POST", ENDPOINTS, &json!({ "url": receiver.url })).await;
    assert_eq!(status, 201);
    let user = create(&h, "prompt").await;
    let started = Instant::now();
    import(&h, &h.keys.team_api_key, &[user.0.to_string()]).await;
    let arrived = receiver.within(Duration::from_secs(8)).await;
    assert!(
        arrived.is_some(),
        "another team's slow endpoints held the delivery up"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "delivered after {:?}",
        started.elapsed()
    );
    held.abort();
}

/// An endpoint's own headers are at most 20, of 8 KiB in all: more are refused when sent,
/// never stored, so no delivery has to carry them.
async fn an_endpoints_own_headers_are_bounded(h: Harness) {
    let many: serde_json::Map<String, Value> = (0..21)
        .map(|n| (format!("x-custom-{n}"), json!("v")))
        .collect();
    let huge: serde_json::Map<String, Value> = (0..100_000)
        .map(|n| (format!("x-{n}"), json!("v")))
        .collect();
    let long = json!({ "x-long": "v".repeat(9 * 1024) });
    for headers in [Value::Object(many), Value::Object(huge), long] {
        let body = json!({ "url": "http://93.184.215.14/x", "headers": headers });
        let (status, answer) = send(&h, "POST", ENDPOINTS, &body).await;
        assert_eq!(status, 422, "{answer}");
        assert_eq!(answer["detail"][0]["loc"], json!(["body", "headers"]));
    }
    let (_, listed) = send(&h, "GET", ENDPOINTS, &Value::Null).await;
    assert_eq!(listed["data"], json!([]));
    let fitting: serde_json::Map<String, Value> = (0..20)
        .map(|n| (format!("x-custom-{n}"), json!("v")))
        .collect();
    let body = json!({ "url": "http://93.184.215.14/x", "headers": fitting });
    assert_eq!(send(&h, "POST", ENDPOINTS, &body).await.0, 201);
}

/// Sixty creates at once leave exactly the 20 endpoints a team may have, on PostgreSQL as on
/// SQLite.
async fn concurrent_creates_keep_the_endpoints_per_team(h: Harness) {
    let mut creating = tokio::task::JoinSet::new();
    for n in 0..60 {
        let (base, key) = (h.base_url.clone(), h.keys.team_api_key.clone());
        creating.spawn(async move {
            reqwest::Client::new()
                .post(format!("{base}{ENDPOINTS}"))
                .header("x-service-api-key", key)
                .json(&json!({ "url": format!("http://93.184.215.14/{n}") }))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        });
    }
    let mut statuses = Vec::new();
    while let Some(status) = creating.join_next().await {
        statuses.push(status.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        20,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 409),
        "{statuses:?}"
    );
    let (_, listed) = send(&h, "GET", ENDPOINTS, &Value::Null).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 20);
}

async fn enable_bulk_import(h: &Harness, team_id: &str) {
    let input = UpdateTeamInput {
        org_id: h.org_id(),
        team_id: covenant_runtime::Uuid(team_id.parse().unwrap()),
        body: UpdateTeamRequest {
            name: None,
            enabled_features: Some(vec![TeamFeature::BulkImport]),
        },
    };
    h.management().update_team(input).await.unwrap();
    health_server::admin::set_every_custom_credential(h.server.store(), team_id)
        .await
        .unwrap();
}

/// Imports the users to fitbit, waiting for it: each emits `provider.connection.created`.
async fn import(h: &Harness, key: &str, users: &[String]) {
    let connections: Vec<Value> = users
        .iter()
        .map(|u| {
            json!({ "user_id": u, "access_token": "a", "refresh_token": "r",
                    "provider_id": "p", "expires_at": 2147483647 })
        })
        .collect();
    let body =
        json!({ "provider": "fitbit", "connections": connections, "wait_for_completion": true });
    let (status, answer) = send_as(h, key, "POST", "/v2/link/bulk_import", &body).await;
    assert_eq!(status, 200, "{answer}");
}

/// The error of the first attempt listed at `path`, waiting up to 10 s for one.
async fn wait_for_attempt(h: &Harness, key: &str, path: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, listed) = send_as(h, key, "GET", path, &Value::Null).await;
        if let Some(error) = listed["data"][0]["error"].as_str() {
            return error.to_string();
        }
        assert!(Instant::now() < deadline, "no attempt at {path}: {listed}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
