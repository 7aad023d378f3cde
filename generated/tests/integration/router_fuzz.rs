//! No request makes the generated router panic or answer 5xx: random methods, paths built
//! from the spec's routes with arbitrary segments, arbitrary query strings, headers and body
//! bytes. Every error answer is JSON with a `detail`. In process, bounded by case count.

use crate::support;

use covenant_runtime::contract::{TemplateValue, encode_segment};
use covenant_runtime::server::axum::{body::Body, http::Request};
use health_api::descriptors::ENDPOINTS;
use proptest::prelude::*;
use std::sync::Arc;
use tower::ServiceExt;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

/// A path from the spec with each `{placeholder}` replaced by an arbitrary segment.
fn path() -> impl Strategy<Value = String> {
    (
        prop::sample::select(ENDPOINTS.iter().map(|e| e.path).collect::<Vec<_>>()),
        prop::collection::vec("[ -~]{0,12}", 3),
    )
        .prop_map(|(template, segments)| {
            let mut i = 0;
            // Verbatim, so empty and dot segments reach the router too.
            let filled = template.fill(|_| {
                i += 1;
                let encoded = encode_segment(&segments[i % 3]).into_owned();
                Some(TemplateValue::Verbatim(encoded.into()))
            });
            filled.expect("every placeholder has a value")
        })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        "[\\[\\]{}\",:0-9a-z \\n.-]{0,80}".prop_map(String::into_bytes),
        Just(
            br#"{"client_user_id": "a", "connections": [{"user_id": 5}], "provider": null}"#
                .to_vec()
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_router_answers_every_request_without_failing(
        method in prop::sample::select(vec!["GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS"]),
        path in path(),
        query in "[ -~]{0,40}",
        key in prop::sample::select(vec![None, Some("team_api_key-key"), Some("management_key-key"), Some("garbage")]),
        content_type in prop::sample::select(vec!["application/json", "text/plain", "*/*"]),
        body in body(),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let router = health_api::server::router(Arc::new(support::mock()), Default::default());
        let query: String = query.bytes().map(|b| if b.is_ascii_alphanumeric() || b"=&".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect();
        let mut request = Request::builder().method(method).uri(format!("{path}?{query}")).header("content-type", content_type);
        if let Some(key) = key {
            request = request.header("x-service-api-key", key).header("X-Management-Key", key);
        }
        let request = request.body(Body::from(body)).unwrap();
        let (status, bytes) = runtime.block_on(async move {
            let response = router.oneshot(request).await.unwrap();
            let status = response.status().as_u16();
            let bytes = covenant_runtime::server::axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
            (status, bytes)
        });
        prop_assert!(status < 500, "{method} {path}?{query} answered {status}: {}", String::from_utf8_lossy(&bytes));
        if status >= 400 {
            let json: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| TestCaseError::fail(format!("{status} body is not JSON: {e}")))?;
            prop_assert!(json.get("detail").is_some(), "{status} body has no detail: {json}");
        }
    }
}
