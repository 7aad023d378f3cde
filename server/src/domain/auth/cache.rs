//! Principals and gate answers, kept per process so a request costs one statement of its
//! own instead of three. What a credential or gate means changes only with the rows behind
//! it, and every such change moves the database's `auth_epoch` on in its own transaction
//! (triggers move it). A process reads the epoch at most once a [`BOUND`] and drops what it
//! holds when the epoch moved, so a key revoked, a feature or a plan changed by any process
//! is honoured by every process within [`BOUND`]; a change made through this process's own
//! store is honoured at once ([`AuthCache::changed`]).
//!
//! Only credentials that were accepted are kept: an unknown key costs a lookup every time,
//! as before, and cannot fill the cache.
//!
//! Why it is kept: `server/benches/load.rs` serves GET resolve at 0.41× a bare axum
//! handler with every key and gate read from the database, against 0.78× and 0.85× with
//! this cache (SQLite, 64 connections, three runs of one build side by side). Creating users
//! is the same either way (10,459 against 11,000 and 11,520 users/s): a write costs more than
//! the reads it saves.

use crate::domain::auth::KeyHolder;
use crate::infra::kept::{Kept, Ticket};
use crate::infra::store::Store;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How stale a cached principal or gate may be: the longest a change made by another process
/// goes unseen.
pub const BOUND: Duration = Duration::from_secs(1);
/// The most principals (and, apart, gate answers) kept.
const MAX_ENTRIES: usize = 10_000;

/// An accepted key: what it identifies.
#[derive(Clone, Debug)]
pub struct KnownKey {
    pub holder: KeyHolder,
}

/// Owned by the service ([`crate::ReferenceServer`]) and consulted by [`crate::domain::auth`] alone:
/// the store knows nothing of it.
pub struct AuthCache {
    epoch: Mutex<Epoch>,
    /// Held by the one request reading the epoch; the others wait for it rather than read
    /// it too.
    epoch_read: tokio::sync::Mutex<()>,
    keys: Kept<String, KnownKey>,
    gates: Kept<(&'static str, String), bool>,
}

#[derive(Default)]
struct Epoch {
    /// The epoch the entries were read under; `None` before the first check.
    value: Option<i64>,
    /// When the epoch was last asked for; `None` forces a read.
    checked: Option<Instant>,
}

/// What a lookup began under, from [`AuthCache::current`].
#[derive(Clone, Copy, Debug)]
pub struct Generation {
    keys: Ticket,
    gates: Ticket,
}

impl Default for AuthCache {
    fn default() -> Self {
        AuthCache {
            epoch: Mutex::default(),
            epoch_read: tokio::sync::Mutex::default(),
            keys: Kept::new(MAX_ENTRIES),
            gates: Kept::new(MAX_ENTRIES),
        }
    }
}

impl AuthCache {
    /// The cache, checked against the database's epoch when its bound has passed: the
    /// generation a lookup begins under.
    pub async fn fresh(&self, store: &Store) -> Result<Generation, sqlx::Error> {
        if self.needs_check() {
            let _reading = self.epoch_read.lock().await;
            if self.needs_check() {
                let asked = Instant::now();
                let epoch: Option<(i64,)> = store
                    .autocommit()
                    .optional(sqlx::query("SELECT value FROM auth_epoch WHERE id = 1"))
                    .await?;
                let (epoch,) = epoch.ok_or(sqlx::Error::RowNotFound)?;
                self.record_epoch(epoch, asked);
            }
        }
        Ok(self.current())
    }

    /// Whether the epoch must be read again before entries are trusted.
    pub fn needs_check(&self) -> bool {
        let epoch = self.lock_epoch();
        epoch.checked.is_none_or(|at| at.elapsed() >= BOUND)
    }

    /// Records the epoch read by a query sent at `asked`: entries read under another are
    /// dropped, and the next check is due a [`BOUND`] after the query was sent.
    pub fn record_epoch(&self, value: i64, asked: Instant) {
        let mut epoch = self.lock_epoch();
        if epoch.value != Some(value) {
            self.drop_entries();
            epoch.value = Some(value);
        }
        epoch.checked = Some(asked);
    }

    /// Something behind credentials or gates changed here: drop every entry now.
    pub fn changed(&self) {
        let mut epoch = self.lock_epoch();
        self.drop_entries();
        epoch.checked = None;
    }

    pub fn current(&self) -> Generation {
        Generation {
            keys: self.keys.ticket(),
            gates: self.gates.ticket(),
        }
    }

    pub fn key(&self, digest: &str) -> Option<KnownKey> {
        self.keys.get(digest)
    }

    pub fn keep_key(&self, began: Generation, digest: String, key: KnownKey) {
        self.keys.keep(began.keys, digest, key);
    }

    pub fn gate(&self, gate: &'static str, subject: &str) -> Option<bool> {
        self.gates.get(&(gate, subject.to_string()))
    }

    pub fn keep_gate(&self, began: Generation, gate: &'static str, subject: &str, open: bool) {
        self.gates
            .keep(began.gates, (gate, subject.to_string()), open);
    }

    fn drop_entries(&self) {
        self.keys.clear();
        self.gates.clear();
    }

    fn lock_epoch(&self) -> std::sync::MutexGuard<'_, Epoch> {
        self.epoch.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn team_key() -> KnownKey {
        KnownKey {
            holder: KeyHolder::Team(crate::domain::auth::Team {
                team_id: "t".to_string(),
                org_id: "o".to_string(),
            }),
        }
    }

    #[test]
    fn a_new_epoch_drops_what_was_kept() {
        let cache = AuthCache::default();
        assert!(cache.needs_check());
        cache.record_epoch(1, Instant::now());
        assert!(!cache.needs_check());
        cache.keep_key(cache.current(), "d".to_string(), team_key());
        cache.keep_gate(cache.current(), "highest", "o", true);
        cache.record_epoch(1, Instant::now());
        assert!(cache.key("d").is_some());
        cache.record_epoch(2, Instant::now());
        assert!(cache.key("d").is_none());
        assert_eq!(cache.gate("highest", "o"), None);
    }

    #[test]
    fn a_lookup_that_began_before_a_change_keeps_nothing() {
        let cache = AuthCache::default();
        cache.record_epoch(1, Instant::now());
        let began = cache.current();
        cache.changed();
        assert!(cache.needs_check());
        cache.keep_key(began, "d".to_string(), team_key());
        assert!(cache.key("d").is_none());
    }
}
