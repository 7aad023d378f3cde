//! The management API: teams, keys and scopes.

use crate::harness::Harness;
use crate::on_both_backends;
use health_api::models::*;
use health_api::operations::*;

on_both_backends!(
    teams_filter_search_and_page_by_cursor,
    a_team_management_key_reaches_only_its_teams,
);

fn listing(h: &Harness) -> ListTeamsInput {
    ListTeamsInput {
        org_id: h.org_id(),
        region: None,
        search_query: None,
        next_cursor: None,
    }
}

async fn teams_filter_search_and_page_by_cursor(h: Harness) {
    for i in 0..60 {
        let region = if i % 3 == 0 { Region::Eu } else { Region::Us };
        h.new_team(&format!("Équipe {i:02} (R&D)"), region).await;
    }
    let management = h.management();
    let mut seen = Vec::new();
    let mut input = listing(&h);
    loop {
        let ListTeamsResponse::Ok(page) = management.list_teams(input.clone()).await.unwrap()
        else {
            panic!("list teams");
        };
        seen.extend(page.teams.iter().map(|t| t.id));
        match page.next_cursor {
            Some(cursor) => input.next_cursor = Some(cursor),
            None => break,
        }
    }
    assert_eq!(
        seen.len(),
        61,
        "every team once, the bootstrap team included"
    );
    let mut unique = seen.clone();
    unique.sort_by_key(|id| id.0);
    unique.dedup();
    assert_eq!(unique.len(), 61);

    let ListTeamsResponse::Ok(eu) = management
        .list_teams(ListTeamsInput {
            region: Some(vec![Region::Eu]),
            ..listing(&h)
        })
        .await
        .unwrap()
    else {
        panic!("eu teams");
    };
    assert_eq!(eu.teams.len(), 20);
    assert!(eu.teams.iter().all(|t| t.region == Region::Eu));
    // Case-insensitive, accents included, and `_`/`%`-free text matched literally.
    let ListTeamsResponse::Ok(found) = management
        .list_teams(ListTeamsInput {
            search_query: Some("ÉQUIPE 07".into()),
            ..listing(&h)
        })
        .await
        .unwrap()
    else {
        panic!("search");
    };
    assert_eq!(found.teams.len(), 1);
    assert_eq!(found.teams[0].name, "Équipe 07 (R&D)");
    // The character rules are the router's: a `%` is refused with a 422.
    assert!(matches!(
        management
            .list_teams(ListTeamsInput {
                search_query: Some("50%".into()),
                ..listing(&h)
            })
            .await
            .unwrap(),
        ListTeamsResponse::UnprocessableEntity(_)
    ));
    // A cursor that is not ours.
    assert!(matches!(
        management
            .list_teams(ListTeamsInput {
                next_cursor: Some("bogus".into()),
                ..listing(&h)
            })
            .await
            .unwrap(),
        ListTeamsResponse::UnprocessableEntity(_)
    ));
}

async fn a_team_management_key_reaches_only_its_teams(h: Harness) {
    let a = h.new_team("Team A", Region::Us).await;
    let b = h.new_team("Team B", Region::Us).await;
    let c = h.new_team("Team C", Region::Eu).await;
    let org = h.management();
    let CreateManagementKeyResponse::Created(scoped) = org
        .create_management_key(CreateManagementKeyInput {
            org_id: h.org_id(),
            body: CreateManagementKeyRequest {
                scope: ManagementKeyScope::Team,
                team_ids: Some(vec![a.id, b.id]),
            },
        })
        .await
        .unwrap()
    else {
        panic!("create a team management key");
    };
    assert_eq!(scoped.team_ids.len(), 2);
    let team_mgmt = h.client(&[(AuthScheme::ManagementKey, &scoped.key)]);
    let ListTeamsResponse::Ok(visible) = team_mgmt.list_teams(listing(&h)).await.unwrap() else {
        panic!("list");
    };
    let mut ids: Vec<_> = visible.teams.iter().map(|t| t.id).collect();
    ids.sort_by_key(|id| id.0);
    let mut expected = vec![a.id, b.id];
    expected.sort_by_key(|id| id.0);
    assert_eq!(ids, expected);
    // Org-level actions are out of reach.
    let create = CreateTeamInput {
        org_id: h.org_id(),
        body: CreateTeamRequest {
            name: "Nope".into(),
            region: Region::Us,
            enabled_features: None,
        },
    };
    assert!(matches!(
        team_mgmt.create_team(create).await.unwrap(),
        CreateTeamResponse::Forbidden(_)
    ));
    let org_key = CreateManagementKeyInput {
        org_id: h.org_id(),
        body: CreateManagementKeyRequest {
            scope: ManagementKeyScope::Org,
            team_ids: None,
        },
    };
    assert!(matches!(
        team_mgmt.create_management_key(org_key).await.unwrap(),
        CreateManagementKeyResponse::Forbidden(_)
    ));
    // Teams outside its scope are unknown to it; its own are managed.
    assert!(matches!(
        team_mgmt
            .create_team_api_key(CreateTeamApiKeyInput {
                org_id: h.org_id(),
                team_id: c.id
            })
            .await
            .unwrap(),
        CreateTeamApiKeyResponse::NotFound(_)
    ));
    assert!(matches!(
        team_mgmt
            .create_team_api_key(CreateTeamApiKeyInput {
                org_id: h.org_id(),
                team_id: a.id
            })
            .await
            .unwrap(),
        CreateTeamApiKeyResponse::Created(_)
    ));
    // Another organization is unknown.
    let elsewhere = ListTeamsInput {
        org_id: covenant_runtime::Uuid(uuid::Uuid::new_v4()),
        ..listing(&h)
    };
    assert!(matches!(
        org.list_teams(elsewhere).await.unwrap(),
        ListTeamsResponse::NotFound(_)
    ));
    // The deprecated org key header carries the same keys.
    let deprecated = h.client(&[(AuthScheme::OrgKey, &h.keys.management_key)]);
    assert!(matches!(
        deprecated.list_teams(listing(&h)).await.unwrap(),
        ListTeamsResponse::Ok(_)
    ));
}
