//! `generate` of the full service spec in memory: parse, validate, emit Rust (formatted),
//! every JSON Schema and both OpenAPI documents (target: under 50 ms median, release build).
//! Run: `cargo bench -p covenant-codegen --bench generate`.

use covenant_codegen::{SourceFile, check_source, emit};
use criterion::{Criterion, black_box, criterion_group, criterion_main};

const SERVICE_SPEC: &str = include_str!("../../spec/health.covenant");

fn bench(c: &mut Criterion) {
    let file = SourceFile::new("spec/health.covenant", SERVICE_SPEC);
    let settings = emit::Settings::default();
    let spec = check_source(&file).spec.expect("the service spec is valid");
    c.bench_function("emit_only/service_spec", |b| {
        b.iter(|| black_box(emit::generate(black_box(&spec), &settings)))
    });
    c.bench_function("check_and_generate/service_spec", |b| {
        b.iter(|| {
            let spec = check_source(black_box(&file)).spec.unwrap();
            black_box(emit::generate(&spec, &settings))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
