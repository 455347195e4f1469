//! Worst-case pattern timings: pathological ECMA-262 patterns against 100,000-character
//! subjects, under the default backtracking budget. Run with
//! `cargo bench -p toolschema-bench --bench patterns`.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;
use toolschema::Schema;

fn cases() -> Vec<(&'static str, &'static str, String)> {
    let a = "a".repeat(100_000);
    vec![
        ("nested-plus", "^(a+)+$", format!("{a}!")),
        ("alternation-star", "(a|aa)*c", a.clone()),
        ("star-star", "(a*)*b", a.clone()),
        ("word-space-star", r"^(\w+\s?)*$", format!("{a}!")),
        ("backref", r"(a+)+\1b", a.clone()),
        ("lookahead", r"^(?=(a+)+$)a", format!("{a}!")),
    ]
}

fn patterns(c: &mut Criterion) {
    let mut group = c.benchmark_group("pattern/pathological");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    for (name, pattern, subject) in cases() {
        let schema = Schema::compile(&json!({ "pattern": pattern })).expect("pattern compiles");
        let instance = Value::String(subject);
        group.bench_function(name, |b| {
            b.iter(|| black_box(schema.is_valid(black_box(&instance))))
        });
    }
    group.finish();
}

criterion_group!(benches, patterns);
criterion_main!(benches);
