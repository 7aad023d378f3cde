//! Connections kept for statements that are their own transaction (a read of one statement,
//! an insert that decides a race by its unique key). sqlx's pool tests every connection it
//! takes back with a ping, in a task of its own: for one statement that is a second round
//! trip to the database (on SQLite, to the connection's thread) and doubles its cost. These
//! connections go back without one; a statement that fails because its connection is lost
//! drops the connection instead, and the next statement opens a fresh one.

use sqlx::any::{AnyConnectOptions, AnyRow};
use sqlx::{AnyConnection, ConnectOptions, Executor, FromRow};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A connection idle longer is closed rather than reused: a database or the network between
/// may have dropped it meanwhile (PostgreSQL's `idle_session_timeout`, a failover, a NAT).
const IDLE_AT_MOST: Duration = Duration::from_secs(30);
use tokio::sync::Semaphore;

pub struct Autocommit {
    options: AnyConnectOptions,
    /// Statements run on each new connection (SQLite's pragmas).
    setup: Option<String>,
    /// Connections not in use, each with when it came back.
    idle: Mutex<Vec<(AnyConnection, Instant)>>,
    /// One per connection that may be open at once.
    permits: Arc<Semaphore>,
    acquire_timeout: Duration,
}

impl Autocommit {
    pub fn new(
        options: AnyConnectOptions,
        setup: Option<String>,
        size: usize,
        acquire_timeout: Duration,
    ) -> Autocommit {
        Autocommit {
            options,
            setup,
            idle: Mutex::default(),
            permits: Arc::new(Semaphore::new(size)),
            acquire_timeout,
        }
    }

    /// Every row the statement returns.
    pub async fn all<'q, T, E>(&self, query: E) -> Result<Vec<T>, sqlx::Error>
    where
        E: sqlx::Execute<'q, sqlx::Any> + 'q,
        T: for<'r> FromRow<'r, AnyRow>,
    {
        let (lease, mut conn) = self.lease().await?;
        let rows = conn.fetch_all(query).await;
        lease.give_back(conn, &rows);
        rows?.iter().map(T::from_row).collect()
    }

    /// The first row the statement returns, if any.
    pub async fn optional<'q, T, E>(&self, query: E) -> Result<Option<T>, sqlx::Error>
    where
        E: sqlx::Execute<'q, sqlx::Any> + 'q,
        T: for<'r> FromRow<'r, AnyRow>,
    {
        let (lease, mut conn) = self.lease().await?;
        let row = conn.fetch_optional(query).await;
        lease.give_back(conn, &row);
        row?.as_ref().map(T::from_row).transpose()
    }

    /// The one row the statement returns (`RowNotFound` when there is none).
    pub async fn one<'q, T, E>(&self, query: E) -> Result<T, sqlx::Error>
    where
        E: sqlx::Execute<'q, sqlx::Any> + 'q,
        T: for<'r> FromRow<'r, AnyRow>,
    {
        self.optional(query).await?.ok_or(sqlx::Error::RowNotFound)
    }

    /// The first column of every row.
    pub async fn all_values<'q, T, E>(&self, query: E) -> Result<Vec<T>, sqlx::Error>
    where
        E: sqlx::Execute<'q, sqlx::Any> + 'q,
        (T,): for<'r> FromRow<'r, AnyRow>,
    {
        let rows: Vec<(T,)> = self.all(query).await?;
        Ok(rows.into_iter().map(|(value,)| value).collect())
    }

    /// The first column of the first row, if any.
    pub async fn optional_value<'q, T, E>(&self, query: E) -> Result<Option<T>, sqlx::Error>
    where
        E: sqlx::Execute<'q, sqlx::Any> + 'q,
        (T,): for<'r> FromRow<'r, AnyRow>,
    {
        let row: Option<(T,)> = self.optional(query).await?;
        Ok(row.map(|(value,)| value))
    }

    /// Refuses new statements and closes the idle connections.
    pub async fn close(&self) {
        self.permits.close();
        let idle = std::mem::take(&mut *self.lock_idle());
        for (conn, _) in idle {
            let _ = sqlx::Connection::close(conn).await;
        }
    }

    /// A connection for one statement, within the limit of open connections. Dropped
    /// without [`Lease::give_back`] (a request cancelled mid-statement), the connection
    /// is closed rather than reused.
    async fn lease(&self) -> Result<(Lease<'_>, AnyConnection), sqlx::Error> {
        let permit = tokio::time::timeout(self.acquire_timeout, self.permits.acquire())
            .await
            .map_err(|_| sqlx::Error::PoolTimedOut)?
            .map_err(|_| sqlx::Error::PoolClosed)?;
        let conn = match self.fresh_idle() {
            Some(conn) => conn,
            None => self.connect().await?,
        };
        let lease = Lease {
            home: self,
            _permit: permit,
        };
        Ok((lease, conn))
    }

    async fn connect(&self) -> Result<AnyConnection, sqlx::Error> {
        let mut conn = self.options.connect().await?;
        if let Some(setup) = &self.setup {
            conn.execute(setup.as_str()).await?;
        }
        Ok(conn)
    }

    /// The most recently returned idle connection; those idle too long are dropped.
    fn fresh_idle(&self) -> Option<AnyConnection> {
        let mut idle = self.lock_idle();
        idle.retain(|(_, since)| since.elapsed() < IDLE_AT_MOST);
        idle.pop().map(|(conn, _)| conn)
    }

    fn lock_idle(&self) -> std::sync::MutexGuard<'_, Vec<(AnyConnection, Instant)>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The right to one open connection, held while a statement runs.
struct Lease<'a> {
    home: &'a Autocommit,
    _permit: tokio::sync::SemaphorePermit<'a>,
}

impl Lease<'_> {
    /// Puts the connection back, unless the statement found it lost.
    fn give_back<T>(self, conn: AnyConnection, result: &Result<T, sqlx::Error>) {
        let closed = self.home.permits.is_closed();
        if !closed && !matches!(result, Err(e) if lost(e)) {
            self.home.lock_idle().push((conn, Instant::now()));
        }
    }
}

/// Whether an error says the connection itself is gone, or its session was ended by the
/// server (PostgreSQL's connection-exception class and its shutdown and idle-session codes).
fn lost(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P05")
        }),
        _ => false,
    }
}
