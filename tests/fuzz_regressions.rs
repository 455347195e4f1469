//! Replays of what the fuzzers in `fuzz/` found, and of their seed corpora.
//!
//! Each case is the input a target printed (its `Debug` is the schema and the instance as
//! JSON), with the answer it must get. A case whose fix is pending is `#[ignore]`d with
//! the reason, so the build stays green and `cargo test -- --ignored` shows what is open.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use toolschema::{Options, Schema, SchemaErrorKind};

/// Every path of both configurations agrees (see `tests/support`), and gives `expected`.
#[track_caller]
fn replay(schema: &Value, instance: &Value, expected: bool) {
    let s = support::compile(schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
    let valid = support::verdict(&s, instance);
    assert_eq!(valid, expected, "schema {schema}, instance {instance}");
}

/// Every JSON seed of the `compile` target compiles or fails cleanly, and each that
/// compiles answers the same on every path.
#[test]
fn compile_seeds_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/compile");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/seeds/compile exists") {
        let path = entry.unwrap().path();
        let Ok(schema) = serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        seen += 1;
        for options in [
            Options::new(),
            Options::new().assert_formats(true).refs_fragment_only(true),
        ] {
            if let Ok(s) = support::compile_with(&options, &schema) {
                for instance in [
                    json!(null),
                    json!(1),
                    json!("a"),
                    json!({"a": 1}),
                    schema.clone(),
                ] {
                    if let Err(why) = support::disagreement(&s, &instance) {
                        panic!("{}: {why}", path.display());
                    }
                }
            }
        }
    }
    assert!(seen >= 5, "the compile seeds are JSON schemas");
}

// ---------------------------------------------------------------------------------------
// `differential`: cases where boon was alone (toolschema and jsonschema agree with the
// spec's arithmetic). See fuzz/KNOWN_DIFFERENCES.md.

#[test]
fn exclusive_maximum_compares_integers_beyond_2_pow_53_exactly() {
    // 2^53 (as a float) < 2^53 + 1.
    let schema = json!({"$defs": {"a": true}, "exclusiveMaximum": 9007199254740993u64});
    replay(&schema, &json!(9007199254740992.0), true);
    replay(
        &json!({"minimum": 9007199254740993u64}),
        &json!(9007199254740992.0),
        false,
    );
}

#[test]
fn const_u64_max_is_not_2_pow_64() {
    let schema = json!({"const": 18446744073709551615u64});
    let two_pow_64: Value = serde_json::from_str("1.8446744073709552e19").unwrap();
    replay(&schema, &two_pow_64, false);
    replay(&schema, &json!(u64::MAX), true);
}

#[test]
fn multiple_of_uses_decimal_arithmetic() {
    replay(&json!({"multipleOf": 1e-5}), &json!(10), true);
    replay(&json!({"multipleOf": 1e-5}), &json!(1), true);
    replay(&json!({"multipleOf": 0.1}), &json!(-1e308), true);
    replay(&json!({"multipleOf": 0.1}), &json!(1e308), true);
    replay(&json!({"multipleOf": 1e-5}), &json!(1.000001), false);
    // 10^308 mod 3 = 1, though 1e308 / 3 is a whole f64.
    replay(&json!({"multipleOf": 3}), &json!(1e308), false);
}

// ---------------------------------------------------------------------------------------
// `differential`: schemas toolschema refuses while jsonschema and boon compile them
// (stricter by design; recorded in fuzz/KNOWN_DIFFERENCES.md).

#[test]
fn unreachable_broken_refs_and_cycles_are_refused() {
    for (schema, kind) in [
        (
            json!({"$ref": "#", "type": ["null"]}),
            SchemaErrorKind::ReferenceCycle,
        ),
        (
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/b"}}}),
            SchemaErrorKind::ReferenceCycle,
        ),
        (
            json!({"$defs": {"a": {"$ref": "#/items"}}}),
            SchemaErrorKind::UnresolvedReference,
        ),
        (
            json!({"else": {"$ref": "#/properties/a"}}),
            SchemaErrorKind::UnresolvedReference,
        ),
    ] {
        let e = Schema::compile(&schema).expect_err("refused");
        assert_eq!(e.kind(), kind, "{schema}: {e}");
    }
}

// ---------------------------------------------------------------------------------------
// `jsonrpc`.

/// A message with an id and a `result` but no `"jsonrpc": "2.0"` is not a response: it
/// is malformed and gets `-32600` with its id (the harness first expected silence).
#[test]
fn malformed_response_gets_an_error_with_its_id() {
    use std::sync::{Arc, Mutex};
    use toolschema::mcp::Server;
    let server = Server::builder("fuzz", "0").build().unwrap();
    let out = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&out);
    let conn = server.connect(move |line| sink.lock().unwrap().push(line));
    conn.handle(r#"{"id":3,"params":{},"result":{}}"#);
    conn.handle(r#"{"jsonrpc":"2.0","id":4,"result":{}}"#);
    let lines = out.lock().unwrap().clone();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let answer: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["error"]["code"], -32600);
}
