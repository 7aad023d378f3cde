//! Import, check and generate on the published documents of `corpus/openapi`: medians of
//! repeated runs, side by side, in one process. Targets: a 4 MB document imported in under
//! 1 s, its spec checked in under 100 ms and generated in under 1 s.
//!
//! `cargo bench -p covenant-import --bench import [-- NAME…]` (names filter the documents:
//! `-- kubernetes`)

#[path = "../tests/support/documents.rs"]
mod documents;

use covenant_codegen::emit::{Settings, generate};
use covenant_codegen::{SourceFile, check_source};
use std::time::{Duration, Instant};

const RUNS: usize = 7;

/// The allocator the `covenant` binary runs with, so the figures are the command's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(mut work: impl FnMut() -> T) -> (Duration, T) {
    let mut samples = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let started = Instant::now();
        last = Some(work());
        samples.push(started.elapsed());
    }
    (median(samples), last.unwrap())
}

fn main() {
    println!(
        "{:<16} {:>9} {:>6} {:>6} {:>8} {:>11} {:>10} {:>12}",
        "document", "size", "ops", "full", "%", "import ms", "check ms", "generate ms"
    );
    // Cargo passes `--bench`; any other argument picks documents by part of their name.
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let documents = documents::documents()
        .into_iter()
        .filter(|(name, _)| wanted.is_empty() || wanted.iter().any(|w| name.contains(w.as_str())));
    for (name, text) in documents {
        let (import_time, imported) = time(|| covenant_import::import(&name, &text).unwrap());
        let file = SourceFile::new(name.clone(), imported.spec.clone());
        let (check_time, checked) = time(|| check_source(&file));
        let spec = checked.spec.expect("the imported spec checks");
        let settings = Settings::default();
        let (generate_time, files) = time(|| generate(&spec, &settings));
        assert!(!files.is_empty());
        let report = &imported.report;
        let total = report.operations.len();
        let full = report.count(covenant_import::Completeness::Full);
        println!(
            "{:<16} {:>8.1}M {:>6} {:>6} {:>7.1}% {:>11.1} {:>10.1} {:>12.1}",
            name,
            text.len() as f64 / 1_048_576.0,
            total,
            full,
            100.0 * full as f64 / total.max(1) as f64,
            import_time.as_secs_f64() * 1000.0,
            check_time.as_secs_f64() * 1000.0,
            generate_time.as_secs_f64() * 1000.0,
        );
    }
}
