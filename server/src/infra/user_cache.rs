//! Users as reads answer them, kept between writes. Every write of the process drops
//! everything kept when it ends (told as a [`WriteWatcher`]), so a read never
//! answers what a committed write of this process changed; a read that began before a write
//! keeps nothing it read ([`crate::infra::kept`]). On SQLite no other process writes (the file is
//! locked); on PostgreSQL the other processes' writes reach this one through
//! the change feed (`change_feed`), and while it cannot hear them nothing is kept.
//!
//! Why it is kept: `server/benches/load.rs` serves GET resolve at 0.43× a bare axum
//! handler with every user read from the database, against 0.78× and 0.85× with this cache
//! (SQLite, 64 connections, three runs of one build side by side; PostgreSQL was 0.18×
//! before it). Writes are the same either way.

use crate::infra::kept::Kept;
use crate::infra::store::WriteWatcher;
use health_api::models::User;

/// The most users kept.
pub const MAX_ENTRIES: usize = 10_000;

/// How a read names the user: by id or by the client's id, within a team.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lookup {
    Id(String),
    ClientUserId(String),
}

/// Users by team and lookup.
pub type UserCache = Kept<(String, Lookup), User>;

/// A write of this process drops every user kept.
impl WriteWatcher for UserCache {
    fn written(&self) {
        self.clear();
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
        let cache = UserCache::new(MAX_ENTRIES);
        let key = |team: &str| (team.to_string(), Lookup::ClientUserId("a".to_string()));
        cache.keep(cache.ticket(), key("team"), user("a"));
        assert_eq!(cache.get(&key("team")), Some(user("a")));
        assert_eq!(cache.get(&key("other team")), None);
        let began = cache.ticket();
        cache.clear();
        assert_eq!(cache.get(&key("team")), None);
        cache.keep(began, key("team"), user("stale"));
        assert_eq!(cache.get(&key("team")), None);
    }
}
