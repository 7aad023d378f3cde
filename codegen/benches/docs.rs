//! `covenant docs` of the full service spec in memory: every page, the search index and the
//! assets of the reference site (target: well under 100 ms median, release build).
//! Run: `cargo bench -p covenant-codegen --bench docs`.

use covenant_codegen::emit::docs::{DocsSettings, site};
use covenant_codegen::{SourceFile, check_source};
use criterion::{Criterion, black_box, criterion_group, criterion_main};

const SERVICE_SPEC: &str = include_str!("../../spec/health.covenant");

fn bench(c: &mut Criterion) {
    let file = SourceFile::new("spec/health.covenant", SERVICE_SPEC);
    let spec = check_source(&file).spec.expect("the service spec is valid");
    let settings = DocsSettings {
        spec_name: "spec/health.covenant".into(),
    };
    c.bench_function("docs_site/service_spec", |b| {
        b.iter(|| black_box(site(black_box(&spec), &settings)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
