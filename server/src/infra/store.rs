//! Storage: one sqlx `Any` pool over SQLite (embedded, the default) or PostgreSQL (several
//! server processes on one database). Both run the same queries: the schemas keep the same
//! column types (UUID text, microsecond integers, JSON text), and `$n` placeholders are read
//! alike by both drivers.
//!
//! Every request is one transaction. SQLite allows one writer at a time, so on SQLite the
//! process hands the write lock out in turn (an async mutex) instead of letting writers
//! spin in SQLite's busy handler; PostgreSQL takes writers concurrently.

use crate::infra::autocommit::Autocommit;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{Any, AnyPool, Executor, Transaction};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, Notify, OwnedMutexGuard};

/// Where the state lives.
#[derive(Clone, Debug)]
pub enum Location {
    /// An embedded SQLite database file, created on first start.
    Sqlite(PathBuf),
    /// A database URL: `postgres://…` (or `sqlite://…`).
    Url(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// What a work queue's pick ends with: on PostgreSQL, rows another process holds are
    /// skipped; SQLite has one writer, so a pick never meets a held row.
    pub fn skip_locked(self) -> &'static str {
        match self {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        }
    }
}

/// How long a request waits for a connection before the service answers 503.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);
/// How long SQLite waits on a lock held by another process before giving up.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 2_000;

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// SQLite's single writer, handed out in turn; `None` on PostgreSQL.
    writer: Option<Arc<Mutex<()>>>,
    autocommit: Arc<Autocommit>,
    /// Told when a write's turn is given back ([`Store::watch_writes`]).
    watcher: Option<Arc<dyn WriteWatcher>>,
    /// On SQLite, the lock that keeps a second process off the database file.
    _only_process: Option<Arc<std::fs::File>>,
    /// Told when a transaction that owes deliveries commits, so this process's delivery
    /// workers start at once rather than at their next look.
    deliveries_owed: Arc<Notify>,
}

/// A transaction; commit it or it rolls back when dropped.
pub struct Tx {
    pub inner: Transaction<'static, Any>,
    _writer: Option<WriterTurn>,
    /// Set when the transaction wrote a delivery: the workers are woken once it commits.
    wake: bool,
    deliveries_owed: Arc<Notify>,
}

/// What keeps rows of the database between writes, above the store: told each time a
/// write of this process is over, so nothing it keeps outlives a change.
pub trait WriteWatcher: Send + Sync {
    fn written(&self);
}

/// A write's turn: on SQLite the single writer, held by one write at a time; on PostgreSQL
/// no lock. Given back once the write is over (committed or not), it tells the watcher, so
/// no read of this process answers what the write changed.
pub struct WriterTurn {
    _guard: Option<OwnedMutexGuard<()>>,
    watcher: Option<Arc<dyn WriteWatcher>>,
}

impl Drop for WriterTurn {
    fn drop(&mut self) {
        if let Some(watcher) = &self.watcher {
            watcher.written();
        }
    }
}

impl std::ops::Deref for Tx {
    type Target = Transaction<'static, Any>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl std::ops::DerefMut for Tx {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

impl Tx {
    /// Commits in a task of its own, which holds the writer's turn until the commit is done:
    /// a request dropped meanwhile (its client gone, its time up) does not give the turn
    /// back, and drop the user cache, before the commit has landed.
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        let Tx {
            inner,
            _writer: writer,
            wake,
            deliveries_owed,
        } = self;
        let committing = tokio::spawn(async move {
            let committed = inner.commit().await;
            drop(writer);
            if committed.is_ok() && wake {
                // A permit is kept when no worker waits, so a worker mid-batch looks again.
                deliveries_owed.notify_one();
            }
            committed
        });
        committing.await.map_err(|_| sqlx::Error::WorkerCrashed)?
    }

    /// Wakes this process's delivery workers once the transaction commits.
    pub fn wake_deliveries(&mut self) {
        self.wake = true;
    }
}

impl Store {
    /// Connects and brings the schema up to date.
    pub async fn open(location: &Location) -> Result<Store, String> {
        sqlx::any::install_default_drivers();
        let url = match location {
            Location::Sqlite(path) => sqlite_url(path)?,
            Location::Url(url) => url.clone(),
        };
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            return Err(format!(
                "unsupported database URL `{}`: use postgres://… or sqlite://…",
                redact(&url)
            ));
        };
        let only_process = match sqlite_file(&url) {
            Some(path) => {
                owner_only_database(&path)?;
                Some(lock_for_one_process(&path)?)
            }
            None => None,
        };
        let options = AnyConnectOptions::from_str(&url)
            .map_err(|e| format!("invalid database URL `{}`: {e}", redact(&url)))?;
        // No ping before each use: it is a round trip of its own on every request. A
        // connection that died while idle fails its statement instead, which answers 503
        // (a retry gets a fresh connection), and the pool drops it.
        let pool_options = AnyPoolOptions::new()
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .test_before_acquire(false);
        let (setup, pool_size, autocommit_size) = match backend {
            Backend::Sqlite => (Some(sqlite_pragmas()), 4, 4),
            Backend::Postgres => (None, 16, 8),
        };
        let autocommit = Autocommit::new(options.clone(), setup, autocommit_size, ACQUIRE_TIMEOUT);
        let pool = match backend {
            Backend::Sqlite => {
                pool_options
                    .max_connections(pool_size)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            conn.execute(sqlite_pragmas().as_str()).await?;
                            Ok(())
                        })
                    })
                    .connect_with(options)
                    .await
            }
            Backend::Postgres => {
                pool_options
                    .max_connections(pool_size)
                    .connect_with(options)
                    .await
            }
        }
        .map_err(|e| format!("cannot open the database `{}`: {e}", redact(&url)))?;
        let store = Store {
            pool: pool.clone(),
            backend,
            writer: (backend == Backend::Sqlite).then(|| Arc::new(Mutex::new(()))),
            autocommit: Arc::new(autocommit),
            watcher: None,
            _only_process: only_process.map(Arc::new),
            deliveries_owed: Arc::default(),
        };
        store.migrate().await?;
        Ok(store)
    }

    /// For migrations, and for tests that look at the database.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// For a statement that is its own transaction ([`Autocommit`]).
    pub fn autocommit(&self) -> &Autocommit {
        &self.autocommit
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    async fn migrate(&self) -> Result<(), String> {
        let migrator = match self.backend {
            Backend::Sqlite => sqlx::migrate!("./migrations/sqlite"),
            Backend::Postgres => sqlx::migrate!("./migrations/postgres"),
        };
        migrator
            .run(&self.pool)
            .await
            .map_err(|e| format!("cannot migrate the database: {e}"))
    }

    /// A transaction that only reads.
    pub async fn read(&self) -> Result<Tx, sqlx::Error> {
        Ok(Tx {
            inner: self.pool.begin().await?,
            _writer: None,
            wake: false,
            deliveries_owed: self.deliveries_owed.clone(),
        })
    }

    /// A transaction that writes: on SQLite it waits its turn for the one writer, and takes
    /// the database's write lock as it begins (`BEGIN IMMEDIATE`), waiting for it as long as
    /// the busy timeout allows. A deferred transaction would read first and ask for the lock
    /// at its first write, and SQLite refuses a transaction that already reads at once, with
    /// no wait: the lock may still be held by a write abandoned mid-way, whose turn is given
    /// back before its rollback runs, and the request would answer 503.
    pub async fn write(&self) -> Result<Tx, sqlx::Error> {
        let writer = Some(self.writer_turn().await?);
        let inner = match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        };
        Ok(Tx {
            inner,
            _writer: writer,
            wake: false,
            deliveries_owed: self.deliveries_owed.clone(),
        })
    }

    /// The writer's turn for a write that is one statement (its own transaction); hold the
    /// returned guard until the statement is done. On PostgreSQL it waits for nothing.
    pub async fn writer_turn(&self) -> Result<WriterTurn, sqlx::Error> {
        let guard = match &self.writer {
            Some(lock) => {
                let turn = tokio::time::timeout(ACQUIRE_TIMEOUT, lock.clone().lock_owned());
                Some(turn.await.map_err(|_| sqlx::Error::PoolTimedOut)?)
            }
            None => None,
        };
        Ok(WriterTurn {
            _guard: guard,
            watcher: self.watcher.clone(),
        })
    }

    /// Tells `watcher` of every write of this store (and its clones made from now on).
    pub fn watch_writes(&mut self, watcher: Arc<dyn WriteWatcher>) {
        self.watcher = Some(watcher);
    }

    /// Told each time deliveries are owed ([`Tx::wake_deliveries`]).
    pub fn deliveries_owed(&self) -> &Arc<Notify> {
        &self.deliveries_owed
    }

    pub async fn close(&self) {
        self.autocommit.close().await;
        self.pool.close().await;
    }
}

/// Write-ahead logging lets readers go on while one writer commits; NORMAL synchronisation
/// keeps every committed transaction through a crash of the process (the WAL is written
/// before the commit returns), which is what `kill -9` tests.
fn sqlite_pragmas() -> String {
    format!(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
         PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS};"
    )
}

fn sqlite_url(path: &Path) -> Result<String, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let path = path
        .to_str()
        .ok_or_else(|| format!("the database path {} is not UTF-8", path.display()))?;
    Ok(format!("sqlite://{path}?mode=rwc"))
}

/// The file of a SQLite URL (`sqlite://path?…` or `sqlite:path`); `None` for an in-memory
/// database or another backend.
fn sqlite_file(url: &str) -> Option<PathBuf> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or_default();
    (!path.is_empty() && !path.contains(":memory:")).then(|| PathBuf::from(path))
}

/// The database holds keys' digests, webhook secrets and patients' details: its files are
/// the owner's alone, whatever folder they are in and whatever the process's umask. SQLite
/// gives its `-wal` and `-shm` files the mode of the database file, so the file is made
/// 0600 before SQLite first opens it; files an earlier start left open to others are
/// narrowed.
fn owner_only_database(database: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(database);
        match created {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot create {}: {e}", database.display())),
        }
        for suffix in ["", "-wal", "-shm", ".lock"] {
            let mut name = database.as_os_str().to_owned();
            name.push(suffix);
            let path = PathBuf::from(name);
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.permissions().mode() & 0o077 != 0 {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                    .map_err(|e| format!("cannot make {} private: {e}", path.display()))?;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = database;
    Ok(())
}

/// Keeps other processes off an embedded database: the lock lasts as long as the process
/// (the system lets go of it when the process ends, however it ends). One process per SQLite
/// file keeps the single-writer turn and the user cache exact; several processes share a
/// PostgreSQL database instead.
fn lock_for_one_process(database: &Path) -> Result<std::fs::File, String> {
    let mut name = database.as_os_str().to_owned();
    name.push(".lock");
    let path = PathBuf::from(name);
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "another process serves the database {}: one process serves an embedded \
             database; run several on PostgreSQL (--database-url postgres://…)",
            database.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", path.display())),
    }
}

/// A URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme_end + 3],
                    &credentials[..colon],
                    &url[at..]
                ),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// Whether an error is a broken uniqueness rule (a concurrent create that lost the race).
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.is_unique_violation())
}

/// Booleans are stored as 0 or 1 on both databases.
pub fn flag(value: bool) -> i64 {
    i64::from(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::Connection;

    /// The write lock may be held by a connection the writer's turn does not know: a write
    /// abandoned after writing (an error returned mid-transaction) gives the turn back at
    /// once, while its rollback runs later, when the pool takes its connection back. A write
    /// that reads before it writes must wait for that lock, not be refused: SQLite does not
    /// wait for a transaction that already reads, so the write takes the lock as it begins.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_waits_for_a_lock_held_outside_the_writers_turn() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.db");
        let store = Store::open(&Location::Sqlite(file.clone())).await.unwrap();
        sqlx::query("CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
            .execute(store.pool())
            .await
            .unwrap();
        sqlx::query("INSERT INTO counters (id, n) VALUES (1, 0)")
            .execute(store.pool())
            .await
            .unwrap();
        let url = format!("sqlite://{}", file.display());
        let mut holder = sqlx::AnyConnection::connect(&url).await.unwrap();
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut holder)
            .await
            .unwrap();
        let release = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            sqlx::query("ROLLBACK").execute(&mut holder).await.unwrap();
        });
        let mut tx = store.write().await.unwrap();
        let (n,): (i64,) = sqlx::query_as("SELECT n FROM counters WHERE id = 1")
            .fetch_one(&mut **tx)
            .await
            .unwrap();
        sqlx::query("UPDATE counters SET n = $1 WHERE id = 1")
            .bind(n + 1)
            .execute(&mut **tx)
            .await
            .unwrap_or_else(|e| panic!("the write was refused: {e}"));
        tx.commit().await.unwrap();
        release.await.unwrap();
    }

    /// A data folder made by hand (0755) keeps its mode, but the database in it is the
    /// owner's alone, its write-ahead log included; a file an earlier start left readable is
    /// narrowed.
    #[cfg(unix)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_database_files_are_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.path().join("health.db");
        let mode = |suffix: &str| {
            let path = format!("{}{suffix}", file.display());
            std::fs::metadata(path).unwrap().permissions().mode() & 0o777
        };
        let store = Store::open(&Location::Sqlite(file.clone())).await.unwrap();
        sqlx::query("CREATE TABLE t (x INTEGER)")
            .execute(store.pool())
            .await
            .unwrap();
        for suffix in ["", "-wal", "-shm", ".lock"] {
            assert_eq!(mode(suffix), 0o600, "health.db{suffix}");
        }
        store.close().await;
        drop(store);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let store = Store::open(&Location::Sqlite(file.clone())).await.unwrap();
        assert_eq!(mode(""), 0o600);
        store.close().await;
    }
}
