//! Errors declared for a class of statuses (`4XX`, `5XX`) and for every other status
//! (`default`), over real sockets: a hand-written server answers each with the status it
//! holds, the router's own errors take the most specific declared response, and the
//! generated client reads every answer into the variant that covers its status.

use crate::support::serve;
use covenant_corpus::regressions::status_ranges as api;
use covenant_runtime::client::RetryPolicy;
use std::sync::Arc;
use std::time::Duration;

use api::models::{Pet, Problem};
use api::operations::*;
use api::server::{Answer, Context, StatusRangesServer};

/// Pet `n` is answered with status `n` when `n` is an error status; 13 is a handler's
/// mistake (a client error variant given a server error's status).
struct Server;

fn problem(code: u16) -> Problem {
    Problem {
        message: format!("answered {code}"),
        code: i64::from(code),
    }
}

impl StatusRangesServer for Server {
    crate::support::accepts_key!("key");

    async fn get_pet(&self, _: Context<(), Self>, input: GetPetInput) -> Answer<GetPetResponse> {
        let status = u16::try_from(input.pet_id).unwrap_or(0);
        Ok(match status {
            404 => GetPetResponse::NotFound,
            13 => GetPetResponse::ClientError {
                status: 503,
                body: problem(503),
            },
            400..=499 => GetPetResponse::ClientError {
                status,
                body: problem(status),
            },
            500..=599 => GetPetResponse::ServerError {
                status,
                body: problem(status),
                headers: GetPetServerErrorHeaders {
                    retry_after: Some(7),
                },
            },
            _ => GetPetResponse::Ok(Pet {
                id: input.pet_id,
                name: "Rex".to_string(),
            }),
        })
    }

    async fn list_pets(&self, _: Context<(), Self>, _: ListPetsInput) -> Answer<ListPetsResponse> {
        Ok(ListPetsResponse::Default {
            status: 409,
            body: problem(409),
        })
    }
}

async fn started() -> String {
    serve(api::server::router(Arc::new(Server), Default::default())).await
}

/// A client that takes a 503's `Retry-After` of 7 s as the answer rather than waiting.
fn client(url: &str, key: &str) -> api::client::Client {
    let retry = RetryPolicy {
        max_retry_after: Duration::from_secs(1),
        ..RetryPolicy::default()
    };
    let config = api::client::Config::new(url.to_string())
        .with_credential(AuthScheme::Key, key)
        .with_retry(retry);
    api::client::Client::new(config).unwrap()
}

async fn pet(client: &api::client::Client, id: i64) -> GetPetResponse {
    client.get_pet(GetPetInput { pet_id: id }).await.unwrap()
}

#[tokio::test]
async fn each_answer_is_read_into_the_most_specific_declared_variant() {
    let url = started().await;
    let client = client(&url, "key");
    assert!(matches!(pet(&client, 1).await, GetPetResponse::Ok(p) if p.name == "Rex"));
    assert_eq!(pet(&client, 404).await, GetPetResponse::NotFound);
    assert_eq!(
        pet(&client, 409).await,
        GetPetResponse::ClientError {
            status: 409,
            body: problem(409)
        }
    );
    assert_eq!(
        pet(&client, 503).await,
        GetPetResponse::ServerError {
            status: 503,
            body: problem(503),
            headers: GetPetServerErrorHeaders {
                retry_after: Some(7)
            },
        }
    );
    let listed = client.list_pets(ListPetsInput {}).await.unwrap();
    assert_eq!(
        listed,
        ListPetsResponse::Default {
            status: 409,
            body: problem(409)
        }
    );
}

#[tokio::test]
async fn the_wire_carries_the_status_the_handler_gave() {
    let url = started().await;
    let http = reqwest::Client::new();
    let answer = http
        .get(format!("{url}/pets/503"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
    assert_eq!(answer.headers()["retry-after"], "7");
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(
        body,
        serde_json::json!({"message": "answered 503", "code": 503})
    );
}

#[tokio::test]
async fn a_status_outside_its_class_is_the_handlers_fault_and_answers_500() {
    let url = started().await;
    let answer = reqwest::Client::new()
        .get(format!("{url}/pets/13"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 500);
}

#[tokio::test]
async fn the_routers_own_errors_are_read_as_the_class_or_default_that_covers_them() {
    let url = started().await;
    let stranger = client(&url, "wrong");
    let GetPetResponse::ClientError { status, body } = pet(&stranger, 1).await else {
        panic!("a wrong key is a client error of get_pet");
    };
    assert_eq!((status, body.code), (401, 401));
    let ListPetsResponse::Default { status, body } =
        stranger.list_pets(ListPetsInput {}).await.unwrap()
    else {
        panic!("a wrong key is list_pets' default error");
    };
    assert_eq!((status, body.code), (401, 401));
    assert!(body.message.contains("credentials"), "{}", body.message);
}

#[tokio::test]
async fn the_mock_answers_the_routers_errors_in_the_declared_shape() {
    let mock = api::mock::MockServer::new().with_key("key", AuthScheme::Key);
    let url = serve(api::server::router(Arc::new(mock), Default::default())).await;
    let answer = reqwest::Client::new()
        .get(format!("{url}/pets/not-a-number"))
        .bearer_auth("key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 422);
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body["code"], 422, "{body}");
    let ok = pet(&client(&url, "key"), 1).await;
    assert!(matches!(ok, GetPetResponse::Ok(_)), "{ok:?}");
}
