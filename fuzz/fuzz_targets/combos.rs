//! The oracle's generator (`tests/support/combos.rs`, shared with `tests/oracle.rs`) for
//! open-ended runs: the input bytes are a seed; the case is a schema built from keyword
//! combinations (every keyword's subschema wrapped in `$ref`, a `$ref` chain, `allOf`,
//! `anyOf`, `oneOf`, `not`, `not`/`not`, `if`/`then`, `if`/`else`, `$dynamicRef`, a `$ref`
//! beside keywords) under one of the five dialects, with its examples and mutations of
//! them. The default configuration and the reference one (`Options::shortcuts(false)`)
//! must compile or refuse alike and give one verdict on every path (`is_valid`,
//! `is_valid_json`, the reporting path in full, `validate`, `iter_errors`, `evaluate`); a
//! disagreement is shrunk before the panic prints it.
//!
//! With `COMBOS_DIFFERENTIAL=1`, 2020-12 cases without asserted formats also go to
//! jsonschema-rs and boon, and toolschema alone against both panics (as in `differential`).
//!
//! ```sh
//! cd fuzz && cargo +nightly fuzz run -O combos corpus/combos -- -max_total_time=600
//! ```

#![no_main]

#[path = "../../tests/support/combos.rs"]
mod combos;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolschema::{Draft, Options, Schema};

/// Every verdict of one configuration, labelled.
fn verdicts(schema: &Schema, instance: &Value) -> Vec<(&'static str, bool)> {
    let text = serde_json::to_vec(instance).expect("a Value serializes");
    let evaluation = schema.evaluate(instance);
    let stopped = evaluation
        .errors()
        .iter()
        .any(|e| *e.kind() == toolschema::ErrorKind::EvaluationBudgetExceeded);
    let mut out = vec![
        ("is_valid", schema.is_valid(instance)),
        (
            "errors (reporting path in full)",
            schema.errors_unchecked(instance).is_empty(),
        ),
        ("validate", schema.validate(instance).is_ok()),
        ("iter_errors", schema.iter_errors(instance).next().is_none()),
    ];
    if let Ok(v) = schema.is_valid_json(&text) {
        out.push(("is_valid_json", v));
    }
    if !stopped {
        out.push(("evaluate", evaluation.is_valid()));
    }
    out
}

/// `None` when every path of both configurations agrees (or both refuse the schema), else
/// what differs.
fn disagreement(options: &Options, schema: &Value, instance: &Value) -> Option<String> {
    let fast = options.compile(schema);
    let reference = options.clone().shortcuts(false).compile(schema);
    let (fast, reference) = match (fast, reference) {
        (Ok(f), Ok(r)) => (f, r),
        (Err(_), Err(_)) => return None,
        (f, r) => {
            return Some(format!(
                "only one configuration compiles it (with shortcuts: {}, without: {})",
                f.is_ok(),
                r.is_ok()
            ));
        }
    };
    let fast = verdicts(&fast, instance);
    let reference = verdicts(&reference, instance);
    let first = fast[0].1;
    if fast.iter().chain(&reference).all(|&(_, v)| v == first) {
        return None;
    }
    Some(format!("shortcuts: {fast:?}; reference: {reference:?}"))
}

fuzz_target!(|data: &[u8]| {
    let seed = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let case = combos::generate(seed, 8);
    let options = Options::new()
        .default_dialect(case.draft)
        .assert_formats(case.assert_formats);
    for instance in &case.instances {
        if let Some(why) = disagreement(&options, &case.schema, instance) {
            let mut budget = 3_000;
            let schema = combos::shrink(case.schema.clone(), &mut budget, &mut |s| {
                disagreement(&options, s, instance).is_some()
            });
            let mut budget = 3_000;
            let instance = combos::shrink(instance.clone(), &mut budget, &mut |i| {
                disagreement(&options, &schema, i).is_some()
            });
            let why = disagreement(&options, &schema, &instance).unwrap_or(why);
            panic!(
                "{why}\ndialect: {:?}, formats asserted: {}\nschema:   {schema}\ninstance: {instance}",
                case.draft, case.assert_formats
            );
        }
    }
    if case.draft == Draft::Draft202012
        && !case.assert_formats
        && std::env::var_os("COMBOS_DIFFERENTIAL").is_some()
        && let Ok(ours) = Schema::compile(&case.schema)
    {
        for instance in &case.instances {
            let mine = ours.is_valid(instance);
            if let (Ok(js), Ok(bo)) = (
                toolschema_fuzz::jsonschema_rs(&case.schema, instance),
                toolschema_fuzz::boon(&case.schema, instance),
            ) && js == bo
                && mine != js
            {
                panic!(
                    "toolschema says {mine}, jsonschema and boon say {js}\nschema:   {}\ninstance: {instance}",
                    case.schema
                );
            }
        }
    }
});
