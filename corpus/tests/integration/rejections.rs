//! The router's own errors are written in the error model each spec declares
//! (`rejections`), so the generated client decodes them as the declared responses.

use crate::support;

use covenant_corpus::{github, payments};
use std::sync::Arc;

use support::serve;

fn payments_client(url: &str, key: &str) -> payments::client::Client {
    let config = payments::client::Config::new(url.to_string())
        .with_base_url("https://api.stripe.com", url.to_string())
        .with_credential(payments::operations::AuthScheme::SecretKey, key.to_string());
    payments::client::Client::new(config).unwrap()
}

#[tokio::test]
async fn stripe_shaped_rejections_decode_as_the_declared_error_response() {
    use payments::operations::{
        CreatePaymentIntentResponse as Created, ListCustomersResponse as Listed,
    };
    let mock = payments::mock::MockServer::new()
        // A secret key is the Basic user name with no password.
        .with_key("sk_test:", payments::operations::AuthScheme::SecretKey);
    let url = serve(payments::server::router(Arc::new(mock), Default::default())).await;

    let refused = payments_client(&url, "sk_wrong")
        .list_customers(serde_json::from_value(serde_json::json!({})).unwrap())
        .await
        .unwrap();
    let Listed::Unauthorized(body) = refused else {
        panic!("a wrong key is the declared 401: {refused:?}");
    };
    assert_eq!(
        body.error.r#type,
        payments::models::ErrorType::InvalidRequestError
    );
    assert!(
        body.error
            .message
            .as_deref()
            .unwrap_or_default()
            .contains("Invalid credentials"),
        "{body:?}"
    );
    assert_eq!(body.error.param, None, "no input is named");

    let input = serde_json::json!({"body": {"amount": 1, "currency": "usd"}});
    let checked = payments_client(&url, "sk_test")
        .create_payment_intent(serde_json::from_value(input.clone()).unwrap())
        .await;
    let Err(covenant_runtime::client::ClientError::Invalid { issues, .. }) = checked else {
        panic!("the client checks inputs before sending: {checked:?}");
    };
    assert_eq!(issues[0].json_path(), "$.body.amount");
    let config = payments::client::Config::new(url.clone())
        .with_base_url("https://api.stripe.com", url.clone())
        .with_credential(payments::operations::AuthScheme::SecretKey, "sk_test")
        .with_input_checks(false);
    let rejected = payments::client::Client::new(config)
        .unwrap()
        .create_payment_intent(serde_json::from_value(input).unwrap())
        .await
        .unwrap();
    let Created::UnprocessableEntity(body) = rejected else {
        panic!("a too small amount is the declared 422: {rejected:?}");
    };
    assert_eq!(body.error.param.as_deref(), Some("amount"));
    assert!(
        body.error
            .message
            .as_deref()
            .unwrap_or_default()
            .starts_with("Invalid request: amount:"),
        "{body:?}"
    );

    let http = reqwest::Client::new();
    let missing = http.get(format!("{url}/v1/nowhere")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let body: payments::models::ErrorResponse = missing.json().await.unwrap();
    assert!(body.error.message.unwrap_or_default().contains("No route"));

    // The connect API on the same router answers in its own model: a token request is a
    // form (RFC 6749), and one with a grant type the endpoint does not take is refused.
    let refused = http
        .post(format!("{url}/oauth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=password")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 422);
    let body: payments::models::OAuthError = refused.json().await.unwrap();
    assert_eq!(body.error, "invalid_request");
    assert!(
        body.error_description
            .unwrap_or_default()
            .contains("grant_type"),
        "the message names the input"
    );
}

#[tokio::test]
async fn github_shaped_rejections_fit_both_declared_models() {
    let mock = github::mock::MockServer::new();
    let url = serve(github::server::router(Arc::new(mock), Default::default())).await;
    let http = reqwest::Client::new();
    let refused = http
        .get(format!("{url}/repos/o/r/issues/not-a-number"))
        .bearer_auth("nope")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let body: github::models::BasicError = refused.json().await.unwrap();
    assert_eq!(
        body.documentation_url.as_deref(),
        Some("https://docs.github.com/rest")
    );
    assert!(
        body.message
            .unwrap_or_default()
            .contains("Invalid credentials")
    );
}

mod endpoint_rejections {
    //! An endpoint refused in an error model of its own, beside one refused in the api's
    //! shape: by the generated router and by `covenant mock`, and read by the client.

    use crate::support::{self, serve};
    use covenant_corpus::regressions::endpoint_rejections as api;
    use serde_json::{Value, json};
    use std::sync::Arc;

    use api::models::{Message, PostErrorCode, Posted};
    use api::operations::*;
    use api::server::{Answer, Context, EndpointRejectionsServer};

    struct Server;

    impl EndpointRejectionsServer for Server {
        crate::support::accepts_key!("key");

        async fn post_message(
            &self,
            _: Context<(), Self>,
            _: PostMessageInput,
        ) -> Answer<PostMessageResponse> {
            Ok(PostMessageResponse::Ok(Posted {
                ok: true,
                ts: "1.0".into(),
            }))
        }

        async fn archive(&self, _: Context<(), Self>, _: ArchiveInput) -> Answer<ArchiveResponse> {
            Ok(ArchiveResponse::Ok(Posted {
                ok: true,
                ts: "1.0".into(),
            }))
        }

        async fn update_message(
            &self,
            _: Context<(), Self>,
            _: UpdateMessageInput,
        ) -> Answer<UpdateMessageResponse> {
            Ok(UpdateMessageResponse::Ok(Posted {
                ok: true,
                ts: "1.0".into(),
            }))
        }
    }

    /// Posts an empty text to `path` with `key`: the status and the JSON answer.
    async fn post_empty(url: &str, path: &str, key: &str) -> (u16, Value) {
        let answer = reqwest::Client::new()
            .post(format!("{url}{path}"))
            .bearer_auth(key)
            .json(&json!({"text": ""}))
            .send()
            .await
            .unwrap();
        (answer.status().as_u16(), answer.json().await.unwrap())
    }

    async fn refused_each_in_its_shape(url: &str) {
        let (status, own) = post_empty(url, "/chat.postMessage", "key").await;
        assert_eq!(status, 422);
        assert_eq!(own["ok"], false, "{own}");
        assert_eq!(own["error"], "invalid_arguments", "{own}");
        let warning = own["warning"].as_str().unwrap_or_default();
        assert!(
            warning.contains("text"),
            "the message names the input: {own}"
        );
        let (status, own) = post_empty(url, "/chat.postMessage", "wrong").await;
        assert_eq!(status, 401);
        assert_eq!(own["error"], "invalid_arguments", "{own}");

        let (status, open) = post_empty(url, "/chat.archive", "key").await;
        assert_eq!(status, 422);
        assert_eq!(open["ok"], false, "{open}");
        let detail = open["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains("text"),
            "the message under `detail`: {open}"
        );

        let (status, api_shaped) = post_empty(url, "/chat.update", "key").await;
        assert_eq!(status, 422);
        assert_eq!(support::problems(&api_shaped).len(), 1, "{api_shaped}");
        let missing = reqwest::get(format!("{url}/nowhere")).await.unwrap();
        assert_eq!(missing.status(), 404);
        let body: Value = missing.json().await.unwrap();
        assert!(
            body["detail"].is_string(),
            "unknown routes in the api's: {body}"
        );
    }

    #[tokio::test]
    async fn the_generated_router_refuses_an_endpoint_in_its_own_model() {
        let url = serve(api::server::router(Arc::new(Server), Default::default())).await;
        refused_each_in_its_shape(&url).await;

        // The client reads the refusal as the endpoint's declared error.
        let config = api::client::Config::new(url.clone())
            .with_credential(api::operations::AuthScheme::Key, "key")
            .with_input_checks(false);
        let client = api::client::Client::new(config).unwrap();
        let input = PostMessageInput {
            body: Message {
                text: String::new(),
            },
        };
        let answer = client.post_message(input).await.unwrap();
        let PostMessageResponse::Default { status: 422, body } = answer else {
            panic!("the refusal is the declared default error: {answer:?}");
        };
        assert_eq!(body.error, PostErrorCode::InvalidArguments);
    }

    #[tokio::test]
    async fn the_mock_refuses_an_endpoint_in_its_own_model() {
        let spec = support::regression_spec("endpoint_rejections");
        let url = serve(support::spec_mock(&spec, |_, _| Some("key".into()))).await;
        refused_each_in_its_shape(&url).await;
    }
}
