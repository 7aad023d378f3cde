//! Recording from a HAR file must grow linearly with the file: sessions of 2,500 to 100,000
//! entries (a user created, then read back by the id its answer gave) turned into a cassette
//! by the recorder, each size timed once, with the time per entry beside it.
//!
//!     cargo bench -p covenant-conformance --bench har_import

use covenant_conformance::Contract;
use covenant_conformance::record::{Recorded, Recorder, cassette_text};
use std::time::Instant;

fn contract() -> Contract {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/health.covenant");
    let (_, checked) = covenant_codegen::check_path(&path).expect("the service spec reads");
    Contract::new(checked.spec.expect("the service spec checks")).expect("a contract")
}

/// `entries` recorded exchanges: pairs of a user created and read back.
fn session(entries: usize) -> Vec<Recorded> {
    let json = vec![("content-type".to_string(), "application/json".to_string())];
    (0..entries / 2)
        .flat_map(|i| {
            let id = format!("5d3b1c2a-9e8f-4a7b-8c6d-{i:012}");
            let created = format!(r#"{{"user_id": "{id}", "client_user_id": "patient-{i}"}}"#);
            [
                Recorded {
                    method: "POST".into(),
                    path: "/v2/user".into(),
                    headers: vec![("x-service-api-key".into(), "sk_team_bench".into())],
                    body: format!(r#"{{"client_user_id": "patient-{i}"}}"#).into_bytes(),
                    status: 200,
                    response_headers: json.clone(),
                    response_body: created.clone().into_bytes(),
                    ..Recorded::default()
                },
                Recorded {
                    method: "GET".into(),
                    path: format!("/v2/user/{id}"),
                    headers: vec![("x-service-api-key".into(), "sk_team_bench".into())],
                    status: 200,
                    response_headers: json.clone(),
                    response_body: created.into_bytes(),
                    ..Recorded::default()
                },
            ]
        })
        .collect()
}

fn main() {
    let contract = contract();
    let secrets = vec![(
        "sk_team_bench".to_string(),
        "{{credentials.team_api_key}}".to_string(),
    )];
    println!("{:>8} {:>10} {:>14}", "entries", "ms", "µs per entry");
    for entries in [2_500, 5_000, 10_000, 100_000] {
        let recorded = session(entries);
        let started = Instant::now();
        let recorder = Recorder::new(&contract, secrets.clone());
        let (scenario, _) = recorder.scenario("recorded/bench", "bench", &recorded);
        let text = cassette_text(&scenario);
        let elapsed = started.elapsed();
        assert!(text.len() > entries * 50, "a cassette of every exchange");
        println!(
            "{entries:>8} {:>10.0} {:>14.1}",
            elapsed.as_secs_f64() * 1e3,
            elapsed.as_secs_f64() * 1e6 / entries as f64
        );
    }
}
