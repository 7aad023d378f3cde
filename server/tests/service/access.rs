//! Who may call what (the document's auth rules), team isolation, malformed requests, and a
//! database that is down.

use crate::harness::Harness;
use crate::linking::empty_import;
use crate::on_both_backends;
use crate::users::create;
use health_api::models::*;
use health_api::operations::*;
use sqlx::Row;

on_both_backends!(
    keys_are_accepted_only_where_the_document_says,
    a_team_sees_only_its_own_users,
    keys_are_stored_hashed,
    a_malformed_request_names_every_problem,
    a_database_that_is_down_answers_503_with_retry_after,
    stored_data_the_service_cannot_read_answers_500_not_503,
    a_gate_changed_by_another_writer_is_honoured_within_a_second,
);

/// Several processes share a PostgreSQL database; an embedded one is served by one process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_made_by_another_process_on_postgres_is_honoured_within_a_second() {
    if let Some(h) = Harness::start(crate::harness::Backend::Postgres).await {
        a_change_made_by_another_process_is_honoured_within_a_second(h).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_process_on_an_embedded_database_is_refused() {
    let h = Harness::start(crate::harness::Backend::Sqlite)
        .await
        .expect("SQLite is always available");
    let second = health_server::ReferenceServer::open(health_server::Settings::new(
        h.database.clone(),
        &h.base_url,
    ))
    .await;
    let Err(refusal) = second else {
        panic!("a second process opened the embedded database");
    };
    assert!(
        refusal.contains("another process serves the database"),
        "{refusal}"
    );
    assert!(refusal.contains("PostgreSQL"), "{refusal}");
}

async fn keys_are_accepted_only_where_the_document_says(h: Harness) {
    let user = || GetUserInput {
        user_id: covenant_runtime::Uuid(uuid::Uuid::new_v4()),
    };
    let http = h.http();
    // No key, an unknown key: 401.
    let none = http
        .get(format!("{}/v2/providers", h.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(none.status(), 401);
    let body: serde_json::Value = none.json().await.unwrap();
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("x-service-api-key")
    );
    let wrong = h.client(&[(AuthScheme::TeamApiKey, "sk_team_not-a-key")]);
    assert!(matches!(
        wrong.get_user(user()).await.unwrap(),
        GetUserResponse::Unauthorized(_)
    ));
    // A management key is not a team API key (rule 6): 403.
    let mgmt_on_main = h.client(&[(AuthScheme::TeamApiKey, &h.keys.management_key)]);
    assert!(matches!(
        mgmt_on_main.get_user(user()).await.unwrap(),
        GetUserResponse::Forbidden(_)
    ));
    // A team API key is rejected on the management API (rule 3), in either header.
    let team_on_mgmt = h.client(&[(AuthScheme::ManagementKey, &h.keys.team_api_key)]);
    let input = org_teams(&h);
    assert!(matches!(
        team_on_mgmt.list_teams(input.clone()).await.unwrap(),
        ListTeamsResponse::Forbidden(_)
    ));
    let with_team_header = http
        .get(format!("{}/v1/org/{}/team", h.base_url, h.keys.org_id))
        .header("x-service-api-key", &h.keys.team_api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(with_team_header.status(), 401);
    // The management API needs the highest plan (rule 7), read from the database.
    health_server::admin::set_plan(&h.server, &h.keys.org_id, "standard")
        .await
        .unwrap();
    assert!(matches!(
        h.management().list_teams(input.clone()).await.unwrap(),
        ListTeamsResponse::Forbidden(_)
    ));
    health_server::admin::set_plan(&h.server, &h.keys.org_id, "highest")
        .await
        .unwrap();
    assert!(matches!(
        h.management().list_teams(input).await.unwrap(),
        ListTeamsResponse::Ok(_)
    ));
}

async fn a_team_sees_only_its_own_users(h: Harness) {
    let mine = create(&h, "mine").await;
    let team = h.new_team("Neighbours", Region::Us).await;
    let neighbour = h.team_client(team.id).await;
    // Another team's user is unknown (404), not forbidden.
    assert!(matches!(
        neighbour
            .get_user(GetUserInput { user_id: mine })
            .await
            .unwrap(),
        GetUserResponse::NotFound(_)
    ));
    assert!(matches!(
        neighbour
            .resolve_user(ResolveUserInput {
                client_user_id: "mine".into()
            })
            .await
            .unwrap(),
        ResolveUserResponse::NotFound(_)
    ));
    assert!(matches!(
        neighbour
            .delete_user(DeleteUserInput { user_id: mine })
            .await
            .unwrap(),
        DeleteUserResponse::NotFound(_)
    ));
    // The same client_user_id is free in another team.
    let input = CreateUserInput {
        body: CreateUserRequest {
            client_user_id: "mine".into(),
            fallback_time_zone: None,
            fallback_birth_date: None,
            ingestion_start: None,
            ingestion_end: None,
        },
    };
    let CreateUserResponse::Ok(theirs) = neighbour.create_user(input).await.unwrap() else {
        panic!("create")
    };
    assert_ne!(theirs.user_id, mine);
    assert!(matches!(
        h.team()
            .get_user(GetUserInput { user_id: mine })
            .await
            .unwrap(),
        GetUserResponse::Ok(_)
    ));
}

async fn keys_are_stored_hashed(h: Harness) {
    let rows = sqlx::query("SELECT key_hash FROM keys")
        .fetch_all(h.server.store().pool())
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        let stored: String = row.try_get("key_hash").unwrap();
        assert_eq!(stored.len(), 64);
        assert!(!h.keys.team_api_key.contains(&stored) && !stored.contains(&h.keys.team_api_key));
        assert!(!stored.contains(&h.keys.management_key));
    }
}

async fn a_malformed_request_names_every_problem(h: Harness) {
    let response = h
        .http()
        .post(format!("{}/v2/link/token", h.base_url))
        .header("x-service-api-key", &h.keys.team_api_key)
        .header("content-type", "application/json")
        .body(r#"{"user_id": "not-a-uuid", "filter_on_providers": [], "on_error": "shout"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 422);
    let body: serde_json::Value = response.json().await.unwrap();
    let fields: Vec<String> = body["detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["loc"][1].to_string())
        .collect();
    for field in ["user_id", "filter_on_providers", "on_error"] {
        assert!(
            fields.iter().any(|f| f.contains(field)),
            "{field} named in {body}"
        );
    }
    // Nothing half-written: the refused request created no token and no user.
    let count = sqlx::query("SELECT COUNT(*) AS n FROM link_tokens")
        .fetch_one(h.server.store().pool())
        .await
        .unwrap();
    assert_eq!(count.try_get::<i64, _>("n").unwrap(), 0);
}

async fn a_database_that_is_down_answers_503_with_retry_after(h: Harness) {
    let user_id = create(&h, "before-the-outage").await;
    h.server.store().close().await;
    let started = std::time::Instant::now();
    let response = h
        .http()
        .get(format!("{}/v2/user/{}", h.base_url, user_id.0))
        .header("x-service-api-key", &h.keys.team_api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(body["detail"].is_string());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "no hang"
    );
}

/// A fault of the service is not a reason to retry: 500, its detail logged, not sent.
async fn stored_data_the_service_cannot_read_answers_500_not_503(h: Harness) {
    let user_id = create(&h, "unreadable").await;
    sqlx::query("UPDATE users SET birth_date = 'the fourth of July' WHERE id = $1")
        .bind(user_id.0.to_string())
        .execute(h.server.store().pool())
        .await
        .unwrap();
    let response = h
        .http()
        .get(format!("{}/v2/user/{}", h.base_url, user_id.0))
        .header("x-service-api-key", &h.keys.team_api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    assert!(response.headers().get("retry-after").is_none());
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body,
        serde_json::json!({"detail": covenant_runtime::server::Rejection::INTERNAL})
    );
    // The generated client reads it as the declared 500.
    assert!(matches!(
        h.team().get_user(GetUserInput { user_id }).await.unwrap(),
        GetUserResponse::InternalServerError(_)
    ));
}

/// Principals and gates are kept per process; a plan changed or a key removed by another
/// process on the same database is honoured within the cache's bound of one second.
async fn a_change_made_by_another_process_is_honoured_within_a_second(h: Harness) {
    let other = health_server::ReferenceServer::open(health_server::Settings::new(
        h.database.clone(),
        &h.base_url,
    ))
    .await
    .expect("a second process on the same database");
    let teams = || org_teams(&h);
    let user_id = create(&h, "cached").await;
    let team = h.team();
    let get_user = || team.get_user(GetUserInput { user_id });
    // Both answers are now kept by the serving process.
    assert!(matches!(
        h.management().list_teams(teams()).await.unwrap(),
        ListTeamsResponse::Ok(_)
    ));
    assert!(matches!(get_user().await.unwrap(), GetUserResponse::Ok(_)));

    health_server::admin::set_plan(&other, &h.keys.org_id, "standard")
        .await
        .unwrap();
    sqlx::query("DELETE FROM keys WHERE kind = 'team' AND team_id = $1")
        .bind(&h.keys.team_id)
        .execute(other.store().pool())
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    assert!(matches!(
        h.management().list_teams(teams()).await.unwrap(),
        ListTeamsResponse::Forbidden(_)
    ));
    assert!(matches!(
        get_user().await.unwrap(),
        GetUserResponse::Unauthorized(_)
    ));
    other.store().close().await;
}

/// Gate answers are kept; a change written behind the process's back (another process, an
/// operator's SQL) reaches it through the epoch the database's triggers move.
async fn a_gate_changed_by_another_writer_is_honoured_within_a_second(h: Harness) {
    let teams = || org_teams(&h);
    let team = h.team();
    assert!(!matches!(
        team.bulk_import(empty_import()).await.unwrap(),
        BulkImportResponse::Forbidden(_)
    ));
    assert!(matches!(
        h.management().list_teams(teams()).await.unwrap(),
        ListTeamsResponse::Ok(_)
    ));
    let behind_its_back = h.server.store().pool();
    sqlx::query("DELETE FROM team_features WHERE team_id = $1")
        .bind(&h.keys.team_id)
        .execute(behind_its_back)
        .await
        .unwrap();
    sqlx::query("UPDATE organizations SET plan = 'standard' WHERE id = $1")
        .bind(&h.keys.org_id)
        .execute(behind_its_back)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    assert!(matches!(
        team.bulk_import(empty_import()).await.unwrap(),
        BulkImportResponse::Forbidden(_)
    ));
    assert!(matches!(
        h.management().list_teams(teams()).await.unwrap(),
        ListTeamsResponse::Forbidden(_)
    ));
}

/// The first page of the organization's teams.
fn org_teams(h: &Harness) -> ListTeamsInput {
    ListTeamsInput {
        org_id: h.org_id(),
        region: None,
        search_query: None,
        next_cursor: None,
    }
}
