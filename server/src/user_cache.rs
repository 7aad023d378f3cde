//! Users as reads answer them, kept by a process that is the only one on its database: the
//! embedded SQLite database, which a second process may not open ([`crate::store`] locks
//! it). Every write on SQLite takes the store's single writer, and giving the writer back
//! drops everything kept, so a read never answers what a committed write changed. A read
//! that began before a write keeps nothing it read ([`Generation`]). PostgreSQL, shared by
//! several processes, has no such cache.

use health_api::models::User;
use std::collections::HashMap;
use std::sync::Mutex;

/// The most users kept; beyond it the cache starts over.
const MAX_ENTRIES: usize = 10_000;

/// How a read names the user: by id or by the client's id, within a team.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lookup {
    Id(String),
    ClientUserId(String),
}

#[derive(Default)]
pub struct UserCache {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    generation: u64,
    users: HashMap<(String, Lookup), User>,
}

/// The generation a read began under; what it read is kept only if no write came between.
#[derive(Clone, Copy, Debug)]
pub struct Generation(u64);

impl UserCache {
    pub fn current(&self) -> Generation {
        Generation(self.lock().generation)
    }

    pub fn get(&self, team_id: &str, lookup: &Lookup) -> Option<User> {
        self.lock()
            .users
            .get(&(team_id.to_string(), lookup.clone()))
            .cloned()
    }

    pub fn keep(&self, began: Generation, team_id: &str, lookup: Lookup, user: &User) {
        let mut state = self.lock();
        if state.generation != began.0 {
            return;
        }
        if state.users.len() >= MAX_ENTRIES {
            state.users.clear();
        }
        state
            .users
            .insert((team_id.to_string(), lookup), user.clone());
    }

    /// A write may have changed any user: drop them all.
    pub fn changed(&self) {
        let mut state = self.lock();
        state.users.clear();
        state.generation += 1;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(client_user_id: &str) -> User {
        serde_json::from_value(serde_json::json!({
            "user_id": "0b507ca2-ecdd-41f6-b293-809bec4b3f02",
            "team_id": "b9523ab0-c538-4c18-b20f-6460a6bb8aa0",
            "client_user_id": client_user_id,
            "created_on": "2026-11-21T10:15:24Z",
            "connected_sources": [],
            "fallback_time_zone": null,
            "ingestion_start": null,
            "ingestion_end": null,
        }))
        .expect("a user")
    }

    #[test]
    fn a_write_drops_what_was_kept_and_a_read_from_before_it_keeps_nothing() {
        let cache = UserCache::default();
        let lookup = Lookup::ClientUserId("a".to_string());
        cache.keep(cache.current(), "team", lookup.clone(), &user("a"));
        assert_eq!(cache.get("team", &lookup), Some(user("a")));
        assert_eq!(cache.get("other team", &lookup), None);
        let began = cache.current();
        cache.changed();
        assert_eq!(cache.get("team", &lookup), None);
        cache.keep(began, "team", lookup.clone(), &user("stale"));
        assert_eq!(cache.get("team", &lookup), None);
    }
}
