//! Bulk import and bulk historical pull: each request is recorded as one persistent operation
//! and answered 202 at once, or 200 when it finishes within the wait. A process runs the
//! operation after recording it, in batches that each hold the writer briefly; an operation
//! whose process stopped is taken up again by the next process to start (its lease runs
//! out), from the batch it stopped at, so accepted work is never lost nor done twice.

use crate::ReferenceServer;
use crate::background::fetches;
use crate::background::fetches::throttle::{self, Allowance};
use crate::domain::events::{Outbox, Subject};
use crate::infra::clock::{to_micros, wire_time};
use crate::infra::columns;
use crate::infra::failure::Failure;
use crate::infra::store::Tx;
use health_api::models::*;
use health_api::operations::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

const IMPORT: BulkOpType = BulkOpType::LinkBulkImport;
const HISTORICAL: BulkOpType = BulkOpType::LinkBulkHistoricalTrigger;
/// A static, so its `as_str` (which borrows the value) lives for the whole program.
static IN_PROGRESS: BulkOpStatus = BulkOpStatus::InProgress;
/// How long a process holds an operation it runs before another may take it up.
const LEASE: chrono::Duration = chrono::Duration::seconds(60);
const DEFAULT_PAGE_SIZE: i64 = 50;
const MAX_PAGE_SIZE: i64 = 100;

/// What a bulk request asked for, kept with the operation.
#[derive(Serialize, Deserialize)]
struct Payload {
    user_ids: Vec<String>,
}

/// What a finished operation found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Outcome {
    done: Vec<String>,
    failed: Vec<String>,
}

pub async fn import(
    s: &Arc<ReferenceServer>,
    team_id: &str,
    body: BulkImportRequest,
) -> Result<BulkImportResponse, Failure> {
    let provider = body.provider.as_str();
    if !has_credentials(s, team_id, provider).await? {
        return Ok(BulkImportResponse::Conflict(ErrorMessage {
            detail: format!(
                "The team has no OAuth application credentials for {provider}: set them \
                 first (PUT /v1/org/{{org_id}}/team/{{team_id}}/custom_credentials/{provider})"
            ),
        }));
    }
    let user_ids = body
        .connections
        .iter()
        .map(|c| c.user_id.0.to_string())
        .collect();
    let op = record(s, team_id, IMPORT, provider, Payload { user_ids }).await?;
    let finished = run_and_wait(s, &op, body.wait_for_completion).await?;
    let result = |o: Outcome| BulkImportResult {
        user_ids_imported: uuids(&o.done),
        user_ids_failed: uuids(&o.failed),
    };
    Ok(match finished {
        Some((_, outcome)) => BulkImportResponse::Ok(result(outcome)),
        None => BulkImportResponse::Accepted(result(Outcome::default())),
    })
}

pub async fn historical_pull(
    s: &Arc<ReferenceServer>,
    team_id: &str,
    body: BulkTriggerHistoricalPullRequest,
) -> Result<BulkTriggerHistoricalPullResponse, Failure> {
    let provider = body.provider.as_str();
    let user_ids = body.user_ids.iter().map(|u| u.0.to_string()).collect();
    let op = record(s, team_id, HISTORICAL, provider, Payload { user_ids }).await?;
    let finished = run_and_wait(s, &op, body.wait_for_completion).await?;
    let result = |o: Outcome, status: BulkOpStatus| BulkPullResult {
        status,
        user_ids_triggered: uuids(&o.done),
        user_ids_failed: uuids(&o.failed),
    };
    Ok(match finished {
        Some((status, outcome)) => BulkTriggerHistoricalPullResponse::Ok(result(outcome, status)),
        None => BulkTriggerHistoricalPullResponse::Accepted(result(
            Outcome::default(),
            BulkOpStatus::InProgress,
        )),
    })
}

/// Whether the team has set its own OAuth application for the provider.
async fn has_credentials(
    s: &ReferenceServer,
    team_id: &str,
    provider: &str,
) -> Result<bool, Failure> {
    let found: Option<(String,)> = s
        .store
        .autocommit()
        .optional(
            sqlx::query(
                "SELECT provider FROM team_credentials WHERE team_id = $1 AND provider = $2",
            )
            .bind(team_id)
            .bind(provider),
        )
        .await?;
    Ok(found.is_some())
}

/// The users of an outcome as the wire types them; the ids were made as UUIDs.
fn uuids(users: &[String]) -> Vec<covenant_runtime::Uuid> {
    users.iter().filter_map(|u| columns::uuid(u).ok()).collect()
}

/// Records the operation; once this commits, the work survives any crash.
async fn record(
    s: &ReferenceServer,
    team_id: &str,
    op_type: BulkOpType,
    provider: &str,
    payload: Payload,
) -> Result<String, Failure> {
    let id = uuid::Uuid::new_v4().to_string();
    let mut tx = s.store.write().await?;
    sqlx::query(
        "INSERT INTO bulk_ops (id, team_id, op_type, status, provider, pending, processed, payload, started_at) \
         VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8)",
    )
    .bind(&id)
    .bind(team_id)
    .bind(op_type.as_str())
    .bind(IN_PROGRESS.as_str())
    .bind(provider)
    .bind(payload.user_ids.len() as i64)
    .bind(columns::json(&payload)?)
    .bind(to_micros(s.clock.now()))
    .execute(&mut **tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// Runs the operation in the background; with `wait`, answers its outcome if it finishes
/// within the wait.
async fn run_and_wait(
    s: &Arc<ReferenceServer>,
    op: &str,
    wait: bool,
) -> Result<Option<(BulkOpStatus, Outcome)>, Failure> {
    let runner = {
        let s = s.clone();
        let op = op.to_string();
        tokio::spawn(async move {
            if let Err(error) = run(&s, &op).await {
                tracing::warn!(%error, op, "bulk operation left for a later run");
            }
        })
    };
    if !wait {
        return Ok(None);
    }
    let _ = tokio::time::timeout(s.bulk_wait, runner).await;
    finished_outcome(s, op).await
}

/// The status the operation ended with and what it found; `None` while it runs.
async fn finished_outcome(
    s: &ReferenceServer,
    op: &str,
) -> Result<Option<(BulkOpStatus, Outcome)>, Failure> {
    let (status, result): (String, Option<String>) = s
        .store
        .autocommit()
        .one(sqlx::query("SELECT status, result FROM bulk_ops WHERE id = $1").bind(op))
        .await?;
    if status == IN_PROGRESS.as_str() {
        return Ok(None);
    }
    let outcome = match result {
        Some(text) => columns::from_json(&text)?,
        None => Outcome::default(),
    };
    Ok(Some((columns::stored(&status)?, outcome)))
}

/// Users a batch handles in one write transaction: small enough that the single SQLite writer
/// is held for milliseconds, so other requests' writes interleave with a large operation.
const BATCH: usize = 200;

/// An operation this process holds the lease of, and where its run stands.
struct Claimed {
    team_id: String,
    op_type: BulkOpType,
    provider: String,
    user_ids: Vec<String>,
    /// Users handled by earlier batches (of this run or of a stopped process's).
    processed: usize,
}

/// Takes the operation's lease and runs it in batches: an import connects each named user of
/// the team to the provider; a historical pull triggers each connected user. Users the team
/// does not have fail. Each batch commits what it did with the progress, so a crash loses
/// nothing and a resumed run does nothing twice.
async fn run(s: &ReferenceServer, op: &str) -> Result<(), sqlx::Error> {
    let Some(claimed) = claim(s, op).await? else {
        return Ok(());
    };
    let mut position = claimed.processed;
    while position < claimed.user_ids.len() {
        let size = match batch_size(s, &claimed).await? {
            Ok(size) => size,
            Err(wait) => {
                // Throttled: hold the lease and look again once the rate allows more.
                if !renew(s, op, position).await? {
                    return Ok(());
                }
                let wait = wait.to_std().unwrap_or_default().min(THROTTLED_LOOK);
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        let end = (position + size).min(claimed.user_ids.len());
        if !run_batch(s, op, &claimed, position..end).await? {
            return Ok(());
        }
        position = end;
        // Let the writers queued behind this batch go first.
        tokio::task::yield_now().await;
    }
    finish(s, op).await
}

/// The longest a throttled operation sleeps before it looks at its rate again.
const THROTTLED_LOOK: std::time::Duration = std::time::Duration::from_secs(1);

/// Users the next batch may handle: [`BATCH`], or fewer when triggering is throttled; the
/// wait when the rate allows none now.
async fn batch_size(
    s: &ReferenceServer,
    claimed: &Claimed,
) -> Result<Result<usize, chrono::Duration>, sqlx::Error> {
    if claimed.op_type == IMPORT {
        return Ok(Ok(BATCH));
    }
    let mut tx = s.store.read().await?;
    let allowed =
        throttle::allowance(&mut tx, &claimed.team_id, &claimed.provider, s.clock.now()).await?;
    Ok(match allowed {
        Allowance::Now(n) => Ok(n.min(BATCH)),
        Allowance::Wait(wait) => Err(wait),
    })
}

/// Holds the operation's lease a while longer; false when another run moved it on.
async fn renew(s: &ReferenceServer, op: &str, position: usize) -> Result<bool, sqlx::Error> {
    let mut tx = s.store.write().await?;
    let renewed = sqlx::query(
        "UPDATE bulk_ops SET lease_until = $1 WHERE id = $2 AND status = $3 AND processed = $4",
    )
    .bind(to_micros(s.clock.now() + LEASE))
    .bind(op)
    .bind(IN_PROGRESS.as_str())
    .bind(position as i64)
    .execute(&mut **tx)
    .await?;
    tx.commit().await?;
    Ok(renewed.rows_affected() == 1)
}

/// The operation's lease, when it is in progress and no live process holds it.
async fn claim(s: &ReferenceServer, op: &str) -> Result<Option<Claimed>, sqlx::Error> {
    let now = s.clock.now();
    let mut tx = s.store.write().await?;
    let claimed: Option<ClaimedRow> = sqlx::query_as(
        "UPDATE bulk_ops SET lease_until = $1 WHERE id = $2 AND status = $3 \
         AND (lease_until IS NULL OR lease_until < $4) \
         RETURNING team_id, op_type, provider, payload, processed",
    )
    .bind(to_micros(now + LEASE))
    .bind(op)
    .bind(IN_PROGRESS.as_str())
    .bind(to_micros(now))
    .fetch_optional(&mut **tx)
    .await?;
    tx.commit().await?;
    let Some(row) = claimed else {
        return Ok(None);
    };
    let payload: Payload = columns::from_json(&row.payload)?;
    Ok(Some(Claimed {
        op_type: columns::stored(&row.op_type)?,
        team_id: row.team_id,
        provider: row.provider,
        user_ids: payload.user_ids,
        processed: usize::try_from(row.processed).unwrap_or(0),
    }))
}

/// What a claim reads of the operation.
#[derive(sqlx::FromRow)]
struct ClaimedRow {
    team_id: String,
    op_type: String,
    provider: String,
    payload: String,
    processed: i64,
}

/// Handles `range` of the users in one transaction, with the progress and a renewed lease.
/// Answers false when another run moved the operation on (this one then stops).
async fn run_batch(
    s: &ReferenceServer,
    op: &str,
    claimed: &Claimed,
    range: std::ops::Range<usize>,
) -> Result<bool, sqlx::Error> {
    let now = s.clock.now();
    let mut tx = s.store.write().await?;
    let advanced = sqlx::query(
        "UPDATE bulk_ops SET processed = $1, pending = $2, lease_until = $3 \
         WHERE id = $4 AND status = $5 AND processed = $6",
    )
    .bind(range.end as i64)
    .bind((claimed.user_ids.len() - range.end) as i64)
    .bind(to_micros(now + LEASE))
    .bind(op)
    .bind(IN_PROGRESS.as_str())
    .bind(range.start as i64)
    .execute(&mut **tx)
    .await?;
    if advanced.rows_affected() != 1 {
        return Ok(false);
    }
    // What an import's connection events need, read once for the batch.
    let importing = match claimed.op_type == IMPORT {
        true => Some((
            Outbox::open(&mut tx, &claimed.team_id).await?,
            ConnectedProvider::read(&mut tx, &claimed.provider).await?,
        )),
        false => None,
    };
    for position in range {
        let user_id = &claimed.user_ids[position];
        let team = &claimed.team_id;
        let succeeded = match &importing {
            Some((outbox, provider)) => {
                connect(&mut tx, outbox, team, user_id, provider, to_micros(now)).await?
            }
            None => {
                fetches::historical::trigger(&mut tx, team, user_id, &claimed.provider, now).await?
            }
        };
        sqlx::query(
            "INSERT INTO bulk_op_items (op_id, position, user_id, succeeded) VALUES ($1, $2, $3, $4)",
        )
        .bind(op)
        .bind(position as i64)
        .bind(user_id)
        .bind(crate::infra::store::flag(succeeded))
        .execute(&mut **tx)
        .await?;
    }
    tx.commit().await?;
    if claimed.op_type != IMPORT {
        s.fetches_owed(crate::background::fetches::Kind::Historical)
            .notify_one();
    }
    Ok(true)
}

/// Ends the operation with the outcome its batches wrote.
async fn finish(s: &ReferenceServer, op: &str) -> Result<(), sqlx::Error> {
    let rows: Vec<(String, i64)> = s
        .store
        .autocommit()
        .all(
            sqlx::query(
                "SELECT user_id, succeeded FROM bulk_op_items WHERE op_id = $1 ORDER BY position",
            )
            .bind(op),
        )
        .await?;
    let mut outcome = Outcome::default();
    for (user_id, succeeded) in rows {
        match succeeded {
            0 => outcome.failed.push(user_id),
            _ => outcome.done.push(user_id),
        }
    }
    let status = if outcome.failed.is_empty() || !outcome.done.is_empty() {
        BulkOpStatus::Success
    } else {
        BulkOpStatus::Failure
    };
    let mut tx = s.store.write().await?;
    sqlx::query(
        "UPDATE bulk_ops SET status = $1, pending = 0, processed = $2, result = $3, \
         ended_at = $4, lease_until = NULL WHERE id = $5 AND status = $6",
    )
    .bind(status.as_str())
    .bind((outcome.done.len() + outcome.failed.len()) as i64)
    .bind(columns::json(&outcome)?)
    .bind(to_micros(s.clock.now()))
    .bind(op)
    .bind(IN_PROGRESS.as_str())
    .execute(&mut **tx)
    .await?;
    tx.commit().await
}

/// Connects the user to the provider, emitting `provider.connection.created` when the
/// connection is new. Answers false when the team has no such user.
pub(crate) async fn connect(
    tx: &mut Tx,
    outbox: &Outbox,
    team_id: &str,
    user_id: &str,
    provider: &ConnectedProvider,
    now: i64,
) -> Result<bool, sqlx::Error> {
    let client_user_id: Option<(String,)> = sqlx::query_as(
        "SELECT client_user_id FROM users WHERE id = $1 AND team_id = $2 AND deleted_at IS NULL",
    )
    .bind(user_id)
    .bind(team_id)
    .fetch_optional(&mut ***tx)
    .await?;
    let Some((client_user_id,)) = client_user_id else {
        return Ok(false);
    };
    let created = sqlx::query(
        "INSERT INTO connections (user_id, provider, created_at) VALUES ($1, $2, $3) \
         ON CONFLICT (user_id, provider) DO NOTHING",
    )
    .bind(user_id)
    .bind(&provider.slug)
    .bind(now)
    .execute(&mut ***tx)
    .await?;
    if created.rows_affected() == 1 {
        let subject = Subject {
            team_id: team_id.to_string(),
            user_id: user_id.to_string(),
            client_user_id,
        };
        outbox
            .emit(tx, &subject, &provider.connection_created(user_id), now)
            .await?;
    }
    Ok(true)
}

/// Runs every operation left in progress by a process that stopped.
pub async fn resume(s: &Arc<ReferenceServer>) -> Result<(), sqlx::Error> {
    for id in stranded(s).await? {
        run(s, &id).await?;
    }
    Ok(())
}

/// How often a process looks for operations another process left: their lease has run out.
const RESUME_LOOK: std::time::Duration = std::time::Duration::from_secs(5);

/// Takes up, for as long as the runtime runs, the operations of processes that stopped
/// (on PostgreSQL, another process's crash is noticed when its lease runs out), each in a
/// task of its own so a long one holds up no other.
pub async fn keep_resuming(s: Arc<ReferenceServer>) {
    loop {
        tokio::time::sleep(RESUME_LOOK).await;
        match stranded(&s).await {
            Ok(ids) => {
                for id in ids {
                    let s = s.clone();
                    tokio::spawn(async move {
                        if let Err(error) = run(&s, &id).await {
                            tracing::warn!(%error, op = id, "bulk operation left for a later run");
                        }
                    });
                }
            }
            Err(error) => tracing::warn!(%error, "cannot look for stranded bulk operations"),
        }
    }
}

/// Operations in progress that no live process holds.
async fn stranded(s: &ReferenceServer) -> Result<Vec<String>, sqlx::Error> {
    let now = to_micros(s.clock.now());
    s.store
        .autocommit()
        .all_values(
            sqlx::query(
                "SELECT id FROM bulk_ops WHERE status = $1 \
                 AND (lease_until IS NULL OR lease_until < $2) ORDER BY seq",
            )
            .bind(IN_PROGRESS.as_str())
            .bind(now),
        )
        .await
}

/// Newest first, a page at a time; the cursor is opaque to callers.
pub async fn list(
    s: &ReferenceServer,
    team_id: &str,
    input: ListBulkOpsInput,
) -> Result<ListBulkOpsResult, Failure> {
    // The deployed client's `page_size` has no stated bounds: sizes out of range are brought
    // into range rather than refused.
    let size = input
        .page_size
        .unwrap_or(DEFAULT_PAGE_SIZE)
        .clamp(1, MAX_PAGE_SIZE);
    let before = crate::infra::query::seq_cursor(input.next_cursor.as_deref())?;
    let rows: Vec<BulkOpRow> = s
        .store
        .autocommit()
        .all(
            sqlx::query(
                "SELECT seq, op_type, status, provider, pending, processed, started_at, ended_at \
         FROM bulk_ops WHERE team_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3",
            )
            .bind(team_id)
            .bind(before)
            .bind(size + 1),
        )
        .await?;
    let more = rows.len() as i64 > size;
    let mut data = Vec::new();
    let mut last_seq = None;
    for row in rows.into_iter().take(size as usize) {
        last_seq = Some(row.seq);
        data.push(BulkOp {
            r#type: columns::stored(&row.op_type)?,
            status: columns::stored(&row.status)?,
            provider: columns::stored(&row.provider)?,
            pending: row.pending,
            processed: row.processed,
            started_at: wire_time(row.started_at),
            ended_at: row.ended_at.map(wire_time),
        });
    }
    let next_cursor = match (more, last_seq) {
        (true, Some(seq)) => Some(crate::infra::query::encode_cursor(&seq.to_string())),
        _ => None,
    };
    Ok(ListBulkOpsResult { data, next_cursor })
}

/// A bulk operation as its listing reads it.
#[derive(sqlx::FromRow)]
struct BulkOpRow {
    seq: i64,
    op_type: String,
    status: String,
    provider: String,
    pending: i64,
    processed: i64,
    started_at: i64,
    ended_at: Option<i64>,
}

/// The provider a connection is made to, as `provider.connection.created` names it.
pub struct ConnectedProvider {
    slug: String,
    name: String,
    logo: String,
}

impl ConnectedProvider {
    /// The catalogue's entry; a provider it lacks is named by its slug alone.
    pub async fn read(tx: &mut Tx, slug: &str) -> Result<ConnectedProvider, sqlx::Error> {
        let row: Option<(String, String)> =
            sqlx::query_as("SELECT name, logo FROM providers WHERE slug = $1")
                .bind(slug)
                .fetch_optional(&mut ***tx)
                .await?;
        let (name, logo) = row.unwrap_or_else(|| (slug.to_string(), String::new()));
        Ok(ConnectedProvider {
            slug: slug.to_string(),
            name,
            logo,
        })
    }

    /// The event's payload: the provider under `provider` and, for consumers not yet moved
    /// to it, under the deprecated `source`, with the user the connection is for.
    pub fn connection_created(&self, user_id: &str) -> health_api::events::Payload {
        let provider = ConnectionProvider {
            extra: serde_json::Map::from_iter([
                ("name".to_string(), self.name.clone().into()),
                ("slug".to_string(), self.slug.clone().into()),
                ("logo".to_string(), self.logo.clone().into()),
            ]),
        };
        #[allow(deprecated)]
        let data = ConnectionCreatedData {
            source: provider.clone(),
            provider,
            extra: serde_json::Map::from_iter([("user_id".to_string(), user_id.into())]),
        };
        health_api::events::Payload::ProviderConnectionCreated { data }
    }
}
