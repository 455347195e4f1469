//! A small driver for profilers: loads one case, then repeats one figure for one validator.
//!
//! ```text
//! cargo build --profile profiling -p toolschema-bench --bin profile
//! valgrind --tool=callgrind --callgrind-out-file=cg.out \
//!     target/profiling/profile cql2 is_valid 20
//! callgrind_annotate cg.out | head -60
//! ```
//!
//! Arguments: `CASE MODE [ITERATIONS] [ENGINE]`, where `CASE` is a case name as in the
//! report (exact match, e.g. `cql2` or `mcp-tools/calm`), `MODE` is `compile`, `is_valid`,
//! `is_valid_hot` (each instance repeated in a row, so it stays in cache) or `errors`, `ITERATIONS` defaults to 10 and `ENGINE` to `toolschema` (also
//! `jsonschema`, `boon`; for `is_valid` also `generated`, toolschema's generated validators of
//! `toolschema-codegen`, and `jsonschema-macro`, `#[jsonschema::validator]`'s, as
//! bench-report's "Generated validators" table runs them). `is_valid_json` (toolschema only) validates each instance's
//! text with `Schema::is_valid_json`: the flat parse and the flat evaluator. Compiling for the validation modes happens once, before the
//! loop, so that the profile of a validation mode is dominated by validation.

use std::hint::black_box;
use std::time::Instant;
use toolschema_bench::{Boon, Case, Engine, JsonschemaRs, Toolschema};

fn run<E: Engine>(case: &Case, mode: &str, iterations: usize) {
    let start = Instant::now();
    match mode {
        "compile" => {
            // Kept until the end, as bench-report keeps them (dropping each at once would
            // hand the next compile warm, just-freed memory).
            // `PROFILE_BATCH` compiles are kept at a time (all by default).
            let batch = std::env::var("PROFILE_BATCH")
                .ok()
                .and_then(|b| b.parse().ok())
                .unwrap_or(iterations)
                .max(1);
            let mut outputs = Vec::with_capacity(batch * case.schemas.len());
            for k in 0..iterations {
                if k % batch == 0 {
                    drop(black_box(std::mem::take(&mut outputs)));
                }
                for schema in &case.schemas {
                    let input = E::prepare(schema);
                    outputs.push(E::compile(black_box(schema), input));
                }
            }
            drop(black_box(outputs));
        }
        "is_valid" | "errors" | "is_valid_hot" => {
            let compiled: Vec<E::Compiled> = case
                .schemas
                .iter()
                .map(|s| {
                    E::compile(s, E::prepare(s)).unwrap_or_else(|e| {
                        panic!("{}: {} cannot compile: {e}", case.name, E::NAME)
                    })
                })
                .collect();
            let start = Instant::now();
            let mut count = 0usize;
            if mode == "is_valid_hot" {
                // Each instance `iterations` times in a row: it stays in cache, as a
                // message just parsed does, so the figure is the validator's work alone.
                for inst in &case.instances {
                    let schema = &compiled[inst.schema];
                    for _ in 0..iterations {
                        count +=
                            usize::from(E::is_valid(black_box(schema), black_box(&inst.value)));
                    }
                }
            }
            for _ in 0..iterations * usize::from(mode != "is_valid_hot") {
                for inst in &case.instances {
                    let schema = black_box(&compiled[inst.schema]);
                    count += if mode == "errors" {
                        E::count_errors(schema, black_box(&inst.value))
                    } else {
                        usize::from(E::is_valid(schema, black_box(&inst.value)))
                    };
                }
            }
            eprintln!(
                "{} {} {mode}: {iterations} × {} instances in {:?} (result {count})",
                case.name,
                E::NAME,
                case.instances.len(),
                start.elapsed()
            );
            return;
        }
        other => panic!("unknown mode {other:?}: use compile, is_valid or errors"),
    }
    eprintln!(
        "{} {} {mode}: {iterations} × {} schemas in {:?}",
        case.name,
        E::NAME,
        case.schemas.len(),
        start.elapsed()
    );
}

/// The mode `is_valid_json`: toolschema from each instance's text, compiled once.
fn run_bytes(case: &Case, iterations: usize) {
    let compiled: Vec<toolschema::Schema> = case
        .schemas
        .iter()
        .map(|s| {
            Toolschema::compile(s, Toolschema::prepare(s))
                .unwrap_or_else(|e| panic!("{}: cannot compile: {e}", case.name))
        })
        .collect();
    let start = Instant::now();
    let mut count = 0usize;
    for _ in 0..iterations {
        for inst in &case.instances {
            let schema = black_box(&compiled[inst.schema]);
            count += usize::from(matches!(
                schema.is_valid_json(black_box(inst.text.as_slice())),
                Ok(true)
            ));
        }
    }
    eprintln!(
        "{} toolschema is_valid_json: {iterations} × {} instances in {:?} (result {count})",
        case.name,
        case.instances.len(),
        start.elapsed()
    );
}

/// The mode `is_valid` of a generated validator (`generated`: toolschema's, `jsonschema-macro`:
/// `#[jsonschema::validator]`'s), every instance whose schema has one.
fn run_generated(case: &Case, engine: &str, iterations: usize) {
    use toolschema_bench::generated;
    let checks: Vec<Option<generated::Check>> = (0..case.schemas.len())
        .map(|i| match engine {
            "generated" => generated::toolschema(&case.name, i).map(|g| g.0),
            _ => generated::jsonschema(&case.name, i),
        })
        .collect();
    let work: Vec<(generated::Check, &serde_json::Value)> = case
        .instances
        .iter()
        .filter_map(|inst| checks[inst.schema].map(|f| (f, &inst.value)))
        .collect();
    assert!(!work.is_empty(), "{}: no {engine} validator", case.name);
    let start = Instant::now();
    let mut count = 0usize;
    for _ in 0..iterations {
        for &(f, value) in &work {
            count += usize::from(black_box(f)(black_box(value)));
        }
    }
    eprintln!(
        "{} {engine} is_valid: {iterations} × {} instances in {:?} (result {count})",
        case.name,
        work.len(),
        start.elapsed()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(mode)) = (args.first(), args.get(1)) else {
        eprintln!(
            "usage: profile CASE compile|is_valid|errors [ITERATIONS] [toolschema|jsonschema|boon]"
        );
        std::process::exit(2);
    };
    let iterations = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10);
    let engine = args.get(3).map_or("toolschema", String::as_str);
    // With PROFILE_LOAD_ALL set, every case is loaded first, as the report does, so the
    // instances sit in the heap where the report's run puts them.
    let all = std::env::var_os("PROFILE_LOAD_ALL").is_some();
    let case = toolschema_bench::load_cases((!all).then_some(name.as_str()))
        .into_iter()
        .find(|c| &c.name == name)
        .unwrap_or_else(|| panic!("no case named {name:?}"));
    if mode == "is_valid_json" {
        return run_bytes(&case, iterations);
    }
    match engine {
        "generated" | "jsonschema-macro" if mode == "is_valid" => {
            run_generated(&case, engine, iterations)
        }
        "toolschema" => run::<Toolschema>(&case, mode, iterations),
        "jsonschema" => run::<JsonschemaRs>(&case, mode, iterations),
        "boon" => run::<Boon>(&case, mode, iterations),
        other => panic!("unknown engine {other:?}"),
    }
}
