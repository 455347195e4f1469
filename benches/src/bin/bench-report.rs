//! Side-by-side report: toolschema vs jsonschema-rs vs boon on the benchmark corpus and the
//! MCP tool corpus, as markdown on stdout (progress on stderr).
//!
//! ```text
//! cargo run --release -p toolschema-bench --bin bench-report [-- [FILTER] [--samples N] [--sample-ms MS]
//!     [--blaze PATH] [--blaze-loop N] [--blaze-rounds R]]
//! ```
//!
//! Timing is its own (not criterion's): each figure is the median of `--samples` samples
//! (default 21); a sample runs the routine enough times to last about `--sample-ms`
//! (default 10 ms), and the three validators (plus the floor) take turns sample by sample,
//! so that a noisy neighbour hits them alike. Compile outputs are dropped outside the
//! timed region; boon's owned copy of the schema is made outside it too.
//!
//! Memory: a counting global allocator measures the bytes still allocated after compiling
//! (the compiled schema alone; boon's `Compiler` and its copy of the document are dropped)
//! and the peak above the starting point during compile, after one warm-up compile so
//! that lazily built statics (meta-schemas, tables) are not charged to the case. It counts
//! only while memory is measured, so that timed code (`serde_json`'s allocations above
//! all) does not pay for the counters.
//!
//! Bytes → verdict: each instance's JSON text (the corpus line, or the generated value as
//! serde_json writes it) through toolschema's `is_valid_json` and through
//! `serde_json::from_slice` + `is_valid` of toolschema and of jsonschema; and the flat
//! parser's scratch per input byte.
//!
//! Blaze (the Sourcemeta `jsonschema` CLI, `benches/blaze.sh` installs it pinned): on its
//! own in-cache protocol (`validate --fast --benchmark --loop N`, each instance `N` times in
//! a row, every call timed alone), beside toolschema timed the same way in a fresh process
//! of its own (this binary run with `--in-cache-child`), on the bench corpus: `is_valid` on
//! a `Value`, and on its own flat layout, each instance parsed once as Blaze parses it
//! once into its own. Without a usable CLI the column is left out with a note.

use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::{Duration, Instant};
use toolschema_bench::blaze::{self, Blaze};
use toolschema_bench::bytes::{ScratchUse, scratch_use, toolschema_bytes, via_value};
use toolschema_bench::generated::{self, Check};
use toolschema_bench::{Boon, Case, Engine, JsonschemaRs, Origin, Toolschema, walk};

struct Counting;

static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
/// Whether the allocator counts: only inside [`memory`] (whose window frees only what it
/// allocated there, so its deltas hold), never while anything is timed.
static COUNTING: AtomicBool = AtomicBool::new(false);

fn grow(bytes: usize) {
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    let now = CURRENT.fetch_add(bytes as isize, Ordering::Relaxed) + bytes as isize;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrink(bytes: usize) {
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    CURRENT.fetch_sub(bytes as isize, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrink(layout.size());
            grow(new_size);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Sampling settings.
#[derive(Clone, Copy)]
struct Sampling {
    samples: usize,
    sample: Duration,
}

/// A timed routine: runs `iters` times and returns the time spent in the timed part.
type Routine<'a> = Box<dyn FnMut(u64) -> Duration + 'a>;

/// Runs the routines in turn, sample by sample; returns each one's median time per call.
fn measure(sampling: Sampling, routines: &mut [Routine<'_>]) -> Vec<f64> {
    let iters: Vec<u64> = routines
        .iter_mut()
        .map(|routine| {
            // Warm up and calibrate: double until a run lasts a tenth of a sample.
            let mut n = 1u64;
            loop {
                let t = routine(n);
                if t * 10 >= sampling.sample || n >= 1 << 24 {
                    let per = t.as_secs_f64() / n as f64;
                    let fit = (sampling.sample.as_secs_f64() / per.max(1e-9)) as u64;
                    break fit.clamp(1, 1 << 26);
                }
                n *= 2;
            }
        })
        .collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(sampling.samples); routines.len()];
    for _ in 0..sampling.samples {
        for (i, routine) in routines.iter_mut().enumerate() {
            let t = routine(iters[i]);
            times[i].push(t.as_secs_f64() * 1e9 / iters[i] as f64);
        }
    }
    times.into_iter().map(median).collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// One engine's compiled schemas for a case (`None` where compiling failed).
struct Compiled<E: Engine> {
    schemas: Vec<Option<E::Compiled>>,
    errors: Vec<(usize, String)>,
}

fn compile_all<E: Engine>(case: &Case) -> Compiled<E> {
    let mut schemas = Vec::new();
    let mut errors = Vec::new();
    for (i, schema) in case.schemas.iter().enumerate() {
        match E::compile(schema, E::prepare(schema)) {
            Ok(c) => schemas.push(Some(c)),
            Err(e) => {
                schemas.push(None);
                errors.push((i, e));
            }
        }
    }
    Compiled { schemas, errors }
}

fn compile_routine<'a, E: Engine>(schemas: &'a [&'a Value]) -> Routine<'a> {
    Box::new(move |iters| {
        let inputs: Vec<E::Input> = (0..iters)
            .flat_map(|_| schemas.iter().map(|s| E::prepare(s)))
            .collect();
        let mut outputs = Vec::with_capacity(inputs.len());
        let mut inputs = inputs.into_iter();
        let start = Instant::now();
        for _ in 0..iters {
            for schema in schemas {
                let input = inputs.next().expect("one input per compile");
                outputs.push(E::compile(black_box(schema), input));
            }
        }
        let elapsed = start.elapsed();
        drop(black_box(outputs));
        elapsed
    })
}

/// Instances whose schema every engine compiled, with that schema's index.
type Work<'a> = Vec<(usize, &'a Value)>;

fn is_valid_routine<'a, E: Engine>(compiled: &'a Compiled<E>, work: &'a Work<'a>) -> Routine<'a> {
    Box::new(move |iters| {
        let start = Instant::now();
        let mut count = 0usize;
        for _ in 0..iters {
            for (schema, instance) in work {
                if let Some(c) = &compiled.schemas[*schema] {
                    count += usize::from(E::is_valid(black_box(c), black_box(instance)));
                }
            }
        }
        black_box(count);
        start.elapsed()
    })
}

/// Instances with a generated validator for their schema.
type CheckWork<'a> = Vec<(Check, &'a Value)>;

fn check_routine<'a>(work: &'a CheckWork<'a>) -> Routine<'a> {
    Box::new(move |iters| {
        let start = Instant::now();
        let mut count = 0usize;
        for _ in 0..iters {
            for (check, instance) in work {
                count += usize::from(black_box(*check)(black_box(instance)));
            }
        }
        black_box(count);
        start.elapsed()
    })
}

/// The generated validators (`pick`) of every instance of `work`, when each has one.
fn checks_for<'a>(
    case: &Case,
    work: &Work<'a>,
    pick: impl Fn(&str, usize) -> Option<Check>,
) -> Option<CheckWork<'a>> {
    work.iter()
        .map(|&(schema, instance)| pick(&case.name, schema).map(|f| (f, instance)))
        .collect()
}

fn errors_routine<'a, E: Engine>(compiled: &'a Compiled<E>, work: &'a Work<'a>) -> Routine<'a> {
    Box::new(move |iters| {
        let start = Instant::now();
        let mut count = 0usize;
        for _ in 0..iters {
            for (schema, instance) in work {
                if let Some(c) = &compiled.schemas[*schema] {
                    count += E::count_errors(black_box(c), black_box(instance));
                }
            }
        }
        black_box(count);
        start.elapsed()
    })
}

/// Instances as JSON text, with their schema's index (the same instances as [`Work`]).
type Texts<'a> = Vec<(usize, &'a [u8])>;

/// A bytes → verdict pipeline over every text: `check` with the text's compiled schema.
fn bytes_routine<'a, C>(
    compiled: &'a [Option<C>],
    texts: &'a Texts<'a>,
    check: impl Fn(&C, &[u8]) -> bool + 'a,
) -> Routine<'a> {
    Box::new(move |iters| {
        let start = Instant::now();
        let mut count = 0usize;
        for _ in 0..iters {
            for (schema, text) in texts {
                if let Some(c) = &compiled[*schema] {
                    count += usize::from(check(black_box(c), black_box(text)));
                }
            }
        }
        black_box(count);
        start.elapsed()
    })
}

fn floor_routine<'a>(work: &'a Work<'a>) -> Routine<'a> {
    Box::new(move |iters| {
        let start = Instant::now();
        let mut sum = 0usize;
        for _ in 0..iters {
            for (_, instance) in work {
                sum = sum.wrapping_add(walk(black_box(instance)));
            }
        }
        black_box(sum);
        start.elapsed()
    })
}

/// Bytes retained by the compiled schemas, and the peak above the start during compile.
fn memory<E: Engine>(schemas: &[&Value]) -> (f64, f64) {
    COUNTING.store(true, Ordering::Relaxed);
    // Warm-up: lazily built statics are not the case's.
    for schema in schemas {
        drop(E::compile(schema, E::prepare(schema)));
    }
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut kept = Vec::with_capacity(schemas.len());
    for schema in schemas {
        let input = E::prepare(schema);
        kept.push(E::compile(schema, input));
    }
    let after = CURRENT.load(Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed);
    // The Vec holding the results is the harness's, not the engines'.
    let own = (kept.capacity() * std::mem::size_of::<Result<E::Compiled, String>>()) as isize;
    drop(kept);
    COUNTING.store(false, Ordering::Relaxed);
    ((after - before - own) as f64, (peak - before - own) as f64)
}

/// The verdicts of one instance.
struct Verdict {
    is_valid: Option<bool>,
    errors: Option<usize>,
}

fn verdict<E: Engine>(compiled: &Compiled<E>, schema: usize, instance: &Value) -> Verdict {
    match &compiled.schemas[schema] {
        Some(c) => Verdict {
            is_valid: Some(E::is_valid(c, instance)),
            errors: Some(E::count_errors(c, instance)),
        },
        None => Verdict {
            is_valid: None,
            errors: None,
        },
    }
}

fn describe<E: Engine>(compiled: &Compiled<E>, schema: usize, instance: &Value) -> String {
    match &compiled.schemas[schema] {
        Some(c) => {
            let errors = E::describe_errors(c, instance);
            if errors.is_empty() {
                "no errors".to_string()
            } else {
                let shown: Vec<String> = errors.iter().take(3).map(|e| clip(e, 140)).collect();
                let more = errors.len().saturating_sub(3);
                if more > 0 {
                    format!("{} (+{more} more)", shown.join("; "))
                } else {
                    shown.join("; ")
                }
            }
        }
        None => "schema did not compile".to_string(),
    }
}

fn clip(s: &str, max: usize) -> String {
    let flat = s.replace('\n', " ").replace('|', "\\|");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}

fn show(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "valid",
        Some(false) => "invalid",
        None => "n/a",
    }
}

/// Everything measured for one case.
struct Row {
    name: String,
    origin: Origin,
    dialect: String,
    used_schemas: usize,
    instances: usize,
    valid: usize,
    compile: [f64; 3],
    is_valid: [f64; 3],
    errors: [f64; 3],
    floor: f64,
    retained: [f64; 3],
    peak: [f64; 3],
    /// Bytes → verdict per instance: toolschema `is_valid_json`, serde_json + toolschema
    /// `is_valid`, serde_json + jsonschema `is_valid`.
    bytes: [f64; 3],
    /// Mean bytes of JSON text per instance.
    text_bytes: f64,
    /// In cache, per instance, on Blaze's protocol: Blaze and toolschema `is_valid` on a
    /// `Value`, the mean over the case's instances, then the median instance (each the
    /// median of the rounds); then toolschema on its own flat layout, mean and median.
    hot: [f64; 6],
    /// Why the case has no Blaze figure (empty when it has one, or when Blaze is off).
    blaze_note: String,
    /// `is_valid` per instance, measured side by side: toolschema's runtime engine, its
    /// generated validators, jsonschema-rs's runtime, `#[jsonschema::validator]` (NaN
    /// where a validator is missing for some schema of the case).
    generated: [f64; 4],
    /// Whether every schema of the case is fully generated (no subschema left to the
    /// engine).
    fully_generated: bool,
    scratch: ScratchUse,
    note: String,
}

fn time(ns: f64) -> String {
    if !ns.is_finite() {
        "—".to_string()
    } else if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn bytes(f: f64) -> String {
    if !f.is_finite() {
        "—".to_string()
    } else if f.abs() < 1024.0 {
        format!("{f:.0} B")
    } else if f.abs() < 1024.0 * 1024.0 {
        format!("{:.1} KiB", f / 1024.0)
    } else {
        format!("{:.2} MiB", f / 1024.0 / 1024.0)
    }
}

fn ratio(other: f64, ours: f64) -> f64 {
    other / ours
}

fn fmt_ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}×")
    } else {
        "—".to_string()
    }
}

fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs
        .filter(|x| x.is_finite() && *x > 0.0)
        .fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    if n == 0 {
        f64::NAN
    } else {
        (sum / n as f64).exp()
    }
}

struct Args {
    filter: Option<String>,
    sampling: Sampling,
    /// The Sourcemeta CLI named by `--blaze PATH` (else `$TOOLSCHEMA_BENCH_BLAZE`, else
    /// where `benches/blaze.sh` installs it).
    blaze: Option<std::path::PathBuf>,
    /// `--loop` of the in-cache protocol (default 100).
    blaze_loop: u64,
    /// Rounds of the in-cache protocol per case (default 3), each side's in one run of
    /// its process; the median of each side counts.
    blaze_rounds: usize,
}

fn parse_args() -> Args {
    let mut filter = None;
    let mut samples = 21usize;
    let mut sample_ms = 10u64;
    let mut blaze = None;
    let mut blaze_loop = 100u64;
    let mut blaze_rounds = 3usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--samples" => {
                samples = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--samples takes a number");
            }
            "--sample-ms" => {
                sample_ms = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--sample-ms takes a number");
            }
            "--blaze" => {
                blaze = Some(args.next().expect("--blaze takes a path").into());
            }
            "--blaze-loop" => {
                blaze_loop = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--blaze-loop takes a number");
            }
            "--blaze-rounds" => {
                blaze_rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--blaze-rounds takes a number");
            }
            "--bench" => {} // passed by `cargo bench`-style runners; ignored
            other => filter = Some(other.to_string()),
        }
    }
    Args {
        filter,
        sampling: Sampling {
            samples: samples.max(1),
            sample: Duration::from_millis(sample_ms.max(1)),
        },
        blaze,
        blaze_loop: blaze_loop.max(1),
        blaze_rounds: blaze_rounds.max(1),
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some(blaze::CHILD_FLAG) {
        // The toolschema side of Blaze's protocol, in a fresh process (see `blaze`).
        match blaze::toolschema_child(&argv[2..]) {
            Ok(out) => print!("{out}"),
            Err(why) => {
                eprintln!("{why}");
                std::process::exit(1);
            }
        }
        return;
    }
    let args = parse_args();
    let started = Instant::now();
    let cases = toolschema_bench::load_cases(args.filter.as_deref());
    if cases.is_empty() {
        eprintln!("no case matches");
        std::process::exit(2);
    }
    let blaze = Blaze::locate(args.blaze.as_deref());
    match &blaze {
        Ok(b) => eprintln!("Blaze: {}", b.version),
        Err(why) => eprintln!("Blaze column left out: {why}"),
    }
    let mut blaze_disagreements = String::new();
    let mut rows = Vec::new();
    let mut disagreements = String::new();
    let mut inconsistencies = String::new();
    let mut unexpected = String::new();
    let mut compile_failures = String::new();
    let mut disagreement_count = 0usize;
    for case in &cases {
        eprintln!("[{:>5.1}s] {}", started.elapsed().as_secs_f64(), case.name);
        let ts = compile_all::<Toolschema>(case);
        let js = compile_all::<JsonschemaRs>(case);
        let bn = compile_all::<Boon>(case);
        for (engine, errors) in [
            (Toolschema::NAME, &ts.errors),
            (JsonschemaRs::NAME, &js.errors),
            (Boon::NAME, &bn.errors),
        ] {
            for (i, e) in errors {
                let _ = writeln!(
                    compile_failures,
                    "| {} | {} | {engine} | {} |",
                    case.name,
                    case.schema_labels[*i],
                    clip(e, 300)
                );
            }
        }
        // Who takes part: all three if they compiled every schema; otherwise the largest
        // group that did (a validator that cannot compile the case is left out of it).
        let ok: [Vec<bool>; 3] = [
            ts.schemas.iter().map(Option::is_some).collect(),
            js.schemas.iter().map(Option::is_some).collect(),
            bn.schemas.iter().map(Option::is_some).collect(),
        ];
        let covers = |p: &[bool; 3], i: usize| (0..3).all(|e| !p[e] || ok[e][i]);
        let choices: [[bool; 3]; 7] = [
            [true, true, true],
            [true, true, false],
            [true, false, true],
            [false, true, true],
            [true, false, false],
            [false, true, false],
            [false, false, true],
        ];
        let part = choices
            .iter()
            .find(|p| (0..case.schemas.len()).all(|i| covers(p, i)))
            .copied()
            .unwrap_or([true; 3]);
        let usable: Vec<bool> = (0..case.schemas.len()).map(|i| covers(&part, i)).collect();
        let work: Work<'_> = case
            .instances
            .iter()
            .filter(|inst| usable[inst.schema])
            .map(|inst| (inst.schema, &inst.value))
            .collect();
        let used: Vec<&Value> = case
            .schemas
            .iter()
            .zip(&usable)
            .filter(|(_, ok)| **ok)
            .map(|(s, _)| s)
            .collect();

        // Agreement, on every instance (also those whose schema failed somewhere).
        let mut valid = 0usize;
        for (index, inst) in case.instances.iter().enumerate() {
            let v = [
                verdict(&ts, inst.schema, &inst.value),
                verdict(&js, inst.schema, &inst.value),
                verdict(&bn, inst.schema, &inst.value),
            ];
            let names = [Toolschema::NAME, JsonschemaRs::NAME, Boon::NAME];
            for (name, v) in names.iter().zip(&v) {
                if let (Some(ok), Some(n)) = (v.is_valid, v.errors)
                    && ok != (n == 0)
                {
                    let _ = writeln!(
                        inconsistencies,
                        "| {} | {} ({}) | {name} | is_valid says {}, error path found {n} |",
                        case.name,
                        index,
                        inst.label,
                        show(Some(ok))
                    );
                }
            }
            let known: Vec<bool> = v.iter().filter_map(|v| v.is_valid).collect();
            let agree = known.windows(2).all(|w| w[0] == w[1]);
            if !agree {
                disagreement_count += 1;
                let _ = writeln!(
                    disagreements,
                    "| {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} |",
                    case.name,
                    index,
                    inst.label,
                    show(inst.expected),
                    show(v[0].is_valid),
                    show(v[1].is_valid),
                    show(v[2].is_valid),
                    describe(&ts, inst.schema, &inst.value),
                    describe(&js, inst.schema, &inst.value),
                    describe(&bn, inst.schema, &inst.value),
                );
            } else if let (Some(expected), Some(got)) = (inst.expected, known.first())
                && expected != *got
            {
                let _ = writeln!(
                    unexpected,
                    "| {} | {} ({}) | {} | {} | {} |",
                    case.name,
                    index,
                    inst.label,
                    show(Some(expected)),
                    show(Some(*got)),
                    describe(&ts, inst.schema, &inst.value),
                );
            }
            if let (Some(c), Some(ok)) = (&ts.schemas[inst.schema], v[0].is_valid) {
                let from_text = c.is_valid_json(&inst.text);
                if from_text != Ok(ok) {
                    let _ = writeln!(
                        inconsistencies,
                        "| {} | {} ({}) | {} | is_valid says {}, is_valid_json on its text {from_text:?} |",
                        case.name,
                        index,
                        inst.label,
                        Toolschema::NAME,
                        show(Some(ok)),
                    );
                }
            }
            if usable[inst.schema] && known.first() == Some(&true) {
                valid += 1;
            }
        }

        let mut row = Row {
            name: case.name.clone(),
            origin: case.origin,
            dialect: case.dialect.clone(),
            used_schemas: used.len(),
            instances: work.len(),
            valid,
            compile: [f64::NAN; 3],
            is_valid: [f64::NAN; 3],
            errors: [f64::NAN; 3],
            floor: f64::NAN,
            retained: [f64::NAN; 3],
            peak: [f64::NAN; 3],
            bytes: [f64::NAN; 3],
            text_bytes: f64::NAN,
            hot: [f64::NAN; 6],
            blaze_note: String::new(),
            generated: [f64::NAN; 4],
            fully_generated: false,
            scratch: scratch_use(case.instances.iter().map(|i| i.text.as_slice())),
            note: String::new(),
        };
        let names = [Toolschema::NAME, JsonschemaRs::NAME, Boon::NAME];
        let mut notes = Vec::new();
        for (e, name) in names.iter().enumerate() {
            if !part[e] {
                notes.push(format!("{name} left out (a schema did not compile)"));
            }
        }
        if let Some(why) = &case.skipped {
            notes.push(format!("skipped: {why}"));
        } else if used.is_empty() {
            notes.push("no schema compiled".to_string());
        } else if used.len() < case.schemas.len() {
            notes.push(format!(
                "{} of {} schemas compiled by all three; timings on those",
                used.len(),
                case.schemas.len()
            ));
        }
        let raised = used
            .iter()
            .filter(|s| toolschema_bench::engines::exceeds_default_limits(s))
            .count();
        if raised > 0 {
            notes.push(format!(
                "toolschema compiled {raised} schema(s) with `Limits::none()`: the default limits refuse them"
            ));
        }
        row.note = notes.join("; ");
        if used.is_empty() {
            rows.push(row);
            continue;
        }

        // Runs the participating routines and spreads the medians back by validator.
        let run = |routines: Vec<(usize, Routine<'_>)>| -> [f64; 4] {
            let (slots, mut routines): (Vec<usize>, Vec<Routine<'_>>) = routines
                .into_iter()
                .filter(|(slot, _)| *slot == 3 || part[*slot])
                .unzip();
            let medians = measure(args.sampling, &mut routines);
            let mut out = [f64::NAN; 4];
            for (slot, t) in slots.into_iter().zip(medians) {
                out[slot] = t;
            }
            out
        };
        let t = run(vec![
            (0, compile_routine::<Toolschema>(&used)),
            (1, compile_routine::<JsonschemaRs>(&used)),
            (2, compile_routine::<Boon>(&used)),
        ]);
        row.compile = [t[0], t[1], t[2]];
        if !work.is_empty() {
            let n = work.len() as f64;
            let t = run(vec![
                (0, is_valid_routine(&ts, &work)),
                (1, is_valid_routine(&js, &work)),
                (2, is_valid_routine(&bn, &work)),
                (3, floor_routine(&work)),
            ]);
            row.is_valid = [t[0] / n, t[1] / n, t[2] / n];
            row.floor = t[3] / n;

            // Generated validators, side by side with both runtimes, in one run; their
            // verdicts checked against toolschema's runtime first.
            let ours = checks_for(case, &work, |c, i| generated::toolschema(c, i).map(|g| g.0));
            let theirs = checks_for(case, &work, generated::jsonschema);
            row.fully_generated = work
                .iter()
                .all(|&(s, _)| generated::toolschema(&case.name, s).is_some_and(|g| g.1));
            for (name, checks) in [
                ("toolschema generated", &ours),
                ("jsonschema macro", &theirs),
            ] {
                for (&(schema, instance), (check, _)) in work.iter().zip(checks.iter().flatten()) {
                    let runtime = ts.schemas[schema]
                        .as_ref()
                        .map(|c| Toolschema::is_valid(c, instance));
                    if runtime.is_some_and(|r| r != check(instance)) {
                        let _ = writeln!(
                            inconsistencies,
                            "| {} | schema {schema} | {name} | says {}, toolschema's runtime {} |",
                            case.name,
                            check(instance),
                            show(runtime)
                        );
                    }
                }
            }
            let mut slots = Vec::new();
            let mut routines: Vec<Routine<'_>> = Vec::new();
            if part[0] {
                slots.push(0);
                routines.push(is_valid_routine(&ts, &work));
            }
            if let Some(ours) = &ours {
                slots.push(1);
                routines.push(check_routine(ours));
            }
            if part[1] {
                slots.push(2);
                routines.push(is_valid_routine(&js, &work));
            }
            if let Some(theirs) = &theirs {
                slots.push(3);
                routines.push(check_routine(theirs));
            }
            let medians = measure(args.sampling, &mut routines);
            for (slot, t) in slots.into_iter().zip(medians) {
                row.generated[slot] = t / n;
            }
            let t = run(vec![
                (0, errors_routine(&ts, &work)),
                (1, errors_routine(&js, &work)),
                (2, errors_routine(&bn, &work)),
            ]);
            row.errors = [t[0] / n, t[1] / n, t[2] / n];

            // Bytes → verdict: the same texts through the three pipelines, in turn.
            let texts: Texts<'_> = case
                .instances
                .iter()
                .filter(|inst| usable[inst.schema])
                .map(|inst| (inst.schema, inst.text.as_slice()))
                .collect();
            row.text_bytes = texts.iter().map(|(_, t)| t.len()).sum::<usize>() as f64 / n;
            let mut slots = Vec::new();
            let mut routines: Vec<Routine<'_>> = Vec::new();
            if part[0] {
                slots.extend([0, 1]);
                routines.push(bytes_routine(&ts.schemas, &texts, toolschema_bytes));
                routines.push(bytes_routine(&ts.schemas, &texts, via_value::<Toolschema>));
            }
            if part[1] {
                slots.push(2);
                routines.push(bytes_routine(
                    &js.schemas,
                    &texts,
                    via_value::<JsonschemaRs>,
                ));
            }
            for (slot, t) in slots.into_iter().zip(measure(args.sampling, &mut routines)) {
                row.bytes[slot] = t / n;
            }
        }

        // In cache, on Blaze's protocol: the bench corpus (one schema a case).
        if let (Ok(blaze), Origin::Corpus, [schema], [Some(compiled)]) = (
            &blaze,
            case.origin,
            case.schemas.as_slice(),
            ts.schemas.as_slice(),
        ) && !case.instances.is_empty()
        {
            let texts: Vec<&[u8]> = case.instances.iter().map(|i| i.text.as_slice()).collect();
            let n = case.instances.len() as f64;
            // Per round: the mean and the median of the per-instance means.
            let summary = |timings: &[blaze::Timing]| {
                let means: Vec<f64> = timings.iter().map(|t| t.mean_ns).collect();
                (means.iter().sum::<f64>() / n, median(means))
            };
            let (mut theirs, mut theirs_median) = (Vec::new(), Vec::new());
            match blaze.run(schema, &texts, args.blaze_loop, args.blaze_rounds) {
                Ok(rounds) => {
                    for timings in &rounds {
                        let (mean, mid) = summary(timings);
                        theirs.push(mean);
                        theirs_median.push(mid);
                    }
                    let first = rounds.first().map(Vec::as_slice).unwrap_or_default();
                    for (index, (inst, t)) in case.instances.iter().zip(first).enumerate() {
                        let ours = Toolschema::is_valid(compiled, &inst.value);
                        if ours != t.valid {
                            let _ = writeln!(
                                blaze_disagreements,
                                "| {} | {index} ({}) | {} | {} | {} |",
                                case.name,
                                inst.label,
                                show(inst.expected),
                                show(Some(ours)),
                                show(Some(t.valid)),
                            );
                        }
                    }
                }
                Err(why) => {
                    row.blaze_note = clip(&why, 300);
                    eprintln!("Blaze on {}: {why}", case.name);
                }
            }
            // toolschema on a `Value`, then on its own layout (each instance parsed once).
            let mut ours = [(); 2].map(|()| (Vec::new(), Vec::new()));
            for (layout, (means, medians)) in [blaze::Layout::Value, blaze::Layout::Flat]
                .into_iter()
                .zip(ours.iter_mut())
            {
                let exe = std::env::current_exe().map_err(|e| e.to_string());
                match exe.and_then(|exe| {
                    blaze::run_toolschema(
                        &exe,
                        layout,
                        schema,
                        &texts,
                        args.blaze_loop,
                        args.blaze_rounds,
                    )
                }) {
                    Ok(rounds) => {
                        for timings in &rounds {
                            let (mean, mid) = summary(timings);
                            means.push(mean);
                            medians.push(mid);
                        }
                    }
                    Err(why) => {
                        eprintln!(
                            "toolschema ({layout:?}) on Blaze's protocol, {}: {why}",
                            case.name
                        );
                        row.blaze_note = clip(&format!("toolschema's run failed: {why}"), 300);
                    }
                }
            }
            let [(value, value_median), (flat, flat_median)] = ours;
            row.hot = [
                median(theirs),
                median(value),
                median(theirs_median),
                median(value_median),
                median(flat),
                median(flat_median),
            ];
        }
        let none = (f64::NAN, f64::NAN);
        let m = [
            if part[0] {
                memory::<Toolschema>(&used)
            } else {
                none
            },
            if part[1] {
                memory::<JsonschemaRs>(&used)
            } else {
                none
            },
            if part[2] { memory::<Boon>(&used) } else { none },
        ];
        row.retained = [m[0].0, m[1].0, m[2].0];
        row.peak = [m[0].1, m[1].1, m[2].1];
        rows.push(row);
    }
    let elapsed = started.elapsed();
    print_report(
        &args,
        &rows,
        (&blaze, &blaze_disagreements),
        elapsed,
        disagreement_count,
        &disagreements,
        &inconsistencies,
        &unexpected,
        &compile_failures,
    );
}

#[allow(clippy::too_many_arguments)]
fn print_report(
    args: &Args,
    rows: &[Row],
    (blaze, blaze_disagreements): (&Result<Blaze, String>, &str),
    elapsed: Duration,
    disagreement_count: usize,
    disagreements: &str,
    inconsistencies: &str,
    unexpected: &str,
    compile_failures: &str,
) {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Medians of {} samples of ~{} ms each; validators take turns sample by sample. Ratios are competitor time / toolschema time (> 1: toolschema is faster). Run took {:.0} s.\n",
        args.sampling.samples,
        args.sampling.sample.as_millis(),
        elapsed.as_secs_f64()
    );

    #[allow(clippy::type_complexity)]
    let groups: [(&str, fn(&Row) -> bool); 3] = [
        ("geomean, bench corpus", |r| r.origin == Origin::Corpus),
        ("geomean, MCP tools", |r| r.origin == Origin::McpTools),
        ("geomean, all", |_| true),
    ];

    // is_valid
    let _ = writeln!(out, "### `is_valid`, per instance\n");
    let _ = writeln!(
        out,
        "| case | dialect | instances (valid) | floor | toolschema | jsonschema | boon | jsonschema / ts | boon / ts | ts / floor |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.dialect,
            r.instances,
            r.valid,
            time(r.floor),
            time(r.is_valid[0]),
            time(r.is_valid[1]),
            time(r.is_valid[2]),
            fmt_ratio(ratio(r.is_valid[1], r.is_valid[0])),
            fmt_ratio(ratio(r.is_valid[2], r.is_valid[0])),
            fmt_ratio(ratio(r.is_valid[0], r.floor)),
        );
    }
    for (label, keep) in groups {
        let sel: Vec<&Row> = rows.iter().filter(|r| keep(r)).collect();
        let _ = writeln!(
            out,
            "| **{label}** ({}) | | | | | | | **{}** | **{}** | **{}** |",
            sel.len(),
            fmt_ratio(geomean(
                sel.iter().map(|r| ratio(r.is_valid[1], r.is_valid[0]))
            )),
            fmt_ratio(geomean(
                sel.iter().map(|r| ratio(r.is_valid[2], r.is_valid[0]))
            )),
            fmt_ratio(geomean(sel.iter().map(|r| ratio(r.is_valid[0], r.floor)))),
        );
    }

    // generated validators
    let _ = writeln!(
        out,
        "\n### Generated validators: `is_valid`, per instance\n\ntoolschema's runtime engine, its generated validators (`toolschema-codegen`), jsonschema-rs's runtime (0.61.2) and `#[jsonschema::validator]` (0.60.2: see `benches/jsonschema-macro`), side by side in one run. \"full\": every schema of the case is generated whole (else some subschema is left to the engine).\n"
    );
    let _ = writeln!(
        out,
        "| case | full | ts runtime | ts generated | jsonschema | jsonschema macro | ts runtime / generated | jsonschema macro / ts generated |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let g = r.generated;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            if r.fully_generated { "yes" } else { "no" },
            time(g[0]),
            time(g[1]),
            time(g[2]),
            time(g[3]),
            fmt_ratio(ratio(g[0], g[1])),
            fmt_ratio(ratio(g[3], g[1])),
        );
    }
    for (label, keep) in groups {
        let sel: Vec<&Row> = rows.iter().filter(|r| keep(r)).collect();
        let _ = writeln!(
            out,
            "| **{label}** ({}) | | | | | | **{}** | **{}** |",
            sel.len(),
            fmt_ratio(geomean(
                sel.iter().map(|r| ratio(r.generated[0], r.generated[1]))
            )),
            fmt_ratio(geomean(
                sel.iter().map(|r| ratio(r.generated[3], r.generated[1]))
            )),
        );
    }

    // errors
    let _ = writeln!(
        out,
        "\n### Error path (collect every error), per instance\n"
    );
    let _ = writeln!(
        out,
        "| case | toolschema | jsonschema | boon | jsonschema / ts | boon / ts | ts / floor |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            time(r.errors[0]),
            time(r.errors[1]),
            time(r.errors[2]),
            fmt_ratio(ratio(r.errors[1], r.errors[0])),
            fmt_ratio(ratio(r.errors[2], r.errors[0])),
            fmt_ratio(ratio(r.errors[0], r.floor)),
        );
    }
    for (label, keep) in groups {
        let sel: Vec<&Row> = rows.iter().filter(|r| keep(r)).collect();
        let _ = writeln!(
            out,
            "| **{label}** ({}) | | | | **{}** | **{}** | **{}** |",
            sel.len(),
            fmt_ratio(geomean(sel.iter().map(|r| ratio(r.errors[1], r.errors[0])))),
            fmt_ratio(geomean(sel.iter().map(|r| ratio(r.errors[2], r.errors[0])))),
            fmt_ratio(geomean(sel.iter().map(|r| ratio(r.errors[0], r.floor)))),
        );
    }

    // compile
    let _ = writeln!(out, "\n### Compile (all of the case's schemas)\n");
    let _ = writeln!(
        out,
        "| case | schemas | toolschema | jsonschema | boon | jsonschema / ts | boon / ts |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.used_schemas,
            time(r.compile[0]),
            time(r.compile[1]),
            time(r.compile[2]),
            fmt_ratio(ratio(r.compile[1], r.compile[0])),
            fmt_ratio(ratio(r.compile[2], r.compile[0])),
        );
    }
    for (label, keep) in groups {
        let sel: Vec<&Row> = rows.iter().filter(|r| keep(r)).collect();
        let _ = writeln!(
            out,
            "| **{label}** ({}) | | | | | **{}** | **{}** |",
            sel.len(),
            fmt_ratio(geomean(
                sel.iter().map(|r| ratio(r.compile[1], r.compile[0]))
            )),
            fmt_ratio(geomean(
                sel.iter().map(|r| ratio(r.compile[2], r.compile[0]))
            )),
        );
    }

    // memory
    let _ = writeln!(
        out,
        "\n### Memory: bytes retained by the compiled schema(s) (peak during compile)\n"
    );
    let _ = writeln!(
        out,
        "| case | schemas | toolschema | jsonschema | boon | jsonschema / ts | boon / ts |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} ({}) | {} ({}) | {} ({}) | {} | {} |",
            r.name,
            r.used_schemas,
            bytes(r.retained[0]),
            bytes(r.peak[0]),
            bytes(r.retained[1]),
            bytes(r.peak[1]),
            bytes(r.retained[2]),
            bytes(r.peak[2]),
            fmt_ratio(r.retained[1] / r.retained[0]),
            fmt_ratio(r.retained[2] / r.retained[0]),
        );
    }
    for (label, keep) in groups {
        let sel: Vec<&Row> = rows.iter().filter(|r| keep(r)).collect();
        let _ = writeln!(
            out,
            "| **{label}** ({}) | | | | | **{}** | **{}** |",
            sel.len(),
            fmt_ratio(geomean(sel.iter().map(|r| r.retained[1] / r.retained[0]))),
            fmt_ratio(geomean(sel.iter().map(|r| r.retained[2] / r.retained[0]))),
        );
    }

    // bytes -> verdict
    let _ = writeln!(
        out,
        "\n### Bytes → verdict, per instance (the same JSON text for every pipeline)\n"
    );
    let _ = writeln!(
        out,
        "toolschema `is_valid_json(&[u8])` against `serde_json::from_slice::<Value>` followed by `is_valid` (toolschema's, then jsonschema's); the `Value` is dropped inside the pipeline.\n"
    );
    let _ = writeln!(
        out,
        "| case | instances | bytes / instance | ts `is_valid_json` | serde_json + ts `is_valid` | serde_json + jsonschema | (serde_json + jsonschema) / ts bytes | (serde_json + ts) / ts bytes |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.instances,
            bytes(r.text_bytes),
            time(r.bytes[0]),
            time(r.bytes[1]),
            time(r.bytes[2]),
            fmt_ratio(ratio(r.bytes[2], r.bytes[0])),
            fmt_ratio(ratio(r.bytes[1], r.bytes[0])),
        );
    }
    for (label, keep) in groups {
        let sel: Vec<&Row> = rows.iter().filter(|r| keep(r)).collect();
        let _ = writeln!(
            out,
            "| **{label}** ({}) | | | | | | **{}** | **{}** |",
            sel.len(),
            fmt_ratio(geomean(sel.iter().map(|r| ratio(r.bytes[2], r.bytes[0])))),
            fmt_ratio(geomean(sel.iter().map(|r| ratio(r.bytes[1], r.bytes[0])))),
        );
    }

    // in cache, against Blaze
    let _ = writeln!(out, "\n### In cache, against Blaze, per instance\n");
    match blaze {
        Ok(b) => {
            let _ = writeln!(
                out,
                "Blaze: the Sourcemeta CLI `jsonschema validate SCHEMA INSTANCES.jsonl --fast --continue --benchmark --loop {loop}` ({version}; formats are annotations): each instance parsed once into Blaze's own layout, then validated {loop} times in a row, each call timed alone, the clock's cost subtracted; its per-instance means, averaged over the case (mean), and the median instance's (median: the mean is Blaze's protocol, but one call the scheduler interrupts for milliseconds moves it, on a loaded machine by several times). toolschema on the same protocol, in a fresh process reading the same files, in the same format, twice: `is_valid` on a `serde_json::Value` (ts `Value`), and on its own layout (ts own: each instance parsed once into a `flat::Document`, then `is_valid_tree` in the loop, as Blaze does). Median of {rounds} rounds (each side's rounds in one run of its process, one compile; Blaze first). The bench corpus only (a case is one schema; the MCP tool sources are left out).\n",
                loop = args.blaze_loop,
                version = b.version,
                rounds = args.blaze_rounds,
            );
            let _ = writeln!(
                out,
                "| case | instances | Blaze, mean | ts `Value`, mean | Blaze / ts `Value` | ts own, mean | Blaze / ts own | Blaze, median | ts `Value`, median | Blaze / ts `Value`, medians | ts own, median | Blaze / ts own, medians |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
            for r in rows
                .iter()
                .filter(|r| r.hot[0].is_finite() || !r.blaze_note.is_empty())
            {
                let h = &r.hot;
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.name,
                    r.instances,
                    if r.blaze_note.is_empty() {
                        time(h[0])
                    } else {
                        format!("— ({})", r.blaze_note)
                    },
                    time(h[1]),
                    fmt_ratio(ratio(h[0], h[1])),
                    time(h[4]),
                    fmt_ratio(ratio(h[0], h[4])),
                    time(h[2]),
                    time(h[3]),
                    fmt_ratio(ratio(h[2], h[3])),
                    time(h[5]),
                    fmt_ratio(ratio(h[2], h[5])),
                );
            }
            let sel: Vec<&Row> = rows.iter().filter(|r| r.hot[0].is_finite()).collect();
            let g = |a: usize, b: usize| {
                fmt_ratio(geomean(sel.iter().map(|r| ratio(r.hot[a], r.hot[b]))))
            };
            let _ = writeln!(
                out,
                "| **geomean** ({}) | | | | **{}** | | **{}** | | | **{}** | | **{}** |",
                sel.len(),
                g(0, 1),
                g(0, 4),
                g(2, 3),
                g(2, 5),
            );
        }
        Err(why) => {
            let _ = writeln!(out, "Left out: {why}.");
        }
    }

    // flat scratch
    let _ = writeln!(
        out,
        "\n### Flat parser scratch per instance size (`toolschema::flat::Document::scratch_bytes`)\n"
    );
    let _ = writeln!(
        out,
        "Slots: the bytes of the slots a parse fills (used, not reserved). Fresh: the scratch a new `Document` holds after parsing one instance (capacity, with growth slack), summed over the case. Reused: one `Document` parsing every instance in turn (a server's steady state), against the largest instance.\n"
    );
    let _ = writeln!(
        out,
        "| case | instances | input | largest | slots / input byte | fresh scratch / input byte | worst instance | reused scratch | reused / largest |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let m = &r.scratch;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {} | {:.2} |",
            r.name,
            m.texts,
            bytes(m.input_bytes as f64),
            bytes(m.largest_text as f64),
            m.slots_per_byte(),
            m.fresh_per_byte(),
            m.worst_ratio,
            bytes(m.reused_scratch as f64),
            m.reused_per_largest_byte(),
        );
    }

    // targets
    let corpus: Vec<&Row> = rows.iter().filter(|r| r.origin == Origin::Corpus).collect();
    let _ = writeln!(
        out,
        "\n### Targets (bench corpus, {} cases)\n",
        corpus.len()
    );
    let g_js = geomean(corpus.iter().map(|r| ratio(r.is_valid[1], r.is_valid[0])));
    let g_compile = geomean(corpus.iter().map(|r| ratio(r.compile[1], r.compile[0])));
    let g_floor = geomean(corpus.iter().map(|r| ratio(r.is_valid[0], r.floor)));
    let slower_than_boon: Vec<String> = corpus
        .iter()
        .filter(|r| ratio(r.is_valid[2], r.is_valid[0]) <= 1.0)
        .map(|r| {
            format!(
                "{} ({})",
                r.name,
                fmt_ratio(ratio(r.is_valid[2], r.is_valid[0]))
            )
        })
        .collect();
    let mark = |ok: bool| if ok { "met" } else { "**not met**" };
    let _ = writeln!(out, "| target | measured | status |\n|---|---:|---|");
    let _ = writeln!(
        out,
        "| `is_valid` ≥ 2× faster than jsonschema (geomean) | {} | {} |",
        fmt_ratio(g_js),
        mark(g_js >= 2.0)
    );
    let g_generated = geomean(corpus.iter().map(|r| ratio(r.generated[0], r.generated[1])));
    let slower_than_macro: Vec<String> = corpus
        .iter()
        .filter(|r| ratio(r.generated[3], r.generated[1]) < 1.0)
        .map(|r| {
            format!(
                "{} ({})",
                r.name,
                fmt_ratio(ratio(r.generated[3], r.generated[1]))
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "| generated `is_valid` ≥ 3× toolschema's runtime (geomean) | {} | {} |",
        fmt_ratio(g_generated),
        mark(g_generated >= 3.0)
    );
    let _ = writeln!(
        out,
        "| generated `is_valid` at least as fast as `#[jsonschema::validator]` on every case both compile | {} | {} |",
        if slower_than_macro.is_empty() {
            "all at least as fast".to_string()
        } else {
            format!("slower on: {}", slower_than_macro.join(", "))
        },
        mark(slower_than_macro.is_empty())
    );
    let _ = writeln!(
        out,
        "| `is_valid` faster than boon on every case | {} | {} |",
        if slower_than_boon.is_empty() {
            "all faster".to_string()
        } else {
            format!("not faster on: {}", slower_than_boon.join(", "))
        },
        mark(slower_than_boon.is_empty())
    );
    let mcp_slower: Vec<String> = rows
        .iter()
        .filter(|r| r.origin == Origin::McpTools && ratio(r.is_valid[2], r.is_valid[0]) <= 1.0)
        .map(|r| {
            format!(
                "{} ({})",
                r.name,
                fmt_ratio(ratio(r.is_valid[2], r.is_valid[0]))
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "| (for information) `is_valid` faster than boon on every MCP tools source | {} | {} |",
        if mcp_slower.is_empty() {
            "all faster".to_string()
        } else {
            format!("not faster on: {}", mcp_slower.join(", "))
        },
        mark(mcp_slower.is_empty())
    );
    let _ = writeln!(
        out,
        "| compile ≥ 3× faster than jsonschema (geomean) | {} | {} |",
        fmt_ratio(g_compile),
        mark(g_compile >= 3.0)
    );
    let _ = writeln!(
        out,
        "| `is_valid` within 3× of the floor (geomean) | {} | {} |",
        fmt_ratio(g_floor),
        mark(g_floor <= 3.0)
    );
    let g_bytes = geomean(corpus.iter().map(|r| ratio(r.bytes[2], r.bytes[0])));
    let _ = writeln!(
        out,
        "| bytes → verdict ≥ 3× faster than serde_json + jsonschema (geomean) | {} | {} |",
        fmt_ratio(g_bytes),
        mark(g_bytes >= 3.0)
    );
    if blaze.is_ok() {
        let hot: Vec<&&Row> = corpus.iter().filter(|r| r.hot[0].is_finite()).collect();
        let behind: Vec<String> = hot
            .iter()
            .filter(|r| ratio(r.hot[0], r.hot[1]) <= 1.0)
            .map(|r| format!("{} ({})", r.name, fmt_ratio(ratio(r.hot[0], r.hot[1]))))
            .collect();
        let _ = writeln!(
            out,
            "| `is_valid` faster than Blaze on every case, in cache (means, Blaze's protocol; {} cases) | {} | {} |",
            hot.len(),
            if behind.is_empty() {
                "all faster".to_string()
            } else {
                format!("not faster on: {}", behind.join(", "))
            },
            mark(behind.is_empty() && hot.len() == corpus.len())
        );
        let behind_own: Vec<String> = hot
            .iter()
            .filter(|r| ratio(r.hot[0], r.hot[4]) <= 1.0)
            .map(|r| format!("{} ({})", r.name, fmt_ratio(ratio(r.hot[0], r.hot[4]))))
            .collect();
        let _ = writeln!(
            out,
            "| (equal terms) toolschema on its own layout faster than Blaze on every case, in cache (means; {} cases) | {} | {} |",
            hot.len(),
            if behind_own.is_empty() {
                "all faster".to_string()
            } else {
                format!("not faster on: {}", behind_own.join(", "))
            },
            mark(behind_own.is_empty() && hot.len() == corpus.len())
        );
    }

    // agreement
    let _ = writeln!(out, "\n### Agreement\n");
    let notes: Vec<String> = rows
        .iter()
        .filter(|r| !r.note.is_empty())
        .map(|r| format!("- {}: {}", r.name, r.note))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "{}\n", notes.join("\n"));
    }
    let _ = writeln!(
        out,
        "Instances on which the validators disagree: **{disagreement_count}**.\n"
    );
    if !disagreements.is_empty() {
        let _ = writeln!(
            out,
            "| case | instance (0-based) | expected | toolschema | jsonschema | boon | toolschema errors | jsonschema errors | boon errors |\n|---|---|---|---|---|---|---|---|---|\n{disagreements}"
        );
    }
    if !compile_failures.is_empty() {
        let _ = writeln!(
            out,
            "Schemas that failed to compile:\n\n| case | schema | validator | error |\n|---|---|---|---|\n{compile_failures}"
        );
    }
    if !inconsistencies.is_empty() {
        let _ = writeln!(
            out,
            "`is_valid` and the error path disagree:\n\n| case | instance | validator | detail |\n|---|---|---|---|\n{inconsistencies}"
        );
    }
    if !blaze_disagreements.is_empty() {
        let _ = writeln!(
            out,
            "Blaze and toolschema disagree:\n\n| case | instance (0-based) | expected | toolschema | Blaze |\n|---|---|---|---|---|\n{blaze_disagreements}"
        );
    }
    if !unexpected.is_empty() {
        let _ = writeln!(
            out,
            "All three agree, but not with the expected verdict (corpus expectation or generator intent):\n\n| case | instance | expected | all three say | toolschema errors |\n|---|---|---|---|---|\n{unexpected}"
        );
    }
    print!("{out}");
}
