//! Upgrade: a schema from the keyword grammar, rewritten into the syntax of an older draft
//! (`definitions`, array `items` with `additionalItems`, `dependencies`, draft-04 boolean
//! exclusive bounds, `id` anchors), then read under that draft and, upgraded by
//! `toolschema::upgrade`, under 2020-12: both must answer alike on the instance.
//!
//! A refused upgrade is fine (it says why); an upgraded schema that does not compile while
//! the original does, or a different answer, panics. Every 100,000 runs the counts of
//! compared, refused and not compiled cases go to stderr.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use toolschema::{Draft, Options, upgrade::upgrade};
use toolschema_fuzz::SchemaAndInstance;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input {
    draft: u8,
    flags: u8,
    case: SchemaAndInstance,
}

static RUNS: AtomicUsize = AtomicUsize::new(0);
static COMPARED: AtomicUsize = AtomicUsize::new(0);
static REFUSED: AtomicUsize = AtomicUsize::new(0);
static ORIGINAL_FAILS: AtomicUsize = AtomicUsize::new(0);

/// `schema` in the syntax of `draft` (as far as the grammar's keywords have an old form).
fn downgrade(schema: &Value, draft: Draft, flags: u8) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let old = draft != Draft::Draft201909;
    let mut out = Map::new();
    let mut deps = Map::new();
    for (k, v) in map {
        let d = |v: &Value| downgrade(v, draft, flags);
        match k.as_str() {
            "$defs" if flags & 1 != 0 => {
                let m = v
                    .as_object()
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), d(v))).collect());
                out.insert("definitions".into(), Value::Object(m.unwrap_or_default()));
            }
            "$ref" => {
                let r = v.as_str().unwrap_or("#");
                let r = if flags & 1 != 0 {
                    r.replace("/$defs/", "/definitions/")
                } else {
                    r.to_string()
                };
                out.insert(k.clone(), json!(r));
            }
            "prefixItems" => {
                let items: Vec<Value> = v.as_array().into_iter().flatten().map(d).collect();
                out.insert("items".into(), Value::Array(items));
                if let Some(rest) = map.get("items") {
                    out.insert("additionalItems".into(), d(rest));
                }
            }
            "items" if map.contains_key("prefixItems") => {}
            "dependentRequired" | "dependentSchemas" if old || flags & 2 != 0 => {
                for (name, dep) in v.as_object().into_iter().flatten() {
                    deps.insert(
                        name.clone(),
                        if dep.is_array() { dep.clone() } else { d(dep) },
                    );
                }
            }
            "$anchor" if old => {
                let kw = if draft == Draft::Draft4 { "id" } else { "$id" };
                out.insert(kw.into(), json!("#anchor"));
            }
            "exclusiveMinimum" | "exclusiveMaximum" if draft == Draft::Draft4 => {
                let bound = if k == "exclusiveMinimum" {
                    "minimum"
                } else {
                    "maximum"
                };
                if !map.contains_key(bound) {
                    out.insert(bound.into(), v.clone());
                    out.insert(k.clone(), json!(true));
                }
            }
            "type" if draft == Draft::Draft4 && flags & 4 != 0 => {
                let s = v.to_string().replace("\"integer\"", "\"number\"");
                let t: Value = serde_json::from_str(&s).unwrap_or(Value::Null);
                // (A type list that names "number" twice is malformed: keep the first.)
                let t = match t {
                    Value::Array(list) => {
                        let mut seen = Vec::new();
                        for x in list {
                            if !seen.contains(&x) {
                                seen.push(x);
                            }
                        }
                        Value::Array(seen)
                    }
                    t => t,
                };
                out.insert(k.clone(), t);
            }
            "properties" | "patternProperties" | "dependentSchemas" => {
                let m = v
                    .as_object()
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), d(v))).collect());
                out.insert(k.clone(), Value::Object(m.unwrap_or_default()));
            }
            "allOf" | "anyOf" | "oneOf" => {
                out.insert(
                    k.clone(),
                    Value::Array(v.as_array().into_iter().flatten().map(d).collect()),
                );
            }
            "additionalProperties"
            | "propertyNames"
            | "items"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else"
            | "unevaluatedProperties"
            | "unevaluatedItems" => {
                out.insert(k.clone(), d(v));
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    if !deps.is_empty() {
        out.insert("dependencies".into(), Value::Object(deps));
    }
    Value::Object(out)
}

fuzz_target!(|input: Input| {
    let draft = match input.draft % 4 {
        0 => Draft::Draft4,
        1 => Draft::Draft6,
        2 => Draft::Draft7,
        _ => Draft::Draft201909,
    };
    let runs = RUNS.fetch_add(1, Ordering::Relaxed) + 1;
    if runs.is_multiple_of(100_000) {
        eprintln!(
            "upgrade: {runs} runs, {} compared, {} refused, {} originals not compiled",
            COMPARED.load(Ordering::Relaxed),
            REFUSED.load(Ordering::Relaxed),
            ORIGINAL_FAILS.load(Ordering::Relaxed)
        );
    }
    let schema = downgrade(&input.case.schema.0, draft, input.flags);
    let formats = input.flags & 8 != 0;
    let options = Options::new()
        .default_dialect(draft)
        .assert_formats(formats)
        .assert_content(formats);
    let Ok(original) = options.compile(&schema) else {
        ORIGINAL_FAILS.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let upgraded = match upgrade(&schema, draft) {
        Ok(u) => u,
        Err(_) => {
            REFUSED.fetch_add(1, Ordering::Relaxed);
            return;
        }
    };
    let compiled = match options.compile(&upgraded) {
        Ok(s) => s,
        Err(e) => panic!("the upgrade of {schema} does not compile: {e}\nupgraded: {upgraded}"),
    };
    let instance = &input.case.instance.0;
    let (a, b) = (original.is_valid(instance), compiled.is_valid(instance));
    assert_eq!(
        a, b,
        "{draft:?} {schema}\nupgraded: {upgraded}\ninstance: {instance}\noriginal says {a}, upgraded {b}"
    );
    COMPARED.fetch_add(1, Ordering::Relaxed);
});
