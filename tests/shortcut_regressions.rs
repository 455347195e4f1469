//! Every compile-time shortcut against every keyword it could drop (issue #52).
//!
//! The compiler gives nodes shapes the fail-fast path checks outside the keyword loop
//! (typed arrays, plain objects, unions decided by types, forwards, fused `allOf`s...). A
//! shape that takes over a node must implement every keyword of it: one that did not
//! (`uniqueItems` beside `items` whose schema was decided by types once its `$ref` was
//! followed) accepted `["a", "a"]`. Here each keyword, with one instance it accepts and
//! one it rejects, is put in every form a shortcut resolves by type: its node wrapped in
//! `$ref`s, `allOf`, `anyOf`, `oneOf`, `not`/`not`, `if`/`then`, beside a `$ref` to `{}`
//! or to a typed schema, or a `type`; the sibling `items`/`properties`/
//! `additionalProperties` schema wrapped the same ways; the keyword's own subschema
//! wrapped; each at the root, in `items`, in `properties` and in `additionalProperties`;
//! in draft-04, draft-07, 2019-09 and 2020-12 where the keyword exists. Every path under
//! both configurations must give the spec's verdict (written here, not taken from the
//! reference configuration).

mod support;

use serde_json::{Map, Value, json};
use std::panic::{AssertUnwindSafe, catch_unwind};
use toolschema::{Draft, Options};

const DRAFTS: [Draft; 4] = [
    Draft::Draft4,
    Draft::Draft7,
    Draft::Draft201909,
    Draft::Draft202012,
];

fn rank(d: Draft) -> u8 {
    match d {
        Draft::Draft4 => 4,
        Draft::Draft6 => 6,
        Draft::Draft7 => 7,
        Draft::Draft201909 => 19,
        Draft::Draft202012 => 20,
        _ => panic!("a dialect this test does not know"),
    }
}

/// Where definitions live in a dialect (`$defs` from 2019-09 on).
fn defs_key(d: Draft) -> &'static str {
    if rank(d) >= 19 {
        "$defs"
    } else {
        "definitions"
    }
}

/// Where a sibling subschema goes beside the keyword, in the keyword's node.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// `items` (every item, or every item after `prefixItems` in 2020-12).
    Items,
    /// The first entry of the tuple (`prefixItems`, or `items` as an array).
    Prefix0,
    /// `additionalItems`.
    AdditionalItems,
    /// `properties` of this name.
    Property(&'static str),
    /// `additionalProperties`.
    Additional,
}

/// One keyword (or a small group that acts as one), where it exists.
struct Case {
    name: &'static str,
    since: Draft,
    until: Draft,
    /// The keyword's node.
    node: Value,
    /// Definitions the node refers to (name, schema).
    defs: Vec<(&'static str, Value)>,
    /// The type of both instances.
    ty: &'static str,
    valid: Value,
    invalid: Value,
    /// Where a sibling subschema may go without changing the verdicts, and the type every
    /// value it meets in both instances has.
    slots: Vec<Slot>,
    child: &'static str,
    /// JSON pointers (in `node`) to the keyword's own subschemas.
    inner: Vec<&'static str>,
    formats: bool,
    content: bool,
}

impl Case {
    fn new(
        name: &'static str,
        node: Value,
        ty: &'static str,
        valid: Value,
        invalid: Value,
    ) -> Case {
        Case {
            name,
            since: Draft::Draft4,
            until: Draft::Draft202012,
            node,
            defs: Vec::new(),
            ty,
            valid,
            invalid,
            slots: Vec::new(),
            child: "string",
            inner: Vec::new(),
            formats: false,
            content: false,
        }
    }
    fn since(mut self, d: Draft) -> Case {
        self.since = d;
        self
    }
    fn until(mut self, d: Draft) -> Case {
        self.until = d;
        self
    }
    fn slots(mut self, child: &'static str, slots: &[Slot]) -> Case {
        self.child = child;
        self.slots = slots.to_vec();
        self
    }
    fn inner(mut self, pointers: &[&'static str]) -> Case {
        self.inner = pointers.to_vec();
        self
    }
    fn def(mut self, name: &'static str, schema: Value) -> Case {
        self.defs.push((name, schema));
        self
    }
    fn formats(mut self) -> Case {
        self.formats = true;
        self
    }
    fn content(mut self) -> Case {
        self.content = true;
        self
    }
}

fn cases() -> Vec<Case> {
    use Draft::*;
    use Slot::*;
    let obj = "object";
    let arr = "array";
    vec![
        // Arrays.
        Case::new("uniqueItems", json!({"uniqueItems": true}), arr, json!(["a", "b"]), json!(["a", "a"]))
            .slots("string", &[Items]),
        Case::new("uniqueItems with bounds", json!({"uniqueItems": true, "minItems": 1, "maxItems": 4}), arr,
            json!(["a", "b"]), json!(["a", "b", "a"]))
            .slots("string", &[Items]),
        Case::new("uniqueItems of objects", json!({"uniqueItems": true}), arr,
            json!([{"a": 1}, {"a": 2}]), json!([{"a": 1}, {"a": 1}]))
            .slots("object", &[Items]),
        Case::new("uniqueItems of numbers", json!({"uniqueItems": true}), arr,
            json!([1, 2.5]), json!([1, 1.0]))
            .slots("number", &[Items]),
        Case::new("contains", json!({"contains": {"enum": ["b"]}}), arr, json!(["a", "b"]), json!(["a", "c"]))
            .since(Draft7).slots("string", &[Items]).inner(&["/contains"]),
        Case::new("minContains", json!({"contains": {"enum": ["b"]}, "minContains": 2}), arr,
            json!(["b", "a", "b"]), json!(["a", "b"]))
            .since(Draft201909).slots("string", &[Items]).inner(&["/contains"]),
        Case::new("maxContains", json!({"contains": {"enum": ["b"]}, "maxContains": 1}), arr,
            json!(["a", "b"]), json!(["b", "b"]))
            .since(Draft201909).slots("string", &[Items]).inner(&["/contains"]),
        Case::new("minContains 0", json!({"contains": {"enum": ["b"]}, "minContains": 0, "maxContains": 1}), arr,
            json!(["a"]), json!(["b", "b"]))
            .since(Draft201909).slots("string", &[Items]).inner(&["/contains"]),
        Case::new("prefixItems", json!({"prefixItems": [{"enum": ["a"]}]}), arr, json!(["a", "x"]), json!(["b", "x"]))
            .since(Draft202012).slots("string", &[Items]).inner(&["/prefixItems/0"]),
        Case::new("items array", json!({"items": [{"enum": ["a"]}]}), arr, json!(["a", "x"]), json!(["b", "x"]))
            .until(Draft201909).slots("string", &[AdditionalItems]).inner(&["/items/0"]),
        Case::new("additionalItems", json!({"items": [{}], "additionalItems": {"enum": ["a"]}}), arr,
            json!(["x", "a"]), json!(["x", "b"]))
            .until(Draft201909).slots("string", &[Prefix0]).inner(&["/additionalItems"]),
        Case::new("unevaluatedItems", json!({"prefixItems": [{"type": "string"}], "unevaluatedItems": false}), arr,
            json!(["a"]), json!(["a", "b"]))
            .since(Draft202012).slots("string", &[Prefix0]).inner(&["/unevaluatedItems"]),
        Case::new("unevaluatedItems (2019-09)", json!({"items": [{"type": "string"}], "unevaluatedItems": false}), arr,
            json!(["a"]), json!(["a", "b"]))
            .since(Draft201909).until(Draft201909).slots("string", &[Prefix0]).inner(&["/unevaluatedItems"]),
        Case::new("unevaluatedItems through $ref", json!({"$ref": "#/$defs/p", "unevaluatedItems": {"enum": ["z"]}}), arr,
            json!(["a", "z"]), json!(["a", "b"]))
            .since(Draft202012).def("p", json!({"prefixItems": [{}]})).inner(&["/unevaluatedItems"]),
        Case::new("items", json!({"items": {"enum": ["a"]}}), arr, json!(["a"]), json!(["b"]))
            .inner(&["/items"]),
        Case::new("minItems", json!({"minItems": 2}), arr, json!(["a", "b"]), json!(["a"]))
            .slots("string", &[Items]),
        Case::new("maxItems", json!({"maxItems": 1}), arr, json!(["a"]), json!(["a", "b"]))
            .slots("string", &[Items]),
        Case::new("fused items with uniqueItems",
            json!({"allOf": [{"items": {"type": "integer"}}, {"items": {"minimum": 2}}], "uniqueItems": true}), arr,
            json!([2, 3]), json!([2, 2])),
        // Objects.
        Case::new("propertyNames", json!({"propertyNames": {"maxLength": 1}}), obj, json!({"a": 1}), json!({"ab": 1}))
            .since(Draft7).slots("integer", &[Property("a"), Additional]).inner(&["/propertyNames"]),
        Case::new("propertyNames enum", json!({"propertyNames": {"enum": ["a", "b"]}}), obj, json!({"a": 1}), json!({"c": 1}))
            .since(Draft7).slots("integer", &[Property("a"), Property("c"), Additional]).inner(&["/propertyNames"]),
        Case::new("dependentRequired", json!({"dependentRequired": {"a": ["b"]}}), obj,
            json!({"a": 1, "b": 2}), json!({"a": 1}))
            .since(Draft201909).slots("integer", &[Property("a"), Property("b"), Additional]),
        Case::new("dependencies (names)", json!({"dependencies": {"a": ["b"]}}), obj,
            json!({"a": 1, "b": 2}), json!({"a": 1}))
            .until(Draft7).slots("integer", &[Property("a"), Property("b"), Additional]),
        Case::new("dependentSchemas", json!({"dependentSchemas": {"a": {"required": ["b"]}}}), obj,
            json!({"a": 1, "b": 2}), json!({"a": 1}))
            .since(Draft201909).slots("integer", &[Property("a"), Property("b"), Additional])
            .inner(&["/dependentSchemas/a"]),
        Case::new("dependencies (schema)", json!({"dependencies": {"a": {"required": ["b"]}}}), obj,
            json!({"a": 1, "b": 2}), json!({"a": 1}))
            .until(Draft7).slots("integer", &[Property("a"), Property("b"), Additional])
            .inner(&["/dependencies/a"]),
        Case::new("unevaluatedProperties", json!({"properties": {"a": {}}, "unevaluatedProperties": false}), obj,
            json!({"a": 1}), json!({"a": 1, "b": 1}))
            .since(Draft201909).slots("integer", &[Property("a")]).inner(&["/unevaluatedProperties"]),
        Case::new("unevaluatedProperties through $ref",
            json!({"$ref": "#/$defs/p", "unevaluatedProperties": {"maximum": 5}}), obj,
            json!({"a": 9, "b": 1}), json!({"a": 1, "b": 9}))
            .since(Draft201909).def("p", json!({"properties": {"a": {}}}))
            .slots("integer", &[Property("a")]).inner(&["/unevaluatedProperties"]),
        Case::new("unevaluatedProperties through allOf",
            json!({"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false}), obj,
            json!({"a": 1}), json!({"a": 1, "b": 1}))
            .since(Draft201909).slots("integer", &[Property("a")]).inner(&["/unevaluatedProperties"]),
        Case::new("unevaluatedProperties through anyOf",
            json!({"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"required": ["c"]}], "unevaluatedProperties": false}), obj,
            json!({"a": 1}), json!({"c": 1}))
            .since(Draft201909).inner(&["/unevaluatedProperties"]),
        Case::new("required", json!({"required": ["a"]}), obj, json!({"a": 1}), json!({"b": 1}))
            .slots("integer", &[Property("a"), Property("b"), Additional]),
        Case::new("required beside properties", json!({"properties": {"a": {}, "b": {}}, "required": ["a", "b"]}), obj,
            json!({"a": 1, "b": 1}), json!({"b": 1, "c": 1}))
            .slots("integer", &[Property("a"), Property("b"), Additional]),
        Case::new("additionalProperties", json!({"properties": {"a": {}}, "additionalProperties": false}), obj,
            json!({"a": 1}), json!({"a": 1, "b": 1}))
            .slots("integer", &[Property("a")]).inner(&["/additionalProperties"]),
        Case::new("patternProperties", json!({"patternProperties": {"^a": {"minimum": 2}}}), obj,
            json!({"ab": 2}), json!({"ab": 1}))
            .slots("integer", &[Property("ab"), Additional]).inner(&["/patternProperties/^a"]),
        Case::new("maxProperties", json!({"maxProperties": 1}), obj, json!({"a": 1}), json!({"a": 1, "b": 2}))
            .slots("integer", &[Property("a"), Additional]),
        Case::new("minProperties", json!({"minProperties": 2}), obj, json!({"a": 1, "b": 2}), json!({"a": 1}))
            .slots("integer", &[Property("a"), Additional]),
        Case::new("property test", json!({"properties": {"k": {"enum": ["a"]}}, "required": ["k"]}), obj,
            json!({"k": "a"}), json!({"k": "b"})),
        Case::new("tagged oneOf", json!({"oneOf": [
                {"properties": {"k": {"enum": ["a"]}, "v": {"type": "string"}}, "required": ["k"]},
                {"properties": {"k": {"enum": ["b"]}}, "required": ["k"]}]}), obj,
            json!({"k": "a", "v": "x"}), json!({"k": "a", "v": 1})),
        Case::new("if chain", json!({"allOf": [
                {"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}},
                {"if": {"properties": {"k": {"const": "b"}}}, "then": {"required": ["y"]}}]}), obj,
            json!({"k": "a", "x": 1}), json!({"k": "b", "x": 1}))
            .since(Draft7),
        Case::new("if chain (else, key absent)", json!({"allOf": [
                {"if": {"properties": {"k": {"const": "a"}}, "required": ["k"]}, "then": {"required": ["x"]}, "else": {"required": ["z"]}},
                {"if": {"properties": {"k": {"const": "b"}}, "required": ["k"]}, "then": {"required": ["y"]}}]}), obj,
            json!({"z": 1}), json!({"x": 1}))
            .since(Draft7),
        Case::new("property test of a typed literal", json!({"properties": {"k": {"type": "string", "enum": ["a", 1]}}}), obj,
            json!({"k": "a"}), json!({"k": 1})),
        Case::new("tagged oneOf with an excluded tag", json!({"oneOf": [
                {"properties": {"k": {"not": {"enum": ["a"]}}}, "required": ["k"]},
                {"properties": {"k": {"enum": ["a"]}, "v": {"type": "string"}}, "required": ["k"]}]}), obj,
            json!({"k": "b", "v": 1}), json!({"k": "a", "v": 1})),
        Case::new("anyOf told apart by required names", json!({"anyOf": [
                {"required": ["a"], "properties": {"a": {"type": "string"}}},
                {"required": ["b"]}]}), obj,
            json!({"b": 1, "a": 1}), json!({"a": 1})),
        Case::new("oneOf of a literal and a pattern", json!({"oneOf": [{"enum": ["ab"]}, {"pattern": "^a"}]}), "string",
            json!("ac"), json!("ab"))
            .inner(&["/oneOf/0", "/oneOf/1"]),
        Case::new("fused allOf", json!({"allOf": [
                {"properties": {"a": {"type": "integer"}}},
                {"properties": {"a": {"minimum": 2}, "b": {}}}]}), obj,
            json!({"a": 2}), json!({"a": 1})),
        // Scalars.
        Case::new("enum", json!({"enum": ["a"]}), "string", json!("a"), json!("b")),
        Case::new("const", json!({"const": "a"}), "string", json!("a"), json!("b")).since(Draft7),
        Case::new("multipleOf", json!({"multipleOf": 2}), "number", json!(4), json!(3)),
        Case::new("maximum", json!({"maximum": 3}), "number", json!(3), json!(4)),
        Case::new("maxLength", json!({"maxLength": 1}), "string", json!("a"), json!("ab")),
        Case::new("pattern", json!({"pattern": "^a"}), "string", json!("ab"), json!("ba")),
        Case::new("format (asserted)", json!({"format": "ipv4"}), "string", json!("1.2.3.4"), json!("1.2.3"))
            .formats(),
        Case::new("contentMediaType (asserted)", json!({"contentMediaType": "application/json"}), "string",
            json!("{}"), json!("{"))
            .since(Draft7).content(),
        Case::new("contentEncoding (asserted)", json!({"contentEncoding": "base64"}), "string",
            json!("YQ=="), json!("*"))
            .since(Draft7).content(),
        Case::new("not", json!({"not": {"enum": ["b"]}}), "string", json!("a"), json!("b")).inner(&["/not"]),
        Case::new("if/then/else (then)",
            json!({"if": {"maxLength": 1}, "then": {"enum": ["a"]}, "else": {"enum": ["bb"]}}), "string",
            json!("a"), json!("b"))
            .since(Draft7).inner(&["/if", "/then"]),
        Case::new("if/then/else (else)",
            json!({"if": {"maxLength": 1}, "then": {"enum": ["a"]}, "else": {"enum": ["bb"]}}), "string",
            json!("bb"), json!("cc"))
            .since(Draft7).inner(&["/if", "/else"]),
        Case::new("oneOf of a type and a literal", json!({"oneOf": [{"type": "string"}, {"enum": ["a"]}]}), "string",
            json!("b"), json!("a"))
            .inner(&["/oneOf/0", "/oneOf/1"]),
        Case::new("oneOf of overlapping literals", json!({"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b"]}]}), "string",
            json!("a"), json!("b"))
            .inner(&["/oneOf/0", "/oneOf/1"]),
        Case::new("anyOf of literals", json!({"anyOf": [{"enum": ["a"]}, {"enum": ["b"]}]}), "string",
            json!("b"), json!("c"))
            .inner(&["/anyOf/0", "/anyOf/1"]),
        Case::new("oneOf of types", json!({"oneOf": [{"type": "string"}, {"type": "number"}]}), "string",
            json!("a"), json!(null))
            .inner(&["/oneOf/0", "/oneOf/1"]),
        Case::new("$dynamicRef", json!({"$dynamicRef": "#x"}), "string", json!("a"), json!("b"))
            .since(Draft202012).def("x", json!({"$dynamicAnchor": "x", "enum": ["a"]})),
    ]
}

/// How a subschema is wrapped.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Wrap {
    Bare,
    Ref,
    RefChain,
    AllOf,
    AllOfRef,
    AnyOf,
    OneOf,
    NotNot,
    IfTrueThen,
    RefToEmptyBeside,
    RefToTypedBeside,
    TypeBeside,
}

const WRAPS: [Wrap; 12] = [
    Wrap::Bare,
    Wrap::Ref,
    Wrap::RefChain,
    Wrap::AllOf,
    Wrap::AllOfRef,
    Wrap::AnyOf,
    Wrap::OneOf,
    Wrap::NotNot,
    Wrap::IfTrueThen,
    Wrap::RefToEmptyBeside,
    Wrap::RefToTypedBeside,
    Wrap::TypeBeside,
];

/// Definitions gathered while building one schema.
struct Defs {
    draft: Draft,
    entries: Map<String, Value>,
}

impl Defs {
    fn add(&mut self, schema: Value) -> String {
        let name = format!("w{}", self.entries.len());
        self.entries.insert(name.clone(), schema);
        format!("#/{}/{name}", defs_key(self.draft))
    }
}

/// `schema` wrapped by `w` (`ty`: the type of the instances it meets), or `None` when the
/// wrap does not apply. The verdict changes only where the dialect ignores the wrap's
/// keyword (see `expected`).
fn wrap(w: Wrap, schema: &Value, ty: &str, defs: &mut Defs) -> Option<Value> {
    let beside = |mut s: Value, key: &str, v: Value| -> Option<Value> {
        let map = s.as_object_mut()?;
        if map.contains_key(key) {
            return None;
        }
        map.insert(key.to_string(), v);
        Some(s)
    };
    Some(match w {
        Wrap::Bare => schema.clone(),
        Wrap::Ref => json!({"$ref": defs.add(schema.clone())}),
        Wrap::RefChain => {
            let inner = defs.add(schema.clone());
            json!({"$ref": defs.add(json!({"$ref": inner}))})
        }
        Wrap::AllOf => json!({"allOf": [schema]}),
        Wrap::AllOfRef => json!({"allOf": [{"$ref": defs.add(schema.clone())}]}),
        Wrap::AnyOf => json!({"anyOf": [schema]}),
        Wrap::OneOf => json!({"oneOf": [schema]}),
        Wrap::NotNot => json!({"not": {"not": schema}}),
        Wrap::IfTrueThen => json!({"if": true, "then": schema}),
        Wrap::RefToEmptyBeside => {
            let target = defs.add(json!({}));
            beside(schema.clone(), "$ref", json!(target))?
        }
        Wrap::RefToTypedBeside => {
            let target = defs.add(json!({"type": ty}));
            beside(schema.clone(), "$ref", json!(target))?
        }
        Wrap::TypeBeside => match schema.get("type") {
            Some(_) => return None,
            None => beside(schema.clone(), "type", json!(ty))?,
        },
    })
}

/// The verdict a wrapped schema gives where the bare one gives `bare`: the same, but
/// where the dialect ignores the wrap's keyword — `if` before draft-07, and the siblings
/// of `$ref` before 2019-09 — the wrapped schema accepts every instance `ty` admits (the
/// instances here all have that type).
fn expected(w: Wrap, draft: Draft, bare: bool) -> bool {
    match w {
        Wrap::IfTrueThen if rank(draft) < 7 => true,
        Wrap::RefToEmptyBeside | Wrap::RefToTypedBeside if rank(draft) < 19 => true,
        _ => bare,
    }
}

/// The JSON type of a value (`number` for every number).
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Where the tested schema sits in the document, and the instance it meets there.
#[derive(Debug, Clone, Copy)]
enum Nest {
    Root,
    Items,
    Property,
    Additional,
}

const NESTS: [Nest; 4] = [Nest::Root, Nest::Items, Nest::Property, Nest::Additional];

fn nest(n: Nest, schema: Value, instance: &Value) -> (Value, Value) {
    match n {
        Nest::Root => (schema, instance.clone()),
        Nest::Items => (json!({"type": "array", "items": schema}), json!([instance])),
        Nest::Property => (
            json!({"type": "object", "properties": {"p": schema}, "required": ["p"]}),
            json!({"p": instance}),
        ),
        Nest::Additional => (
            json!({"type": "object", "additionalProperties": schema}),
            json!({"q": instance}),
        ),
    }
}

/// `node` with `child` put in `slot`.
fn attach(node: &Value, slot: Slot, child: Value, draft: Draft) -> Value {
    let mut node = node.clone();
    let map = node.as_object_mut().expect("a case's node is an object");
    match slot {
        Slot::Items => {
            map.insert("items".into(), child);
        }
        Slot::Prefix0 => {
            let key = if map.contains_key("prefixItems") {
                "prefixItems"
            } else {
                "items"
            };
            map[key][0] = child;
        }
        Slot::AdditionalItems => {
            map.insert("additionalItems".into(), child);
        }
        Slot::Property(name) => {
            let properties = map.entry("properties").or_insert_with(|| json!({}));
            properties[name] = child;
        }
        Slot::Additional => {
            map.insert("additionalProperties".into(), child);
        }
    }
    let _ = draft;
    node
}

/// The schemas that accept every value of type `ty` (`{"type": ty}`, `{}`, a `not` of
/// another type, an `anyOf` of types): what a sibling slot gets, wrapped, so that the
/// shortcuts see a subschema decided by types.
fn children(ty: &str) -> Vec<Value> {
    vec![
        json!({"type": ty}),
        json!({}),
        json!({"not": {"type": "null"}}),
        json!({"anyOf": [{"type": ty}, {"type": "null"}]}),
    ]
}

/// Replaces every `#/$defs/` in `v` by the dialect's definitions location.
fn relocate(v: &mut Value, draft: Draft) {
    match v {
        Value::String(s) if s.starts_with("#/$defs/") && defs_key(draft) != "$defs" => {
            *s = s.replacen("#/$defs/", &format!("#/{}/", defs_key(draft)), 1);
        }
        Value::Array(items) => items.iter_mut().for_each(|x| relocate(x, draft)),
        Value::Object(map) => map.values_mut().for_each(|x| relocate(x, draft)),
        _ => {}
    }
}

struct Run {
    failures: Vec<String>,
    schemas: usize,
    verdicts: usize,
}

impl Run {
    /// Compiles `root` (with `defs` added) in both configurations and checks each
    /// (instance, verdict) on every path.
    fn check(
        &mut self,
        label: &str,
        options: &Options,
        mut root: Value,
        defs: Defs,
        checks: &[(Value, bool)],
    ) {
        if !defs.entries.is_empty() {
            let key = defs_key(defs.draft);
            let map = root.as_object_mut().expect("the root is an object");
            let slot = map.entry(key).or_insert_with(|| json!({}));
            for (name, schema) in defs.entries {
                slot[name] = schema;
            }
        }
        self.schemas += 1;
        let compiled = catch_unwind(AssertUnwindSafe(|| support::compile_with(options, &root)));
        let both = match compiled {
            Ok(Ok(both)) => both,
            Ok(Err(e)) => {
                self.failures
                    .push(format!("{label}: {root} does not compile: {e}"));
                return;
            }
            Err(_) => {
                self.failures.push(format!(
                    "{label}: {root}: the configurations disagree on compiling it"
                ));
                return;
            }
        };
        for (instance, want) in checks {
            self.verdicts += 1;
            match catch_unwind(AssertUnwindSafe(|| support::disagreement(&both, instance))) {
                Ok(Ok(got)) if got == *want => {}
                Ok(Ok(got)) => self.failures.push(format!(
                    "{label}: {root} on {instance}: every path says {got}, the spec {want}"
                )),
                Ok(Err(why)) => self
                    .failures
                    .push(format!("{label}: {root} (the spec says {want}): {why}")),
                Err(_) => self
                    .failures
                    .push(format!("{label}: {root} on {instance}: a panic")),
            }
        }
    }
}

#[test]
fn every_keyword_in_every_wrapper_gives_the_spec_verdict() {
    let mut run = Run {
        failures: Vec::new(),
        schemas: 0,
        verdicts: 0,
    };
    for case in cases() {
        for draft in DRAFTS {
            if rank(draft) < rank(case.since) || rank(draft) > rank(case.until) {
                continue;
            }
            let options = Options::new()
                .default_dialect(draft)
                .assert_formats(case.formats)
                .assert_content(case.content);
            let mut node = case.node.clone();
            relocate(&mut node, draft);
            let case_defs = || {
                let mut entries = Map::new();
                for (name, schema) in &case.defs {
                    let mut schema = schema.clone();
                    relocate(&mut schema, draft);
                    entries.insert(name.to_string(), schema);
                }
                Defs { draft, entries }
            };
            let pairs = [(&case.valid, true), (&case.invalid, false)];
            // The keyword's node wrapped (beside a type only when both instances have it).
            let one_type = kind(&case.valid) == kind(&case.invalid);
            for w in WRAPS {
                if !one_type && matches!(w, Wrap::TypeBeside | Wrap::RefToTypedBeside) {
                    continue;
                }
                for n in NESTS {
                    let mut defs = case_defs();
                    let Some(wrapped) = wrap(w, &node, case.ty, &mut defs) else {
                        continue;
                    };
                    let mut root = None;
                    let mut checks = Vec::new();
                    for (instance, bare) in pairs {
                        let (schema, instance) = nest(n, wrapped.clone(), instance);
                        root = Some(schema);
                        checks.push((instance, expected(w, draft, bare)));
                    }
                    let label = format!("{} / node {w:?} / {n:?} / {draft:?}", case.name);
                    run.check(&label, &options, root.unwrap(), defs, &checks);
                }
            }
            // A sibling subschema decided by types, wrapped, beside the keyword.
            for &slot in &case.slots {
                for child in children(case.child) {
                    for w in WRAPS {
                        for n in [Nest::Root, Nest::Items] {
                            let mut defs = case_defs();
                            let Some(wrapped) = wrap(w, &child, case.child, &mut defs) else {
                                continue;
                            };
                            let with = attach(&node, slot, wrapped, draft);
                            let mut root = None;
                            let mut checks = Vec::new();
                            for (instance, bare) in pairs {
                                let (schema, instance) = nest(n, with.clone(), instance);
                                root = Some(schema);
                                checks.push((instance, bare));
                            }
                            let label = format!(
                                "{} / {slot:?} = {w:?} of {child} / {n:?} / {draft:?}",
                                case.name
                            );
                            run.check(&label, &options, root.unwrap(), defs, &checks);
                        }
                    }
                }
            }
            // The keyword's own subschema wrapped (only the wraps every dialect here
            // reads as they are written).
            for pointer in &case.inner {
                for w in WRAPS {
                    if matches!(w, Wrap::TypeBeside | Wrap::RefToTypedBeside | Wrap::Bare)
                        || (w == Wrap::IfTrueThen && rank(draft) < 7)
                        || (w == Wrap::RefToEmptyBeside && rank(draft) < 19)
                    {
                        continue;
                    }
                    for n in [Nest::Root, Nest::Property] {
                        let mut defs = case_defs();
                        let mut with = node.clone();
                        let target = with
                            .pointer_mut(pointer)
                            .expect("the pointer names a subschema");
                        let Some(wrapped) = wrap(w, target, "string", &mut defs) else {
                            continue;
                        };
                        *target = wrapped;
                        let mut root = None;
                        let mut checks = Vec::new();
                        for (instance, bare) in pairs {
                            let (schema, instance) = nest(n, with.clone(), instance);
                            root = Some(schema);
                            checks.push((instance, bare));
                        }
                        let label =
                            format!("{} / {pointer} = {w:?} / {n:?} / {draft:?}", case.name);
                        run.check(&label, &options, root.unwrap(), defs, &checks);
                    }
                }
            }
        }
    }
    eprintln!(
        "{} schemas, {} verdicts checked on every path of both configurations",
        run.schemas, run.verdicts
    );
    assert!(
        run.schemas > 5000,
        "the matrix shrank: {} schemas",
        run.schemas
    );
    if !run.failures.is_empty() {
        // Per keyword, then the first few in full.
        let mut tally: Vec<(&str, usize)> = Vec::new();
        for f in &run.failures {
            let name = f.split(" / ").next().unwrap_or_default();
            match tally.iter_mut().find(|(n, _)| *n == name) {
                Some((_, k)) => *k += 1,
                None => tally.push((name, 1)),
            }
        }
        let tally: Vec<String> = tally.iter().map(|(n, k)| format!("{n}: {k}")).collect();
        let shown: Vec<&str> = run
            .failures
            .iter()
            .rev()
            .take(20)
            .map(|s| s.as_str())
            .collect();
        panic!(
            "{} of {} verdicts wrong ({}):\n{}",
            run.failures.len(),
            run.verdicts,
            tally.join(", "),
            shown.join("\n")
        );
    }
}

/// The example, in every dialect it names and every API.
#[test]
fn unique_items_beside_items_decided_by_a_reference() {
    for (draft, defs) in [
        (Draft::Draft4, "definitions"),
        (Draft::Draft7, "definitions"),
        (Draft::Draft201909, "$defs"),
        (Draft::Draft202012, "$defs"),
    ] {
        let schema = json!({
            "type": "array",
            "uniqueItems": true,
            "items": {"$ref": format!("#/{defs}/s")},
            defs: {"s": {"type": "string"}}
        });
        let both = support::compile_with(&Options::new().default_dialect(draft), &schema).unwrap();
        support::check(&both, &json!(["a", "a"]), false);
        support::check(&both, &json!(["a", "b"]), true);
        support::check(&both, &json!(["a", 1]), false);
        assert!(both.validate(&json!(["a", "a"])).is_err(), "{draft:?}");
        assert!(
            both.iter_errors(&json!(["a", "a"])).next().is_some(),
            "{draft:?}"
        );
    }
}
