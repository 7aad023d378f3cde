//! The daily data events a fetch's changes call for: a `daily.data.<resource>.created` or
//! `.updated` per summary, per batch of samples, and per new workout's stream; and, beside
//! each sleep cycle event, its deprecated hypnogram twin for consumers not yet moved.

use crate::domain::provider_data::Changes;
use crate::domain::simulator::series::Sample as SimulatedSample;
use crate::domain::sources::Source;
use crate::infra::columns;
use health_api::events::Payload;
use health_api::models::{
    Sample, Sport, SummaryData, SummaryResource, TimeseriesData, TimeseriesResource,
    WorkoutStreamData,
};
use serde_json::Value;

/// Samples one event carries: 1,000 samples are about 120 KB, within the webhook limit.
pub const SAMPLES_PER_EVENT: usize = 1000;

/// The events announcing `changes` to one day of `resource`.
pub fn payloads(source: &Source, user_id: &str, resource: &str, changes: Changes) -> Vec<Payload> {
    let Ok(user) = columns::uuid(user_id) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let Changes {
        summaries_created,
        summaries_updated,
        samples_created,
        samples_updated,
    } = changes;
    for (created, body) in summaries_created
        .into_iter()
        .map(|b| (true, b))
        .chain(summaries_updated.into_iter().map(|b| (false, b)))
    {
        out.extend(summary_events(source, user, resource, created, body));
    }
    for (created, samples) in [(true, samples_created), (false, samples_updated)] {
        for batch in samples.chunks(SAMPLES_PER_EVENT) {
            let data = timeseries(source, user, batch);
            let Ok(resource) = resource.parse::<TimeseriesResource>();
            out.push(if created {
                Payload::DailyTimeseriesCreated { resource, data }
            } else {
                Payload::DailyTimeseriesUpdated { resource, data }
            });
        }
    }
    out
}

/// A summary's event, and the events that ride with it: a new workout's stream, and a sleep
/// cycle's deprecated hypnogram.
fn summary_events(
    source: &Source,
    user: covenant_runtime::Uuid,
    resource: &str,
    created: bool,
    body: Value,
) -> Vec<Payload> {
    let mut out = Vec::new();
    if resource == "workouts" && created && source.supports("workout_stream") {
        out.extend(workout_stream(source, user, &body));
    }
    if resource == "sleep_cycle" {
        out.push(hypnogram(source, user, &body, created));
    }
    let Value::Object(mut fields) = body else {
        return out;
    };
    let id = fields.remove("id").unwrap_or(Value::Null);
    let data = SummaryData {
        id,
        user_id: user,
        source: source.context(),
        extra: fields,
    };
    let Ok(resource) = resource.parse::<SummaryResource>();
    out.insert(
        0,
        if created {
            Payload::DailySummaryCreated { resource, data }
        } else {
            Payload::DailySummaryUpdated { resource, data }
        },
    );
    out
}

fn timeseries(
    source: &Source,
    user: covenant_runtime::Uuid,
    batch: &[SimulatedSample],
) -> TimeseriesData {
    TimeseriesData {
        user_id: user,
        source: source.context(),
        source_id: source.source_id,
        data: batch.iter().filter_map(wire_sample).collect(),
    }
}

fn wire_sample(sample: &SimulatedSample) -> Option<Sample> {
    Some(Sample {
        timestamp: sample.timestamp.parse().ok()?,
        timezone_offset: i64::from(sample.timezone_offset),
        r#type: sample.kind.clone().map(Value::String),
        unit: sample.unit.clone(),
        value: sample.value,
    })
}

/// `daily.data.workout_stream.created`: shallow, naming the workout whose stream is ready.
fn workout_stream(source: &Source, user: covenant_runtime::Uuid, body: &Value) -> Option<Payload> {
    let workout_id = columns::uuid(body["id"].as_str()?).ok()?;
    let slug = body["sport"].as_str().unwrap_or("other").to_string();
    let data = WorkoutStreamData {
        message: "The workout's stream can be read through the workout stream endpoint".to_string(),
        provider_id: workout_id.0.simple().to_string(),
        sport: Sport {
            id: sport_id(&slug),
            name: sport_name(&slug),
            slug,
        },
        workout_id,
        source: source.context(),
        user_id: user,
    };
    Some(Payload::DailyWorkoutStreamCreated { data })
}

/// The toolkit's numbers for the sports the simulator reports.
fn sport_id(slug: &str) -> i64 {
    match slug {
        "running" => 1,
        "cycling" => 2,
        "walking" => 3,
        "strength_training" => 4,
        _ => 0,
    }
}

fn sport_name(slug: &str) -> String {
    let mut name = slug.replace('_', " ");
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    name
}

/// The deprecated `daily.timeseries.hypnogram.*`: the sleep cycle's stages as samples, one
/// per stage at its start, valued 1 deep, 2 light, 3 REM, 4 awake.
#[allow(deprecated)]
fn hypnogram(
    source: &Source,
    user: covenant_runtime::Uuid,
    body: &Value,
    created: bool,
) -> Payload {
    let stages = body["stages"].as_array().cloned().unwrap_or_default();
    let data = TimeseriesData {
        user_id: user,
        source: source.context(),
        source_id: source.source_id,
        data: stages.iter().filter_map(stage_sample).collect(),
    };
    if created {
        Payload::DailyHypnogramCreated { data }
    } else {
        Payload::DailyHypnogramUpdated { data }
    }
}

fn stage_sample(stage: &Value) -> Option<Sample> {
    let timestamp: covenant_runtime::DateTime = stage["start"].as_str()?.parse().ok()?;
    let value = match stage["stage"].as_str()? {
        "deep" => 1.0,
        "light" => 2.0,
        "rem" => 3.0,
        _ => 4.0,
    };
    Some(Sample {
        timezone_offset: i64::from(timestamp.0.offset().local_minus_utc()),
        timestamp,
        r#type: None,
        unit: "stage".to_string(),
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> Source {
        Source {
            provider: "oura".into(),
            source_type: "ring".into(),
            source_id: 3,
            name: "Oura".into(),
            logo: "https://logo".into(),
            supported_resources: vec!["workouts".into(), "workout_stream".into()],
        }
    }

    const USER: &str = "0b507ca2-ecdd-41f6-b293-809bec4b3f02";

    fn sample(minute: u32) -> SimulatedSample {
        SimulatedSample {
            timestamp: format!("2026-06-10T10:{minute:02}:00+02:00"),
            timezone_offset: 7200,
            kind: None,
            unit: "bpm".into(),
            value: 60.0,
        }
    }

    #[test]
    fn samples_go_out_in_batches_created_apart_from_updated() {
        let changes = Changes {
            samples_created: (0..SAMPLES_PER_EVENT + 1)
                .map(|m| sample((m % 60) as u32))
                .collect(),
            samples_updated: vec![sample(1)],
            ..Changes::default()
        };
        let types: Vec<String> = payloads(&source(), USER, "heartrate", changes)
            .iter()
            .map(Payload::event_type)
            .collect();
        assert_eq!(
            types,
            [
                "daily.data.heartrate.created",
                "daily.data.heartrate.created",
                "daily.data.heartrate.updated"
            ]
        );
    }

    #[test]
    #[allow(deprecated)]
    fn a_summary_keeps_its_fields_and_names_its_source_both_ways() {
        let body = serde_json::json!({
            "id": "3f0e5d3e-52f4-5b0c-9d7f-1f6d3f1a2b3c",
            "calendar_date": "2026-06-10",
            "sport": "running",
        });
        let changes = Changes {
            summaries_created: vec![body],
            ..Changes::default()
        };
        let out = payloads(&source(), USER, "workouts", changes);
        let types: Vec<String> = out.iter().map(Payload::event_type).collect();
        assert_eq!(
            types,
            [
                "daily.data.workouts.created",
                "daily.data.workout_stream.created"
            ]
        );
        let Payload::DailySummaryCreated { data, .. } = &out[0] else {
            panic!("a summary event first");
        };
        assert_eq!(data.extra["calendar_date"], "2026-06-10");
        assert_eq!(data.source.provider.as_deref(), Some("oura"));
        assert_eq!(data.source.slug.as_deref(), Some("oura"));
        assert_eq!(data.source.name.as_deref(), Some("Oura"));
        let Payload::DailyWorkoutStreamCreated { data } = &out[1] else {
            panic!("then the stream");
        };
        assert_eq!(data.sport.name, "Running");
    }

    #[test]
    fn a_sleep_cycle_brings_its_deprecated_hypnogram() {
        let body = serde_json::json!({
            "id": "3f0e5d3e-52f4-5b0c-9d7f-1f6d3f1a2b3c",
            "stages": [
                {"start": "2026-06-09T23:00:00+02:00", "end": "2026-06-09T23:30:00+02:00", "stage": "light"},
                {"start": "2026-06-09T23:30:00+02:00", "end": "2026-06-10T00:10:00+02:00", "stage": "deep"},
            ],
        });
        let changes = Changes {
            summaries_updated: vec![body],
            ..Changes::default()
        };
        let out = payloads(&source(), USER, "sleep_cycle", changes);
        let types: Vec<String> = out.iter().map(Payload::event_type).collect();
        assert_eq!(
            types,
            [
                "daily.data.sleep_cycle.updated",
                "daily.timeseries.hypnogram.updated"
            ]
        );
        #[allow(deprecated)]
        let Payload::DailyHypnogramUpdated { data } = &out[1] else {
            panic!("a hypnogram");
        };
        let values: Vec<f64> = data.data.iter().map(|s| s.value).collect();
        assert_eq!(values, [2.0, 1.0]);
        assert_eq!(data.data[0].timezone_offset, 7200);
    }
}
