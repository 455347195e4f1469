//! Standard output formats (JSON Schema 2020-12, "Output Formatting"): `flag`, `basic`,
//! `detailed` and `verbose`, and the annotations behind them.
//!
//! Like every rendering in this crate, the output never contains an instance value: error
//! messages state the schema's expectation, and annotations carry only schema values
//! (property names found only in the instance show up as `true`, never listed).

use crate::validate::RawAnnotation;
use crate::{Schema, ValidationError};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// One annotation: a keyword's value, attached to an instance location.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    raw: RawAnnotation,
}

impl Annotation {
    /// Where in the instance (RFC 6901 pointer, empty for the root).
    pub fn instance_location(&self) -> &str {
        &self.raw.instance_location
    }

    /// The evaluation path to the keyword, through `$ref`s.
    pub fn keyword_location(&self) -> &str {
        &self.raw.keyword_location
    }

    /// The keyword as its resource URI plus a pointer fragment.
    pub fn absolute_keyword_location(&self) -> &str {
        &self.raw.absolute_keyword_location
    }

    /// The subschema that holds the keyword, as `#` plus its pointer in its document.
    pub fn schema_location(&self) -> &str {
        &self.raw.schema_location
    }

    /// The keyword (`title`, `default`, `properties`, an unknown keyword, ...).
    pub fn keyword(&self) -> &str {
        &self.raw.keyword
    }

    /// The annotation value (taken from the schema).
    pub fn value(&self) -> &Value {
        &self.raw.value
    }
}

/// Subschema evaluations one call (`is_valid`, `validate`, `iter_errors`, `evaluate`)
/// may make before its budget is set by the instance's size: evaluation does the work of
/// a subschema again each time it is applied to the same value, so a schema that applies
/// one recursive subschema twice per level (two `oneOf` branches, an `allOf` of two
/// references) doubles the work at every level of the instance.
pub const EVALUATION_STEPS_MIN: u64 = 1 << 16;

/// Subschema evaluations one call may make per value of the instance, once past
/// [`EVALUATION_STEPS_MIN`]. Past both, the call stops: `is_valid` answers `false`, the
/// others report [`ErrorKind::EvaluationBudgetExceeded`](crate::ErrorKind::EvaluationBudgetExceeded)
/// alone. Real schemas evaluate a few, or a few dozen, subschemas per value. Both are the
/// defaults of [`Options::step_budget`](crate::Options::step_budget).
pub const EVALUATION_STEPS_PER_VALUE: u64 = 1024;

/// Most bytes of locations (instance, keyword, absolute, schema) and annotation values one
/// [`Schema::evaluate`] keeps for its errors and annotations before it stops with
/// [`ErrorKind::EvaluationBudgetExceeded`](crate::ErrorKind::EvaluationBudgetExceeded):
/// every annotation holds its full locations, which grow with the instance's depth, and a
/// copy of its schema value, once per instance value it applies to. The standard output
/// formats ([`Evaluation::basic`], `detailed`, `verbose`) render at most this much too.
pub const EVALUATION_OUTPUT_BYTES: u64 = 64 << 20;

/// The result of [`Schema::evaluate`] (and [`Schema::evaluate_json`]): the errors, the annotations, and the standard
/// output formats.
///
/// ```
/// use toolschema::Schema;
/// use serde_json::json;
///
/// let schema = Schema::compile(&json!({"properties": {"n": {"title": "N", "maximum": 3}}}))?;
/// let good = schema.evaluate(&json!({"n": 1}));
/// assert!(good.is_valid());
/// assert!(good.annotations().iter().any(|a| a.keyword() == "title" && a.instance_location() == "/n"));
/// let bad = schema.evaluate(&json!({"n": 5}));
/// assert_eq!(bad.basic()["errors"][0]["instanceLocation"], "/n");
/// # Ok::<(), toolschema::SchemaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Evaluation {
    errors: Vec<ValidationError>,
    annotations: Vec<Annotation>,
}

impl Schema {
    /// Evaluates `instance` fully: every error, and the annotations of every subschema that
    /// succeeded. Slower than [`Schema::is_valid`]; use it for reporting.
    pub fn evaluate(&self, instance: &Value) -> Evaluation {
        Evaluation::from_outcome(crate::validate::outcome(&self.compiled, instance))
    }
}

impl Evaluation {
    /// What an evaluation of either representation collected (`Schema::evaluate`,
    /// `Schema::evaluate_json`).
    pub(crate) fn from_outcome(outcome: crate::validate::Outcome) -> Evaluation {
        let valid = outcome.errors.is_empty();
        Evaluation {
            errors: outcome.errors,
            // A failed validation produces no annotations.
            annotations: if valid {
                outcome
                    .annotations
                    .into_iter()
                    .map(|raw| Annotation { raw })
                    .collect()
            } else {
                Vec::new()
            },
        }
    }
}

/// Most levels of units the `detailed` and `verbose` formats nest (the root unit is the
/// first; each level of an error's causes is one more), and the `basic` format lists every
/// unit at the second. Past it, or past [`EVALUATION_OUTPUT_BYTES`] of output, a format
/// holds its root unit (`valid` still the verdict) with a single unit under `errors` whose
/// `error` says the output budget is exceeded: the nested formats repeat every enclosing
/// location in each unit, so their size grows with the square of the depth, and a deeper
/// value could not be written or dropped without deep recursion.
pub const OUTPUT_FORMAT_DEPTH: usize = 256;

/// The message of the unit that stands for a format past its budget.
const OVER_BUDGET: &str = "output budget exceeded: this format of the result would be larger than \
     64 MiB or nest units deeper than 256 levels (the basic format lists the units flat)";

/// What a unit costs besides its strings: its member names and punctuation, written out.
const UNIT_BYTES: u64 = 96;

/// What a location prefix costs the nested formats while they are grouped, whether or not
/// a unit is written for it.
const GROUP_BYTES: u64 = 64;

/// The rendering of one format ran out of its budget.
struct Exceeded;

/// Bytes one format may still render: the output is its JSON text, about.
struct Budget {
    left: u64,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            left: EVALUATION_OUTPUT_BYTES,
        }
    }

    fn spend(&mut self, bytes: u64) -> Result<(), Exceeded> {
        self.left = self.left.checked_sub(bytes).ok_or(Exceeded)?;
        Ok(())
    }
}

/// About the bytes of `value` written as JSON (each value counted at least 16, for the
/// memory it takes as a `Value`), walked without recursion.
pub(crate) fn value_bytes(value: &Value) -> u64 {
    let mut total = 0u64;
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        total += 16;
        match v {
            Value::String(s) => total += s.len() as u64,
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => {
                for (k, v) in map {
                    total += k.len() as u64 + 4;
                    pending.push(v);
                }
            }
            _ => {}
        }
    }
    total
}

fn error_unit(e: &ValidationError, budget: &mut Budget) -> Result<Value, Exceeded> {
    let message = e.message();
    budget.spend(
        UNIT_BYTES
            + (e.keyword_location().len()
                + e.absolute_keyword_location().len()
                + e.instance_location().len()
                + message.len()) as u64,
    )?;
    Ok(json!({
        "valid": false,
        "keywordLocation": e.keyword_location(),
        "absoluteKeywordLocation": e.absolute_keyword_location(),
        "instanceLocation": e.instance_location(),
        "error": message,
    }))
}

fn annotation_unit(a: &Annotation, budget: &mut Budget) -> Result<Value, Exceeded> {
    budget.spend(
        UNIT_BYTES
            + (a.keyword_location().len()
                + a.absolute_keyword_location().len()
                + a.instance_location().len()) as u64
            + value_bytes(a.value()),
    )?;
    Ok(json!({
        "valid": true,
        "keywordLocation": a.keyword_location(),
        "absoluteKeywordLocation": a.absolute_keyword_location(),
        "instanceLocation": a.instance_location(),
        "annotation": a.value(),
    }))
}

impl Evaluation {
    /// Whether the instance is valid.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors, in evaluation order (branch errors of `anyOf`/`oneOf` in
    /// [`ValidationError::causes`]).
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }

    /// The annotations (empty when the instance is invalid).
    pub fn annotations(&self) -> &[Annotation] {
        &self.annotations
    }

    /// `{"valid": bool}`.
    pub fn flag(&self) -> Value {
        json!({"valid": self.is_valid()})
    }

    /// A flat list of output units: every error (with the branch errors of failed
    /// `anyOf`/`oneOf`), or every annotation when valid. Past the output budget
    /// ([`EVALUATION_OUTPUT_BYTES`] of output), the root unit holds a single unit saying so.
    pub fn basic(&self) -> Value {
        self.basic_within(&mut Budget::new())
            .unwrap_or_else(|Exceeded| self.over_budget())
    }

    fn basic_within(&self, budget: &mut Budget) -> Result<Value, Exceeded> {
        budget.spend(UNIT_BYTES)?;
        let mut out = Map::new();
        out.insert("valid".into(), Value::Bool(self.is_valid()));
        out.insert("keywordLocation".into(), Value::String(String::new()));
        out.insert("instanceLocation".into(), Value::String(String::new()));
        if self.is_valid() {
            if !self.annotations.is_empty() {
                let mut units = Vec::new();
                for a in &self.annotations {
                    units.push(annotation_unit(a, budget)?);
                }
                out.insert("annotations".into(), Value::Array(units));
            }
        } else {
            // Every error and its causes, depth first, without recursion.
            let mut units = Vec::new();
            let mut pending: Vec<&ValidationError> = self.errors.iter().rev().collect();
            while let Some(e) = pending.pop() {
                units.push(error_unit(e, budget)?);
                pending.extend(e.causes().iter().rev());
            }
            out.insert("errors".into(), Value::Array(units));
        }
        Ok(Value::Object(out))
    }

    /// Output units nested as the schema is: each unit's children are the units whose
    /// keyword location lies below it; a level with a single child is collapsed into it.
    /// Past the output budget ([`EVALUATION_OUTPUT_BYTES`] of output, or units nested
    /// deeper than [`OUTPUT_FORMAT_DEPTH`]), the root unit holds a single unit saying so.
    pub fn detailed(&self) -> Value {
        self.hierarchical(true)
    }

    /// Like [`Evaluation::detailed`], without collapsing any level (so every location
    /// prefix is a unit, and a deep result exceeds the budget sooner).
    pub fn verbose(&self) -> Value {
        self.hierarchical(false)
    }

    fn hierarchical(&self, collapse: bool) -> Value {
        let leaves: Vec<Leaf<'_>> = if self.is_valid() {
            self.annotations.iter().map(Leaf::Annotation).collect()
        } else {
            self.errors.iter().map(Leaf::Error).collect()
        };
        let mut budget = Budget::new();
        Groups::new(&leaves, &mut budget)
            .and_then(|groups| {
                let nested = Nested {
                    leaves: &leaves,
                    groups: &groups,
                    valid: self.is_valid(),
                    collapse,
                };
                nested.group(0, 1, &mut budget)
            })
            .unwrap_or_else(|Exceeded| self.over_budget())
    }

    /// A format past its budget: the root unit, with one unit saying so.
    fn over_budget(&self) -> Value {
        json!({
            "valid": self.is_valid(),
            "keywordLocation": "",
            "instanceLocation": "",
            "errors": [{
                "valid": false,
                "keywordLocation": "",
                "instanceLocation": "",
                "error": OVER_BUDGET,
            }],
        })
    }
}

/// A unit the nested formats place: an annotation, or a top-level error with its causes.
#[derive(Clone, Copy)]
enum Leaf<'e> {
    Annotation(&'e Annotation),
    Error(&'e ValidationError),
}

impl<'e> Leaf<'e> {
    fn keyword_location(self) -> &'e str {
        match self {
            Leaf::Annotation(a) => a.keyword_location(),
            Leaf::Error(e) => e.keyword_location(),
        }
    }

    fn instance_location(self) -> &'e str {
        match self {
            Leaf::Annotation(a) => a.instance_location(),
            Leaf::Error(e) => e.instance_location(),
        }
    }
}

/// One group of units: a prefix of keyword locations (the subschema that holds their
/// keywords, or one above it). Its strings are slices of a leaf's, never copies, so that
/// grouping a deep result costs memory linear in its locations.
struct Group {
    /// The leaf whose keyword location this group's is a prefix of, and the prefix's
    /// bounds in it.
    leaf: u32,
    start: u32,
    end: u32,
    /// The instance location the group's units share (the longest common prefix of
    /// theirs, by whole segments): that many bytes of a leaf's instance location.
    instance: Option<(u32, u32)>,
    /// The leaves placed here, then the groups below, each in the order first met.
    units: Vec<u32>,
    children: Vec<u32>,
}

/// The groups of a nested format, the root first; a group's children come after it.
struct Groups {
    groups: Vec<Group>,
}

impl Groups {
    /// Places every leaf at its keyword's parent: the subschema that holds the keyword.
    fn new(leaves: &[Leaf<'_>], budget: &mut Budget) -> Result<Groups, Exceeded> {
        let root = Group {
            leaf: 0,
            start: 0,
            end: 0,
            instance: None,
            units: Vec::new(),
            children: Vec::new(),
        };
        let mut groups = vec![root];
        let mut found: HashMap<(u32, &str), u32> = HashMap::new();
        for (i, leaf) in leaves.iter().enumerate() {
            let i = i as u32;
            let kw = leaf.keyword_location();
            let mut at = 0u32;
            // The segments after the first `/`, but the last (the keyword itself).
            if let (Some(first), Some(last)) = (kw.find('/'), kw.rfind('/'))
                && first < last
            {
                let mut end = first;
                for segment in kw[first + 1..last].split('/') {
                    end += 1 + segment.len();
                    at = match found.get(&(at, segment)) {
                        Some(&child) => child,
                        None => {
                            budget.spend(GROUP_BYTES)?;
                            let child = groups.len() as u32;
                            groups.push(Group {
                                leaf: i,
                                start: first as u32,
                                end: end as u32,
                                instance: None,
                                units: Vec::new(),
                                children: Vec::new(),
                            });
                            groups[at as usize].children.push(child);
                            found.insert((at, segment), child);
                            child
                        }
                    };
                }
            }
            groups[at as usize].units.push(i);
        }
        // Each group's instance location, from its units' and its children's: children
        // come after their parent, so a walk backwards meets them first. (Each leaf's
        // location is compared in full at most once: where it stops being the first of
        // its group's.)
        for g in (1..groups.len()).rev() {
            let mut shared: Option<(u32, u32)> = None;
            let meet = |shared: &mut Option<(u32, u32)>, (leaf, len): (u32, u32)| {
                *shared = Some(match *shared {
                    None => (leaf, len),
                    Some((own, own_len)) => {
                        let a = &leaves[own as usize].instance_location()[..own_len as usize];
                        let b = &leaves[leaf as usize].instance_location()[..len as usize];
                        (own, common_pointer(a, b).len() as u32)
                    }
                });
            };
            for &u in &groups[g].units {
                let len = leaves[u as usize].instance_location().len() as u32;
                meet(&mut shared, (u, len));
            }
            for &c in &groups[g].children {
                if let Some(below) = groups[c as usize].instance {
                    meet(&mut shared, below);
                }
            }
            groups[g].instance = shared;
        }
        Ok(Groups { groups })
    }

    fn keyword_location<'e>(&self, leaves: &[Leaf<'e>], g: u32) -> &'e str {
        let group = &self.groups[g as usize];
        let kw = leaves
            .get(group.leaf as usize)
            .map_or("", |l| l.keyword_location());
        kw.get(group.start as usize..group.end as usize)
            .unwrap_or_default()
    }

    fn instance_location<'e>(&self, leaves: &[Leaf<'e>], g: u32) -> &'e str {
        match self.groups[g as usize].instance {
            Some((leaf, len)) => leaves[leaf as usize]
                .instance_location()
                .get(..len as usize)
                .unwrap_or_default(),
            None => "",
        }
    }
}

/// A nested format being written.
struct Nested<'a, 'e> {
    leaves: &'a [Leaf<'e>],
    groups: &'a Groups,
    valid: bool,
    collapse: bool,
}

impl Nested<'_, '_> {
    /// The unit of group `g` at nesting level `depth` (the root at 1). A level with a single
    /// item is collapsed into it (`detailed`), walked in a loop: only written units recurse,
    /// and no deeper than the budget.
    fn group(&self, mut g: u32, depth: usize, budget: &mut Budget) -> Result<Value, Exceeded> {
        let groups = &self.groups.groups;
        while self.collapse && g != 0 {
            let group = &groups[g as usize];
            match (group.units.as_slice(), group.children.as_slice()) {
                ([], [only]) => g = *only,
                ([only], []) => return self.leaf(*only, depth, budget),
                _ => break,
            }
        }
        if depth > OUTPUT_FORMAT_DEPTH {
            return Err(Exceeded);
        }
        let keyword_location = self.groups.keyword_location(self.leaves, g);
        let instance_location = self.groups.instance_location(self.leaves, g);
        budget.spend(UNIT_BYTES + (keyword_location.len() + instance_location.len()) as u64)?;
        let group = &groups[g as usize];
        let mut items = Vec::new();
        for &u in &group.units {
            items.push(self.leaf(u, depth + 1, budget)?);
        }
        for &c in &group.children {
            items.push(self.group(c, depth + 1, budget)?);
        }
        let mut out = Map::new();
        out.insert("valid".into(), Value::Bool(self.valid));
        out.insert("keywordLocation".into(), keyword_location.into());
        out.insert("instanceLocation".into(), instance_location.into());
        if !items.is_empty() {
            out.insert(
                if self.valid { "annotations" } else { "errors" }.into(),
                Value::Array(items),
            );
        }
        Ok(Value::Object(out))
    }

    fn leaf(&self, u: u32, depth: usize, budget: &mut Budget) -> Result<Value, Exceeded> {
        match self.leaves[u as usize] {
            Leaf::Annotation(a) => {
                if depth > OUTPUT_FORMAT_DEPTH {
                    return Err(Exceeded);
                }
                annotation_unit(a, budget)
            }
            Leaf::Error(e) => error_tree(e, depth, budget),
        }
    }
}

/// An error unit with its causes nested under `errors`, at nesting level `depth`.
fn error_tree(e: &ValidationError, depth: usize, budget: &mut Budget) -> Result<Value, Exceeded> {
    if depth > OUTPUT_FORMAT_DEPTH {
        return Err(Exceeded);
    }
    let mut unit = error_unit(e, budget)?;
    if !e.causes().is_empty()
        && let Value::Object(map) = &mut unit
    {
        let mut causes = Vec::new();
        for cause in e.causes() {
            causes.push(error_tree(cause, depth + 1, budget)?);
        }
        map.insert("errors".into(), Value::Array(causes));
    }
    Ok(unit)
}

/// The longest JSON pointer both `a` and `b` start with, by whole segments (`/a/b` and
/// `/a/bc` share `/a`).
fn common_pointer<'p>(a: &'p str, b: &str) -> &'p str {
    let mut end = 0;
    let mut at = 0;
    for (x, y) in a.bytes().zip(b.bytes()) {
        if x != y {
            break;
        }
        at += 1;
        if x == b'/' {
            // Every segment before this `/` is shared.
            end = at - 1;
        }
    }
    // `a` and `b` agree up to `at`: a segment ending there (at the end of one, before a
    // `/` in the other, or at both ends) is shared too.
    let ends = |p: &str| p.len() == at || p.as_bytes().get(at) == Some(&b'/');
    if ends(a) && ends(b) {
        end = at;
    }
    &a[..end]
}

#[cfg(test)]
mod tests {
    use super::common_pointer;
    use crate::{Annotation, Evaluation, Schema, ValidationError};
    use serde_json::{Map, Value, json};

    /// The nested formats as first written (a tree of owned strings, rendered by
    /// recursion): what the grouping must still give on every result within budget.
    fn reference(evaluation: &Evaluation, collapse: bool) -> Value {
        fn error_unit(e: &ValidationError) -> Value {
            json!({
                "valid": false,
                "keywordLocation": e.keyword_location(),
                "absoluteKeywordLocation": e.absolute_keyword_location(),
                "instanceLocation": e.instance_location(),
                "error": e.message(),
            })
        }
        fn annotation_unit(a: &Annotation) -> Value {
            json!({
                "valid": true,
                "keywordLocation": a.keyword_location(),
                "absoluteKeywordLocation": a.absolute_keyword_location(),
                "instanceLocation": a.instance_location(),
                "annotation": a.value(),
            })
        }
        fn error_tree(e: &ValidationError) -> Value {
            let mut unit = error_unit(e);
            if !e.causes().is_empty()
                && let Value::Object(map) = &mut unit
            {
                map.insert(
                    "errors".into(),
                    Value::Array(e.causes().iter().map(error_tree).collect()),
                );
            }
            unit
        }
        #[derive(Default)]
        struct Tree {
            children: Vec<(String, Tree)>,
            units: Vec<Value>,
            instance: Option<String>,
        }
        impl Tree {
            fn insert(&mut self, path: &[&str], instance: &str, unit: Value) {
                match path.split_first() {
                    None => self.units.push(unit),
                    Some((head, rest)) => {
                        let idx = match self.children.iter().position(|(k, _)| k == head) {
                            Some(i) => i,
                            None => {
                                self.children.push((head.to_string(), Tree::default()));
                                self.children.len() - 1
                            }
                        };
                        let child = &mut self.children[idx].1;
                        child.instance = Some(match child.instance.take() {
                            None => instance.to_string(),
                            Some(shared) => common_pointer(&shared, instance).to_string(),
                        });
                        child.insert(rest, instance, unit);
                    }
                }
            }
            fn render(self, kw: String, inst: String, valid: bool, collapse: bool) -> Value {
                let mut items: Vec<Value> = self.units;
                for (seg, child) in self.children {
                    let loc = format!("{kw}/{seg}");
                    let i = child.instance.clone().unwrap_or_default();
                    items.push(child.render(loc, i, valid, collapse));
                }
                if collapse && items.len() == 1 && !kw.is_empty() {
                    return items.pop().unwrap_or(Value::Null);
                }
                let mut out = Map::new();
                out.insert("valid".into(), Value::Bool(valid));
                out.insert("keywordLocation".into(), Value::String(kw));
                out.insert("instanceLocation".into(), Value::String(inst));
                if !items.is_empty() {
                    out.insert(
                        if valid { "annotations" } else { "errors" }.into(),
                        Value::Array(items),
                    );
                }
                Value::Object(out)
            }
        }
        let valid = evaluation.is_valid();
        let leaves: Vec<(String, String, Value)> = if valid {
            let a = evaluation.annotations().iter();
            a.map(|a| {
                let (k, i) = (a.keyword_location(), a.instance_location());
                (k.to_string(), i.to_string(), annotation_unit(a))
            })
            .collect()
        } else {
            let e = evaluation.errors().iter();
            e.map(|e| {
                let (k, i) = (e.keyword_location(), e.instance_location());
                (k.to_string(), i.to_string(), error_tree(e))
            })
            .collect()
        };
        let mut root = Tree::default();
        for (kw, inst, unit) in leaves {
            let segments: Vec<&str> = kw.split('/').skip(1).collect();
            let parents = segments.len().saturating_sub(1);
            root.insert(&segments[..parents], &inst, unit);
        }
        root.render(String::new(), String::new(), valid, collapse)
    }

    /// The grouping without owned strings gives what the first one gave, on every case of
    /// the official suite's 2020-12 tests that compiles without remote documents.
    #[test]
    fn nested_formats_match_the_first_rendering_on_the_suite() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/JSON-Schema-Test-Suite/tests/draft2020-12");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            panic!("the suite at {}", dir.display());
        };
        let mut compared = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let groups: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            for group in groups.as_array().into_iter().flatten() {
                let Ok(schema) = Schema::compile(&group["schema"]) else {
                    continue;
                };
                for test in group["tests"].as_array().into_iter().flatten() {
                    let evaluation = schema.evaluate(&test["data"]);
                    assert_eq!(
                        evaluation.detailed(),
                        reference(&evaluation, true),
                        "{path:?}"
                    );
                    assert_eq!(
                        evaluation.verbose(),
                        reference(&evaluation, false),
                        "{path:?}"
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "{compared}");
    }

    #[test]
    fn common_pointers_end_at_whole_segments() {
        for (a, b, shared) in [
            ("/a/b", "/a/c", "/a"),
            ("/a/b", "/a/bc", "/a"),
            ("/a/bc", "/a/b", "/a"),
            ("/a/b", "/a/b", "/a/b"),
            ("/a/b", "/a/b/c", "/a/b"),
            ("/a/b/c", "/a/b", "/a/b"),
            ("/a", "/b", ""),
            ("", "/a", ""),
            ("/x/0", "/y/0", ""),
            ("/", "/a", ""),
            ("/", "/", "/"),
        ] {
            assert_eq!(common_pointer(a, b), shared, "{a} {b}");
        }
    }
}
