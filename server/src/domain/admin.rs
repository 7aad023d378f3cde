//! What an operator changes from the command line (`serve --enable-feature`, `--plan`):
//! the same rows the management API changes, so no gate is ever hard-coded.

use crate::ReferenceServer;
use crate::infra::store::Store;

/// Turns a closed-beta feature on or off for a team.
pub async fn set_feature(
    server: &ReferenceServer,
    team_id: &str,
    feature: &str,
    enabled: bool,
) -> Result<(), String> {
    let store = server.store();
    let feature = crate::domain::gates::known_feature(feature)?;
    let fail = |e: sqlx::Error| format!("cannot change feature {feature}: {e}");
    let mut tx = store.write().await.map_err(fail)?;
    let team = sqlx::query("SELECT 1 AS present FROM teams WHERE id = $1")
        .bind(team_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(fail)?;
    if team.is_none() {
        return Err(format!("no team {team_id}"));
    }
    let sql = if enabled {
        "INSERT INTO team_features (team_id, feature) VALUES ($1, $2) ON CONFLICT (team_id, feature) DO NOTHING"
    } else {
        "DELETE FROM team_features WHERE team_id = $1 AND feature = $2"
    };
    sqlx::query(sql)
        .bind(team_id)
        .bind(feature)
        .execute(&mut **tx)
        .await
        .map_err(fail)?;
    tx.commit().await.map_err(fail)?;
    server.auth_changed();
    Ok(())
}

/// Puts an organization on a plan (`highest` opens the management API).
pub async fn set_plan(server: &ReferenceServer, org_id: &str, plan: &str) -> Result<(), String> {
    let store = server.store();
    let fail = |e: sqlx::Error| format!("cannot change the plan: {e}");
    let mut tx = store.write().await.map_err(fail)?;
    let changed = sqlx::query("UPDATE organizations SET plan = $1 WHERE id = $2")
        .bind(plan)
        .bind(org_id)
        .execute(&mut **tx)
        .await
        .map_err(fail)?
        .rows_affected();
    if changed == 0 {
        return Err(format!("no organization {org_id}"));
    }
    tx.commit().await.map_err(fail)?;
    server.auth_changed();
    Ok(())
}

/// The features enabled for a team, by name.
pub async fn features_of(store: &Store, team_id: &str) -> Result<Vec<String>, String> {
    let fail = |e: sqlx::Error| format!("cannot read the features of team {team_id}: {e}");
    let mut tx = store.read().await.map_err(fail)?;
    sqlx::query_scalar("SELECT feature FROM team_features WHERE team_id = $1 ORDER BY feature")
        .bind(team_id)
        .fetch_all(&mut **tx)
        .await
        .map_err(fail)
}

/// Sets a team's own OAuth application credentials for a provider, replacing earlier ones.
pub async fn set_custom_credentials(
    store: &Store,
    team_id: &str,
    provider: &str,
    client_id: &str,
    client_secret: &str,
    now: i64,
) -> Result<(), sqlx::Error> {
    let mut tx = store.write().await?;
    sqlx::query(
        "INSERT INTO team_credentials (team_id, provider, client_id, client_secret, updated_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (team_id, provider) DO UPDATE SET \
         client_id = EXCLUDED.client_id, client_secret = EXCLUDED.client_secret, \
         updated_at = EXCLUDED.updated_at",
    )
    .bind(team_id)
    .bind(provider)
    .bind(client_id)
    .bind(client_secret)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    tx.commit().await
}

/// Gives a team credentials for every bulk-capable provider, as a team that set its own
/// OAuth applications has: for tests, benchmarks and `conform`'s own server.
pub async fn set_every_custom_credential(store: &Store, team_id: &str) -> Result<(), String> {
    for provider in health_api::models::BulkProvider::KNOWN {
        set_custom_credentials(store, team_id, provider, "local-app", "local-secret", 0)
            .await
            .map_err(|e| format!("cannot set the credentials for {provider}: {e}"))?;
    }
    Ok(())
}
