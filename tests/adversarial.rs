//! Hostile schemas and instances: each gets a correct answer or a clear error, within
//! bounded time and memory.
//!
//! Ceilings are deliberately generous (debug builds are slow); the point is that nothing
//! hangs, overflows the stack or allocates without bound. Each case runs alone (a global
//! lock), and a counting allocator reports its peak heap use; run
//! `cargo test --release --test adversarial -- --nocapture --test-threads 1` for the
//! figures.

use serde_json::{Map, Value, json};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toolschema::{ErrorKind, Limits, Options, Schema, SchemaError, SchemaErrorKind};

// ---------------------------------------------------------------------------------------
// Measurement.

mod support;

#[global_allocator]
static ALLOCATOR: support::alloc::Counting = support::alloc::Counting;

/// One case at a time, so that the peak belongs to the case measured.
/// Held by each test for its whole run: the heap counter is process-wide, so a test's
/// setup must not overlap another test's measurement.
static EXCLUSIVE: std::sync::Mutex<()> = std::sync::Mutex::new(());

static SERIAL: Mutex<()> = Mutex::new(());

/// Generous: CI runs release builds, developers debug ones on a shared machine.
const CEILING: Duration = Duration::from_secs(30);

/// The full size in release builds (CI), a tenth of it in debug builds, which are 10 to
/// 20 times slower: the largest cases would otherwise crowd the ceiling.
const fn size(full: usize) -> usize {
    if cfg!(debug_assertions) {
        full / 10
    } else {
        full
    }
}
const MIB: usize = 1 << 20;

/// Runs `f`, prints its wall-clock and CPU time and the peak heap growth above the level at
/// its start, and asserts both ceilings. The time ceiling is on the thread's CPU time where
/// Linux reports it (`f` runs on this thread alone): a runaway still fails, while other
/// processes on a shared machine cannot make a case fail by delaying it.
#[track_caller]
fn measure<T>(name: &str, max_heap: usize, f: impl FnOnce() -> T) -> T {
    let _guard = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let start = Instant::now();
    let cpu_start = thread_cpu();
    let (out, peak) = support::alloc::peak_during(f);
    let elapsed = start.elapsed();
    let cpu = cpu_start.and_then(|s| Some(thread_cpu()?.saturating_sub(s)));
    println!(
        "adversarial: {name:<58} {:>9.1} ms  cpu {:>9.1} ms  peak heap {:>8.1} MiB",
        elapsed.as_secs_f64() * 1e3,
        cpu.unwrap_or(elapsed).as_secs_f64() * 1e3,
        peak as f64 / MIB as f64
    );
    let spent = cpu.unwrap_or(elapsed);
    assert!(
        spent < CEILING,
        "{name}: took {spent:?} of CPU ({elapsed:?} wall)"
    );
    assert!(
        peak <= max_heap,
        "{name}: peak heap {peak} bytes, ceiling {max_heap}"
    );
    out
}

/// This thread's CPU time (the first field of `/proc/thread-self/schedstat`, in
/// nanoseconds), or `None` where there is no such file.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// A value dropped without recursion, even while a failed assertion unwinds.
struct Deep(Value);

impl Drop for Deep {
    fn drop(&mut self) {
        dismantle(std::mem::take(&mut self.0));
    }
}

impl std::ops::Deref for Deep {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.0
    }
}

/// Drops a value of any depth without recursion (serde_json's `Drop` recurses).
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// `depth` objects, each `{key: <next>}`, the innermost holding `leaf`.
fn nest(key: &str, depth: usize, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..depth {
        let mut map = Map::new();
        map.insert(key.to_string(), v);
        v = Value::Object(map);
    }
    v
}

/// `depth` arrays, one inside the other, the innermost holding `leaf`.
fn nest_arrays(depth: usize, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

#[track_caller]
fn compile_err(options: &Options, schema: &Value) -> SchemaError {
    match options.compile(schema) {
        Ok(_) => panic!("expected a compile error"),
        Err(e) => e,
    }
}

#[track_caller]
fn agree(schema: &Schema, instance: &Value) -> bool {
    let valid = schema.is_valid(instance);
    assert_eq!(
        schema.validate(instance).is_ok(),
        valid,
        "validate disagrees"
    );
    assert_eq!(
        schema.evaluate(instance).flag()["valid"],
        json!(valid),
        "evaluate disagrees"
    );
    valid
}

// ---------------------------------------------------------------------------------------
// Caps: depth 64 and 10,000 subschemas, at and just past each.

#[test]
fn depth_at_and_past_the_cap() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    measure("depth 64 (ok) and 65 (DepthExceeded)", 8 * MIB, || {
        // 63 nested objects put "string" at depth 64: the root is depth 1.
        let at = nest("not", 62, json!({"type": "string"}));
        let schema = Schema::compile(&at).expect("depth 64 is allowed");
        assert!(schema.is_valid(&json!("x")), "62 nots: an even count");
        assert!(!schema.is_valid(&json!(1)));
        let past = nest("not", 63, json!({"type": "string"}));
        let e = compile_err(&Options::new(), &past);
        assert_eq!(e.kind(), SchemaErrorKind::DepthExceeded);
        assert_eq!(e.location(), format!("{}/type", "/not".repeat(63)));
        assert!(e.to_string().contains("maximum depth of 64"), "{e}");
        // Scalars count, arrays count.
        let arrays = json!({"enum": nest_arrays(63, json!(1))});
        assert_eq!(
            compile_err(&Options::new(), &arrays).kind(),
            SchemaErrorKind::DepthExceeded
        );
        let arrays = json!({"enum": nest_arrays(62, json!(1))});
        assert!(Schema::compile(&arrays).is_ok());
    });
}

#[test]
fn subschemas_at_and_past_the_cap() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    // The root, the `properties` object and 9,998 property schemas: 10,000 objects.
    let build = |n: usize| {
        let props: Map<String, Value> = (0..n)
            .map(|i| (format!("p{i}"), json!({"type": "integer"})))
            .collect();
        json!({"properties": props})
    };
    let (at, past) = (build(9_998), build(9_999));
    measure("10,000 subschemas (ok)", 64 * MIB, || {
        let schema = Schema::compile(&at).expect("10,000 objects are allowed");
        assert!(schema.is_valid(&json!({"p0": 1, "p9997": 2})));
        assert!(!schema.is_valid(&json!({"p9997": "x"})));
    });
    measure("10,001 subschemas (TooManySubschemas)", 16 * MIB, || {
        let e = compile_err(&Options::new(), &past);
        assert_eq!(e.kind(), SchemaErrorKind::TooManySubschemas);
        assert!(e.to_string().contains("10000"), "{e}");
    });
    // Empty objects inside `enum` and `const` are objects too.
    let enum_objects = json!({"enum": vec![json!({}); 9_999]});
    measure(
        "10,000 objects in enum (ok), 10,001 (refused)",
        16 * MIB,
        || {
            assert!(Schema::compile(&enum_objects).is_ok());
            let more = json!({"enum": vec![json!({}); 10_000]});
            assert_eq!(
                compile_err(&Options::new(), &more).kind(),
                SchemaErrorKind::TooManySubschemas
            );
        },
    );
}

fn lifted_caps(depth: usize, name: &str, max_heap: usize) {
    let deep = Deep(nest("items", depth, json!({"type": "integer"})));
    let instance = Deep(nest_arrays(depth, json!(1)));
    let bad = Deep(nest_arrays(depth, json!("x")));
    measure(name, max_heap, || {
        let e = compile_err(&Options::new(), &deep);
        assert_eq!(e.kind(), SchemaErrorKind::DepthExceeded);
        let schema = Options::new()
            .limits(Limits::none())
            .compile(&deep)
            .expect("compiles without caps");
        assert!(agree(&schema, &instance));
        assert!(!agree(&schema, &bad));
        let errors = schema.validate(&bad).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors.iter().next().unwrap().instance_location(),
            "/0".repeat(depth)
        );
    });
}

#[test]
fn caps_can_be_lifted_for_trusted_schemas() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    lifted_caps(
        2_000,
        "2,000-deep items schema, Limits::none(), 2,000-deep instance",
        512 * MIB,
    );
}

/// Compiling keeps each node's full JSON pointer (and copies of it), so memory grows with
/// depth squared: 20,000 levels took 7.4 GiB and 50 s in release.
#[test]
#[ignore = "known limit, not fixed: under Limits::none() (trusted schemas only) each node keeps its full location, so memory grows with depth squared; the default caps bound it (README, Security)"]
fn deep_schema_without_caps_compiles_in_linear_memory() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    lifted_caps(
        20_000,
        "20,000-deep items schema, Limits::none(), 20,000-deep instance",
        512 * MIB,
    );
}

/// The same amplification under the DEFAULT limits: a long property name above many
/// subschemas is copied into every descendant's pointer. A 200 KB key above 2,000
/// subschemas (a 200 KB schema) peaked at 764 MiB in release; 1 MB above 9,997 subschemas
/// (a 1 MB schema, within every cap) would need about 20 GB.
///
/// Each node keeps its own location, so the compiler caps their total under any `Limits`
/// and refuses such a schema with `TooLarge` (a clear error within bounded memory);
/// `Limits::none()` lifts the cap for trusted schemas.
#[test]
fn long_key_above_many_subschemas_compiles_in_bounded_memory() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let key = "k".repeat(200_000);
    let children: Map<String, Value> = (0..2_000).map(|i| (format!("c{i}"), json!({}))).collect();
    let schema = json!({"properties": {key: {"properties": children}}});
    measure(
        "200 KB key above 2,000 subschemas",
        128 * MIB,
        || match Schema::compile(&schema) {
            Ok(s) => assert!(s.is_valid(&json!({}))),
            Err(e) => assert_eq!(e.kind(), SchemaErrorKind::TooLarge, "{e}"),
        },
    );
    // A smaller key above as many subschemas stays well within the cap and compiles.
    let key = "k".repeat(2_000);
    let children: Map<String, Value> = (0..2_000).map(|i| (format!("c{i}"), json!({}))).collect();
    let schema = json!({"properties": {key: {"properties": children}}});
    measure("2 KB key above 2,000 subschemas", 64 * MIB, || {
        let s = Schema::compile(&schema).expect("compiles");
        assert!(s.is_valid(&json!({})));
    });
}

// ---------------------------------------------------------------------------------------
// Big strings.

#[test]
fn megabyte_strings_in_schemas() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let big = "x".repeat(MIB);
    let schema_value = json!({
        "description": big,
        "const": big,
        "properties": {big.clone(): {"type": "integer"}},
        "required": [big],
    });
    measure(
        "1 MB strings in description/const/property names",
        64 * MIB,
        || {
            let schema = Schema::compile(&schema_value).expect("compiles");
            assert!(!schema.is_valid(&json!("x")));
            let mut obj = Map::new();
            obj.insert(big.clone(), json!(1));
            assert!(!agree(&schema, &Value::Object(obj)), "not the const");
            // Errors name the schema's property, but never quote the instance.
            let errors = schema.validate(&json!({})).unwrap_err();
            assert!(
                errors
                    .iter()
                    .any(|e| matches!(e.kind(), ErrorKind::Required { .. }))
            );
        },
    );
    measure("1 MB literal pattern and 1 MB subject", 128 * MIB, || {
        let schema = Schema::compile(&json!({"pattern": format!("^{big}$")})).expect("compiles");
        assert!(schema.is_valid(&json!(big)));
        assert!(!schema.is_valid(&json!(format!("{big}y"))));
        let schema = Schema::compile(&json!({"pattern": "^x*y$"})).expect("compiles");
        assert!(!agree(&schema, &json!(big)));
        let schema = Schema::compile(&json!({"maxLength": MIB, "minLength": MIB})).unwrap();
        assert!(agree(&schema, &json!(big)));
        assert!(!agree(&schema, &json!(format!("{big}é"))));
    });
}

// ---------------------------------------------------------------------------------------
// References.

fn ref_chain(n: usize) -> Value {
    let mut defs = Map::new();
    for i in 0..n - 1 {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(format!("d{}", n - 1), json!({"type": "integer"}));
    json!({"$ref": "#/$defs/d0", "$defs": defs})
}

#[test]
fn long_ref_chains() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let chain = ref_chain(5_000);
    measure("5,000 defs each $ref-ing the next", 64 * MIB, || {
        let schema = Schema::compile(&chain).expect("5,002 objects fit the default cap");
        assert!(agree(&schema, &json!(1)));
        assert!(!agree(&schema, &json!("x")));
        let e = schema.validate(&json!("x")).unwrap_err();
        let e = e.iter().next().unwrap();
        assert_eq!(
            e.keyword_location().matches("$ref").count(),
            5_000,
            "the keyword location walks every $ref"
        );
    });
    let long = ref_chain(100_000);
    measure("100,000-def $ref chain, Limits::none()", 1024 * MIB, || {
        assert_eq!(
            compile_err(&Options::new(), &long).kind(),
            SchemaErrorKind::TooManySubschemas
        );
        let schema = Options::new()
            .limits(Limits::none())
            .compile(&long)
            .expect("compiles without caps");
        assert!(schema.is_valid(&json!(1)));
        assert!(!schema.is_valid(&json!(1.5)));
    });
    // The last def refers back to the first: a cycle that never consumes the instance.
    let mut looped = ref_chain(5_000);
    looped["$defs"]["d4999"] = json!({"$ref": "#/$defs/d0"});
    measure("5,000-def $ref loop (ReferenceCycle)", 64 * MIB, || {
        assert_eq!(
            compile_err(&Options::new(), &looped).kind(),
            SchemaErrorKind::ReferenceCycle
        );
    });
}

#[test]
fn cycles_through_every_in_place_applicator_are_refused() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let cases = [
        json!({"$ref": "#"}),
        json!({"allOf": [{"$ref": "#"}]}),
        json!({"anyOf": [true, {"$ref": "#"}]}),
        json!({"oneOf": [{"$ref": "#"}]}),
        json!({"not": {"$ref": "#"}}),
        json!({"if": {"$ref": "#"}}),
        json!({"if": true, "then": {"$ref": "#"}}),
        json!({"if": false, "else": {"$ref": "#"}}),
        json!({"dependentSchemas": {"a": {"$ref": "#"}}}),
        json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
        json!({"$defs": {"a": {"$anchor": "x", "not": {"$ref": "#x"}}}}),
        json!({"$dynamicAnchor": "x", "$dynamicRef": "#x"}),
        json!({"$id": "https://example.com/a", "allOf": [{"$ref": "https://example.com/a"}]}),
    ];
    measure("cycles through in-place applicators", 8 * MIB, || {
        for schema in &cases {
            match Schema::compile(schema) {
                Err(e) => assert_eq!(e.kind(), SchemaErrorKind::ReferenceCycle, "{schema}: {e}"),
                Ok(_) => panic!("{schema}: a non-consuming cycle compiled"),
            }
        }
    });
}

#[test]
fn cycles_through_consuming_applicators_terminate() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let instance = nest_arrays(50, json!({"a": [{"a": 1}]}));
    let cases = [
        json!({"properties": {"a": {"$ref": "#"}}}),
        json!({"patternProperties": {"": {"$ref": "#"}}}),
        json!({"additionalProperties": {"$ref": "#"}}),
        json!({"propertyNames": {"$ref": "#"}}),
        json!({"items": {"$ref": "#"}}),
        json!({"prefixItems": [{"$ref": "#"}]}),
        json!({"contains": {"$ref": "#"}}),
        json!({"unevaluatedItems": {"$ref": "#"}}),
        json!({"unevaluatedProperties": {"$ref": "#"}}),
        json!({"$defs": {"a": {"items": {"$ref": "#/$defs/b"}}, "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "object"}]}}, "$ref": "#/$defs/a"}),
    ];
    measure("cycles through consuming applicators", 16 * MIB, || {
        for schema in &cases {
            let compiled = Schema::compile(schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
            agree(&compiled, &instance);
        }
    });
}

#[test]
fn odd_pointers() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let defs = json!({
        "a/b": {"const": "slash"},
        "a~b": {"const": "tilde"},
        "%": {"const": "percent"},
        "a b": {"const": "space"},
        "": {"const": "empty"},
        "é": {"const": "e-acute"},
    });
    let ok = [
        ("#/$defs/a~1b", "slash"),
        ("#/$defs/a~0b", "tilde"),
        ("#/$defs/%25", "percent"),
        ("#/$defs/a%20b", "space"),
        ("#/$defs/", "empty"),
        ("#/$defs/%C3%A9", "e-acute"),
    ];
    measure(
        "refs to escaped, missing and malformed pointers",
        8 * MIB,
        || {
            for (r, expected) in ok {
                let schema = Schema::compile(&json!({"$defs": defs, "$ref": r}))
                    .unwrap_or_else(|e| panic!("{r}: {e}"));
                assert!(schema.is_valid(&json!(expected)), "{r}");
                assert!(!schema.is_valid(&json!("other")), "{r}");
            }
            let unresolved = [
                "#/$defs/missing",
                "#/$defs/a~2b",
                "#/$defs/a~",
                "#/$defs/a/b",
                "#/prefixItems/01",
                "#/prefixItems/-",
                "#/$defs/%ZZ",
                "#nosuchanchor",
                "#/%24defs/a~1b/x",
                "other.json",
                "https://example.com/never-fetched.json",
                "file:///etc/passwd",
            ];
            for r in unresolved {
                let schema = json!({"$defs": defs, "prefixItems": [true, true], "$ref": r});
                match Schema::compile(&schema) {
                    Err(e) => assert!(
                        matches!(
                            e.kind(),
                            SchemaErrorKind::UnresolvedReference | SchemaErrorKind::InvalidKeyword
                        ),
                        "{r}: {e}"
                    ),
                    Ok(_) => panic!("{r}: resolved to something"),
                }
            }
            // An array index that exists; a pointer into a non-schema keyword value.
            let schema = Schema::compile(&json!({"prefixItems": [true, {"type": "null"}], "items": {"$ref": "#/prefixItems/1"}})).unwrap();
            assert!(schema.is_valid(&json!([1, null, null])));
            assert!(!schema.is_valid(&json!([1, null, 2])));
            // Only fragments, when asked.
            let e = compile_err(
                &Options::new().refs_fragment_only(true),
                &json!({"$ref": "https://example.com/x"}),
            );
            assert_eq!(e.kind(), SchemaErrorKind::ForbiddenReference);
        },
    );
}

#[test]
fn exotic_ids() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    measure(
        "URN, relative, fragment and duplicate $ids",
        8 * MIB,
        || {
            let urn = json!({
                "$id": "urn:example:root",
                "$defs": {"a": {"type": "integer"}},
                "properties": {"x": {"$ref": "urn:example:root#/$defs/a"}}
            });
            let s = Schema::compile(&urn).unwrap();
            assert!(s.is_valid(&json!({"x": 1})));
            assert!(!s.is_valid(&json!({"x": "1"})));

            let relative = json!({
                "$id": "https://example.com/root/",
                "$defs": {"c": {"$id": "child.json", "type": "string"}},
                "$ref": "https://example.com/root/child.json"
            });
            let s = Schema::compile(&relative).unwrap();
            assert!(s.is_valid(&json!("a")) && !s.is_valid(&json!(1)));

            // A relative `$id` at the root resolves against the default base.
            assert!(
                Schema::compile(&json!({"$id": "relative.json", "$ref": "relative.json"})).is_err()
            );
            let s = Schema::compile(&json!({"$id": "relative.json", "type": "null"})).unwrap();
            assert!(s.is_valid(&json!(null)));

            // An empty fragment is tolerated; a non-empty one is refused in 2020-12.
            assert!(Schema::compile(&json!({"$id": "https://example.com/a#"})).is_ok());
            let e = compile_err(
                &Options::new(),
                &json!({"$id": "https://example.com/a#frag"}),
            );
            assert_eq!(e.kind(), SchemaErrorKind::InvalidKeyword, "{e}");

            // Duplicates a reference could tell apart are compile errors (those it
            // cannot are accepted: tests/duplicate_ids.rs).
            let dup_id = json!({"$defs": {
                "a": {"$id": "https://example.com/same"},
                "b": {"$id": "https://example.com/same", "type": "null"}
            }, "$ref": "https://example.com/same"});
            assert_eq!(
                compile_err(&Options::new(), &dup_id).kind(),
                SchemaErrorKind::DuplicateIdentifier
            );
            let dup_anchor = json!({"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x", "type": "null"}}, "$ref": "#x"});
            assert_eq!(
                compile_err(&Options::new(), &dup_anchor).kind(),
                SchemaErrorKind::DuplicateIdentifier
            );
            // The same anchor in two resources is fine.
            let two = json!({"$defs": {
                "a": {"$id": "https://example.com/a", "$anchor": "x"},
                "b": {"$id": "https://example.com/b", "$anchor": "x"}
            }});
            assert!(Schema::compile(&two).is_ok());
            // Anchors with characters the spec forbids.
            for bad in ["1x", "a b", "a#b", ""] {
                let e = compile_err(&Options::new(), &json!({"$anchor": bad}));
                assert_eq!(e.kind(), SchemaErrorKind::InvalidKeyword, "{bad}");
            }
        },
    );
}

// ---------------------------------------------------------------------------------------
// Patterns.

#[test]
fn patterns_that_explode() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let evil = format!("{}b", "a".repeat(40));
    measure(
        "catastrophic patterns: linear engine and budget",
        64 * MIB,
        || {
            // Classic ReDoS shapes have no backreference: the linear engine takes them.
            for p in [
                "^(a+)+$",
                "^(a|a)*$",
                "^(a|aa)+$",
                "^(.*a){20}$",
                "(x+x+)+y",
            ] {
                let s = Schema::compile(&json!({"pattern": p})).unwrap();
                assert!(!s.is_valid(&json!(evil)), "{p}");
            }
            // Backreferences and lookaround go to the backtracking engine, which gives up.
            let s = Options::new()
                .pattern_budget(10_000)
                .compile(&json!({"pattern": "^(?=(a+)+)(a+)+\\2$"}))
                .unwrap();
            assert!(!s.is_valid(&json!(evil)));
            let errors = s.validate(&json!(evil)).unwrap_err();
            let kind = errors.iter().next().unwrap().kind().clone();
            assert!(
                matches!(
                    kind,
                    ErrorKind::PatternBudgetExceeded { .. } | ErrorKind::Pattern { .. }
                ),
                "{kind:?}"
            );
            let s = Schema::compile(&json!({"pattern": "^((a+)+)\\1$"})).unwrap();
            let t = Instant::now();
            assert!(!s.is_valid(&json!(format!("{}!", "a".repeat(5_000)))));
            assert!(t.elapsed() < Duration::from_secs(10));
        },
    );
    measure("patterns too big, too deep or malformed", 512 * MIB, || {
        let f = Options::new()
            .assert_formats(true)
            .compile(&json!({"format": "regex"}))
            .unwrap();
        // (pattern, valid ECMA-262 syntax): `format: "regex"` checks syntax only.
        for (p, syntax_ok) in [
            ("a{100000}{100000}".to_string(), false),
            ("(?:a{1000}){1000}".to_string(), true),
            ("(?:(?:a{100}){100}){100}".to_string(), true),
            (
                format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000)),
                false,
            ),
            (format!("{}a", "(?=".repeat(5_000)), false),
            ("[".repeat(100_000), false),
            ("\\".to_string(), false),
        ] {
            let e = compile_err(&Options::new(), &json!({"pattern": p}));
            assert_eq!(e.kind(), SchemaErrorKind::InvalidPattern, "{e}");
            // The message quotes the pattern (schema data, never instance data) in full.
            assert!(
                e.to_string().len() < 2 * p.len() + 1_000,
                "{:.300}",
                e.to_string()
            );
            assert_eq!(agree(&f, &json!(p)), syntax_ok, "format regex on {:.40}", p);
        }
    });
}

// ---------------------------------------------------------------------------------------
// Numbers.

#[test]
fn multiple_of_extremes() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    measure("multipleOf with 1e308, 1e-308, 5e-324", 8 * MIB, || {
        let cases = [
            (json!(1e-308), json!(1), true),
            (json!(1e-308), json!(1e308), true),
            (json!(1e-308), json!(1.5e-308), false),
            (json!(1e308), json!(1e308), true),
            (json!(1e308), json!(1), false),
            (json!(1e308), json!(0), true),
            (json!(5e-324), json!(1), true),
            (json!(0.1), json!(0.3), true),
            (json!(0.01), json!(19.99), true),
            (
                json!(1.7976931348623157e308),
                json!(1.7976931348623157e308),
                true,
            ),
            (json!(2), json!(18446744073709551615u64), false),
            (json!(3), json!(18446744073709551615u64), true),
            (json!(2), json!(-9223372036854775808i64), true),
        ];
        for (divisor, instance, expected) in cases {
            let s = Schema::compile(&json!({"multipleOf": divisor})).unwrap();
            assert_eq!(
                agree(&s, &instance),
                expected,
                "{instance} multipleOf {divisor}"
            );
        }
        for bad in [json!(0), json!(-1), json!(-1e-308), json!("1")] {
            let e = compile_err(&Options::new(), &json!({"multipleOf": bad}));
            assert_eq!(e.kind(), SchemaErrorKind::InvalidKeyword);
        }
    });
}

#[test]
fn numbers_beyond_f64() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    measure(
        "numbers beyond f64 and at the integer edges",
        8 * MIB,
        || {
            // serde_json refuses numbers that overflow f64: they never reach the validator.
            for text in ["1e400", "-1e400", "[1e309]"] {
                assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
            }
            // An underflowing literal parses as zero.
            assert_eq!(serde_json::from_str::<Value>("1e-400").unwrap(), json!(0.0));
            // Past u64, integers parse as the nearest f64: 2^64 for u64::MAX + 1.
            let past: Value = serde_json::from_str("18446744073709551616").unwrap();
            assert!(past.is_f64());
            let s = Schema::compile(&json!({"maximum": u64::MAX})).unwrap();
            assert!(agree(&s, &json!(u64::MAX)));
            assert!(
                !agree(&s, &past),
                "2^64 > u64::MAX, though u64::MAX as f64 == 2^64"
            );
            let s = Schema::compile(&json!({"exclusiveMaximum": past})).unwrap();
            assert!(agree(&s, &json!(u64::MAX)), "u64::MAX < 2^64");
            let s = Schema::compile(&json!({"minimum": i64::MIN})).unwrap();
            assert!(agree(&s, &json!(i64::MIN)));
            assert!(!agree(&s, &json!(-9223372036854777856.0)));
            let s = Schema::compile(&json!({"const": 9007199254740993u64})).unwrap();
            assert!(agree(&s, &json!(9007199254740993u64)));
            assert!(!agree(&s, &json!(9007199254740992u64)));
            assert!(!agree(&s, &json!(9007199254740992.0)));
            // -0 equals 0; 1.0 equals 1.
            let s = Schema::compile(&json!({"const": 0})).unwrap();
            assert!(agree(&s, &json!(-0.0)));
            let s = Schema::compile(&json!({"uniqueItems": true})).unwrap();
            assert!(!agree(&s, &json!([0, -0.0])));
            assert!(!agree(&s, &json!([1, 1.0])));
            assert!(!agree(&s, &json!([{"a": 1}, {"a": 1.0}])));
            let s = Schema::compile(&json!({"type": "integer"})).unwrap();
            assert!(agree(&s, &json!(1e308)), "1e308 has no fractional part");
            assert!(agree(&s, &json!(-0.0)));
            assert!(!agree(&s, &json!(5e-324)));
            // Limits given as huge floats: bounds on lengths saturate.
            let s = Schema::compile(&json!({"maxLength": 1e300, "minItems": 0.0})).unwrap();
            assert!(agree(&s, &json!("x")));
        },
    );
}

#[test]
fn lone_surrogates() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    measure("lone surrogate escapes", 8 * MIB, || {
        // serde_json refuses a lone surrogate escape in a string or a key ...
        for text in [
            r#""\ud800""#,
            r#""\udc00""#,
            r#"{"pattern": "\ud83d"}"#,
            r#"{"properties": {"\udfff": true}}"#,
            r#""\ud800\u0041""#,
        ] {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        }
        // ... and joins a proper pair into one code point.
        let pair: Value = serde_json::from_str(r#""\ud83d\ude00""#).unwrap();
        assert_eq!(pair, json!("😀"));
        let s = Schema::compile(&json!({"maxLength": 1, "minLength": 1})).unwrap();
        assert!(agree(&s, &pair), "one code point, though two UTF-16 units");
        // Patterns spelling surrogates as escapes: a pair means the code point, a lone
        // one matches nothing a Rust string can hold, and never panics.
        let s = Schema::compile(&json!({"pattern": "^\\ud83d\\ude00$"})).unwrap();
        assert!(agree(&s, &pair));
        for p in ["\\ud800", "^[\\ud800-\\udfff]$", "[\\udc00]"] {
            match Schema::compile(&json!({"pattern": p})) {
                Ok(s) => {
                    agree(&s, &json!("😀"));
                    agree(&s, &json!("a"));
                }
                Err(e) => assert_eq!(e.kind(), SchemaErrorKind::InvalidPattern),
            }
        }
    });
}

// ---------------------------------------------------------------------------------------
// Huge instances.

fn deep_schemas() -> [Value; 9] {
    [
        json!({}),
        json!({"type": "array"}),
        json!({"items": {"$ref": "#"}}),
        json!({"$defs": {"n": {"anyOf": [{"type": "integer"}, {"items": {"$ref": "#/$defs/n"}}]}}, "$ref": "#/$defs/n"}),
        // Unions whose branches' types are disjoint (the branch is picked by type).
        json!({"$defs": {"n": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/n"}}]}}, "$ref": "#/$defs/n"}),
        json!({"oneOf": [{"type": "object", "properties": {"a": {"$ref": "#"}}}, {"type": "integer"}]}),
        json!({"properties": {"a": {"$ref": "#"}}, "unevaluatedProperties": false}),
        json!({"additionalProperties": {"$ref": "#"}}),
        json!({"uniqueItems": true, "const": [1]}),
    ]
}

#[test]
fn hundred_thousand_deep_instances() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let depth = size(100_000);
    let arrays = Deep(nest_arrays(depth, json!(1)));
    let objects = Deep(nest("a", depth, json!(1)));
    let schemas = deep_schemas();
    measure(
        &format!("{depth}-deep arrays and objects, 9 schemas, is_valid/validate/iter_errors"),
        256 * MIB,
        || {
            for schema in &schemas {
                let s = Schema::compile(schema).unwrap();
                for instance in [&arrays, &objects] {
                    let valid = s.is_valid(instance);
                    assert_eq!(s.validate(instance).is_ok(), valid, "{schema}");
                    assert_eq!(s.iter_errors(instance).next().is_none(), valid, "{schema}");
                }
            }
            // Answers we know.
            let s = Schema::compile(&schemas[3]).unwrap();
            assert!(s.is_valid(&arrays));
            let s = Schema::compile(&schemas[4]).unwrap();
            assert!(s.is_valid(&arrays));
            let s = Schema::compile(&schemas[5]).unwrap();
            assert!(s.is_valid(&objects));
            assert!(!s.is_valid(&arrays));
            let s = Schema::compile(&schemas[6]).unwrap();
            assert!(s.is_valid(&objects));
            let s = Schema::compile(&json!({"items": {"$ref": "#"}, "type": ["array", "string"]}))
                .unwrap();
            assert!(!s.is_valid(&arrays), "the innermost 1 is not an array");
            let errors = s.validate(&arrays).unwrap_err();
            assert_eq!(errors.len(), 1);
            assert_eq!(
                errors.iter().next().unwrap().instance_location().len(),
                2 * depth
            );
        },
    );
    measure(
        "100,000-deep JSON text (serde_json's recursion limit)",
        64 * MIB,
        || {
            let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
            let e = serde_json::from_str::<Value>(&text).unwrap_err();
            assert!(e.to_string().contains("recursion limit"), "{e}");
        },
    );
}

fn evaluate_deep(depth: usize, name: &str) {
    let arrays = Deep(nest_arrays(depth, json!(1)));
    let objects = Deep(nest("a", depth, json!(1)));
    let schemas = deep_schemas();
    measure(name, 256 * MIB, || {
        for schema in &schemas {
            let s = Schema::compile(schema).unwrap();
            for instance in [&arrays, &objects] {
                assert_eq!(
                    s.evaluate(instance).is_valid(),
                    s.is_valid(instance),
                    "{schema}"
                );
            }
        }
    });
}

#[test]
fn deep_instances_evaluate() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    evaluate_deep(1_000, "1,000-deep instances, 7 schemas, evaluate");
}

/// Every annotation holds its full instance and keyword locations, so `evaluate` costs
/// depth squared: 10,000 levels under `{"items": {"$ref": "#"}}` took 5.7 s and 898 MiB,
/// 100,000 levels would take about 90 GB.
#[test]
#[ignore = "known limit: every annotation of Schema::evaluate carries its full instance location, so output grows with depth squared and evaluate stops with EvaluationBudgetExceeded past 64 MiB of locations instead of answering (README, Security); is_valid/validate are linear"]
fn deep_instances_evaluate_in_linear_memory() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    evaluate_deep(15_000, "15,000-deep instances, 7 schemas, evaluate");
}

/// `evaluate` tries every branch of every `oneOf` for its annotations: branches that
/// re-enter the same subschema on the same item double the work at every level, and deep
/// instances give every annotation a long location. Both end on the evaluation budget,
/// with one error, in bounded time and memory.
#[test]
fn evaluate_stops_within_its_budget() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let budget_exceeded = |e: &toolschema::Evaluation| {
        !e.is_valid()
            && e.annotations().is_empty()
            && e.errors().len() == 1
            && *e.errors()[0].kind() == ErrorKind::EvaluationBudgetExceeded
            && e.errors()[0].instance_location().is_empty()
    };
    // Two identical branches at each of 40 levels: 2^40 evaluations without a budget.
    let doubling = Schema::compile(&json!({
        "$defs": {"n": {"oneOf": [
            {"items": {"$ref": "#/$defs/n"}},
            {"items": {"$ref": "#/$defs/n"}, "title": "again"},
            {"type": "array"}
        ]}},
        "$ref": "#/$defs/n"
    }))
    .unwrap();
    let instance = Deep(nest_arrays(40, json!([])));
    let e = measure("2^40 branch evaluations, evaluate", 256 * MIB, || {
        doubling.evaluate(&instance)
    });
    assert!(budget_exceeded(&e), "{:?}", e.errors());
    // A shallow instance of the same schema is evaluated in full.
    let e = doubling.evaluate(&json!([[[]]]));
    assert!(
        e.errors()
            .iter()
            .all(|e| *e.kind() != ErrorKind::EvaluationBudgetExceeded)
    );
    assert_eq!(e.is_valid(), doubling.is_valid(&json!([[[]]])));
    // 20,000 levels, each annotated: the locations alone would take gigabytes.
    let titled = Schema::compile(&json!({"title": "t", "items": {"$ref": "#"}})).unwrap();
    let instance = Deep(nest_arrays(20_000, json!(1)));
    let e = measure(
        "20,000-deep instance, annotated, evaluate",
        256 * MIB,
        || titled.evaluate(&instance),
    );
    assert!(budget_exceeded(&e), "{:?}", e.errors());
    assert!(titled.is_valid(&instance));
}

/// The same doubling schema, on the paths that stop at the first failure or match: they
/// too apply both branches at every level, and stop on the step budget.
#[test]
fn doubling_branches_stop_on_the_step_budget() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    for (name, doubling) in [
        (
            "oneOf",
            json!({"$defs": {"n": {"oneOf": [
                {"items": {"$ref": "#/$defs/n"}},
                {"items": {"$ref": "#/$defs/n"}, "minItems": 0},
                {"type": "array"}
            ]}}, "$ref": "#/$defs/n"}),
        ),
        (
            // (`prefixItems` is not fused: see `allof_doubling_is_fused_on_the_fail_fast_path`.)
            "allOf",
            json!({"allOf": [
                {"prefixItems": [{"$ref": "#"}]},
                {"prefixItems": [{"$ref": "#"}], "title": "x"}
            ]}),
        ),
        (
            "properties and patternProperties",
            json!({"properties": {"a": {"$ref": "#"}}, "patternProperties": {"^a": {"$ref": "#"}}}),
        ),
    ] {
        let schema = Schema::compile(&doubling).unwrap();
        let instance = if name.starts_with("properties") {
            Deep(nest("a", 60, json!({})))
        } else {
            Deep(nest_arrays(60, json!([])))
        };
        measure(
            &format!("2^60 {name} evaluations, every path"),
            256 * MIB,
            || {
                assert!(!schema.is_valid(&instance), "{name}");
                let errors = schema.validate(&instance).unwrap_err();
                let kinds: Vec<&ErrorKind> = errors.iter().map(|e| e.kind()).collect();
                assert_eq!(kinds, [&ErrorKind::EvaluationBudgetExceeded], "{name}");
                let iterated: Vec<_> = schema.iter_errors(&instance).collect();
                assert_eq!(iterated.len(), 1, "{name}");
                assert_eq!(*iterated[0].kind(), ErrorKind::EvaluationBudgetExceeded);
                assert!(!schema.evaluate(&instance).is_valid(), "{name}");
            },
        );
    }
}

/// An `allOf` whose branches each apply the root to the items doubles the work at every
/// level when its branches are evaluated one by one, as the reporting paths do (they stop
/// on the step budget). The fail-fast path fuses the branches (one `items`, the `allOf` of
/// both schemas, each reached once): it answers in linear time, and answers right.
#[test]
fn allof_doubling_is_fused_on_the_fail_fast_path() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let schema = Schema::compile(&json!({"allOf": [
        {"items": {"$ref": "#"}},
        {"items": {"$ref": "#"}, "maxItems": 5}
    ]}))
    .unwrap();
    let deep = Deep(nest_arrays(60, json!([])));
    let too_long = Deep(nest_arrays(60, json!([1, 2, 3, 4, 5, 6])));
    measure("2^60 allOf doublings, fail-fast", 64 * MIB, || {
        assert!(schema.is_valid(&deep));
        assert!(!schema.is_valid(&too_long));
        // The reporting paths ask the fail-fast path first.
        assert!(schema.validate(&deep).is_ok());
        assert_eq!(schema.iter_errors(&deep).count(), 0);
        // `evaluate` collects every branch's annotations, one by one: it stops on the
        // budget.
        let e = schema.evaluate(&deep);
        assert!(!e.is_valid());
        let kinds: Vec<&ErrorKind> = e.errors().iter().map(|e| e.kind()).collect();
        assert_eq!(kinds, [&ErrorKind::EvaluationBudgetExceeded]);
    });
    // Shallow instances: both paths decide, and agree.
    for instance in [
        json!([[[]]]),
        json!([[1, 2, 3, 4, 5, 6]]),
        json!([[], [[]], 1]),
        json!("not an array"),
    ] {
        assert_eq!(
            schema.is_valid(&instance),
            schema.validate(&instance).is_ok(),
            "{instance}"
        );
    }
    assert!(!schema.is_valid(&json!([[1, 2, 3, 4, 5, 6]])));
}

/// `Options::step_budget` moves the bound both ways: 2^18 doublings (two steps each) are
/// past the default for a 19-value instance and within a raised budget.
#[test]
fn the_step_budget_is_an_option() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    // (`prefixItems`: not fused, so that the fail-fast path doubles too.)
    let doubling = json!({"allOf": [
        {"prefixItems": [{"$ref": "#"}]},
        {"prefixItems": [{"$ref": "#"}], "maxItems": 5}
    ]});
    let instance = Deep(nest_arrays(18, json!([])));
    let default = Schema::compile(&doubling).unwrap();
    assert!(!default.is_valid(&instance));
    let errors = default.validate(&instance).unwrap_err();
    assert_eq!(
        *errors.iter().next().unwrap().kind(),
        ErrorKind::EvaluationBudgetExceeded
    );
    let raised = Options::new()
        .step_budget(1 << 21, 1024)
        .compile(&doubling)
        .unwrap();
    measure("2^18 doublings within a raised budget", 64 * MIB, || {
        assert!(raised.is_valid(&instance));
        assert!(raised.validate(&instance).is_ok());
    });
    let lowered = Options::new()
        .step_budget(100, 1)
        .compile(&doubling)
        .unwrap();
    assert!(!lowered.is_valid(&Deep(nest_arrays(8, json!([])))));
    assert!(default.is_valid(&Deep(nest_arrays(8, json!([])))));
}

/// The step budget grows with the instance: a large legitimate instance that needs more
/// than the first 65,536 steps is validated in full.
#[test]
fn large_instances_are_not_cut_short_by_the_step_budget() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    // Four union nodes per item (none a switch on types alone): 1.6 million steps for
    // 400,000 items.
    let schema = Schema::compile(&json!({"items": {"anyOf": [
        {"type": "object", "required": ["x"]},
        {"type": "object", "properties": {
            "a": {"allOf": [{"type": "integer"}, {"minimum": 0}]},
            "b": {"anyOf": [{"type": "integer", "minimum": 5}, {"type": ["null", "integer"]}]},
            "c": {"allOf": [{"type": "string"}, {"maxLength": 3}]}
        }}
    ]}}))
    .unwrap();
    let n = size(400_000);
    let item = json!({"a": 1, "b": null, "c": "s"});
    let mut instance = Value::Array(vec![item; n]);
    measure(&format!("{n} items through four unions"), 64 * MIB, || {
        assert!(schema.is_valid(&instance));
        assert!(schema.validate(&instance).is_ok());
        assert!(schema.iter_errors(&instance).next().is_none());
    });
    if let Value::Array(items) = &mut instance {
        items[n - 1] = json!({"a": -1});
    }
    measure(
        &format!("{n} items, the last one invalid"),
        64 * MIB,
        || {
            assert!(!schema.is_valid(&instance));
            let errors = schema.validate(&instance).unwrap_err();
            // (The branch that got furthest reports, at the member: see closest_branch.rs.)
            let e = errors.iter().next().unwrap();
            assert_eq!(e.instance_location(), format!("/{}/a", n - 1));
            assert!(matches!(e.kind(), ErrorKind::Minimum { .. }), "{e:?}");
        },
    );
}

/// Eight levels of hundred-way `anyOf`s of references, under a `oneOf`: a few hundred
/// subschemas, but the compiler's dispatch derivations (tags, filters, presence) follow
/// references through unions, and without a budget per list looked at 100^4 nodes for
/// each branch (width 50 took 11 s, 100 over a minute).
#[test]
fn wide_unions_of_references_compile_quickly() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let mut defs = Map::new();
    for i in 0..8 {
        let next = format!("#/$defs/d{}", i + 1);
        let branches: Vec<Value> = (0..100)
            .map(|k| json!({"$ref": next, "minProperties": k}))
            .collect();
        defs.insert(format!("d{i}"), json!({"anyOf": branches}));
    }
    defs.insert(
        "d8".into(),
        json!({"type": "object", "properties": {"t": {"const": 1}}, "required": ["t"]}),
    );
    let schema = json!({"$defs": defs, "oneOf": [
        {"$ref": "#/$defs/d0"},
        {"$ref": "#/$defs/d0", "properties": {"u": {"const": 2}}}
    ]});
    let compiled = measure(
        "8 levels of 100-way anyOf references, compile",
        64 * MIB,
        || Schema::compile(&schema).unwrap(),
    );
    // Both branches match the first object, one the second.
    assert!(!compiled.is_valid(&json!({"t": 1})));
    assert!(compiled.is_valid(&json!({"t": 1, "u": 3})));
}

#[test]
fn ten_million_unique_items() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let n = size(10_000_000) as u64;
    let mut items: Vec<Value> = (0..n).map(Value::from).collect();
    let schema = Schema::compile(&json!({"uniqueItems": true})).unwrap();
    let mut instance = Value::Array(std::mem::take(&mut items));
    measure(
        &format!("{n} distinct integers, uniqueItems"),
        1024 * MIB,
        || {
            assert!(schema.is_valid(&instance));
        },
    );
    if let Value::Array(items) = &mut instance {
        items.push(json!(123_456.0));
    }
    measure(
        &format!("{n} integers + a duplicate at the end"),
        1024 * MIB,
        || {
            assert!(!schema.is_valid(&instance));
            let errors = schema.validate(&instance).unwrap_err();
            let e = errors.iter().next().unwrap();
            assert_eq!(
                *e.kind(),
                ErrorKind::UniqueItems {
                    first: 123_456,
                    second: n as usize
                }
            );
        },
    );
    let strings = Value::Array(
        (0..size(1_000_000))
            .map(|i| json!(format!("s{i}")))
            .collect(),
    );
    measure(
        "1 million (debug: 100,000) distinct strings, uniqueItems",
        512 * MIB,
        || {
            assert!(schema.is_valid(&strings));
        },
    );
}

#[test]
fn hundred_thousand_keys_under_pattern_properties() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let schema = Schema::compile(&json!({
        "patternProperties": {"^a": {"type": "integer"}, "b$": {"type": "string"}, "^(?!c)": true},
        "additionalProperties": false,
        "propertyNames": {"maxLength": 8},
        "maxProperties": 200_000,
    }))
    .unwrap();
    let mut map: Map<String, Value> = (0..100_000).map(|i| (format!("a{i}"), json!(i))).collect();
    let good = Value::Object(map.clone());
    map.insert("c1".into(), json!(1));
    map.insert("a99999b".into(), json!(1));
    let bad = Value::Object(map);
    measure(
        "100,000 keys under patternProperties (valid)",
        512 * MIB,
        || {
            assert!(agree(&schema, &good));
        },
    );
    measure(
        "100,000 keys under patternProperties (2 bad)",
        512 * MIB,
        || {
            assert!(!agree(&schema, &bad));
            let errors = schema.validate(&bad).unwrap_err();
            let locations: Vec<&str> = errors.iter().map(|e| e.instance_location()).collect();
            assert_eq!(errors.len(), 2, "{locations:?}");
            // The instance key shows in the location only; messages never quote values.
            for e in errors.iter() {
                assert!(!e.message().contains("a99999b") && !e.message().contains("c1"));
            }
        },
    );
}

#[test]
fn error_messages_quote_no_instance_values() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let secret = "sk-live-SECRET-1234567890";
    let schema = Schema::compile(&json!({
        "type": "object",
        "properties": {"token": {"pattern": "^x", "maxLength": 3, "enum": ["a", "b"], "format": "email"}},
        "additionalProperties": {"type": "integer"},
    }))
    .unwrap();
    let instance = json!({"token": secret, "other": secret});
    measure("redaction of instance values in errors", 8 * MIB, || {
        let errors = schema.validate(&instance).unwrap_err();
        assert!(errors.len() >= 3);
        let rendered = format!("{errors} {errors:?}");
        assert!(!rendered.contains(secret), "{rendered}");
    });
}

/// `depth` objects `{"kids": [<next>]}`, the innermost `{"kids": [leaf]}`.
fn nest_kids(depth: usize, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..depth {
        let mut map = Map::new();
        map.insert("kids".to_string(), Value::Array(vec![v]));
        v = Value::Object(map);
    }
    v
}

/// Arrays of objects go from the array straight to each object's walk (the room on the
/// stack checked once per array): 50,000 levels of an object holding an array of one
/// object, through an `items` alone and through an `items` beside other keywords.
/// (`evaluate` is left out: its annotations name locations as deep as the instance, at
/// every level, an output that grows with the square of the depth.)
#[test]
fn deep_arrays_of_objects() {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let depth = size(50_000);
    let valid = Deep(nest_kids(depth, json!({})));
    let invalid = Deep(nest_kids(depth, json!(1)));
    let agree = |s: &Schema, instance: &Value| {
        let valid = s.is_valid(instance);
        assert_eq!(s.validate(instance).is_ok(), valid, "validate disagrees");
        assert_eq!(
            s.iter_errors(instance).next().is_none(),
            valid,
            "iter_errors disagrees"
        );
        valid
    };
    measure(
        &format!("{depth}-deep arrays of objects, 2 schemas, is_valid/validate/iter_errors"),
        256 * MIB,
        || {
            for items in [
                json!({"type": "array", "items": {"$ref": "#/$defs/n"}}),
                json!({"type": "array", "uniqueItems": true, "items": {"$ref": "#/$defs/n"}}),
            ] {
                let s = Schema::compile(&json!({
                    "$defs": {"n": {"type": "object", "properties": {"kids": items}}},
                    "$ref": "#/$defs/n"
                }))
                .unwrap();
                assert!(agree(&s, &valid));
                assert!(!agree(&s, &invalid));
            }
        },
    );
}

#[test]
fn unions_of_references_to_one_large_literal() {
    // A const of a 10,000-item array, named by anyOf/oneOf lists of 100 references each:
    // merging such a union into one enum must not copy the literal per reference (here
    // 2,000 copies, some 600 MiB) nor compare the copies pairwise.
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let big: Vec<Value> = (0..10_000).map(|i| json!(i)).collect();
    let mut defs = Map::new();
    defs.insert("big".into(), json!({"const": big}));
    defs.insert("small".into(), json!({"enum": ["a", "b"]}));
    let mut props = Map::new();
    for i in 0..20 {
        let mut branches: Vec<Value> = (0..100).map(|_| json!({"$ref": "#/$defs/big"})).collect();
        branches.push(json!({"$ref": "#/$defs/small"}));
        let keyword = if i % 2 == 0 { "anyOf" } else { "oneOf" };
        props.insert(format!("p{i}"), json!({keyword: branches}));
    }
    // An if chain whose arms name the large literal under a type (their literals filtered).
    let arms: Vec<Value> = (0..1000)
        .map(|i| {
            json!({"if": {"properties": {"k": {"type": "array", "$ref": "#/$defs/big"}},
                          "required": ["k"]},
                   "then": {"required": [format!("r{i}")]}})
        })
        .collect();
    let schema = Deep(json!({"$defs": defs, "properties": props, "allOf": arms}));
    let compiled = measure(
        "20 unions of 100 references to a 10,000-item const, compile",
        64 * MIB,
        || Schema::compile(&schema).unwrap(),
    );
    assert!(compiled.is_valid(&json!({"p0": "a", "p1": "b"})));
    assert!(!compiled.is_valid(&json!({"p0": "c"})));
    // In the oneOf, "a" is in one branch only; the large literal in a hundred.
    assert!(compiled.is_valid(&json!({"p1": "a"})));
    assert!(!compiled.is_valid(&json!({"p1": [0]})));
    // The chain's condition holds for the large literal only (every arm's then).
    assert!(compiled.is_valid(&json!({"k": [1, 2]})));
    assert!(!compiled.is_valid(&json!({"k": big})));
}

#[test]
fn all_ofs_of_large_tables_compile_in_bounded_memory() {
    // Two definitions of 500 properties each, and 2,000 properties whose schema is the
    // `allOf` of both: fusing every one would copy a million table entries (some hundred
    // MiB). Fusion copies at most a few times the schema's own tables.
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    let table = |prefix: &str| {
        let props: Map<String, Value> = (0..500)
            .map(|i| (format!("{prefix}{i}"), json!({"type": "integer"})))
            .collect();
        json!({"type": "object", "properties": props})
    };
    let mut props = Map::new();
    for i in 0..2000 {
        props.insert(
            format!("x{i}"),
            json!({"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}]}),
        );
    }
    let schema = Deep(json!({
        "$defs": {"a": table("a"), "b": table("b")},
        "properties": props
    }));
    let compiled = measure(
        "2,000 allOfs of two 500-property tables, compile",
        16 * MIB,
        || Schema::compile(&schema).unwrap(),
    );
    for i in [0, 1, 1999] {
        let key = format!("x{i}");
        assert!(compiled.is_valid(&json!({&key: {"a1": 1, "b499": 2}})));
        assert!(!compiled.is_valid(&json!({&key: {"a1": 1, "b499": "2"}})));
        assert!(!compiled.is_valid(&json!({&key: {"a499": 1.5}})));
        assert!(!compiled.is_valid(&json!({&key: []})));
    }
}
