//! The server's clock, injected so tests can move time (token expiry, the deletion grace
//! period) without waiting.

use chrono::{DateTime, Utc};
use std::sync::Mutex;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The machine's clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that moves only when told to.
#[derive(Debug)]
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> ManualClock {
        ManualClock(Mutex::new(start))
    }

    pub fn advance(&self, by: chrono::Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Instants are stored as microseconds since the UNIX epoch on both databases.
pub fn to_micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

pub fn from_micros(micros: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(micros).unwrap_or_default()
}

/// An instant as the generated models carry it.
pub fn wire_time(micros: i64) -> covenant_runtime::DateTime {
    covenant_runtime::DateTime(from_micros(micros).fixed_offset())
}

/// A wait up to a fifth longer or shorter, so deliveries that failed together (an endpoint
/// that was down) do not all return at the same instant.
pub fn jittered(wait: std::time::Duration) -> std::time::Duration {
    use rand::Rng;
    wait.mul_f64(rand::rng().random_range(0.8..=1.2))
}

/// A user's fallback time zone by name, UTC when they have none.
pub fn zone(name: Option<&str>) -> chrono_tz::Tz {
    name.and_then(|n| n.parse().ok()).unwrap_or(chrono_tz::UTC)
}
