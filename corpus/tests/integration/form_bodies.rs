//! Form bodies (`body form { … }`) over real sockets: the generated client writes the fields
//! as `application/x-www-form-urlencoded`, the router reads each from its text as its type
//! asks, and a field that does not fit is named in the 422 as a JSON body's would be.

use crate::support;

use covenant_corpus::payments as api;
use std::sync::Arc;

async fn serve() -> String {
    let router = api::server::router(Arc::new(api::mock::MockServer::new()), Default::default());
    support::serve(router).await
}

async fn post_form(url: &str, form: &str) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(format!("{url}/oauth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn form_fields_read_as_their_types_and_each_problem_is_named() {
    let url = serve().await;
    let (status, _) = post_form(&url, "grant_type=refresh_token&refresh_token=rt_1").await;
    assert_eq!(status, 200);
    let (status, body) = post_form(&url, "grant_type=password&request_id=not-a-uuid").await;
    assert_eq!(status, 422, "{body}");
    // In the API's own rejection shape (OAuth errors), every field named.
    let description = body["error_description"].as_str().unwrap();
    assert!(
        description.contains("grant_type: Input should be 'authorization_code' or 'refresh_token'")
            && description.contains("request_id: Input should be a valid UUID"),
        "{description}"
    );
}

#[tokio::test]
async fn a_field_of_one_value_sent_twice_is_refused_not_picked_from() {
    let url = serve().await;
    let form = "grant_type=refresh_token&refresh_token=rt_1&refresh_token=rt_2";
    let (status, body) = post_form(&url, form).await;
    assert_eq!(status, 422, "{body}");
    let description = body["error_description"].as_str().unwrap();
    assert!(
        description
            .contains("refresh_token: Input should be one value; the field was sent 2 times"),
        "{description}"
    );
}

#[tokio::test]
async fn the_client_sends_a_form() {
    let url = serve().await;
    let config =
        api::client::Config::new(url.clone()).with_base_url("https://connect.stripe.com", url);
    let client = api::client::Client::new(config).unwrap();
    let input: api::operations::OauthTokenInput = serde_json::from_value(serde_json::json!({
        "body": {"grant_type": "authorization_code", "code": "ac_1"}
    }))
    .unwrap();
    let response = client.oauth_token(input).await.unwrap();
    assert_eq!(response.status(), 200);
}
