//! Parsing into a reused `flat::Document`, and reading the tree through `Instance`
//! (every value, equality, hash), makes no heap allocation in steady state: every instance
//! of the required draft2020-12 suite, after one warm-up parse, under a counting
//! allocator; and a second pass over all of them with one document. `is_valid_json`
//! (its per-thread document, the evaluator on the flat tree) allocates nothing either.

#[path = "../suite/runner.rs"]
mod runner;

use runner::support::alloc::{self, allocations_during};
use serde_json::Value;
use toolschema::flat::{self, Array, Document, Instance, Kind, Object};

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

/// Reads every value of the tree through the trait (what an evaluator does), returning a
/// count so that nothing is optimised away.
fn walk<'a, I: Instance<'a>>(v: I) -> usize {
    1 + match v.kind() {
        Kind::Null => 0,
        Kind::Bool => usize::from(v.as_bool().unwrap_or(false)),
        Kind::Number => usize::from(v.as_number().is_some_and(|n| n.is_f64())),
        Kind::String => v.as_str().map_or(0, str::len),
        Kind::Array => v.as_array().map_or(0, |a| a.iter().map(walk).sum()),
        Kind::Object => v.as_object().map_or(0, |o| {
            o.entries()
                .map(|(k, s, v)| {
                    usize::from(o.get(k, s).is_some())
                        + walk(v)
                        + usize::from(v.json_type() == toolschema::JsonType::Integer)
                })
                .sum()
        }),
    }
}

#[test]
fn parsing_and_reading_allocate_nothing_on_the_required_suite() {
    let instances: Vec<(String, String)> = required_cases()
        .into_iter()
        .map(|(desc, _, _, text)| (desc, text))
        .collect();
    assert!(
        instances.len() >= 1299,
        "expected every required test, found {}",
        instances.len()
    );
    let state = ahash::RandomState::with_seeds(1, 2, 3, 4);
    let mut doc = Document::new();
    let mut offenders = Vec::new();
    let read = |doc: &mut Document, text: &str| {
        let tree = doc.parse_str(text).expect("the suite parses");
        let root = tree.root();
        (walk(root) + usize::from(flat::equal(root, root)))
            .wrapping_add(flat::hash(root, &state) as usize)
    };
    for (desc, text) in &instances {
        let (warm, again, n) = alloc::warm_then_count(|| read(&mut doc, text));
        assert_eq!(warm, again);
        if n > 0 {
            offenders.push(format!("{desc}: {n} allocations"));
        }
    }
    assert!(
        offenders.is_empty(),
        "parsing allocated:\n{}",
        offenders.join("\n")
    );
    // One document through all of them, twice: the second pass allocates nothing.
    let (_, n) = allocations_during(|| {
        instances.iter().fold(0usize, |sum, (_, text)| {
            sum.wrapping_add(read(&mut doc, text))
        })
    });
    assert_eq!(n, 0, "a second pass allocated");
}

/// Every (schema, instance text) of the required draft2020-12 suite, the schemas compiled
/// as `tests/allocations.rs` compiles them (`support::required`).
fn required_cases() -> Vec<(String, toolschema::Schema, Value, String)> {
    runner::support::required::cases(&runner::suite_dir(), runner::documents())
        .into_iter()
        .map(|c| (c.desc, c.schema, c.data, c.text))
        .collect()
}

#[test]
fn is_valid_json_allocates_nothing_on_the_required_suite() {
    let cases = required_cases();
    assert!(
        cases.len() >= 1299,
        "expected every required test, found {}",
        cases.len()
    );
    let mut offenders = Vec::new();
    for (desc, schema, data, text) in &cases {
        let expected = schema.is_valid(data);
        // Warm-up: the thread's document grows to the instance, the evaluator's tables
        // (a `uniqueItems` hash table, a pattern's lazy engine) are built.
        let (warm, again, n) = alloc::warm_then_count(|| schema.is_valid_json(text.as_bytes()));
        assert_eq!(warm, Ok(expected), "{desc}");
        assert_eq!(again, Ok(expected), "{desc}");
        if n > 0 {
            offenders.push(format!("{desc}: {n} allocations"));
        }
    }
    assert!(
        offenders.is_empty(),
        "is_valid_json allocated:\n{}",
        offenders.join("\n")
    );
    // All of them again, one after another on one thread's document: nothing allocated.
    let (_, n) = allocations_during(|| {
        cases
            .iter()
            .filter(|(_, schema, _, text)| schema.is_valid_json(text.as_bytes()) == Ok(true))
            .count()
    });
    assert_eq!(n, 0, "a second pass allocated");
}

#[test]
fn is_valid_json_nested_in_a_format_checker_gets_its_own_document() {
    // A format checker that itself validates JSON text, on the same thread, while the
    // outer call holds the thread's document.
    fn inner(s: &str) -> bool {
        let schema =
            toolschema::Schema::compile(&serde_json::json!({"type": "array"})).expect("compiles");
        schema.is_valid_json(s.as_bytes()) == Ok(true)
    }
    let schema = toolschema::Options::new()
        .with_format("json-array", inner)
        .assert_formats(true)
        .compile(&serde_json::json!({
            "properties": {"list": {"type": "string", "format": "json-array"}}
        }))
        .expect("compiles");
    assert_eq!(schema.is_valid_json(br#"{"list": "[1, 2]"}"#), Ok(true));
    assert_eq!(schema.is_valid_json(br#"{"list": "{}"}"#), Ok(false));
    assert_eq!(schema.is_valid_json(br#"{"list": "[1, "}"#), Ok(false));
    // The outer document survived: a large instance, then a small one, still right.
    let big = format!(
        r#"{{"list": "[]", "pad": [{}]}}"#,
        vec!["1"; 10_000].join(",")
    );
    assert_eq!(schema.is_valid_json(big.as_bytes()), Ok(true));
    assert_eq!(schema.is_valid_json(br#"{"list": 5}"#), Ok(false));
}

#[test]
fn the_counter_counts() {
    let (_, n) = allocations_during(|| std::hint::black_box(vec![1u8; 16]).len());
    assert!(n >= 1);
}
