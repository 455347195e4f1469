//! A schema from a grammar of 2020-12 keywords and a near-miss instance: `is_valid`,
//! `validate`, `iter_errors` and `evaluate` must give the same verdict.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolschema::Schema;
use toolschema_fuzz::{SchemaAndInstance, assert_paths_agree};

fuzz_target!(|input: SchemaAndInstance| {
    let Ok(schema) = Schema::compile(&input.schema.0) else {
        return;
    };
    assert_paths_agree(&schema, &input.instance.0);
    // Every error renders; the rendering must not be empty.
    if let Err(errors) = schema.validate(&input.instance.0) {
        for e in &errors {
            assert!(!e.to_string().is_empty());
        }
    }
});
