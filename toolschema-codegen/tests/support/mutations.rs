//! Instances near a schema's own: mutations of its known instances (suite cases, corpus
//! lines), values the schema names, and values sampled from the schema itself, for
//! checking generated validators against the runtime engine on instances nobody wrote.
//!
//! Shared by `tests/suite.rs` (a seeded run over the official suite's schemas, on stable,
//! in CI) and the fuzz target `generated` (`fuzz/fuzz_targets/generated.rs`, which
//! includes this file by path and drives the choices with the fuzzer's bytes).

use serde_json::{Map, Number, Value, json};

/// A source of choices: a seeded generator or the fuzzer's bytes.
pub trait Choices {
    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize;

    /// True with probability `num`/`den`.
    fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// One item of a non-empty slice.
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }
}

/// splitmix64: deterministic, seeded.
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Choices for Rng {
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The fuzzer's bytes, one or two per choice, then a generator seeded with their hash (so
/// that a short input still makes a varied instance and a longer one steers it).
pub struct Bytes<'a> {
    data: &'a [u8],
    rest: Rng,
}

impl<'a> Bytes<'a> {
    /// Choices read from `data`.
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        let seed = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        Bytes {
            data,
            rest: Rng(seed),
        }
    }
}

impl Choices for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        let n = n.max(1);
        let wide = n > 256;
        match (self.data, wide) {
            ([a, b, rest @ ..], true) => {
                self.data = rest;
                usize::from(u16::from_le_bytes([*a, *b])) % n
            }
            ([a, rest @ ..], false) => {
                self.data = rest;
                usize::from(*a) % n
            }
            _ => self.rest.below(n),
        }
    }
}

/// Values and names a schema mentions: `const`, `enum`, `default`, `examples`, the
/// numeric limits and their neighbours, property and required names.
#[derive(Default)]
pub struct Material {
    /// Values to put somewhere in an instance.
    pub values: Vec<Value>,
    /// Property names to add.
    pub names: Vec<String>,
}

/// Most items kept of each kind (a large schema names thousands).
const MATERIAL_CAP: usize = 400;

impl Material {
    /// What `schema` mentions, anywhere in it.
    pub fn of(schema: &Value) -> Material {
        let mut m = Material::default();
        m.harvest(schema, 0);
        m.values.truncate(MATERIAL_CAP);
        m.names.truncate(MATERIAL_CAP);
        m
    }

    fn harvest(&mut self, schema: &Value, depth: usize) {
        if depth > 64 || self.values.len() >= MATERIAL_CAP && self.names.len() >= MATERIAL_CAP {
            return;
        }
        match schema {
            Value::Object(map) => {
                for (k, v) in map {
                    match k.as_str() {
                        "const" | "default" => self.values.push(v.clone()),
                        "enum" | "examples" => self
                            .values
                            .extend(v.as_array().into_iter().flatten().cloned()),
                        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"
                        | "multipleOf" | "minLength" | "maxLength" | "minItems" | "maxItems" => {
                            if let Some(f) = v.as_f64() {
                                self.values.push(v.clone());
                                for d in [-1.0, 1.0, 0.5] {
                                    if let Some(n) = Number::from_f64(f + d) {
                                        self.values.push(Value::Number(n));
                                    }
                                }
                            }
                        }
                        "properties" | "dependentRequired" | "dependentSchemas"
                        | "dependencies" => {
                            if let Some(props) = v.as_object() {
                                self.names.extend(props.keys().cloned());
                            }
                        }
                        "required" => self.names.extend(
                            v.as_array()
                                .into_iter()
                                .flatten()
                                .filter_map(|n| n.as_str().map(str::to_string)),
                        ),
                        _ => {}
                    }
                    self.harvest(v, depth + 1);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| self.harvest(v, depth + 1)),
            _ => {}
        }
    }
}

/// Values of every kind, the edges the engine's comparisons care about.
fn plain(c: &mut impl Choices) -> Value {
    match c.below(16) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(false),
        3 => json!(0),
        4 => json!(-1),
        5 => json!(1.0),
        6 => json!(2.5),
        7 => json!(18_446_744_073_709_551_615u64),
        8 => json!(1e300),
        9 => json!(""),
        10 => json!("a"),
        11 => json!("é😀"),
        12 => json!([]),
        13 => json!({}),
        14 => json!([1, "a", null]),
        _ => json!({"a": 1}),
    }
}

/// A value a mutation puts in: one the schema names, or a plain one.
fn some_value(c: &mut impl Choices, m: &Material) -> Value {
    if !m.values.is_empty() && c.chance(1, 2) {
        c.pick(&m.values).clone()
    } else {
        plain(c)
    }
}

fn some_name(c: &mut impl Choices, m: &Material) -> String {
    if !m.names.is_empty() && c.chance(3, 4) {
        c.pick(&m.names).clone()
    } else {
        c.pick(&["", "a", "extra", "$ref", "é"]).to_string()
    }
}

/// One change at a place picked in `v`.
fn mutate_once(c: &mut impl Choices, m: &Material, v: &mut Value, depth: usize) {
    // Go down into a child, more often near the root.
    let descend = depth < 12 && c.chance(2, 3);
    match v {
        Value::Object(map) if descend && !map.is_empty() => {
            let i = c.below(map.len());
            if let Some((_, child)) = map.iter_mut().nth(i) {
                return mutate_once(c, m, child, depth + 1);
            }
        }
        Value::Array(items) if descend && !items.is_empty() => {
            let i = c.below(items.len());
            return mutate_once(c, m, &mut items[i], depth + 1);
        }
        _ => {}
    }
    match (c.below(4), &mut *v) {
        (0, _) => *v = some_value(c, m),
        (_, Value::Number(n)) => {
            let f = n.as_f64().unwrap_or(0.0);
            let next = match c.below(7) {
                0 => Number::from_f64(f + 1.0),
                1 => Number::from_f64(f - 1.0),
                2 => Number::from_f64(f + 0.5),
                3 => Number::from_f64(f),
                4 => Number::from_f64(-f),
                5 => Some(Number::from(u64::MAX)),
                _ => Number::from_f64(f * 1e10),
            };
            if let Some(n) = next {
                *v = Value::Number(n);
            }
        }
        (_, Value::String(s)) => match c.below(6) {
            0 => s.clear(),
            1 => s.push('x'),
            2 => {
                let half = s.chars().count() / 2;
                *s = s.chars().take(half).collect();
            }
            3 => *s = s.repeat(3),
            4 => s.push_str("é😀"),
            _ => *s = s.to_uppercase(),
        },
        (_, Value::Object(map)) => match c.below(3) {
            0 if !map.is_empty() => {
                let i = c.below(map.len());
                if let Some(k) = map.keys().nth(i).cloned() {
                    map.remove(&k);
                }
            }
            _ => {
                let name = some_name(c, m);
                let value = some_value(c, m);
                map.insert(name, value);
            }
        },
        (_, Value::Array(items)) => match c.below(4) {
            0 => {
                items.pop();
            }
            1 if !items.is_empty() => {
                let i = c.below(items.len());
                let copy = items[i].clone();
                items.push(copy);
            }
            2 => items.reverse(),
            _ => items.push(some_value(c, m)),
        },
        _ => *v = plain(c),
    }
}

/// `start` with one to three changes.
pub fn mutate(c: &mut impl Choices, m: &Material, mut start: Value) -> Value {
    for _ in 0..=c.below(3) {
        mutate_once(c, m, &mut start, 0);
    }
    start
}

/// The local target of `reference` (`#`, `#/json/pointer`) in `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    let decoded = pointer.replace("%25", "%").replace("%22", "\"");
    root.pointer(&decoded)
}

/// A value built from `schema` (local references followed against `root`): aimed at
/// validity, with the choices picking branches, optional properties and lengths.
pub fn sample(c: &mut impl Choices, root: &Value, schema: &Value, depth: usize) -> Value {
    let Value::Object(s) = schema else {
        return plain(c);
    };
    if depth > 10 {
        return plain(c);
    }
    if let Some(target) = s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
        && c.chance(7, 8)
    {
        return sample(c, root, target, depth + 1);
    }
    if let Some(v) = s.get("const") {
        return v.clone();
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.is_empty()
    {
        return c.pick(options).clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = s.get(key)
            && !branches.is_empty()
            && c.chance(3, 4)
        {
            let branch = c.pick(branches);
            return sample(c, root, branch, depth + 1);
        }
    }
    if let Some(Value::Array(examples)) = s.get("examples")
        && !examples.is_empty()
        && c.chance(1, 3)
    {
        return c.pick(examples).clone();
    }
    let kind = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) if !ts.is_empty() => c.pick(ts).as_str().unwrap_or("null"),
        _ if s.contains_key("properties") || s.contains_key("required") => "object",
        _ if s.contains_key("items") || s.contains_key("prefixItems") => "array",
        _ if s.contains_key("minLength") || s.contains_key("pattern") => "string",
        _ if s.contains_key("minimum") || s.contains_key("maximum") => "number",
        _ => return plain(c),
    };
    let size = |key: &str| {
        s.get(key)
            .and_then(Value::as_u64)
            .map(|n| n.min(8) as usize)
    };
    match kind {
        "null" => Value::Null,
        "boolean" => json!(c.chance(1, 2)),
        "integer" | "number" => {
            let low = s
                .get("minimum")
                .or(s.get("exclusiveMinimum"))
                .and_then(Value::as_f64);
            let high = s
                .get("maximum")
                .or(s.get("exclusiveMaximum"))
                .and_then(Value::as_f64);
            let f = match (low, high) {
                (Some(l), Some(h)) => (l + h) / 2.0,
                (Some(l), None) => l + c.below(3) as f64,
                (None, Some(h)) => h - c.below(3) as f64,
                (None, None) => c.below(100) as f64,
            };
            if kind == "integer" {
                json!(f.round() as i64)
            } else {
                Number::from_f64(f).map_or(json!(0), Value::Number)
            }
        }
        "string" => {
            let text = match s.get("format").and_then(Value::as_str) {
                Some("date-time") => "2024-01-01T00:00:00Z".to_string(),
                Some("date") => "2024-01-01".to_string(),
                Some("email") => "a@example.com".to_string(),
                Some("uri" | "url" | "iri") => "https://example.com/a".to_string(),
                Some("uuid") => "123e4567-e89b-12d3-a456-426614174000".to_string(),
                _ => "abc".repeat(size("minLength").unwrap_or(1).div_ceil(3).max(1)),
            };
            match size("maxLength") {
                Some(max) => Value::String(text.chars().take(max).collect()),
                None => Value::String(text),
            }
        }
        "array" => {
            let mut items = Vec::new();
            if let Some(Value::Array(prefix)) = s.get("prefixItems") {
                for p in prefix {
                    items.push(sample(c, root, p, depth + 1));
                }
            }
            let min = size("minItems").unwrap_or(0);
            let n = min + c.below(3);
            let each = s.get("items").filter(|i| i.is_object());
            while items.len() < n {
                items.push(match each {
                    Some(i) => sample(c, root, i, depth + 1),
                    None => plain(c),
                });
            }
            Value::Array(items)
        }
        "object" => {
            let mut map = Map::new();
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let empty = Map::new();
            let props = s
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            for (name, sub) in props {
                if required.contains(&name.as_str()) || c.chance(1, 2) {
                    map.insert(name.clone(), sample(c, root, sub, depth + 1));
                }
            }
            for name in required {
                if !map.contains_key(name) {
                    map.insert(name.to_string(), plain(c));
                }
            }
            Value::Object(map)
        }
        _ => plain(c),
    }
}

/// An instance for a schema with known instances `known`: a known one as is, mutated, or
/// sampled from the schema then (mostly) mutated.
pub fn instance(c: &mut impl Choices, schema: &Value, m: &Material, known: &[Value]) -> Value {
    match c.below(8) {
        0 | 1 if !known.is_empty() => c.pick(known).clone(),
        0..=4 if !known.is_empty() => {
            let start = c.pick(known).clone();
            mutate(c, m, start)
        }
        5 => sample(c, schema, schema, 0),
        _ => {
            let start = sample(c, schema, schema, 0);
            mutate(c, m, start)
        }
    }
}

/// `None` when the generated verdict, the reference configuration's and the default
/// configuration's agree (and `validate` of the generated validator, when given, is `Ok`
/// exactly when it holds), else what differs.
pub fn disagreement(
    generated: bool,
    generated_validate: Option<bool>,
    reference: &toolschema::Schema,
    default: &toolschema::Schema,
    instance: &Value,
) -> Option<String> {
    let reference = reference.is_valid(instance);
    let default = default.is_valid(instance);
    let validate_ok = generated_validate.unwrap_or(generated);
    if generated == reference && reference == default && validate_ok == generated {
        return None;
    }
    Some(format!(
        "generated is_valid {generated}, generated validate Ok {validate_ok}, \
         reference is_valid {reference}, default is_valid {default}"
    ))
}
