//! Webhook endpoints through the management API, and deliveries of the events a cause emits,
//! received by a real HTTP endpoint: signed, retried with the same `webhook-id`, in order per
//! user, every attempt listed.

use crate::harness::Harness;
use crate::linking::recipe;
use crate::on_both_backends;
use crate::users::create;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use covenant_runtime::webhooks::{DEFAULT_TOLERANCE, WebhookSecret as Key, verify};
use covenant_runtime::{Tristate, Uuid};
use health_api::events::{Payload, read_delivery};
use health_api::models::*;
use health_api::operations::*;
use health_server::clock::Clock;
use health_server::webhooks::delivery::RETRY_WAITS;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

on_both_backends!(
    endpoints_are_managed_and_their_secrets_rotate,
    endpoints_refuse_addresses_and_headers_a_delivery_cannot_use,
    a_bulk_import_arrives_as_signed_connection_events,
    a_failed_delivery_is_retried_with_its_id_and_in_order_per_user,
    a_delivery_that_always_fails_is_marked_failed_after_the_schedule,
);

/// An HTTP endpoint on a loopback port that answers 500 to its first `failures` deliveries
/// and 204 after, and hands each delivery it got to the test.
pub struct Receiver {
    pub url: String,
    received: mpsc::UnboundedReceiver<(HeaderMap, Bytes)>,
}

impl Receiver {
    pub async fn start(failures: usize) -> Receiver {
        let (sender, received) = mpsc::unbounded_channel();
        let failures = Arc::new(AtomicUsize::new(failures));
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: HeaderMap, body: Bytes| {
                let sender = sender.clone();
                let failures = failures.clone();
                async move {
                    let _ = sender.send((headers, body));
                    let failing = failures
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok();
                    match failing {
                        true => StatusCode::INTERNAL_SERVER_ERROR,
                        false => StatusCode::NO_CONTENT,
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, received }
    }

    pub async fn next(&mut self) -> (HeaderMap, Bytes) {
        tokio::time::timeout(Duration::from_secs(15), self.received.recv())
            .await
            .expect("a delivery within 15 s")
            .expect("the receiver runs")
    }

    /// A delivery, if one arrives within `wait`.
    pub async fn within(&mut self, wait: Duration) -> Option<(HeaderMap, Bytes)> {
        tokio::time::timeout(wait, self.received.recv())
            .await
            .ok()
            .flatten()
    }

    /// Nothing arrives for a while.
    async fn quiet(&mut self) {
        let got = tokio::time::timeout(Duration::from_millis(1500), self.received.recv()).await;
        assert!(got.is_err(), "nothing is due yet: {got:?}");
    }
}

pub async fn endpoint(h: &Harness, url: &str, event_types: &[&str]) -> CreatedWebhookEndpoint {
    let body = CreateWebhookEndpointRequest {
        url: url.to_string(),
        description: Tristate::Value("test receiver".into()),
        event_types: event_types.iter().map(|t| t.to_string()).collect(),
        headers: Some([("x-receiver".to_string(), "tests".to_string())].into()),
    };
    match h
        .team()
        .create_webhook_endpoint(CreateWebhookEndpointInput { body })
        .await
        .unwrap()
    {
        CreateWebhookEndpointResponse::Created(created) => created,
        other => panic!("create endpoint: {other:?}"),
    }
}

pub async fn import(h: &Harness, provider: BulkProvider, users: &[Uuid]) {
    let body = BulkImportRequest {
        provider,
        connections: users.iter().copied().map(recipe).collect(),
        wait_for_completion: true,
    };
    let response = h
        .team()
        .bulk_import(BulkImportInput {
            team_id: None,
            body,
        })
        .await
        .unwrap();
    assert!(
        matches!(response, BulkImportResponse::Ok(_)),
        "{response:?}"
    );
}

/// Checks the signature at the server's clock, and reads the delivery.
pub fn verified(
    h: &Harness,
    secret: &str,
    (headers, body): &(HeaderMap, Bytes),
) -> (Event, Payload) {
    let key = Key::parse(secret).unwrap();
    let now = h.clock.now().timestamp();
    verify(&key, headers, body, now, DEFAULT_TOLERANCE).expect("a valid signature");
    read_delivery(body).expect("a delivery of the spec's events")
}

fn message_id(headers: &HeaderMap) -> String {
    headers["webhook-id"].to_str().unwrap().to_string()
}

async fn attempts(h: &Harness, endpoint: Uuid, event_type: Option<&str>) -> Vec<WebhookAttempt> {
    let input = ListWebhookAttemptsInput {
        endpoint_id: endpoint,
        event_type: event_type.map(str::to_string),
        delivery: None,
        next_cursor: None,
        page_size: 100,
    };
    match h.team().list_webhook_attempts(input).await.unwrap() {
        ListWebhookAttemptsResponse::Ok(page) => page.data,
        other => panic!("attempts: {other:?}"),
    }
}

/// Waits until the server has recorded `count` attempts.
async fn recorded(h: &Harness, endpoint: Uuid, count: usize) {
    for _ in 0..100 {
        if attempts(h, endpoint, None).await.len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{count} attempts recorded within 5 s");
}

async fn endpoints_are_managed_and_their_secrets_rotate(h: Harness) {
    let team = h.team();
    let created = endpoint(&h, "http://127.0.0.1:9/hook", &["daily.data."]).await;
    let id = created.endpoint.id;
    assert!(created.secret.secret.starts_with("whsec_"));
    assert_eq!(created.endpoint.event_types, ["daily.data."]);
    assert!(!created.endpoint.disabled);

    let ListWebhookEndpointsResponse::Ok(listed) = team
        .list_webhook_endpoints(ListWebhookEndpointsInput {})
        .await
        .unwrap()
    else {
        panic!("list");
    };
    assert_eq!(listed.data, std::slice::from_ref(&created.endpoint));

    let body = UpdateWebhookEndpointRequest {
        url: None,
        description: Tristate::Null,
        event_types: Some(vec![]),
        headers: None,
        disabled: Some(true),
    };
    let UpdateWebhookEndpointResponse::Ok(updated) = team
        .update_webhook_endpoint(UpdateWebhookEndpointInput {
            endpoint_id: id,
            body,
        })
        .await
        .unwrap()
    else {
        panic!("update");
    };
    assert_eq!(updated.description, None);
    assert!(updated.event_types.is_empty() && updated.disabled);
    assert_eq!(updated.headers, created.endpoint.headers, "left out, kept");

    let RotateWebhookSecretResponse::Ok(rotated) = team
        .rotate_webhook_secret(RotateWebhookSecretInput { endpoint_id: id })
        .await
        .unwrap()
    else {
        panic!("rotate");
    };
    assert_ne!(rotated.secret, created.secret.secret);
    let GetWebhookSecretResponse::Ok(current) = team
        .get_webhook_secret(GetWebhookSecretInput { endpoint_id: id })
        .await
        .unwrap()
    else {
        panic!("secret");
    };
    assert_eq!(current, rotated);

    // Another team sees none of it.
    let other = h.new_team("Other", Region::Us).await;
    let other = h.team_client(other.id).await;
    let response = other
        .get_webhook_endpoint(GetWebhookEndpointInput { endpoint_id: id })
        .await
        .unwrap();
    assert!(
        matches!(response, GetWebhookEndpointResponse::NotFound(_)),
        "{response:?}"
    );

    let response = team
        .delete_webhook_endpoint(DeleteWebhookEndpointInput { endpoint_id: id })
        .await
        .unwrap();
    assert!(
        matches!(response, DeleteWebhookEndpointResponse::Ok(_)),
        "{response:?}"
    );
    let response = team
        .get_webhook_endpoint(GetWebhookEndpointInput { endpoint_id: id })
        .await
        .unwrap();
    assert!(
        matches!(response, GetWebhookEndpointResponse::NotFound(_)),
        "{response:?}"
    );
}

async fn endpoints_refuse_addresses_and_headers_a_delivery_cannot_use(h: Harness) {
    let create = |body: serde_json::Value| {
        h.http()
            .post(format!("{}/v2/webhook/endpoint", h.base_url))
            .header("x-service-api-key", &h.keys.team_api_key)
            .json(&body)
            .send()
    };
    let locs = |body: &serde_json::Value| -> Vec<serde_json::Value> {
        body["detail"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["loc"].clone())
            .collect()
    };
    // The address's scheme is the spec's pattern, checked by the router.
    let response = create(serde_json::json!({"url": "ftp://example.com/hook"}))
        .await
        .unwrap();
    assert_eq!(response.status(), 422);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(locs(&body), [serde_json::json!(["body", "url"])], "{body}");
    let response = create(serde_json::json!({
        "url": "HTTP://example.com/hook",
        "headers": {"webhook-signature": "forged", "x-ok": "fine", "bad name": "x"},
    }))
    .await
    .unwrap();
    assert_eq!(response.status(), 422);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        locs(&body),
        [
            serde_json::json!(["body", "headers", "bad name"]),
            serde_json::json!(["body", "headers", "webhook-signature"]),
        ],
        "{body}"
    );
    // A team's endpoints are bounded by the spec's limit; one more is a conflict.
    for n in 0..health_api::limits::WEBHOOK_ENDPOINTS_PER_TEAM {
        let url = format!("http://127.0.0.1:9/{n}");
        let response = create(serde_json::json!({ "url": url })).await.unwrap();
        assert_eq!(response.status(), 201, "endpoint {n}");
    }
    let response = create(serde_json::json!({"url": "http://127.0.0.1:9/over"}))
        .await
        .unwrap();
    assert_eq!(response.status(), 409);
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("at most 20"),
        "{body}"
    );
}

async fn a_bulk_import_arrives_as_signed_connection_events(h: Harness) {
    let mut receiver = Receiver::start(0).await;
    let created = endpoint(&h, &receiver.url, &["provider."]).await;
    let first = create(&h, "hooked-1").await;
    let second = create(&h, "hooked-2").await;
    import(&h, BulkProvider::Oura, &[first, second]).await;

    let mut users = Vec::new();
    for _ in 0..2 {
        let delivery = receiver.next().await;
        assert_eq!(delivery.0["x-receiver"], "tests");
        assert_eq!(delivery.0["content-type"], "application/json");
        let (envelope, payload) = verified(&h, &created.secret.secret, &delivery);
        let Payload::ProviderConnectionCreated { data } = payload else {
            panic!("a connection event: {payload:?}");
        };
        assert_eq!(envelope.event_type, "provider.connection.created");
        assert_eq!(envelope.team_id.0.to_string(), h.keys.team_id);
        assert_eq!(data.provider.extra["slug"], "oura");
        #[allow(deprecated)]
        let source = &data.source;
        assert_eq!(
            source, &data.provider,
            "the deprecated name carries the same"
        );
        users.push((envelope.user_id, envelope.client_user_id));
    }
    users.sort_by_key(|(_, client)| client.clone());
    assert_eq!(
        users,
        [
            (first, "hooked-1".to_string()),
            (second, "hooked-2".to_string())
        ]
    );
    receiver.quiet().await;

    // Importing the same connections again connects nothing new: no second event.
    import(&h, BulkProvider::Oura, &[first]).await;
    receiver.quiet().await;

    recorded(&h, created.endpoint.id, 2).await;
    let listed = attempts(&h, created.endpoint.id, None).await;
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .all(|a| a.delivery == WebhookDeliveryStatus::Delivered
                && a.status_code == Some(204)
                && a.attempt == 1
                && a.error.is_none())
    );
    assert!(
        attempts(&h, created.endpoint.id, Some("daily."))
            .await
            .is_empty()
    );
}

async fn a_failed_delivery_is_retried_with_its_id_and_in_order_per_user(h: Harness) {
    let mut receiver = Receiver::start(1).await;
    let created = endpoint(&h, &receiver.url, &[]).await;
    let user = create(&h, "ordered").await;
    import(&h, BulkProvider::Oura, &[user]).await;
    import(&h, BulkProvider::Fitbit, &[user]).await;

    let refused = receiver.next().await;
    let (_, payload) = verified(&h, &created.secret.secret, &refused);
    let Payload::ProviderConnectionCreated { data } = payload else {
        panic!("{payload:?}");
    };
    assert_eq!(data.provider.extra["slug"], "oura");
    // The user's second event waits behind the first, which waits for its retry.
    receiver.quiet().await;
    recorded(&h, created.endpoint.id, 1).await;

    h.clock.advance(chrono::Duration::seconds(7));
    let retried = receiver.next().await;
    assert_eq!(message_id(&retried.0), message_id(&refused.0));
    assert_eq!(retried.1, refused.1);
    let (_, payload) = verified(&h, &created.secret.secret, &receiver.next().await);
    let Payload::ProviderConnectionCreated { data } = payload else {
        panic!("{payload:?}");
    };
    assert_eq!(
        data.provider.extra["slug"], "fitbit",
        "then the second, in order"
    );

    recorded(&h, created.endpoint.id, 3).await;
    let listed = attempts(&h, created.endpoint.id, None).await;
    let states: Vec<(i64, WebhookDeliveryStatus, Option<i64>)> = listed
        .iter()
        .map(|a| (a.attempt, a.delivery.clone(), a.status_code))
        .collect();
    assert_eq!(
        states,
        [
            (1, WebhookDeliveryStatus::Delivered, Some(204)),
            (2, WebhookDeliveryStatus::Delivered, Some(204)),
            (1, WebhookDeliveryStatus::Retrying, Some(500)),
        ],
        "newest first"
    );
    assert_eq!(
        listed[2].error.as_deref(),
        Some("the endpoint answered 500 Internal Server Error")
    );
}

async fn a_delivery_that_always_fails_is_marked_failed_after_the_schedule(h: Harness) {
    let mut receiver = Receiver::start(usize::MAX).await;
    let created = endpoint(&h, &receiver.url, &[]).await;
    let user = create(&h, "unlucky").await;
    import(&h, BulkProvider::Oura, &[user]).await;
    let first = message_id(&receiver.next().await.0);
    for (made, wait) in RETRY_WAITS.into_iter().enumerate() {
        // The next wait counts from when the attempt was recorded.
        recorded(&h, created.endpoint.id, made + 1).await;
        h.clock
            .advance(chrono::Duration::from_std(wait.mul_f64(1.25)).unwrap());
        assert_eq!(message_id(&receiver.next().await.0), first);
    }
    h.clock.advance(chrono::Duration::days(2));
    receiver.quiet().await;
    recorded(&h, created.endpoint.id, RETRY_WAITS.len() + 1).await;
    let listed = attempts(&h, created.endpoint.id, None).await;
    assert_eq!(listed.len(), RETRY_WAITS.len() + 1);
    assert_eq!(listed[0].delivery, WebhookDeliveryStatus::Failed);
    assert!(
        listed[1..]
            .iter()
            .all(|a| a.delivery == WebhookDeliveryStatus::Retrying)
    );
}
