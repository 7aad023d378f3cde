//! Who is calling: credentials become principals, and gates (closed-beta features, plans) are
//! read from the database on every request, so every process of a service agrees.

use crate::clock::{Clock, to_micros};
use crate::keys;
use crate::store::Store;
use covenant_runtime::server::{AuthError, Unavailable};
use health_api::operations::{AuthScheme, Gate};
use sqlx::Row;

/// What an accepted credential identifies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    /// A team API key: the team and its organization.
    Team { team_id: String, org_id: String },
    /// A management key of an organization.
    Management {
        key_id: String,
        org_id: String,
        scope: ManagementScope,
    },
    /// A link token, issued for one user of one team; the request that succeeds with it
    /// uses it up ([`crate::link::use_up`]).
    Link {
        team_id: String,
        user_id: String,
        token_hash: String,
    },
}

/// What a management key controls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManagementScope {
    /// An Org Management Key: the organization and every team in it.
    Org,
    /// A Team Management Key: these teams, and nothing org-level.
    Teams(Vec<String>),
}

impl ManagementScope {
    pub fn controls(&self, team_id: &str) -> bool {
        match self {
            ManagementScope::Org => true,
            ManagementScope::Teams(teams) => teams.iter().any(|t| t == team_id),
        }
    }
}

/// The stored kinds of key.
pub const TEAM_KEY: &str = "team";
pub const MANAGEMENT_KEY: &str = "management";

pub async fn authenticate(
    store: &Store,
    clock: &dyn Clock,
    scheme: AuthScheme,
    credential: &str,
) -> Result<Principal, AuthError> {
    let result = match scheme {
        AuthScheme::TeamApiKey => key_principal(store, credential, TEAM_KEY).await,
        AuthScheme::ManagementKey | AuthScheme::OrgKey => {
            key_principal(store, credential, MANAGEMENT_KEY).await
        }
        AuthScheme::LinkToken => link_token(store, clock, credential).await,
    };
    result.map_err(|error| {
        tracing::error!(%error, "database failure while checking a credential");
        AuthError::Unavailable
    })?
}

/// A key of the wanted kind; a key of the other kind is refused as such (403, not 401).
async fn key_principal(
    store: &Store,
    credential: &str,
    wanted: &str,
) -> Result<Result<Principal, AuthError>, sqlx::Error> {
    // One statement for a team key, the common case; a team-scoped management key reads its
    // teams with a second.
    let row = sqlx::query(
        "SELECT id, key_hash, kind, org_id, team_id, scope FROM keys WHERE key_hash = $1",
    )
    .bind(keys::digest(credential))
    .fetch_optional(store.pool())
    .await?;
    let Some(row) = row else {
        return Ok(Err(AuthError::Unknown));
    };
    let stored: String = row.try_get("key_hash")?;
    if !keys::matches(&stored, credential) {
        return Ok(Err(AuthError::Unknown));
    }
    let kind: String = row.try_get("kind")?;
    if kind != wanted {
        return Ok(Err(AuthError::WrongKind));
    }
    let key_id: String = row.try_get("id")?;
    let org_id: String = row.try_get("org_id")?;
    if kind == TEAM_KEY {
        let team_id: Option<String> = row.try_get("team_id")?;
        return Ok(team_id
            .map(|team_id| Principal::Team { team_id, org_id })
            .ok_or(AuthError::Unknown));
    }
    let scope: Option<String> = row.try_get("scope")?;
    let scope = if scope.as_deref() == Some("org") {
        ManagementScope::Org
    } else {
        let teams = sqlx::query("SELECT team_id FROM key_teams WHERE key_id = $1 ORDER BY team_id")
            .bind(&key_id)
            .fetch_all(store.pool())
            .await?
            .iter()
            .map(|row| row.try_get("team_id"))
            .collect::<Result<Vec<String>, _>>()?;
        ManagementScope::Teams(teams)
    };
    Ok(Ok(Principal::Management {
        key_id,
        org_id,
        scope,
    }))
}

/// A link token not used yet, within its lifetime, whose user is not deleted. Checking it
/// does not use it: the request that succeeds with it does, so a refused request leaves it
/// good for the next.
async fn link_token(
    store: &Store,
    clock: &dyn Clock,
    token: &str,
) -> Result<Result<Principal, AuthError>, sqlx::Error> {
    let token_hash = keys::digest(token);
    let row = sqlx::query(
        "SELECT t.team_id, t.user_id FROM link_tokens t \
         JOIN users u ON u.id = t.user_id AND u.team_id = t.team_id \
         WHERE t.token_hash = $1 AND t.used_at IS NULL AND t.expires_at > $2 \
         AND u.deleted_at IS NULL",
    )
    .bind(&token_hash)
    .bind(to_micros(clock.now()))
    .fetch_optional(store.pool())
    .await?;
    Ok(match row {
        Some(row) => Ok(Principal::Link {
            team_id: row.try_get("team_id")?,
            user_id: row.try_get("user_id")?,
            token_hash,
        }),
        None => Err(AuthError::Unknown),
    })
}

/// Features are enabled per team; plans belong to the organization.
pub async fn gate_open(
    store: &Store,
    principal: Option<&Principal>,
    gate: Gate,
) -> Result<bool, Unavailable> {
    let Some(principal) = principal else {
        return Ok(false);
    };
    let checked = match (gate, principal) {
        (
            Gate::HighestPlan,
            Principal::Management { org_id, .. } | Principal::Team { org_id, .. },
        ) => org_has_plan(store, org_id, "highest").await,
        (Gate::BulkImport | Gate::BulkHistoricalPull, Principal::Team { team_id, .. }) => {
            team_has_feature(store, team_id, gate.name()).await
        }
        _ => Ok(false),
    };
    checked.map_err(|error| {
        tracing::error!(%error, "database failure while checking a gate");
        Unavailable
    })
}

async fn org_has_plan(store: &Store, org_id: &str, plan: &str) -> Result<bool, sqlx::Error> {
    let row = sqlx::query("SELECT plan FROM organizations WHERE id = $1")
        .bind(org_id)
        .fetch_optional(store.pool())
        .await?;
    Ok(match row {
        Some(row) => row.try_get::<String, _>("plan")? == plan,
        None => false,
    })
}

pub async fn team_has_feature(
    store: &Store,
    team_id: &str,
    feature: &str,
) -> Result<bool, sqlx::Error> {
    let row =
        sqlx::query("SELECT 1 AS present FROM team_features WHERE team_id = $1 AND feature = $2")
            .bind(team_id)
            .bind(feature)
            .fetch_optional(store.pool())
            .await?;
    Ok(row.is_some())
}
