//! `is_valid` makes no heap allocation in steady state: every schema and instance of the
//! required draft2020-12 suite, after one warm-up call, under a counting allocator.

#[path = "../suite/runner.rs"]
mod runner;

use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use toolschema::{Draft, Options};

struct Counting;

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

// Counts allocations made by the current thread while counting is switched on; other test
// threads are not affected.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ACTIVE.try_with(Cell::get).unwrap_or(false) {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ACTIVE.try_with(Cell::get).unwrap_or(false) {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations_during(f: impl FnOnce() -> bool) -> (bool, usize) {
    COUNT.with(|c| c.set(0));
    ACTIVE.with(|a| a.set(true));
    let result = f();
    ACTIVE.with(|a| a.set(false));
    (result, COUNT.with(Cell::get))
}

/// Exceptions, each with its reason (goal: none).
const EXCEPTIONS: &[(&str, &str)] = &[];

#[test]
fn is_valid_allocates_nothing_on_the_required_suite() {
    let dir = runner::suite_dir().join("tests/draft2020-12");
    let mut options = Options::new().default_dialect(Draft::Draft202012);
    for (uri, doc) in runner::documents() {
        options = options.with_document(&uri, doc);
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("suite folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let (mut checked, mut offenders) = (0usize, Vec::new());
    for file in files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let groups: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
        for group in groups.as_array().into_iter().flatten() {
            let schema = options
                .compile(&group["schema"])
                .expect("suite schemas compile");
            for test in group["tests"].as_array().into_iter().flatten() {
                let data = &test["data"];
                let desc = format!(
                    "{name} :: {} :: {}",
                    group["description"], test["description"]
                );
                if EXCEPTIONS.iter().any(|(d, _)| *d == desc) {
                    continue;
                }
                schema.is_valid(data); // warm-up
                let (_, n) = allocations_during(|| schema.is_valid(data));
                checked += 1;
                if n > 0 {
                    offenders.push(format!("{desc}: {n} allocations"));
                }
            }
        }
    }
    println!(
        "is_valid allocations: {} of {checked} instances allocated",
        offenders.len()
    );
    assert!(
        checked >= 1299,
        "expected every required test, checked {checked}"
    );
    assert!(
        offenders.is_empty(),
        "is_valid allocated:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_counter_counts() {
    let (_, n) = allocations_during(|| std::hint::black_box(vec![1u8; 16]).len() == 16);
    assert!(n >= 1);
}

#[test]
fn unique_items_on_large_arrays_allocates_nothing_in_steady_state() {
    let schema = toolschema::Schema::compile(&serde_json::json!({"uniqueItems": true})).unwrap();
    let distinct: Value = (0..500).map(|i| serde_json::json!({"id": i})).collect();
    let mut repeated = distinct.clone();
    if let Some(items) = repeated.as_array_mut() {
        items.push(serde_json::json!({"id": 7}));
    }
    for (instance, expected) in [(&distinct, true), (&repeated, false)] {
        assert_eq!(schema.is_valid(instance), expected); // warm-up
        let (valid, n) = allocations_during(|| schema.is_valid(instance));
        assert_eq!(valid, expected);
        assert_eq!(
            n,
            0,
            "uniqueItems over {} items allocated",
            instance.as_array().map_or(0, Vec::len)
        );
    }
    // The reported pair is the first repeat in array order.
    let errors = schema.validate(&repeated).unwrap_err();
    let message = errors
        .iter()
        .next()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("7") && message.contains("500"),
        "{message}"
    );
}
