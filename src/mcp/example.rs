//! A small example-value generator: the mock's answer for a tool that declares an output
//! schema but no `x-response`. Best effort; the caller validates what it returns.

use serde_json::{Map, Value, json};

const MAX_DEPTH: usize = 24;

/// An instance that probably matches `schema` (a subschema of `root`), or `None`.
pub(crate) fn example(schema: &Value, root: &Value) -> Option<Value> {
    gen_value(schema, root, 0)
}

fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

fn gen_value(schema: &Value, root: &Value, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let s = match schema {
        Value::Bool(true) => return Some(Value::Null),
        Value::Object(s) => s,
        _ => return None,
    };
    if let Some(v) = s.get("const") {
        return Some(v.clone());
    }
    if let Some(v) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return Some(v.clone());
    }
    if let Some(v) = s
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return Some(v.clone());
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return gen_value(resolve(r, root)?, root, depth + 1);
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        let mut merged = s.clone();
        merged.remove("allOf");
        for part in all {
            let part = match part.get("$ref").and_then(Value::as_str) {
                Some(r) => resolve(r, root)?,
                None => part,
            };
            merge(&mut merged, part);
        }
        return gen_value(&Value::Object(merged), root, depth + 1);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = s.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
            let mut merged = s.clone();
            merged.remove(key);
            let first = match first.get("$ref").and_then(Value::as_str) {
                Some(r) => resolve(r, root)?,
                None => first,
            };
            merge(&mut merged, first);
            return gen_value(&Value::Object(merged), root, depth + 1);
        }
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.contains_key("properties") || s.contains_key("required") => "object",
        _ if s.contains_key("items") => "array",
        _ => "null",
    };
    Some(match ty {
        "object" => {
            let mut out = Map::new();
            let props = s.get("properties").and_then(Value::as_object);
            for name in s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let sub = props
                    .and_then(|p| p.get(name))
                    .or_else(|| s.get("additionalProperties"))
                    .unwrap_or(&Value::Bool(true));
                out.insert(name.to_string(), gen_value(sub, root, depth + 1)?);
            }
            Value::Object(out)
        }
        "array" => {
            let n = s.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let items = s.get("items").unwrap_or(&Value::Bool(true));
            let one = if n > 0 {
                Some(gen_value(items, root, depth + 1)?)
            } else {
                None
            };
            Value::Array(one.map(|v| vec![v; n.min(16) as usize]).unwrap_or_default())
        }
        "string" => {
            let text = match s.get("format").and_then(Value::as_str) {
                Some("date-time") => "2025-01-01T00:00:00Z".to_string(),
                Some("date") => "2025-01-01".to_string(),
                Some("uri" | "url") => "https://example.com/".to_string(),
                Some("email") => "user@example.com".to_string(),
                Some("uuid") => "00000000-0000-4000-8000-000000000000".to_string(),
                _ => "x".repeat(
                    s.get("minLength")
                        .and_then(Value::as_u64)
                        .unwrap_or(1)
                        .clamp(1, 64) as usize,
                ),
            };
            Value::String(text)
        }
        "integer" | "number" => {
            let min = s.get("minimum").and_then(Value::as_f64);
            let xmin = s
                .get("exclusiveMinimum")
                .and_then(Value::as_f64)
                .map(|x| x.floor() + 1.0);
            let n = min.into_iter().chain(xmin).fold(0.0_f64, f64::max);
            json!(n as i64)
        }
        "boolean" => Value::Bool(true),
        _ => Value::Null,
    })
}

/// Merges `part` into `into`: properties and required lists are united, other keys kept
/// from `into` when both have them.
fn merge(into: &mut Map<String, Value>, part: &Value) {
    let Some(part) = part.as_object() else { return };
    for (k, v) in part {
        match (k.as_str(), into.get_mut(k)) {
            ("properties", Some(Value::Object(p))) => {
                if let Some(more) = v.as_object() {
                    for (name, sub) in more {
                        p.entry(name.clone()).or_insert_with(|| sub.clone());
                    }
                }
            }
            ("required", Some(Value::Array(r))) => {
                for name in v.as_array().into_iter().flatten() {
                    if !r.contains(name) {
                        r.push(name.clone());
                    }
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}
