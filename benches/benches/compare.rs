//! Criterion side by side: for every case, the groups `<case>/compile`, `<case>/is_valid`
//! (with the `floor` walk) and `<case>/errors`, each with one function per validator.
//!
//! ```text
//! cargo bench -p toolschema-bench                 # everything (~7 minutes)
//! cargo bench -p toolschema-bench -- cql2/        # one case
//! cargo bench -p toolschema-bench -- /is_valid/   # one figure
//! ```
//!
//! Settings are short on purpose (the machine is small and shared): 0.5 s warm-up, 1 s of
//! measurement, 20 samples. `bench-report` prints the markdown table from its own timing.

use criterion::{BatchSize, Criterion, Throughput};
use serde_json::Value;
use std::hint::black_box;
use std::time::Duration;
use toolschema_bench::{Boon, Case, Engine, JsonschemaRs, Toolschema, walk};

/// The compiled schemas of one engine, or `None` if any of the case's schemas failed.
fn compile_case<E: Engine>(case: &Case) -> Option<Vec<E::Compiled>> {
    case.schemas
        .iter()
        .map(|s| E::compile(s, E::prepare(s)).ok())
        .collect()
}

fn bench_compile<E: Engine>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    schemas: &[Value],
) {
    group.bench_function(E::NAME, |b| {
        b.iter_batched(
            || schemas.iter().map(|s| E::prepare(s)).collect::<Vec<_>>(),
            |inputs| {
                schemas
                    .iter()
                    .zip(inputs)
                    .map(|(s, input)| E::compile(black_box(s), input))
                    .collect::<Vec<_>>()
            },
            BatchSize::LargeInput,
        );
    });
}

fn bench_validate<E: Engine>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    case: &Case,
    compiled: &[E::Compiled],
    errors: bool,
) {
    group.bench_function(E::NAME, |b| {
        b.iter(|| {
            let mut count = 0usize;
            for inst in &case.instances {
                let schema = black_box(&compiled[inst.schema]);
                count += if errors {
                    E::count_errors(schema, black_box(&inst.value))
                } else {
                    usize::from(E::is_valid(schema, black_box(&inst.value)))
                };
            }
            count
        });
    });
}

fn compare(c: &mut Criterion) {
    for case in toolschema_bench::load_cases(None) {
        let ts = compile_case::<Toolschema>(&case);
        let js = compile_case::<JsonschemaRs>(&case);
        let bn = compile_case::<Boon>(&case);
        let instances = case.instances.len() as u64;

        let mut group = c.benchmark_group(format!("{}/compile", case.name));
        group.throughput(Throughput::Elements(case.schemas.len() as u64));
        if ts.is_some() {
            bench_compile::<Toolschema>(&mut group, &case.schemas);
        }
        if js.is_some() {
            bench_compile::<JsonschemaRs>(&mut group, &case.schemas);
        }
        if bn.is_some() {
            bench_compile::<Boon>(&mut group, &case.schemas);
        }
        group.finish();

        for errors in [false, true] {
            let figure = if errors { "errors" } else { "is_valid" };
            let mut group = c.benchmark_group(format!("{}/{figure}", case.name));
            group.throughput(Throughput::Elements(instances));
            if let Some(ts) = &ts {
                bench_validate::<Toolschema>(&mut group, &case, ts, errors);
            }
            if let Some(js) = &js {
                bench_validate::<JsonschemaRs>(&mut group, &case, js, errors);
            }
            if let Some(bn) = &bn {
                bench_validate::<Boon>(&mut group, &case, bn, errors);
            }
            if !errors {
                group.bench_function("floor", |b| {
                    b.iter(|| {
                        case.instances.iter().fold(0usize, |acc, inst| {
                            acc.wrapping_add(walk(black_box(&inst.value)))
                        })
                    });
                });
            }
            group.finish();
        }
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20)
        .configure_from_args()
}

criterion::criterion_group! {
    name = benches;
    config = config();
    targets = compare
}
criterion::criterion_main!(benches);
