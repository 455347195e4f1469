//! A small deterministic generator of tool arguments: from an MCP tool's `inputSchema`, a
//! valid argument object ([`generate`]) and a near-miss invalid one ([`near_miss`]).
//!
//! It covers what tool schemas use: local `$ref`, `allOf` (merged), `anyOf`/`oneOf` (first
//! non-null branch), `enum`/`const`, `type` (first non-null), string length, a few
//! `format`s, `pattern` (a fixed list of candidate strings, the first that matches), number
//! bounds and `multipleOf`, `items`/`prefixItems`/`minItems`/`contains`, `properties`,
//! `required`, `additionalProperties`, `minProperties`. Nothing is random: the same schema
//! always gives the same value. The generator aims at validity but does not promise it;
//! the report flags every instance whose consensus verdict differs from the intent.

use serde_json::{Map, Value, json};

/// Which valid argument object to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Required properties only, short strings, empty arrays where allowed.
    Minimal,
    /// Every declared property, at least one item per array.
    Full,
}

const MAX_DEPTH: usize = 12;

const PATTERN_CANDIDATES: &[&str] = &[
    "example",
    "US",
    "7d",
    "example.com",
    "abc",
    "a",
    "1",
    "owner/repo",
    "2024-01-01",
    "x-1",
    "A1",
];

struct Generator<'a> {
    root: &'a Value,
    variant: Variant,
}

/// A valid argument object for `schema` (the tool's `inputSchema`, also the root that
/// local `$ref`s resolve against).
pub fn generate(schema: &Value, variant: Variant) -> Value {
    Generator {
        root: schema,
        variant,
    }
    .value(schema, 0)
}

/// A near-miss invalid argument object for `schema`: the [`Variant::Full`] object with one
/// mutation (missing required property, wrong type, value outside `enum`, unexpected
/// property under `additionalProperties: false`, or a non-object root), the first that
/// applies in an order rotated by `seed`.
pub fn near_miss(schema: &Value, seed: usize) -> Value {
    let generator = Generator {
        root: schema,
        variant: Variant::Full,
    };
    let valid = generator.value(schema, 0);
    let effective = generator.effective(schema, 0);
    let Value::Object(mut object) = valid else {
        return json!({"__near_miss__": true});
    };
    for step in 0..4 {
        let applied = match (seed + step) % 4 {
            0 => remove_required(&effective, &mut object, seed),
            1 => wrong_type(&generator, &effective, &mut object),
            2 => enum_miss(&generator, &effective, &mut object),
            _ => extra_property(&effective, &mut object),
        };
        if applied {
            return Value::Object(object);
        }
    }
    Value::Array(vec![Value::Object(object)])
}

fn remove_required(schema: &Value, object: &mut Map<String, Value>, seed: usize) -> bool {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if required.is_empty() {
        return false;
    }
    object.remove(required[seed % required.len()]).is_some()
}

fn wrong_type(generator: &Generator<'_>, schema: &Value, object: &mut Map<String, Value>) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    for (name, sub) in properties {
        if !object.contains_key(name) {
            continue;
        }
        let sub = generator.effective(sub, 0);
        let types: Vec<&str> = match sub.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        let allows = |t: &str| types.contains(&t);
        let replacement = if !allows("string") {
            json!("not-the-declared-type")
        } else if !allows("integer") && !allows("number") {
            json!(12345)
        } else if !allows("object") {
            json!({"not": "declared"})
        } else {
            continue;
        };
        object.insert(name.clone(), replacement);
        return true;
    }
    false
}

fn enum_miss(generator: &Generator<'_>, schema: &Value, object: &mut Map<String, Value>) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    for (name, sub) in properties {
        let sub = generator.effective(sub, 0);
        if object.contains_key(name) && (sub.get("enum").is_some() || sub.get("const").is_some()) {
            object.insert(name.clone(), json!("__not_an_allowed_value__"));
            return true;
        }
    }
    false
}

fn extra_property(schema: &Value, object: &mut Map<String, Value>) -> bool {
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        object.insert("__unexpected__".to_string(), json!(1));
        return true;
    }
    false
}

/// Merges `extra` into `base`: `properties` are united, `required` lists joined, any other
/// keyword taken from `extra` only when `base` lacks it.
fn merge_into(base: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (key, value) in extra {
        match (key.as_str(), base.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, sub) in theirs {
                    mine.entry(name.clone()).or_insert_with(|| sub.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            (_, None, _) => {
                base.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
}

impl Generator<'_> {
    /// Follows a local `$ref` chain.
    fn resolve<'s>(&'s self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..16 {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(pointer) = reference.strip_prefix('#') else {
                break;
            };
            match self.root.pointer(pointer) {
                Some(target) => schema = target,
                None => break,
            }
        }
        schema
    }

    /// The schema with `$ref` followed, `allOf` merged in and the chosen `anyOf`/`oneOf`
    /// branch merged in, as one object.
    fn effective(&self, schema: &Value, depth: usize) -> Value {
        let schema = self.resolve(schema);
        let Value::Object(map) = schema else {
            return schema.clone();
        };
        let mut merged: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "$ref" | "allOf" | "anyOf" | "oneOf"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if depth >= MAX_DEPTH {
            return Value::Object(merged);
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            for part in parts {
                if let Value::Object(part) = self.effective(part, depth + 1) {
                    merge_into(&mut merged, &part);
                }
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let is_null = |b: &&Value| {
                    self.resolve(b).get("type").and_then(Value::as_str) == Some("null")
                };
                let chosen = branches
                    .iter()
                    .find(|b| !is_null(b))
                    .or_else(|| branches.first());
                if let Some(branch) = chosen
                    && let Value::Object(branch) = self.effective(branch, depth + 1)
                {
                    merge_into(&mut merged, &branch);
                }
            }
        }
        Value::Object(merged)
    }

    fn value(&self, schema: &Value, depth: usize) -> Value {
        let schema = self.effective(schema, depth);
        let Value::Object(map) = &schema else {
            // `true` accepts anything; `false` accepts nothing, so any value will do.
            return json!("x");
        };
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        if let Some(value) = map.get("const") {
            return value.clone();
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && let Some(first) = values.first()
        {
            return first.clone();
        }
        if map.contains_key("pattern") {
            let example = map
                .get("examples")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
                .or_else(|| map.get("default"));
            if let Some(example @ Value::String(_)) = example {
                return example.clone();
            }
        }
        let declared = match map.get("type") {
            Some(Value::String(t)) => Some(t.as_str()),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .or_else(|| ts.first().and_then(Value::as_str)),
            _ => None,
        };
        let inferred = declared.unwrap_or_else(|| {
            if map.contains_key("properties") || map.contains_key("required") {
                "object"
            } else if map.contains_key("items") || map.contains_key("prefixItems") {
                "array"
            } else if ["minLength", "maxLength", "pattern", "format"]
                .iter()
                .any(|k| map.contains_key(*k))
            {
                "string"
            } else if ["minimum", "maximum", "multipleOf"]
                .iter()
                .any(|k| map.contains_key(*k))
            {
                "number"
            } else {
                "string"
            }
        });
        match inferred {
            "object" => self.object(map, depth),
            "array" => self.array(map, depth),
            "integer" => number(map, true),
            "number" => number(map, false),
            "boolean" => Value::Bool(true),
            "null" => Value::Null,
            _ => self.string(map),
        }
    }

    fn object(&self, map: &Map<String, Value>, depth: usize) -> Value {
        let empty = Map::new();
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let min_properties = map
            .get("minProperties")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let mut object = Map::new();
        for (name, sub) in properties {
            let wanted = self.variant == Variant::Full
                || required.contains(&name.as_str())
                || object.len() < min_properties.saturating_sub(required.len());
            if wanted {
                object.insert(name.clone(), self.value(sub, depth + 1));
            }
        }
        for name in required {
            if !object.contains_key(name) {
                let value = match map.get("additionalProperties") {
                    Some(sub @ Value::Object(_)) => self.value(sub, depth + 1),
                    _ => json!("x"),
                };
                object.insert(name.to_string(), value);
            }
        }
        Value::Object(object)
    }

    fn array(&self, map: &Map<String, Value>, depth: usize) -> Value {
        let min_items = map.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max_items = map
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(usize::MAX, |m| m as usize);
        let prefix: &[Value] = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(p)), _) | (None, Some(Value::Array(p))) => p,
            _ => &[],
        };
        let rest = match (map.get("items"), map.get("additionalItems")) {
            (Some(items @ Value::Object(_)) | Some(items @ Value::Bool(_)), _) => Some(items),
            (Some(Value::Array(_)), Some(extra)) => Some(extra),
            _ => None,
        };
        let wanted = match self.variant {
            Variant::Minimal => min_items,
            Variant::Full => min_items.max(1),
        }
        .min(max_items);
        let mut items = Vec::new();
        if let Some(contains) = map.get("contains") {
            items.push(self.value(contains, depth + 1));
        }
        while items.len() < wanted {
            let i = items.len();
            let sub = prefix.get(i).or(rest);
            let Some(sub) = sub else {
                items.push(json!("x"));
                continue;
            };
            let mut item = self.value(sub, depth + 1);
            // Keep `uniqueItems` satisfied for plain strings and numbers.
            if map.get("uniqueItems") == Some(&Value::Bool(true)) && items.contains(&item) {
                item = match item {
                    Value::String(s) => Value::String(format!("{s}{i}")),
                    Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + i as f64),
                    other => other,
                };
            }
            items.push(item);
        }
        Value::Array(items)
    }

    fn string(&self, map: &Map<String, Value>) -> Value {
        let min_len = map.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max_len = map
            .get("maxLength")
            .and_then(Value::as_u64)
            .map_or(usize::MAX, |m| m as usize);
        let fits = |s: &str| {
            let n = s.chars().count();
            n >= min_len && n <= max_len
        };
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str)
            && let Ok(re) = regex::Regex::new(pattern)
            && let Some(found) = PATTERN_CANDIDATES
                .iter()
                .find(|c| fits(c) && re.is_match(c))
        {
            return json!(found);
        }
        let by_format = match map.get("format").and_then(Value::as_str) {
            Some("date-time") => Some("2024-01-02T03:04:05Z"),
            Some("date") => Some("2024-01-02"),
            Some("time") => Some("03:04:05Z"),
            Some("uri" | "url" | "iri") => Some("https://example.com/a"),
            Some("uri-reference" | "iri-reference") => Some("/a/b"),
            Some("email" | "idn-email") => Some("a@example.com"),
            Some("uuid") => Some("123e4567-e89b-12d3-a456-426614174000"),
            Some("ipv4") => Some("192.0.2.1"),
            Some("ipv6") => Some("2001:db8::1"),
            Some("hostname" | "idn-hostname") => Some("example.com"),
            _ => None,
        };
        if let Some(sample) = by_format
            && fits(sample)
        {
            return json!(sample);
        }
        let mut s = String::from(match self.variant {
            Variant::Minimal => "x",
            Variant::Full => "example",
        });
        while s.len() < min_len {
            s.push('x');
        }
        s.truncate(max_len.min(s.len()));
        Value::String(s)
    }
}

fn number(map: &Map<String, Value>, integer: bool) -> Value {
    let get = |k: &str| map.get(k).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let low = get("minimum").or_else(|| get("exclusiveMinimum").map(|m| m + step));
    let high = get("maximum").or_else(|| get("exclusiveMaximum").map(|m| m - step));
    let mut v = match (low, high) {
        (Some(lo), _) => lo,
        (None, Some(hi)) => hi.min(1.0),
        (None, None) => 1.0,
    };
    if let Some(m) = get("multipleOf")
        && m > 0.0
    {
        v = (v / m).ceil() * m;
    }
    if integer || v.fract() == 0.0 {
        json!(v as i64)
    } else {
        json!(v)
    }
}
