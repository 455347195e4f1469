//! One check that every way of validating agrees, for the test files that check verdicts.
//!
//! For a schema and an instance: `is_valid`, `is_valid_json` on its text, the reporting
//! path run in full (without the
//! `is_valid` pass `validate` and `iter_errors` start with, so that a shortcut that
//! wrongly accepts cannot hide behind it), `validate`, `iter_errors` and `evaluate`, each
//! under the default configuration and the reference one (`Options::shortcuts(false)`,
//! the general keyword loop alone), must give one verdict, in both directions.

#![allow(dead_code)]

pub mod alloc;
pub mod example;
pub mod installed;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod python;
pub mod required;

use serde_json::Value;
use toolschema::{Options, Schema, SchemaError};

/// A schema compiled twice: with the compiler's shortcuts (what callers get) and without
/// (the reference). Derefs to the first.
#[derive(Debug, Clone)]
pub struct Both {
    pub fast: Schema,
    pub reference: Schema,
}

impl std::ops::Deref for Both {
    type Target = Schema;
    fn deref(&self) -> &Schema {
        &self.fast
    }
}

/// Compiles `schema` with the default options, in both configurations.
///
/// # Panics
/// When one configuration compiles the schema and the other refuses it.
#[track_caller]
pub fn compile(schema: &Value) -> Result<Both, SchemaError> {
    compile_with(&Options::new(), schema)
}

/// Compiles `schema` with `options`, in both configurations.
///
/// # Panics
/// When one configuration compiles the schema and the other refuses it.
#[track_caller]
pub fn compile_with(options: &Options, schema: &Value) -> Result<Both, SchemaError> {
    let fast = options.compile(schema);
    let reference = options.clone().shortcuts(false).compile(schema);
    match (fast, reference) {
        (Ok(fast), Ok(reference)) => Ok(Both { fast, reference }),
        (Err(e), Err(r)) => {
            assert_eq!(
                e.to_string(),
                r.to_string(),
                "the configurations refuse {schema} differently"
            );
            Err(e)
        }
        (Ok(_), Err(e)) => panic!("only the reference configuration refuses {schema}: {e}"),
        (Err(e), Ok(_)) => panic!("only the default configuration refuses {schema}: {e}"),
    }
}

/// Every verdict of one configuration, labelled.
fn verdicts(schema: &Schema, instance: &Value) -> [(&'static str, bool); 6] {
    [
        ("is_valid", schema.is_valid(instance)),
        ("is_valid_json", from_text(schema, instance)),
        (
            "errors (reporting path in full)",
            schema.errors_unchecked(instance).is_empty(),
        ),
        ("validate", schema.validate(instance).is_ok()),
        ("iter_errors", schema.iter_errors(instance).next().is_none()),
        ("evaluate", evaluated(schema, instance)),
    ]
}

/// `is_valid_json` on the instance's text (the evaluator on the flat tree); `is_valid`'s
/// for an instance nested deeper than JSON text may be (built in code, not parsed).
fn from_text(schema: &Schema, instance: &Value) -> bool {
    let text = serde_json::to_vec(instance).expect("a Value serializes");
    match schema.is_valid_json(&text) {
        Ok(v) => v,
        Err(e) if e.kind == toolschema::JsonErrorKind::TooDeep => schema.is_valid(instance),
        Err(e) => panic!("is_valid_json refuses serde_json's own text: {e}"),
    }
}

/// `evaluate`'s verdict; `is_valid`'s when `evaluate` ran past its output budget (it keeps
/// every annotation, so a large valid instance may exceed it: no verdict then).
fn evaluated(schema: &Schema, instance: &Value) -> bool {
    let evaluation = schema.evaluate(instance);
    match evaluation.errors() {
        [e] if *e.kind() == toolschema::ErrorKind::EvaluationBudgetExceeded => {
            schema.is_valid(instance)
        }
        _ => evaluation.is_valid(),
    }
}

/// The one verdict every path of both configurations gives on `instance`.
///
/// # Panics
/// When two of them differ, listing every answer.
#[track_caller]
pub fn verdict(both: &Both, instance: &Value) -> bool {
    match disagreement(both, instance) {
        Ok(v) => v,
        Err(why) => panic!("{why}"),
    }
}

/// `verdict`, with a disagreement as an error that lists every answer (for runners that
/// collect failures).
pub fn disagreement(both: &Both, instance: &Value) -> Result<bool, String> {
    let fast = verdicts(&both.fast, instance);
    let reference = verdicts(&both.reference, instance);
    let first = fast[0].1;
    if fast.iter().chain(&reference).all(|&(_, v)| v == first) {
        return Ok(first);
    }
    let list = |vs: &[(&str, bool)]| {
        vs.iter()
            .map(|(name, v)| format!("{name} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut shown = instance.to_string();
    if shown.len() > 400 {
        let mut end = 400;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push_str("...");
    }
    Err(format!(
        "paths disagree on {shown}: shortcuts: {}; reference: {}",
        list(&fast),
        list(&reference),
    ))
}

/// Checks that every path of both configurations answers `expected` on `instance`.
#[track_caller]
pub fn check(both: &Both, instance: &Value, expected: bool) {
    assert_eq!(
        verdict(both, instance),
        expected,
        "wrong answer on {instance}"
    );
}

/// Compiles `schema` (default options) and checks `instance` is valid on every path.
#[track_caller]
pub fn assert_valid(schema: &Value, instance: &Value) {
    let both = compile(schema).unwrap_or_else(|e| panic!("{schema} does not compile: {e}"));
    check(&both, instance, true);
}

/// Compiles `schema` (default options) and checks `instance` is invalid on every path.
#[track_caller]
pub fn assert_invalid(schema: &Value, instance: &Value) {
    let both = compile(schema).unwrap_or_else(|e| panic!("{schema} does not compile: {e}"));
    check(&both, instance, false);
}

/// `Options::compile` in both configurations, as a method.
pub trait CompileBoth {
    /// See [`compile_with`].
    fn compile_both(&self, schema: &Value) -> Result<Both, SchemaError>;
}

impl CompileBoth for Options {
    #[track_caller]
    fn compile_both(&self, schema: &Value) -> Result<Both, SchemaError> {
        compile_with(self, schema)
    }
}
