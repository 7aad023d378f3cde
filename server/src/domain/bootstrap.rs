//! The first start: an organization on the highest plan, a team (bulk operations disabled,
//! as for every team, until enabled), a team API key and an org management key. Later starts find the `bootstrap` row
//! and create nothing.

use crate::domain::auth::{MANAGEMENT_KEY, TEAM_KEY};
use crate::infra::clock::{Clock, to_micros};
use crate::infra::keys::{self, SecretKind};
use crate::infra::store::{Store, is_unique_violation};
use covenant_runtime::credentials::Credentials;

/// The keys of the first start, as shown once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bootstrap {
    pub org_id: String,
    pub team_id: String,
    pub team_api_key: String,
    pub management_key: String,
}

/// What a start found.
#[derive(Debug)]
pub enum Outcome {
    /// The database was empty; these were created (from `reuse` when given).
    Created(Bootstrap),
    /// The database was set up before: its organization and team. The keys were shown then.
    Existing { org_id: String, team_id: String },
}

/// Sets up an empty database. `reuse` carries the keys of an earlier `credentials.json`, so a
/// fresh database behind the same data directory keeps the keys its users already have.
pub async fn run(
    store: &Store,
    clock: &dyn Clock,
    reuse: Option<Bootstrap>,
) -> Result<Outcome, String> {
    let fail = |e: sqlx::Error| format!("cannot set up the database: {e}");
    if let Some(existing) = existing(store).await.map_err(fail)? {
        return Ok(existing);
    }
    let created = reuse.unwrap_or_else(Bootstrap::fresh);
    match create(store, clock, &created).await {
        Ok(()) => Ok(Outcome::Created(created)),
        // Another process set it up first.
        Err(e) if is_unique_violation(&e) => existing(store)
            .await
            .map_err(fail)?
            .ok_or_else(|| "the database was set up concurrently but shows no setup".to_string()),
        Err(e) => Err(fail(e)),
    }
}

async fn existing(store: &Store) -> Result<Option<Outcome>, sqlx::Error> {
    let row: Option<(String, String)> = store
        .autocommit()
        .optional(sqlx::query(
            "SELECT org_id, team_id FROM bootstrap WHERE id = 1",
        ))
        .await?;
    Ok(row.map(|(org_id, team_id)| Outcome::Existing { org_id, team_id }))
}

async fn create(store: &Store, clock: &dyn Clock, b: &Bootstrap) -> Result<(), sqlx::Error> {
    let now = to_micros(clock.now());
    let mut tx = store.write().await?;
    sqlx::query("INSERT INTO bootstrap (id, org_id, team_id, created_at) VALUES (1, $1, $2, $3)")
        .bind(&b.org_id)
        .bind(&b.team_id)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    sqlx::query("INSERT INTO organizations (id, name, plan, created_at) VALUES ($1, $2, $3, $4)")
        .bind(&b.org_id)
        .bind("Local organization")
        .bind(crate::domain::gates::highest_plan())
        .bind(now)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO teams (id, org_id, name, name_folded, region, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&b.team_id)
    .bind(&b.org_id)
    .bind("Local team")
    .bind("local team")
    .bind(health_api::models::Region::Us.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    insert_key(
        &mut tx,
        &b.team_api_key,
        TEAM_KEY,
        &b.org_id,
        Some(&b.team_id),
        None,
        now,
    )
    .await?;
    insert_key(
        &mut tx,
        &b.management_key,
        MANAGEMENT_KEY,
        &b.org_id,
        None,
        Some(crate::domain::gates::org_scope()),
        now,
    )
    .await?;
    tx.commit().await
}

/// Stores a key by its digest.
pub async fn insert_key(
    tx: &mut crate::infra::store::Tx,
    key: &str,
    kind: &str,
    org_id: &str,
    team_id: Option<&str>,
    scope: Option<&str>,
    now: i64,
) -> Result<String, sqlx::Error> {
    let id = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO keys (id, key_hash, kind, org_id, team_id, scope, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&id)
    .bind(keys::digest(key))
    .bind(kind)
    .bind(org_id)
    .bind(team_id)
    .bind(scope)
    .bind(now)
    .execute(&mut ***tx)
    .await?;
    Ok(id)
}

impl Bootstrap {
    /// A new organization and team, with new keys.
    pub fn fresh() -> Bootstrap {
        Bootstrap {
            org_id: uuid::Uuid::new_v4().to_string(),
            team_id: uuid::Uuid::new_v4().to_string(),
            team_api_key: keys::generate(SecretKind::TeamApiKey),
            management_key: keys::generate(SecretKind::ManagementKey),
        }
    }

    /// What `credentials.json` holds for a server at `base_url` with these keys. The
    /// management API is served by the same process, at the same address.
    pub fn credentials(&self, base_url: &str) -> Credentials {
        [
            ("base_url", base_url),
            ("management_url", base_url),
            ("org_id", &self.org_id),
            ("team_id", &self.team_id),
            ("team_api_key", &self.team_api_key),
            ("management_key", &self.management_key),
        ]
        .into_iter()
        .collect()
    }

    /// The keys an earlier `credentials.json` holds, when it holds them all.
    pub fn from_credentials(credentials: &Credentials) -> Option<Bootstrap> {
        let value = |key: &str| credentials.get(key).map(str::to_string);
        Some(Bootstrap {
            org_id: value("org_id")?,
            team_id: value("team_id")?,
            team_api_key: value("team_api_key")?,
            management_key: value("management_key")?,
        })
    }
}
