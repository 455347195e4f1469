//! The oracle's structured generator: schemas built from keyword *combinations*, each
//! keyword's subschema wrapped in a reference or an applicator, with instances built
//! alongside and then mutated into near misses. Deterministic from a seed (a small
//! SplitMix64, no dependency), so a CI run is reproducible and a failing seed replays.
//!
//! Shared by `tests/oracle.rs` and the `combos` fuzz target (`fuzz/fuzz_targets/combos.rs`
//! includes this file by `#[path]`): it depends on `serde_json` and `toolschema` alone.
//!
//! A case is a dialect, whether formats assert, a schema, and instances: the examples the
//! generator built with the schema (meant to be valid, not always so) and mutations of
//! them (an array item repeated, dropped or added, a property removed, added or retyped,
//! a number nudged across a bound or written as a float, a string lengthened or
//! shortened, a tag changed). The schema is generated in 2020-12 spelling, then rewritten
//! into the dialect's (`items` arrays, `dependencies`, `definitions`, draft 4's boolean
//! exclusive bounds and no boolean schemas); a keyword is only drawn in dialects that have
//! it.
//!
//! A `$ref` goes to a `$defs` entry by pointer, by its `$id` (an embedded resource) or by
//! its `$anchor`.
//!
//! Keyword-pair coverage: every time a subschema is wrapped (`$ref`, a `$ref` chain,
//! `allOf`, `anyOf`, `oneOf`, `not`, `not`/`not`, `if`/`then`, `if`/`else`,
//! `$dynamicRef`, a `$ref` beside the keywords), the case records the pair (wrapper,
//! keyword) for every keyword of the wrapped node and every keyword of the node that
//! holds the wrapped subschema (`uniqueItems` beside an `items` whose schema is a `$ref`
//! is the pair (`$ref`, `uniqueItems`)).

#![allow(dead_code)]

use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use toolschema::Draft;

/// SplitMix64: small, fast, good enough to draw choices.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }

    pub fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }
}

/// The wrappers a subschema is put in (coverage columns).
pub const WRAPPERS: &[&str] = &[
    "$ref",
    "$ref chain",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "not not",
    "if/then",
    "if/else",
    "$dynamicRef",
    "$ref + siblings",
];

/// The keywords drawn (coverage rows), in 2020-12 spelling: in the older dialects
/// `prefixItems` is the array form of `items`, `items` beside it `additionalItems`, and
/// `dependentRequired`/`dependentSchemas` are `dependencies`.
pub const KEYWORDS: &[&str] = &[
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "items",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "maxProperties",
    "minProperties",
    "required",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "dependentSchemas",
    "dependentRequired",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$dynamicRef",
];

/// Whether the generator draws wrapper `w` (index in `WRAPPERS`) in `draft`.
pub fn wrapper_exists(draft: Draft, w: usize) -> bool {
    match WRAPPERS[w] {
        "if/then" | "if/else" => rank(draft) >= 7,
        "$dynamicRef" => rank(draft) >= 20,
        _ => true,
    }
}

/// Whether keyword `k` (index in `KEYWORDS`) exists in `draft` (in its spelling there).
pub fn keyword_exists(draft: Draft, k: usize) -> bool {
    match KEYWORDS[k] {
        "const" | "contains" | "propertyNames" => rank(draft) >= 6,
        "if" | "then" | "else" => rank(draft) >= 7,
        "minContains" | "maxContains" | "unevaluatedItems" | "unevaluatedProperties" => {
            rank(draft) >= 19
        }
        "$dynamicRef" => rank(draft) >= 20,
        _ => true,
    }
}

/// One generated case.
#[derive(Debug, Clone)]
pub struct Case {
    pub draft: Draft,
    pub assert_formats: bool,
    pub schema: Value,
    /// The generator's examples first, then their mutations.
    pub instances: Vec<Value>,
    /// (index in `WRAPPERS`, index in `KEYWORDS`) pairs this schema contains.
    pub pairs: BTreeSet<(usize, usize)>,
}

/// The dialects, drawn alike.
pub const DRAFTS: &[Draft] = &[
    Draft::Draft4,
    Draft::Draft6,
    Draft::Draft7,
    Draft::Draft201909,
    Draft::Draft202012,
];

/// How deep subschemas nest.
const MAX_DEPTH: usize = 3;

/// `$schema` URI of a dialect.
pub fn dialect_uri(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "http://json-schema.org/draft-04/schema#",
        Draft::Draft6 => "http://json-schema.org/draft-06/schema#",
        Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
        Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
        _ => "https://json-schema.org/draft/2020-12/schema",
    }
}

fn rank(draft: Draft) -> u8 {
    match draft {
        Draft::Draft4 => 4,
        Draft::Draft6 => 6,
        Draft::Draft7 => 7,
        Draft::Draft201909 => 19,
        _ => 20,
    }
}

/// Generates case `seed`: `mutations` mutated instances beside the examples.
pub fn generate(seed: u64, mutations: usize) -> Case {
    let mut rng = Rng::new(seed);
    let draft = *rng.pick(DRAFTS);
    let assert_formats = rng.chance(1, 3);
    let mut g = Gen {
        rng: &mut rng,
        rank: rank(draft),
        defs: Map::new(),
        pairs: BTreeSet::new(),
    };
    let kind = if g.rng.chance(3, 4) {
        *g.rng
            .pick(&[Kind::Array, Kind::Object, Kind::Array, Kind::Logic])
    } else {
        g.kind(0)
    };
    let (mut schema, examples) = g.node_of(kind, 0);
    let defs = std::mem::take(&mut g.defs);
    let pairs = std::mem::take(&mut g.pairs);
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    if rng.chance(1, 2) {
        schema.insert("$schema".into(), json!(dialect_uri(draft)));
    }
    let mut schema = Value::Object(schema);
    if rank(draft) < 20 {
        older(&mut schema, rank(draft));
    }
    let mut instances = examples;
    let n = instances.len();
    for _ in 0..mutations {
        let start = instances[rng.below(n)].clone();
        let mut m = mutate(&mut rng, start);
        if rng.chance(1, 3) {
            m = mutate(&mut rng, m);
        }
        instances.push(m);
    }
    let instances = instances.into_iter().map(as_read).collect();
    Case {
        draft,
        assert_formats,
        schema,
        instances,
        pairs,
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    String,
    Number,
    Literal,
    Scalar,
    Array,
    Object,
    Logic,
    Tagged,
}

struct Gen<'r> {
    rng: &'r mut Rng,
    rank: u8,
    defs: Map<String, Value>,
    pairs: BTreeSet<(usize, usize)>,
}

type Node = (Map<String, Value>, Vec<Value>);

fn keyword_index(k: &str) -> Option<usize> {
    KEYWORDS.iter().position(|&x| x == k)
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

const NAMES: &[&str] = &["a", "b", "c"];

impl Gen<'_> {
    /// `true`, or `{}` in draft 4 (no boolean schemas).
    fn yes(&self) -> Value {
        if self.rank == 4 {
            json!({})
        } else {
            json!(true)
        }
    }

    /// `false`, or `{"not": {}}` in draft 4.
    fn no(&self) -> Value {
        if self.rank == 4 {
            json!({"not": {}})
        } else {
            json!(false)
        }
    }

    fn kind(&mut self, depth: usize) -> Kind {
        if depth >= MAX_DEPTH {
            *self
                .rng
                .pick(&[Kind::String, Kind::Number, Kind::Literal, Kind::Scalar])
        } else {
            *self.rng.pick(&[
                Kind::String,
                Kind::Number,
                Kind::Literal,
                Kind::Scalar,
                Kind::Array,
                Kind::Array,
                Kind::Object,
                Kind::Object,
                Kind::Logic,
                Kind::Tagged,
            ])
        }
    }

    fn node(&mut self, depth: usize) -> Node {
        let kind = self.kind(depth);
        self.node_of(kind, depth)
    }

    fn node_of(&mut self, kind: Kind, depth: usize) -> Node {
        let mut wrappers = Vec::new();
        let (mut map, examples) = match kind {
            Kind::String => self.string(),
            Kind::Number => self.number(),
            Kind::Literal => self.literal(),
            Kind::Scalar => self.scalar(),
            Kind::Array => self.array(depth, &mut wrappers),
            Kind::Object => self.object(depth, &mut wrappers),
            Kind::Logic => self.logic(depth, &mut wrappers),
            Kind::Tagged => self.tagged(depth, &mut wrappers),
        };
        // Sometimes an applicator keyword moves into a wrapper beside the others
        // (`{"uniqueItems": true, "allOf": [{"items": ...}]}`).
        if matches!(kind, Kind::Array | Kind::Object) && self.rng.chance(1, 4) {
            let movable: Vec<String> = map
                .keys()
                .filter(|k| {
                    matches!(
                        k.as_str(),
                        "items"
                            | "prefixItems"
                            | "contains"
                            | "properties"
                            | "patternProperties"
                            | "additionalProperties"
                            | "propertyNames"
                            | "dependentSchemas"
                            | "uniqueItems"
                            | "required"
                    )
                })
                .cloned()
                .collect();
            if !movable.is_empty() {
                let key = movable[self.rng.below(movable.len())].clone();
                if let Some(value) = map.remove(&key) {
                    let mut inner = Map::new();
                    inner.insert(key.clone(), value.clone());
                    let (w, wrapped) = self.wrap(inner, &examples, false);
                    match (w, wrapped) {
                        (Some(w), Value::Object(wrapped))
                            if !wrapped.keys().any(|k| map.contains_key(k)) =>
                        {
                            wrappers.push(w);
                            map.extend(wrapped);
                        }
                        // It would clash with a keyword already there: it stays.
                        _ => {
                            map.insert(key, value);
                        }
                    }
                }
            }
        }
        for w in wrappers {
            for k in map.keys() {
                if let Some(k) = keyword_index(k) {
                    self.pairs.insert((w, k));
                }
            }
        }
        (map, examples)
    }

    /// A subschema: a node, often wrapped; returns the schema, its examples and the
    /// wrapper used.
    fn sub(&mut self, depth: usize, wrappers: &mut Vec<usize>) -> (Value, Vec<Value>) {
        let (map, examples) = self.node(depth + 1);
        let plain = self.rng.chance(1, 4);
        let (w, schema) = self.wrap(map, &examples, plain);
        if let Some(w) = w {
            wrappers.push(w);
        }
        (schema, examples)
    }

    /// A subschema of a kind.
    fn sub_of(
        &mut self,
        kind: Kind,
        depth: usize,
        wrappers: &mut Vec<usize>,
    ) -> (Value, Vec<Value>) {
        let (map, examples) = self.node_of(kind, depth + 1);
        let plain = self.rng.chance(1, 4);
        let (w, schema) = self.wrap(map, &examples, plain);
        if let Some(w) = w {
            wrappers.push(w);
        }
        (schema, examples)
    }

    fn def(&mut self, schema: Value) -> String {
        let name = format!("d{}", self.defs.len());
        self.defs.insert(name.clone(), schema);
        name
    }

    /// Puts `target` in a wrapper (none when `plain`), recording the pairs it makes.
    fn wrap(
        &mut self,
        target: Map<String, Value>,
        examples: &[Value],
        plain: bool,
    ) -> (Option<usize>, Value) {
        if plain {
            return (None, Value::Object(target));
        }
        let available: Vec<usize> = (0..WRAPPERS.len())
            .filter(|&w| match WRAPPERS[w] {
                "if/then" | "if/else" => self.rank >= 7,
                "$dynamicRef" => self.rank >= 20,
                _ => true,
            })
            .collect();
        let w = available[self.rng.below(available.len())];
        for k in target.keys() {
            if let Some(k) = keyword_index(k) {
                self.pairs.insert((w, k));
            }
        }
        let target_value = Value::Object(target.clone());
        let schema = match WRAPPERS[w] {
            "$ref" => match self.rng.below(4) {
                // To an embedded resource by its `$id` (`id` in draft 4), relative to the
                // root's base.
                // (Only a target without references: inside the resource, `#...` would
                // be resolved against the resource.)
                0 if !has_refs(&target_value) => {
                    let name = format!("d{}", self.defs.len());
                    let mut resource = target.clone();
                    let id = if self.rank == 4 { "id" } else { "$id" };
                    resource.insert(id.into(), json!(format!("{name}.json")));
                    self.defs.insert(name.clone(), Value::Object(resource));
                    json!({"$ref": format!("{name}.json")})
                }
                // To a plain-name anchor (2019-09 on).
                1 if self.rank >= 19 => {
                    let name = format!("d{}", self.defs.len());
                    let mut anchored = target.clone();
                    anchored.insert("$anchor".into(), json!(format!("a{name}")));
                    self.defs.insert(name.clone(), Value::Object(anchored));
                    json!({"$ref": format!("#a{name}")})
                }
                _ => {
                    let name = self.def(target_value);
                    json!({"$ref": format!("#/$defs/{name}")})
                }
            },
            "$ref chain" => {
                let last = self.def(target_value);
                let middle = self.def(json!({"$ref": format!("#/$defs/{last}")}));
                json!({"$ref": format!("#/$defs/{middle}")})
            }
            "allOf" => {
                if self.rng.chance(1, 2) {
                    json!({"allOf": [target_value]})
                } else {
                    json!({"allOf": [self.yes(), target_value]})
                }
            }
            "anyOf" => {
                if self.rng.chance(1, 2) {
                    json!({"anyOf": [target_value]})
                } else {
                    json!({"anyOf": [self.no(), target_value]})
                }
            }
            "oneOf" => {
                if self.rng.chance(1, 2) {
                    json!({"oneOf": [target_value]})
                } else {
                    json!({"oneOf": [target_value, self.no()]})
                }
            }
            "not" => json!({"not": target_value}),
            "not not" => json!({"not": {"not": target_value}}),
            "if/then" => json!({"if": self.yes(), "then": target_value}),
            "if/else" => json!({"if": target_value, "else": self.no()}),
            "$dynamicRef" => {
                let name = format!("d{}", self.defs.len());
                let mut anchored = target.clone();
                anchored.insert("$dynamicAnchor".into(), json!(name));
                self.defs.insert(name.clone(), Value::Object(anchored));
                json!({"$dynamicRef": format!("#{name}")})
            }
            _ => {
                // `$ref` beside the keywords, to `{}` or to the examples' type.
                let to = if self.rng.chance(1, 2) || examples.is_empty() {
                    json!({})
                } else {
                    let mut types: Vec<&str> = examples
                        .iter()
                        .map(|e| match type_of(e) {
                            "integer" => "number",
                            t => t,
                        })
                        .collect();
                    types.sort_unstable();
                    types.dedup();
                    if types.len() == 1 {
                        json!({"type": types[0]})
                    } else {
                        json!({"type": types})
                    }
                };
                let name = self.def(to);
                let mut with = target;
                with.insert("$ref".into(), json!(format!("#/$defs/{name}")));
                Value::Object(with)
            }
        };
        (Some(w), schema)
    }

    fn string(&mut self) -> Node {
        const FAMILIES: &[(&[&str], &str, &str)] = &[
            (&["a", "bb", "ccc", "dd", "é"], "^[a-zé]+$", "hostname"),
            (
                &["2020-01-01", "2021-12-31", "1999-02-28"],
                "^\\d{4}-",
                "date",
            ),
            (&["a@b.co", "x@y.org"], "@", "email"),
            (
                &["1.2.3.4", "10.0.0.1", "255.255.255.0"],
                "^[0-9.]+$",
                "ipv4",
            ),
            (
                &[
                    "2eb8aa08-aa98-11ea-b4aa-73b441d16380",
                    "00000000-0000-0000-0000-000000000000",
                ],
                "-",
                "uuid",
            ),
        ];
        let (pool, pattern, format) = *self.rng.pick(FAMILIES);
        let mut examples: Vec<Value> = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            let s = json!(*self.rng.pick(pool));
            if !examples.contains(&s) {
                examples.push(s);
            }
        }
        let lens: Vec<usize> = examples
            .iter()
            .map(|s| s.as_str().map_or(0, |s| s.chars().count()))
            .collect();
        let mut map = Map::new();
        if self.rng.chance(3, 4) {
            map.insert("type".into(), json!("string"));
        }
        if self.rng.chance(1, 3) {
            map.insert("minLength".into(), json!(lens.iter().min()));
        }
        if self.rng.chance(1, 3) {
            map.insert("maxLength".into(), json!(lens.iter().max()));
        }
        if self.rng.chance(1, 4) {
            map.insert("pattern".into(), json!(pattern));
        }
        if self.rng.chance(1, 3) {
            map.insert("format".into(), json!(format));
        }
        (map, examples)
    }

    fn number(&mut self) -> Node {
        const POOL: &[&str] = &["0", "1", "2", "3", "4", "6", "10", "12", "2.5", "-1", "0.5"];
        let mut examples: Vec<Value> = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            let text = *self.rng.pick::<&str>(POOL);
            let n: Value = serde_json::from_str(text).unwrap_or(json!(0));
            if !examples.contains(&n) {
                examples.push(n);
            }
        }
        let values: Vec<f64> = examples.iter().filter_map(Value::as_f64).collect();
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let integers = values.iter().all(|v| v.fract() == 0.0);
        let number = |x: f64| {
            if x.fract() == 0.0 {
                json!(x as i64)
            } else {
                json!(x)
            }
        };
        let mut map = Map::new();
        if self.rng.chance(3, 4) {
            let t = if integers && self.rng.chance(1, 2) {
                "integer"
            } else {
                "number"
            };
            map.insert("type".into(), json!(t));
        }
        if self.rng.chance(1, 3) {
            map.insert("minimum".into(), number(lo));
        }
        if self.rng.chance(1, 3) {
            map.insert("maximum".into(), number(hi));
        }
        if self.rng.chance(1, 4) {
            map.insert("exclusiveMinimum".into(), number(lo - 1.0));
        }
        if self.rng.chance(1, 4) {
            map.insert("exclusiveMaximum".into(), number(hi + 0.5));
        }
        if self.rng.chance(1, 3) {
            let divides = |d: f64| values.iter().all(|v| (v / d).fract() == 0.0);
            let divisor = [2.0, 3.0, 1.0, 0.5]
                .into_iter()
                .find(|&d| divides(d) && self.rng.chance(2, 3))
                .unwrap_or(0.5);
            map.insert("multipleOf".into(), number(divisor));
        }
        (map, examples)
    }

    fn literal(&mut self) -> Node {
        let pool = [
            json!(1),
            json!("a"),
            json!(null),
            json!(true),
            json!([1, "a"]),
            json!({"a": 1}),
            json!(1.5),
            json!("b"),
            json!(0),
        ];
        let mut map = Map::new();
        let first = pool[self.rng.below(pool.len())].clone();
        if self.rank >= 6 && self.rng.chance(1, 2) {
            map.insert("const".into(), first.clone());
            return (map, vec![first]);
        }
        if self.rng.chance(1, 4) {
            // A long enum (hashed by the compiler).
            let mut members: Vec<Value> = (0..24).map(|i| json!(format!("v{i}"))).collect();
            members.push(first.clone());
            map.insert("enum".into(), Value::Array(members));
            return (map, vec![first, json!("v3"), json!("v17")]);
        }
        let mut members = vec![first];
        for _ in 0..self.rng.below(3) {
            let v = pool[self.rng.below(pool.len())].clone();
            if !members.contains(&v) {
                members.push(v);
            }
        }
        map.insert("enum".into(), Value::Array(members.clone()));
        (map, members)
    }

    fn scalar(&mut self) -> Node {
        let mut map = Map::new();
        let examples = match self.rng.below(4) {
            0 => {
                map.insert("type".into(), json!("boolean"));
                vec![json!(true), json!(false)]
            }
            1 => {
                map.insert("type".into(), json!("null"));
                vec![json!(null)]
            }
            2 => {
                map.insert("type".into(), json!(["string", "integer"]));
                vec![json!("a"), json!(1)]
            }
            _ => vec![json!("a"), json!(2), json!(null)],
        };
        (map, examples)
    }

    fn array(&mut self, depth: usize, wrappers: &mut Vec<usize>) -> Node {
        let mut map = Map::new();
        if self.rng.chance(3, 4) {
            map.insert("type".into(), json!("array"));
        }
        let mut prefix: Vec<Vec<Value>> = Vec::new();
        if self.rng.chance(1, 4) {
            let mut subs = Vec::new();
            for _ in 0..1 + self.rng.below(2) {
                let (s, ex) = self.sub(depth, wrappers);
                subs.push(s);
                prefix.push(ex);
            }
            map.insert("prefixItems".into(), Value::Array(subs));
        }
        let mut rest: Vec<Value> = Vec::new();
        if self.rng.chance(2, 3) {
            let (s, ex) = self.sub(depth, wrappers);
            map.insert("items".into(), s);
            rest = ex;
        } else if self.rank >= 19 && self.rng.chance(1, 2) {
            if self.rng.chance(1, 3) {
                map.insert("unevaluatedItems".into(), self.no());
            } else {
                let (s, ex) = self.sub(depth, wrappers);
                map.insert("unevaluatedItems".into(), s);
                rest = ex;
            }
        }
        if self.rank >= 6 && self.rng.chance(1, 3) {
            let (s, ex) = self.sub(depth, wrappers);
            map.insert("contains".into(), s);
            if self.rank >= 19 && self.rng.chance(1, 2) {
                map.insert("minContains".into(), json!(self.rng.below(3)));
            }
            if self.rank >= 19 && self.rng.chance(1, 2) {
                map.insert("maxContains".into(), json!(1 + self.rng.below(2)));
            }
            if rest.is_empty() || self.rng.chance(1, 2) {
                rest.extend(ex);
            }
        }
        if rest.is_empty() && prefix.is_empty() {
            rest = vec![json!("a"), json!(1)];
        }
        if self.rng.chance(1, 2) {
            map.insert("uniqueItems".into(), json!(self.rng.chance(4, 5)));
        }
        let mut first: Vec<Value> = prefix.iter().map(|p| p[0].clone()).collect();
        first.extend(rest.iter().cloned());
        let mut second: Vec<Value> = prefix.iter().map(|p| p[p.len() - 1].clone()).collect();
        second.extend(rest.iter().rev().cloned());
        if self.rng.chance(1, 4) {
            map.insert("minItems".into(), json!(first.len()));
        }
        if self.rng.chance(1, 4) {
            map.insert("maxItems".into(), json!(first.len()));
        }
        if self.rank >= 19 && !map.contains_key("unevaluatedItems") && self.rng.chance(1, 5) {
            map.insert("unevaluatedItems".into(), self.no());
        }
        (map, vec![Value::Array(first), Value::Array(second)])
    }

    fn object(&mut self, depth: usize, wrappers: &mut Vec<usize>) -> Node {
        let mut map = Map::new();
        if self.rng.chance(3, 4) {
            map.insert("type".into(), json!("object"));
        }
        let mut a = Map::new();
        let mut b = Map::new();
        let mut props = Map::new();
        let mut required = Vec::new();
        for name in NAMES {
            if self.rng.chance(1, 2) {
                let (s, ex) = self.sub(depth, wrappers);
                props.insert((*name).into(), s);
                a.insert((*name).into(), ex[0].clone());
                b.insert((*name).into(), ex[ex.len() - 1].clone());
                if self.rng.chance(1, 2) {
                    required.push(json!(name));
                }
            }
        }
        if !props.is_empty() || self.rng.chance(1, 3) {
            map.insert("properties".into(), Value::Object(props));
        }
        if !required.is_empty() {
            map.insert("required".into(), Value::Array(required));
        }
        if self.rng.chance(1, 4) {
            let (s, ex) = self.sub(depth, wrappers);
            map.insert("patternProperties".into(), json!({"^x": s}));
            a.insert("x1".into(), ex[0].clone());
            b.insert("x2".into(), ex[ex.len() - 1].clone());
        }
        if self.rng.chance(1, 3) {
            if self.rng.chance(1, 3) {
                map.insert("additionalProperties".into(), self.no());
            } else {
                let (s, ex) = self.sub(depth, wrappers);
                map.insert("additionalProperties".into(), s);
                a.insert("z".into(), ex[0].clone());
            }
        }
        if self.rank >= 6 && self.rng.chance(1, 4) {
            let mut names = Map::new();
            if self.rng.chance(1, 2) {
                names.insert("maxLength".into(), json!(2));
            } else {
                names.insert("pattern".into(), json!("^[a-z]"));
            }
            let plain = self.rng.chance(1, 3);
            let (w, s) = self.wrap(names, &[json!("a")], plain);
            if let Some(w) = w {
                wrappers.push(w);
            }
            map.insert("propertyNames".into(), s);
        }
        if self.rng.chance(1, 4) {
            let (s, _) = self.sub(depth, wrappers);
            map.insert("dependentSchemas".into(), json!({*self.rng.pick(NAMES): s}));
        }
        if self.rng.chance(1, 4) {
            let on = *self.rng.pick(NAMES);
            let needs = *self.rng.pick(NAMES);
            map.insert("dependentRequired".into(), json!({on: [needs]}));
        }
        if self.rank >= 19 && self.rng.chance(1, 4) {
            if self.rng.chance(1, 2) {
                map.insert("unevaluatedProperties".into(), self.no());
            } else {
                let (s, ex) = self.sub(depth, wrappers);
                map.insert("unevaluatedProperties".into(), s);
                b.insert("u".into(), ex[0].clone());
            }
        }
        if self.rng.chance(1, 5) {
            map.insert("minProperties".into(), json!(a.len().min(b.len())));
        }
        if self.rng.chance(1, 5) {
            map.insert("maxProperties".into(), json!(a.len().max(b.len())));
        }
        (map, vec![Value::Object(a), Value::Object(b)])
    }

    fn logic(&mut self, depth: usize, wrappers: &mut Vec<usize>) -> Node {
        let mut map = Map::new();
        let mut examples = Vec::new();
        let choices: &[&str] = if self.rank >= 7 {
            &["allOf", "anyOf", "oneOf", "not", "if"]
        } else {
            &["allOf", "anyOf", "oneOf", "not"]
        };
        match *self.rng.pick(choices) {
            "allOf" => {
                let kind = self.kind(depth + 1);
                let (s1, ex) = self.sub_of(kind, depth, wrappers);
                let (s2, _) = self.sub_of(kind, depth, wrappers);
                map.insert("allOf".into(), json!([s1, s2]));
                examples.extend(ex);
            }
            key @ ("anyOf" | "oneOf") => {
                let (s1, ex1) = self.sub(depth, wrappers);
                let (s2, ex2) = self.sub(depth, wrappers);
                map.insert(key.into(), json!([s1, s2]));
                examples.extend(ex1);
                examples.extend(ex2);
            }
            "not" => {
                let (s, ex) = self.sub(depth, wrappers);
                map.insert("not".into(), s);
                examples.push(json!({"n": null}));
                examples.extend(ex);
            }
            _ => {
                let (s1, ex1) = self.sub(depth, wrappers);
                map.insert("if".into(), s1);
                if self.rng.chance(3, 4) {
                    let (s2, _) = self.sub(depth, wrappers);
                    map.insert("then".into(), s2);
                }
                if self.rng.chance(3, 4) {
                    let (s3, ex3) = self.sub(depth, wrappers);
                    map.insert("else".into(), s3);
                    examples.extend(ex3);
                }
                examples.extend(ex1);
            }
        }
        (map, examples)
    }
}

impl Gen<'_> {
    /// A tagged union: `oneOf`/`anyOf` of object branches told apart by a tag property
    /// (`const`, a one-member `enum`, or `not` of the others' `enum`), or a chain of
    /// `if`/`then`/`else` on the tag: the shapes the compiler dispatches on.
    fn tagged(&mut self, depth: usize, wrappers: &mut Vec<usize>) -> Node {
        const TAGS: &[&str] = &["add", "remove", "list", "get"];
        let tag = *self.rng.pick(&["kind", "type", "method"]);
        let n = 2 + self.rng.below(3);
        let mut branches = Vec::new();
        let mut examples = Vec::new();
        for (i, value) in TAGS.iter().enumerate().take(n) {
            let tag_schema = if i == n - 1 && self.rng.chance(1, 4) {
                json!({"not": {"enum": TAGS[..n - 1]}})
            } else if self.rank >= 6 && self.rng.chance(1, 2) {
                json!({"const": value})
            } else {
                json!({"enum": [value]})
            };
            let name = NAMES[i % NAMES.len()];
            let (s, ex) = self.sub(depth, wrappers);
            let mut branch = Map::new();
            if self.rng.chance(2, 3) {
                branch.insert("type".into(), json!("object"));
            }
            branch.insert("properties".into(), json!({tag: tag_schema, name: s}));
            let mut required = vec![json!(tag)];
            if self.rng.chance(1, 2) {
                required.push(json!(name));
            }
            branch.insert("required".into(), Value::Array(required));
            if self.rng.chance(1, 3) {
                branch.insert("additionalProperties".into(), self.no());
            }
            for e in ex.iter().take(2) {
                examples.push(json!({tag: value, name: e}));
            }
            let plain = self.rng.chance(1, 2);
            let (w, b) = self.wrap(branch, &examples, plain);
            if let Some(w) = w {
                wrappers.push(w);
            }
            branches.push(b);
        }
        let mut map = Map::new();
        if self.rank >= 7 && self.rng.chance(1, 4) {
            // if tag = add then A else if tag = remove then B else ...
            let mut chain = self.no();
            for (i, b) in branches.into_iter().enumerate().rev() {
                let test = json!({"properties": {tag: {"enum": [TAGS[i]]}}, "required": [tag]});
                chain = json!({"if": test, "then": b, "else": chain});
            }
            if let Value::Object(m) = chain {
                map = m;
            }
        } else {
            let key = if self.rng.chance(1, 2) {
                "oneOf"
            } else {
                "anyOf"
            };
            map.insert(key.into(), Value::Array(branches));
        }
        if self.rng.chance(1, 3) {
            map.insert("type".into(), json!("object"));
        }
        (map, examples)
    }
}

/// Rewrites a 2020-12 schema of the generator into a dialect's spelling (`rank`: 4, 6, 7,
/// 19 for 2019-09).
fn older(schema: &mut Value, rank: u8) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if k != "const" && k != "enum" {
                    older(v, rank);
                }
            }
            if rank <= 19
                && let Some(prefix) = map.remove("prefixItems")
            {
                if let Some(rest) = map.remove("items") {
                    map.insert("additionalItems".into(), rest);
                }
                map.insert("items".into(), prefix);
            }
            if rank <= 7 {
                let mut deps = Map::new();
                for key in ["dependentRequired", "dependentSchemas"] {
                    if let Some(Value::Object(d)) = map.remove(key) {
                        for (name, v) in d {
                            // One `dependencies` entry per name: the schema wins a clash
                            // (both forms exist only in the generator's spelling).
                            deps.insert(name, v);
                        }
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
            if rank == 4 {
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
        Value::Array(items) => items.iter_mut().for_each(|v| older(v, rank)),
        _ => {}
    }
}

/// `v` as serde_json reads it back from its own text. serde_json's reader is not
/// correctly rounded (without its `float_roundtrip` feature): a float computed by a
/// mutation, such as `-1.9925000000000002`, is written in its shortest form and read back
/// one unit in the last place away (`-1.9925`), and `is_valid_json` rightly answers for
/// the number serde_json reads (see the README). Every path is given that number, so
/// they judge one instance.
pub fn as_read(v: Value) -> Value {
    serde_json::to_vec(&v)
        .ok()
        .and_then(|text| serde_json::from_slice(&text).ok())
        .unwrap_or(v)
}

/// Whether `v` holds a `$ref` or `$dynamicRef` anywhere.
fn has_refs(v: &Value) -> bool {
    match v {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k == "$ref" || k == "$dynamicRef" || has_refs(v)),
        Value::Array(items) => items.iter().any(has_refs),
        _ => false,
    }
}

/// Keys a mutation adds.
const NEW_KEYS: &[&str] = &["a", "b", "c", "x3", "z", "u", "extra", "A"];

/// Values a mutation puts in.
fn small_value(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => json!(null),
        1 => json!(true),
        2 => json!(1),
        3 => json!(2.5),
        4 => json!("a"),
        5 => json!("zzzz"),
        6 => json!([]),
        _ => json!({}),
    }
}

/// Every location in `v`, as paths of steps (object key or array index).
fn locations(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(here.clone());
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                here.push(Step::Index(i));
                locations(item, here, out);
                here.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                here.push(Step::Key(k.clone()));
                locations(item, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'v>(v: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    let mut cur = v;
    for step in path {
        cur = match (step, cur) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// How many values `v` holds, itself included.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count).sum(),
        Value::Object(map) => map.values().map(count).sum(),
        _ => 0,
    }
}

/// The `n`th value of `v` in pre-order (0 is `v`).
fn nth_mut<'v>(v: &'v mut Value, n: &mut usize) -> Option<&'v mut Value> {
    if *n == 0 {
        return Some(v);
    }
    *n -= 1;
    match v {
        Value::Array(items) => {
            for item in items {
                if let Some(found) = nth_mut(item, n) {
                    return Some(found);
                }
            }
            None
        }
        Value::Object(map) => {
            for item in map.values_mut() {
                if let Some(found) = nth_mut(item, n) {
                    return Some(found);
                }
            }
            None
        }
        _ => None,
    }
}

/// One mutation at a random location of `v`.
pub fn mutate(rng: &mut Rng, mut v: Value) -> Value {
    let mut n = rng.below(count(&v));
    let Some(target) = nth_mut(&mut v, &mut n) else {
        return v;
    };
    match target {
        Value::Array(items) => match rng.below(5) {
            // An item repeated (next to itself or at the end).
            0 | 1 if !items.is_empty() => {
                let i = rng.below(items.len());
                let copy = items[i].clone();
                if rng.chance(1, 2) {
                    items.insert(i, copy);
                } else {
                    items.push(copy);
                }
            }
            2 if !items.is_empty() => {
                let i = rng.below(items.len());
                items.remove(i);
            }
            3 if items.len() >= 2 => {
                let (i, j) = (rng.below(items.len()), rng.below(items.len()));
                items.swap(i, j);
            }
            _ => {
                let item = small_value(rng);
                let i = rng.below(items.len() + 1);
                items.insert(i, item);
            }
        },
        Value::Object(map) => match rng.below(4) {
            0 if !map.is_empty() => {
                let k = map.keys().nth(rng.below(map.len())).cloned();
                if let Some(k) = k {
                    map.remove(&k);
                }
            }
            1 if !map.is_empty() => {
                let k = map.keys().nth(rng.below(map.len())).cloned();
                if let Some(k) = k {
                    let old = map.get(&k).map(type_of);
                    let mut new = small_value(rng);
                    if old == Some(type_of(&new)) {
                        new = json!(null);
                    }
                    map.insert(k, new);
                }
            }
            _ => {
                let k = *rng.pick(NEW_KEYS);
                map.insert(k.into(), small_value(rng));
            }
        },
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            *target = match rng.below(5) {
                0 => json!(f + 1.0),
                1 => json!(f - 1.0),
                2 => json!(f + 0.5),
                3 if n.is_i64() || n.is_u64() => json!(f),
                3 => json!(f.round() as i64),
                _ => json!(-f),
            };
            // `json!(f64)` of an integral value stays a float (`1.0`): both forms occur.
        }
        Value::String(s) => match rng.below(4) {
            0 => s.push(*rng.pick(&['a', 'é', '1', ' '])),
            1 => {
                s.pop();
            }
            2 => {
                *s = (*rng.pick(&[
                    "a",
                    "b",
                    "bb",
                    "2020-13-01",
                    "x@",
                    "1.2.3",
                    "add",
                    "remove",
                    "list",
                    "v3",
                ]))
                .to_string()
            }
            _ => *target = small_value(rng),
        },
        Value::Bool(b) => {
            if rng.chance(1, 2) {
                *b = !*b;
            } else {
                *target = small_value(rng);
            }
        }
        Value::Null => *target = small_value(rng),
    }
    v
}

/// Shrinks `value` while `fails` holds: removes object members and array items, and
/// replaces members with `{}`, one step at a time, until no step keeps the failure or
/// `budget` tries are spent.
pub fn shrink(
    mut value: Value,
    budget: &mut usize,
    fails: &mut dyn FnMut(&Value) -> bool,
) -> Value {
    loop {
        let mut paths = Vec::new();
        locations(&value, &mut Vec::new(), &mut paths);
        let mut progressed = false;
        // A wrapper dropped: an object replaced by one of its members' values or items
        // (`{"oneOf": [X]}` or `{"not": {"not": X}}` becomes `X`).
        'hoist: for path in &paths {
            let Some(here) = at(&mut value.clone(), path).map(|v| v.clone()) else {
                continue;
            };
            let Value::Object(map) = &here else {
                continue;
            };
            let mut children: Vec<Value> = Vec::new();
            for v in map.values() {
                match v {
                    Value::Object(_) => children.push(v.clone()),
                    Value::Array(items) => {
                        children.extend(items.iter().filter(|i| i.is_object()).cloned())
                    }
                    _ => {}
                }
            }
            for child in children {
                if *budget == 0 {
                    return value;
                }
                let mut candidate = value.clone();
                if let Some(slot) = at(&mut candidate, path) {
                    *slot = child;
                }
                *budget -= 1;
                if fails(&candidate) {
                    value = candidate;
                    progressed = true;
                    break 'hoist;
                }
            }
        }
        if progressed {
            continue;
        }
        // Deepest-last: try removing big parts first.
        'paths: for path in paths.iter().skip(1) {
            let (parent, last) = path.split_at(path.len() - 1);
            for replace in [false, true] {
                if *budget == 0 {
                    return value;
                }
                let mut candidate = value.clone();
                let Some(holder) = at(&mut candidate, parent) else {
                    continue;
                };
                match (&last[0], holder) {
                    (Step::Key(k), Value::Object(m)) => {
                        if replace {
                            match m.get(k) {
                                Some(Value::Object(o)) if o.is_empty() => continue,
                                Some(Value::Object(_)) => {
                                    m.insert(k.clone(), json!({}));
                                }
                                _ => continue,
                            }
                        } else {
                            m.remove(k);
                        }
                    }
                    (Step::Index(i), Value::Array(a)) => {
                        if replace {
                            continue;
                        }
                        a.remove(*i);
                    }
                    _ => continue,
                }
                *budget -= 1;
                if fails(&candidate) {
                    value = candidate;
                    progressed = true;
                    break 'paths;
                }
            }
        }
        if !progressed {
            return value;
        }
    }
}

/// A valid-ish instance built from a schema (for schemas that come without instances):
/// `const`, `enum`, `default` and `examples` first, local `$ref`s followed, the first
/// branch of `anyOf`/`oneOf`, the members of `allOf` merged, required properties and
/// declared ones, items, strings and numbers within their bounds.
pub fn example_of(schema: &Value, root: &Value, depth: usize) -> Value {
    let Value::Object(map) = schema else {
        return json!({});
    };
    if depth > 12 {
        return Value::Null;
    }
    if let Some(Value::String(r)) = map.get("$ref")
        && let Some(fragment) = r.strip_prefix('#')
        && let Some(target) = root.pointer(fragment)
    {
        return example_of(target, root, depth + 1);
    }
    if let Some(v) = map.get("const") {
        return v.clone();
    }
    if let Some(Value::Array(members)) = map.get("enum")
        && let Some(first) = members.first()
    {
        return first.clone();
    }
    for key in ["default", "examples"] {
        match (key, map.get(key)) {
            ("default", Some(v)) => return v.clone(),
            ("examples", Some(Value::Array(e))) if !e.is_empty() => return e[0].clone(),
            _ => {}
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && let Some(first) = branches.first()
        {
            return example_of(first, root, depth + 1);
        }
    }
    if let Some(Value::Array(members)) = map.get("allOf") {
        let mut merged = Map::new();
        for m in members {
            match example_of(m, root, depth + 1) {
                Value::Object(o) => merged.extend(o),
                other if merged.is_empty() => return other,
                _ => {}
            }
        }
        if !merged.is_empty() {
            return Value::Object(merged);
        }
    }
    let ty = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if map.contains_key("properties") || map.contains_key("required") => "object",
        _ if map.contains_key("items") || map.contains_key("prefixItems") => "array",
        _ => "",
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            if let Some(Value::Object(props)) = map.get("properties") {
                for (k, s) in props {
                    out.insert(k.clone(), example_of(s, root, depth + 1));
                }
            }
            if let Some(Value::Array(required)) = map.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    out.entry(name.to_string()).or_insert(json!("a"));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = map
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(2)
                .clamp(1, 4) as usize;
            let mut out = Vec::new();
            for key in ["prefixItems", "items"] {
                if let Some(Value::Array(prefix)) = map.get(key) {
                    out.extend(prefix.iter().map(|s| example_of(s, root, depth + 1)));
                }
            }
            if let Some(items @ Value::Object(_)) = map.get("items") {
                let item = example_of(items, root, depth + 1);
                // Distinct items where a number or string lets us, for `uniqueItems`.
                for i in 0..n {
                    out.push(match &item {
                        Value::Number(x) if i > 0 => json!(x.as_f64().unwrap_or(0.0) + i as f64),
                        Value::String(s) if i > 0 => json!(format!("{s}{i}")),
                        other => other.clone(),
                    });
                }
            }
            Value::Array(out)
        }
        "string" => {
            let format = map.get("format").and_then(Value::as_str).unwrap_or("");
            let base = match format {
                "date" => "2020-01-01",
                "date-time" => "2020-01-01T00:00:00Z",
                "email" => "a@b.co",
                "uri" => "http://e.com/",
                "uuid" => "2eb8aa08-aa98-11ea-b4aa-73b441d16380",
                "ipv4" => "1.2.3.4",
                _ => "a",
            };
            let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let mut s = base.to_string();
            while s.chars().count() < min.min(64) {
                s.push('a');
            }
            json!(s)
        }
        "integer" | "number" => {
            let min = map.get("minimum").and_then(Value::as_f64);
            match min {
                Some(m) if m.fract() == 0.0 && m.abs() < 1e15 => json!(m as i64),
                Some(m) => json!(m),
                None => json!(1),
            }
        }
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => json!({}),
    }
}
