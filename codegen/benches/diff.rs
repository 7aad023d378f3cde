//! `diff` of the service spec against itself with every field changed (presence,
//! nullability, a bound and the docs of each model field and parameter): target under
//! 50 ms median, release build. Beside it, the same diff with nothing changed, and the whole
//! command's work (both versions checked, then diffed).
//! Run: `cargo bench -p covenant-codegen --bench diff`.

use covenant_codegen::diff::{Options, Side, diff};
use covenant_codegen::ir::{Field, Presence};
use covenant_codegen::{SourceFile, Spec, check_source};
use criterion::{Criterion, black_box, criterion_group, criterion_main};

const SERVICE_SPEC: &str = include_str!("../../spec/health.covenant");

/// Every field's presence flipped, a bound moved and its docs rewritten.
fn change(field: &mut Field) {
    field.presence = match field.presence {
        Presence::Required => Presence::OptionalNullable,
        Presence::Optional => Presence::Nullable,
        Presence::Nullable => Presence::Optional,
        Presence::OptionalNullable => Presence::Required,
    };
    field.constraints.max_length = Some(field.constraints.max_length.unwrap_or(100) / 2);
    field.doc = Some(format!("Changed: {}", field.doc.as_deref().unwrap_or("")));
}

fn every_field_changed(spec: &Spec) -> Spec {
    let mut changed = spec.clone();
    for model in &mut changed.models {
        model.fields.iter_mut().for_each(change);
    }
    for endpoint in &mut changed.endpoints {
        endpoint
            .params
            .iter_mut()
            .for_each(|p| change(&mut p.field));
    }
    changed
}

fn bench(c: &mut Criterion) {
    let file = SourceFile::new("spec/health.covenant", SERVICE_SPEC);
    let spec = check_source(&file)
        .spec
        .expect("the service spec must be valid");
    let changed = every_field_changed(&spec);
    let options = Options {
        today: "2026-11-25".into(),
    };
    let side = |spec| Side { spec, file: &file };
    let findings = diff(side(&spec), side(&changed), &options).len();
    assert!(
        findings > 1000,
        "every field changed gives findings: {findings}"
    );
    c.bench_function("diff/every_field_changed", |b| {
        b.iter(|| black_box(diff(side(&spec), side(black_box(&changed)), &options)))
    });
    c.bench_function("diff/unchanged", |b| {
        b.iter(|| black_box(diff(side(&spec), side(black_box(&spec)), &options)))
    });
    c.bench_function("diff/check_both_and_diff", |b| {
        b.iter(|| {
            let old = check_source(black_box(&file)).spec.unwrap();
            let new = check_source(black_box(&file)).spec.unwrap();
            let (old, new) = (
                Side {
                    spec: &old,
                    file: &file,
                },
                Side {
                    spec: &new,
                    file: &file,
                },
            );
            black_box(diff(old, new, &options))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
