//! Timeseries samples: each resource at its interval, in its unit, in a realistic range with
//! a daily rhythm (quiet nights, meals, a workout hour). A sample has the document's fields:
//! `timestamp` with the user's offset, `timezone_offset` (seconds east of UTC), `type`,
//! `unit` and `value`.

use super::Subject;
use chrono::{DateTime, NaiveDate, Offset, TimeZone, Timelike, Utc};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub timestamp: String,
    pub timezone_offset: i32,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub unit: String,
    pub value: f64,
}

/// How one resource is sampled.
struct Series {
    resource: &'static str,
    unit: &'static str,
    kind: Option<&'static str>,
    every_minutes: i64,
    /// Each sample is a total over its interval (steps, calories, distance), not a reading.
    cumulative: bool,
    /// A value for the local hour of the day (fractional), from the day's generator.
    value: fn(&mut ChaCha8Rng, f64) -> f64,
}

const SERIES: &[Series] = &[
    Series {
        resource: "glucose",
        cumulative: false,
        unit: "mg/dL",
        kind: Some("automatic"),
        every_minutes: 15,
        value: glucose,
    },
    Series {
        resource: "heartrate",
        cumulative: false,
        unit: "bpm",
        kind: None,
        every_minutes: 5,
        value: heart_rate,
    },
    Series {
        resource: "hrv",
        cumulative: false,
        unit: "ms",
        kind: Some("rmssd"),
        every_minutes: 30,
        value: hrv,
    },
    Series {
        resource: "steps",
        cumulative: true,
        unit: "count",
        kind: None,
        every_minutes: 60,
        value: steps,
    },
    Series {
        resource: "calories_active",
        cumulative: true,
        unit: "kcal",
        kind: None,
        every_minutes: 60,
        value: active_calories,
    },
    Series {
        resource: "calories_basal",
        cumulative: true,
        unit: "kcal",
        kind: None,
        every_minutes: 60,
        value: basal_calories,
    },
    Series {
        resource: "distance",
        cumulative: true,
        unit: "m",
        kind: None,
        every_minutes: 60,
        value: distance,
    },
    Series {
        resource: "blood_oxygen",
        cumulative: false,
        unit: "%",
        kind: None,
        every_minutes: 60,
        value: blood_oxygen,
    },
    Series {
        resource: "respiratory_rate",
        cumulative: false,
        unit: "bpm",
        kind: None,
        every_minutes: 60,
        value: respiratory_rate,
    },
    Series {
        resource: "stress_level",
        cumulative: false,
        unit: "count",
        kind: None,
        every_minutes: 60,
        value: stress,
    },
];

/// Whether each sample of `resource` totals its interval; `None` for a resource that is not a
/// timeseries here.
pub fn cumulative(resource: &str) -> Option<bool> {
    SERIES
        .iter()
        .find(|s| s.resource == resource)
        .map(|s| s.cumulative)
}

/// The interval between two samples of `resource`.
pub fn interval(resource: &str) -> Option<chrono::Duration> {
    SERIES
        .iter()
        .find(|s| s.resource == resource)
        .map(|s| chrono::Duration::minutes(s.every_minutes))
}

/// The resources this simulator samples as timeseries.
pub fn resources() -> impl Iterator<Item = &'static str> {
    SERIES.iter().map(|s| s.resource)
}

/// The samples `subject` reports for `resource` on the user's day `date`, in time order;
/// `None` for a resource that is not a timeseries here.
pub fn samples(subject: &Subject, resource: &str, date: NaiveDate) -> Option<Vec<Sample>> {
    let series = SERIES.iter().find(|s| s.resource == resource)?;
    let mut rng = subject.rng(resource, date);
    let (start, end) = subject.day(date);
    let step = chrono::Duration::minutes(series.every_minutes);
    let mut out = Vec::new();
    let mut at = start;
    while at < end {
        let local = at.with_timezone(&subject.time_zone);
        let hour = f64::from(local.hour()) + f64::from(local.minute()) / 60.0;
        let value = (series.value)(&mut rng, hour);
        out.push(sample(subject, at, series, value));
        at += step;
    }
    Some(out)
}

fn sample(subject: &Subject, at: DateTime<Utc>, series: &Series, value: f64) -> Sample {
    let local = subject.time_zone.from_utc_datetime(&at.naive_utc());
    Sample {
        timestamp: local.to_rfc3339(),
        timezone_offset: local.offset().fix().local_minus_utc(),
        kind: series.kind.map(str::to_string),
        unit: series.unit.to_string(),
        value: (value * 10.0).round() / 10.0,
    }
}

/// Asleep from 23:00 to 07:00.
fn asleep(hour: f64) -> bool {
    !(7.0..23.0).contains(&hour)
}

/// The hour of the day's workout.
fn exercising(hour: f64) -> bool {
    (18.0..19.0).contains(&hour)
}

fn glucose(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    // A rise after breakfast, lunch and dinner, back to fasting within two hours.
    let after_meal = [8.0, 12.5, 19.5]
        .iter()
        .map(|meal| hour - meal)
        .filter(|since| (0.0..2.0).contains(since))
        .map(|since| 55.0 * (1.0 - since / 2.0))
        .fold(0.0, f64::max);
    90.0 + after_meal + rng.random_range(-8.0..8.0)
}

fn heart_rate(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    let base = if asleep(hour) {
        55.0
    } else if exercising(hour) {
        145.0
    } else {
        72.0
    };
    base + rng.random_range(-6.0..6.0)
}

fn hrv(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    let base = if asleep(hour) { 62.0 } else { 38.0 };
    base + rng.random_range(-12.0..12.0)
}

fn steps(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    if asleep(hour) {
        f64::from(rng.random_range(0..20))
    } else if exercising(hour) {
        f64::from(rng.random_range(3000..6000))
    } else {
        f64::from(rng.random_range(150..900))
    }
}

fn active_calories(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    steps(rng, hour) * 0.04
}

fn basal_calories(rng: &mut ChaCha8Rng, _hour: f64) -> f64 {
    68.0 + rng.random_range(-3.0..3.0)
}

fn distance(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    steps(rng, hour) * 0.75
}

fn blood_oxygen(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    let base: f64 = if asleep(hour) { 95.5 } else { 97.5 };
    (base + rng.random_range(-1.5..1.5)).min(100.0)
}

fn respiratory_rate(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    let base = if asleep(hour) { 13.5 } else { 16.0 };
    base + rng.random_range(-1.5..1.5)
}

fn stress(rng: &mut ChaCha8Rng, hour: f64) -> f64 {
    if asleep(hour) {
        f64::from(rng.random_range(0..15))
    } else {
        f64::from(rng.random_range(10..70))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(user: &str) -> Subject {
        Subject::new(user, "oura", chrono_tz::Europe::Paris)
    }

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn the_same_day_gives_the_same_samples_and_other_users_others() {
        let day = date("2026-05-04");
        let first = samples(&subject("a"), "glucose", day).unwrap();
        assert_eq!(first, samples(&subject("a"), "glucose", day).unwrap());
        assert_ne!(first, samples(&subject("b"), "glucose", day).unwrap());
        let other_provider = Subject::new("a", "fitbit", chrono_tz::Europe::Paris);
        assert_ne!(first, samples(&other_provider, "glucose", day).unwrap());
    }

    #[test]
    fn samples_cover_the_users_day_at_the_resources_interval() {
        let s = subject("a");
        let day = date("2026-05-04");
        let glucose = samples(&s, "glucose", day).unwrap();
        assert_eq!(glucose.len(), 96);
        assert_eq!(glucose[0].timestamp, "2026-05-04T00:00:00+02:00");
        assert_eq!(glucose[0].timezone_offset, 7200);
        assert_eq!(
            glucose.last().unwrap().timestamp,
            "2026-05-04T23:45:00+02:00"
        );
        // The day the clocks go forward has 23 hours.
        assert_eq!(samples(&s, "steps", date("2026-03-29")).unwrap().len(), 23);
        assert_eq!(samples(&s, "steps", date("2026-10-25")).unwrap().len(), 25);
        assert!(
            samples(&s, "sleep", day).is_none(),
            "a summary, not a series"
        );
    }

    #[test]
    fn values_lie_in_realistic_ranges_with_a_daily_rhythm() {
        let s = subject("a");
        for day in date("2026-01-01").iter_days().take(60) {
            let range = |resource: &str| {
                let values: Vec<f64> = samples(&s, resource, day)
                    .unwrap()
                    .iter()
                    .map(|x| x.value)
                    .collect();
                let min = values.iter().copied().fold(f64::MAX, f64::min);
                let max = values.iter().copied().fold(f64::MIN, f64::max);
                (min, max, values.iter().sum::<f64>())
            };
            let (low, high, _) = range("glucose");
            assert!(low >= 70.0 && high <= 160.0, "glucose {low}..{high}");
            let (low, high, _) = range("heartrate");
            assert!(low >= 45.0 && high <= 160.0, "heart rate {low}..{high}");
            let (_, _, total) = range("steps");
            assert!((5_000.0..25_000.0).contains(&total), "steps {total}");
            let (low, high, _) = range("blood_oxygen");
            assert!(low >= 93.0 && high <= 100.0, "SpO2 {low}..{high}");
        }
        let night = samples(&s, "heartrate", date("2026-01-05")).unwrap();
        let at = |hhmm: &str| {
            night
                .iter()
                .find(|x| x.timestamp.contains(&format!("T{hhmm}:00")))
                .unwrap()
                .value
        };
        assert!(at("03:00") < at("12:00") && at("12:00") < at("18:30"));
    }
}
