//! Replay throughput of the conformance runner, schema validation on: the whole suite
//! against the generated mock (exchanges per second), and the whole suite against the
//! reference server on a fresh embedded database (seconds). Medians of several rounds.
//!
//! `cargo bench --bench conform_throughput` (`--jobs 16`, as `conform --jobs 16`).

use covenant_conformance::known_failures::ExpectedFailures;
use covenant_conformance::plan::{self, ScenarioPlan};
use covenant_conformance::progress::Progress;
use covenant_conformance::template::{Credentials, Globals};
use covenant_conformance::{Contract, RunSettings, Target, cassette, runner};
use covenant_runtime::server::{Spawned, spawn};
use health_api::mock::MockServer;
use health_api::operations::AuthScheme;
use health_server::bootstrap::Bootstrap;
use std::sync::Arc;
use std::time::Instant;

const ROUNDS: usize = 7;
/// Scenarios in flight: the runner mostly waits on the network, so more than the cores.
const JOBS: usize = 16;

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (_, checked) = covenant_codegen::check_path(&root.join("spec/health.covenant")).unwrap();
    let contract = Arc::new(Contract::new(checked.spec.unwrap()).unwrap());
    let cassettes = cassette::read_all(&[root.join("conformance/suite")]).unwrap();
    let (plans, problems) = plan::compile_all(cassettes, &contract, &Globals::default());
    assert!(problems.is_empty(), "{problems:#?}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (_mock, mock) = serve_mock().await;
        let mut rates = Vec::new();
        for _ in 0..ROUNDS {
            let started = Instant::now();
            let report = replay(&contract, &plans, &mock).await;
            let exchanges = report.tally().exchanges as f64;
            rates.push(exchanges / started.elapsed().as_secs_f64());
        }
        println!(
            "suite against the mock: {:.0} exchanges/s median over {ROUNDS} rounds ({} scenarios)",
            median(&mut rates),
            plans.len()
        );
        let reference = health_server::launch::start().await.unwrap();
        let mut seconds = Vec::new();
        for _ in 0..ROUNDS {
            let started = Instant::now();
            let report = replay(&contract, &plans, &reference.credentials).await;
            seconds.push(started.elapsed().as_secs_f64());
            assert_eq!(
                report.tally().failed,
                0,
                "the suite passes against the reference server"
            );
        }
        println!(
            "suite against the reference server (SQLite): {:.3} s median over {ROUNDS} rounds",
            median(&mut seconds)
        );
        reference.stop().await;
    });
}

async fn replay(
    contract: &Arc<Contract>,
    plans: &[ScenarioPlan],
    credentials: &Credentials,
) -> covenant_conformance::Report {
    let globals = Globals::new(credentials.clone());
    let target = Target {
        bases: ["base_url", "management_url"]
            .map(|name| (name.to_string(), credentials.get(name).unwrap().to_string()))
            .into(),
    };
    let expected = ExpectedFailures::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("conformance/expected-failures.toml"),
    )
    .unwrap();
    runner::run(
        contract.clone(),
        plans.to_vec(),
        Arc::new(globals),
        target,
        expected,
        RunSettings {
            jobs: JOBS,
            ..RunSettings::default()
        },
        Progress::Quiet,
    )
    .await
}

/// The generated mock, served as a test serves it, with the keys of a reference server's
/// credentials.
async fn serve_mock() -> (Spawned, Credentials) {
    let mock = MockServer::new()
        .with_key("team_bench_key", AuthScheme::TeamApiKey)
        .with_key("mgmt_bench_key", AuthScheme::ManagementKey);
    let router = health_api::server::router(Arc::new(mock), Default::default());
    let spawned = spawn(router).await.unwrap();
    let url = spawned.url();
    let credentials = Bootstrap {
        org_id: "9e0c1a4e-2f4b-4c8e-9a57-0c2d8f1e6b3a".into(),
        team_id: "5d3b1c2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d".into(),
        team_api_key: "team_bench_key".into(),
        management_key: "mgmt_bench_key".into(),
    }
    .credentials(&url);
    (spawned, credentials)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
