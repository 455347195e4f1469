//! `is_valid` makes no heap allocation in steady state: every schema and instance of the
//! required draft2020-12 suite, after one warm-up call, under a counting allocator.

#[path = "../suite/runner.rs"]
mod runner;

use runner::support::alloc::{self, allocations_during};
use serde_json::Value;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

/// Exceptions, each with its reason (goal: none).
const EXCEPTIONS: &[(&str, &str)] = &[];

#[test]
fn is_valid_allocates_nothing_on_the_required_suite() {
    let (mut checked, mut offenders) = (0usize, Vec::new());
    for case in runner::support::required::cases(&runner::suite_dir(), runner::documents()) {
        if EXCEPTIONS.iter().any(|(d, _)| *d == case.desc) {
            continue;
        }
        let (_, _, n) = alloc::warm_then_count(|| case.schema.is_valid(&case.data));
        checked += 1;
        if n > 0 {
            offenders.push(format!("{}: {n} allocations", case.desc));
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
        let (warm, valid, n) = alloc::warm_then_count(|| schema.is_valid(instance));
        assert_eq!(warm, expected);
        assert_eq!(valid, expected);
        assert_eq!(
            n,
            0,
            "uniqueItems over {} items allocated",
            instance.as_array().map_or(0, Vec::len)
        );
    }
    // Items whose schema a reference decides by type (issue #52): still checked for
    // uniqueness, still with no allocation.
    let referenced = toolschema::Schema::compile(&serde_json::json!({
        "type": "array",
        "uniqueItems": true,
        "items": {"$ref": "#/$defs/s"},
        "$defs": {"s": {"type": "string"}}
    }))
    .unwrap();
    let strings: Value = (0..500)
        .map(|i| serde_json::json!(format!("s{i}")))
        .collect();
    let mut twice = strings.clone();
    if let Some(items) = twice.as_array_mut() {
        items.push(serde_json::json!("s7"));
    }
    for (instance, expected) in [(&strings, true), (&twice, false)] {
        let (warm, valid, n) = alloc::warm_then_count(|| referenced.is_valid(instance));
        assert_eq!((warm, valid), (expected, expected));
        assert_eq!(n, 0, "uniqueItems beside referenced items allocated");
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
