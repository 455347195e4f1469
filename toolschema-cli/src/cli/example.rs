//! A small example-value generator: the mock's answer for a tool that declares an output
//! schema but no `x-response`. Best effort; the caller validates what it returns.

use serde_json::{Map, Value, json};

const MAX_DEPTH: usize = 24;

/// Most JSON values (every member and item counted, scalars included, a string or member
/// name one more per 64 bytes) one generated example and the schema copies made on the way
/// may hold: `minItems` and `required` are clamped
/// per level, but eight nested arrays of sixteen would still be 16^8 values.
pub(crate) const MAX_EXAMPLE_VALUES: usize = 100_000;

/// Why no example was derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoExample {
    /// The generator does not know how to satisfy the schema.
    Underivable,
    /// The example would hold more than [`MAX_EXAMPLE_VALUES`] values.
    TooLarge,
}

/// An instance that probably matches `schema` (a subschema of `root`), within
/// [`MAX_EXAMPLE_VALUES`].
pub(crate) fn example(schema: &Value, root: &Value) -> Result<Value, NoExample> {
    let mut left = MAX_EXAMPLE_VALUES;
    let out = gen_value(schema, root, 0, &mut left);
    match out {
        Some(v) => Ok(v),
        None if left == 0 => Err(NoExample::TooLarge),
        None => Err(NoExample::Underivable),
    }
}

/// Takes `n` values from the budget; `false` (and the budget spent) when it lacks them.
fn spend(left: &mut usize, n: usize) -> bool {
    match left.checked_sub(n) {
        Some(rest) => {
            *left = rest;
            true
        }
        None => {
            *left = 0;
            false
        }
    }
}

/// Pays for `copies` copies of `v` from the budget, before they are made.
fn pay(v: &Value, copies: usize, left: &mut usize) -> Option<()> {
    let size = values_within(v, *left).unwrap_or(usize::MAX);
    spend(left, size.saturating_mul(copies)).then_some(())
}

/// A copy of `v`, paid for from the budget before it is made.
fn copy(v: &Value, left: &mut usize) -> Option<Value> {
    pay(v, 1, left).map(|()| v.clone())
}

/// How many values `v` holds (a string one more per 64 bytes), or `None` past `limit`
/// (counting stops there).
fn values_within(v: &Value, limit: usize) -> Option<usize> {
    let mut count = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => {
                count += members.keys().map(|k| k.len() / 64).sum::<usize>();
                stack.extend(members.values());
            }
            Value::String(text) => count += text.len() / 64,
            _ => {}
        }
        if count > limit {
            return None;
        }
    }
    Some(count)
}

fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

fn gen_value(schema: &Value, root: &Value, depth: usize, left: &mut usize) -> Option<Value> {
    if depth > MAX_DEPTH || !spend(left, 1) {
        return None;
    }
    let s = match schema {
        Value::Bool(true) => return Some(Value::Null),
        Value::Object(s) => s,
        _ => return None,
    };
    if let Some(v) = s.get("const") {
        return copy(v, left);
    }
    if let Some(v) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return copy(v, left);
    }
    if let Some(v) = s
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return copy(v, left);
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return gen_value(resolve(r, root)?, root, depth + 1, left);
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        let Some(Value::Object(mut merged)) = copy(schema, left) else {
            return None;
        };
        merged.remove("allOf");
        for part in all {
            let part = match part.get("$ref").and_then(Value::as_str) {
                Some(r) => resolve(r, root)?,
                None => part,
            };
            pay(part, 1, left)?;
            merge(&mut merged, part);
        }
        return gen_value(&Value::Object(merged), root, depth + 1, left);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = s.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
            let Some(Value::Object(mut merged)) = copy(schema, left) else {
                return None;
            };
            merged.remove(key);
            let first = match first.get("$ref").and_then(Value::as_str) {
                Some(r) => resolve(r, root)?,
                None => first,
            };
            pay(first, 1, left)?;
            merge(&mut merged, first);
            return gen_value(&Value::Object(merged), root, depth + 1, left);
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
                out.insert(name.to_string(), gen_value(sub, root, depth + 1, left)?);
            }
            Value::Object(out)
        }
        "array" => {
            let n = s.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let items = s.get("items").unwrap_or(&Value::Bool(true));
            let n = n.min(16) as usize;
            if n == 0 {
                return Some(Value::Array(Vec::new()));
            }
            let one = gen_value(items, root, depth + 1, left)?;
            // The copies are paid for before they are made.
            pay(&one, n - 1, left)?;
            Value::Array(vec![one; n])
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
