//! Keys after they are made: listing them (never the keys themselves) and revoking them.
//! A revoked key is deleted; the database's auth epoch moves with it (a trigger), so every
//! process drops what it kept of the key within a second, and this one at once.

use crate::ReferenceServer;
use crate::domain::auth::{MANAGEMENT_KEY, ManagementScope, Manager, TEAM_KEY};
use crate::domain::management::{caller, controlled_team};
use crate::infra::clock::wire_time;
use crate::infra::columns;
use crate::infra::failure::Failure;
use crate::infra::store::Tx;
use health_api::models::*;
use health_api::operations::*;

pub async fn list_team_api_keys(
    s: &ReferenceServer,
    manager: &Manager,
    input: ListTeamApiKeysInput,
) -> Result<ApiKeyList, Failure> {
    let (org_id, team_id) = (input.org_id.0.to_string(), input.team_id.0.to_string());
    let scope = caller(manager, &org_id)?;
    let mut tx = s.store.read().await?;
    controlled_team(&mut tx, scope, &org_id, &team_id).await?;
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT id, created_at FROM keys WHERE kind = $1 AND team_id = $2 \
         ORDER BY created_at, id",
    )
    .bind(TEAM_KEY)
    .bind(&team_id)
    .fetch_all(&mut **tx)
    .await?;
    let data = rows
        .into_iter()
        .map(|(id, created_at)| {
            Ok(ApiKeyInfo {
                id: columns::uuid(&id)?,
                team_id: input.team_id,
                created_on: wire_time(created_at),
            })
        })
        .collect::<Result<_, sqlx::Error>>()?;
    Ok(ApiKeyList { data })
}

pub async fn revoke_team_api_key(
    s: &ReferenceServer,
    manager: &Manager,
    input: RevokeTeamApiKeyInput,
) -> Result<SuccessResult, Failure> {
    let (org_id, team_id) = (input.org_id.0.to_string(), input.team_id.0.to_string());
    let key_id = input.key_id.0.to_string();
    let scope = caller(manager, &org_id)?;
    let mut tx = s.store.write().await?;
    controlled_team(&mut tx, scope, &org_id, &team_id).await?;
    let deleted = sqlx::query("DELETE FROM keys WHERE id = $1 AND kind = $2 AND team_id = $3")
        .bind(&key_id)
        .bind(TEAM_KEY)
        .bind(&team_id)
        .execute(&mut **tx)
        .await?;
    if deleted.rows_affected() == 0 {
        return Err(Failure::NotFound(format!("API key {key_id} not found")));
    }
    tx.commit().await?;
    s.auth_changed();
    Ok(SuccessResult { success: true })
}

pub async fn list_management_keys(
    s: &ReferenceServer,
    manager: &Manager,
    input: ListManagementKeysInput,
) -> Result<ManagementKeyList, Failure> {
    let org_id = input.org_id.0.to_string();
    let scope = caller(manager, &org_id)?;
    let mut tx = s.store.read().await?;
    let rows: Vec<(String, Option<String>, i64)> = sqlx::query_as(
        "SELECT id, scope, created_at FROM keys WHERE kind = $1 AND org_id = $2 \
         ORDER BY created_at, id",
    )
    .bind(MANAGEMENT_KEY)
    .bind(&org_id)
    .fetch_all(&mut **tx)
    .await?;
    let mut data = Vec::new();
    for (id, key_scope, created_at) in rows {
        let key = read_management_key(&mut tx, &id, key_scope.as_deref(), created_at).await?;
        if visible_to(scope, &key) {
            data.push(key);
        }
    }
    Ok(ManagementKeyList { data })
}

pub async fn revoke_management_key(
    s: &ReferenceServer,
    manager: &Manager,
    input: RevokeManagementKeyInput,
) -> Result<SuccessResult, Failure> {
    let org_id = input.org_id.0.to_string();
    let key_id = input.key_id.0.to_string();
    let scope = caller(manager, &org_id)?;
    let not_found = || Failure::NotFound(format!("Management key {key_id} not found"));
    let mut tx = s.store.write().await?;
    let row: Option<(Option<String>, i64)> = sqlx::query_as(
        "SELECT scope, created_at FROM keys WHERE id = $1 AND kind = $2 AND org_id = $3",
    )
    .bind(&key_id)
    .bind(MANAGEMENT_KEY)
    .bind(&org_id)
    .fetch_optional(&mut **tx)
    .await?;
    let (key_scope, created_at) = row.ok_or_else(not_found)?;
    let key = read_management_key(&mut tx, &key_id, key_scope.as_deref(), created_at).await?;
    if !visible_to(scope, &key) {
        return Err(not_found());
    }
    sqlx::query("DELETE FROM key_teams WHERE key_id = $1")
        .bind(&key_id)
        .execute(&mut **tx)
        .await?;
    sqlx::query("DELETE FROM keys WHERE id = $1")
        .bind(&key_id)
        .execute(&mut **tx)
        .await?;
    tx.commit().await?;
    s.auth_changed();
    Ok(SuccessResult { success: true })
}

async fn read_management_key(
    tx: &mut Tx,
    id: &str,
    scope: Option<&str>,
    created_at: i64,
) -> Result<ManagementKeyInfo, sqlx::Error> {
    let scope: ManagementKeyScope = columns::stored(scope.unwrap_or_default())?;
    let teams: Vec<String> =
        sqlx::query_scalar("SELECT team_id FROM key_teams WHERE key_id = $1 ORDER BY team_id")
            .bind(id)
            .fetch_all(&mut ***tx)
            .await?;
    Ok(ManagementKeyInfo {
        id: columns::uuid(id)?,
        scope,
        team_ids: teams
            .iter()
            .map(|t| columns::uuid(t))
            .collect::<Result<_, _>>()?,
        created_on: wire_time(created_at),
    })
}

/// An Org Management Key sees every management key of its organization; a Team Management
/// Key sees the team-scoped keys whose teams it all controls, and no org key.
fn visible_to(scope: &ManagementScope, key: &ManagementKeyInfo) -> bool {
    match scope {
        ManagementScope::Org => true,
        ManagementScope::Teams(_) => {
            key.scope == ManagementKeyScope::Team
                && !key.team_ids.is_empty()
                && key
                    .team_ids
                    .iter()
                    .all(|t| scope.controls(&t.0.to_string()))
        }
    }
}
