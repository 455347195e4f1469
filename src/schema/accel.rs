//! The accelerator tables' types: what the compiler's shortcuts (`compile::accel`) build
//! for the fail-fast path. Under `Options::shortcuts(false)` none is built; the semantic
//! program (nodes, keywords and the side tables they index) is in the parent module.

use super::*;

/// Node shapes the fail-fast path checks in small functions of their own, with no
/// dispatch through the general keyword loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// No keyword to dispatch: the node's types decide (`{}`, `{"type": "string"}`).
    Empty,
    /// A `oneOf`/`anyOf` of type-only branches and nothing else (`{"anyOf": [{"type":
    /// "string"}, {"type": "null"}]}`): the node's `types` hold their union (disjoint for
    /// `oneOf`), which decides alone. Also a `not` of a type-only schema and nothing else
    /// (`{"not": {"type": "null"}}`): `types` holds the types it rejects.
    TypeUnion,
    /// Assertion keywords only (`{"type": "string", "maxLength": 64}`): no scope to extend,
    /// no subschema, so no stack check.
    Leaf,
    /// An array of type-only items with optional bounds (`{"type": "array", "minItems": 2,
    /// "items": {"type": "number"}}`): the body holds only `minItems`, `maxItems` and an
    /// `items` from the first item whose schema is a non-strict `type` alone.
    TypedArray,
    /// A node that only refers elsewhere (`{"$ref": "#/$defs/a"}`, maybe typed), in a
    /// schema that keeps no dynamic scope, or to a target in its own resource: the
    /// fail-fast path goes on to the target by a small call. (The error path takes the
    /// reference, for its locations.) Also a `oneOf`/`anyOf` of literals (each branch an
    /// `enum` or a `const`): the target is a node of one `enum` of all their values (see
    /// `accel::unions::literal_union`), which the error path never visits.
    Forward,
    General,
    /// An array whose body holds only `minItems`, `maxItems`, `uniqueItems` and an `items`
    /// from the first item (of any schema): bounds, uniqueness, then each item, with no
    /// keyword loop.
    ItemsArray,
    /// An object checked by one walk over its keys: the body holds only `properties` (in
    /// an order the walk may follow) or `additionalProperties` (with its siblings), and
    /// `required`, `minProperties`, `maxProperties`.
    PlainObject,
    /// A `oneOf`/`anyOf` and nothing else whose branches' types are disjoint (`{"anyOf":
    /// [{"type": "string", "maxLength": 8}, {"type": "null"}]}`, an optional value as
    /// generators write it): the instance's type picks the one branch that may match.
    TypeSwitch,
    /// A `oneOf`/`anyOf` and nothing else, of branches the types do not tell apart
    /// (`{"oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}]}`), or an `allOf` or a
    /// tuple (`prefixItems`, maybe with `minItems` and `maxItems`), or an `if` (with its
    /// `then`/`else`), a `not` or a `contains`, and nothing else: evaluated directly,
    /// with no keyword loop.
    Union,
    /// A test of one property's value against a few literals, and nothing else
    /// (`{"properties": {"kind": {"const": "file"}}}`, maybe with `"required": ["kind"]`),
    /// the usual `if` condition: the property is looked up, not the object walked.
    PropertyTest,
}

impl Shape {
    /// Whether the node's types alone decide (`Empty`, `TypeUnion`): one comparison, as
    /// the variants are ordered.
    #[inline(always)]
    pub(crate) fn decided_by_types(self) -> bool {
        self as u8 <= Shape::TypeUnion as u8
    }

    /// Whether the shape has a fail-fast function that may recurse, called after the
    /// stack check (`ItemsArray`, `PlainObject`, `TypeSwitch`): one comparison, as the
    /// variants are ordered.
    #[inline(always)]
    pub(crate) fn after_stack_check(self) -> bool {
        self as u8 > Shape::General as u8
    }
}

/// What a node of the typed-array or items-array shape checks, read in one place: its
/// bounds, the types of its items, and (items-array only) whether they must be unique.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArraySpec {
    pub(crate) min: u64,
    pub(crate) max: u64,
    pub(crate) items: TypeSet,
    /// `items` as the one kind of instance it admits (`TypeSet::single_kind`), or
    /// `u8::MAX`: the typed-array walk then compares the items' tags only.
    pub(crate) kind: u8,
    /// The items' schema.
    pub(crate) item: NodeId,
    /// `uniqueItems: true`.
    pub(crate) unique: bool,
}

/// What a node of the plain-object shape checks, read in one place: its bounds, the
/// `required` names a lookup checks (those the walk does not count), and the walk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ObjectSpec {
    pub(crate) min: u64,
    pub(crate) max: u64,
    /// `required` names checked by lookup (empty when the walk counts them).
    pub(crate) required: Span,
    /// The declared names the walk looks keys up in.
    pub(crate) names: Span,
    /// The schema of the other keys (`additionalProperties`), if any.
    pub(crate) others: NodeId,
    /// How the keys are walked.
    pub(crate) walk: ObjectWalk,
    /// Where the lookup table of `names` is (`Compiled::names_table`), kept here so that a
    /// walk need not find it again per object.
    pub(crate) table: (Span, bool),
    /// How many required names the walk must meet (`Compiled::walk_required`).
    pub(crate) met: u32,
    /// The `propertyNames` schema every key must meet (`NONE`: none), see
    /// `ObjectWalk::Named`.
    pub(crate) key_names: NodeId,
}

impl ObjectSpec {
    /// The names of the walk, ready for lookups.
    #[inline(always)]
    pub(crate) fn names<'c>(&self, c: &'c Compiled) -> Names<'c> {
        c.names_at(self.table)
    }
}

/// How the fail-fast path walks the keys of a plain object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ObjectWalk {
    /// Each key looked up in `names`, the others checked against `others`.
    Keys,
    /// No key has a schema to meet: `names` is empty and `others` accepts anything.
    Nothing,
    /// No name declared, every value against `others` (a dictionary: `{"type": "object",
    /// "additionalProperties": {"type": "string"}}`): no key is looked at.
    Values,
    /// With `propertyNames` (`key_names`, beside no `patternProperties`): each key
    /// checked against it, then the walk `Keys` (or `Values` when no name is declared)
    /// would make (`{"additionalProperties": {"type": "string"}, "propertyNames":
    /// {"pattern": "^[A-Z_]+$"}}`, an environment).
    Named,
    /// `additionalProperties` with `patternProperties`: the fused walk of the three.
    Patterned {
        /// The `additionalProperties` keyword's index in `additional`.
        additional: u32,
    },
}

/// What a `oneOf`/`anyOf` branch requires of the discriminating property.
#[derive(Debug, Clone)]
pub(crate) enum Filter {
    /// The branch rejects every object.
    Reject,
    /// The branch accepts only these values of the property (any, when `None`) except
    /// the `excluded` ones (`"not": {"enum": [...]}`), and only objects that have it when
    /// `required`.
    Accept {
        values: Option<Vec<Value>>,
        excluded: Vec<Value>,
        required: bool,
    },
}

impl Filter {
    /// Whether the branch may accept an object whose discriminating property is `found`;
    /// `false` means it certainly does not.
    #[inline]
    pub(crate) fn admits<'a, I: crate::flat::Instance<'a>>(&self, found: Option<I>) -> bool {
        match self {
            Filter::Reject => false,
            Filter::Accept {
                values,
                excluded,
                required,
            } => match found {
                None => !*required,
                Some(x) => {
                    values.as_ref().is_none_or(|vs| holds(vs, x))
                        && (excluded.is_empty() || !holds(excluded, x))
                }
            },
        }
    }

    /// Whether the branch may accept an object whose discriminating property is the
    /// string `s`, given that it is one of the branch's `values` when it has them.
    #[inline]
    pub(crate) fn admits_listed_string(&self, s: &str) -> bool {
        match self {
            Filter::Reject => false,
            Filter::Accept { excluded, .. } => {
                excluded.is_empty()
                    || !excluded
                        .iter()
                        .any(|v| matches!(v, Value::String(t) if crate::names::same(s, t)))
            }
        }
    }
}

/// Whether `x` is one of `values` (JSON equality).
#[inline]
pub(super) fn holds<'a, I: crate::flat::Instance<'a>>(values: &[Value], x: I) -> bool {
    match x.as_str() {
        // The usual tag: a string, compared inline.
        Some(s) => values
            .iter()
            .any(|v| matches!(v, Value::String(t) if crate::names::same(s, t))),
        None => values.iter().any(|v| x.equals(v)),
    }
}

/// Discriminator dispatch of one `oneOf`/`anyOf`: a filter per branch on one property.
#[derive(Debug, Clone)]
pub(crate) struct Dispatch {
    pub(crate) property: Arc<str>,
    pub(crate) filters: Vec<Filter>,
    /// When the property holds a string: (signature of a string a branch admits, the
    /// branch, where the string's bytes are in `texts`), by signature; empty when not
    /// built.
    pub(crate) by_string: Vec<(u64, u32, (u32, u32))>,
    /// The strings of `by_string`, one after another (one allocation for them all).
    pub(crate) texts: Box<[u8]>,
    /// The branches that admit any value of the property (beside `by_string`).
    pub(crate) open: Vec<u32>,
}

impl Dispatch {
    /// The branches that may accept an object whose property holds `s`, when the index
    /// is built: those admitting `s` by name, then those admitting any value.
    #[inline]
    pub(crate) fn for_string<'d>(&'d self, s: &'d str) -> Option<impl Iterator<Item = usize> + 'd> {
        if self.by_string.is_empty() && self.open.is_empty() {
            return None;
        }
        let sig = crate::names::signature(s);
        let from = self.by_string.partition_point(|e| e.0 < sig);
        let named = self.by_string[from..]
            .iter()
            .take_while(move |e| e.0 == sig)
            // (A short string's signature is the string: nothing to read then.)
            .filter(move |e| {
                let (from, to) = e.2;
                s.len() < crate::names::EXACT_BELOW
                    || self.texts.get(from as usize..to as usize) == Some(s.as_bytes())
            })
            .map(|e| e.1 as usize);
        let open = self.open.iter().map(|&j| j as usize);
        let open = open.filter(move |&j| self.filters[j].admits_listed_string(s));
        Some(named.chain(open))
    }
}

/// An `allOf` of `if`/`then`/`else` branches whose conditions each hold when one
/// property (`key`, the same in all) is one of a few literals (`{"if": {"properties":
/// {"type": {"const": "List"}}}, "then": ...}`, a chain keyed on a discriminator). When
/// the instance is an object with that property, the fail-fast path compares its value
/// with each arm's literals instead of evaluating each condition.
#[derive(Debug, Clone)]
pub(crate) struct IfChain {
    pub(crate) key: Arc<str>,
    /// The chain's branches, in `allOf` order; the others are evaluated as they are.
    pub(crate) arms: Box<[IfArm]>,
}

/// What a node of the property-test shape checks (see `Shape::PropertyTest`): an object
/// passes when its property `name` is one of `values` (a span of `values`), or is absent
/// and not `required`.
#[derive(Debug, Clone)]
pub(crate) struct PropertyTest {
    pub(crate) name: Arc<str>,
    pub(crate) values: Span,
    pub(crate) required: bool,
}

/// A schema's [`IfChain`]s.
#[derive(Debug, Clone, Default)]
pub(crate) struct IfChains {
    pub(crate) chains: Vec<IfChain>,
    /// Per `node_lists` entry: at the first branch of an `allOf` with a chain, its index
    /// in `chains` plus one; 0 elsewhere.
    pub(crate) of: Vec<u32>,
}

/// One branch of an [`IfChain`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct IfArm {
    /// Its index in the `allOf`.
    pub(crate) branch: u32,
    /// The literals its condition holds for (a span of `values`).
    pub(crate) values: Span,
    /// What follows when the condition holds, and when not (`NodeId::NONE` for nothing).
    pub(crate) then: NodeId,
    pub(crate) els: NodeId,
}

/// What the properties a node's `unevaluatedProperties` skips are, as far as the node's
/// unconditional subschemas (its own keywords, `allOf`, `$ref`, followed) tell: those
/// are evaluated whenever the node is valid. Conditional ones (`anyOf`, `oneOf`, `if`,
/// `dependentSchemas`, `$dynamicRef`) depend on the instance.
#[derive(Debug, Clone, Default)]
pub(crate) struct Unevaluated {
    /// The `properties` names met, once each, sorted by summary (`names::summary`), then
    /// name: a binary search finds a key in O(log n) comparisons even where a schema gave
    /// every name one summary.
    pub(crate) names: Box<[(u64, Arc<str>)]>,
    /// The `patternProperties` patterns met.
    pub(crate) patterns: Box<[PatternId]>,
    /// Every property is evaluated: an `additionalProperties` (or a nested
    /// `unevaluatedProperties`) applies.
    pub(crate) all: bool,
    /// No conditional subschema was met: a property none of the above evaluates is
    /// unevaluated.
    pub(crate) complete: bool,
}

impl Unevaluated {
    /// Whether property `key` is evaluated, when the unconditional subschemas tell (a
    /// name or pattern of theirs, or `complete`); `None` when only an evaluation can.
    #[inline]
    pub(crate) fn knows<M: crate::pattern::Meter + ?Sized>(
        &self,
        c: &Compiled,
        key: &str,
        meter: &M,
    ) -> Option<bool> {
        if self.all {
            return Some(true);
        }
        let summary = crate::names::summary(key);
        let at = self
            .names
            .partition_point(|(s, name)| (*s, name.as_bytes()) < (summary, key.as_bytes()));
        if self
            .names
            .get(at)
            .is_some_and(|(s, name)| *s == summary && crate::names::same_found(name, key))
        {
            return Some(true);
        }
        for &p in &self.patterns {
            match c.patterns[p.index()].find_name(key, meter) {
                crate::pattern::MatchOutcome::Match => return Some(true),
                crate::pattern::MatchOutcome::NoMatch => {}
                crate::pattern::MatchOutcome::BudgetExceeded => return None,
            }
        }
        if self.complete { Some(false) } else { None }
    }
}
