//! Parsing alone, bytes to a layout ready to read: the bench corpus instances (one JSON
//! text per line of each case's `instances.jsonl`) through toolschema's flat parser, and,
//! side by side, `serde_json::from_slice::<Value>`, simd-json's tape and sonic-rs's
//! `Value`. Throughput in input bytes per second.
//!
//! ```text
//! cargo bench -p toolschema-bench --bench parse                # every case
//! cargo bench -p toolschema-bench --bench parse -- geojson     # one case
//! ```
//!
//! Each parser reuses what it can across instances, as a server would: the flat parser one
//! `Document`, simd-json one `Buffers` and one `Tape` (its input must be mutable, so each
//! text is first copied into a reused buffer, counted in its time); serde_json and sonic-rs
//! build a fresh value per text (they have no reusable form). Before the groups, the
//! scratch the flat layout needs per input byte is printed for each case.
//!
//! Settings are short (the machine is small and shared): 0.5 s warm-up, 2 s, 20 samples.

use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use toolschema::flat::{Document, Instance};
use toolschema_bench::bytes::scratch_use;

struct Case {
    name: String,
    lines: Vec<Vec<u8>>,
}

fn cases() -> Vec<Case> {
    let dir = toolschema_bench::corpus_dir();
    let mut cases: Vec<Case> = std::fs::read_dir(&dir)
        .expect("bench corpus")
        .flatten()
        .filter_map(|e| {
            let text = std::fs::read(e.path().join("instances.jsonl")).ok()?;
            let lines = text
                .split(|&b| b == b'\n')
                .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
                .map(<[u8]>::to_vec)
                .collect();
            Some(Case {
                name: e.file_name().to_string_lossy().into_owned(),
                lines,
            })
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

/// The flat layout's memory per input byte (see `toolschema_bench::bytes::ScratchUse`).
fn print_scratch(cases: &[Case]) {
    println!(
        "| case | instances | bytes | slot bytes / input byte | scratch bytes / input byte (fresh Document per text) | largest scratch / its input | reused Document: scratch / largest text |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for case in cases {
        let m = scratch_use(case.lines.iter().map(Vec::as_slice));
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            case.name,
            m.texts,
            m.input_bytes,
            m.slots_per_byte(),
            m.fresh_per_byte(),
            m.worst_ratio,
            m.reused_per_largest_byte()
        );
    }
}

fn parse(c: &mut Criterion) {
    let cases = cases();
    print_scratch(&cases);
    for case in &cases {
        let bytes: usize = case.lines.iter().map(Vec::len).sum();
        let mut group = c.benchmark_group(format!("parse/{}", case.name));
        group.throughput(Throughput::Bytes(bytes as u64));

        let mut doc = Document::new();
        group.bench_function("toolschema-flat", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for line in &case.lines {
                    if let Ok(tree) = doc.parse(black_box(line)) {
                        n += tree.root().kind() as usize;
                    }
                }
                n
            });
        });

        group.bench_function("serde_json-Value", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for line in &case.lines {
                    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(black_box(line)) {
                        n += usize::from(v.is_object());
                    }
                }
                n
            });
        });

        let mut buffers = simd_json::Buffers::new(bytes);
        let mut tape = simd_json::Tape::null();
        let mut buf: Vec<u8> = Vec::new();
        group.bench_function("simd-json-tape", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for line in &case.lines {
                    buf.clear();
                    buf.extend_from_slice(black_box(line));
                    let mut t = std::mem::replace(&mut tape, simd_json::Tape::null()).reset();
                    if simd_json::fill_tape(&mut buf, &mut buffers, &mut t).is_ok() {
                        n += t.0.len();
                    }
                    tape = t.reset();
                }
                n
            });
        });

        group.bench_function("sonic-rs-Value", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for line in &case.lines {
                    if let Ok(v) = sonic_rs::from_slice::<sonic_rs::Value>(black_box(line)) {
                        n += usize::from(sonic_rs::JsonValueTrait::is_object(&v));
                    }
                }
                n
            });
        });
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion::criterion_group! {
    name = benches;
    config = config();
    targets = parse
}
criterion::criterion_main!(benches);
