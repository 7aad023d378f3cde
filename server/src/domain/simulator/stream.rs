//! A workout's stream: what the provider recorded every few seconds during it, consistent
//! with the workout's summary (its span, distance and average heart rate) and the same on
//! every read, so the stream endpoint needs nothing stored beyond the workout.

use super::Subject;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Seconds between two points of a stream.
pub const EVERY_SECONDS: i64 = 10;

/// What a stream is drawn from: the workout's summary.
pub struct Workout<'a> {
    pub id: &'a str,
    pub seconds: i64,
    /// Metres.
    pub distance: f64,
    pub average_hr: f64,
}

/// Parallel arrays, one entry per point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stream {
    pub time: Vec<i64>,
    pub heartrate: Vec<i64>,
    pub velocity_smooth: Vec<f64>,
    pub distance: Vec<f64>,
}

/// The stream of `workout` as `subject`'s provider recorded it: heart rate rising over the
/// first minutes to around the average, speed around the average pace, and the distance
/// reaching the summary's at the end.
pub fn stream(subject: &Subject, workout: &Workout) -> Stream {
    let mut rng = ChaCha8Rng::from_seed(subject.digest(&["workout_stream", workout.id]));
    let points = (workout.seconds.max(0) / EVERY_SECONDS + 1) as usize;
    let mut out = Stream::default();
    let mut speeds = Vec::with_capacity(points);
    for point in 0..points {
        let time = point as i64 * EVERY_SECONDS;
        let warm = (time as f64 / 300.0).min(1.0);
        let heart = workout.average_hr * (0.75 + 0.27 * warm) + rng.random_range(-4.0..4.0);
        out.time.push(time);
        out.heartrate.push(heart.round() as i64);
        speeds.push(rng.random_range(0.85..1.15));
    }
    // Speeds scaled so that they cover the summary's distance over the workout's span.
    let raw: f64 = speeds.iter().skip(1).sum::<f64>() * EVERY_SECONDS as f64;
    let scale = if raw > 0.0 {
        workout.distance / raw
    } else {
        0.0
    };
    let mut covered = 0.0;
    for (point, speed) in speeds.iter().enumerate() {
        let velocity = speed * scale;
        if point > 0 {
            covered += velocity * EVERY_SECONDS as f64;
        }
        out.velocity_smooth.push(round(velocity, 100.0));
        out.distance.push(round(covered, 10.0));
    }
    out
}

fn round(value: f64, per_unit: f64) -> f64 {
    (value * per_unit).round() / per_unit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workout() -> Workout<'static> {
        Workout {
            id: "3f0e5d3e-52f4-5b0c-9d7f-1f6d3f1a2b3c",
            seconds: 3600,
            distance: 8000.0,
            average_hr: 140.0,
        }
    }

    #[test]
    fn a_stream_agrees_with_its_workout_and_is_the_same_on_every_read() {
        let s = Subject::new("a", "strava", chrono_tz::UTC);
        let first = stream(&s, &workout());
        assert_eq!(first, stream(&s, &workout()));
        assert_eq!(first.time.len(), 361);
        assert_eq!(first.time.last(), Some(&3600));
        assert_eq!(first.heartrate.len(), first.time.len());
        assert_eq!(first.velocity_smooth.len(), first.time.len());
        assert!((first.distance.last().unwrap() - 8000.0).abs() < 1.0);
        assert!(first.distance.windows(2).all(|w| w[0] <= w[1]));
        let settled = &first.heartrate[60..];
        let average = settled.iter().sum::<i64>() as f64 / settled.len() as f64;
        assert!((130.0..150.0).contains(&average), "{average}");
        assert!(first.heartrate[0] < 115, "warming up");
        let other = Subject::new("b", "strava", chrono_tz::UTC);
        assert_ne!(first, stream(&other, &workout()));
    }

    #[test]
    fn an_empty_workout_has_one_point() {
        let s = Subject::new("a", "strava", chrono_tz::UTC);
        let empty = Workout {
            seconds: 0,
            distance: 0.0,
            ..workout()
        };
        let stream = stream(&s, &empty);
        assert_eq!(stream.time, [0]);
        assert_eq!(stream.distance, [0.0]);
    }
}
