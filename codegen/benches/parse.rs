//! Parse + validate of the full service spec (target: under 2 ms median, release build).
//! Run: `cargo bench -p covenant-codegen --bench parse`.

use covenant_codegen::{SourceFile, check_source, parser};
use criterion::{Criterion, black_box, criterion_group, criterion_main};

const SERVICE_SPEC: &str = include_str!("../../spec/health.covenant");

fn bench(c: &mut Criterion) {
    let file = SourceFile::new("spec/health.covenant", SERVICE_SPEC);
    assert!(
        check_source(&file).spec.is_some(),
        "the service spec must be valid"
    );
    c.bench_function("parse_only/service_spec", |b| {
        b.iter(|| {
            let mut diags = Default::default();
            black_box(parser::parse(black_box(SERVICE_SPEC), &mut diags))
        })
    });
    c.bench_function("parse_and_validate/service_spec", |b| {
        b.iter(|| black_box(check_source(black_box(&file))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
