//! Which cassettes exercise a change: those sending a request to a changed endpoint, or
//! awaiting a changed event, so a change runs the part of the suite it touches.

use crate::cassette::Cassette;
use covenant_codegen::Spec;
use std::collections::BTreeSet;

/// Whether a cassette sends to one of `carriers`' endpoints (by name) or awaits one of their
/// events (`event <name>`, matched by the event's type pattern in `spec`).
pub fn exercises(cassette: &Cassette, spec: &Spec, carriers: &BTreeSet<String>) -> bool {
    cassette.scenario.exchanges.iter().any(|exchange| {
        carriers.contains(&exchange.endpoint)
            || exchange.events.iter().any(|awaited| {
                carriers.iter().any(|carrier| {
                    carrier
                        .strip_prefix("event ")
                        .and_then(|name| spec.events.iter().find(|e| e.name == name))
                        .is_some_and(|event| spec.event_produces(event, &awaited.event_type))
                })
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use covenant_codegen::SourceFile;

    fn spec() -> Spec {
        let text = r#"
service S { title "s" }
api main { base "{base_url}" versions "/v1" }
envelope Event {
    @event_type
    event_type: string
    data: object
}
endpoint get_pet: GET "/v1/pets/{id}" {
    public
    path id: string
    response 200: string
}
endpoint list_pets: GET "/v1/pets" {
    public
    response 200: string
}
event pet_born: "pet.born" {
    data: string
}
"#;
        covenant_codegen::check_source(&SourceFile::new("s.covenant", text))
            .spec
            .expect("the test spec checks")
    }

    fn cassette(json: &str) -> Cassette {
        let scenario = serde_json::from_str(json).unwrap();
        Cassette {
            scenario,
            file: "c.json".into(),
            text: json.into(),
        }
    }

    #[test]
    fn a_cassette_exercises_the_endpoints_it_calls_and_the_events_it_awaits() {
        let spec = spec();
        let calls = cassette(
            r#"{"id": "a", "title": "a", "exchanges": [{"endpoint": "get_pet",
                "request": {"method": "GET", "path": "/v1/pets/1"}, "expect": {"status": 200},
                "events": [{"event_type": "pet.born"}]}]}"#,
        );
        let carriers = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        assert!(exercises(&calls, &spec, &carriers(&["get_pet"])));
        assert!(exercises(&calls, &spec, &carriers(&["event pet_born"])));
        assert!(!exercises(&calls, &spec, &carriers(&["list_pets"])));
        assert!(!exercises(&calls, &spec, &carriers(&["event nothing"])));
    }
}
