//! Who is calling: credentials become principals, and gates (closed-beta features, plans) are
//! read from the database, kept per process until the database says they changed
//! ([`crate::domain::auth::cache`]), so every process of a service agrees within a second.

pub mod cache;

use crate::domain::auth::cache::{AuthCache, KnownKey};
use crate::infra::clock::{Clock, to_micros};
use crate::infra::keys;
use crate::infra::store::Store;
use covenant_runtime::server::{AuthError, Unavailable};
use health_api::operations::Gate;

/// What a team API key identifies: the team and its organization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Team {
    pub team_id: String,
    pub org_id: String,
}

/// What a management key identifies: the key, its organization and what it controls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manager {
    pub key_id: String,
    pub org_id: String,
    pub scope: ManagementScope,
}

/// What a link token identifies: one user of one team. The request that succeeds with it
/// uses it up (`link::use_up`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkGrant {
    pub team_id: String,
    pub user_id: String,
    pub token_hash: String,
}

/// What a stored key identifies: a team key's team or a management key's manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyHolder {
    Team(Team),
    Manager(Manager),
}

/// Whose gates a caller meets: its organization's plan, and its team's features when a
/// team key called.
#[derive(Clone, Copy, Debug)]
pub struct GateSubject<'a> {
    pub org_id: &'a str,
    pub team_id: Option<&'a str>,
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

/// A team API key's team; a management key is a key of the wrong kind (403).
pub async fn team_key(
    store: &Store,
    cache: &AuthCache,
    credential: &str,
) -> Result<Team, AuthError> {
    match checked(key_holder(store, cache, credential).await)? {
        KeyHolder::Team(team) => Ok(team),
        KeyHolder::Manager(_) => Err(AuthError::WrongKind),
    }
}

/// A management key's manager, under either of its headers; a team key is a key of the wrong
/// kind (403).
pub async fn management_key(
    store: &Store,
    cache: &AuthCache,
    credential: &str,
) -> Result<Manager, AuthError> {
    match checked(key_holder(store, cache, credential).await)? {
        KeyHolder::Manager(manager) => Ok(manager),
        KeyHolder::Team(_) => Err(AuthError::WrongKind),
    }
}

/// A link token's grant (see [`link_token`]).
pub async fn link_grant(
    store: &Store,
    clock: &dyn Clock,
    credential: &str,
) -> Result<LinkGrant, AuthError> {
    checked(link_token(store, clock, credential).await)
}

/// A database failure while checking a credential: 503 when it is passing, else a fault.
fn checked<T>(result: Result<Result<T, AuthError>, sqlx::Error>) -> Result<T, AuthError> {
    result.map_err(|error| {
        if crate::infra::failure::is_transient(&error) {
            tracing::warn!(%error, "database unavailable while checking a credential");
            AuthError::Unavailable
        } else {
            tracing::error!(%error, "service fault while checking a credential");
            AuthError::Fault
        }
    })?
}

/// The holder of a stored key, from the cache or the database.
async fn key_holder(
    store: &Store,
    cache: &AuthCache,
    credential: &str,
) -> Result<Result<KeyHolder, AuthError>, sqlx::Error> {
    let digest = keys::digest(credential);
    let began = cache.fresh(store).await?;
    Ok(match cache.key(&digest) {
        Some(known) => Ok(known.holder),
        None => match read_key(store, credential, &digest).await? {
            Some(known) => {
                cache.keep_key(began, digest, known.clone());
                Ok(known.holder)
            }
            None => Err(AuthError::Unknown),
        },
    })
}

/// A stored key, as the `keys` table holds it.
#[derive(sqlx::FromRow)]
struct KeyRow {
    id: String,
    key_hash: String,
    kind: String,
    org_id: String,
    team_id: Option<String>,
    scope: Option<String>,
}

/// The key with this digest and what it identifies; `None` when no key matches.
async fn read_key(
    store: &Store,
    credential: &str,
    digest: &str,
) -> Result<Option<KnownKey>, sqlx::Error> {
    // One statement for a team key, the common case; a team-scoped management key reads its
    // teams with a second.
    let row: Option<KeyRow> = store
        .autocommit()
        .optional(
            sqlx::query(
                // A deleted team's key is no key, even one made while it was being deleted.
                "SELECT k.id, k.key_hash, k.kind, k.org_id, k.team_id, k.scope FROM keys k \
                 LEFT JOIN teams t ON t.id = k.team_id \
                 WHERE k.key_hash = $1 AND (k.team_id IS NULL OR t.deleted_at IS NULL)",
            )
            .bind(digest),
        )
        .await?;
    let Some(row) = row.filter(|row| keys::matches(&row.key_hash, credential)) else {
        return Ok(None);
    };
    let holder = if row.kind == TEAM_KEY {
        let Some(team_id) = row.team_id else {
            return Ok(None);
        };
        KeyHolder::Team(Team {
            team_id,
            org_id: row.org_id,
        })
    } else if row.kind != MANAGEMENT_KEY {
        // A kind of key this server does not issue is no key.
        return Ok(None);
    } else {
        let scope = if row.scope.as_deref() == Some(crate::domain::gates::org_scope()) {
            ManagementScope::Org
        } else {
            let teams: Vec<String> = store
                .autocommit()
                .all_values(
                    sqlx::query(
                        "SELECT kt.team_id FROM key_teams kt JOIN teams t ON t.id = kt.team_id \
                         WHERE kt.key_id = $1 AND t.deleted_at IS NULL ORDER BY kt.team_id",
                    )
                    .bind(&row.id),
                )
                .await?;
            ManagementScope::Teams(teams)
        };
        KeyHolder::Manager(Manager {
            key_id: row.id,
            org_id: row.org_id,
            scope,
        })
    };
    Ok(Some(KnownKey { holder }))
}

/// A link token not used yet, within its lifetime, whose user is not deleted. Checking it
/// does not use it: the request that succeeds with it does, so a refused request leaves it
/// good for the next.
async fn link_token(
    store: &Store,
    clock: &dyn Clock,
    token: &str,
) -> Result<Result<LinkGrant, AuthError>, sqlx::Error> {
    let token_hash = keys::digest(token);
    let row: Option<(String, String)> = store
        .autocommit()
        .optional(
            sqlx::query(
                "SELECT t.team_id, t.user_id FROM link_tokens t \
         JOIN users u ON u.id = t.user_id AND u.team_id = t.team_id \
         JOIN teams tm ON tm.id = t.team_id AND tm.deleted_at IS NULL \
         WHERE t.token_hash = $1 AND t.used_at IS NULL AND t.expires_at > $2 \
         AND u.deleted_at IS NULL",
            )
            .bind(&token_hash)
            .bind(to_micros(clock.now())),
        )
        .await?;
    Ok(match row {
        Some((team_id, user_id)) => Ok(LinkGrant {
            team_id,
            user_id,
            token_hash,
        }),
        None => Err(AuthError::Unknown),
    })
}

/// Features are enabled per team; plans belong to the organization. Answers are kept with
/// the principals ([`crate::domain::auth::cache`]).
pub async fn gate_open(
    store: &Store,
    cache: &AuthCache,
    caller: Option<GateSubject<'_>>,
    gate: Gate,
) -> Result<bool, Unavailable> {
    let subject = match (gate, caller) {
        (Gate::HighestPlan, Some(caller)) => caller.org_id,
        (Gate::BulkImport | Gate::BulkHistoricalPull, Some(caller)) => match caller.team_id {
            Some(team_id) => team_id,
            None => return Ok(false),
        },
        _ => return Ok(false),
    };
    cached_gate(store, cache, gate, subject)
        .await
        .map_err(|error| {
            tracing::error!(%error, "database failure while checking a gate");
            Unavailable
        })
}

async fn cached_gate(
    store: &Store,
    cache: &AuthCache,
    gate: Gate,
    subject: &str,
) -> Result<bool, sqlx::Error> {
    let began = cache.fresh(store).await?;
    if let Some(open) = cache.gate(gate.name(), subject) {
        return Ok(open);
    }
    let open = match gate {
        Gate::HighestPlan => org_has_plan(store, subject, gate.name()).await?,
        Gate::BulkImport | Gate::BulkHistoricalPull => {
            team_has_feature(store, subject, gate.name()).await?
        }
    };
    cache.keep_gate(began, gate.name(), subject, open);
    Ok(open)
}

async fn org_has_plan(store: &Store, org_id: &str, plan: &str) -> Result<bool, sqlx::Error> {
    let stored: Option<String> = store
        .autocommit()
        .optional_value(sqlx::query("SELECT plan FROM organizations WHERE id = $1").bind(org_id))
        .await?;
    Ok(stored.as_deref() == Some(plan))
}

pub async fn team_has_feature(
    store: &Store,
    team_id: &str,
    feature: &str,
) -> Result<bool, sqlx::Error> {
    let present: Option<i64> = store
        .autocommit()
        .optional_value(
            sqlx::query(
                "SELECT 1 AS present FROM team_features WHERE team_id = $1 AND feature = $2",
            )
            .bind(team_id)
            .bind(feature),
        )
        .await?;
    Ok(present.is_some())
}
