//! The reference implementation of the health data service, on the server trait generated
//! from `spec/health.covenant`. State lives in the database only (SQLite embedded, or
//! PostgreSQL shared by several processes), one transaction per request.

mod api;
mod background;
mod domain;
mod infra;
pub mod launch;
pub mod serve;

pub use api::http::{router, router_with};
pub use background::{fetches, webhooks};
pub use domain::auth::{LinkGrant, Manager, Team};
pub use domain::{admin, bootstrap, events, simulator};
pub use infra::{clock, store};

use background::bulk;
use clock::Clock;
use domain::{auth, catalogue, users};
use infra::{change_feed, user_cache};
use std::sync::Arc;
use std::time::Duration;
use store::{Location, Store};

/// How a server is set up.
#[derive(Clone)]
pub struct Settings {
    pub database: Location,
    /// The address users reach this server at: the link widget's pages live there.
    pub public_url: String,
    pub clock: Arc<dyn Clock>,
    /// How long `wait_for_completion` waits for a bulk operation (the document's 20 seconds).
    pub bulk_wait: Duration,
    /// The wait after a provider's first temporary failure; each further one doubles it.
    pub first_retry: Duration,
    /// Where webhook deliveries may go: public addresses only, unless a developer's own
    /// receiver needs loopback.
    pub webhook_targets: webhooks::targets::Targets,
}

impl Settings {
    pub fn new(database: Location, public_url: impl Into<String>) -> Settings {
        Settings {
            database,
            public_url: public_url.into(),
            clock: Arc::new(clock::SystemClock),
            bulk_wait: health_api::limits::WAIT_FOR_COMPLETION,
            first_retry: fetches::FIRST_RETRY,
            webhook_targets: webhooks::targets::Targets::PublicOnly,
        }
    }
}

/// The service: a handle on its database and clock. Cheap to share; what it keeps besides
/// (principals, gate answers, users) it drops when the database changes, told so by the
/// store (writes of this process), the auth epoch and the change feed (other processes').
pub struct ReferenceServer {
    store: Store,
    /// The principals and gate answers this process keeps ([`auth::cache`]).
    auth: auth::cache::AuthCache,
    /// Users kept between writes ([`user_cache`]): dropped by this process's writes, and on
    /// PostgreSQL by the other processes' too, through the change feed.
    users: Arc<user_cache::UserCache>,
    /// On PostgreSQL, the listener that hears the other processes' changes.
    _feed: Option<change_feed::ChangeFeed>,
    clock: Arc<dyn Clock>,
    public_url: String,
    bulk_wait: Duration,
    first_retry: Duration,
    webhook_targets: webhooks::targets::Targets,
    /// Told when this process records historical pulls or refreshes, so its workers start
    /// at once rather than at their next look.
    pulls_owed: Arc<tokio::sync::Notify>,
    refreshes_owed: Arc<tokio::sync::Notify>,
}

impl ReferenceServer {
    /// Connects, migrates and loads the catalogue.
    pub async fn open(settings: Settings) -> Result<Arc<ReferenceServer>, String> {
        let mut store = Store::open(&settings.database).await?;
        let users = Arc::new(user_cache::UserCache::new(user_cache::MAX_ENTRIES));
        store.watch_writes(users.clone());
        // The other processes' writes reach this one's users through the change feed.
        let feed = match (&settings.database, store.backend()) {
            (Location::Url(url), store::Backend::Postgres) => Some(change_feed::watch_users(
                url.clone(),
                users.clone(),
                store.pool().clone(),
            )),
            _ => None,
        };
        catalogue::load(&store).await?;
        if store.backend() == store::Backend::Sqlite {
            release_leases(&store)
                .await
                .map_err(|e| format!("cannot take up interrupted work: {e}"))?;
        }
        Ok(Arc::new(ReferenceServer {
            store,
            auth: auth::cache::AuthCache::default(),
            users,
            _feed: feed,
            clock: settings.clock,
            public_url: settings.public_url.trim_end_matches('/').to_string(),
            bulk_wait: settings.bulk_wait,
            first_retry: settings.first_retry,
            webhook_targets: settings.webhook_targets,
            pulls_owed: Arc::default(),
            refreshes_owed: Arc::default(),
        }))
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Something behind credentials or gates changed through this process: what it keeps
    /// of them is dropped now (other processes notice within [`auth::cache::BOUND`]).
    pub fn auth_changed(&self) {
        self.auth.changed();
    }

    /// What wakes this process's workers of a kind of fetch.
    pub fn fetches_owed(&self, kind: fetches::Kind) -> &Arc<tokio::sync::Notify> {
        match kind {
            fetches::Kind::Historical => &self.pulls_owed,
            fetches::Kind::Refresh => &self.refreshes_owed,
        }
    }

    /// Sets up an empty database (see [`bootstrap::run`]).
    pub async fn bootstrap(
        &self,
        reuse: Option<bootstrap::Bootstrap>,
    ) -> Result<bootstrap::Outcome, String> {
        bootstrap::run(&self.store, &*self.clock, reuse).await
    }

    /// Starts this process's background work: bulk operations another process left,
    /// historical pulls, refreshes and the delivery of webhooks. It runs until the returned
    /// handle is dropped.
    pub fn start_workers(self: &Arc<Self>) -> Workers {
        let tasks = [
            tokio::spawn(webhooks::delivery::keep_delivering(self.clone())),
            tokio::spawn(fetches::keep_fetching(
                self.clone(),
                fetches::Kind::Historical,
            )),
            tokio::spawn(fetches::keep_fetching(self.clone(), fetches::Kind::Refresh)),
            tokio::spawn(bulk::keep_resuming(self.clone())),
        ];
        Workers(tasks.iter().map(|t| t.abort_handle()).collect())
    }

    /// Work a stopped process left behind: bulk operations accepted but not finished, and
    /// users whose deletion grace period has ended. Safe to run in every process at once.
    pub async fn recover(self: &Arc<Self>) -> Result<(), String> {
        users::purge_expired(&self.store, &*self.clock)
            .await
            .map_err(|e| format!("cannot purge deleted users: {e}"))?;
        bulk::resume(self)
            .await
            .map_err(|e| format!("cannot resume bulk operations: {e}"))
    }
}

/// An embedded database has one process (its file is locked), so a lease found at start was
/// held by a process that stopped: its work is taken up at once rather than when the lease
/// runs out. On PostgreSQL a lease may be another live process's, and is left to expire.
async fn release_leases(store: &Store) -> Result<(), sqlx::Error> {
    let mut tx = store.write().await?;
    for table in ["deliveries", "pulls", "refreshes", "bulk_ops"] {
        sqlx::query(&format!(
            "UPDATE {table} SET lease_until = NULL WHERE lease_until IS NOT NULL"
        ))
        .execute(&mut **tx)
        .await?;
    }
    tx.commit().await
}

/// A process's background work; dropped, it stops. Stopping mid-task loses nothing: what a
/// task held is leased, and comes back when the lease runs out.
pub struct Workers(Vec<tokio::task::AbortHandle>);

impl Drop for Workers {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}
