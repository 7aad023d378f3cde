//! The generated client against the generated router, backed by the generated mock: every
//! endpoint round-trips, every rejection is JSON in the service's shapes, and requests carry
//! ids.

use crate::support;

use covenant_codegen::samples::Samples;
use covenant_runtime::{client, server};
use health_api::client::Client;
use health_api::mock::MockServer;
use health_api::operations::{AuthScheme, Gate};
use serde_json::json;

fn client(base: &str) -> Client {
    let config = AuthScheme::ALL
        .iter()
        .fold(client::Config::new(base), |c, s| {
            c.with_credential(*s, support::key_of(*s))
        });
    Client::new(config).unwrap()
}

#[tokio::test]
async fn every_endpoint_round_trips_through_client_and_router() {
    let spec = support::spec();
    let samples = Samples::new(&spec);
    let base = support::serve_mock(server::Config::default()).await;
    let client = client(&base);
    for ep in &spec.endpoints {
        let input = samples.endpoint_input(ep);
        let (status, body) = client
            .call_by_name(&ep.name, input.clone())
            .await
            .unwrap_or_else(|e| panic!("{}: {e}\ninput: {input}", ep.name));
        let (expected_status, expected_body) = MockServer::example(&ep.name).unwrap();
        assert_eq!(status, expected_status, "{}", ep.name);
        // Each `@secret` string is minted afresh: the example, `_`, 32 hex digits.
        let mut body = body;
        for pointer in samples.answer(ep).map(|a| a.secrets).unwrap_or_default() {
            let example = expected_body
                .pointer(&pointer)
                .and_then(|v| v.as_str())
                .unwrap();
            let minted = body.pointer_mut(&pointer).unwrap();
            let text = minted.as_str().unwrap();
            let suffix = text.strip_prefix(example).and_then(|t| t.strip_prefix('_'));
            assert!(
                suffix.is_some_and(|h| h.len() == 32 && h.chars().all(|c| c.is_ascii_hexdigit())),
                "{}: {pointer} holds {text}",
                ep.name
            );
            *minted = serde_json::Value::String(example.to_string());
        }
        assert_eq!(body, expected_body, "{}", ep.name);
    }
}

#[tokio::test]
async fn typed_calls_return_typed_responses() {
    use health_api::operations::*;
    let base = support::serve_mock(server::Config::default()).await;
    let client = client(&base);
    let response = client
        .resolve_user(ResolveUserInput {
            client_user_id: "patient-17".into(),
        })
        .await
        .unwrap();
    let ResolveUserResponse::Ok(user) = response else {
        panic!("expected 200, got {response:?}")
    };
    assert_eq!(user.client_user_id, "text");
    let bulk: BulkImportInput =
        serde_json::from_value(json!({"body": {"provider": "oura", "connections": []}})).unwrap();
    assert!(matches!(
        client.bulk_import(bulk).await.unwrap(),
        BulkImportResponse::Ok(_)
    ));
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json() {
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let (status, body, _) = support::send(http.get(format!("{base}/v2/nowhere"))).await;
    assert_eq!(status, 404);
    assert_eq!(body["detail"], "No route for GET /v2/nowhere");
    let (status, body, _) = support::send(http.put(format!("{base}/v2/providers"))).await;
    assert_eq!(status, 405);
    assert_eq!(body["detail"], "Method PUT is not allowed on /v2/providers");
}

#[tokio::test]
async fn malformed_json_is_a_422_naming_the_position() {
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let request = http
        .post(format!("{base}/v2/user"))
        .header("x-service-api-key", "team_api_key-key")
        .header("content-type", "application/json")
        .body("{\"client_user_id\": \"a\",\n  oops}");
    let (status, body, _) = support::send(request).await;
    assert_eq!(status, 422);
    let issue = &body["detail"][0];
    assert_eq!(issue["type"], "json_invalid");
    assert_eq!(
        issue["loc"],
        json!(["body", 26]),
        "the 0-based offset of line 2, column 3"
    );
    assert!(
        issue["msg"].as_str().unwrap().contains("line 2 column 3"),
        "{issue}"
    );
    assert_eq!(
        body["detail"].as_array().unwrap().len(),
        1,
        "a broken body is not also missing: {body}"
    );
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_with_413() {
    let base = support::serve_mock(server::Config {
        body_limit: 64,
        ..Default::default()
    })
    .await;
    let http = reqwest::Client::new();
    let big = json!({"client_user_id": "x".repeat(100)});
    let request = http
        .post(format!("{base}/v2/user"))
        .header("x-service-api-key", "team_api_key-key")
        .json(&big);
    let (status, body, _) = support::send(request).await;
    assert_eq!(status, 413);
    assert_eq!(body["detail"], "Request body is larger than 64 bytes");
}

/// A chunked body declares no length: the limit is found while reading, and is still 413.
#[tokio::test]
async fn chunked_bodies_over_the_limit_are_refused_with_413() {
    use std::io::{Read, Write};
    let base = support::serve_mock(server::Config {
        body_limit: 64,
        ..Default::default()
    })
    .await;
    let host = base.trim_start_matches("http://").to_string();
    let chunk = format!(r#"{{"client_user_id": "{}"}}"#, "x".repeat(100));
    let request = format!(
        "POST /v2/user HTTP/1.1\r\nHost: {host}\r\nx-service-api-key: team_api_key-key\r\n\
         content-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n\
         {:x}\r\n{chunk}\r\n0\r\n\r\n",
        chunk.len()
    );
    let response = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(&host).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    })
    .await
    .unwrap();
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(response.contains("larger than 64 bytes"), "{response}");
}

#[tokio::test]
async fn empty_bodies_and_tolerant_headers() {
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    // A body-less POST with Content-Length: 0 and Accept: */* (deployed clients send both).
    let request = http
        .post(format!(
            "{base}/v2/user/refresh/0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a?timeout=7.5"
        ))
        .header("x-service-api-key", "team_api_key-key")
        .header("accept", "*/*")
        .header("content-length", "0");
    let (status, _, _) = support::send(request).await;
    assert_eq!(status, 200);
    // An endpoint with a body gets 422 `missing` for an empty one.
    let request = http
        .post(format!("{base}/v2/user"))
        .header("x-service-api-key", "team_api_key-key");
    let (status, body, _) = support::send(request).await;
    assert_eq!(
        (
            status,
            body["detail"][0]["loc"].clone(),
            body["detail"][0]["type"].clone()
        ),
        (422, json!(["body"]), json!("missing"))
    );
}

#[tokio::test]
async fn requests_carry_ids() {
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let (_, _, headers) = support::send(
        http.get(format!("{base}/v2/nowhere"))
            .header("x-request-id", "trace-42"),
    )
    .await;
    assert_eq!(headers["x-request-id"], "trace-42");
    let (_, _, first) = support::send(http.get(format!("{base}/v2/nowhere"))).await;
    let (_, _, second) = support::send(http.get(format!("{base}/v2/nowhere"))).await;
    assert_ne!(first["x-request-id"], second["x-request-id"]);
    let (_, _, bad) = support::send(
        http.get(format!("{base}/v2/nowhere"))
            .header("x-request-id", "x".repeat(200)),
    )
    .await;
    assert_ne!(
        bad["x-request-id"],
        "x".repeat(200),
        "overlong ids are replaced"
    );
}

#[tokio::test]
async fn closed_gates_answer_403_json() {
    let mock = support::mock().with_closed_gate(Gate::BulkImport);
    let base = support::serve_with(mock, server::Config::default()).await;
    let http = reqwest::Client::new();
    let endpoint = support::descriptor("bulk_import");
    let input = json!({"body": {"provider": "oura", "connections": []}});
    let (status, body, _) = support::send(support::raw_request(
        &http,
        &base,
        endpoint,
        &input,
        &support::good_credentials(endpoint),
    ))
    .await;
    assert_eq!(status, 403);
    assert_eq!(body["detail"], "bulk_import is not enabled for this team");
}

#[test]
fn every_endpoint_declares_the_errors_its_router_answers_with_bodies() {
    // 401 and 422 come from the router; the spec declares both with JSON bodies on every
    // endpoint, so the typed client decodes them into the response enum.
    let spec = support::spec();
    for ep in &spec.endpoints {
        let statuses: Vec<u16> = covenant_codegen::ir::all_responses(&spec, ep)
            .filter_map(|r| r.status.exact())
            .collect();
        assert!(statuses.contains(&422), "{} does not declare 422", ep.name);
        if !ep.auth.public {
            assert!(statuses.contains(&401), "{} does not declare 401", ep.name);
        }
    }
}

#[tokio::test]
async fn router_errors_reach_the_client_as_typed_variants() {
    use health_api::operations::*;
    let mock = support::mock().with_closed_gate(Gate::BulkHistoricalPull);
    let base = support::serve_with(mock, server::Config::default()).await;
    let client = client(&base);
    let input: BulkTriggerHistoricalPullInput =
        serde_json::from_value(json!({"body": {"user_ids": [], "provider": "oura"}})).unwrap();
    let response = client.bulk_trigger_historical_pull(input).await.unwrap();
    let BulkTriggerHistoricalPullResponse::Forbidden(body) = response else {
        panic!("expected 403, got {response:?}")
    };
    assert_eq!(
        body.detail,
        "bulk_historical_pull is not enabled for this team"
    );
    let wrong = client::Config::new(&base).with_credential(AuthScheme::TeamApiKey, "nope");
    let response = Client::new(wrong)
        .unwrap()
        .get_user(GetUserInput {
            user_id: "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a".parse().unwrap(),
        })
        .await
        .unwrap();
    let GetUserResponse::Unauthorized(body) = response else {
        panic!("expected 401, got {response:?}")
    };
    assert_eq!(
        body.detail,
        "Invalid credentials in the x-service-api-key header"
    );
}
