//! Link tokens, OAuth provider detail, and bulk operations behind their team features.

// The link token request carries the deprecated `filter_on_providers`; it is left out here.
#![allow(deprecated)]

use crate::harness::Harness;
use crate::on_both_backends;
use crate::users::create;
use covenant_runtime::{Tristate, Uuid};
use health_api::models::*;
use health_api::operations::*;

on_both_backends!(
    a_link_token_is_good_once_for_ten_minutes,
    a_link_token_is_used_up_only_by_a_request_that_succeeds,
    a_link_token_of_a_deleted_user_is_refused,
    the_largest_bulk_imports_leave_other_teams_writes_unharmed,
    bulk_imports_connect_the_teams_users_and_are_listed,
    bulk_operations_are_closed_until_enabled_for_the_team,
);

async fn link_token(h: &Harness, user_id: Uuid, provider: Option<LinkProvider>) -> LinkTokenResult {
    let body = CreateLinkTokenRequest {
        user_id,
        provider: provider.map_or(Tristate::Absent, Tristate::Value),
        redirect_url: Tristate::Absent,
        filter_on_providers: Tristate::Absent,
        on_error: Tristate::Absent,
        on_close: Tristate::Absent,
    };
    match h
        .team()
        .create_link_token(CreateLinkTokenInput { body })
        .await
        .unwrap()
    {
        CreateLinkTokenResponse::Ok(token) => token,
        other => panic!("link token: {other:?}"),
    }
}

async fn a_link_token_is_good_once_for_ten_minutes(h: Harness) {
    let user_id = create(&h, "linker").await;
    let token = link_token(&h, user_id, Some(LinkProvider::Oura)).await;
    assert!(
        token
            .link_web_url
            .starts_with(&format!("{}/link?token=", h.base_url))
    );
    // The widget's page is served here and names the provider.
    let page = h.http().get(&token.link_web_url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("oura"));

    let with_token = h.client(&[
        (AuthScheme::TeamApiKey, &h.keys.team_api_key),
        (AuthScheme::LinkToken, &token.link_token),
    ]);
    let input = || GetOauthProviderInput {
        oauth_provider: BulkProvider::Oura,
    };
    let GetOauthProviderResponse::Ok(detail) =
        with_token.get_oauth_provider(input()).await.unwrap()
    else {
        panic!("provider detail with a fresh link token");
    };
    assert_eq!(detail.slug, "oura");
    assert!(detail.logo.starts_with("https://"));
    // Single use.
    assert!(matches!(
        with_token.get_oauth_provider(input()).await.unwrap(),
        GetOauthProviderResponse::Unauthorized(_)
    ));
    // Without the optional header the team key alone is enough.
    assert!(matches!(
        h.team().get_oauth_provider(input()).await.unwrap(),
        GetOauthProviderResponse::Ok(_)
    ));

    // Ten minutes.
    let late = link_token(&h, user_id, None).await;
    h.clock
        .advance(chrono::Duration::minutes(10) + chrono::Duration::seconds(1));
    let with_late = h.client(&[
        (AuthScheme::TeamApiKey, &h.keys.team_api_key),
        (AuthScheme::LinkToken, &late.link_token),
    ]);
    assert!(matches!(
        with_late.get_oauth_provider(input()).await.unwrap(),
        GetOauthProviderResponse::Unauthorized(_)
    ));
    // Only for the team's own users.
    let stranger = Uuid(uuid::Uuid::new_v4());
    let body = CreateLinkTokenRequest {
        user_id: stranger,
        provider: Tristate::Absent,
        redirect_url: Tristate::Absent,
        filter_on_providers: Tristate::Absent,
        on_error: Tristate::Absent,
        on_close: Tristate::Absent,
    };
    assert!(matches!(
        h.team()
            .create_link_token(CreateLinkTokenInput { body })
            .await
            .unwrap(),
        CreateLinkTokenResponse::NotFound(_)
    ));
}

/// GET the OAuth detail of `provider` over raw HTTP with a team key and a link token.
async fn oauth_with(h: &Harness, provider: &str, team_key: &str, token: &str) -> u16 {
    h.http()
        .get(format!("{}/v2/link/provider/oauth/{provider}", h.base_url))
        .header("x-service-api-key", team_key)
        .header("x-service-link-token", token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn a_link_token_is_used_up_only_by_a_request_that_succeeds(h: Harness) {
    let user_id = create(&h, "retrying-linker").await;
    let token = link_token(&h, user_id, None).await.link_token;
    let team_key = h.keys.team_api_key.clone();
    // Refused for its input (422) and for another team's key (403): still good after both.
    assert_eq!(
        oauth_with(&h, "not_a_provider", &team_key, &token).await,
        422
    );
    let other_team = h.new_team("Elsewhere", Region::Us).await;
    let other_key = h.new_team_key(other_team.id).await;
    assert_eq!(oauth_with(&h, "oura", &other_key, &token).await, 403);
    // The first request that succeeds uses it up.
    assert_eq!(oauth_with(&h, "oura", &team_key, &token).await, 200);
    assert_eq!(oauth_with(&h, "oura", &team_key, &token).await, 401);
}

async fn a_link_token_of_a_deleted_user_is_refused(h: Harness) {
    let user_id = create(&h, "leaving-linker").await;
    let token = link_token(&h, user_id, None).await.link_token;
    let deleted = h
        .team()
        .delete_user(DeleteUserInput { user_id })
        .await
        .unwrap();
    assert!(matches!(deleted, DeleteUserResponse::Ok(_)), "{deleted:?}");
    assert_eq!(
        oauth_with(&h, "oura", &h.keys.team_api_key, &token).await,
        401
    );
}

/// Two imports of the most connections a request may name (100,000 unknown users each) run
/// while another team makes 31 users at once: every create succeeds, because the imports
/// hold the writer one small batch at a time.
async fn the_largest_bulk_imports_leave_other_teams_writes_unharmed(h: Harness) {
    let unknown = uuid::Uuid::new_v4().to_string();
    let connection = serde_json::json!({
        "user_id": unknown, "access_token": "a", "refresh_token": "r",
        "provider_id": "p", "expires_at": 1
    });
    let body = serde_json::json!({
        "provider": "fitbit",
        "connections": vec![connection; 100_000],
    });
    let body = serde_json::to_vec(&body).unwrap();
    let import = || {
        h.http()
            .post(format!("{}/v2/link/bulk_import", h.base_url))
            .header("x-service-api-key", &h.keys.team_api_key)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
    };
    let (first, second) = tokio::join!(import(), import());
    assert_eq!(first.unwrap().status(), 202);
    assert_eq!(second.unwrap().status(), 202);

    let other = h.new_team("Bystanders", Region::Eu).await;
    let bystander = h.team_client(other.id).await;
    let mut creates = tokio::task::JoinSet::new();
    for i in 0..31 {
        let bystander = bystander.clone();
        creates.spawn(async move {
            let body = CreateUserRequest {
                client_user_id: format!("bystander-{i}"),
                fallback_time_zone: None,
                fallback_birth_date: None,
                ingestion_start: None,
                ingestion_end: None,
            };
            bystander.create_user(CreateUserInput { body }).await
        });
    }
    let answers = creates.join_all().await;
    let refused: Vec<String> = answers
        .iter()
        .filter(|a| !matches!(a, Ok(CreateUserResponse::Ok(_))))
        .map(|a| format!("{a:?}"))
        .collect();
    assert!(
        refused.is_empty(),
        "{} of 31 creates failed: {refused:?}",
        refused.len()
    );
    // The imports move on meanwhile, batch by batch.
    let ListBulkOpsResponse::Ok(ops) = h
        .team()
        .list_bulk_ops(ListBulkOpsInput {
            team_id: None,
            next_cursor: None,
            page_size: None,
        })
        .await
        .unwrap()
    else {
        panic!("list bulk ops");
    };
    assert!(
        ops.data
            .iter()
            .take(2)
            .all(|op| op.pending + op.processed == 100_000)
    );
}

pub fn recipe(user_id: Uuid) -> ConnectionRecipe {
    ConnectionRecipe {
        user_id,
        access_token: "access".into(),
        refresh_token: "refresh".into(),
        provider_id: "provider-user-1".into(),
        expires_at: 2147483647,
        oauth_scopes: Tristate::Absent,
    }
}

async fn bulk_imports_connect_the_teams_users_and_are_listed(h: Harness) {
    let known = create(&h, "bulk-known").await;
    let unknown = Uuid(uuid::Uuid::new_v4());
    let team = h.team();
    let body = BulkImportRequest {
        provider: BulkProvider::Fitbit,
        connections: vec![recipe(known), recipe(unknown)],
        wait_for_completion: true,
    };
    let BulkImportResponse::Ok(result) = team
        .bulk_import(BulkImportInput {
            team_id: None,
            body,
        })
        .await
        .unwrap()
    else {
        panic!("a small import finishes within the wait: 200");
    };
    assert_eq!(result.user_ids_imported, vec![known]);
    assert_eq!(result.user_ids_failed, vec![unknown]);
    let GetUserResponse::Ok(user) = team
        .get_user(GetUserInput { user_id: known })
        .await
        .unwrap()
    else {
        panic!("get");
    };
    assert_eq!(user.connected_sources.len(), 1);
    assert_eq!(user.connected_sources[0].provider.slug, "fitbit");
    let RefreshUserResponse::Ok(refreshed) = team
        .refresh_user(RefreshUserInput {
            user_id: known,
            timeout: 7.5,
        })
        .await
        .unwrap()
    else {
        panic!("refresh");
    };
    assert!(
        refreshed
            .refreshed_sources
            .iter()
            .all(|s| s.starts_with("fitbit/"))
    );
    assert!(!refreshed.refreshed_sources.is_empty());

    // Queued without waiting: 202 at once, and listed.
    let body = BulkTriggerHistoricalPullRequest {
        user_ids: vec![known],
        provider: BulkProvider::Fitbit,
        wait_for_completion: false,
    };
    let response = team
        .bulk_trigger_historical_pull(BulkTriggerHistoricalPullInput {
            team_id: Some("infer_from_context".into()),
            body,
        })
        .await
        .unwrap();
    assert!(
        matches!(response, BulkTriggerHistoricalPullResponse::Accepted(_)),
        "{response:?}"
    );
    let ListBulkOpsResponse::Ok(first_page) = team
        .list_bulk_ops(ListBulkOpsInput {
            team_id: None,
            next_cursor: None,
            page_size: Some(1),
        })
        .await
        .unwrap()
    else {
        panic!("list bulk ops");
    };
    assert_eq!(first_page.data.len(), 1);
    assert_eq!(
        first_page.data[0].r#type,
        BulkOpType::LinkBulkHistoricalTrigger
    );
    let cursor = first_page.next_cursor.expect("a second page");
    let ListBulkOpsResponse::Ok(second_page) = team
        .list_bulk_ops(ListBulkOpsInput {
            team_id: None,
            next_cursor: Some(cursor),
            page_size: Some(1),
        })
        .await
        .unwrap()
    else {
        panic!("second page");
    };
    assert_eq!(second_page.data[0].r#type, BulkOpType::LinkBulkImport);
    assert_eq!(second_page.data[0].status, BulkOpStatus::Success);
    assert_eq!(second_page.data[0].processed, 2);
    assert!(second_page.next_cursor.is_none());
}

async fn bulk_operations_are_closed_until_enabled_for_the_team(h: Harness) {
    let management = h.management();
    let team = h.new_team("Closed beta", Region::Eu).await;
    assert!(team.enabled_features.is_empty());
    let other = h.team_client(team.id).await;
    let BulkImportResponse::Forbidden(refusal) = other.bulk_import(empty_import()).await.unwrap()
    else {
        panic!("closed until enabled");
    };
    assert!(refusal.detail.contains("bulk_import"));
    management
        .update_team(UpdateTeamInput {
            org_id: h.org_id(),
            team_id: team.id,
            body: UpdateTeamRequest {
                name: None,
                enabled_features: Some(vec![TeamFeature::BulkImport]),
            },
        })
        .await
        .unwrap();
    // Enabled, an import still needs the team's own OAuth application for the provider.
    let BulkImportResponse::Conflict(refusal) = other.bulk_import(empty_import()).await.unwrap()
    else {
        panic!("credentials are needed beforehand");
    };
    assert!(
        refusal.detail.contains("custom_credentials/oura"),
        "{}",
        refusal.detail
    );
    let set = SetTeamCustomCredentialsInput {
        org_id: h.org_id(),
        team_id: team.id,
        provider: BulkProvider::Oura,
        body: SetTeamCustomCredentialsRequest {
            client_id: "team-app".into(),
            client_secret: "team-secret".into(),
        },
    };
    let SetTeamCustomCredentialsResponse::Ok(set) =
        management.set_team_custom_credentials(set).await.unwrap()
    else {
        panic!("set the team's credentials");
    };
    assert_eq!(
        (set.provider, set.client_id.as_str()),
        (BulkProvider::Oura, "team-app")
    );
    assert!(matches!(
        other.bulk_import(empty_import()).await.unwrap(),
        BulkImportResponse::Accepted(_)
    ));
    // The other feature stays closed.
    let pull = BulkTriggerHistoricalPullInput {
        team_id: None,
        body: BulkTriggerHistoricalPullRequest {
            user_ids: vec![],
            provider: BulkProvider::Oura,
            wait_for_completion: false,
        },
    };
    assert!(matches!(
        other.bulk_trigger_historical_pull(pull).await.unwrap(),
        BulkTriggerHistoricalPullResponse::Forbidden(_)
    ));
}

/// A bulk import of no one, which only a team with the feature may send.
pub fn empty_import() -> BulkImportInput {
    BulkImportInput {
        team_id: None,
        body: BulkImportRequest {
            provider: BulkProvider::Oura,
            connections: vec![],
            wait_for_completion: false,
        },
    }
}
