//! On PostgreSQL, several processes share the database, so what one keeps of it must hear of
//! what the others change. Triggers notify the `covenant_users_changed` channel in the
//! transaction of every change to users, their connections or the provider catalogue
//! (migration 0009); PostgreSQL delivers the notification when that transaction commits.
//! Each process listens on a connection of its own and drops the users it kept on every
//! notification. While it is not listening (before the first `LISTEN`, after the connection
//! is lost and until it is back) it keeps nothing, so no change can go unheard.

use crate::user_cache::UserCache;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::Duration;

/// The channel the triggers notify.
pub const USERS_CHANNEL: &str = "covenant_users_changed";
/// How long a lost listening connection waits before it tries again.
const RECONNECT_WAIT: Duration = Duration::from_millis(500);

/// The listening task: stops (and the cache stays suspended) when dropped.
pub struct ChangeFeed(tokio::task::AbortHandle);

impl Drop for ChangeFeed {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Suspends `users` and starts listening on `url`'s database; `users` resumes once the
/// process is listening.
pub fn watch_users(url: String, users: Arc<UserCache>) -> ChangeFeed {
    users.suspend();
    let task = tokio::spawn(async move {
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
    ChangeFeed(task.abort_handle())
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
        match listener.try_recv().await {
            Ok(Some(_)) => users.clear(),
            // The connection was lost: notifications may have been missed meanwhile.
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(%error, "lost the change feed; users are not kept until it is back");
                return;
            }
        }
    }
}
