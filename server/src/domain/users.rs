//! Users: create (a repeated `client_user_id` answers the conflict naming the first user),
//! read, resolve, settings, refresh, and deletion into a grace period that can be undone.

use crate::ReferenceServer;
use crate::infra::clock::{Clock, to_micros, wire_time};
use crate::infra::columns;
use crate::infra::failure::{Failure, issue};
use crate::infra::store::{Store, Tx, is_unique_violation};
use crate::infra::user_cache::Lookup;
use covenant_runtime::Tristate;
use covenant_runtime::issue::{Issue, IssueKind, LocPart};
use health_api::models::*;
use health_api::operations::*;

/// The deletion grace period of the document.
pub const GRACE_PERIOD: chrono::Duration =
    chrono::Duration::seconds(health_api::limits::DELETION_GRACE_PERIOD.as_secs() as i64);
/// `source_slug` of settings made through the API.
const API_SOURCE: &str = "manual";

/// The statement reading a user and its connected sources, one row per source (one row when
/// it has none), for a `WHERE` clause: one statement answers a read. Built at compile time,
/// so a read allocates no SQL.
macro_rules! select_user_where {
    ($condition:literal) => {
        concat!(
            "SELECT u.id, u.team_id, u.client_user_id, u.created_at, u.time_zone, ",
            "u.time_zone_source, u.time_zone_updated_at, u.birth_date, u.birth_date_source, ",
            "u.birth_date_updated_at, u.ingestion_start, u.ingestion_end, ",
            "c.provider AS connected_provider, c.created_at AS connected_at, ",
            "p.name AS provider_name, p.logo AS provider_logo ",
            "FROM users u LEFT JOIN connections c ON c.user_id = u.id ",
            "LEFT JOIN providers p ON p.slug = c.provider WHERE ",
            $condition,
            " ORDER BY c.created_at, c.provider"
        )
    };
}

/// A row of [`select_user_where!`]: the user, and one of its connected sources (none when
/// it has none).
#[derive(sqlx::FromRow)]
struct UserRow {
    id: String,
    team_id: String,
    client_user_id: String,
    created_at: i64,
    time_zone: Option<String>,
    time_zone_source: Option<String>,
    time_zone_updated_at: Option<i64>,
    birth_date: Option<String>,
    birth_date_source: Option<String>,
    birth_date_updated_at: Option<i64>,
    ingestion_start: Option<String>,
    ingestion_end: Option<String>,
    connected_provider: Option<String>,
    connected_at: Option<i64>,
    provider_name: Option<String>,
    provider_logo: Option<String>,
}

/// The instant before which a pending deletion has become final.
fn grace_cutoff(clock: &dyn Clock) -> i64 {
    to_micros(clock.now() - GRACE_PERIOD)
}

pub async fn create(
    s: &ReferenceServer,
    team_id: &str,
    body: CreateUserRequest,
) -> Result<CreateUserResponse, Failure> {
    let mut problems = Vec::new();
    if let Some(tz) = &body.fallback_time_zone {
        problems.extend(unknown_time_zone(tz));
    }
    if !problems.is_empty() {
        return Err(Failure::Invalid(problems));
    }
    let now = to_micros(s.clock.now());
    let setting = |set: bool| {
        if set {
            (Some(API_SOURCE), Some(now))
        } else {
            (None, None)
        }
    };
    let (tz_source, tz_at) = setting(body.fallback_time_zone.is_some());
    let (birth_source, birth_at) = setting(body.fallback_birth_date.is_some());
    let user = NewUser {
        id: uuid::Uuid::new_v4().to_string(),
        team_id: team_id.to_string(),
        client_user_id: body.client_user_id.clone(),
        created_at: now,
        time_zone: body.fallback_time_zone.clone(),
        time_zone_source: tz_source,
        time_zone_updated_at: tz_at,
        birth_date: body.fallback_birth_date.as_ref().map(columns::date_text),
        birth_date_source: birth_source,
        birth_date_updated_at: birth_at,
        ingestion_start: body.ingestion_start.as_ref().map(columns::date_text),
        ingestion_end: body.ingestion_end.as_ref().map(columns::date_text),
    };
    let created = || {
        Ok(CreateUserResponse::Ok(CreateUserResult {
            user_id: columns::uuid(&user.id)?,
            client_user_id: body.client_user_id.clone(),
        }))
    };
    // The common case is one statement, its own transaction. The unique constraint decides
    // between concurrent creates; the loser sees no row. Dropped mid-statement (its client
    // gone), the insert may land after the writer's turn is given back: it adds a user no
    // read has kept (absent users are never kept), and a writer meeting it waits in SQLite's
    // busy handler.
    {
        let _turn = s.store.writer_turn().await?;
        let inserted: Option<(String,)> = s.store.autocommit().optional(user.insert()).await?;
        if inserted.is_some() {
            return created();
        }
    }
    // Taken: by a user whose grace period has ended (forgotten now, and the insert is tried
    // again), or by a user that holds it (the conflict).
    let mut tx = s.store.write().await?;
    forget_expired(
        &mut tx,
        team_id,
        &body.client_user_id,
        grace_cutoff(&*s.clock),
    )
    .await?;
    if user.insert().fetch_optional(&mut **tx).await?.is_none() {
        let conflict = conflict_with(&mut tx, team_id, &body.client_user_id).await?;
        return Ok(CreateUserResponse::BadRequest(conflict));
    }
    tx.commit().await?;
    created()
}

/// A user's row as created.
struct NewUser {
    id: String,
    team_id: String,
    client_user_id: String,
    created_at: i64,
    time_zone: Option<String>,
    time_zone_source: Option<&'static str>,
    time_zone_updated_at: Option<i64>,
    birth_date: Option<String>,
    birth_date_source: Option<&'static str>,
    birth_date_updated_at: Option<i64>,
    ingestion_start: Option<String>,
    ingestion_end: Option<String>,
}

impl NewUser {
    /// Inserts unless the `client_user_id` is taken in the team; returns the id when inserted.
    fn insert(&self) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
        sqlx::query(
            "INSERT INTO users (id, team_id, client_user_id, created_at, time_zone, time_zone_source, \
             time_zone_updated_at, birth_date, birth_date_source, birth_date_updated_at, \
             ingestion_start, ingestion_end) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
             ON CONFLICT (team_id, client_user_id) DO NOTHING RETURNING id",
        )
        .bind(&self.id)
        .bind(&self.team_id)
        .bind(&self.client_user_id)
        .bind(self.created_at)
        .bind(&self.time_zone)
        .bind(self.time_zone_source)
        .bind(self.time_zone_updated_at)
        .bind(&self.birth_date)
        .bind(self.birth_date_source)
        .bind(self.birth_date_updated_at)
        .bind(&self.ingestion_start)
        .bind(&self.ingestion_end)
    }
}

/// A user whose grace period has ended is gone: it no longer holds its `client_user_id`.
async fn forget_expired(
    tx: &mut Tx,
    team_id: &str,
    client_user_id: &str,
    cutoff: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM users WHERE team_id = $1 AND client_user_id = $2 \
         AND deleted_at IS NOT NULL AND deleted_at <= $3",
    )
    .bind(team_id)
    .bind(client_user_id)
    .bind(cutoff)
    .execute(&mut ***tx)
    .await?;
    Ok(())
}

/// The conflict naming the user that holds a `client_user_id` (a user pending deletion
/// holds it too, so undoing that deletion can never meet a second user).
async fn conflict_with(
    tx: &mut Tx,
    team_id: &str,
    client_user_id: &str,
) -> Result<UserConflictError, Failure> {
    let (id, created_at): (String, i64) = sqlx::query_as(
        "SELECT id, created_at FROM users WHERE team_id = $1 AND client_user_id = $2",
    )
    .bind(team_id)
    .bind(client_user_id)
    .fetch_one(&mut ***tx)
    .await?;
    Ok(UserConflictError {
        detail: UserConflict {
            error_type: "INVALID_REQUEST".to_string(),
            error_message: format!(
                "Client user id {client_user_id} already belongs to a user of this team"
            ),
            user_id: columns::uuid(&id)?,
            created_on: wire_time(created_at),
        },
    })
}

pub async fn get(s: &ReferenceServer, team_id: &str, user_id: &str) -> Result<User, Failure> {
    let lookup = Lookup::Id(user_id.to_string());
    let read = read_user(
        s,
        team_id,
        lookup,
        select_user_where!("u.id = $1 AND u.team_id = $2 AND u.deleted_at IS NULL"),
        user_id,
    );
    read.await?.ok_or_else(|| user_not_found(user_id))
}

pub async fn resolve(
    s: &ReferenceServer,
    team_id: &str,
    client_user_id: &str,
) -> Result<User, Failure> {
    let lookup = Lookup::ClientUserId(client_user_id.to_string());
    let read = read_user(
        s,
        team_id,
        lookup,
        select_user_where!("u.client_user_id = $1 AND u.team_id = $2 AND u.deleted_at IS NULL"),
        client_user_id,
    );
    read.await?
        .ok_or_else(|| Failure::NotFound(format!("No user with client user id {client_user_id}")))
}

/// A visible user of the team, from the user cache when it has it; `sql` selects by `$1`
/// (the lookup's value) and `$2` (the team).
async fn read_user(
    s: &ReferenceServer,
    team_id: &str,
    lookup: Lookup,
    sql: &'static str,
    value: &str,
) -> Result<Option<User>, Failure> {
    let cache = &s.users;
    let key = (team_id.to_string(), lookup);
    if let Some(user) = cache.get(&key) {
        return Ok(Some(user));
    }
    let began = cache.ticket();
    let rows: Vec<UserRow> = s
        .store
        .autocommit()
        .all(sqlx::query(sql).bind(value).bind(team_id))
        .await?;
    let user = user_from_rows(&rows)?;
    if let Some(user) = &user {
        cache.keep(began, key, user.clone());
    }
    Ok(user)
}

pub fn user_not_found(user_id: &str) -> Failure {
    Failure::NotFound(format!("User {user_id} not found"))
}

/// Whether a user is visible to a team: the team's own, and not pending deletion. Another
/// team's user is as unknown as one that never existed.
pub async fn ensure_visible(tx: &mut Tx, team_id: &str, user_id: &str) -> Result<(), Failure> {
    let row = sqlx::query(
        "SELECT 1 AS visible FROM users WHERE id = $1 AND team_id = $2 AND deleted_at IS NULL",
    )
    .bind(user_id)
    .bind(team_id)
    .fetch_optional(&mut ***tx)
    .await?;
    match row {
        Some(_) => Ok(()),
        None => Err(user_not_found(user_id)),
    }
}

fn user_from_rows(rows: &[UserRow]) -> Result<Option<User>, sqlx::Error> {
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let setting_source =
        |source: &Option<String>| source.clone().unwrap_or_else(|| API_SOURCE.to_string());
    let fallback_time_zone = row.time_zone.as_ref().map(|id| FallbackTimeZone {
        id: id.clone(),
        source_slug: setting_source(&row.time_zone_source),
        updated_at: wire_time(row.time_zone_updated_at.unwrap_or(row.created_at)),
    });
    let fallback_birth_date = match &row.birth_date {
        Some(value) => Some(FallbackBirthDate {
            value: columns::date(value)?,
            source_slug: setting_source(&row.birth_date_source),
            updated_at: wire_time(row.birth_date_updated_at.unwrap_or(row.created_at)),
        }),
        None => None,
    };
    Ok(Some(User {
        user_id: columns::uuid(&row.id)?,
        team_id: columns::uuid(&row.team_id)?,
        client_user_id: row.client_user_id.clone(),
        created_on: wire_time(row.created_at),
        connected_sources: connected_sources(rows),
        fallback_time_zone,
        fallback_birth_date,
        ingestion_start: optional_date(row.ingestion_start.as_deref())?,
        ingestion_end: optional_date(row.ingestion_end.as_deref())?,
    }))
}

fn optional_date(text: Option<&str>) -> Result<Tristate<covenant_runtime::Date>, sqlx::Error> {
    Ok(match text {
        Some(text) => Tristate::Value(columns::date(text)?),
        None => Tristate::Null,
    })
}

fn connected_sources(rows: &[UserRow]) -> Vec<ConnectedSource> {
    let mut sources = Vec::new();
    for row in rows {
        let Some(slug) = row.connected_provider.clone() else {
            continue;
        };
        let summary = SourceSummary {
            name: row.provider_name.clone().unwrap_or_else(|| slug.clone()),
            logo: row.provider_logo.clone().unwrap_or_default(),
            slug,
        };
        #[allow(deprecated)]
        sources.push(ConnectedSource {
            created_on: wire_time(row.connected_at.unwrap_or(row.created_at)),
            source: summary.clone(),
            provider: summary,
        });
    }
    sources
}

/// Absent leaves a setting, null clears it, a value sets it; a null `client_user_id` leaves
/// it as it is, since every user has one.
pub async fn update(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
    body: UpdateUserRequest,
) -> Result<UpdateUserResponse, Failure> {
    let mut problems = Vec::new();
    if let Tristate::Value(tz) = &body.fallback_time_zone {
        problems.extend(unknown_time_zone(tz));
    }
    if !problems.is_empty() {
        return Err(Failure::Invalid(problems));
    }
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    let mut assignments: Vec<(&str, Option<String>)> = Vec::new();
    let mut instants: Vec<(&str, Option<i64>)> = Vec::new();
    match &body.fallback_time_zone {
        Tristate::Absent => {}
        Tristate::Null => {
            assignments.push(("time_zone", None));
            assignments.push(("time_zone_source", None));
            instants.push(("time_zone_updated_at", None));
        }
        Tristate::Value(tz) => {
            assignments.push(("time_zone", Some(tz.clone())));
            assignments.push(("time_zone_source", Some(API_SOURCE.to_string())));
            instants.push(("time_zone_updated_at", Some(now)));
        }
    }
    match &body.fallback_birth_date {
        Tristate::Absent => {}
        Tristate::Null => {
            assignments.push(("birth_date", None));
            assignments.push(("birth_date_source", None));
            instants.push(("birth_date_updated_at", None));
        }
        Tristate::Value(date) => {
            assignments.push(("birth_date", Some(columns::date_text(date))));
            assignments.push(("birth_date_source", Some(API_SOURCE.to_string())));
            instants.push(("birth_date_updated_at", Some(now)));
        }
    }
    for (column, value) in [
        ("ingestion_start", &body.ingestion_start),
        ("ingestion_end", &body.ingestion_end),
    ] {
        match value {
            Tristate::Absent => {}
            Tristate::Null => assignments.push((column, None)),
            Tristate::Value(date) => assignments.push((column, Some(columns::date_text(date)))),
        }
    }
    if let Tristate::Value(client_user_id) = &body.client_user_id {
        forget_expired(&mut tx, team_id, client_user_id, grace_cutoff(&*s.clock)).await?;
        assignments.push(("client_user_id", Some(client_user_id.clone())));
    }
    if !assignments.is_empty() {
        let mut sql = String::from("UPDATE users SET ");
        let mut n = 0;
        for (column, _) in &assignments {
            n += 1;
            sql.push_str(&format!("{column} = ${n}, "));
        }
        for (column, _) in &instants {
            n += 1;
            sql.push_str(&format!("{column} = ${n}, "));
        }
        sql.truncate(sql.len() - 2);
        sql.push_str(&format!(" WHERE id = ${} AND team_id = ${}", n + 1, n + 2));
        let mut query = sqlx::query(&sql);
        for (_, value) in &assignments {
            query = query.bind(value.clone());
        }
        for (_, value) in &instants {
            query = query.bind(*value);
        }
        let updated = query.bind(user_id).bind(team_id).execute(&mut **tx).await;
        match updated {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => {
                drop(tx);
                let client_user_id = body.client_user_id.value().cloned().unwrap_or_default();
                let mut tx = s.store.read().await?;
                let conflict = conflict_with(&mut tx, team_id, &client_user_id).await?;
                return Ok(UpdateUserResponse::BadRequest(conflict));
            }
            Err(e) => return Err(e.into()),
        }
    }
    let rows = sqlx::query_as::<_, UserRow>(select_user_where!("u.id = $1"))
        .bind(user_id)
        .fetch_all(&mut **tx)
        .await?;
    let user = user_from_rows(&rows)?.ok_or_else(|| user_not_found(user_id))?;
    tx.commit().await?;
    let body = serde_json::to_value(&user)?;
    Ok(UpdateUserResponse::Ok(body))
}

/// The time zone is checked against the tz database itself, not only its spelling.
fn unknown_time_zone(tz: &str) -> Option<Issue> {
    match tz.parse::<chrono_tz::Tz>() {
        Ok(_) => None,
        Err(_) => Some(issue(
            "body",
            &[LocPart::key("fallback_time_zone")],
            format!(
                "`{}` is not a time zone of the IANA tz database",
                crate::infra::failure::quoted(tz)
            ),
            IssueKind::Value,
        )),
    }
}

pub async fn delete(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
) -> Result<SuccessResult, Failure> {
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    let deleted = sqlx::query(
        "UPDATE users SET deleted_at = $1 WHERE id = $2 AND team_id = $3 AND deleted_at IS NULL",
    )
    .bind(now)
    .bind(user_id)
    .bind(team_id)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if deleted == 0 {
        return Err(user_not_found(user_id));
    }
    tx.commit().await?;
    Ok(SuccessResult { success: true })
}

/// Cancels a pending deletion within the grace period. A user that is not pending deletion
/// needs no cancelling: the answer is success, so a retried undo is harmless.
pub async fn undo_delete(
    s: &ReferenceServer,
    team_id: &str,
    input: UndoDeleteUserInput,
) -> Result<SuccessResult, Failure> {
    let (column, value, what) = match (&input.user_id, &input.client_user_id) {
        (Some(id), None) => ("id", id.0.to_string(), format!("User {}", id.0)),
        (None, Some(client)) => (
            "client_user_id",
            client.clone(),
            format!("User with client user id {client}"),
        ),
        // The router checks exactly-one-of before the call.
        _ => {
            return Err(Failure::invalid_query(
                "user_id",
                "Send exactly one of user_id and client_user_id",
                IssueKind::Value,
            ));
        }
    };
    let mut tx = s.store.write().await?;
    let row: Option<(String, Option<i64>)> = sqlx::query_as(&format!(
        "SELECT id, deleted_at FROM users WHERE team_id = $1 AND {column} = $2"
    ))
    .bind(team_id)
    .bind(&value)
    .fetch_optional(&mut **tx)
    .await?;
    let Some((id, deleted_at)) = row else {
        return Err(Failure::NotFound(format!("{what} not found")));
    };
    match deleted_at {
        None => Ok(SuccessResult { success: true }),
        Some(at) if at <= grace_cutoff(&*s.clock) => Err(Failure::NotFound(format!(
            "{what} not found: its deletion grace period has ended"
        ))),
        Some(_) => {
            sqlx::query("UPDATE users SET deleted_at = NULL WHERE id = $1")
                .bind(id)
                .execute(&mut **tx)
                .await?;
            tx.commit().await?;
            Ok(SuccessResult { success: true })
        }
    }
}

/// Users past their grace period are removed for good, with everything that hangs off them.
pub async fn purge_expired(store: &Store, clock: &dyn Clock) -> Result<u64, sqlx::Error> {
    let mut tx = store.write().await?;
    let purged = sqlx::query("DELETE FROM users WHERE deleted_at IS NOT NULL AND deleted_at <= $1")
        .bind(grace_cutoff(clock))
        .execute(&mut **tx)
        .await?
        .rows_affected();
    tx.commit().await?;
    Ok(purged)
}
