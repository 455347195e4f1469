//! Differential: a schema from the 2020-12 keyword grammar and a near-miss instance, judged
//! by toolschema, jsonschema (jsonschema-rs) and boon, formats not asserted.
//!
//! When toolschema alone disagrees with both others, the target panics: that is a bug to
//! investigate. When another implementation is alone, the case is appended to the file
//! named by `DIFFERENTIAL_LOG` (if set) so it can be checked against the spec and recorded
//! in `fuzz/KNOWN_DIFFERENCES.md`. Cases where an implementation refuses the schema are
//! logged the same way and otherwise skipped.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolschema::Schema;
use toolschema_fuzz::SchemaAndInstance;

use toolschema_fuzz::{boon, jsonschema_rs};

static LOGGED: AtomicUsize = AtomicUsize::new(0);

fn log(kind: &str, input: &SchemaAndInstance, detail: &str) {
    let Ok(path) = std::env::var("DIFFERENTIAL_LOG") else {
        return;
    };
    if LOGGED.fetch_add(1, Ordering::Relaxed) > 5_000 {
        return;
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(
            f,
            "{}",
            serde_json::json!({"kind": kind, "schema": input.schema.0, "instance": input.instance.0, "detail": detail})
        );
    }
}

fuzz_target!(|input: SchemaAndInstance| {
    let (schema, instance) = (&input.schema.0, &input.instance.0);
    let ours = match Schema::compile(schema) {
        Ok(s) => s,
        Err(e) => {
            // Only refusals the others share are uninteresting.
            let theirs = (
                jsonschema_rs(schema, &Value::Null).is_ok(),
                boon(schema, &Value::Null).is_ok(),
            );
            if theirs.0 && theirs.1 {
                log(
                    "toolschema-refuses",
                    &input,
                    &format!("{:?}: {e}", e.kind()),
                );
            }
            return;
        }
    };
    // toolschema accepted it, so no reference loop can run forever in the others.
    let ours = toolschema_fuzz::assert_paths_agree(&ours, instance);
    let js = jsonschema_rs(schema, instance);
    let bo = boon(schema, instance);
    match (js, bo) {
        (Ok(js), Ok(bo)) => {
            if js == bo && ours != js {
                panic!("toolschema says {ours}, jsonschema and boon say {js}\n{input:?}");
            }
            if js != bo {
                let odd = if ours == js { "boon" } else { "jsonschema" };
                log(
                    &format!("{odd}-minority"),
                    &input,
                    &format!("toolschema {ours}, jsonschema {js}, boon {bo}"),
                );
            }
        }
        (Err(e), Ok(bo)) => log(
            "jsonschema-refuses",
            &input,
            &format!("{e}; toolschema {ours}, boon {bo}"),
        ),
        (Ok(js), Err(e)) => log(
            "boon-refuses",
            &input,
            &format!("{e}; toolschema {ours}, jsonschema {js}"),
        ),
        (Err(a), Err(b)) => log("both-refuse", &input, &format!("{a} | {b}")),
    }
});
