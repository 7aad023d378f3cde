//! Between the generated models and the database's columns: enum values as their wire
//! names, dates as text.

use covenant_runtime::{Date, Uuid};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The value's name on the wire (`"bulk_import"` for `TeamFeature::BulkImport`).
pub fn name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// An enum from its wire name; open enums keep names they do not know.
pub fn parse<T: DeserializeOwned>(name: &str) -> Result<T, sqlx::Error> {
    serde_json::from_value(serde_json::Value::String(name.to_string()))
        .map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

pub fn uuid(text: &str) -> Result<Uuid, sqlx::Error> {
    text.parse::<uuid::Uuid>()
        .map(Uuid)
        .map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

pub fn date_text(date: &Date) -> String {
    date.0.format("%Y-%m-%d").to_string()
}

pub fn date(text: &str) -> Result<Date, sqlx::Error> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(Date)
        .map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

pub fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Reads a stored JSON column back.
pub fn from_json<T: DeserializeOwned>(
    row: &sqlx::any::AnyRow,
    column: &str,
) -> Result<T, sqlx::Error> {
    use sqlx::Row;
    let text: String = row.try_get(column)?;
    serde_json::from_str(&text).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}
