//! Standard output formats (JSON Schema 2020-12, "Output Formatting"): `flag`, `basic`,
//! `detailed` and `verbose`, and the annotations behind them.
//!
//! Like every rendering in this crate, the output never contains an instance value: error
//! messages state the schema's expectation, and annotations carry only schema values
//! (property names found only in the instance show up as `true`, never listed).

use crate::validate::RawAnnotation;
use crate::{Schema, ValidationError};
use serde_json::{Map, Value, json};

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

/// Most bytes of locations (instance, keyword, absolute, schema) one [`Schema::evaluate`]
/// keeps for its errors and annotations before it stops with
/// [`ErrorKind::EvaluationBudgetExceeded`](crate::ErrorKind::EvaluationBudgetExceeded):
/// every annotation holds its full locations, which grow with the instance's depth.
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

/// Every unit of `e` and its causes, depth first.
fn flatten<'e>(e: &'e ValidationError, out: &mut Vec<&'e ValidationError>) {
    out.push(e);
    for cause in e.causes() {
        flatten(cause, out);
    }
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
    /// `anyOf`/`oneOf`), or every annotation when valid.
    pub fn basic(&self) -> Value {
        let mut out = Map::new();
        out.insert("valid".into(), Value::Bool(self.is_valid()));
        out.insert("keywordLocation".into(), Value::String(String::new()));
        out.insert("instanceLocation".into(), Value::String(String::new()));
        if self.is_valid() {
            if !self.annotations.is_empty() {
                let units = self.annotations.iter().map(annotation_unit).collect();
                out.insert("annotations".into(), Value::Array(units));
            }
        } else {
            let mut all = Vec::new();
            for e in &self.errors {
                flatten(e, &mut all);
            }
            out.insert(
                "errors".into(),
                Value::Array(all.into_iter().map(error_unit).collect()),
            );
        }
        Value::Object(out)
    }

    /// Output units nested as the schema is: each unit's children are the units whose
    /// keyword location lies below it; a level with a single child is collapsed into it.
    pub fn detailed(&self) -> Value {
        self.hierarchical(true)
    }

    /// Like [`Evaluation::detailed`], without collapsing any level.
    pub fn verbose(&self) -> Value {
        self.hierarchical(false)
    }

    fn hierarchical(&self, collapse: bool) -> Value {
        let valid = self.is_valid();
        let leaves: Vec<(String, String, Value)> = if valid {
            self.annotations
                .iter()
                .map(|a| {
                    (
                        a.keyword_location().to_string(),
                        a.instance_location().to_string(),
                        annotation_unit(a),
                    )
                })
                .collect()
        } else {
            self.errors
                .iter()
                .map(|e| {
                    (
                        e.keyword_location().to_string(),
                        e.instance_location().to_string(),
                        error_tree(e),
                    )
                })
                .collect()
        };
        let mut root = Tree::default();
        for (kw, inst, unit) in leaves {
            let segments: Vec<&str> = kw.split('/').skip(1).collect();
            // The unit sits at its keyword's parent: the subschema that holds the keyword.
            let parents = segments.len().saturating_sub(1);
            root.insert(&segments[..parents], &inst, unit);
        }
        root.render(String::new(), String::new(), valid, collapse)
    }
}

/// An error unit with its causes nested under `errors`.
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

/// Units grouped by subschema location.
#[derive(Default)]
struct Tree {
    children: Vec<(String, Tree)>,
    units: Vec<Value>,
    /// The instance location the group's units share: the longest common prefix of
    /// theirs, by whole segments (`None` until a unit is inserted).
    instance: Option<String>,
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

impl Tree {
    fn insert(&mut self, path: &[&str], instance: &str, unit: Value) {
        match path.split_first() {
            None => {
                self.units.push(unit);
            }
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

    fn render(
        self,
        keyword_location: String,
        instance_location: String,
        valid: bool,
        collapse: bool,
    ) -> Value {
        let mut items: Vec<Value> = self.units;
        for (seg, child) in self.children {
            let loc = format!("{keyword_location}/{seg}");
            let inst = child.instance.clone().unwrap_or_default();
            items.push(child.render(loc, inst, valid, collapse));
        }
        if collapse && items.len() == 1 && !keyword_location.is_empty() {
            return items.pop().unwrap_or(Value::Null);
        }
        let mut out = Map::new();
        out.insert("valid".into(), Value::Bool(valid));
        out.insert("keywordLocation".into(), Value::String(keyword_location));
        out.insert("instanceLocation".into(), Value::String(instance_location));
        if !items.is_empty() {
            out.insert(
                if valid { "annotations" } else { "errors" }.into(),
                Value::Array(items),
            );
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::common_pointer;

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
