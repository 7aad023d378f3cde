//! On PostgreSQL, several processes share the database, so what one keeps of it must hear of
//! what the others change. Triggers notify the `covenant_users_changed` channel in the
//! transaction of every change to users, their connections or the provider catalogue
//! (migration 0009); PostgreSQL delivers the notification when that transaction commits.
//! Each process listens on a connection of its own and drops the users it kept on every
//! notification. While it is not listening (before the first `LISTEN`, after the connection
//! is lost and until it is back) it keeps nothing, so no change can go unheard. A connection
//! can die without a word (a NAT or a failover dropping it), and a pooler in transaction
//! mode never delivers notifications at all: so each process also sends itself a heartbeat
//! through its pool every 2 s, and a listener that hears nothing, not even that, within 6 s
//! stops trusting its connection and keeps nothing until it listens anew.

use crate::infra::user_cache::UserCache;
use sqlx::AnyPool;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::Duration;

/// The channel the triggers notify.
pub const USERS_CHANNEL: &str = "covenant_users_changed";
/// How long a lost listening connection waits before it tries again.
const RECONNECT_WAIT: Duration = Duration::from_millis(500);
/// How often a process notifies itself, to know its listener still hears.
const HEARTBEAT: Duration = Duration::from_secs(2);
/// How long a listener may hear nothing at all before it stops trusting its connection.
const HEARD_WITHIN: Duration = Duration::from_secs(6);
/// The payload of a heartbeat, which changes nothing.
const HEARTBEAT_PAYLOAD: &str = "heartbeat";

/// The listening and heartbeat tasks: they stop when this is dropped, and the cache is
/// suspended then, so nothing is kept that is no longer watched.
pub struct ChangeFeed {
    tasks: [tokio::task::AbortHandle; 2],
    users: Arc<UserCache>,
}

impl Drop for ChangeFeed {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.users.suspend();
    }
}

/// Suspends `users` and starts listening on `url`'s database, with a heartbeat sent through
/// `pool`; `users` resumes once the process is listening.
pub fn watch_users(url: String, users: Arc<UserCache>, pool: AnyPool) -> ChangeFeed {
    users.suspend();
    let heartbeat = tokio::spawn(beat(pool));
    let watched = users.clone();
    let listening = tokio::spawn(async move {
        let users = watched;
        loop {
            match listen(&url).await {
                Ok(listener) => follow(listener, &users).await,
                Err(error) => {
                    tracing::warn!(%error, "cannot listen for changes; users are not kept")
                }
            }
            users.suspend();
            tokio::time::sleep(RECONNECT_WAIT).await;
        }
    });
    ChangeFeed {
        tasks: [listening.abort_handle(), heartbeat.abort_handle()],
        users,
    }
}

/// Notifies the channel with a heartbeat every [`HEARTBEAT`], for as long as it runs.
async fn beat(pool: AnyPool) {
    loop {
        // `IS NULL` answers a boolean: the Any driver reads no `void`.
        let sent = sqlx::query("SELECT pg_notify($1, $2) IS NULL AS sent")
            .bind(USERS_CHANNEL)
            .bind(HEARTBEAT_PAYLOAD)
            .execute(&pool)
            .await;
        if let Err(error) = sent {
            tracing::debug!(%error, "a heartbeat of the change feed was not sent");
        }
        tokio::time::sleep(HEARTBEAT).await;
    }
}

async fn listen(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(USERS_CHANNEL).await?;
    Ok(listener)
}

/// Drops what is kept on each notification, until the connection is lost.
async fn follow(mut listener: PgListener, users: &UserCache) {
    // Listening from here on: every later change is heard, and nothing from before is kept.
    users.resume();
    loop {
        match tokio::time::timeout(HEARD_WITHIN, listener.try_recv()).await {
            Ok(Ok(Some(heard))) if heard.payload() == HEARTBEAT_PAYLOAD => {}
            Ok(Ok(Some(_))) => users.clear(),
            // The connection was lost: notifications may have been missed meanwhile.
            Ok(Ok(None)) => return,
            Ok(Err(error)) => {
                tracing::warn!(%error, "lost the change feed; users are not kept until it is back");
                return;
            }
            Err(_) => {
                tracing::warn!(
                    "the change feed heard nothing, not even its heartbeat; listening anew"
                );
                return;
            }
        }
    }
}
