//! The management API: teams and keys of an organization, within what the caller's
//! management key controls.

use crate::ReferenceServer;
use crate::domain::auth::{MANAGEMENT_KEY, ManagementScope, Manager, TEAM_KEY};
use crate::domain::bootstrap::insert_key;
use crate::infra::clock::{to_micros, wire_time};
use crate::infra::columns;
use crate::infra::failure::{Failure, issue};
use crate::infra::keys::{self, SecretKind};
use crate::infra::query::{Bind, Filter, contains_pattern, decode_cursor, encode_cursor};
use crate::infra::store::Tx;
use covenant_runtime::issue::{IssueKind, LocPart};
use health_api::models::*;
use health_api::operations::*;

const TEAMS_PAGE_SIZE: i64 = 50;

/// The caller's organization and scope, if the path names that organization. Another
/// organization is as unknown as one that does not exist.
pub(crate) fn caller<'p>(
    manager: &'p Manager,
    org_id: &str,
) -> Result<&'p ManagementScope, Failure> {
    if manager.org_id == org_id {
        Ok(&manager.scope)
    } else {
        Err(Failure::NotFound(format!(
            "Organization {org_id} not found"
        )))
    }
}

fn org_level_only(scope: &ManagementScope, action: &str) -> Result<(), Failure> {
    match scope {
        ManagementScope::Org => Ok(()),
        ManagementScope::Teams(_) => Err(Failure::Forbidden(format!(
            "A Team Management Key cannot {action}: it needs an Org Management Key"
        ))),
    }
}

/// A team of the organization that the key controls; other teams are unknown to it.
pub(crate) async fn controlled_team(
    tx: &mut Tx,
    scope: &ManagementScope,
    org_id: &str,
    team_id: &str,
) -> Result<(), Failure> {
    let row = sqlx::query(
        "SELECT 1 AS present FROM teams WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL",
    )
    .bind(team_id)
    .bind(org_id)
    .fetch_optional(&mut ***tx)
    .await?;
    if row.is_none() || !scope.controls(team_id) {
        return Err(Failure::NotFound(format!("Team {team_id} not found")));
    }
    Ok(())
}

pub async fn list_teams(
    s: &ReferenceServer,
    manager: &Manager,
    input: ListTeamsInput,
) -> Result<ListTeamsResult, Failure> {
    let org_id = input.org_id.0.to_string();
    let scope = caller(manager, &org_id)?;
    let after = match input.next_cursor.as_deref().filter(|c| !c.is_empty()) {
        Some(cursor) => Some(parse_team_cursor(cursor).ok_or_else(|| {
            Failure::invalid_query(
                "next_cursor",
                "Not a cursor this service issued",
                IssueKind::Value,
            )
        })?),
        None => None,
    };
    let mut filter = Filter::default();
    let org = filter.placeholder(Bind::Text(org_id.clone()));
    filter.clause(format!("org_id = {org} AND deleted_at IS NULL"));
    if let Some(regions) = &input.region {
        filter.one_of(
            "region",
            regions.iter().map(|r| Bind::Text(r.as_str().to_string())),
        );
    }
    if let Some(search) = input.search_query.as_deref().filter(|q| !q.is_empty()) {
        let pattern = filter.placeholder(Bind::Text(contains_pattern(search)));
        filter.clause(format!("name_folded LIKE {pattern} ESCAPE '\\'"));
    }
    if let ManagementScope::Teams(teams) = scope {
        filter.one_of("id", teams.iter().map(|t| Bind::Text(t.clone())));
    }
    if let Some((at, id)) = after {
        let at = filter.placeholder(Bind::Int(at));
        let id = filter.placeholder(Bind::Text(id));
        filter.clause(format!(
            "(created_at > {at} OR (created_at = {at} AND id > {id}))"
        ));
    }
    let sql = format!(
        "SELECT id, name, created_at, region FROM teams{} ORDER BY created_at, id LIMIT {}",
        filter.sql(),
        TEAMS_PAGE_SIZE + 1
    );
    let rows: Vec<TeamRow> = s
        .store
        .autocommit()
        .all(filter.bind(sqlx::query(&sql)))
        .await?;
    let more = rows.len() as i64 > TEAMS_PAGE_SIZE;
    let mut teams = Vec::new();
    let mut last = None;
    for row in rows.into_iter().take(TEAMS_PAGE_SIZE as usize) {
        teams.push(TeamListItem {
            id: columns::uuid(&row.id)?,
            created_on: wire_time(row.created_at),
            region: columns::stored(&row.region)?,
            name: row.name,
        });
        last = Some(format!("{}:{}", row.created_at, row.id));
    }
    let next_cursor = if more {
        last.map(|p| encode_cursor(&p))
    } else {
        None
    };
    Ok(ListTeamsResult { teams, next_cursor })
}

fn parse_team_cursor(cursor: &str) -> Option<(i64, String)> {
    let text = decode_cursor(cursor)?;
    let (at, id) = text.split_once(':')?;
    Some((at.parse().ok()?, id.parse::<uuid::Uuid>().ok()?.to_string()))
}

pub async fn create_team(
    s: &ReferenceServer,
    manager: &Manager,
    input: CreateTeamInput,
) -> Result<Team, Failure> {
    let org_id = input.org_id.0.to_string();
    org_level_only(caller(manager, &org_id)?, "create teams")?;
    let id = uuid::Uuid::new_v4().to_string();
    let now = to_micros(s.clock.now());
    let features = known_features(input.body.enabled_features.as_deref().unwrap_or_default())?;
    let mut tx = s.store.write().await?;
    sqlx::query(
        "INSERT INTO teams (id, org_id, name, name_folded, region, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
    )
        .bind(&id)
        .bind(&org_id)
        .bind(&input.body.name)
        .bind(input.body.name.to_lowercase())
        .bind(input.body.region.as_str())
        .bind(now)
        .execute(&mut **tx)
        .await?;
    set_features(&mut tx, &id, &features).await?;
    let team = read_team(&mut tx, &id).await?;
    tx.commit().await?;
    s.auth_changed();
    Ok(team)
}

/// Closed enums on the way in: an unknown feature would be stored and never open a gate.
fn known_features(features: &[TeamFeature]) -> Result<Vec<String>, Failure> {
    let mut names = Vec::new();
    for (i, f) in features.iter().enumerate() {
        let name = f.as_str().to_string();
        if !crate::domain::gates::features().contains(&name.as_str()) {
            return Err(Failure::Invalid(vec![issue(
                "body",
                &["enabled_features".into(), i.into()],
                format!(
                    "Unknown feature `{name}`; known: {}",
                    crate::domain::gates::features().join(", ")
                ),
                IssueKind::Enum,
            )]));
        }
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

pub async fn set_features(
    tx: &mut Tx,
    team_id: &str,
    features: &[String],
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM team_features WHERE team_id = $1")
        .bind(team_id)
        .execute(&mut ***tx)
        .await?;
    for feature in features {
        sqlx::query("INSERT INTO team_features (team_id, feature) VALUES ($1, $2)")
            .bind(team_id)
            .bind(feature)
            .execute(&mut ***tx)
            .await?;
    }
    Ok(())
}

async fn read_team(tx: &mut Tx, team_id: &str) -> Result<Team, sqlx::Error> {
    let row: TeamRow =
        sqlx::query_as("SELECT id, name, created_at, region FROM teams WHERE id = $1")
            .bind(team_id)
            .fetch_one(&mut ***tx)
            .await?;
    let features: Vec<String> =
        sqlx::query_scalar("SELECT feature FROM team_features WHERE team_id = $1 ORDER BY feature")
            .bind(team_id)
            .fetch_all(&mut ***tx)
            .await?;
    Ok(Team {
        id: columns::uuid(&row.id)?,
        created_on: wire_time(row.created_at),
        region: columns::stored(&row.region)?,
        enabled_features: features
            .iter()
            .map(|f| columns::stored(f))
            .collect::<Result<Vec<TeamFeature>, _>>()?,
        name: row.name,
    })
}

pub async fn update_team(
    s: &ReferenceServer,
    manager: &Manager,
    input: UpdateTeamInput,
) -> Result<Team, Failure> {
    let org_id = input.org_id.0.to_string();
    let team_id = input.team_id.0.to_string();
    let scope = caller(manager, &org_id)?;
    let features = match &input.body.enabled_features {
        Some(f) => Some(known_features(f)?),
        None => None,
    };
    let mut tx = s.store.write().await?;
    controlled_team(&mut tx, scope, &org_id, &team_id).await?;
    if let Some(name) = &input.body.name {
        sqlx::query("UPDATE teams SET name = $1, name_folded = $2 WHERE id = $3")
            .bind(name)
            .bind(name.to_lowercase())
            .bind(&team_id)
            .execute(&mut **tx)
            .await?;
    }
    if let Some(features) = &features {
        set_features(&mut tx, &team_id, features).await?;
    }
    let team = read_team(&mut tx, &team_id).await?;
    tx.commit().await?;
    s.auth_changed();
    Ok(team)
}

/// Deletes a team (an Org Management Key only): its keys go, management keys stop
/// controlling it, and it leaves the listings, in one transaction. Its users and their data
/// stay in the database, reachable by no key.
pub async fn delete_team(
    s: &ReferenceServer,
    manager: &Manager,
    input: DeleteTeamInput,
) -> Result<SuccessResult, Failure> {
    let (org_id, team_id) = (input.org_id.0.to_string(), input.team_id.0.to_string());
    let scope = caller(manager, &org_id)?;
    let mut tx = s.store.write().await?;
    controlled_team(&mut tx, scope, &org_id, &team_id).await?;
    org_level_only(scope, "delete a team")?;
    let now = to_micros(s.clock.now());
    sqlx::query("UPDATE teams SET deleted_at = $1 WHERE id = $2")
        .bind(now)
        .bind(&team_id)
        .execute(&mut **tx)
        .await?;
    // Its keys, its credentials and features go; its endpoints are sent nothing more.
    for statement in [
        "DELETE FROM key_teams WHERE team_id = $1",
        "DELETE FROM keys WHERE team_id = $1",
        "DELETE FROM team_features WHERE team_id = $1",
        "DELETE FROM team_credentials WHERE team_id = $1",
        "DELETE FROM deliveries WHERE status = 'pending' AND endpoint_id IN \
         (SELECT id FROM webhook_endpoints WHERE team_id = $1)",
        "UPDATE webhook_endpoints SET disabled = 1 WHERE team_id = $1",
    ] {
        sqlx::query(statement)
            .bind(&team_id)
            .execute(&mut **tx)
            .await?;
    }
    // A team-scoped management key that controlled only this team controls nothing now.
    sqlx::query(
        "DELETE FROM keys WHERE kind = $1 AND scope = $2 AND org_id = $3 \
         AND NOT EXISTS (SELECT 1 FROM key_teams kt WHERE kt.key_id = keys.id)",
    )
    .bind(MANAGEMENT_KEY)
    .bind(ManagementKeyScope::Team.as_str())
    .bind(&org_id)
    .execute(&mut **tx)
    .await?;
    tx.commit().await?;
    s.auth_changed();
    Ok(SuccessResult { success: true })
}

/// Sets the team's own OAuth application for a provider; bulk import for it needs one.
pub async fn set_custom_credentials(
    s: &ReferenceServer,
    manager: &Manager,
    input: SetTeamCustomCredentialsInput,
) -> Result<CustomCredentials, Failure> {
    let (org_id, team_id) = (input.org_id.0.to_string(), input.team_id.0.to_string());
    let scope = caller(manager, &org_id)?;
    {
        let mut tx = s.store.read().await?;
        controlled_team(&mut tx, scope, &org_id, &team_id).await?;
    }
    let now = s.clock.now();
    crate::domain::admin::set_custom_credentials(
        &s.store,
        &team_id,
        input.provider.as_str(),
        &input.body.client_id,
        &input.body.client_secret,
        to_micros(now),
    )
    .await?;
    Ok(CustomCredentials {
        provider: input.provider,
        client_id: input.body.client_id,
        updated_on: wire_time(to_micros(now)),
    })
}

pub async fn create_team_api_key(
    s: &ReferenceServer,
    manager: &Manager,
    input: CreateTeamApiKeyInput,
) -> Result<CreatedApiKey, Failure> {
    let org_id = input.org_id.0.to_string();
    let team_id = input.team_id.0.to_string();
    let scope = caller(manager, &org_id)?;
    let key = keys::generate(SecretKind::TeamApiKey);
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    controlled_team(&mut tx, scope, &org_id, &team_id).await?;
    let id = insert_key(&mut tx, &key, TEAM_KEY, &org_id, Some(&team_id), None, now).await?;
    tx.commit().await?;
    Ok(CreatedApiKey {
        id: columns::uuid(&id)?,
        team_id: input.team_id,
        key,
        created_on: wire_time(now),
    })
}

pub async fn create_management_key(
    s: &ReferenceServer,
    manager: &Manager,
    input: CreateManagementKeyInput,
) -> Result<CreatedManagementKey, Failure> {
    let org_id = input.org_id.0.to_string();
    let scope = caller(manager, &org_id)?;
    let team_ids: Vec<String> = input
        .body
        .team_ids
        .iter()
        .flatten()
        .map(|t| t.0.to_string())
        .collect();
    match input.body.scope {
        ManagementKeyScope::Org => {
            org_level_only(scope, "create an Org Management Key")?;
            if input.body.team_ids.is_some() {
                return Err(Failure::invalid_body(
                    &[LocPart::key("team_ids")],
                    "An org-scoped key controls every team: leave team_ids out",
                    IssueKind::Value,
                ));
            }
        }
        ManagementKeyScope::Team if team_ids.is_empty() => {
            return Err(Failure::invalid_body(
                &[LocPart::key("team_ids")],
                "A team-scoped key needs at least one team",
                IssueKind::TooShort,
            ));
        }
        ManagementKeyScope::Team => {}
    }
    let key = keys::generate(SecretKind::ManagementKey);
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    for team_id in &team_ids {
        controlled_team(&mut tx, scope, &org_id, team_id).await?;
    }
    let scope_name = input.body.scope.as_str();
    let id = insert_key(
        &mut tx,
        &key,
        MANAGEMENT_KEY,
        &org_id,
        None,
        Some(scope_name),
        now,
    )
    .await?;
    // The request's order, each team once: the answer reads like what was sent.
    let mut unique: Vec<String> = Vec::with_capacity(team_ids.len());
    for team_id in &team_ids {
        if !unique.contains(team_id) {
            unique.push(team_id.clone());
        }
    }
    for team_id in &unique {
        sqlx::query("INSERT INTO key_teams (key_id, team_id) VALUES ($1, $2)")
            .bind(&id)
            .bind(team_id)
            .execute(&mut **tx)
            .await?;
    }
    tx.commit().await?;
    Ok(CreatedManagementKey {
        id: columns::uuid(&id)?,
        scope: input.body.scope,
        team_ids: unique
            .iter()
            .map(|t| columns::uuid(t))
            .collect::<Result<_, _>>()?,
        key,
        created_on: wire_time(now),
    })
}

/// A team as its listing and its reads see it.
#[derive(sqlx::FromRow)]
struct TeamRow {
    id: String,
    name: String,
    created_at: i64,
    region: String,
}
