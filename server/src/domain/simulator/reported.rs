//! What a provider has reported by a given moment. A past day is whole; the user's current
//! day holds only what has happened: samples up to the moment, the interval still under way
//! counted so far (an aggregating source sends it again, larger, once it is complete), and the
//! summaries of what has ended. So fetching today again later finds new samples, updated
//! ones and an updated activity summary, which is what the document's update events are for.

use super::summaries::{self, Summary};
use super::{Subject, series};
use chrono::{DateTime, NaiveDate, Utc};

/// The samples of `resource` on `date` that `subject`'s provider had reported at `as_of`.
pub fn samples(
    subject: &Subject,
    resource: &str,
    date: NaiveDate,
    as_of: DateTime<Utc>,
) -> Option<Vec<series::Sample>> {
    let whole = series::samples(subject, resource, date)?;
    let (_, end) = subject.day(date);
    if end <= as_of {
        return Some(whole);
    }
    let cumulative = series::cumulative(resource).unwrap_or(false);
    let interval = series::interval(resource)?;
    let mut reported = Vec::new();
    for mut sample in whole {
        let Some(at) = instant(&sample.timestamp) else {
            continue;
        };
        if at > as_of {
            break;
        }
        if cumulative && at + interval > as_of {
            let elapsed = (as_of - at).num_seconds() as f64 / interval.num_seconds() as f64;
            sample.value = (sample.value * elapsed * 10.0).round() / 10.0;
        }
        reported.push(sample);
    }
    Some(reported)
}

/// The summary of `resource` on `date` as reported at `as_of`: `None` before the day starts
/// or, for the current day, when nothing it summarises has ended yet.
pub fn summary(
    subject: &Subject,
    resource: &str,
    date: NaiveDate,
    as_of: DateTime<Utc>,
) -> Option<Summary> {
    let (start, end) = subject.day(date);
    if start > as_of {
        return None;
    }
    let whole = summaries::summary(subject, resource, date)?;
    if end <= as_of {
        return Some(whole);
    }
    match whole {
        Summary::Activity(activity) => Some(Summary::Activity(summaries::activity_of(
            activity.id,
            activity.calendar_date,
            |resource| samples(subject, resource, date, as_of).unwrap_or_default(),
        ))),
        Summary::Workouts(workouts) => {
            let ended: Vec<_> = workouts
                .into_iter()
                .filter(|w| instant(&w.time_end).is_some_and(|end| end <= as_of))
                .collect();
            (!ended.is_empty()).then_some(Summary::Workouts(ended))
        }
        Summary::Sleep(sleep) => ended(&sleep.bedtime_stop, as_of).then_some(Summary::Sleep(sleep)),
        Summary::SleepCycle(cycle) => {
            let stop = cycle.stages.last().map(|s| s.end.as_str()).unwrap_or("");
            ended(stop, as_of).then_some(Summary::SleepCycle(cycle))
        }
        whole @ (Summary::Body(_) | Summary::Meal(_) | Summary::Profile(_)) => Some(whole),
    }
}

fn instant(rfc3339: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(rfc3339)
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

fn ended(rfc3339: &str, as_of: DateTime<Utc>) -> bool {
    instant(rfc3339).is_some_and(|end| end <= as_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn subject() -> Subject {
        Subject::new("a", "oura", chrono_tz::Europe::Paris)
    }

    fn day() -> NaiveDate {
        "2026-06-10".parse().unwrap()
    }

    #[test]
    fn a_past_day_is_reported_whole() {
        let s = subject();
        let later = s.day(day()).1 + Duration::days(3);
        assert_eq!(
            samples(&s, "steps", day(), later),
            series::samples(&s, "steps", day())
        );
        assert_eq!(
            summary(&s, "sleep", day(), later),
            summaries::summary(&s, "sleep", day())
        );
    }

    #[test]
    fn the_current_day_grows_and_its_open_interval_is_updated() {
        let s = subject();
        let noon = s.day(day()).0 + Duration::hours(12) + Duration::minutes(30);
        let at_noon = samples(&s, "steps", day(), noon).unwrap();
        let later = samples(&s, "steps", day(), noon + Duration::minutes(30)).unwrap();
        let whole = series::samples(&s, "steps", day()).unwrap();
        assert_eq!(at_noon.len(), 13, "hours 0 to 12, the last under way");
        assert_eq!(later.len(), 14);
        assert!(
            at_noon[12].value < whole[12].value,
            "the open hour is counted so far"
        );
        assert_eq!(later[12], whole[12], "a later fetch sends it complete");
        assert_eq!(at_noon[..12], whole[..12]);
        let glucose = samples(&s, "glucose", day(), noon).unwrap();
        assert_eq!(glucose.last(), whole_glucose(&s).get(glucose.len() - 1));
    }

    fn whole_glucose(s: &Subject) -> Vec<series::Sample> {
        series::samples(s, "glucose", day()).unwrap()
    }

    #[test]
    fn summaries_of_the_current_day_wait_for_what_they_summarise() {
        let s = subject();
        let start = s.day(day()).0;
        assert!(summary(&s, "activity", day(), start - Duration::minutes(1)).is_none());
        assert!(summary(&s, "workouts", day(), start + Duration::hours(12)).is_none());
        assert!(summary(&s, "workouts", day(), start + Duration::hours(20)).is_some());
        assert!(summary(&s, "sleep", day(), start + Duration::hours(2)).is_none());
        assert!(summary(&s, "sleep", day(), start + Duration::hours(10)).is_some());
        let Some(Summary::Activity(morning)) =
            summary(&s, "activity", day(), start + Duration::hours(9))
        else {
            panic!("an activity summary from the day's start");
        };
        let Some(Summary::Activity(evening)) =
            summary(&s, "activity", day(), start + Duration::hours(21))
        else {
            panic!("an activity summary later on");
        };
        assert_eq!(morning.id, evening.id, "the same summary, updated");
        assert!(morning.steps < evening.steps);
    }
}
