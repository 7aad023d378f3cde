//! Users: create and its conflict, settings in three states, deletion and its grace period.

use crate::harness::Harness;
use crate::on_both_backends;
use covenant_runtime::{Date, Tristate, Uuid};
use health_api::models::*;
use health_api::operations::*;

on_both_backends!(
    a_repeated_client_user_id_names_the_first_user,
    concurrent_creates_of_one_client_user_id_make_one_user,
    settings_are_left_cleared_or_set,
    time_zones_are_checked_against_the_tz_database,
    a_deleted_user_is_invisible_until_undone,
    the_grace_period_ends_deletion_for_good,
    a_new_client_user_id_that_is_taken_conflicts,
);

pub async fn create(h: &Harness, client_user_id: &str) -> Uuid {
    let input = CreateUserInput {
        body: CreateUserRequest {
            client_user_id: client_user_id.to_string(),
            fallback_time_zone: None,
            fallback_birth_date: None,
            ingestion_start: None,
            ingestion_end: None,
        },
    };
    match h.team().create_user(input).await.unwrap() {
        CreateUserResponse::Ok(created) => created.user_id,
        other => panic!("create {client_user_id}: {other:?}"),
    }
}

fn date(text: &str) -> Date {
    Date(text.parse().unwrap())
}

async fn a_repeated_client_user_id_names_the_first_user(h: Harness) {
    let first = create(&h, "repeat-me").await;
    let again = CreateUserInput {
        body: CreateUserRequest {
            client_user_id: "repeat-me".to_string(),
            fallback_time_zone: Some("Europe/Paris".to_string()),
            fallback_birth_date: None,
            ingestion_start: None,
            ingestion_end: None,
        },
    };
    let CreateUserResponse::BadRequest(conflict) = h.team().create_user(again).await.unwrap()
    else {
        panic!("a repeated client_user_id must answer 400");
    };
    assert_eq!(conflict.detail.user_id, first);
    let GetUserResponse::Ok(user) = h
        .team()
        .get_user(GetUserInput { user_id: first })
        .await
        .unwrap()
    else {
        panic!("get");
    };
    assert_eq!(conflict.detail.created_on, user.created_on);
    // The repeat changed nothing: still no time zone.
    assert_eq!(user.fallback_time_zone, None);
}

async fn concurrent_creates_of_one_client_user_id_make_one_user(h: Harness) {
    let h = std::sync::Arc::new(h);
    let attempts: Vec<_> = (0..24)
        .map(|_| {
            let h = h.clone();
            tokio::spawn(async move {
                let input = CreateUserInput {
                    body: CreateUserRequest {
                        client_user_id: "race".to_string(),
                        fallback_time_zone: None,
                        fallback_birth_date: None,
                        ingestion_start: None,
                        ingestion_end: None,
                    },
                };
                h.team().create_user(input).await.unwrap()
            })
        })
        .collect();
    let mut created = Vec::new();
    let mut named = Vec::new();
    for attempt in attempts {
        match attempt.await.unwrap() {
            CreateUserResponse::Ok(c) => created.push(c.user_id),
            CreateUserResponse::BadRequest(c) => named.push(c.detail.user_id),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(created.len(), 1, "exactly one create wins");
    assert!(
        named.iter().all(|id| *id == created[0]),
        "every loser names the winner"
    );
}

async fn settings_are_left_cleared_or_set(h: Harness) {
    let user_id = create(&h, "settings").await;
    let patch = |body: UpdateUserRequest| {
        let client = h.team();
        async move {
            match client
                .update_user(UpdateUserInput { user_id, body })
                .await
                .unwrap()
            {
                UpdateUserResponse::Ok(_) => {}
                other => panic!("patch: {other:?}"),
            }
        }
    };
    let get = || {
        let client = h.team();
        async move {
            match client.get_user(GetUserInput { user_id }).await.unwrap() {
                GetUserResponse::Ok(user) => user,
                other => panic!("get: {other:?}"),
            }
        }
    };
    patch(UpdateUserRequest {
        fallback_time_zone: Tristate::Value("America/New_York".to_string()),
        fallback_birth_date: Tristate::Value(date("1990-05-17")),
        ingestion_start: Tristate::Value(date("2024-01-01")),
        ingestion_end: Tristate::Absent,
        client_user_id: Tristate::Absent,
    })
    .await;
    let user = get().await;
    let zone = user.fallback_time_zone.as_ref().expect("time zone set");
    assert_eq!(zone.id, "America/New_York");
    assert_eq!(zone.source_slug, "manual");
    let birth = user.fallback_birth_date.expect("birth date set");
    assert_eq!(birth.value, date("1990-05-17"));
    assert_eq!(birth.source_slug, "manual");
    assert_eq!(user.ingestion_start, Tristate::Value(date("2024-01-01")));

    // Absent leaves everything; a later instant shows the time zone was not touched.
    h.clock.advance(chrono::Duration::hours(1));
    patch(UpdateUserRequest {
        fallback_time_zone: Tristate::Absent,
        fallback_birth_date: Tristate::Absent,
        ingestion_start: Tristate::Absent,
        ingestion_end: Tristate::Value(date("2025-01-01")),
        client_user_id: Tristate::Absent,
    })
    .await;
    let later = get().await;
    assert_eq!(later.fallback_time_zone, user.fallback_time_zone);
    assert_eq!(later.ingestion_start, Tristate::Value(date("2024-01-01")));
    assert_eq!(later.ingestion_end, Tristate::Value(date("2025-01-01")));

    // Null clears.
    patch(UpdateUserRequest {
        fallback_time_zone: Tristate::Null,
        fallback_birth_date: Tristate::Null,
        ingestion_start: Tristate::Null,
        ingestion_end: Tristate::Absent,
        client_user_id: Tristate::Value("settings-renamed".to_string()),
    })
    .await;
    let cleared = get().await;
    // Cleared reads null, as the deployed client types it.
    assert_eq!(cleared.fallback_time_zone, None);
    assert!(cleared.fallback_birth_date.is_none());
    assert_eq!(cleared.ingestion_start, Tristate::Null);
    assert_eq!(cleared.ingestion_end, Tristate::Value(date("2025-01-01")));
    assert_eq!(cleared.client_user_id, "settings-renamed");
}

async fn time_zones_are_checked_against_the_tz_database(h: Harness) {
    let user_id = create(&h, "tz").await;
    // Spelled like a zone, but not one.
    let body = UpdateUserRequest {
        fallback_time_zone: Tristate::Value("Europe/Atlantis".to_string()),
        fallback_birth_date: Tristate::Absent,
        ingestion_start: Tristate::Absent,
        ingestion_end: Tristate::Absent,
        client_user_id: Tristate::Absent,
    };
    let UpdateUserResponse::UnprocessableEntity(e) = h
        .team()
        .update_user(UpdateUserInput { user_id, body })
        .await
        .unwrap()
    else {
        panic!("an unknown zone is a 422");
    };
    let loc: Vec<String> = e.detail[0]
        .loc
        .iter()
        .map(|p| match p {
            ValidationIssueLocItem::String(s) => s.clone(),
            ValidationIssueLocItem::Int(i) => i.to_string(),
        })
        .collect();
    assert_eq!(loc, ["body", "fallback_time_zone"]);
    assert!(e.detail[0].msg.contains("Europe/Atlantis"));
}

async fn a_deleted_user_is_invisible_until_undone(h: Harness) {
    let user_id = create(&h, "deleted").await;
    let team = h.team();
    assert!(matches!(
        team.delete_user(DeleteUserInput { user_id }).await.unwrap(),
        DeleteUserResponse::Ok(SuccessResult { success: true })
    ));
    assert!(matches!(
        team.get_user(GetUserInput { user_id }).await.unwrap(),
        GetUserResponse::NotFound(_)
    ));
    assert!(matches!(
        team.resolve_user(ResolveUserInput {
            client_user_id: "deleted".into()
        })
        .await
        .unwrap(),
        ResolveUserResponse::NotFound(_)
    ));
    assert!(matches!(
        team.get_latest_patient_info(GetLatestPatientInfoInput { user_id })
            .await
            .unwrap(),
        GetLatestPatientInfoResponse::NotFound(_)
    ));
    assert!(matches!(
        team.delete_user(DeleteUserInput { user_id }).await.unwrap(),
        DeleteUserResponse::NotFound(_)
    ));
    h.clock.advance(chrono::Duration::days(6));
    let undo = UndoDeleteUserInput {
        user_id: None,
        client_user_id: Some("deleted".into()),
    };
    assert!(matches!(
        team.undo_delete_user(undo).await.unwrap(),
        UndoDeleteUserResponse::Ok(_)
    ));
    assert!(matches!(
        team.get_user(GetUserInput { user_id }).await.unwrap(),
        GetUserResponse::Ok(_)
    ));
    // By user_id too.
    team.delete_user(DeleteUserInput { user_id }).await.unwrap();
    let undo = UndoDeleteUserInput {
        user_id: Some(user_id),
        client_user_id: None,
    };
    assert!(matches!(
        team.undo_delete_user(undo).await.unwrap(),
        UndoDeleteUserResponse::Ok(_)
    ));
    assert!(matches!(
        team.resolve_user(ResolveUserInput {
            client_user_id: "deleted".into()
        })
        .await
        .unwrap(),
        ResolveUserResponse::Ok(_)
    ));
}

async fn the_grace_period_ends_deletion_for_good(h: Harness) {
    let user_id = create(&h, "gone").await;
    let team = h.team();
    team.delete_user(DeleteUserInput { user_id }).await.unwrap();
    h.clock
        .advance(chrono::Duration::days(7) + chrono::Duration::seconds(1));
    let undo = UndoDeleteUserInput {
        user_id: Some(user_id),
        client_user_id: None,
    };
    assert!(matches!(
        team.undo_delete_user(undo).await.unwrap(),
        UndoDeleteUserResponse::NotFound(_)
    ));
    // The client_user_id is free again: a new user, with a new id.
    let again = create(&h, "gone").await;
    assert_ne!(again, user_id);
    h.server.recover().await.unwrap();
    assert!(matches!(
        team.get_user(GetUserInput { user_id }).await.unwrap(),
        GetUserResponse::NotFound(_)
    ));
}

async fn a_new_client_user_id_that_is_taken_conflicts(h: Harness) {
    let first = create(&h, "taken").await;
    let second = create(&h, "other").await;
    let body = UpdateUserRequest {
        fallback_time_zone: Tristate::Absent,
        fallback_birth_date: Tristate::Absent,
        ingestion_start: Tristate::Absent,
        ingestion_end: Tristate::Absent,
        client_user_id: Tristate::Value("taken".into()),
    };
    let UpdateUserResponse::BadRequest(conflict) = h
        .team()
        .update_user(UpdateUserInput {
            user_id: second,
            body,
        })
        .await
        .unwrap()
    else {
        panic!("renaming onto a taken client_user_id is a conflict");
    };
    assert_eq!(conflict.detail.user_id, first);
}
