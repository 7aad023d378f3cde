//! Between the generated models and the database's columns: enums by their generated names
//! (`as_str` and `FromStr`), identifiers and dates as text, records as JSON text.

use covenant_runtime::{Date, Uuid};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::str::FromStr;

/// An enum from its stored name, through its generated `FromStr` (open enums keep names they
/// do not know; a closed enum's unknown name is stored data the service cannot read).
pub fn stored<T>(name: &str) -> Result<T, sqlx::Error>
where
    T: FromStr,
    T::Err: std::fmt::Display,
{
    name.parse()
        .map_err(|e: T::Err| sqlx::Error::Decode(e.to_string().into()))
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

/// A record as stored JSON text; one that does not serialize is a fault, not an empty text.
pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, sqlx::Error> {
    serde_json::to_string(value).map_err(|e| sqlx::Error::Encode(Box::new(e)))
}

/// A stored JSON column, read back.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, sqlx::Error> {
    serde_json::from_str(text).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}
