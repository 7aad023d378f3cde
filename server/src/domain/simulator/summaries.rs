//! Daily summaries: one per user, provider, resource and day, with an `id` stable across
//! reads. Activity totals are the day's timeseries summed, so a summary and its samples
//! agree; the sleep of a day is the night that ends that morning, and its sleep cycle is
//! that night's stages.

use super::{Subject, series};
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use rand::Rng;
use serde::Serialize;

/// A summary as the provider reports it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Summary {
    Activity(Activity),
    Body(Body),
    Meal(Meal),
    Profile(Profile),
    Sleep(Sleep),
    Workouts(Vec<Workout>),
    SleepCycle(SleepCycle),
}

/// The resources this simulator summarises.
pub const RESOURCES: &[&str] = &[
    "activity",
    "body",
    "meal",
    "profile",
    "sleep",
    "workouts",
    "sleep_cycle",
];

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Activity {
    pub id: String,
    pub calendar_date: String,
    pub steps: u32,
    pub calories_active: f64,
    pub calories_total: f64,
    pub distance: f64,
    pub heart_rate_average: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Body {
    pub id: String,
    pub calendar_date: String,
    /// Kilograms.
    pub weight: f64,
    /// Percent.
    pub fat: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Meal {
    pub id: String,
    pub calendar_date: String,
    pub name: String,
    pub energy_kcal: f64,
    pub carbohydrates_g: f64,
    pub protein_g: f64,
    pub fat_g: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    pub id: String,
    /// Centimetres.
    pub height: u32,
    pub birth_year: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sleep {
    pub id: String,
    pub calendar_date: String,
    pub bedtime_start: String,
    pub bedtime_stop: String,
    /// Seconds.
    pub duration: i64,
    pub deep: i64,
    pub light: i64,
    pub rem: i64,
    pub awake: i64,
    /// Percent of the time in bed asleep.
    pub efficiency: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Workout {
    pub id: String,
    pub calendar_date: String,
    pub sport: String,
    pub time_start: String,
    pub time_end: String,
    pub calories: f64,
    pub distance: f64,
    pub average_hr: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SleepCycle {
    pub id: String,
    pub sleep_id: String,
    pub calendar_date: String,
    /// Each stage: its start, its end and its name.
    pub stages: Vec<Stage>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stage {
    pub start: String,
    pub end: String,
    pub stage: &'static str,
}

/// What `subject` reports for `resource` on the user's day `date`; `None` for a resource
/// that is not a summary here.
pub fn summary(subject: &Subject, resource: &str, date: NaiveDate) -> Option<Summary> {
    let id = subject.id(&[resource, &date.to_string()]).to_string();
    let calendar_date = date.to_string();
    let mut rng = subject.rng(resource, date);
    Some(match resource {
        "activity" => Summary::Activity(activity(subject, date, id, calendar_date)),
        "body" => Summary::Body(Body {
            id,
            calendar_date,
            weight: round(72.0 + rng.random_range(-1.5..1.5)),
            fat: round(21.0 + rng.random_range(-1.0..1.0)),
        }),
        "meal" => Summary::Meal(Meal {
            id,
            calendar_date,
            name: ["Breakfast", "Lunch", "Dinner"][rng.random_range(0..3)].to_string(),
            energy_kcal: round(rng.random_range(350.0..950.0)),
            carbohydrates_g: round(rng.random_range(30.0..110.0)),
            protein_g: round(rng.random_range(15.0..55.0)),
            fat_g: round(rng.random_range(10.0..40.0)),
        }),
        "profile" => {
            // The same on every day: a person's height and birth year do not change.
            let mut rng = subject.rng(resource, NaiveDate::MIN);
            Summary::Profile(Profile {
                id: subject.id(&[resource]).to_string(),
                height: rng.random_range(155..195),
                birth_year: rng.random_range(1950..2005),
            })
        }
        "sleep" => Summary::Sleep(sleep(subject, date).0),
        "workouts" => Summary::Workouts(workouts(subject, date, calendar_date)),
        "sleep_cycle" => {
            let (sleep, stages) = sleep(subject, date);
            Summary::SleepCycle(SleepCycle {
                id,
                sleep_id: sleep.id,
                calendar_date,
                stages,
            })
        }
        _ => return None,
    })
}

fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// The day's totals, from the day's samples.
fn activity(subject: &Subject, date: NaiveDate, id: String, calendar_date: String) -> Activity {
    activity_of(id, calendar_date, |resource| {
        series::samples(subject, resource, date).unwrap_or_default()
    })
}

/// Totals of the samples `samples` gives for each resource: a whole day's or a part's.
pub(super) fn activity_of(
    id: String,
    calendar_date: String,
    samples: impl Fn(&str) -> Vec<series::Sample>,
) -> Activity {
    let total = |resource: &str| -> f64 { samples(resource).iter().map(|s| s.value).sum() };
    let heart = samples("heartrate");
    let average = heart.iter().map(|s| s.value).sum::<f64>() / heart.len().max(1) as f64;
    let active = round(total("calories_active"));
    Activity {
        id,
        calendar_date,
        steps: total("steps") as u32,
        calories_active: active,
        calories_total: round(active + total("calories_basal")),
        distance: round(total("distance")),
        heart_rate_average: round(average),
    }
}

/// The night that ends on the morning of `date`, and its stages.
fn sleep(subject: &Subject, date: NaiveDate) -> (Sleep, Vec<Stage>) {
    let mut rng = subject.rng("sleep", date);
    let evening = date.pred_opt().unwrap_or(date);
    let local = |day: NaiveDate, minutes: i64| -> DateTime<Utc> {
        let midnight = subject.day(day).0;
        midnight + Duration::minutes(minutes)
    };
    let start = local(evening, 22 * 60 + rng.random_range(30..120));
    let stop = local(date, 6 * 60 + rng.random_range(0..120));
    // Cycles of about ninety minutes: light, deep, light, REM, and a short waking.
    let mut stages = Vec::new();
    let mut at = start;
    let (mut deep, mut light, mut rem, mut awake) = (0, 0, 0, 0);
    while at < stop {
        for (stage, minutes) in [
            ("light", rng.random_range(20..35)),
            ("deep", rng.random_range(10..30)),
            ("light", rng.random_range(15..25)),
            ("rem", rng.random_range(10..30)),
            ("awake", rng.random_range(1..6)),
        ] {
            let end = (at + Duration::minutes(minutes)).min(stop);
            if end <= at {
                break;
            }
            let seconds = (end - at).num_seconds();
            match stage {
                "deep" => deep += seconds,
                "rem" => rem += seconds,
                "awake" => awake += seconds,
                _ => light += seconds,
            }
            stages.push(Stage {
                start: rfc3339(subject, at),
                end: rfc3339(subject, end),
                stage,
            });
            at = end;
        }
    }
    let duration = (stop - start).num_seconds();
    let sleep = Sleep {
        id: subject.id(&["sleep", &date.to_string()]).to_string(),
        calendar_date: date.to_string(),
        bedtime_start: rfc3339(subject, start),
        bedtime_stop: rfc3339(subject, stop),
        duration,
        deep,
        light,
        rem,
        awake,
        efficiency: round(100.0 * (duration - awake) as f64 / duration.max(1) as f64),
    };
    (sleep, stages)
}

/// The day's workout: the evening hour its heart rate and steps show.
fn workouts(subject: &Subject, date: NaiveDate, calendar_date: String) -> Vec<Workout> {
    let mut rng = subject.rng("workouts", date);
    let start = subject.day(date).0 + Duration::hours(18);
    let end = start + Duration::hours(1);
    let sports = ["running", "cycling", "walking", "strength_training"];
    vec![Workout {
        id: subject.id(&["workouts", &calendar_date]).to_string(),
        calendar_date,
        sport: sports[rng.random_range(0..sports.len())].to_string(),
        time_start: rfc3339(subject, start),
        time_end: rfc3339(subject, end),
        calories: round(rng.random_range(250.0..650.0)),
        distance: round(rng.random_range(3_000.0..12_000.0)),
        average_hr: round(rng.random_range(125.0..160.0)),
    }]
}

fn rfc3339(subject: &Subject, at: DateTime<Utc>) -> String {
    subject
        .time_zone
        .from_utc_datetime(&at.naive_utc())
        .to_rfc3339()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject() -> Subject {
        Subject::new("a", "oura", chrono_tz::America::New_York)
    }

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn each_summary_is_the_same_on_every_read_with_a_stable_id() {
        let s = subject();
        let day = date("2026-06-10");
        for resource in RESOURCES {
            let first = summary(&s, resource, day).unwrap();
            assert_eq!(first, summary(&s, resource, day).unwrap(), "{resource}");
        }
        assert!(
            summary(&s, "glucose", day).is_none(),
            "a series, not a summary"
        );
        let profile = |d: &str| summary(&s, "profile", date(d));
        assert_eq!(profile("2026-01-01"), profile("2026-06-10"));
    }

    #[test]
    fn activity_totals_are_the_days_samples() {
        let s = subject();
        let day = date("2026-06-10");
        let Some(Summary::Activity(activity)) = summary(&s, "activity", day) else {
            panic!("an activity summary");
        };
        let steps: f64 = series::samples(&s, "steps", day)
            .unwrap()
            .iter()
            .map(|x| x.value)
            .sum();
        assert_eq!(f64::from(activity.steps), steps);
        assert!((5_000..25_000).contains(&activity.steps));
        assert!(activity.calories_total > activity.calories_active);
        assert!((55.0..100.0).contains(&activity.heart_rate_average));
    }

    #[test]
    fn a_night_lasts_realistically_and_its_stages_add_up() {
        let s = subject();
        for day in date("2026-01-01").iter_days().take(90) {
            let Some(Summary::Sleep(sleep)) = summary(&s, "sleep", day) else {
                panic!("a sleep summary");
            };
            let hours = sleep.duration as f64 / 3600.0;
            assert!((6.0..10.0).contains(&hours), "{day}: {hours} h");
            assert_eq!(
                sleep.deep + sleep.light + sleep.rem + sleep.awake,
                sleep.duration
            );
            assert!(sleep.bedtime_stop.starts_with(&day.to_string()));
            let Some(Summary::SleepCycle(cycle)) = summary(&s, "sleep_cycle", day) else {
                panic!("a sleep cycle");
            };
            assert_eq!(cycle.sleep_id, sleep.id);
            assert_eq!(cycle.stages.first().unwrap().start, sleep.bedtime_start);
            assert_eq!(cycle.stages.last().unwrap().end, sleep.bedtime_stop);
        }
    }
}
