//! Criterion, bytes → verdict: for every case, the group `<case>/bytes` with one function
//! per pipeline over the same JSON texts (the corpus lines, or the generated arguments as
//! serde_json writes them):
//!
//! - `toolschema-is_valid_json`: toolschema's public `Schema::is_valid_json(&[u8])`;
//! - `serde_json+toolschema`: `serde_json::from_slice::<Value>`, then `is_valid`;
//! - `serde_json+jsonschema`: the same with jsonschema-rs.
//!
//! ```text
//! cargo bench -p toolschema-bench --bench bytes               # every case
//! cargo bench -p toolschema-bench --bench bytes -- cql2/      # one case
//! ```
//!
//! Throughput is in input bytes. Settings are short (the machine is small and shared):
//! 0.5 s warm-up, 1 s of measurement, 20 samples. `bench-report` prints the same figures
//! as a table from its own timing, with the ratios.

use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use toolschema_bench::bytes::{toolschema_bytes, via_value};
use toolschema_bench::{Case, Engine, JsonschemaRs, Toolschema};

/// The compiled schemas of one engine, or `None` if any of the case's schemas failed.
fn compile_case<E: Engine>(case: &Case) -> Option<Vec<E::Compiled>> {
    case.schemas
        .iter()
        .map(|s| E::compile(s, E::prepare(s)).ok())
        .collect()
}

fn bench_pipeline<C>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    case: &Case,
    compiled: &[C],
    check: impl Fn(&C, &[u8]) -> bool,
) {
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut count = 0usize;
            for inst in &case.instances {
                count += usize::from(check(
                    black_box(&compiled[inst.schema]),
                    black_box(&inst.text),
                ));
            }
            count
        });
    });
}

fn bytes(c: &mut Criterion) {
    for case in toolschema_bench::load_cases(None) {
        if case.instances.is_empty() {
            continue;
        }
        let ts = compile_case::<Toolschema>(&case);
        let js = compile_case::<JsonschemaRs>(&case);
        let input: usize = case.instances.iter().map(|i| i.text.len()).sum();
        let mut group = c.benchmark_group(format!("{}/bytes", case.name));
        group.throughput(Throughput::Bytes(input as u64));
        if let Some(ts) = &ts {
            bench_pipeline(
                &mut group,
                "toolschema-is_valid_json",
                &case,
                ts,
                toolschema_bytes,
            );
            bench_pipeline(
                &mut group,
                "serde_json+toolschema",
                &case,
                ts,
                via_value::<Toolschema>,
            );
        }
        if let Some(js) = &js {
            bench_pipeline(
                &mut group,
                "serde_json+jsonschema",
                &case,
                js,
                via_value::<JsonschemaRs>,
            );
        }
        group.finish();
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
    targets = bytes
}
criterion::criterion_main!(benches);
