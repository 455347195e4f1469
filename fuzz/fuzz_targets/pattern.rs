//! An arbitrary ECMA-262 pattern and subject, through the public API: `{"pattern": P}`
//! and `{"format": "regex"}` with formats asserting. Translation never panics; matching
//! stays within its backtracking budget, so each input is time-bounded (libFuzzer's
//! `-timeout`). A pattern that compiles must answer the same on every validation path.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::fmt;
use toolschema::{Options, SchemaErrorKind};

#[derive(Arbitrary)]
struct Input {
    pattern: String,
    subject: String,
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "schema:   {}", json!({"pattern": self.pattern}))?;
        write!(f, "instance: {}", Value::String(self.subject.clone()))
    }
}

fuzz_target!(|input: Input| {
    if input.pattern.len() > 512 || input.subject.len() > 4096 {
        return;
    }
    let options = Options::new().assert_formats(true).pattern_budget(10_000);
    let subject = Value::String(input.subject.clone());
    match options.compile(&json!({"pattern": input.pattern})) {
        Ok(schema) => {
            toolschema_fuzz::assert_paths_agree(&schema, &subject);
            // A pattern the compiler accepts is a valid regex for `format: "regex"`.
            let format = options
                .compile(&json!({"format": "regex"}))
                .expect("compiles");
            assert!(
                format.is_valid(&Value::String(input.pattern.clone())),
                "pattern compiles but format \"regex\" rejects it"
            );
        }
        Err(e) => assert_eq!(e.kind(), SchemaErrorKind::InvalidPattern, "{e}"),
    }
    // As a patternProperties key, matched against a property name.
    if let Ok(schema) =
        options.compile(&json!({"patternProperties": {input.pattern.clone(): false}}))
    {
        let mut obj = serde_json::Map::new();
        obj.insert(input.subject.clone(), Value::Null);
        toolschema_fuzz::assert_paths_agree(&schema, &Value::Object(obj));
    }
    // format "regex" on the subject itself.
    let format = options
        .compile(&json!({"format": "regex"}))
        .expect("compiles");
    toolschema_fuzz::assert_paths_agree(&format, &subject);
});
