//! Idempotency keys end to end, over real sockets: the generated client sends a key of its
//! own with every call and keeps it across retries; the router runs a keyed request once and
//! answers repeats from its store (`Idempotent-Replayed: true`), refuses the key with another
//! body (400) and while the first request still runs (409).

use crate::support;

use covenant_corpus::regressions::idempotency as api;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use api::models::{Charge, ChargeRequest};
use api::operations::*;
use api::server::{Answer, Context, IdempotencyServer};

/// Counts the calls that reach it, remembers each key, and answers the first call 503 when
/// told to; an amount of 999 takes half a second.
#[derive(Default)]
struct Server {
    calls: AtomicUsize,
    keys: Mutex<Vec<Option<String>>>,
    fail_first: bool,
}

impl IdempotencyServer for Server {
    crate::support::accepts_key!("key", App, authenticate_app);

    async fn create_charge(
        &self,
        _: Context<(), Self>,
        input: CreateChargeInput,
    ) -> Answer<CreateChargeResponse> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        self.keys
            .lock()
            .unwrap()
            .push(input.idempotency_key.clone());
        if input.body.amount == 999 {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        if self.fail_first && n == 1 {
            // Not kept by the store, and retried by the client: the endpoint takes a key.
            return Ok(CreateChargeResponse::ServiceUnavailable(
                serde_json::json!({"detail": "busy"}),
            ));
        }
        Ok(CreateChargeResponse::Created {
            body: Charge {
                id: n as i64,
                amount: input.body.amount,
            },
            headers: CreateChargeCreatedHeaders {
                idempotent_replayed: None,
            },
        })
    }
}

async fn serve(server: Arc<Server>) -> String {
    support::serve(api::server::router(server, Default::default())).await
}

async fn post(url: &str, key: &str, amount: i64) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{url}/v1/charges"))
        .header("X-Api-Key", "key")
        .header("Idempotency-Key", key)
        .json(&serde_json::json!({ "amount": amount }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_repeat_is_answered_from_the_first_call() {
    let server = Arc::new(Server::default());
    let url = serve(server.clone()).await;
    let first = post(&url, "k-1", 10).await;
    assert_eq!(first.status(), 201);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first: serde_json::Value = first.json().await.unwrap();
    let again = post(&url, "k-1", 10).await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.json::<serde_json::Value>().await.unwrap(), first);
    assert_eq!(
        server.calls.load(Ordering::SeqCst),
        1,
        "the repeat did not run"
    );

    let other = post(&url, "k-2", 10).await;
    assert_eq!(other.status(), 201, "another key is another request");
    assert_eq!(server.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_key_sent_with_another_body_or_while_running_is_refused() {
    let server = Arc::new(Server::default());
    let url = serve(server.clone()).await;
    assert_eq!(post(&url, "k", 10).await.status(), 201);
    let mismatch = post(&url, "k", 11).await;
    assert_eq!(mismatch.status(), 400);
    let body: serde_json::Value = mismatch.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("another request"),
        "{body}"
    );

    let slow = tokio::spawn({
        let url = url.clone();
        async move { post(&url, "slow", 999).await.status() }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(post(&url, "slow", 999).await.status(), 409);
    assert_eq!(slow.await.unwrap(), 201);
    assert_eq!(
        post(&url, "slow", 999).await.headers()["idempotent-replayed"],
        "true"
    );
}

#[tokio::test]
async fn the_client_sends_a_key_of_its_own_and_keeps_it_across_retries() {
    let server = Arc::new(Server {
        fail_first: true,
        ..Server::default()
    });
    let url = serve(server.clone()).await;
    let config = api::client::Config::new(url.clone())
        .with_base_url("https://example.test", url)
        .with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    let input = CreateChargeInput {
        idempotency_key: None,
        body: ChargeRequest { amount: 5 },
    };
    let response = client.create_charge(input).await.unwrap();
    let CreateChargeResponse::Created { body, .. } = response else {
        panic!("expected 201 after the retry, got {response:?}");
    };
    assert_eq!(body.amount, 5);
    let keys = server.keys.lock().unwrap().clone();
    assert_eq!(keys.len(), 2, "the call was retried: {keys:?}");
    assert!(keys[0].is_some(), "the client sent a key");
    assert_eq!(keys[0], keys[1], "the retry carried the first key");
}
