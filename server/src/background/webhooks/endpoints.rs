//! The webhook management API: a team's endpoints, their secrets, and the attempts made to
//! deliver to them.

use crate::ReferenceServer;
use crate::infra::clock::{to_micros, wire_time};
use crate::infra::columns;
use crate::infra::failure::{Failure, quoted};
use crate::infra::query::{encode_cursor, seq_cursor};
use crate::infra::store::{Backend, Tx, flag};
use covenant_runtime::issue::{Issue, IssueKind, LocPart};
use covenant_runtime::webhooks::WebhookSecret as Key;
use covenant_runtime::{Tristate, Uuid};
use health_api::limits::{
    WEBHOOK_ENDPOINTS_PER_TEAM, WEBHOOK_HEADER_BYTES, WEBHOOK_HEADERS_PER_ENDPOINT,
};
use health_api::models::*;
use health_api::operations::*;
use std::collections::BTreeMap;

/// After a rotation, the old secret signs beside the new one this long (the spec's promise).
pub const ROTATION_OVERLAP: chrono::Duration = chrono::Duration::hours(24);
/// Headers a delivery sets itself, which an endpoint's own headers may not replace.
const RESERVED_HEADERS: &[&str] = &[
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
    "content-type",
    "content-length",
    "content-encoding",
    "host",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
    "expect",
];

pub async fn create(
    s: &ReferenceServer,
    team_id: &str,
    body: CreateWebhookEndpointRequest,
) -> Result<CreateWebhookEndpointResponse, Failure> {
    let headers = body.headers.unwrap_or_default();
    check(s, Some(&body.url), Some(&headers)).await?;
    let id = uuid::Uuid::new_v4().to_string();
    let secret = Key::generate().to_text();
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    // Concurrent creates of one team count one at a time: on PostgreSQL the team's row is
    // locked until this transaction ends (SQLite has one writer already).
    if s.store.backend() == Backend::Postgres {
        sqlx::query("SELECT id FROM teams WHERE id = $1 FOR UPDATE")
            .bind(team_id)
            .execute(&mut **tx)
            .await?;
    }
    let (count,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM webhook_endpoints WHERE team_id = $1")
            .bind(team_id)
            .fetch_one(&mut **tx)
            .await?;
    if count >= WEBHOOK_ENDPOINTS_PER_TEAM as i64 {
        return Ok(CreateWebhookEndpointResponse::Conflict(ErrorMessage {
            detail: format!(
                "A team has at most {WEBHOOK_ENDPOINTS_PER_TEAM} webhook endpoints; delete one first"
            ),
        }));
    }
    sqlx::query(
        "INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, headers, \
         disabled, secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
    )
    .bind(&id)
    .bind(team_id)
    .bind(&body.url)
    .bind(body.description.into_option())
    .bind(columns::json(&body.event_types)?)
    .bind(columns::json(&headers)?)
    .bind(flag(false))
    .bind(&secret)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    let endpoint = read(&mut tx, team_id, &id).await?;
    tx.commit().await?;
    Ok(CreateWebhookEndpointResponse::Created(
        CreatedWebhookEndpoint {
            endpoint,
            secret: WebhookSecret { secret },
        },
    ))
}

pub async fn list(
    s: &ReferenceServer,
    team_id: &str,
) -> Result<ListWebhookEndpointsResult, Failure> {
    let rows: Vec<EndpointRow> = s
        .store
        .autocommit()
        .all(sqlx::query(&format!("{SELECT} WHERE team_id = $1 ORDER BY seq")).bind(team_id))
        .await?;
    let data = rows
        .into_iter()
        .map(EndpointRow::into_model)
        .collect::<Result<_, _>>()?;
    Ok(ListWebhookEndpointsResult { data })
}

pub async fn get(
    s: &ReferenceServer,
    team_id: &str,
    id: &Uuid,
) -> Result<WebhookEndpoint, Failure> {
    let mut tx = s.store.read().await?;
    read(&mut tx, team_id, &id.0.to_string()).await
}

pub async fn update(
    s: &ReferenceServer,
    team_id: &str,
    id: &Uuid,
    body: UpdateWebhookEndpointRequest,
) -> Result<WebhookEndpoint, Failure> {
    check(s, body.url.as_ref(), body.headers.as_ref()).await?;
    let id = id.0.to_string();
    let mut tx = s.store.write().await?;
    read(&mut tx, team_id, &id).await?;
    let mut sets = vec!["updated_at = $3".to_string()];
    let mut values: Vec<Option<String>> = Vec::new();
    let mut set = |column: &str, value: Option<String>| {
        values.push(value);
        sets.push(format!("{column} = ${}", values.len() + 3));
    };
    if let Some(url) = body.url {
        set("url", Some(url));
    }
    match body.description {
        Tristate::Absent => {}
        Tristate::Null => set("description", None),
        Tristate::Value(text) => set("description", Some(text)),
    }
    if let Some(prefixes) = &body.event_types {
        set("event_types", Some(columns::json(prefixes)?));
    }
    if let Some(headers) = &body.headers {
        set("headers", Some(columns::json(headers)?));
    }
    let statement = format!(
        "UPDATE webhook_endpoints SET {} WHERE id = $1 AND team_id = $2",
        sets.join(", ")
    );
    let mut query = sqlx::query(&statement)
        .bind(&id)
        .bind(team_id)
        .bind(to_micros(s.clock.now()));
    for value in values {
        query = query.bind(value);
    }
    query.execute(&mut **tx).await?;
    if let Some(disabled) = body.disabled {
        set_disabled(&mut tx, &id, disabled).await?;
    }
    let endpoint = read(&mut tx, team_id, &id).await?;
    tx.commit().await?;
    Ok(endpoint)
}

/// Disabling drops what is owed to the endpoint: it is sent nothing while disabled.
async fn set_disabled(tx: &mut Tx, id: &str, disabled: bool) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE webhook_endpoints SET disabled = $1 WHERE id = $2")
        .bind(flag(disabled))
        .bind(id)
        .execute(&mut ***tx)
        .await?;
    if disabled {
        sqlx::query("DELETE FROM deliveries WHERE endpoint_id = $1 AND status = $2")
            .bind(id)
            .bind(crate::domain::events::PENDING)
            .execute(&mut ***tx)
            .await?;
    }
    Ok(())
}

pub async fn delete(
    s: &ReferenceServer,
    team_id: &str,
    id: &Uuid,
) -> Result<SuccessResult, Failure> {
    let mut tx = s.store.write().await?;
    let deleted = sqlx::query("DELETE FROM webhook_endpoints WHERE id = $1 AND team_id = $2")
        .bind(id.0.to_string())
        .bind(team_id)
        .execute(&mut **tx)
        .await?;
    if deleted.rows_affected() == 0 {
        return Err(not_found());
    }
    tx.commit().await?;
    Ok(SuccessResult { success: true })
}

pub async fn secret(
    s: &ReferenceServer,
    team_id: &str,
    id: &Uuid,
) -> Result<WebhookSecret, Failure> {
    let row: Option<(String,)> = s
        .store
        .autocommit()
        .optional(
            sqlx::query("SELECT secret FROM webhook_endpoints WHERE id = $1 AND team_id = $2")
                .bind(id.0.to_string())
                .bind(team_id),
        )
        .await?;
    let (secret,) = row.ok_or_else(not_found)?;
    Ok(WebhookSecret { secret })
}

/// A new secret; the old one keeps signing beside it for [`ROTATION_OVERLAP`].
pub async fn rotate(
    s: &ReferenceServer,
    team_id: &str,
    id: &Uuid,
) -> Result<WebhookSecret, Failure> {
    let secret = Key::generate().to_text();
    let now = s.clock.now();
    let mut tx = s.store.write().await?;
    let rotated = sqlx::query(
        "UPDATE webhook_endpoints SET previous_secret = secret, previous_until = $1, secret = $2, \
         updated_at = $3 WHERE id = $4 AND team_id = $5",
    )
    .bind(to_micros(now + ROTATION_OVERLAP))
    .bind(&secret)
    .bind(to_micros(now))
    .bind(id.0.to_string())
    .bind(team_id)
    .execute(&mut **tx)
    .await?;
    if rotated.rows_affected() == 0 {
        return Err(not_found());
    }
    tx.commit().await?;
    Ok(WebhookSecret { secret })
}

/// Newest first, a page at a time.
pub async fn attempts(
    s: &ReferenceServer,
    team_id: &str,
    input: ListWebhookAttemptsInput,
) -> Result<ListWebhookAttemptsResult, Failure> {
    let endpoint = input.endpoint_id.0.to_string();
    let mut tx = s.store.read().await?;
    read(&mut tx, team_id, &endpoint).await?;
    let before = seq_cursor(input.next_cursor.as_deref())?;
    let size = input.page_size;
    // A prefix compared on its own length: no LIKE, so `_` and `%` in it are plain text.
    let prefix = input.event_type.unwrap_or_default();
    let rows: Vec<AttemptRow> = sqlx::query_as(
        "SELECT a.seq, e.id AS message_id, e.event_type, e.user_id, a.attempt, a.attempted_at, \
         a.status_code, a.error, a.duration_ms, a.delivery \
         FROM delivery_attempts a JOIN deliveries d ON d.seq = a.delivery_seq \
         JOIN events e ON e.seq = d.event_seq \
         WHERE a.endpoint_id = $1 AND a.seq < $2 AND substr(e.event_type, 1, CAST($3 AS INTEGER)) = $4 \
         AND ($5 = '' OR a.delivery = $5) ORDER BY a.seq DESC LIMIT $6",
    )
    .bind(&endpoint)
    .bind(before)
    .bind(prefix.chars().count() as i64)
    .bind(&prefix)
    .bind(input.delivery.as_ref().map_or("", |d| d.as_str()))
    .bind(size + 1)
    .fetch_all(&mut **tx)
    .await?;
    let more = rows.len() as i64 > size;
    let mut data = Vec::new();
    let mut last = None;
    for row in rows.into_iter().take(size as usize) {
        last = Some(row.seq);
        data.push(row.into_model()?);
    }
    let next_cursor = match (more, last) {
        (true, Some(seq)) => Some(encode_cursor(&seq.to_string())),
        _ => None,
    };
    Ok(ListWebhookAttemptsResult { data, next_cursor })
}

/// Deliveries go to web addresses, and carry no header a delivery sets itself.
/// An endpoint's address and headers as a team sends them: an address deliveries may go to
/// (see [`super::targets`]), and headers within their bounds that no delivery sets itself.
async fn check(
    s: &ReferenceServer,
    url: Option<&String>,
    headers: Option<&BTreeMap<String, String>>,
) -> Result<(), Failure> {
    let mut issues = Vec::new();
    if let Some(url) = url
        && let Some(why) = s.webhook_targets.check_url(url).await
    {
        issues.push(crate::infra::failure::issue(
            "body",
            &[LocPart::key("url")],
            format!("Deliveries cannot go to `{}`: {why}", quoted(url)),
            IssueKind::Value,
        ));
    }
    if let Some(headers) = headers {
        issues.extend(header_bounds(headers).map(|why| {
            crate::infra::failure::issue("body", &[LocPart::key("headers")], why, IssueKind::Value)
        }));
    }
    issues.extend(header_names_and_values(headers));
    match issues.is_empty() {
        true => Ok(()),
        false => Err(Failure::Invalid(issues)),
    }
}

/// Why an endpoint's headers are too many or too large; `None` when they fit. Deliveries
/// check it again, for endpoints stored before the bounds.
pub fn header_bounds(headers: &BTreeMap<String, String>) -> Option<String> {
    let bytes: usize = headers.iter().map(|(n, v)| n.len() + v.len()).sum();
    if headers.len() as u64 > WEBHOOK_HEADERS_PER_ENDPOINT {
        Some(format!(
            "{} headers: an endpoint sends at most {WEBHOOK_HEADERS_PER_ENDPOINT}",
            headers.len()
        ))
    } else if bytes as u64 > WEBHOOK_HEADER_BYTES {
        Some(format!(
            "{bytes} bytes of headers: an endpoint's names and values hold at most \
             {WEBHOOK_HEADER_BYTES}"
        ))
    } else {
        None
    }
}

/// Each header named once, in any case, by a name no delivery sets itself, with a value a
/// request can carry.
fn header_names_and_values(headers: Option<&BTreeMap<String, String>>) -> Vec<Issue> {
    let mut issues = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for name in headers.into_iter().flat_map(|h| h.keys()) {
        let lower = name.to_ascii_lowercase();
        let reserved = RESERVED_HEADERS.contains(&lower.as_str()) || lower.starts_with("proxy-");
        if !seen.insert(lower.clone()) {
            issues.push(crate::infra::failure::issue(
                "body",
                &[LocPart::key("headers"), LocPart::Key(name.clone().into())],
                "Named twice: header names are the same in any case",
                IssueKind::Value,
            ));
            continue;
        }
        let valid = axum::http::HeaderName::from_bytes(name.as_bytes()).is_ok();
        if reserved || !valid {
            issues.push(crate::infra::failure::issue(
                "body",
                &[LocPart::key("headers"), LocPart::Key(name.clone().into())],
                match reserved {
                    true => format!("`{}` is set by each delivery itself", quoted(name)),
                    false => format!("`{}` is not a header name", quoted(name)),
                },
                IssueKind::Value,
            ));
        }
    }
    for (name, value) in headers.into_iter().flatten() {
        if axum::http::HeaderValue::from_str(value).is_err() {
            issues.push(crate::infra::failure::issue(
                "body",
                &[LocPart::key("headers"), LocPart::Key(name.clone().into())],
                "Not a header value: visible ASCII and spaces only",
                IssueKind::Value,
            ));
        }
    }
    issues
}

fn not_found() -> Failure {
    Failure::NotFound("Webhook endpoint not found".to_string())
}

const SELECT: &str = "SELECT id, url, description, event_types, headers, disabled, created_at, \
                      updated_at FROM webhook_endpoints";

async fn read(tx: &mut Tx, team_id: &str, id: &str) -> Result<WebhookEndpoint, Failure> {
    let row: Option<EndpointRow> =
        sqlx::query_as(&format!("{SELECT} WHERE id = $1 AND team_id = $2"))
            .bind(id)
            .bind(team_id)
            .fetch_optional(&mut ***tx)
            .await?;
    Ok(row.ok_or_else(not_found)?.into_model()?)
}

#[derive(sqlx::FromRow)]
struct EndpointRow {
    id: String,
    url: String,
    description: Option<String>,
    event_types: String,
    headers: String,
    disabled: i64,
    created_at: i64,
    updated_at: i64,
}

impl EndpointRow {
    fn into_model(self) -> Result<WebhookEndpoint, sqlx::Error> {
        Ok(WebhookEndpoint {
            id: columns::uuid(&self.id)?,
            url: self.url,
            description: self.description,
            event_types: columns::from_json(&self.event_types)?,
            headers: columns::from_json(&self.headers)?,
            disabled: self.disabled != 0,
            created_on: wire_time(self.created_at),
            updated_on: wire_time(self.updated_at),
        })
    }
}

#[derive(sqlx::FromRow)]
struct AttemptRow {
    seq: i64,
    message_id: String,
    event_type: String,
    user_id: String,
    attempt: i64,
    attempted_at: i64,
    status_code: Option<i64>,
    error: Option<String>,
    duration_ms: i64,
    delivery: String,
}

impl AttemptRow {
    fn into_model(self) -> Result<WebhookAttempt, sqlx::Error> {
        Ok(WebhookAttempt {
            message_id: self.message_id,
            event_type: self.event_type,
            user_id: columns::uuid(&self.user_id)?,
            attempt: self.attempt,
            attempted_at: wire_time(self.attempted_at),
            status_code: self.status_code,
            error: self.error,
            duration_ms: self.duration_ms,
            delivery: columns::stored(&self.delivery)?,
        })
    }
}
