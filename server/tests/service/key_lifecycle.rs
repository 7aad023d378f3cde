//! Keys after they are made, and teams deleted: a revoked or rotated key stops working, and a
//! deleted team's keys with it.

use crate::harness::{Harness, send_as, send_with};
use crate::on_both_backends;
use health_api::models::Region;
use serde_json::{Value, json};

on_both_backends!(
    a_rotated_team_key_leaves_the_old_one_refused,
    a_revoked_management_key_is_refused,
    a_deleted_team_is_gone_with_its_keys,
);

/// A request to the management API with a management key: the status and the body.
async fn manage(h: &Harness, key: &str, method: &str, path: &str, body: &Value) -> (u16, Value) {
    send_with(h, ("X-Management-Key", key), method, path, body).await
}

/// Rotating: make a new key, move to it, revoke the old. The old one is refused at once, the
/// new one works, and listings never show a key itself.
async fn a_rotated_team_key_leaves_the_old_one_refused(h: Harness) {
    let org = &h.keys.org_id;
    let team = &h.keys.team_id;
    let root = h.keys.management_key.clone();
    let old = h.keys.team_api_key.clone();
    let keys_path = format!("/v1/org/{org}/team/{team}/api_key");
    assert_eq!(
        send_as(&h, &old, "GET", "/v2/providers", &Value::Null)
            .await
            .0,
        200
    );
    let (_, listed) = manage(&h, &root, "GET", &keys_path, &Value::Null).await;
    let old_id = listed["data"][0]["id"].as_str().unwrap().to_string();
    assert!(!listed.to_string().contains(&old), "a listing shows no key");
    let (status, created) = manage(&h, &root, "POST", &keys_path, &Value::Null).await;
    assert_eq!(status, 201, "{created}");
    let new = created["key"].as_str().unwrap().to_string();
    let revoke = format!("{keys_path}/{old_id}");
    let (status, body) = manage(&h, &root, "DELETE", &revoke, &Value::Null).await;
    assert_eq!((status, &body), (200, &json!({ "success": true })));
    assert_eq!(
        send_as(&h, &old, "GET", "/v2/providers", &Value::Null)
            .await
            .0,
        401
    );
    assert_eq!(
        send_as(&h, &new, "GET", "/v2/providers", &Value::Null)
            .await
            .0,
        200
    );
    assert_eq!(
        manage(&h, &root, "DELETE", &revoke, &Value::Null).await.0,
        404
    );
    let (_, listed) = manage(&h, &root, "GET", &keys_path, &Value::Null).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(listed["data"][0]["id"], created["id"]);
}

/// A management key revoked by the org key is refused from then on; a team-scoped key sees
/// and revokes only keys of its own teams.
async fn a_revoked_management_key_is_refused(h: Harness) {
    let org = &h.keys.org_id;
    let root = h.keys.management_key.clone();
    let keys_path = format!("/v1/org/{org}/management_key");
    let other = h.new_team("Other", Region::Eu).await;
    let scoped = json!({ "scope": "team", "team_ids": [h.keys.team_id] });
    let (_, mine) = manage(&h, &root, "POST", &keys_path, &scoped).await;
    let scoped_other = json!({ "scope": "team", "team_ids": [other.id] });
    let (_, theirs) = manage(&h, &root, "POST", &keys_path, &scoped_other).await;
    let mine_key = mine["key"].as_str().unwrap().to_string();
    let teams = format!("/v1/org/{org}/team");
    assert_eq!(
        manage(&h, &mine_key, "GET", &teams, &Value::Null).await.0,
        200
    );
    // The team-scoped key sees itself, not the other team's key nor the org key.
    let (_, seen) = manage(&h, &mine_key, "GET", &keys_path, &Value::Null).await;
    let ids: Vec<&Value> = seen["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| &k["id"])
        .collect();
    assert_eq!(ids, vec![&mine["id"]]);
    let theirs_path = format!("{keys_path}/{}", theirs["id"].as_str().unwrap());
    assert_eq!(
        manage(&h, &mine_key, "DELETE", &theirs_path, &Value::Null)
            .await
            .0,
        404
    );
    let mine_path = format!("{keys_path}/{}", mine["id"].as_str().unwrap());
    assert_eq!(
        manage(&h, &root, "DELETE", &mine_path, &Value::Null)
            .await
            .0,
        200
    );
    assert_eq!(
        manage(&h, &mine_key, "GET", &teams, &Value::Null).await.0,
        401
    );
}

/// Deleting a team takes an Org Management Key; its API keys are refused at once and it
/// leaves the listing.
async fn a_deleted_team_is_gone_with_its_keys(h: Harness) {
    let org = &h.keys.org_id;
    let root = h.keys.management_key.clone();
    let doomed = h.new_team("Doomed", Region::Us).await;
    let doomed_key = h.new_team_key(doomed.id).await;
    let scoped = json!({ "scope": "team", "team_ids": [doomed.id] });
    let keys_path = format!("/v1/org/{org}/management_key");
    let (_, team_manager) = manage(&h, &root, "POST", &keys_path, &scoped).await;
    let team_manager = team_manager["key"].as_str().unwrap().to_string();
    let path = format!("/v1/org/{org}/team/{}", doomed.id);
    let (status, body) = manage(&h, &team_manager, "DELETE", &path, &Value::Null).await;
    assert_eq!(status, 403, "a Team Management Key cannot delete: {body}");
    assert_eq!(
        send_as(&h, &doomed_key, "GET", "/v2/providers", &Value::Null)
            .await
            .0,
        200
    );
    let (status, body) = manage(&h, &root, "DELETE", &path, &Value::Null).await;
    assert_eq!((status, &body), (200, &json!({ "success": true })));
    assert_eq!(
        send_as(&h, &doomed_key, "GET", "/v2/providers", &Value::Null)
            .await
            .0,
        401
    );
    let (_, listed) = manage(
        &h,
        &root,
        "GET",
        &format!("/v1/org/{org}/team"),
        &Value::Null,
    )
    .await;
    assert!(
        !listed.to_string().contains(&doomed.id.0.to_string()),
        "{listed}"
    );
    assert_eq!(
        manage(&h, &root, "DELETE", &path, &Value::Null).await.0,
        404
    );
    let rename = json!({ "name": "Back" });
    assert_eq!(manage(&h, &root, "PATCH", &path, &rename).await.0, 404);
    // The other teams are untouched.
    let own = h.keys.team_api_key.clone();
    assert_eq!(
        send_as(&h, &own, "GET", "/v2/providers", &Value::Null)
            .await
            .0,
        200
    );
}
