//! How a schema is compiled: caps, registered documents, reference policy, formats.

use crate::{Limits, Schema, SchemaError};
use serde_json::Value;

/// A user-supplied format checker: whether the string conforms.
pub type FormatChecker = fn(&str) -> bool;

/// A JSON Schema dialect, as `$schema` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Draft {
    /// Draft 4 (`http://json-schema.org/draft-04/schema#`).
    Draft4,
    /// Draft 6 (`http://json-schema.org/draft-06/schema#`).
    Draft6,
    /// Draft 7 (`http://json-schema.org/draft-07/schema#`).
    Draft7,
    /// Draft 2019-09 (`https://json-schema.org/draft/2019-09/schema`).
    Draft201909,
    /// Draft 2020-12 (`https://json-schema.org/draft/2020-12/schema`), the default.
    Draft202012,
}

/// Settings for compiling a schema; build with [`Options::new`] and chain setters.
///
/// ```
/// use toolschema::{Limits, Options};
/// use serde_json::json;
///
/// let schema = Options::new()
///     .limits(Limits::default())
///     .refs_fragment_only(true)
///     .with_document("https://example.com/point", json!({"type": "object"}))
///     .compile(&json!({"$ref": "#/$defs/a", "$defs": {"a": {"type": "integer"}}}))?;
/// assert!(schema.is_valid(&json!(3)));
/// # Ok::<(), toolschema::SchemaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    pub(crate) limits: Limits,
    pub(crate) documents: Vec<(String, Value)>,
    pub(crate) refs_fragment_only: bool,
    pub(crate) assert_formats: bool,
    pub(crate) assert_content: bool,
    pub(crate) custom_formats: Vec<(String, FormatChecker)>,
    pub(crate) pattern_budget: usize,
    pub(crate) step_budget: (u64, u64),
    pub(crate) default_draft: Draft,
    pub(crate) shortcuts: bool,
    pub(crate) validate_schema: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options::new()
    }
}

impl Options {
    /// The defaults: [`Limits::default`], no registered documents, every reference that
    /// resolves inside the document accepted, formats as annotations, draft 2020-12.
    pub fn new() -> Options {
        Options {
            limits: Limits::default(),
            documents: Vec::new(),
            refs_fragment_only: false,
            assert_formats: false,
            assert_content: false,
            custom_formats: Vec::new(),
            pattern_budget: crate::pattern::DEFAULT_PATTERN_BUDGET,
            step_budget: (
                crate::EVALUATION_STEPS_MIN,
                crate::EVALUATION_STEPS_PER_VALUE,
            ),
            default_draft: Draft::Draft202012,
            shortcuts: true,
            validate_schema: false,
        }
    }

    /// Sets the caps on depth and subschema count.
    pub fn limits(mut self, limits: Limits) -> Options {
        self.limits = limits;
        self
    }

    /// Registers a document under `uri`, so that references to it resolve.
    ///
    /// Nothing is ever fetched from a network or a disk: this is the only way a reference
    /// outside the schema's own document can resolve. The document's own `$id` and embedded
    /// resources are registered too.
    pub fn with_document(mut self, uri: &str, document: Value) -> Options {
        self.documents.push((uri.to_string(), document));
        self
    }

    /// When true, `$ref` and `$dynamicRef` must start with `#`, as the MCP SDKs require.
    pub fn refs_fragment_only(mut self, yes: bool) -> Options {
        self.refs_fragment_only = yes;
        self
    }

    /// When true, `format` asserts (an unknown format is still only an annotation).
    pub fn assert_formats(mut self, yes: bool) -> Options {
        self.assert_formats = yes;
        self
    }

    /// When true, `contentEncoding: "base64"` and `contentMediaType: "application/json"`
    /// assert instead of only annotating.
    pub fn assert_content(mut self, yes: bool) -> Options {
        self.assert_content = yes;
        self
    }

    /// Registers a checker for a format name; it takes part when formats assert, and
    /// replaces a built-in checker of the same name.
    pub fn with_format(mut self, name: &str, check: fn(&str) -> bool) -> Options {
        self.custom_formats.push((name.to_string(), check));
        self
    }

    /// The backtracking budget of each pattern match; a match that exhausts it makes the
    /// instance invalid with [`ErrorKind::PatternBudgetExceeded`](crate::ErrorKind::PatternBudgetExceeded).
    pub fn pattern_budget(mut self, steps: usize) -> Options {
        self.pattern_budget = steps;
        self
    }

    /// The step budget of every validation call: `min` subschema evaluations (where a
    /// value may meet several subschemas), then `per_value` for each value of the
    /// instance, counted once the first `min` are spent (defaults:
    /// [`EVALUATION_STEPS_MIN`](crate::EVALUATION_STEPS_MIN),
    /// [`EVALUATION_STEPS_PER_VALUE`](crate::EVALUATION_STEPS_PER_VALUE)). Past it,
    /// `is_valid` answers `false` and the others report
    /// [`ErrorKind::EvaluationBudgetExceeded`](crate::ErrorKind::EvaluationBudgetExceeded).
    /// Raise it for trusted schemas that apply one subschema many times to a value;
    /// lower it to bound hostile ones more tightly.
    ///
    /// ```
    /// use toolschema::{ErrorKind, Options};
    /// use serde_json::json;
    ///
    /// // Two subschemas that both recurse into the first item: the work doubles per level.
    /// let doubling = json!({"allOf": [
    ///     {"prefixItems": [{"$ref": "#"}]},
    ///     {"prefixItems": [{"$ref": "#"}], "maxItems": 5}
    /// ]});
    /// let mut deep = json!([]);
    /// for _ in 0..12 {
    ///     deep = json!([deep]);
    /// }
    /// // 2^12 evaluations fit the default budget, not a budget of 1,000.
    /// assert!(Options::new().compile(&doubling)?.is_valid(&deep));
    /// let schema = Options::new().step_budget(1_000, 8).compile(&doubling)?;
    /// assert!(!schema.is_valid(&deep));
    /// let errors = schema.validate(&deep).unwrap_err();
    /// assert_eq!(*errors.iter().next().unwrap().kind(), ErrorKind::EvaluationBudgetExceeded);
    /// # Ok::<(), toolschema::SchemaError>(())
    /// ```
    pub fn step_budget(mut self, min: u64, per_value: u64) -> Options {
        self.step_budget = (min, per_value);
        self
    }

    /// The dialect of a schema that declares no `$schema` (default: 2020-12).
    pub fn default_dialect(mut self, draft: Draft) -> Options {
        self.default_draft = draft;
        self
    }

    /// When false, the compiler builds none of its shortcuts (the reference configuration):
    /// no node shapes or object and array specs, no discriminator dispatch, no `oneOf`
    /// exclusivity, no `allOf` fusion, no chains of `if`s, no unions of literals, no
    /// hoisted or inferred types, no evaluation order by cost, no long-`enum` tables, no
    /// statically resolved dynamic references: the general keyword loop alone decides.
    /// Verdicts and errors are the same either way (the tests and a fuzz target compare
    /// the two); only speed differs. Default: true.
    ///
    /// ```
    /// use toolschema::Options;
    /// use serde_json::json;
    ///
    /// let schema = json!({"oneOf": [{"const": "a"}, {"const": "b"}]});
    /// let fast = Options::new().compile(&schema)?;
    /// let reference = Options::new().shortcuts(false).compile(&schema)?;
    /// for instance in [json!("a"), json!("c")] {
    ///     assert_eq!(fast.is_valid(&instance), reference.is_valid(&instance));
    /// }
    /// # Ok::<(), toolschema::SchemaError>(())
    /// ```
    pub fn shortcuts(mut self, yes: bool) -> Options {
        self.shortcuts = yes;
        self
    }

    /// When true, `compile` first checks the schema against its dialect's official
    /// meta-schema (draft 4 to 2020-12, embedded in the crate) and refuses it with
    /// [`SchemaErrorKind::MetaSchemaViolation`](crate::SchemaErrorKind::MetaSchemaViolation),
    /// listing every violation with its location in
    /// [`SchemaError::violations`](crate::SchemaError::violations). A `$schema` naming no
    /// standard draft is left to the compiler.
    ///
    /// ```
    /// use toolschema::{Options, SchemaErrorKind};
    /// use serde_json::json;
    ///
    /// let bad = json!({"properties": {"a": {"type": "strin"}, "b": {"minLength": -1}}});
    /// let err = Options::new().validate_schema(true).compile(&bad).unwrap_err();
    /// assert_eq!(err.kind(), SchemaErrorKind::MetaSchemaViolation);
    /// let at: Vec<&str> = err.violations().iter().map(|v| v.location()).collect();
    /// assert_eq!(at, ["/properties/a/type", "/properties/b/minLength"]);
    /// ```
    pub fn validate_schema(mut self, yes: bool) -> Options {
        self.validate_schema = yes;
        self
    }

    /// Compiles `schema` with these options.
    ///
    /// # Errors
    /// A [`SchemaError`] saying what is wrong and where.
    pub fn compile(&self, schema: &Value) -> Result<Schema, SchemaError> {
        if self.validate_schema
            && let Err(meta) = crate::metaschema::check(schema, self.default_draft)
        {
            // The compiler's own errors (a bad `pattern`, an unresolved `$ref`) are not
            // meta-schema violations: report them beside the violations, once each.
            let mut all = meta.violations().to_vec();
            if let Err(e) = crate::compile::compile(schema, self) {
                for e in gather(schema, self, e) {
                    if !all.iter().any(|v| v.location() == e.location()) {
                        all.push(e);
                    }
                }
            }
            return Err(meta.with_violations(all));
        }
        match crate::compile::compile(schema, self) {
            Ok(compiled) => Ok(Schema {
                compiled: std::sync::Arc::new(compiled),
            }),
            Err(first) => {
                let all = gather(schema, self, first.clone());
                Err(if all.len() > 1 {
                    first.with_violations(all)
                } else {
                    first
                })
            }
        }
    }
}

/// The most independent compile errors one report gathers.
const MAX_GATHERED: usize = 16;
/// The deepest depth cap under which errors are gathered.
const GATHER_MAX_DEPTH: usize = 1024;
/// The most schema values the gathering may compile again in all (it compiles the schema
/// once more per error found), so a large schema's report stays cheap.
const GATHER_VALUES: usize = 1_000_000;

/// Every independent compile error of `schema`, `first` first: the keyword at fault is
/// taken out and the schema compiled again, until it compiles, an error repeats, a cap
/// (depth, size) is what failed, or [`MAX_GATHERED`] errors are found.
fn gather(schema: &Value, options: &Options, first: SchemaError) -> Vec<SchemaError> {
    use crate::SchemaErrorKind::{DepthExceeded, TooLarge, TooManySubschemas};
    let global = |e: &SchemaError| matches!(e.kind(), DepthExceeded | TooManySubschemas | TooLarge);
    // Counting and copying the document recurse: only where the depth cap keeps that shallow
    // (with caps lifted, for trusted schemas, the first error comes alone).
    if global(&first) || options.limits.max_depth > GATHER_MAX_DEPTH {
        return vec![first];
    }
    let size = count_values(schema);
    let rounds = (GATHER_VALUES / size.max(1)).min(MAX_GATHERED - 1);
    let mut doc = schema.clone();
    let mut all = vec![first];
    for _ in 0..rounds {
        let Some(last) = all.last() else { break };
        if !remove_keyword(&mut doc, last.location()) {
            break;
        }
        match crate::compile::compile(&doc, options) {
            Ok(_) => break,
            Err(e) if global(&e) || all.iter().any(|x| x.location() == e.location()) => break,
            Err(e) => all.push(e),
        }
    }
    all
}

/// Values in a document that compiled up to an error (so within a depth cap of at most
/// [`GATHER_MAX_DEPTH`]).
fn count_values(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count_values).sum(),
        Value::Object(members) => members.values().map(count_values).sum(),
        _ => 0,
    }
}

/// Takes out the keyword a compile error's location (a JSON Pointer into the root
/// document) points at, or at an item of: whether anything was taken out.
fn remove_keyword(doc: &mut Value, location: &str) -> bool {
    let Some(rest) = location.strip_prefix('/') else {
        return false;
    };
    let tokens: Vec<String> = rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    // The last token that names a member of an object is the keyword.
    let mut parents = vec![&*doc];
    for t in &tokens {
        let Some(here) = parents.last().copied() else {
            return false;
        };
        let next = match here {
            Value::Object(m) => m.get(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        };
        match next {
            Some(next) => parents.push(next),
            None => return false,
        }
    }
    let Some(k) = (0..tokens.len()).rev().find(|&k| parents[k].is_object()) else {
        return false;
    };
    let mut at = doc;
    for t in &tokens[..k] {
        at = match at {
            Value::Object(m) => match m.get_mut(t) {
                Some(v) => v,
                None => return false,
            },
            Value::Array(a) => match t.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(v) => v,
                None => return false,
            },
            _ => return false,
        };
    }
    at.as_object_mut()
        .is_some_and(|m| m.remove(&tokens[k]).is_some())
}

impl Options {
    /// The first setting of `self` and `other` that can make a schema's verdicts differ,
    /// or `None` when they agree on all of them ([`shortcuts`](Options::shortcuts) never
    /// changes a verdict). Custom formats are functions that cannot be compared: either
    /// side having one counts as a difference.
    pub(crate) fn verdict_difference(&self, other: &Options) -> Option<&'static str> {
        if self.assert_formats != other.assert_formats {
            return Some("assert_formats");
        }
        if self.assert_content != other.assert_content {
            return Some("assert_content");
        }
        if self.default_draft != other.default_draft {
            return Some("default_dialect");
        }
        if !self.custom_formats.is_empty() || !other.custom_formats.is_empty() {
            return Some("with_format (custom formats)");
        }
        if self.documents != other.documents {
            return Some("with_document (registered documents)");
        }
        if self.refs_fragment_only != other.refs_fragment_only {
            return Some("refs_fragment_only");
        }
        if self.limits != other.limits {
            return Some("limits");
        }
        if self.pattern_budget != other.pattern_budget {
            return Some("pattern_budget");
        }
        if self.step_budget != other.step_budget {
            return Some("step_budget");
        }
        if self.validate_schema != other.validate_schema {
            return Some("validate_schema");
        }
        None
    }
}
