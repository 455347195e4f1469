//! Arbitrary bytes → JSON → compile under the default limits: never a panic, and compiling
//! stays bounded in time and memory (libFuzzer's `-timeout` and `-rss_limit_mb` enforce it).
//! When the schema compiles, it is also run against a few fixed instances.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolschema::{Options, Schema};

fuzz_target!(|data: &[u8]| {
    // Compilation cost is bounded by the caps, not by this; it only keeps runs short.
    if data.len() > 64 * 1024 {
        return;
    }
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let compiled = Schema::compile(&schema);
    // The same document as a registered remote and with formats asserting takes other paths.
    let _ = Options::new()
        .assert_formats(true)
        .refs_fragment_only(true)
        .compile(&schema);
    if let Ok(compiled) = compiled {
        for instance in [
            json!(null),
            json!(1),
            json!("a"),
            json!([1, "a"]),
            json!({"a": 1}),
            schema,
        ] {
            toolschema_fuzz::assert_paths_agree(&compiled, &instance);
        }
    }
});
