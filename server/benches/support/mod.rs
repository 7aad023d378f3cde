//! What the server's benchmarks share: a fresh PostgreSQL database and medians.

/// A new, empty database on the server `admin` names (a URL ending in a database name).
pub async fn fresh_database(admin: &str) -> String {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let name = format!("health_bench_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::AnyConnection::connect(admin).await.expect("connect");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create database");
    let base = admin.rsplit_once('/').map_or(admin, |(base, _)| base);
    format!("{base}/{name}")
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
