//! What the validator generator (`toolschema-codegen`, `toolschema-macros`) needs from the
//! engine. **Not public API**: hidden, unstable, for the generated code and its generator
//! only; anything here may change in any release.
//!
//! Two halves:
//! - [`plan`]: the engine's compiled form of a schema (the reference configuration,
//!   `Options::shortcuts(false)`, where the general keyword loop decides everything), read
//!   out as plain data the generator turns into Rust. The rules stay written once: the
//!   generator copies constants (names, bounds, lengths, node numbers) out of the compiled
//!   form, and what it does not compile into code is an [`Step::Engine`] keyword the
//!   generated code hands back to the engine by its index.
//! - The functions generated code calls at run time: the engine's own keyword code at an
//!   index of the same compiled form ([`keyword`], [`node`]), its regular expressions by
//!   pattern index ([`pattern`], [`pattern_name`]), the type, length and `multipleOf`
//!   rules ([`type_admits`], [`max_length`], [`min_length`], [`multiple_of`]), the step
//!   budget ([`Steps`]) and the stack guard ([`deep`]).

use crate::json::{JsonType, TypeSet};
use crate::schema::{Compiled, Keyword, NodeId};
use crate::validate;
pub use serde_json::{Map, Number, Value};

/// The options a generated validator compiles its schema with: those of the runtime
/// engine that change verdicts and that a build-time schema can fix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Config {
    /// `Options::assert_formats`.
    pub assert_formats: bool,
    /// `Options::assert_content`.
    pub assert_content: bool,
    /// `Options::default_dialect`, as a draft number (4, 6, 7, 2019, 2020; 0: default).
    pub draft: u16,
}

impl Config {
    /// The reference configuration of these options: the form [`plan`] reads and the
    /// generated code's [`keyword`] and [`node`] calls index.
    pub fn reference(&self) -> crate::Options {
        self.options().shortcuts(false)
    }

    /// These options with the engine's shortcuts (for the error path).
    pub fn options(&self) -> crate::Options {
        let draft = match self.draft {
            4 => Some(crate::Draft::Draft4),
            6 => Some(crate::Draft::Draft6),
            7 => Some(crate::Draft::Draft7),
            2019 => Some(crate::Draft::Draft201909),
            2020 => Some(crate::Draft::Draft202012),
            _ => None,
        };
        let mut o = crate::Options::new()
            .assert_formats(self.assert_formats)
            .assert_content(self.assert_content);
        if let Some(d) = draft {
            o = o.default_dialect(d);
        }
        o
    }
}

/// One keyword of a node, as the generator sees it. `k` of the node's entry in
/// [`NodePlan::keywords`] is its index in the compiled form.
#[derive(Debug, Clone)]
pub enum Step {
    /// The `false` schema.
    False,
    /// `type` (the set's bits: [`type_admits`] decides numbers; other kinds by `has`).
    Type {
        /// The set, for [`type_admits`].
        bits: u8,
        /// null, boolean, string, array, object admitted.
        kinds: [bool; 5],
        /// Some number admitted without a check (`number` in the set).
        any_number: bool,
        /// Integers admitted (decided by [`type_admits`]).
        integer: bool,
    },
    /// `const` or `enum` of strings only: one of these.
    Strings(Vec<String>),
    /// `minimum` (0), `exclusiveMinimum` (1), `maximum` (2), `exclusiveMaximum` (3): the
    /// integer instance test (`>= ceil`, `> floor`, `<= floor`, `< ceil`), the float
    /// one when the limit is an exact `f64`; anything else goes to [`keyword`].
    Bound {
        /// Which of the four.
        kind: u8,
        /// The greatest integer at most the limit.
        floor: i128,
        /// The least integer at least the limit.
        ceil: i128,
        /// The limit as an exact `f64`.
        float: Option<f64>,
    },
    /// `const` or `enum` of other values: the engine's equality decides ([`keyword`]).
    /// The values as JSON text, for the generator to tell two apart.
    Equals(String),
    /// `multipleOf` (number instances): the divisor's index in the compiled form's limits,
    /// decided by the engine's rule ([`multiple_of`]).
    MultipleOf(u32),
    /// `maxLength`.
    MaxLength(u64),
    /// `minLength`.
    MinLength(u64),
    /// `maxItems`.
    MaxItems(u64),
    /// `minItems`.
    MinItems(u64),
    /// `maxProperties`.
    MaxProperties(u64),
    /// `minProperties`.
    MinProperties(u64),
    /// `required`.
    Required(Vec<String>),
    /// `properties`: (name, node).
    Properties(Vec<(String, u32)>),
    /// `additionalProperties` with its siblings `properties` and `patternProperties`: a
    /// declared name's node and the nodes of the patterns matching it; a name neither
    /// declared nor matched, `node` (`None`: the `false` schema).
    Additional {
        /// The declared names and their nodes.
        properties: Vec<(String, u32)>,
        /// The sibling `patternProperties`: (pattern index, node).
        patterns: Vec<(u32, u32)>,
        /// The schema of the other names; `None` when it is `false`.
        node: Option<u32>,
    },
    /// `pattern` (string instances): the pattern's index in the compiled form, matched by
    /// the engine's own matcher ([`pattern`]).
    Pattern(u32),
    /// `patternProperties` (with no sibling `additionalProperties`): (pattern index, node);
    /// every property whose name a pattern matches ([`pattern_name`]) against its node.
    PatternProperties(Vec<(u32, u32)>),
    /// `propertyNames`: every property name, as a string, against the node.
    PropertyNames(u32),
    /// `dependentSchemas` (or `dependencies` of schemas): (name, node); the object
    /// against the node when it has the name.
    DependentSchemas(Vec<(String, u32)>),
    /// `contains` with its bounds (`minContains`, `maxContains`): the array has at least
    /// `min` items valid against `node`, at most `max` when set.
    Contains {
        /// The subschema.
        node: u32,
        /// The fewest matching items.
        min: u64,
        /// The most matching items.
        max: Option<u64>,
    },
    /// `prefixItems` (or `items` as an array): the nodes by position.
    PrefixItems(Vec<u32>),
    /// `items`/`additionalItems`: `node` for every item from `skip` on.
    Items {
        /// The subschema.
        node: u32,
        /// The first index it applies to.
        skip: u32,
    },
    /// `allOf`.
    AllOf(Vec<u32>),
    /// `anyOf`.
    AnyOf(Vec<u32>),
    /// `oneOf`.
    OneOf(Vec<u32>),
    /// `not`.
    Not(u32),
    /// `if`/`then`/`else` (`None`: absent).
    If {
        /// `if`.
        cond: u32,
        /// `then`.
        then: Option<u32>,
        /// `else`.
        els: Option<u32>,
    },
    /// `$ref` (or a `$dynamicRef` that resolves statically).
    Ref(u32),
    /// A keyword the engine evaluates ([`keyword`]): `format`, `uniqueItems`, `dependentRequired`, content, a
    /// bound whose digits may parse differently (the engine's own rules, shared), and a
    /// `$dynamicRef` that reads the dynamic scope (`delegates` is true).
    Engine {
        /// Whether it applies subschemas (the generated code then delegates them).
        delegates: bool,
        /// The one kind of instance it looks at, when it looks at one only (the others
        /// pass it): [`NUMBER`], [`STRING`], [`ARRAY`] or [`OBJECT`].
        only: Option<u8>,
    },
}

/// [`Step::Engine`]'s kind of number instances.
pub const NUMBER: u8 = 2;
/// [`Step::Engine`]'s kind of string instances.
pub const STRING: u8 = 3;
/// [`Step::Engine`]'s kind of array instances.
pub const ARRAY: u8 = 4;
/// [`Step::Engine`]'s kind of object instances.
pub const OBJECT: u8 = 5;

/// A node of the plan.
#[derive(Debug, Clone)]
pub struct NodePlan {
    /// Its keywords: (index in the compiled form, step). Empty when `whole` is set.
    pub keywords: Vec<(u32, Step)>,
    /// The node needs the engine as a whole (`unevaluatedProperties`/`unevaluatedItems`
    /// read the annotations of its other keywords): the generated code calls [`node`].
    pub whole: bool,
}

/// A schema's compiled form, for the generator.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The root node.
    pub root: u32,
    /// Every node, by number.
    pub nodes: Vec<NodePlan>,
    /// Some `$dynamicRef`/`$recursiveRef` reads the dynamic scope: the generated code
    /// calls the engine for the whole schema.
    pub dynamic: bool,
    /// The compiled form's size (nodes, keywords), checked when the generated code first
    /// compiles its reference form: a mismatch (another engine version) sends every call
    /// to the engine.
    pub fingerprint: (u32, u32),
}

/// Reads the reference form of `schema` compiled with `config` out as a [`Plan`].
///
/// # Errors
/// The schema's compile error.
pub fn plan(schema: &Value, config: &Config) -> Result<Plan, crate::SchemaError> {
    let compiled = config.reference().compile(schema)?;
    Ok(plan_of(&compiled.compiled))
}

fn plan_of(c: &Compiled) -> Plan {
    let id = |n: NodeId| n.0;
    let opt = |n: NodeId| (!n.is_none()).then_some(n.0);
    let names = |span: crate::schema::Span| -> Vec<String> {
        c.strings[span.range()]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let props = |span: crate::schema::Span| -> Vec<(String, u32)> {
        c.properties[span.range()]
            .iter()
            .map(|(n, node)| (n.to_string(), node.0))
            .collect()
    };
    let pattern_props = |span: crate::schema::Span| -> Vec<(u32, u32)> {
        c.pattern_properties[span.range()]
            .iter()
            .map(|(p, node)| (p.index() as u32, node.0))
            .collect()
    };
    let strings_of = |values: &[Value]| -> Option<Vec<String>> {
        values
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let mut nodes = Vec::with_capacity(c.nodes.len());
    for n in &c.nodes {
        let range = n.keywords.range();
        let kws = &c.keywords[range.clone()];
        let whole = kws.iter().any(|k| {
            matches!(
                k,
                Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_)
            )
        });
        let mut keywords = Vec::new();
        // (The reference form hoists no `type`: `n.types` is every type there; checked
        // anyway, since a narrower set would be a test the node makes.)
        if !whole && n.types != TypeSet::all() {
            keywords.push((u32::MAX, type_step(n.types)));
        }
        for (offset, kw) in kws.iter().enumerate() {
            if whole {
                break;
            }
            let k = (range.start + offset) as u32;
            let engine = |delegates| Step::Engine {
                delegates,
                only: None,
            };
            let engine_on = |delegates, kind| Step::Engine {
                delegates,
                only: Some(kind),
            };
            let step = match *kw {
                Keyword::False => Step::False,
                Keyword::Type(set) => type_step(set),
                Keyword::Const(i) => match &c.values[i.index()] {
                    Value::String(s) => Step::Strings(vec![s.clone()]),
                    v => Step::Equals(v.to_string()),
                },
                Keyword::Enum(span) => match strings_of(&c.values[span.range()]) {
                    Some(all) => Step::Strings(all),
                    None => Step::Equals(Value::Array(c.values[span.range()].to_vec()).to_string()),
                },
                Keyword::Maximum(i)
                | Keyword::ExclusiveMaximum(i)
                | Keyword::Minimum(i)
                | Keyword::ExclusiveMinimum(i) => {
                    let l = &c.limits[i.index()];
                    if !plain_number(&l.number) {
                        // (Its digits may round otherwise where the generated code is
                        // compiled than where it runs: the engine decides, as it parses.)
                        keywords.push((k, engine_on(false, NUMBER)));
                        continue;
                    }
                    let kind = match kw {
                        Keyword::Minimum(_) => 0,
                        Keyword::ExclusiveMinimum(_) => 1,
                        Keyword::Maximum(_) => 2,
                        _ => 3,
                    };
                    Step::Bound {
                        kind,
                        floor: l.floor,
                        ceil: l.ceil,
                        float: l.float,
                    }
                }
                Keyword::MaxLength(m) => Step::MaxLength(m),
                Keyword::MinLength(m) => Step::MinLength(m),
                Keyword::MaxItems(m) => Step::MaxItems(m),
                Keyword::MinItems(m) => Step::MinItems(m),
                Keyword::MaxProperties(m) => Step::MaxProperties(m),
                Keyword::MinProperties(m) => Step::MinProperties(m),
                Keyword::Required(span) => Step::Required(names(span)),
                Keyword::Properties(span) => Step::Properties(props(span)),
                Keyword::AdditionalProperties(i) => {
                    let a = c.additional[i.index()];
                    Step::Additional {
                        properties: props(a.properties),
                        patterns: pattern_props(a.patterns),
                        node: (!c.is_false_schema(a.node)).then_some(a.node.0),
                    }
                }
                Keyword::PatternProperties(span) => Step::PatternProperties(pattern_props(span)),
                Keyword::PropertyNames(n) => Step::PropertyNames(id(n)),
                Keyword::DependentSchemas(span) => Step::DependentSchemas(
                    c.dependent_schemas[span.range()]
                        .iter()
                        .map(|(name, n)| (name.to_string(), n.0))
                        .collect(),
                ),
                Keyword::Contains(i) => match c.contains.get(i.index()) {
                    Some(spec) => Step::Contains {
                        node: spec.node.0,
                        min: spec.min,
                        max: spec.max,
                    },
                    None => engine_on(true, ARRAY),
                },
                Keyword::Pattern(i) => Step::Pattern(i.index() as u32),
                Keyword::PrefixItems(span) => {
                    Step::PrefixItems(c.node_list(span).iter().map(|&n| id(n)).collect())
                }
                Keyword::Items { node, skip } => Step::Items {
                    node: id(node),
                    skip,
                },
                Keyword::AllOf(span) => {
                    Step::AllOf(c.node_list(span).iter().map(|&n| id(n)).collect())
                }
                Keyword::AnyOf(span) => {
                    Step::AnyOf(c.node_list(span).iter().map(|&n| id(n)).collect())
                }
                Keyword::OneOf(span) => {
                    Step::OneOf(c.node_list(span).iter().map(|&n| id(n)).collect())
                }
                Keyword::Not(n) => Step::Not(id(n)),
                Keyword::If { cond, then, els } => Step::If {
                    cond: id(cond),
                    then: opt(then),
                    els: opt(els),
                },
                Keyword::Ref(n) => Step::Ref(id(n)),
                Keyword::DynamicRef(i) => {
                    let d = c.dynamic_refs[i.index()];
                    if d.anchor.is_none() || !c.dynamic_scope {
                        Step::Ref(id(d.target))
                    } else {
                        // (The whole schema goes to the engine: see `Plan::dynamic`.)
                        engine(true)
                    }
                }
                Keyword::MultipleOf(i) => Step::MultipleOf(i.index() as u32),
                Keyword::Content(_) => engine_on(false, STRING),
                // (`format` checks strings and numbers.)
                Keyword::Format(_) => engine(false),
                Keyword::UniqueItems => engine_on(false, ARRAY),
                Keyword::DependentRequired(_) => engine_on(false, OBJECT),
                Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_) => {
                    unreachable!("a node with unevaluated* is whole")
                }
            };
            keywords.push((k, step));
        }
        nodes.push(NodePlan { keywords, whole });
    }
    Plan {
        root: c.root.0,
        nodes,
        dynamic: c.dynamic_scope,
        fingerprint: (c.nodes.len() as u32, c.keywords.len() as u32),
    }
}

/// Whether every JSON parser reads `n` as the same `f64` (an integer of `i64`/`u64`, or a
/// float of at most 15 significant digits within 10^±22, which parsers compute exactly):
/// its constants may then be copied into generated code. The generator and the program
/// it generates for may parse with differently configured `serde_json`s.
fn plain_number(n: &Number) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    let Some(f) = n.as_f64() else {
        return false;
    };
    if f == 0.0 {
        return true;
    }
    let text = format!("{f:e}");
    let Some((mantissa, exp)) = text.trim_start_matches('-').split_once('e') else {
        return false;
    };
    let digits = mantissa.chars().filter(char::is_ascii_digit).count() as i64;
    let Ok(exp) = exp.parse::<i64>() else {
        return false;
    };
    digits <= 15 && (exp - (digits - 1)).abs() <= 22
}

fn type_step(set: TypeSet) -> Step {
    Step::Type {
        bits: set_bits(set),
        kinds: [
            set.contains(JsonType::Null),
            set.contains(JsonType::Boolean),
            set.contains(JsonType::String),
            set.contains(JsonType::Array),
            set.contains(JsonType::Object),
        ],
        any_number: set.contains(JsonType::Number),
        integer: set.contains(JsonType::Integer),
    }
}

fn set_bits(set: TypeSet) -> u8 {
    // (TypeSet's byte, through its public API: transmute-free.)
    let mut bits = 0u8;
    for (i, ty) in JsonType::ALL.iter().enumerate() {
        if set.contains(*ty) {
            bits |= 1 << i;
        }
    }
    if set.is_strict() {
        bits |= 1 << 7;
    }
    bits
}

fn set_of(bits: u8) -> TypeSet {
    let mut set = TypeSet::empty();
    for (i, ty) in JsonType::ALL.iter().enumerate() {
        if bits & (1 << i) != 0 {
            set = set.with(*ty);
        }
    }
    if bits & (1 << 7) != 0 {
        set = set.strict_integers();
    }
    set
}

/// Whether the number `v` satisfies `type` with the set `bits` (from [`Step::Type`]):
/// the engine's rule (`1.0` is an integer, except under draft 4).
#[inline]
pub fn type_admits(bits: u8, v: &Value) -> bool {
    validate::type_verdict(set_of(bits), v).is_ok()
}

/// `maxLength`: the engine's count of code points.
#[inline(always)]
pub fn max_length(s: &str, max: u64) -> bool {
    validate::max_length_of(s, max)
}

/// `minLength`: the engine's count of code points.
#[inline(always)]
pub fn min_length(s: &str, min: u64) -> bool {
    validate::min_length_of(s, min)
}

/// A generated validator's compiled forms, compiled on first use from the embedded schema.
#[derive(Debug)]
pub struct Forms {
    /// The reference form, whose keywords and nodes the generated code indexes; `None`
    /// when it is not the form the code was generated from (every call then goes to
    /// `fast`).
    pub reference: Option<crate::Schema>,
    /// The form with the engine's shortcuts, for errors and for whatever the generated
    /// code hands over whole.
    pub fast: crate::Schema,
}

impl Forms {
    /// Compiles `schema` both ways (at the first call of a generated validator).
    ///
    /// # Panics
    /// If the schema does not compile: the generator compiled it, so only another engine
    /// version can get here.
    pub fn new(schema: &str, config: Config, fingerprint: (u32, u32)) -> Forms {
        let value: Value = match serde_json::from_str(schema) {
            Ok(v) => v,
            Err(e) => panic!("toolschema: an embedded schema does not parse: {e}"),
        };
        let fast = match config.options().compile(&value) {
            Ok(s) => s,
            Err(e) => panic!("toolschema: an embedded schema does not compile: {e}"),
        };
        let reference = config.reference().compile(&value).ok().filter(|r| {
            let c = &r.compiled;
            (c.nodes.len() as u32, c.keywords.len() as u32) == fingerprint
        });
        Forms { reference, fast }
    }
}

/// The engine's verdict on keyword `k` of `node` (indices of the reference form) for `v`,
/// failing fast.
#[inline(never)]
pub fn keyword(schema: &crate::Schema, node: u32, k: u32, v: &Value) -> bool {
    validate::keyword_valid(&schema.compiled, NodeId(node), k as usize, v)
}

/// The engine's verdict on `node` (of the reference form) for `v`.
#[inline(never)]
pub fn node(schema: &crate::Schema, node: u32, v: &Value) -> bool {
    validate::node_valid(&schema.compiled, NodeId(node), v)
}

/// Pattern work counted toward a generated call's [`Steps`] (as the engine counts it
/// toward its own budget).
struct StepMeter(std::cell::Cell<u64>);

impl crate::pattern::Meter for StepMeter {
    #[inline]
    fn charge(&self, steps: u64) -> bool {
        let left = self.0.get();
        self.0.set(left.saturating_sub(steps));
        steps <= left
    }
}

/// The outcome of a match as a verdict: a budget exceeded (or a pattern index this form
/// does not have) spends the call's [`Steps`], so that the engine decides the call.
#[inline(always)]
fn matched(outcome: crate::pattern::MatchOutcome, meter: StepMeter, st: &mut Steps) -> bool {
    match outcome {
        crate::pattern::MatchOutcome::Match => {
            st.0 = meter.0.get();
            true
        }
        crate::pattern::MatchOutcome::NoMatch => {
            st.0 = meter.0.get();
            false
        }
        crate::pattern::MatchOutcome::BudgetExceeded => {
            st.0 = 0;
            false
        }
    }
}

/// `pattern`: whether pattern `p` of `schema` (the reference form) matches somewhere in
/// `s`, by the engine's matcher. Its work counts toward `st`; past it, `st` is spent.
#[inline]
pub fn pattern(schema: &crate::Schema, p: u32, s: &str, st: &mut Steps) -> bool {
    let Some(pat) = schema.compiled.patterns.get(p as usize) else {
        st.0 = 0;
        return false;
    };
    let meter = StepMeter(std::cell::Cell::new(st.0));
    let outcome = pat.find_in(s, &meter);
    matched(outcome, meter, st)
}

/// [`pattern`] for a property name against `patternProperties`: most names do not match,
/// and the pattern's first bytes turn most away before its matcher runs.
#[inline]
pub fn pattern_name(schema: &crate::Schema, p: u32, key: &str, st: &mut Steps) -> bool {
    let Some(pat) = schema.compiled.patterns.get(p as usize) else {
        st.0 = 0;
        return false;
    };
    if pat.rules_out_name(key) {
        return false;
    }
    let meter = StepMeter(std::cell::Cell::new(st.0));
    let outcome = pat.find_in(key, &meter);
    matched(outcome, meter, st)
}

/// `multipleOf`: whether the number `n` is a multiple of divisor `i` of `schema` (the
/// reference form), by the engine's rule. `false` for an index the form does not have.
#[inline]
pub fn multiple_of(schema: &crate::Schema, i: u32, n: &Number) -> bool {
    match schema.compiled.limits.get(i as usize) {
        Some(m) => crate::json::is_multiple_of_decimal(n, &m.number, m.decimal),
        None => false,
    }
}

/// The step budget of a generated call: one step per reference followed (the only way a
/// finite schema applies subschemas without bound). Spent, the generated code answers
/// `false` at once and the caller asks the engine, whose budget then decides.
#[derive(Debug)]
pub struct Steps(pub u64);

impl Steps {
    /// A call's budget.
    #[inline(always)]
    pub fn new() -> Steps {
        Steps(crate::EVALUATION_STEPS_MIN)
    }

    /// Takes a step; `false` once spent.
    #[inline(always)]
    pub fn step(&mut self) -> bool {
        match self.0 {
            0 => false,
            _ => {
                self.0 -= 1;
                true
            }
        }
    }

    /// Whether the budget ran out.
    #[inline(always)]
    pub fn spent(&self) -> bool {
        self.0 == 0
    }
}

impl Default for Steps {
    fn default() -> Steps {
        Steps::new()
    }
}

/// Runs `f` with enough stack: on a fresh segment when the current one is nearly used up
/// (a reference that recurses, on a deep instance).
#[inline(always)]
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn type_bits_round_trip() {
        for set in [
            TypeSet::empty().with(JsonType::Integer),
            TypeSet::empty()
                .with(JsonType::Integer)
                .with(JsonType::String)
                .strict_integers(),
            TypeSet::all(),
        ] {
            assert!(set_of(set_bits(set)) == set);
        }
    }

    #[test]
    fn plan_reads_the_reference_form() {
        let p = plan(
            &json!({"type": "object", "properties": {"a": {"pattern": "x"}}, "required": ["a"]}),
            &Config::default(),
        )
        .unwrap();
        let root = &p.nodes[p.root as usize];
        assert!(matches!(root.keywords[0].1, Step::Type { .. }));
        assert!(
            root.keywords
                .iter()
                .any(|(_, s)| matches!(s, Step::Required(r) if r == &["a"]))
        );
        assert!(!p.dynamic);
    }
}
