//! The attribute on real schemas: verdicts and errors are the runtime engine's, for a
//! schema from a file and inline, with options, and on the inputs that stress the
//! generated code (a recursive schema on a deep instance, a schema that exhausts the step
//! budget).

use serde_json::{Value, json};
use toolschema::{Options, Schema};

#[toolschema_macros::validator(path = "tests/args.json")]
struct Args;

#[toolschema_macros::validator(schema = r##"{
    "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}, "additionalProperties": false}},
    "$ref": "#/$defs/node"
}"##)]
struct List;

#[toolschema_macros::validator(schema = r#"{"format": "email"}"#, assert_formats = true)]
struct Email;

#[toolschema_macros::validator(schema = r#"{"format": "email"}"#)]
struct EmailAnnotated;

#[toolschema_macros::validator(schema = r#"{"type": "integer"}"#, draft = 4)]
struct Draft4Integer;

// Every level applies the same subschema twice: 2^depth work without a budget.
#[toolschema_macros::validator(schema = r##"{
    "$defs": {"t": {"anyOf": [{"items": {"$ref": "#/$defs/t"}, "maxItems": 0}, {"items": {"$ref": "#/$defs/t"}}]}},
    "$ref": "#/$defs/t"
}"##)]
struct Exponential;

fn runtime(text: &str) -> Schema {
    let v: Value = serde_json::from_str(text).unwrap();
    Schema::compile(&v).unwrap()
}

fn errors(r: Result<(), toolschema::ValidationErrors>) -> Vec<String> {
    match r {
        Ok(()) => Vec::new(),
        Err(e) => e
            .iter()
            .map(|e| format!("{e} @ {}", e.keyword_location()))
            .collect(),
    }
}

#[test]
fn a_schema_from_a_file_gives_the_engines_verdicts_and_errors() {
    let engine = runtime(include_str!("args.json"));
    let cases = [
        (json!({"path": "a"}), true),
        (json!({"path": "a", "depth": 3, "mode": "read"}), true),
        (json!({"path": ""}), false),
        (json!({"path": "a", "depth": 11}), false),
        (json!({"path": "a", "depth": 1.5}), false),
        (json!({"path": "a", "depth": 2.0}), true),
        (json!({"path": "a", "mode": "delete"}), false),
        (json!({"path": "a", "other": 1}), false),
        (json!({"depth": 1}), false),
        (json!([]), false),
        (json!("x"), false),
    ];
    for (instance, expected) in cases {
        assert_eq!(Args::is_valid(&instance), expected, "{instance}");
        assert_eq!(engine.is_valid(&instance), expected, "{instance}");
        assert_eq!(
            errors(Args::validate(&instance)),
            errors(engine.validate(&instance))
        );
        assert_eq!(
            Args::iter_errors(&instance).count(),
            engine.iter_errors(&instance).count()
        );
        assert_eq!(
            Args::evaluate(&instance).basic(),
            engine.evaluate(&instance).basic()
        );
    }
    assert_eq!(Args::SCHEMA, include_str!("args.json"));
}

#[test]
fn options_are_the_engines() {
    assert!(!Email::is_valid(&json!("not an address")));
    assert!(Email::is_valid(&json!("a@example.com")));
    assert!(EmailAnnotated::is_valid(&json!("not an address")));
    // Draft 4: `1.0` is not an integer; from draft 6 on it is.
    assert!(!Draft4Integer::is_valid(&json!(1.0)));
    assert!(Draft4Integer::is_valid(&json!(1)));
    let d4 = Options::new()
        .default_dialect(toolschema::Draft::Draft4)
        .compile(&json!({"type": "integer"}))
        .unwrap();
    assert_eq!(
        d4.is_valid(&json!(1.0)),
        Draft4Integer::is_valid(&json!(1.0))
    );
}

/// `{"next": {"next": ...}}`, `depth` levels around `inner` (built by moves: `json!`
/// would serialize the value again at every level).
fn nested(depth: usize, inner: Value) -> Value {
    let mut v = inner;
    for _ in 0..depth {
        let mut m = serde_json::Map::new();
        m.insert("next".to_string(), v);
        v = Value::Object(m);
    }
    v
}

#[test]
fn a_recursive_schema_on_a_deep_instance_answers_without_overflowing() {
    // (serde_json's own recursion limit is for parsing; a `Value` built in code has none.)
    let deep = nested(50_000, json!({}));
    assert!(List::is_valid(&deep));
    let bad = nested(50_000, json!({"extra": 1}));
    assert!(!List::is_valid(&bad));
    // (Dropped on a thread of its own with a large stack: a `Value` this deep drops recursively.)
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || drop((deep, bad)))
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn past_the_step_budget_the_engine_decides() {
    let engine =
        Schema::compile(&serde_json::from_str::<Value>(Exponential::SCHEMA).unwrap()).unwrap();
    // (One item per level: the instance is small, the work 2^40 without a budget.)
    let mut v = json!([]);
    for _ in 0..40 {
        v = Value::Array(vec![v]);
    }
    let started = std::time::Instant::now();
    let generated = Exponential::is_valid(&v);
    assert_eq!(generated, engine.is_valid(&v));
    // (A bound on a hang, not a speed claim: 2^40 steps would take hours.)
    assert!(started.elapsed().as_secs() < 60);
}

/// Code generic over `toolschema::GeneratedValidator` gets the generated verdicts, the
/// engine's compiled form and the options the attribute fixed.
fn generic_verdict<V: toolschema::GeneratedValidator>(instance: &Value) -> bool {
    V::is_valid(instance)
}

#[test]
fn the_generated_type_implements_the_trait_with_its_schema_and_options() {
    use toolschema::GeneratedValidator;
    for (instance, expected) in [(json!({"path": "a"}), true), (json!({"path": ""}), false)] {
        assert_eq!(generic_verdict::<Args>(&instance), expected);
        assert_eq!(
            <Args as GeneratedValidator>::schema().is_valid(&instance),
            expected
        );
    }
    assert_eq!(
        <Args as GeneratedValidator>::SCHEMA,
        include_str!("args.json")
    );
    let published: Value = serde_json::from_str(include_str!("args.json")).unwrap();
    assert_eq!(Args::mismatch(&published, &Options::new()), None);
    let mut other = published.clone();
    other["properties"]["path"]["minLength"] = json!(2);
    assert!(Args::mismatch(&other, &Options::new()).is_some());
    // The options it fixed: formats asserted here, annotations there.
    let email = json!({"format": "email"});
    assert_eq!(
        Email::mismatch(&email, &Options::new().assert_formats(true)),
        None
    );
    assert!(Email::mismatch(&email, &Options::new()).is_some());
    assert!(EmailAnnotated::mismatch(&email, &Options::new().assert_formats(true)).is_some());
    assert_eq!(
        Draft4Integer::mismatch(
            &json!({"type": "integer"}),
            &Options::new().default_dialect(toolschema::Draft::Draft4)
        ),
        None
    );
    assert!(Draft4Integer::mismatch(&json!({"type": "integer"}), &Options::new()).is_some());
    assert!(generic_verdict::<Email>(&json!("a@example.com")));
    assert!(!generic_verdict::<Email>(&json!("not an address")));
}
