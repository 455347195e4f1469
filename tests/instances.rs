//! Instances at the edges: very deep, very large, numbers beyond i64/f64, Unicode lengths.

mod support;

use serde_json::{Value, json};
use toolschema::Schema;

/// Builds `[[[...]]]` `depth` levels deep without recursion.
fn deep_array(depth: usize) -> Value {
    let mut v = json!([]);
    for _ in 1..depth {
        v = Value::Array(vec![v]);
    }
    v
}

/// Takes a deep value apart without recursion (serde_json's drop recurses).
fn dismantle(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[test]
fn a_100_000_deep_instance_gets_an_answer() {
    let recursive = Schema::compile(&json!({
        "$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "$ref": "#/$defs/node"
    }))
    .unwrap();
    let not_numbers = Schema::compile(&json!({
        "$defs": {"node": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/node"}}, {"type": "string"}]}},
        "$ref": "#/$defs/node"
    }))
    .unwrap();
    let deep = deep_array(100_000);
    assert!(recursive.is_valid(&deep));
    assert!(recursive.validate(&deep).is_ok());
    assert!(not_numbers.is_valid(&deep));
    // Put a number at the bottom: invalid, with a location 100,000 levels down.
    let mut v = json!([1]);
    for _ in 1..100_000 {
        v = Value::Array(vec![v]);
    }
    assert!(!recursive.is_valid(&v));
    let errors: Vec<_> = recursive.iter_errors(&v).collect();
    assert!(!errors.is_empty());
    assert!(errors[0].instance_location().starts_with("/0/0/0"));
    assert_eq!(errors[0].instance_location().len(), 2 * 100_000);
    let unique = Schema::compile(&json!({"uniqueItems": true})).unwrap();
    let pair = Value::Array(vec![deep, v]);
    assert!(unique.is_valid(&pair));
    dismantle(pair);
}

#[test]
fn json_number_semantics() {
    let int = support::compile(&json!({"type": "integer"})).unwrap();
    assert!(support::verdict(&int, &json!(1.0)));
    assert!(support::verdict(&int, &json!(-0.0)));
    assert!(!support::verdict(&int, &json!(1.5)));
    assert!(
        int.is_valid(&serde_json::from_str::<Value>("123456789012345678901234567890").unwrap())
    );
    assert!(support::verdict(&int, &json!(u64::MAX)));

    let max = support::compile(&json!({"maximum": 18446744073709551615u64})).unwrap();
    assert!(support::verdict(&max, &json!(u64::MAX)));
    assert!(!support::verdict(
        &max,
        &serde_json::from_str::<Value>("18446744073709551616.5").unwrap()
    ));
    let min = support::compile(&json!({"minimum": -9223372036854775808i64})).unwrap();
    assert!(support::verdict(&min, &json!(i64::MIN)));
    assert!(!support::verdict(&min, &json!(-9.3e18)));
    let excl = support::compile(&json!({"exclusiveMaximum": 9007199254740993u64})).unwrap();
    assert!(support::verdict(&excl, &json!(9007199254740992u64)));
    assert!(!support::verdict(&excl, &json!(9007199254740993u64)));

    let cents = support::compile(&json!({"multipleOf": 0.0001})).unwrap();
    assert!(support::verdict(&cents, &json!(0.0075)));
    assert!(support::verdict(&cents, &json!(12.3456)));
    assert!(!support::verdict(&cents, &json!(0.00751)));
    let tenth = support::compile(&json!({"multipleOf": 0.1})).unwrap();
    assert!(support::verdict(&tenth, &json!(0.3)));
    assert!(support::verdict(&tenth, &json!(4.2)));
    let tiny = support::compile(&json!({"multipleOf": 1e-308})).unwrap();
    assert!(support::verdict(&tiny, &json!(3)));
    let huge = support::compile(&json!({"multipleOf": 1e308})).unwrap();
    assert!(!support::verdict(&huge, &json!(3)));
    assert!(support::verdict(&huge, &json!(0)));
}

#[test]
fn json_equality_for_enum_const_unique() {
    let e = support::compile(&json!({"enum": [1, {"a": [1, 2]}]})).unwrap();
    assert!(support::verdict(&e, &json!(1.0)));
    assert!(support::verdict(&e, &json!({"a": [1.0, 2]})));
    assert!(!support::verdict(&e, &json!(true)));
    let c = support::compile(&json!({"const": {"x": 1, "y": 2}})).unwrap();
    let reordered: Value = serde_json::from_str(r#"{"y": 2.0, "x": 1}"#).unwrap();
    assert!(support::verdict(&c, &reordered));
    let u = support::compile(&json!({"uniqueItems": true})).unwrap();
    assert!(!support::verdict(&u, &json!([1, 1.0])));
    assert!(support::verdict(&u, &json!([1, true, "1", [1], {"1": 1}])));
    assert!(!support::verdict(
        &u,
        &json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])
    ));
    // Large arrays take the hashing path.
    let big: Vec<Value> = (0..10_000).map(|i| json!(i)).collect();
    assert!(support::verdict(&u, &Value::Array(big.clone())));
    let mut dup = big;
    dup.push(json!(5000.0));
    assert!(!support::verdict(&u, &Value::Array(dup)));
    // Equal across number forms, key orders and zero's signs there too, nested.
    let objects: Vec<Value> = (0..20).map(|i| json!({"k": i, "v": [i, -i]})).collect();
    assert!(support::verdict(&u, &Value::Array(objects.clone())));
    for twin in [
        r#"{"v": [7.0, -7], "k": 7}"#,
        r#"{"k": 0, "v": [-0.0, 0.0]}"#,
    ] {
        let mut dup = objects.clone();
        dup.push(serde_json::from_str(twin).unwrap());
        assert!(!support::verdict(&u, &Value::Array(dup)), "{twin}");
    }
    // Arrays of a few scalars compare signatures first: equal across forms there too.
    for (text, unique) in [
        ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 2.0]", false),
        ("[0, 1, 2, 3, 4, 5, -0.0]", false),
        (
            "[\"a\", 1, null, true, false, \"b\", 1.5, [1], {}, 1.50]",
            false,
        ),
        (
            "[\"a\", 1, null, true, false, \"b\", 1.5, [1], {}, \"1\"]",
            true,
        ),
        (
            "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]",
            true,
        ),
    ] {
        let array: Value = serde_json::from_str(text).unwrap();
        assert_eq!(support::verdict(&u, &array), unique, "{text}");
    }
    let mut near = objects;
    near.push(json!({"k": 7, "v": [-7, 7]}));
    assert!(support::verdict(&u, &Value::Array(near)));
}

#[test]
fn string_lengths_count_code_points() {
    let s = support::compile(&json!({"minLength": 2, "maxLength": 2})).unwrap();
    assert!(support::verdict(&s, &json!("💩💩")));
    assert!(support::verdict(&s, &json!("éé")));
    assert!(!support::verdict(&s, &json!("💩")));
    assert!(!support::verdict(&s, &json!("abc")));
}

#[test]
fn schemas_are_send_sync_and_shareable() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Schema>();
    let s = Schema::compile(&json!({"type": "string"})).unwrap();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let s = s.clone();
            std::thread::spawn(move || {
                s.is_valid(&json!(format!("x{i}"))) && !s.is_valid(&json!(i))
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap());
    }
}

#[test]
fn iter_errors_is_lazy_and_complete_on_many_errors() {
    let schema = Schema::compile(&json!({"items": {"type": "string"}})).unwrap();
    let items: Vec<Value> = (0..200_000).map(|i| json!(i)).collect();
    let instance = Value::Array(items);
    // The first error comes without evaluating everything into a list first...
    let first = schema.iter_errors(&instance).next().expect("an error");
    assert_eq!(first.instance_location(), "/0");
    // ...and iterating to the end yields every error, once, in order.
    let mut n = 0;
    for (i, e) in schema.iter_errors(&instance).enumerate() {
        assert_eq!(e.instance_location(), format!("/{i}"));
        n += 1;
    }
    assert_eq!(n, 200_000);
}
