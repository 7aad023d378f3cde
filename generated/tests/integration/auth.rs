//! Auth tests derived from the spec: every endpoint refuses no key (401), a wrong key (401)
//! and a key of the wrong kind (403), each with a JSON `detail`, and accepts the right one.

use crate::support;

use covenant_codegen::samples::Samples;
use covenant_runtime::server;
use health_api::operations::AuthScheme;

#[tokio::test]
async fn every_endpoint_refuses_missing_wrong_and_misplaced_keys() {
    let spec = support::spec();
    let samples = Samples::new(&spec);
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let mut checked = 0;
    for ep in spec.endpoints.iter().filter(|e| !e.auth.public) {
        let desc = support::descriptor(&ep.name);
        let input = samples.endpoint_input(ep);
        let header = support::header_of(desc.auth_any_of[0]);
        let accepted: Vec<&str> = desc
            .auth_any_of
            .iter()
            .chain(desc.auth_optional)
            .map(|s| s.primary().name())
            .collect();

        let (status, body, _) =
            support::send(support::raw_request(&http, &base, desc, &input, &[])).await;
        assert_eq!(status, 401, "{} without a key: {body}", ep.name);
        assert!(
            body["detail"].as_str().unwrap().contains(header),
            "{}: {body}",
            ep.name
        );

        let wrong = [(header, "not-a-key".to_string())];
        let (status, body, _) =
            support::send(support::raw_request(&http, &base, desc, &input, &wrong)).await;
        assert_eq!(status, 401, "{} with a wrong key: {body}", ep.name);

        let other = AuthScheme::ALL
            .iter()
            .find(|s| !accepted.contains(&s.name()))
            .expect("a scheme the endpoint refuses");
        let misplaced = [(header, support::key_of(*other))];
        let (status, body, _) =
            support::send(support::raw_request(&http, &base, desc, &input, &misplaced)).await;
        assert_eq!(
            status,
            403,
            "{} with a {} key: {body}",
            ep.name,
            other.name()
        );
        assert!(body["detail"].is_string());

        let (status, body, _) = support::send(support::raw_request(
            &http,
            &base,
            desc,
            &input,
            &support::good_credentials(desc),
        ))
        .await;
        assert!(
            (200..300).contains(&status),
            "{} with the right key: {status} {body}",
            ep.name
        );

        for optional in desc.auth_optional {
            let mut creds = support::good_credentials(desc);
            creds.push((support::header_of(*optional), "not-a-token".into()));
            let (status, _, _) =
                support::send(support::raw_request(&http, &base, desc, &input, &creds)).await;
            assert_eq!(
                status,
                401,
                "{}: a wrong optional {} is refused",
                ep.name,
                optional.name()
            );
        }
        checked += 1;
    }
    assert_eq!(
        checked,
        spec.endpoints.iter().filter(|e| !e.auth.public).count()
    );
    // A public endpoint (the link widget's pages) answers without any credential.
    for ep in spec.endpoints.iter().filter(|e| e.auth.public) {
        let desc = support::descriptor(&ep.name);
        let input = samples.endpoint_input(ep);
        let (status, body, _) =
            support::send(support::raw_request(&http, &base, desc, &input, &[])).await;
        assert!((200..400).contains(&status), "{}: {status} {body}", ep.name);
    }
}

#[tokio::test]
async fn the_deprecated_org_key_header_is_accepted_like_the_management_key() {
    let base = support::serve_mock(server::Config::default()).await;
    let http = reqwest::Client::new();
    let desc = support::descriptor("list_teams");
    let input = serde_json::json!({"org_id": "0b5e4a3c-6a5f-4a44-9c43-1f2e3d4c5b6a"});
    let key = support::key_of(AuthScheme::ManagementKey);
    for header in ["X-Management-Key", "X-Service-Org-Key"] {
        let (status, body, _) = support::send(support::raw_request(
            &http,
            &base,
            desc,
            &input,
            &[(header, key.clone())],
        ))
        .await;
        assert_eq!(status, 200, "{header}: {body}");
    }
    let team_key = [("X-Management-Key", support::key_of(AuthScheme::TeamApiKey))];
    let (status, _, _) =
        support::send(support::raw_request(&http, &base, desc, &input, &team_key)).await;
    assert_eq!(
        status, 403,
        "a team API key is refused by the management API"
    );
}
