//! Input grammars shared by the fuzz targets.
//!
//! Every input type's `Debug` prints JSON that can be pasted into a regression test
//! (`tests/fuzz_regressions.rs`), not the derived structure.

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Number, Value, json};
use std::fmt;

/// How deep the schema grammar may nest before it is cut off with `true`.
const MAX_SCHEMA_DEPTH: usize = 6;
/// How deep instances may nest.
const MAX_VALUE_DEPTH: usize = 6;
/// Longest list the grammars produce.
const MAX_LIST: usize = 5;

/// Property names: few, so that schemas and instances meet, with the pointer escapes.
const KEYS: &[&str] = &["a", "b", "c", "", "a/b", "~0", "é", "aa", "$ref", "1"];

/// Strings: boundary lengths, code points beyond the BMP, digits, near-miss spellings.
const STRINGS: &[&str] = &[
    "",
    "a",
    "aa",
    "ab",
    "b",
    "abc",
    "é",
    "😀",
    "😀😀",
    "1",
    "12",
    "a\n",
    "\n",
    "A",
    "a b",
    "2020-01-01",
    "x@y.z",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
];

/// Numbers, as JSON text so that `1.0` stays a float and large integers stay exact.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "10",
    "0.5",
    "1.5",
    "2.5",
    "1.0",
    "-0.0",
    "0.1",
    "0.3",
    "0.0075",
    "1e308",
    "-1e308",
    "1e-308",
    "4.9e-324",
    "9007199254740993",
    "18446744073709551615",
    "-9223372036854775808",
    "1e20",
    "100",
    "99.99",
    "3.0000000000000004",
];

/// Divisors for `multipleOf` (must be > 0).
const DIVISORS: &[&str] = &[
    "1", "2", "0.5", "0.1", "0.01", "1.5", "3", "1e-308", "1e308", "0.0001", "10", "1e-5",
];

/// Patterns: anchored and not, classes, Unicode, lookaround, backreference.
const PATTERNS: &[&str] = &[
    "",
    "a",
    "^a",
    "a$",
    "^a$",
    "^[a-z]*$",
    "^[a-z]{2,3}$",
    "\\d",
    "^\\d+$",
    "^.$",
    "^..$",
    "\\w",
    "\\s",
    "(?=a)",
    "(?!a)",
    "^(a|b)\\1$",
    "\\p{L}",
    "[^a]",
    "^a*b",
    "é",
    "😀",
    "^\\S+$",
    "[\\u00e9]",
    "\\bab",
];

/// Formats (annotations only unless a target asserts them).
const FORMATS: &[&str] = &[
    "email",
    "date",
    "date-time",
    "uri",
    "regex",
    "ipv4",
    "uuid",
    "hostname",
    "json-pointer",
    "unknown-format",
];

fn pick<'a>(u: &mut Unstructured<'_>, from: &[&'a str]) -> arbitrary::Result<&'a str> {
    Ok(*u.choose(from)?)
}

fn number(text: &str) -> Value {
    Value::Number(text.parse::<Number>().expect("table numbers parse"))
}

fn list<T>(
    u: &mut Unstructured<'_>,
    mut item: impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<T>,
) -> arbitrary::Result<Vec<T>> {
    let n = u.int_in_range(0..=MAX_LIST)?;
    (0..n).map(|_| item(u)).collect()
}

/// A JSON instance from a small grammar of near-miss values.
#[derive(Clone, PartialEq)]
pub struct Instance(pub Value);

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A JSON value from the grammar; `depth` bounds nesting.
pub fn value(u: &mut Unstructured<'_>, depth: usize) -> arbitrary::Result<Value> {
    let leaf = depth >= MAX_VALUE_DEPTH;
    let choice = u.int_in_range(0..=if leaf { 4 } else { 6 })?;
    Ok(match choice {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => number(pick(u, NUMBERS)?),
        3 => Value::String(pick(u, STRINGS)?.to_string()),
        4 => Value::String(pick(u, KEYS)?.to_string()),
        5 => Value::Array(list(u, |u| value(u, depth + 1))?),
        _ => {
            let mut map = Map::new();
            for (k, v) in list(u, |u| Ok((pick(u, KEYS)?, value(u, depth + 1)?)))? {
                map.insert(k.to_string(), v);
            }
            Value::Object(map)
        }
    })
}

impl<'a> Arbitrary<'a> for Instance {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Instance> {
        Ok(Instance(value(u, 0)?))
    }
}

/// A 2020-12 schema from a grammar of keywords whose values meet the instances' values.
#[derive(Clone, PartialEq)]
pub struct GenSchema(pub Value);

impl fmt::Debug for GenSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl<'a> Arbitrary<'a> for GenSchema {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<GenSchema> {
        let mut root = schema(u, 0)?;
        // Give references something to land on.
        if let Value::Object(map) = &mut root
            && u.arbitrary::<bool>()?
        {
            let mut defs = Map::new();
            for name in ["a", "b"] {
                if u.arbitrary()? {
                    defs.insert(name.to_string(), schema(u, 1)?);
                }
            }
            map.insert("$defs".into(), Value::Object(defs));
        }
        Ok(GenSchema(root))
    }
}

const TYPES: &[&str] = &[
    "null", "boolean", "integer", "number", "string", "array", "object",
];
const REFS: &[&str] = &[
    "#",
    "#/$defs/a",
    "#/$defs/b",
    "#anchor",
    "#/properties/a",
    "#/items",
    "#/$defs/missing",
];

/// One subschema; `depth` bounds nesting.
pub fn schema(u: &mut Unstructured<'_>, depth: usize) -> arbitrary::Result<Value> {
    if depth >= MAX_SCHEMA_DEPTH || u.ratio(1, 8)? {
        return Ok(Value::Bool(u.ratio(3, 4)?));
    }
    let mut map = Map::new();
    let n = u.int_in_range(0..=4)?;
    for _ in 0..n {
        let (k, v) = keyword(u, depth)?;
        map.insert(k.to_string(), v);
    }
    Ok(Value::Object(map))
}

fn sub(u: &mut Unstructured<'_>, depth: usize) -> arbitrary::Result<Value> {
    schema(u, depth + 1)
}

fn keyed(u: &mut Unstructured<'_>, depth: usize, keys: &[&str]) -> arbitrary::Result<Value> {
    let mut map = Map::new();
    for (k, v) in list(u, |u| Ok((pick(u, keys)?, sub(u, depth)?)))? {
        map.insert(k.to_string(), v);
    }
    Ok(Value::Object(map))
}

/// Like [`list`], without duplicates and with at least one item (as the meta-schema asks
/// of `type` arrays, `required`, `allOf`/`anyOf`/`oneOf`).
fn unique_nonempty<T: PartialEq>(
    u: &mut Unstructured<'_>,
    mut item: impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<T>,
) -> arbitrary::Result<Vec<T>> {
    let mut out = vec![item(u)?];
    for t in list(u, &mut item)? {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

fn unique<'a>(u: &mut Unstructured<'_>, from: &[&'a str]) -> arbitrary::Result<Vec<&'a str>> {
    let mut out = unique_nonempty(u, |u| pick(u, from))?;
    if u.arbitrary()? {
        out.clear();
    }
    Ok(out)
}

fn small(u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
    Ok(json!(u.int_in_range(0u8..=4)?))
}

fn keyword(u: &mut Unstructured<'_>, depth: usize) -> arbitrary::Result<(&'static str, Value)> {
    Ok(match u.int_in_range(0u8..=40)? {
        0 => {
            let types = unique_nonempty(u, |u| pick(u, TYPES))?;
            if types.len() == 1 && u.arbitrary()? {
                ("type", json!(types[0]))
            } else {
                ("type", json!(types))
            }
        }
        1 => ("const", value(u, 2)?),
        2 => ("enum", Value::Array(list(u, |u| value(u, 2))?)),
        3 => ("multipleOf", number(pick(u, DIVISORS)?)),
        4 => ("maximum", number(pick(u, NUMBERS)?)),
        5 => ("exclusiveMaximum", number(pick(u, NUMBERS)?)),
        6 => ("minimum", number(pick(u, NUMBERS)?)),
        7 => ("exclusiveMinimum", number(pick(u, NUMBERS)?)),
        8 => ("maxLength", small(u)?),
        9 => ("minLength", small(u)?),
        10 => ("pattern", json!(pick(u, PATTERNS)?)),
        11 => ("maxItems", small(u)?),
        12 => ("minItems", small(u)?),
        13 => ("uniqueItems", json!(u.arbitrary::<bool>()?)),
        14 => ("maxProperties", small(u)?),
        15 => ("minProperties", small(u)?),
        16 => ("required", json!(unique(u, KEYS)?)),
        17 => {
            let mut map = Map::new();
            for (k, v) in list(u, |u| Ok((pick(u, KEYS)?, unique(u, KEYS)?)))? {
                map.insert(k.to_string(), json!(v));
            }
            ("dependentRequired", Value::Object(map))
        }
        18 | 19 => ("properties", keyed(u, depth, KEYS)?),
        20 => ("patternProperties", keyed(u, depth, PATTERNS)?),
        21 => ("additionalProperties", sub(u, depth)?),
        22 => ("propertyNames", sub(u, depth)?),
        23 => ("dependentSchemas", keyed(u, depth, KEYS)?),
        24 => ("prefixItems", Value::Array(list(u, |u| sub(u, depth))?)),
        25 => ("items", sub(u, depth)?),
        26 => ("contains", sub(u, depth)?),
        27 => ("minContains", small(u)?),
        28 => ("maxContains", small(u)?),
        29 => (
            "allOf",
            Value::Array(unique_nonempty(u, |u| sub(u, depth))?),
        ),
        30 => (
            "anyOf",
            Value::Array(unique_nonempty(u, |u| sub(u, depth))?),
        ),
        31 => (
            "oneOf",
            Value::Array(unique_nonempty(u, |u| sub(u, depth))?),
        ),
        32 => ("not", sub(u, depth)?),
        33 => ("if", sub(u, depth)?),
        34 => ("then", sub(u, depth)?),
        35 => ("else", sub(u, depth)?),
        36 => ("unevaluatedProperties", sub(u, depth)?),
        37 => ("unevaluatedItems", sub(u, depth)?),
        38 => ("$ref", json!(pick(u, REFS)?)),
        39 => ("$anchor", json!("anchor")),
        _ => ("format", json!(pick(u, FORMATS)?)),
    })
}

/// A schema and an instance: the `validate` and `differential` targets' input.
#[derive(Clone, PartialEq)]
pub struct SchemaAndInstance {
    /// The schema.
    pub schema: GenSchema,
    /// The instance.
    pub instance: Instance,
}

impl fmt::Debug for SchemaAndInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "schema:   {}", self.schema.0)?;
        write!(f, "instance: {}", self.instance.0)
    }
}

impl<'a> Arbitrary<'a> for SchemaAndInstance {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<SchemaAndInstance> {
        let schema: GenSchema = u.arbitrary()?;
        // Near misses: often start from a value the schema itself names.
        let instance = if u.ratio(1, 3)? {
            let mut seen = Vec::new();
            harvest(&schema.0, &mut seen);
            match seen.is_empty() {
                true => value(u, 0)?,
                false => {
                    let start = u.choose(&seen)?.clone();
                    perturb(u, start)?
                }
            }
        } else {
            value(u, 0)?
        };
        Ok(SchemaAndInstance {
            schema,
            instance: Instance(instance),
        })
    }
}

/// Values a schema names (`const`, `enum` members, limits), as near-miss starting points.
fn harvest(schema: &Value, out: &mut Vec<Value>) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map {
                match k.as_str() {
                    "const" => out.push(v.clone()),
                    "enum" => out.extend(v.as_array().into_iter().flatten().cloned()),
                    "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum"
                    | "multipleOf" => out.push(v.clone()),
                    "properties" | "dependentSchemas" => {
                        if let Some(props) = v.as_object() {
                            let obj: Map<String, Value> =
                                props.keys().map(|k| (k.clone(), Value::Null)).collect();
                            out.push(Value::Object(obj));
                        }
                    }
                    _ => {}
                }
                harvest(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| harvest(v, out)),
        _ => {}
    }
}

/// A value close to `v`: itself, a numeric neighbour, an integer as float, one item more.
fn perturb(u: &mut Unstructured<'_>, v: Value) -> arbitrary::Result<Value> {
    Ok(match (u.int_in_range(0u8..=3)?, v) {
        (0, v) => v,
        (1, Value::Number(n)) => {
            let f = n.as_f64().unwrap_or(0.0);
            let delta = *u.choose(&[1.0, -1.0, 0.5, 1e-9, f64::EPSILON])?;
            Number::from_f64(f + delta).map_or(Value::Number(n), Value::Number)
        }
        (2, Value::Number(n)) => {
            Number::from_f64(n.as_f64().unwrap_or(0.0)).map_or(Value::Number(n), Value::Number)
        }
        (_, Value::Array(mut items)) => {
            items.push(value(u, 3)?);
            Value::Array(items)
        }
        (_, Value::Object(mut map)) => {
            map.insert(pick(u, KEYS)?.to_string(), value(u, 3)?);
            Value::Object(map)
        }
        (_, Value::String(mut s)) => {
            s.push_str(pick(u, STRINGS)?);
            Value::String(s)
        }
        (_, v) => v,
    })
}

/// Whether `is_valid`, `validate`, `iter_errors` and `evaluate` agree; panics with the
/// four answers when they do not.
pub fn assert_paths_agree(schema: &toolschema::Schema, instance: &Value) -> bool {
    let valid = schema.is_valid(instance);
    let validated = schema.validate(instance);
    let iterated = schema.iter_errors(instance).next().is_none();
    let evaluation = schema.evaluate(instance);
    // (An evaluation that ran out of its budget has no verdict to compare.)
    let stopped = evaluation
        .errors()
        .iter()
        .any(|e| *e.kind() == toolschema::ErrorKind::EvaluationBudgetExceeded);
    let flag = evaluation.flag()["valid"].as_bool();
    assert!(
        validated.is_ok() == valid
            && iterated == valid
            && (stopped || flag == Some(valid))
            && (stopped || evaluation.is_valid() == valid),
        "paths disagree: is_valid {valid}, validate {:?}, iter_errors empty {iterated}, evaluate flag {flag:?}",
        validated.err().map(|e| e.to_string())
    );
    if let Err(errors) = validated {
        assert!(!errors.is_empty(), "validate gave Err with no errors");
    }
    valid
}

/// A [`SchemaAndInstance`] under one of the five dialects (`draft`: 0 draft 4, 1 draft 6,
/// 2 draft 7, 3 draft 2019-09, else 2020-12), its keywords rewritten to the dialect's
/// spelling where it has one (`items` arrays, `dependencies`, boolean exclusive bounds,
/// `definitions`), so that the older drafts' own code runs, not only their unknown
/// keywords. The `reference` target's input.
#[derive(Clone, PartialEq)]
pub struct DialectCase {
    /// The dialect, as above.
    pub draft: u8,
    /// The schema (rewritten) and the instance.
    pub case: SchemaAndInstance,
}

impl fmt::Debug for DialectCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "draft:    {}", self.draft)?;
        write!(f, "{:?}", self.case)
    }
}

impl<'a> Arbitrary<'a> for DialectCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<DialectCase> {
        let draft = u.int_in_range(0u8..=4)?;
        let mut case: SchemaAndInstance = u.arbitrary()?;
        if draft < 4 {
            older(&mut case.schema.0, draft);
        }
        Ok(DialectCase { draft, case })
    }
}

/// Rewrites a 2020-12 schema of the grammar into draft `draft`'s spelling (0: 4, 1: 6,
/// 2: 7, 3: 2019-09).
fn older(schema: &mut Value, draft: u8) {
    match schema {
        Value::Object(map) => {
            for v in map.values_mut() {
                older(v, draft);
            }
            if draft <= 3 {
                // 2019-09 and before: `items` as an array, `additionalItems` after it.
                if let Some(prefix) = map.remove("prefixItems") {
                    if let Some(rest) = map.remove("items") {
                        map.insert("additionalItems".into(), rest);
                    }
                    map.insert("items".into(), prefix);
                }
            }
            if draft <= 2 {
                // Draft 7 and before: `dependencies`, `definitions`.
                let mut deps = Map::new();
                for key in ["dependentRequired", "dependentSchemas"] {
                    if let Some(Value::Object(d)) = map.remove(key) {
                        deps.extend(d);
                    }
                }
                if !deps.is_empty() {
                    map.insert("dependencies".into(), Value::Object(deps));
                }
                if let Some(defs) = map.remove("$defs") {
                    map.insert("definitions".into(), defs);
                }
                if let Some(Value::String(r)) = map.get_mut("$ref") {
                    *r = r.replace("/$defs/", "/definitions/");
                }
            }
            if draft == 0 {
                // Draft 4: boolean exclusive bounds beside `maximum`/`minimum`.
                for (exclusive, bound) in [
                    ("exclusiveMaximum", "maximum"),
                    ("exclusiveMinimum", "minimum"),
                ] {
                    if let Some(limit) = map.remove(exclusive) {
                        map.insert(bound.into(), limit);
                        map.insert(exclusive.into(), Value::Bool(true));
                    }
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| older(v, draft)),
        _ => {}
    }
}

/// The base URI the reference implementations load a schema under.
const REFERENCE_BASE: &str = "http://fuzz.invalid/root.json";

/// jsonschema-rs's verdict under 2020-12, formats not asserted (`Err`: it refuses the
/// schema).
pub fn jsonschema_rs(schema: &Value, instance: &Value) -> Result<bool, String> {
    let v = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(false)
        .build(schema)
        .map_err(|e| e.to_string())?;
    Ok(v.is_valid(instance))
}

/// boon's verdict under 2020-12 (`Err`: it refuses the schema).
pub fn boon(schema: &Value, instance: &Value) -> Result<bool, String> {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    compiler
        .add_resource(REFERENCE_BASE, schema.clone())
        .map_err(|e| e.to_string())?;
    let index = compiler
        .compile(REFERENCE_BASE, &mut schemas)
        .map_err(|e| e.to_string())?;
    Ok(schemas.validate(instance, index).is_ok())
}

/// Instance mutations and the verdict comparison shared with `toolschema-codegen`'s
/// seeded run over the official suite (`toolschema-codegen/tests/suite.rs`).
#[path = "../../toolschema-codegen/tests/support/mutations.rs"]
pub mod mutations;

/// The validators `build.rs` generated (`toolschema-codegen`) for the bench corpus, the
/// MCP tool corpus's input schemas and the official suite's 2020-12 schemas.
#[allow(missing_docs, clippy::all, clippy::pedantic, unused)]
pub mod generated {
    use serde_json::Value;

    /// One generated validator and what it was generated from.
    pub struct Entry {
        /// Where the schema comes from (below `shared/`).
        pub name: &'static str,
        /// The schema's JSON text.
        pub schema: &'static str,
        /// Formats and content asserted.
        pub asserts: bool,
        /// `Config::draft` (0: the schema's `$schema`).
        pub draft: u16,
        /// No subschema left to the engine.
        pub fully_generated: bool,
        /// The generated `is_valid`.
        pub is_valid: fn(&Value) -> bool,
        /// The generated `validate`.
        pub validate: fn(&Value) -> Result<(), toolschema::ValidationErrors>,
        /// Known instances (suite cases, corpus lines) as JSON text.
        pub instances: &'static [&'static str],
    }

    include!(concat!(env!("OUT_DIR"), "/generated.rs"));
}

/// One entry's engine forms and parsed material, compiled once.
struct Prepared {
    schema: Value,
    reference: toolschema::Schema,
    default: toolschema::Schema,
    material: mutations::Material,
    known: Vec<Value>,
}

fn prepared(index: usize) -> &'static Prepared {
    use std::sync::OnceLock;
    static ALL: OnceLock<Vec<OnceLock<Prepared>>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        (0..generated::ENTRIES.len())
            .map(|_| OnceLock::new())
            .collect()
    });
    all[index].get_or_init(|| {
        let e = &generated::ENTRIES[index];
        let schema: Value = serde_json::from_str(e.schema).expect("a generated schema is JSON");
        let config = toolschema::codegen::Config {
            assert_formats: e.asserts,
            assert_content: e.asserts,
            draft: e.draft,
        };
        let compile = |o: toolschema::Options| {
            o.compile(&schema).unwrap_or_else(|err| {
                panic!("{}: generated, yet the engine refuses it: {err}", e.name)
            })
        };
        Prepared {
            reference: compile(config.reference()),
            default: compile(config.options()),
            material: mutations::Material::of(&schema),
            known: e
                .instances
                .iter()
                .filter_map(|t| serde_json::from_str(t).ok())
                .collect(),
            schema,
        }
    })
}

/// The `generated` target's check: the first two bytes pick a generated validator; the
/// third picks the instance's source (the rest of the input as JSON text, or else the rest
/// as choices over the schema's known instances, their mutations and values sampled from
/// the schema). The generated `is_valid`, the reference configuration's
/// (`Options::shortcuts(false)`) and the default configuration's must agree, and the
/// generated `validate` must be `Ok` exactly when they hold; else it panics with the
/// schema and the instance as JSON. Returns false when there is no validator to check
/// (no `shared` folder at build time) or the input is too short.
pub fn check_generated(data: &[u8]) -> bool {
    let entries = generated::ENTRIES;
    let [a, b, mode, rest @ ..] = data else {
        return false;
    };
    if entries.is_empty() {
        return false;
    }
    let index = usize::from(u16::from_le_bytes([*a, *b])) % entries.len();
    let entry = &entries[index];
    let p = prepared(index);
    let instance = match (mode % 8, serde_json::from_slice::<Value>(rest)) {
        (0, Ok(v)) => v,
        _ => {
            let mut choices = mutations::Bytes::new(rest);
            mutations::instance(&mut choices, &p.schema, &p.material, &p.known)
        }
    };
    let generated = (entry.is_valid)(&instance);
    let validated = (entry.validate)(&instance);
    if let Some(why) = mutations::disagreement(
        generated,
        Some(validated.is_ok()),
        &p.reference,
        &p.default,
        &instance,
    ) {
        panic!(
            "{why}\nvalidator: {} (formats asserted: {}, draft: {}, fully generated: {})\nschema:   {}\ninstance: {instance}",
            entry.name, entry.asserts, entry.draft, entry.fully_generated, p.schema
        );
    }
    true
}

#[cfg(test)]
mod tests {
    /// The checked-in seeds of `generated`, then a few inputs per generated validator, on
    /// stable (`cargo test --lib` in `fuzz/`): the oracle without libFuzzer.
    #[test]
    fn generated_seeds_and_every_validator_replay() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/generated");
        let mut seeds = 0;
        for entry in std::fs::read_dir(&dir).expect("seeds/generated") {
            let data = std::fs::read(entry.expect("a seed").path()).expect("a seed file");
            seeds += usize::from(super::check_generated(&data));
        }
        let entries = super::generated::ENTRIES.len();
        assert!(
            entries > 0,
            "no generated validators: is ../../shared there?"
        );
        assert!(seeds > 0, "no seed ran");
        for i in 0..entries {
            let [lo, hi] = u16::try_from(i).expect("fewer than 65536").to_le_bytes();
            for k in 0u8..24 {
                assert!(super::check_generated(&[
                    lo,
                    hi,
                    1 + k % 7,
                    k,
                    k.wrapping_mul(37)
                ]));
            }
        }
    }
}
