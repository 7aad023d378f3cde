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

use crate::auth::Principal;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How stale a cached principal or gate may be: the longest a change made by another process
/// goes unseen.
pub const BOUND: Duration = Duration::from_secs(1);
/// The most principals (and, apart, gate answers) kept; beyond it the cache starts over.
const MAX_ENTRIES: usize = 10_000;

/// An accepted key: its stored kind and what it identifies.
#[derive(Clone, Debug)]
pub struct KnownKey {
    pub kind: String,
    pub principal: Principal,
}

#[derive(Default)]
pub struct AuthCache {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The epoch the entries were read under; `None` before the first check.
    epoch: Option<i64>,
    /// When the epoch was last read; `None` forces a read.
    checked: Option<Instant>,
    /// Moves on each time the entries are dropped, so a read that began before cannot put
    /// back what was dropped.
    generation: u64,
    keys: HashMap<String, KnownKey>,
    gates: HashMap<(&'static str, String), bool>,
}

/// A ticket from [`AuthCache::current`]: the generation a lookup began under.
#[derive(Clone, Copy, Debug)]
pub struct Generation(u64);

impl AuthCache {
    /// Whether the epoch must be read again before entries are trusted.
    pub fn needs_check(&self) -> bool {
        let state = self.lock();
        state.checked.is_none_or(|at| at.elapsed() >= BOUND)
    }

    /// Records the epoch read by a query sent at `asked`: entries read under another are
    /// dropped, and the next check is due a [`BOUND`] after the query was sent.
    pub fn record_epoch(&self, epoch: i64, asked: Instant) {
        let mut state = self.lock();
        if state.epoch != Some(epoch) {
            state.drop_entries();
            state.epoch = Some(epoch);
        }
        state.checked = Some(asked);
    }

    /// Something behind credentials or gates changed here: drop every entry now.
    pub fn changed(&self) {
        let mut state = self.lock();
        state.drop_entries();
        state.checked = None;
    }

    pub fn current(&self) -> Generation {
        Generation(self.lock().generation)
    }

    pub fn key(&self, digest: &str) -> Option<KnownKey> {
        self.lock().keys.get(digest).cloned()
    }

    pub fn keep_key(&self, began: Generation, digest: String, key: KnownKey) {
        let mut state = self.lock();
        if state.generation == began.0 {
            if state.keys.len() >= MAX_ENTRIES {
                state.keys.clear();
            }
            state.keys.insert(digest, key);
        }
    }

    pub fn gate(&self, gate: &'static str, subject: &str) -> Option<bool> {
        self.lock().gates.get(&(gate, subject.to_string())).copied()
    }

    pub fn keep_gate(&self, began: Generation, gate: &'static str, subject: &str, open: bool) {
        let mut state = self.lock();
        if state.generation == began.0 {
            if state.gates.len() >= MAX_ENTRIES {
                state.gates.clear();
            }
            state.gates.insert((gate, subject.to_string()), open);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain maps behind: still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn drop_entries(&mut self) {
        self.keys.clear();
        self.gates.clear();
        self.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn team_key() -> KnownKey {
        KnownKey {
            kind: "team".to_string(),
            principal: Principal::Team {
                team_id: "t".to_string(),
                org_id: "o".to_string(),
            },
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
