//! What the runner's socket tests share: a regression spec as a contract, a router on a
//! fresh port, and one replay of a folder of cassettes.

#![allow(dead_code)]

use covenant_conformance::known_failures::ExpectedFailures;
use covenant_conformance::outcome::Report;
use covenant_conformance::progress::Progress;
use covenant_conformance::template::Globals;
use covenant_conformance::{Contract, RunSettings, Target, cassette, plan, runner};
use std::sync::Arc;
use std::time::Duration;

/// A regression spec of the corpus (`media.covenant`), served at `{base_url}`.
pub fn regression_contract(file: &str) -> Arc<Contract> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/regressions")
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("base \"https://example.test\"", "base \"{base_url}\"");
    let source = covenant_codegen::source::SourceFile::new(file, text);
    let spec = covenant_codegen::check_source(&source).spec.unwrap();
    Arc::new(Contract::new(spec).unwrap())
}

/// Serves a router on a fresh local port; answers its address.
pub async fn serve(router: axum::Router) -> String {
    let spawned = covenant_runtime::server::spawn(router).await;
    spawned.expect("serve on loopback").detach()
}

/// Replays the cassettes in `dir` against `base`, each exchange once within `timeout`; the
/// cassettes must resolve against the contract first.
pub async fn replay(
    contract: Arc<Contract>,
    dir: &std::path::Path,
    globals: Globals,
    base: String,
    timeout: Duration,
) -> Report {
    let cassettes = cassette::read_all(&[dir.to_path_buf()]).unwrap();
    let (plans, problems) = plan::compile_all(cassettes, &contract, &globals);
    assert!(problems.is_empty(), "{problems:#?}");
    // One router serves every API of the spec here: each base is that one address.
    let target = Target {
        bases: contract
            .spec
            .apis
            .iter()
            .map(|api| (api.base_name(), base.clone()))
            .collect(),
    };
    let settings = RunSettings {
        timeout,
        retries: 0,
        ..RunSettings::default()
    };
    runner::run(
        contract,
        plans,
        Arc::new(globals),
        target,
        ExpectedFailures::default(),
        settings,
        Progress::Quiet,
    )
    .await
}
