//! The cases of the error-precision benchmark (`benches/precision.sh`): single-leaf
//! mutations of valid instances of the bench corpus and of generated arguments of the MCP
//! tool corpus, each with the locations a first error should name, and toolschema's first
//! error for it.
//!
//! ```text
//! cargo run --release -p toolschema-bench --bin precision-cases -- OUTDIR
//! ```
//!
//! Writes `OUTDIR/schemas.json` (an array) and `OUTDIR/cases.jsonl`, one line per mutation
//! that toolschema refuses: `case`, `schema` (an index), `kind`, `at` (the mutated
//! location), `accept` (the locations a first error may name), `instance`, `toolschema`
//! (its first error's instance location). Mutations, at every location of each valid
//! instance: `type` (a value of another type), `value` (a string or number no schema is
//! likely to allow), `missing` (a member removed: its parent is named), `extra` (a member
//! added: it or its parent is named). Deterministic: no randomness.

use serde_json::{Value, json};
use std::io::Write;
use toolschema::Options;
use toolschema_bench::load_cases;

/// At most this many valid instances per corpus case, and mutations per instance (taken
/// evenly across its locations).
const INSTANCES_PER_CASE: usize = 12;
const MUTATIONS_PER_INSTANCE: usize = 120;
const MAX_INSTANCE_BYTES: usize = 16 << 10;

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Every location of `v` below the root, with its parent's.
fn locations(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                let p = format!("{at}/{}", escape(k));
                out.push((p.clone(), at.to_string()));
                locations(child, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push((p.clone(), at.to_string()));
                locations(child, &p, out);
            }
        }
        _ => {}
    }
}

fn other_type(v: &Value) -> Value {
    match v {
        Value::String(_) => json!(12345),
        Value::Number(_) => json!("a string"),
        Value::Bool(_) => json!("a string"),
        Value::Null => json!(["an array"]),
        Value::Object(_) => json!("a string"),
        Value::Array(_) => json!({"an": "object"}),
    }
}

/// Mutations of `valid`: (kind, mutated location, accepted locations, instance).
fn mutations(valid: &Value) -> Vec<(&'static str, String, Vec<String>, Value)> {
    let mut locs = Vec::new();
    locations(valid, "", &mut locs);
    // (Locations taken evenly before anything is cloned: a large instance has millions.)
    let keep = MUTATIONS_PER_INSTANCE / 3;
    if locs.len() > keep {
        let step = locs.len() as f64 / keep as f64;
        locs = (0..keep)
            .map(|i| locs[(i as f64 * step) as usize].clone())
            .collect();
    }
    let mut out = Vec::new();
    let mut objects = vec![String::new()];
    for (at, parent) in &locs {
        let v = valid.pointer(at).expect("a location of the instance");
        let mut put = |kind, accept: Vec<String>, new: Option<Value>| {
            let mut m = valid.clone();
            match new {
                Some(new) => *m.pointer_mut(at).expect("there") = new,
                None => {
                    let key = at.rsplit('/').next().unwrap_or_default();
                    let key = key.replace("~1", "/").replace("~0", "~");
                    match m.pointer_mut(parent) {
                        Some(Value::Object(o)) => {
                            o.remove(&key);
                        }
                        _ => return,
                    }
                }
            }
            out.push((kind, at.clone(), accept, m));
        };
        put("type", vec![at.clone()], Some(other_type(v)));
        match v {
            Value::String(_) => put(
                "value",
                vec![at.clone()],
                Some(json!("zz~not a valid value~zz")),
            ),
            Value::Number(_) => put("value", vec![at.clone()], Some(json!(-987654321))),
            _ => {}
        }
        if valid.pointer(parent).is_some_and(Value::is_object) {
            put("missing", vec![parent.clone()], None);
        }
        if v.is_object() {
            objects.push(at.clone());
        }
    }
    for at in objects {
        let mut m = valid.clone();
        if let Some(Value::Object(o)) = m.pointer_mut(&at) {
            o.insert("zz_unexpected".into(), json!(true));
            let accept = vec![at.clone(), format!("{at}/zz_unexpected")];
            out.push(("extra", format!("{at}/zz_unexpected"), accept, m));
        }
    }
    if out.len() > MUTATIONS_PER_INSTANCE {
        let step = out.len() as f64 / MUTATIONS_PER_INSTANCE as f64;
        out = (0..MUTATIONS_PER_INSTANCE)
            .map(|i| out[(i as f64 * step) as usize].clone())
            .collect();
    }
    out
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: precision-cases OUTDIR");
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir).expect("OUTDIR");
    let mut schemas: Vec<Value> = Vec::new();
    let mut cases = std::io::BufWriter::new(
        std::fs::File::create(dir.join("cases.jsonl")).expect("cases.jsonl"),
    );
    let (mut written, mut valid_kept) = (0usize, 0usize);
    for case in load_cases(None) {
        if case.skipped.is_some() {
            continue;
        }
        let base = schemas.len();
        let compiled: Vec<_> = case
            .schemas
            .iter()
            .map(|s| Options::new().compile(s).ok())
            .collect();
        schemas.extend(case.schemas.iter().cloned());
        let mut per_schema = vec![0usize; case.schemas.len()];
        for inst in &case.instances {
            let Some(Some(schema)) = compiled.get(inst.schema) else {
                continue;
            };
            // (Instances past 16 KiB of text are left out: the other validators take
            // minutes over a hundred mutated copies of a 2 MB document.)
            if inst.expected == Some(false)
                || inst.text.len() > MAX_INSTANCE_BYTES
                || !schema.is_valid(&inst.value)
            {
                continue;
            }
            if per_schema[inst.schema] >= INSTANCES_PER_CASE {
                continue;
            }
            per_schema[inst.schema] += 1;
            valid_kept += 1;
            for (kind, at, accept, m) in mutations(&inst.value) {
                let Some(first) = schema.iter_errors(&m).next() else {
                    continue;
                };
                let line = json!({
                    "case": case.name, "schema": base + inst.schema, "kind": kind, "at": at,
                    "accept": accept, "instance": m,
                    "toolschema": first.instance_location(),
                });
                serde_json::to_writer(&mut cases, &line).expect("write");
                cases.write_all(b"\n").expect("write");
                written += 1;
            }
        }
    }
    cases.flush().expect("write");
    let mut s = std::fs::File::create(dir.join("schemas.json")).expect("schemas.json");
    serde_json::to_writer(&mut s, &Value::Array(schemas)).expect("write");
    eprintln!("precision-cases: {written} refused mutations of {valid_kept} valid instances");
}
