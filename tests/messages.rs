//! `enum` and `const` errors show the schema's allowed values, clipped, and never the
//! instance's value.

use serde_json::json;
use toolschema::{ErrorKind, Schema};

fn messages(schema: serde_json::Value, instance: serde_json::Value) -> Vec<String> {
    let schema = Schema::compile(&schema).expect("compiles");
    schema
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn enum_errors_list_the_first_values_clipped() {
    let long = "y".repeat(200);
    let got = messages(
        json!({"enum": ["a", 1, null, {"k": [true]}, long, "sixth", "seventh"]}),
        json!("secret-instance-value"),
    );
    let clipped = format!("\"{}…", "y".repeat(79));
    assert_eq!(
        got,
        [format!(
            "/: must be one of the 7 allowed values: \"a\", 1, null, {{\"k\":[true]}}, {clipped}, …"
        )]
    );
    assert!(!got[0].contains("secret") && !got[0].contains("sixth"));
    let got = messages(json!({"enum": ["only"]}), json!("x"));
    assert_eq!(got, ["/: must be the one allowed value: \"only\""]);
}

#[test]
fn const_errors_show_the_constant_clipped() {
    let got = messages(
        json!({"const": {"mode": "fast"}}),
        json!({"mode": "slow-secret"}),
    );
    assert_eq!(got, ["/: must be the constant {\"mode\":\"fast\"}"]);
    let huge = json!({"const": vec![12345; 100_000]});
    let schema = Schema::compile(&huge).expect("compiles");
    let errors = schema.validate(&json!(1)).unwrap_err();
    let error = errors.iter().next().expect("one error");
    match error.kind() {
        ErrorKind::Const { expected } => {
            assert_eq!(
                expected.chars().count(),
                81,
                "80 characters and an ellipsis"
            );
            assert!(expected.ends_with('…'));
        }
        other => panic!("{other:?}"),
    }
}
