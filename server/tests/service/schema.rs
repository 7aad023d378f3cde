//! The two sets of migrations (`migrations/sqlite`, `migrations/postgres`) are written apart,
//! since each database has its own types, defaults and triggers; this holds them to one
//! schema: every table and column of one is in the other.

use super::harness::{fresh_postgres_database, scratch_dir};
use health_server::store::{Location, Store};
use std::collections::BTreeSet;

/// Every `table.column` of the store's schema, but sqlx's own bookkeeping.
async fn columns(store: &Store, query: &str) -> BTreeSet<String> {
    let rows: Vec<(String, String)> = sqlx::query_as(query)
        .fetch_all(store.pool())
        .await
        .expect("the schema reads");
    rows.into_iter()
        .filter(|(table, _)| !table.starts_with("_sqlx"))
        .map(|(table, column)| format!("{table}.{column}"))
        .collect()
}

#[tokio::test]
async fn both_databases_hold_the_same_tables_and_columns() {
    let dir = scratch_dir();
    let sqlite = Store::open(&Location::Sqlite(dir.join("health.db")))
        .await
        .expect("SQLite opens and migrates");
    let on_sqlite = columns(
        &sqlite,
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1, 2",
    )
    .await;
    assert!(
        on_sqlite.contains("users.id") && on_sqlite.len() > 50,
        "{on_sqlite:?}"
    );
    sqlite.close().await;
    let _ = std::fs::remove_dir_all(&dir);
    let Some(url) = fresh_postgres_database().await else {
        return;
    };
    let postgres = Store::open(&Location::Url(url))
        .await
        .expect("PostgreSQL opens and migrates");
    let on_postgres = columns(
        &postgres,
        "SELECT table_name::text, column_name::text FROM information_schema.columns \
         WHERE table_schema = 'public' ORDER BY 1, 2",
    )
    .await;
    postgres.close().await;
    let only_sqlite: Vec<_> = on_sqlite.difference(&on_postgres).collect();
    let only_postgres: Vec<_> = on_postgres.difference(&on_sqlite).collect();
    assert!(
        only_sqlite.is_empty() && only_postgres.is_empty(),
        "only on SQLite: {only_sqlite:?}; only on PostgreSQL: {only_postgres:?}"
    );
}
