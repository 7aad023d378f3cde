//! Inputs are bounded by the spec (strings, lists), a 422 lists a bounded number of problems,
//! and integers written as integral numbers read as JSON Schema reads them.

use crate::harness::{Harness, send};
use crate::on_both_backends;
use crate::patients::insurance;
use crate::users::create;
use health_api::operations::*;
use serde_json::{Value, json};

on_both_backends!(
    a_string_over_its_bound_is_refused_and_nothing_is_stored,
    a_list_over_its_bound_is_refused,
    a_422_lists_its_first_problems_and_counts_the_rest,
    an_integral_number_is_an_integer_and_a_fraction_is_not,
    a_payor_is_found_by_its_code_or_its_name,
);

async fn a_string_over_its_bound_is_refused_and_nothing_is_stored(h: Harness) {
    let long = "x".repeat(4097);
    let (status, body) = send(&h, "POST", "/v2/user", &json!({ "client_user_id": long })).await;
    assert_eq!(status, 422, "{body}");
    let problem = &body["detail"][0];
    assert_eq!(problem["loc"], json!(["body", "client_user_id"]));
    assert!(problem["msg"].as_str().unwrap().contains("4096"), "{body}");
    let resolved = format!("/v2/user/resolve/{long}");
    assert_ne!(send(&h, "GET", &resolved, &Value::Null).await.0, 200);
    // At the bound, accepted.
    let (status, _) = send(
        &h,
        "POST",
        "/v2/user",
        &json!({ "client_user_id": "y".repeat(4096) }),
    )
    .await;
    assert_eq!(status, 200);
}

async fn a_list_over_its_bound_is_refused(h: Harness) {
    let team_id = h.keys.team_id.clone();
    let path = format!("/v1/org/{}/management_key", h.keys.org_id);
    let body = json!({ "scope": "team", "team_ids": vec![team_id; 1001] });
    let response = h
        .http()
        .post(format!("{}{path}", h.base_url))
        .header("x-management-key", &h.keys.management_key)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 422);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["detail"][0]["loc"],
        json!(["body", "team_ids"]),
        "{body}"
    );
    assert!(body["detail"][0]["msg"].as_str().unwrap().contains("1000"));
}

async fn a_422_lists_its_first_problems_and_counts_the_rest(h: Harness) {
    let connections: Vec<Value> = (0..300).map(|i| json!({ "user_id": i })).collect();
    let body = json!({ "provider": "fitbit", "connections": connections });
    let (status, body) = send(&h, "POST", "/v2/link/bulk_import", &body).await;
    assert_eq!(status, 422);
    let detail = body["detail"].as_array().unwrap();
    assert_eq!(detail.len(), 51, "50 problems and a count");
    let last = &detail[50];
    assert_eq!(last["type"], "too_many_errors");
    let more = last["msg"].as_str().unwrap();
    // Each connection: a user_id of the wrong type and four fields missing.
    assert!(
        more.starts_with(&format!("{} more", 300 * 5 - 50)),
        "{more}"
    );
}

async fn an_integral_number_is_an_integer_and_a_fraction_is_not(h: Harness) {
    let user_id = create(&h, "integral").await;
    let connection = |expires_at: Value| {
        json!({
            "provider": "fitbit",
            "wait_for_completion": true,
            "connections": [{
                "user_id": user_id.0.to_string(), "access_token": "a", "refresh_token": "r",
                "provider_id": "p", "expires_at": expires_at
            }]
        })
    };
    let (status, body) = send(
        &h,
        "POST",
        "/v2/link/bulk_import",
        &connection(json!(1290.0)),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["user_ids_imported"], json!([user_id.0.to_string()]));
    let (status, body) = send(
        &h,
        "POST",
        "/v2/link/bulk_import",
        &connection(json!(1290.5)),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["type"], "int_type");
    assert_eq!(
        body["detail"][0]["loc"],
        json!(["body", "connections", 0, "expires_at"])
    );
}

async fn a_payor_is_found_by_its_code_or_its_name(h: Harness) {
    let user_id = create(&h, "insured").await;
    let team = h.team();
    let add = |payor: &str| {
        team.add_insurance(AddInsuranceInput {
            user_id: user_id.0.to_string(),
            body: insurance(payor, true, "M-1"),
        })
    };
    for payor in ["62308", "cigna", " CIGNA "] {
        let AddInsuranceResponse::Ok(record) = add(payor).await.unwrap() else {
            panic!("{payor:?} names a payor");
        };
        // Read back as it was written; the company is the catalogue's payor.
        assert_eq!(record.payor_code, payor);
        assert_eq!(record.company.name, "Cigna");
        let latest = team
            .get_latest_insurance(GetLatestInsuranceInput {
                user_id,
                is_primary: true,
            })
            .await
            .unwrap();
        let GetLatestInsuranceResponse::Ok(latest) = latest else {
            panic!("latest: {latest:?}");
        };
        assert_eq!(latest.payor_code, payor);
    }
    let AddInsuranceResponse::UnprocessableEntity(refused) = add("ACME-HEALTH").await.unwrap()
    else {
        panic!("an unknown payor is a 422");
    };
    assert!(refused.detail[0].msg.contains("60054 (Aetna)"));
}
