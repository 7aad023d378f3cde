//! Provider data, simulated. No wearable API is reachable from the service, so each provider
//! is backed by a deterministic simulator: what a user's provider reports for a day depends
//! only on the user, the provider, the resource and the date, so the same day asked twice,
//! alone or in a range, gives the same data, and a re-read after a failure fetches exactly
//! what the first try would have. Days are the user's days: they start and end at midnight
//! in the user's fallback time zone (23 or 25 hours when the clocks change).
//!
//! - [`summaries`]: one summary per day and resource (activity, body, meal, profile, sleep,
//!   workouts, sleep cycle), identified by an id stable across reads, so a later read
//!   replaces an earlier one as the document's replace rule says.
//! - [`series`]: timeseries samples (glucose, heart rate, steps, …) at each resource's
//!   interval, in realistic ranges with a daily rhythm.
//! - [`reported`]: what a provider has reported by a moment: the current day so far.
//! - [`stream`]: a workout's stream, drawn from its summary.
//! - [`Subject::fetch`]: a provider's occasional temporary failure (about one try in
//!   twenty), decided by the try's number, so a retry can succeed.

pub mod reported;
pub mod series;
pub mod stream;
pub mod summaries;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// Tries in a thousand that fail for a while: about one in twenty.
const FAILURES_PER_THOUSAND: u64 = 50;

/// One user's data at one provider.
#[derive(Clone, Debug)]
pub struct Subject {
    pub user_id: String,
    pub provider: String,
    /// The user's fallback time zone: where their days start.
    pub time_zone: Tz,
}

/// A provider's answer that a retry may change: rate limited, or briefly unavailable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemporaryFailure {
    pub reason: &'static str,
}

impl Subject {
    pub fn new(user_id: &str, provider: &str, time_zone: Tz) -> Subject {
        Subject {
            user_id: user_id.to_string(),
            provider: provider.to_string(),
            time_zone,
        }
    }

    /// Whether try number `attempt` (from 0) at `resource` for `date` reaches the provider.
    pub fn fetch(
        &self,
        resource: &str,
        date: NaiveDate,
        attempt: u32,
    ) -> Result<(), TemporaryFailure> {
        let draw = u64::from_le_bytes(
            self.digest(&[resource, &date.to_string(), &attempt.to_string(), "fetch"])[..8]
                .try_into()
                .expect("a digest holds eight bytes"),
        );
        if draw % 1000 < FAILURES_PER_THOUSAND {
            let reasons = [
                "rate limited by the provider",
                "the provider is unavailable",
            ];
            Err(TemporaryFailure {
                reason: reasons[(draw / 1000 % 2) as usize],
            })
        } else {
            Ok(())
        }
    }

    /// The generator of one day of one resource: the same on every read.
    fn rng(&self, resource: &str, date: NaiveDate) -> ChaCha8Rng {
        ChaCha8Rng::from_seed(self.digest(&[resource, &date.to_string()]))
    }

    /// A stable id for what this subject reports: a UUID (v5) of the parts.
    fn id(&self, parts: &[&str]) -> uuid::Uuid {
        let name = [self.user_id.as_str(), &self.provider]
            .iter()
            .chain(parts)
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, name.as_bytes())
    }

    fn digest(&self, parts: &[&str]) -> [u8; 32] {
        let mut hash = Sha256::new();
        for part in [self.user_id.as_str(), &self.provider].iter().chain(parts) {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        hash.finalize().into()
    }

    /// The user's day `date` as the instants it spans, `[start, end)`.
    pub fn day(&self, date: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
        day_in(self.time_zone, date)
    }
}

/// The day `date` in `time_zone` as the instants it spans, `[start, end)`: 23 or 25 hours
/// when the clocks change.
pub fn day_in(time_zone: Tz, date: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let next = date.succ_opt().unwrap_or(date);
    (day_start(time_zone, date), day_start(time_zone, next))
}

/// The instant a local date starts at; the first of two when midnight repeats, the first
/// instant after when it is skipped.
fn day_start(time_zone: Tz, date: NaiveDate) -> DateTime<Utc> {
    let mut local = date.and_hms_opt(0, 0, 0).expect("midnight exists");
    loop {
        if let Some(start) = time_zone.from_local_datetime(&local).earliest() {
            return start.with_timezone(&Utc);
        }
        local += chrono::Duration::minutes(30);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject() -> Subject {
        Subject::new(
            "0b507ca2-ecdd-41f6-b293-809bec4b3f02",
            "oura",
            chrono_tz::Europe::Paris,
        )
    }

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn a_day_is_the_users_day_with_its_clock_changes() {
        let s = subject();
        let (start, end) = s.day(date("2026-03-29"));
        assert_eq!(start.to_rfc3339(), "2026-03-28T23:00:00+00:00");
        assert_eq!((end - start).num_hours(), 23, "spring forward");
        let (start, end) = s.day(date("2026-10-25"));
        assert_eq!((end - start).num_hours(), 25, "fall back");
        let tokyo = Subject::new("u", "oura", chrono_tz::Asia::Tokyo);
        assert_eq!(
            tokyo.day(date("2026-01-01")).0.to_rfc3339(),
            "2025-12-31T15:00:00+00:00"
        );
    }

    #[test]
    fn failures_are_occasional_deterministic_and_passed_by_a_retry() {
        let s = subject();
        let days: Vec<NaiveDate> = date("2025-01-01").iter_days().take(2000).collect();
        let failed: Vec<&NaiveDate> = days
            .iter()
            .filter(|d| s.fetch("activity", **d, 0).is_err())
            .collect();
        assert!(
            (40..=160).contains(&failed.len()),
            "{} of 2000 tries failed",
            failed.len()
        );
        for day in failed {
            assert_eq!(
                s.fetch("activity", *day, 0),
                s.fetch("activity", *day, 0),
                "the same try answers alike"
            );
            assert!(
                (1..5).any(|attempt| s.fetch("activity", *day, attempt).is_ok()),
                "a retry gets through"
            );
        }
    }
}
