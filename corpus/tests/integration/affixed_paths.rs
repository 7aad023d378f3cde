//! Placeholders with text beside them (`{Sid}.json`, `{name}:cancel`) and one position named
//! apart by two routes, over real sockets: the router takes the text off the segment, a
//! path without it is no route (404), and the generated client writes it back.

use crate::support::serve;
use covenant_corpus::regressions::affixed_paths as api;
use std::sync::Arc;

use api::models::{Account, Call, Operation};
use api::operations::*;
use api::server::{AffixedPathsServer, Answer, Context};

/// Answers what each placeholder held, so a test sees what the router read.
struct Server;

impl AffixedPathsServer for Server {
    crate::support::accepts_key!("key");

    async fn fetch_account(
        &self,
        _: Context<(), Self>,
        input: FetchAccountInput,
    ) -> Answer<FetchAccountResponse> {
        Ok(FetchAccountResponse::Ok(Account { sid: input.sid }))
    }

    async fn fetch_call(
        &self,
        _: Context<(), Self>,
        input: FetchCallInput,
    ) -> Answer<FetchCallResponse> {
        Ok(FetchCallResponse::Ok(Call {
            account: input.account_sid,
            sid: input.sid,
        }))
    }

    async fn list_calls(
        &self,
        _: Context<(), Self>,
        input: ListCallsInput,
    ) -> Answer<ListCallsResponse> {
        Ok(ListCallsResponse::Ok(vec![Call {
            account: input.account_sid,
            sid: "CA1".to_string(),
        }]))
    }

    async fn cancel_operation(
        &self,
        _: Context<(), Self>,
        input: CancelOperationInput,
    ) -> Answer<CancelOperationResponse> {
        Ok(CancelOperationResponse::Ok(Operation {
            name: input.name,
            cancelled: true,
        }))
    }
}

async fn started() -> String {
    serve(api::server::router(Arc::new(Server), Default::default())).await
}

async fn get(url: &str, path: &str) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .get(format!("{url}{path}"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

#[tokio::test]
async fn the_router_takes_the_text_beside_a_placeholder_off_its_segment() {
    let url = started().await;
    let (status, body) = get(&url, "/Accounts/AC1/Calls/CA2.json").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, serde_json::json!({"account": "AC1", "sid": "CA2"}));
    let (status, body) = get(&url, "/Accounts/AC1.json").await;
    assert_eq!((status, &body["sid"]), (200, &serde_json::json!("AC1")));
    let (status, body) = get(&url, "/Accounts/AC1/Calls.json").await;
    assert_eq!(
        (status, &body[0]["account"]),
        (200, &serde_json::json!("AC1"))
    );
}

#[tokio::test]
async fn a_segment_without_the_text_is_no_route() {
    let url = started().await;
    for path in [
        "/Accounts/AC1/Calls/CA2",
        "/Accounts/AC1",
        "/Accounts/AC1/Calls/.json",
    ] {
        let (status, body) = get(&url, path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
}

#[tokio::test]
async fn the_value_alone_is_checked_against_the_parameters_constraints() {
    let url = started().await;
    let (status, body) = get(&url, "/Accounts/XX1/Calls/CA2.json").await;
    assert_eq!(status, 422, "{body}");
    assert!(body.to_string().contains("AccountSid"), "{body}");
}

#[tokio::test]
async fn the_client_writes_the_text_around_the_encoded_value() {
    let url = started().await;
    let config = api::client::Config::new(url.clone()).with_credential(AuthScheme::Key, "key");
    let client = api::client::Client::new(config).unwrap();
    let call = client
        .fetch_call(FetchCallInput {
            account_sid: "AC1".to_string(),
            sid: "CA 2/x".to_string(),
        })
        .await
        .unwrap();
    let FetchCallResponse::Ok(call) = call;
    assert_eq!(call.sid, "CA 2/x", "one segment, decoded by the router");
    let cancelled = client
        .cancel_operation(CancelOperationInput {
            name: "op-7".to_string(),
        })
        .await
        .unwrap();
    let CancelOperationResponse::Ok(operation) = cancelled;
    assert_eq!(operation.name, "op-7");

    let mock = api::mock::MockServer::new().with_key("key", AuthScheme::Key);
    let mocked = serve(api::server::router(Arc::new(mock), Default::default())).await;
    let (status, _) = get(&mocked, "/operations/op-7:cancel").await;
    assert_eq!(status, 405, "a GET on the POST route");
    let (status, _) = get(&mocked, "/Accounts/AC1/Calls/CA2.json").await;
    assert_eq!(status, 200);
}
