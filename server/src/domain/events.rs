//! The outbox: an event is written in the transaction of what caused it, with a delivery
//! owed to each of the team's endpoints that takes its type, so an event exists exactly when
//! its cause does, and the delivery workers send it afterwards, however often a process stops.

use crate::infra::columns;
use crate::infra::store::{Tx, flag};
use health_api::events::{Payload, delivery};
use health_api::models::Event;

/// The largest delivery body, in bytes: the spec's `webhook_payload_size`.
pub const PAYLOAD_LIMIT: usize = health_api::limits::WEBHOOK_PAYLOAD_SIZE as usize;

/// A delivery that is owed and not yet made.
pub const PENDING: &str = "pending";

#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    /// Larger than a webhook may be: refused, so the cause must send less per event.
    #[error("a {event_type} event of {size} bytes is over the {PAYLOAD_LIMIT}-byte webhook limit")]
    TooLarge { event_type: String, size: usize },
    #[error(transparent)]
    Store(#[from] sqlx::Error),
}

/// Within a cause's transaction an emission that fails fails the cause: the transaction rolls
/// back and is retried as the cause's own failure would be.
impl From<EmitError> for sqlx::Error {
    fn from(error: EmitError) -> sqlx::Error {
        match error {
            EmitError::Store(error) => error,
            too_large => sqlx::Error::Encode(Box::new(too_large)),
        }
    }
}

/// Who an event is about.
#[derive(Clone, Debug)]
pub struct Subject {
    pub team_id: String,
    pub user_id: String,
    pub client_user_id: String,
}

/// A team's enabled endpoints and the event type prefixes each takes, read once for all the
/// events one transaction emits.
pub struct Outbox {
    team_id: String,
    endpoints: Vec<(String, Vec<String>)>,
}

impl Outbox {
    pub async fn open(tx: &mut Tx, team_id: &str) -> Result<Outbox, sqlx::Error> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT id, event_types FROM webhook_endpoints WHERE team_id = $1 AND disabled = $2 \
             ORDER BY seq",
        )
        .bind(team_id)
        .bind(flag(false))
        .fetch_all(&mut ***tx)
        .await?;
        let mut endpoints = Vec::with_capacity(rows.len());
        for (id, prefixes) in rows {
            endpoints.push((id, columns::from_json(&prefixes)?));
        }
        Ok(Outbox {
            team_id: team_id.to_string(),
            endpoints,
        })
    }

    /// Writes the event, and a delivery for each endpoint that takes it. Answers the event's
    /// id, which every delivery of it carries as `webhook-id`.
    pub async fn emit(
        &self,
        tx: &mut Tx,
        subject: &Subject,
        payload: &Payload,
        now: i64,
    ) -> Result<String, EmitError> {
        debug_assert_eq!(subject.team_id, self.team_id);
        let event_type = payload.event_type();
        let body = body(subject, payload)?;
        if body.len() > PAYLOAD_LIMIT {
            return Err(EmitError::TooLarge {
                event_type,
                size: body.len(),
            });
        }
        let id = format!("msg_{}", uuid::Uuid::new_v4().simple());
        let (event_seq,): (i64,) = sqlx::query_as(
            "INSERT INTO events (id, team_id, user_id, event_type, body, emitted_at) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq",
        )
        .bind(&id)
        .bind(&subject.team_id)
        .bind(&subject.user_id)
        .bind(&event_type)
        .bind(&body)
        .bind(now)
        .fetch_one(&mut ***tx)
        .await?;
        for (endpoint, prefixes) in &self.endpoints {
            if !takes(prefixes, &event_type) {
                continue;
            }
            sqlx::query(
                "INSERT INTO deliveries (event_seq, endpoint_id, user_id, status, attempts, next_attempt_at) \
                 VALUES ($1, $2, $3, $4, 0, $5)",
            )
            .bind(event_seq)
            .bind(endpoint)
            .bind(&subject.user_id)
            .bind(PENDING)
            .bind(now)
            .execute(&mut ***tx)
            .await?;
        }
        tx.wake_deliveries();
        Ok(id)
    }
}

/// Whether an endpoint with these prefixes receives events of this type.
pub fn takes(prefixes: &[String], event_type: &str) -> bool {
    prefixes.is_empty() || prefixes.iter().any(|p| event_type.starts_with(p.as_str()))
}

/// The delivery body: the envelope with the payload's event type and data.
fn body(subject: &Subject, payload: &Payload) -> Result<String, sqlx::Error> {
    let envelope = Event {
        event_type: payload.event_type(),
        data: serde_json::Map::new(),
        team_id: columns::uuid(&subject.team_id)?,
        user_id: columns::uuid(&subject.user_id)?,
        client_user_id: subject.client_user_id.clone(),
    };
    columns::json(&delivery(&envelope, payload))
}
