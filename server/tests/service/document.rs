//! Statements of the interface document checked by raw requests, as any client sends them:
//! each test names the statement it holds the server to.

use crate::harness::{Harness, send};
use crate::on_both_backends;
use crate::users::create;
use serde_json::{Value, json};

on_both_backends!(
    a_phone_number_needs_its_leading_plus_sign,
    a_null_client_user_id_leaves_it_and_an_empty_one_is_refused,
    ingestion_bounds_are_kept_as_written,
    link_tokens_are_for_providers_of_the_catalogue,
    a_pull_where_every_user_failed_says_failure,
    bulk_operations_start_disabled_for_the_first_team_too,
    a_body_is_read_only_as_json,
);

/// "Requests with a body send `Content-Type: application/json`": a body labelled otherwise,
/// or not at all, is 415 and nothing is stored; a `+json` type or a charset is JSON still, and
/// a body-less POST needs no label.
async fn a_body_is_read_only_as_json(h: Harness) {
    let post = |content_type: Option<&'static str>, body: &'static str| {
        let mut request = h
            .http()
            .post(format!("{}/v2/user", h.base_url))
            .header("x-service-api-key", &h.keys.team_api_key)
            .body(body);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let (status, body) = post(content_type, r#"{"client_user_id": "labelled"}"#).await;
        assert_eq!(status, 415, "{content_type:?}: {body}");
        assert!(
            body["detail"]
                .as_str()
                .unwrap()
                .contains("application/json")
        );
    }
    let (status, _) = send(&h, "GET", "/v2/user/resolve/labelled", &Value::Null).await;
    assert_eq!(status, 404, "nothing was stored");
    for (content_type, id) in [
        ("application/json; charset=utf-8", "charset"),
        ("APPLICATION/JSON", "upper"),
        ("application/vnd.api+json", "suffix"),
    ] {
        let body: &'static str = match id {
            "charset" => r#"{"client_user_id": "charset"}"#,
            "upper" => r#"{"client_user_id": "upper"}"#,
            _ => r#"{"client_user_id": "suffix"}"#,
        };
        assert_eq!(
            post(Some(content_type), body).await.0,
            200,
            "{content_type}"
        );
    }
    let user_id = create(&h, "refreshed").await;
    let refresh = h
        .http()
        .post(format!("{}/v2/user/refresh/{user_id}", h.base_url))
        .header("x-service-api-key", &h.keys.team_api_key)
        .header("content-length", "0")
        .send()
        .await
        .unwrap();
    assert_eq!(refresh.status(), 200);
}

/// "Bulk import and bulk historical pull are disabled until enabled for the team", the team
/// the first start makes included.
async fn bulk_operations_start_disabled_for_the_first_team_too(h: Harness) {
    assert_eq!(h.initial_features, Vec::<String>::new());
}

fn patient_info(phone_number: &str) -> Value {
    json!({
        "first_name": "Ada",
        "last_name": "Lovelace",
        "email": "ada@example.com",
        "phone_number": phone_number,
        "gender": "female",
        "dob": "1985-12-10",
        "address": { "first_line": "1 Market St", "zip_code": "94103", "state": "CA", "city": "San Francisco" }
    })
}

/// "phone_number: International format with a leading plus sign."
async fn a_phone_number_needs_its_leading_plus_sign(h: Harness) {
    let user_id = create(&h, "phoned").await;
    let path = format!("/v2/user/{user_id}/info");
    for refused in [
        "2125550100",
        "0012125550100",
        "+",
        "+0 212 555 0100",
        "+1 212 555 0100 x",
    ] {
        let (status, body) = send(&h, "PATCH", &path, &patient_info(refused)).await;
        assert_eq!(status, 422, "{refused:?}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["body", "phone_number"]));
    }
    let latest = format!("/v2/user/{user_id}/info/latest");
    assert_eq!(send(&h, "GET", &latest, &Value::Null).await.0, 404);
    for accepted in ["+12125550100", "+1 (212) 555-0100", "+44 20 7946 0958"] {
        let (status, body) = send(&h, "PATCH", &path, &patient_info(accepted)).await;
        assert_eq!(status, 200, "{accepted:?}: {body}");
        assert_eq!(body["phone_number"], accepted);
    }
}

/// "client_user_id (string or null)" on PATCH /v2/user/{user_id}: null is accepted and, since
/// every user has one, leaves it as it was; an empty one could never be resolved.
async fn a_null_client_user_id_leaves_it_and_an_empty_one_is_refused(h: Harness) {
    let user_id = create(&h, "kept-id").await;
    let path = format!("/v2/user/{user_id}");
    let (status, body) = send(&h, "PATCH", &path, &json!({ "client_user_id": null })).await;
    assert_eq!(status, 200, "{body}");
    let (status, user) = send(&h, "GET", "/v2/user/resolve/kept-id", &Value::Null).await;
    assert_eq!(status, 200);
    assert_eq!(user["user_id"], user_id.0.to_string());
    let (status, body) = send(&h, "PATCH", &path, &json!({ "client_user_id": "" })).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body", "client_user_id"]));
    let (status, body) = send(&h, "POST", "/v2/user", &json!({ "client_user_id": "" })).await;
    assert_eq!(status, 422, "{body}");
}

/// The document states no order between `ingestion_start` and `ingestion_end`: both are kept
/// as written, on create and on update.
async fn ingestion_bounds_are_kept_as_written(h: Harness) {
    let bounds = json!({ "ingestion_start": "2025-03-01", "ingestion_end": "2025-01-01" });
    let mut create = bounds.clone();
    create["client_user_id"] = json!("inverted");
    let (status, created) = send(&h, "POST", "/v2/user", &create).await;
    assert_eq!(status, 200, "{created}");
    let path = format!("/v2/user/{}", created["user_id"].as_str().unwrap());
    let (status, user) = send(&h, "GET", &path, &Value::Null).await;
    assert_eq!(status, 200);
    assert_eq!(user["ingestion_start"], "2025-03-01");
    assert_eq!(user["ingestion_end"], "2025-01-01");
    let (status, body) = send(
        &h,
        "PATCH",
        &path,
        &json!({ "ingestion_end": "2024-12-01" }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        send(&h, "GET", &path, &Value::Null).await.1["ingestion_end"],
        "2024-12-01"
    );
}

/// "provider (enum or null, 39 values)": a token for a provider the catalogue lacks would open
/// a widget with nothing to link, and a hostile one would reach its pages and headers.
async fn link_tokens_are_for_providers_of_the_catalogue(h: Harness) {
    let user_id = create(&h, "linker").await;
    for provider in [
        "not_a_provider_xyz",
        "oura\r\nSet-Cookie: x=1",
        "../../v2/providers",
    ] {
        let body = json!({ "user_id": user_id, "provider": provider });
        let (status, answer) = send(&h, "POST", "/v2/link/token", &body).await;
        assert_eq!(status, 422, "{provider:?}: {answer}");
        assert_eq!(answer["detail"][0]["loc"], json!(["body", "provider"]));
        assert!(
            answer["detail"][0]["msg"]
                .as_str()
                .unwrap()
                .contains("oura")
        );
    }
    let body = json!({ "user_id": user_id, "filter_on_providers": ["oura", "nope"] });
    let (status, answer) = send(&h, "POST", "/v2/link/token", &body).await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(
        answer["detail"][0]["loc"],
        json!(["body", "filter_on_providers", 1])
    );
    let body = json!({ "user_id": user_id, "provider": "coros" });
    assert_eq!(send(&h, "POST", "/v2/link/token", &body).await.0, 200);
}

/// A bulk historical pull's answer says what List Bulk Ops records: `failure` when every user
/// failed, never `success`.
async fn a_pull_where_every_user_failed_says_failure(h: Harness) {
    let unconnected = create(&h, "never-linked").await;
    let body =
        json!({ "user_ids": [unconnected], "provider": "oura", "wait_for_completion": true });
    let path = "/v2/link/bulk_trigger_historical_pull";
    let (status, answer) = send(&h, "POST", path, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "failure");
    assert_eq!(answer["user_ids_triggered"], json!([]));
    assert_eq!(answer["user_ids_failed"], json!([unconnected]));
    let (_, ops) = send(&h, "GET", "/v2/link/bulk_op", &Value::Null).await;
    assert_eq!(ops["data"][0]["status"], "failure");
    let queued = json!({ "user_ids": [unconnected], "provider": "oura" });
    let (status, answer) = send(&h, "POST", path, &queued).await;
    assert_eq!(status, 202, "{answer}");
    assert_eq!(answer["status"], "in_progress");
}
