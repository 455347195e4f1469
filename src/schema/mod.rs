//! The compiled, immutable schema: an arena of nodes, keywords in one flat vector,
//! child lists in side tables.
//!
//! A node is a range of keywords. Keywords are a closed enum of small variants that point
//! into side tables by index, so the evaluator walks contiguous memory and a `$ref` is just
//! a [`NodeId`]: cycles need no reference counting.

mod accel;
mod foreign;
mod ids;
mod text;

use crate::json::{Num, TypeSet};
use crate::pattern::Pattern;
pub(crate) use accel::*;
use serde_json::{Number, Value};
use std::sync::Arc;

pub(crate) use ids::{
    AdditionalId, AnchorId, ContainsId, ContentId, DispatchId, DynamicRefId, FormatId, LimitId,
    NodeId, PatternId, ResourceId, ValueId, side_table_id,
};
pub use text::JsonValidationError;

/// Up to this many names, a name lookup scans the signatures; beyond, it hashes.
pub(crate) const SCAN_LIMIT: usize = 8;

/// `enum`s of up to this many values are scanned; longer ones have a hash table of their
/// strings and numbers (see `Compiled::enum_has_string`).
pub(crate) const ENUM_SCAN_LIMIT: usize = 16;

/// A half-open range into a side table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl Span {
    #[inline]
    pub(crate) fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    #[inline]
    pub(crate) fn len(self) -> usize {
        (self.end - self.start) as usize
    }
}

/// One keyword of a node, ready to evaluate.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Keyword {
    /// The `false` schema.
    False,
    Type(TypeSet),
    Const(ValueId),
    Enum(Span),
    MultipleOf(LimitId),
    Maximum(LimitId),
    ExclusiveMaximum(LimitId),
    Minimum(LimitId),
    ExclusiveMinimum(LimitId),
    MaxLength(u64),
    MinLength(u64),
    Pattern(PatternId),
    Format(FormatId),
    MaxItems(u64),
    MinItems(u64),
    UniqueItems,
    MaxProperties(u64),
    MinProperties(u64),
    Required(Span),
    DependentRequired(Span),
    Properties(Span),
    PatternProperties(Span),
    AdditionalProperties(AdditionalId),
    PropertyNames(NodeId),
    DependentSchemas(Span),
    PrefixItems(Span),
    /// Applies `node` to every item at index `skip` or later (`items`, `additionalItems`).
    Items {
        node: NodeId,
        skip: u32,
    },
    Contains(ContainsId),
    AllOf(Span),
    AnyOf(Span),
    OneOf(Span),
    Not(NodeId),
    If {
        cond: NodeId,
        then: NodeId,
        els: NodeId,
    },
    Ref(NodeId),
    DynamicRef(DynamicRefId),
    UnevaluatedProperties(NodeId),
    UnevaluatedItems(NodeId),
    Content(ContentId),
}

/// The pattern of every assertion keyword: those that look at the instance alone and
/// apply no subschema. With [`applicator_keywords!`], every variant of [`Keyword`] is in
/// exactly one of the two: a new keyword breaks every `match` that lists them until it is
/// put in one, and every `match` that lists variants one by one until it is decided there.
macro_rules! assertion_keywords {
    () => {
        $crate::schema::bound_keywords!() | $crate::schema::other_assertion_keywords!()
    };
}
pub(crate) use assertion_keywords;

/// The pattern of the four numeric bounds (`maximum`, `exclusiveMaximum`, `minimum`,
/// `exclusiveMinimum`), assertion keywords with a limit each.
macro_rules! bound_keywords {
    () => {
        $crate::schema::Keyword::Maximum(_)
            | $crate::schema::Keyword::ExclusiveMaximum(_)
            | $crate::schema::Keyword::Minimum(_)
            | $crate::schema::Keyword::ExclusiveMinimum(_)
    };
}
pub(crate) use bound_keywords;

/// The pattern of the assertion keywords other than the numeric bounds.
macro_rules! other_assertion_keywords {
    () => {
        $crate::schema::Keyword::False
            | $crate::schema::Keyword::Type(_)
            | $crate::schema::Keyword::Const(_)
            | $crate::schema::Keyword::Enum(_)
            | $crate::schema::Keyword::MultipleOf(_)
            | $crate::schema::Keyword::MaxLength(_)
            | $crate::schema::Keyword::MinLength(_)
            | $crate::schema::Keyword::Pattern(_)
            | $crate::schema::Keyword::Format(_)
            | $crate::schema::Keyword::MaxItems(_)
            | $crate::schema::Keyword::MinItems(_)
            | $crate::schema::Keyword::UniqueItems
            | $crate::schema::Keyword::MaxProperties(_)
            | $crate::schema::Keyword::MinProperties(_)
            | $crate::schema::Keyword::Required(_)
            | $crate::schema::Keyword::DependentRequired(_)
            | $crate::schema::Keyword::Content(_)
    };
}
pub(crate) use other_assertion_keywords;

/// The pattern of every applicator keyword: those that apply a subschema (see
/// [`assertion_keywords!`]).
macro_rules! applicator_keywords {
    () => {
        $crate::schema::Keyword::Properties(_)
            | $crate::schema::Keyword::PatternProperties(_)
            | $crate::schema::Keyword::AdditionalProperties(_)
            | $crate::schema::Keyword::PropertyNames(_)
            | $crate::schema::Keyword::DependentSchemas(_)
            | $crate::schema::Keyword::PrefixItems(_)
            | $crate::schema::Keyword::Items { .. }
            | $crate::schema::Keyword::Contains(_)
            | $crate::schema::Keyword::AllOf(_)
            | $crate::schema::Keyword::AnyOf(_)
            | $crate::schema::Keyword::OneOf(_)
            | $crate::schema::Keyword::Not(_)
            | $crate::schema::Keyword::If { .. }
            | $crate::schema::Keyword::Ref(_)
            | $crate::schema::Keyword::DynamicRef(_)
            | $crate::schema::Keyword::UnevaluatedProperties(_)
            | $crate::schema::Keyword::UnevaluatedItems(_)
    };
}
pub(crate) use applicator_keywords;

impl Keyword {
    /// Whether the keyword applies no subschema (it looks at the instance only).
    #[inline]
    pub(crate) fn is_assertion(&self) -> bool {
        match self {
            assertion_keywords!() => true,
            applicator_keywords!() => false,
        }
    }
}

/// How a keyword is named in the schema, for locations (`items` may be `additionalItems`).
pub(crate) type KeywordName = &'static str;

/// A node: a schema object (or boolean) compiled to a range of keywords.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub(crate) keywords: Span,
    /// The schema resource this node belongs to (for the dynamic scope).
    pub(crate) resource: ResourceId,
    /// The types `type` admits (every type when the node has no hoisted `type`): checked
    /// inline before any keyword is dispatched.
    pub(crate) types: TypeSet,
    /// The node's first keyword is a `type` with exactly `types`: the keyword loop starts
    /// after it (it is still there to report the error and for compile-time analyses).
    pub(crate) typed: bool,
    /// Only assertion keywords (no subschema): the fail-fast path runs it directly.
    pub(crate) leaf: bool,
    /// A shape the fail-fast path checks outside the general keyword loop.
    pub(crate) shape: Shape,
}

/// The names of one `properties` span, ready for lookups (see `Compiled::names_of`).
#[derive(Clone, Copy)]
pub(crate) enum Names<'c> {
    /// A few names: (summary, index into `properties`), scanned (see `names::summary`).
    Scan(&'c [(u64, u32)]),
    /// More: (signature, index), an open-addressing table of a power-of-two size, empty
    /// slots at `u32::MAX`. Where a schema made its names crowd a table (see
    /// `names::LONGEST_RUN`), the table is one entry, ([`sorted_span`] of the names,
    /// [`SORTED_NAMES`]): the names, sorted by summary then name in `property_sigs`, are
    /// found by binary search (the hot loop tests the mark with the empty slot's test).
    Hash(&'c [(u64, u32)]),
}

/// The index of the one entry of a crowded span's table (see [`Names::Hash`]).
pub(crate) const SORTED_NAMES: u32 = u32::MAX - 1;

/// The first entry of a crowded span's table: the span of its sorted names.
pub(crate) const fn sorted_span(span: Span) -> u64 {
    ((span.start as u64) << 32) | span.end as u64
}

impl Names<'_> {
    /// The index (into `properties`) of `key`: integer comparisons of summaries or
    /// signatures, then, for a long key, one byte comparison.
    #[inline(always)]
    pub(crate) fn find(self, c: &Compiled, key: &str) -> Option<usize> {
        self.find_in(c, key, crate::names::summary(key))
    }

    /// [`Names::find`] of a key whose summary is known (a flat object's entries carry it).
    #[inline(always)]
    pub(crate) fn find_in(self, c: &Compiled, key: &str, summary: u64) -> Option<usize> {
        let same = |i: u32| crate::names::same_found(&c.properties[i as usize].0, key);
        match self {
            // (Equal summaries of different names are rare; the scan goes on past them.)
            Names::Scan(entries) => entries
                .iter()
                .find(|&&(s, i)| s == summary && same(i))
                .map(|&(_, i)| i as usize),
            Names::Hash(table) => {
                let sig = crate::names::mix(summary);
                let mask = table.len().wrapping_sub(1);
                let mut slot = sig as usize & mask;
                loop {
                    let (s, i) = *table.get(slot)?;
                    if i >= SORTED_NAMES {
                        if i == u32::MAX {
                            return None;
                        }
                        return find_sorted(c, s, summary, key);
                    }
                    if s == sig && same(i) {
                        return Some(i as usize);
                    }
                    slot = (slot + 1) & mask;
                }
            }
        }
    }

    /// [`Names::find_in`] for the general keyword loop, which runs without lookup tables
    /// too (`Options::shortcuts(false)`: `names_of` then gives no entry): the names of
    /// `span` are searched by name. (One comparison per key where the span is scanned;
    /// the shortcuts call `find_in`, which needs none.)
    #[inline(always)]
    pub(crate) fn find_in_span(
        self,
        c: &Compiled,
        span: Span,
        key: &str,
        summary: u64,
    ) -> Option<usize> {
        if let Names::Scan(entries) = self
            && entries.len() != span.len()
        {
            return find_by_name(c, span, key);
        }
        self.find_in(c, key, summary)
    }
}

/// `Names::find_in_span` without lookup tables: a binary search of the span's names
/// (sorted by name within each span of `properties`).
#[cold]
#[inline(never)]
fn find_by_name(c: &Compiled, span: Span, key: &str) -> Option<usize> {
    let names = c.properties.get(span.range())?;
    let at = names.binary_search_by(|(n, _)| n.as_ref().cmp(key)).ok()?;
    Some(span.start as usize + at)
}

/// `Names::find` in a span whose names crowd a hash table: a binary search by summary, then
/// name, O(log n) comparisons whatever the names.
#[cold]
#[inline(never)]
fn find_sorted(c: &Compiled, span: u64, summary: u64, key: &str) -> Option<usize> {
    let (start, end) = ((span >> 32) as usize, span as u32 as usize);
    let entries = c.accel.property_sigs.get(start..end)?;
    let name = |i: u32| &*c.properties[i as usize].0;
    let at = entries.partition_point(|&(s, i)| (s, name(i).as_bytes()) < (summary, key.as_bytes()));
    entries
        .get(at)
        .filter(|&&(s, i)| s == summary && crate::names::same_found(name(i), key))
        .map(|&(_, i)| i as usize)
}

impl Node {
    /// The keywords the evaluator dispatches: all of them but a hoisted `type`.
    #[inline(always)]
    pub(crate) fn body(&self) -> std::ops::Range<usize> {
        self.keywords.start as usize + usize::from(self.typed)..self.keywords.end as usize
    }
}

/// `additionalProperties` with its siblings `properties` and `patternProperties`: one pass
/// over the instance evaluates all three (the siblings have no keyword of their own then).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Additional {
    pub(crate) node: NodeId,
    pub(crate) properties: Span,
    pub(crate) patterns: Span,
}

/// `contains` with its bounds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Contains {
    pub(crate) node: NodeId,
    pub(crate) min: u64,
    pub(crate) max: Option<u64>,
    /// Whether the matching items count as evaluated (for `unevaluatedItems`) and are
    /// annotated: from 2020-12 on; 2019-09's `contains` produces no annotation.
    pub(crate) annotates: bool,
}

/// A `$dynamicRef` (or `$recursiveRef`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DynamicRef {
    /// Where the reference resolves statically.
    pub(crate) target: NodeId,
    /// The anchor name to look for in the dynamic scope, when the reference is dynamic.
    pub(crate) anchor: Option<AnchorId>,
}

/// A limit from the schema: its original text and its comparable form.
#[derive(Debug, Clone)]
pub(crate) struct Limit {
    pub(crate) number: Number,
    pub(crate) num: Num,
    /// For `multipleOf`: the number as a decimal (`json::decimal`), found once.
    pub(crate) decimal: Option<(u128, i32)>,
    /// The greatest integer at most the number and the least at least it (saturated far
    /// past the `i64` range): an integer instance meets a bound by one comparison with
    /// one of them (`minimum: 0.5` is `>= 1`, `exclusiveMaximum: 10` is `< 10`).
    pub(crate) floor: i128,
    pub(crate) ceil: i128,
    /// The number as an `f64` when that is exact (every float; integers up to 2^53): a
    /// float instance meets a bound by one float comparison then.
    pub(crate) float: Option<f64>,
}

impl Limit {
    /// Whether the number `x` meets `kw`, one of the four bounds, of this limit, when one
    /// comparison tells (`None`: an integer past `i64`, or a float against a limit no
    /// `f64` holds exactly).
    #[inline(always)]
    pub(crate) fn admits(&self, kw: Keyword, x: &Number) -> Option<bool> {
        if let Some(v) = x.as_i64() {
            let v = i128::from(v);
            return match kw {
                Keyword::Minimum(_) => Some(v >= self.ceil),
                Keyword::ExclusiveMinimum(_) => Some(v > self.floor),
                Keyword::Maximum(_) => Some(v <= self.floor),
                Keyword::ExclusiveMaximum(_) => Some(v < self.ceil),
                // (Asked of the bounds only.)
                other_assertion_keywords!() | applicator_keywords!() => None,
            };
        }
        let (Some(f), Some(limit)) = (x.as_f64().filter(|_| x.is_f64()), self.float) else {
            return None;
        };
        match kw {
            Keyword::Minimum(_) => Some(f >= limit),
            Keyword::ExclusiveMinimum(_) => Some(f > limit),
            Keyword::Maximum(_) => Some(f <= limit),
            Keyword::ExclusiveMaximum(_) => Some(f < limit),
            other_assertion_keywords!() | applicator_keywords!() => None,
        }
    }
}

/// `format`, resolved at compile time.
#[derive(Debug, Clone)]
pub(crate) struct FormatCheck {
    pub(crate) name: Arc<str>,
    /// Whether failing the format is an error (assertion) or only an annotation.
    pub(crate) assert: bool,
    /// A user-registered checker, when one was given for this name.
    pub(crate) custom: Option<fn(&str) -> bool>,
}

/// `contentEncoding`/`contentMediaType`, when they assert.
#[derive(Debug, Clone)]
pub(crate) struct ContentCheck {
    pub(crate) encoding: Option<Arc<str>>,
    pub(crate) media_type: Option<Arc<str>>,
}

/// A schema resource: a document root or a subschema with its own `$id`.
#[derive(Debug, Clone)]
pub(crate) struct Resource {
    /// Its absolute URI, without fragment.
    pub(crate) uri: Arc<str>,
    /// `$dynamicAnchor`s it defines: (interned name, node).
    pub(crate) dynamic_anchors: Vec<(AnchorId, NodeId)>,
    /// JSON pointer of its root inside its document (node pointers below it, stripped of
    /// this prefix, are the fragments of absolute locations).
    pub(crate) root_pointer: Arc<str>,
}

/// Everything a compiled schema holds.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) nodes: Vec<Node>,
    pub(crate) keywords: Vec<Keyword>,
    pub(crate) keyword_names: Vec<KeywordName>,
    /// Per node: its JSON pointer inside its document, a range of `pointer_text` (cold:
    /// read to render locations).
    pub(crate) node_pointers: Vec<Span>,
    /// The nodes' JSON pointers end to end: one buffer, not an allocation per node.
    pub(crate) pointer_text: String,
    /// Whether `pointer_text` holds only bytes a URI fragment may hold as they are (known
    /// at the first error: absolute keyword locations then copy pointers unscanned).
    /// Boxed: a cell held inline would make every `&Compiled` one whose fields may change
    /// under the evaluator, and the compiler would reload them after every call.
    pub(crate) pointers_fragment_safe: Box<std::sync::OnceLock<bool>>,
    pub(crate) root: NodeId,
    pub(crate) values: Vec<Value>,
    pub(crate) limits: Vec<Limit>,
    pub(crate) strings: Vec<Arc<str>>,
    /// `properties` entries, sorted by name within each keyword's span (for lookups).
    pub(crate) properties: Vec<(Arc<str>, NodeId)>,
    pub(crate) pattern_properties: Vec<(PatternId, NodeId)>,
    pub(crate) additional: Vec<Additional>,
    pub(crate) dependent_required: Vec<(Arc<str>, Span)>,
    pub(crate) dependent_schemas: Vec<(Arc<str>, NodeId)>,
    pub(crate) node_lists: Vec<NodeId>,
    pub(crate) contains: Vec<Contains>,
    pub(crate) dynamic_refs: Vec<DynamicRef>,
    /// Some `$dynamicRef` (or `$recursiveRef`) looks up the dynamic scope: evaluation
    /// keeps track of it only then.
    pub(crate) dynamic_scope: bool,
    /// The step budget of every call: (steps before the instance is counted, steps per
    /// value of the instance), see `Options::step_budget`.
    pub(crate) step_budget: (u64, u64),
    pub(crate) patterns: Vec<Pattern>,
    pub(crate) pattern_sources: Vec<Arc<str>>,
    pub(crate) formats: Vec<FormatCheck>,
    pub(crate) contents: Vec<ContentCheck>,
    pub(crate) resources: Vec<Resource>,
    /// Per node: its annotation keywords (`title`, `default`, unknown keywords, ...), a
    /// range of `annotation_values`. Read only on the `evaluate` path.
    pub(crate) node_annotations: Vec<Span>,
    pub(crate) annotation_values: Vec<Annotation>,
    /// The names of the annotations and their string values, end to end: one buffer
    /// instead of an allocation for each (descriptions are most of a schema's text).
    pub(crate) annotation_text: String,
    /// The annotation values that are not strings (`default`, `examples`, ...).
    pub(crate) annotation_others: Vec<Value>,
    /// The tables only the shortcuts read (`compile::accel`); empty under
    /// `Options::shortcuts(false)`. Held inline: no indirection on the hot path.
    pub(crate) accel: Accelerators,
    /// Per `strings` entry: its summary (`names::summary`), computed once by
    /// `accel::summaries` so that a flat object's lookup of a `required` name only
    /// compares integers (a `Value` lookup ignores it). Semantic: the keyword loop looks
    /// `required` names up too.
    pub(crate) string_summaries: Vec<u64>,
}

/// One annotation keyword of a node, for `evaluate`: small (24 bytes), since a schema
/// has as many as it has descriptions and titles, and compile writes every one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Annotation {
    /// Its name (a string).
    pub(crate) name: AnnotationValue,
    pub(crate) value: AnnotationValue,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum AnnotationValue {
    /// A string, in `annotation_text`.
    Text(Span),
    /// Anything else (and strings past 4 GiB of text): an index into `annotation_others`.
    Other(u32),
}

impl Compiled {
    /// An annotation's name and value (the value is built: `evaluate` hands it out).
    pub(crate) fn annotation(&self, a: Annotation) -> (&str, Value) {
        let other = |i: u32| self.annotation_others.get(i as usize);
        let name = match a.name {
            AnnotationValue::Text(span) => &self.annotation_text[span.range()],
            AnnotationValue::Other(i) => other(i).and_then(Value::as_str).unwrap_or_default(),
        };
        let value = match a.value {
            AnnotationValue::Text(span) => Value::String(self.annotation_text[span.range()].into()),
            AnnotationValue::Other(i) => other(i).cloned().unwrap_or(Value::Null),
        };
        (name, value)
    }
}

impl Compiled {
    /// The spec of a node of the typed-array or items-array shape.
    #[inline(always)]
    pub(crate) fn array_spec(&self, node: NodeId) -> Option<&ArraySpec> {
        let i = *self.accel.spec_of.get(node.index())?;
        self.accel.array_specs.get(i as usize)
    }

    /// The discriminator dispatch of the `oneOf`/`anyOf` list `span`, if it has one, with
    /// the summary of its property's name (see `names::summary`).
    #[inline(always)]
    pub(crate) fn dispatch_of(&self, span: Span) -> Option<(&Dispatch, Option<&u64>)> {
        let d = *self.accel.list_dispatch.get(span.start as usize)?;
        let dispatch = self.accel.dispatches.get(d.index())?;
        Some((dispatch, self.accel.dispatch_summaries.get(d.index())))
    }

    /// The branches of a node of the type-switch shape, by kind of instance.
    #[inline(always)]
    pub(crate) fn type_switch(&self, node: NodeId) -> Option<&[NodeId; 6]> {
        let i = *self.accel.spec_of.get(node.index())?;
        self.accel.type_switches.get(i as usize)
    }

    /// The spec of a node of the plain-object shape.
    #[inline(always)]
    pub(crate) fn object_spec(&self, node: NodeId) -> Option<&ObjectSpec> {
        let i = *self.accel.spec_of.get(node.index())?;
        self.accel.object_specs.get(i as usize)
    }

    /// Gives back the room reserved for the tables (see `Compiler::reserve`) and not used.
    pub(crate) fn shrink_to_fit(&mut self) {
        // (A reallocation each; not worth it for a few spare slots or bytes.)
        fn shrink<T>(v: &mut Vec<T>) {
            let spare = v.capacity() - v.len();
            // (An unused table is freed; a used one trimmed when much of it is spare.)
            if (v.is_empty() && spare > 0)
                || (spare > v.len() / 8 + 4 && spare * std::mem::size_of::<T>() > 256)
            {
                v.shrink_to_fit();
            }
        }
        shrink(&mut self.nodes);
        shrink(&mut self.node_pointers);
        shrink(&mut self.node_annotations);
        shrink(&mut self.keywords);
        shrink(&mut self.keyword_names);
        shrink(&mut self.properties);
        shrink(&mut self.node_lists);
        shrink(&mut self.strings);
        shrink(&mut self.annotation_values);
        shrink(&mut self.annotation_others);
        for text in [&mut self.annotation_text, &mut self.pointer_text] {
            if (text.is_empty() && text.capacity() > 0) || text.capacity() > text.len() + 256 {
                text.shrink_to_fit();
            }
        }
    }

    /// Appends `node` (made after compiling, by the analyses), with its entries in the
    /// other per-node tables: the location of `located_as`, no annotation, and no spec
    /// (`spec_of`, once made, keeps one entry per node).
    pub(crate) fn append_node(&mut self, node: Node, located_as: NodeId) -> NodeId {
        let id = NodeId::new(self.nodes.len());
        self.nodes.push(node);
        let pointer = self.node_pointers[located_as.index()];
        self.node_pointers.push(pointer);
        self.node_annotations.push(Span { start: 0, end: 0 });
        if !self.accel.spec_of.is_empty() {
            self.accel.spec_of.push(u32::MAX);
        }
        id
    }

    /// The JSON pointer of `node` inside its document.
    #[inline]
    pub(crate) fn pointer_of(&self, node: NodeId) -> &str {
        &self.pointer_text[self.node_pointers[node.index()].range()]
    }
    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    #[inline]
    pub(crate) fn keywords_of(&self, id: NodeId) -> &[Keyword] {
        &self.keywords[self.nodes[id.index()].keywords.range()]
    }

    /// Whether `id` is the `false` schema (it rejects everything).
    #[inline]
    pub(crate) fn is_false_schema(&self, id: NodeId) -> bool {
        matches!(self.keywords_of(id), [Keyword::False])
    }

    /// The index (into `properties`) of `key` among the names of `span`: integer
    /// comparisons of signatures, then one byte comparison.
    #[inline(always)]
    pub(crate) fn find_property(&self, span: Span, key: &str) -> Option<usize> {
        self.names_of(span).find(self, key)
    }

    /// The lookup table of the names of `span`, to look many keys up in (a walk over an
    /// object's keys finds it once, not per key).
    #[inline(always)]
    pub(crate) fn names_of(&self, span: Span) -> Names<'_> {
        self.names_at(self.names_table(span))
    }

    /// Where the lookup table of the names of `span` is: its entries in `property_sigs`
    /// (scanned, `false`), or its table in `property_hash` (hashed, `true`).
    #[inline(always)]
    pub(crate) fn names_table(&self, span: Span) -> (Span, bool) {
        if span.len() <= SCAN_LIMIT {
            return (span, false);
        }
        let Some(&(start, mask)) = self.accel.property_tables.get(span.start as usize) else {
            return (span, false);
        };
        let end = start.wrapping_add(mask).wrapping_add(1);
        (Span { start, end }, true)
    }

    /// The lookup table `names_table` located.
    #[inline(always)]
    pub(crate) fn names_at(&self, (table, hashed): (Span, bool)) -> Names<'_> {
        if !hashed {
            // (No entry without lookup tables: see `Names::find_in_span`.)
            return Names::Scan(self.accel.property_sigs.get(table.range()).unwrap_or(&[]));
        }
        match self.accel.property_hash.get(table.range()) {
            Some(table) => Names::Hash(table),
            None => Names::Scan(&[]),
        }
    }

    /// Whether the `enum` of the values `span` holds the string `s`: a long one by its
    /// hash table (one probe, where a scan compares every value: country codes, language
    /// lists), a short one by a scan.
    #[inline(always)]
    pub(crate) fn enum_has_string(&self, span: Span, s: &str) -> bool {
        if span.len() > ENUM_SCAN_LIMIT {
            return self.long_enum_has_string(span, s);
        }
        self.values[span.range()]
            .iter()
            .any(|v| matches!(v, Value::String(t) if crate::names::same(s, t)))
    }

    /// `enum_has_string` for an `enum` longer than `ENUM_SCAN_LIMIT` (out of line).
    #[inline(never)]
    pub(crate) fn long_enum_has_string(&self, span: Span, s: &str) -> bool {
        match self.accel.enum_tables.get(span.start as usize) {
            Some(&(start, mask)) if mask != 0 => self.enum_lookup(start, mask, s),
            _ => self.values[span.range()]
                .iter()
                .any(|v| matches!(v, Value::String(t) if crate::names::same(s, t))),
        }
    }

    /// Whether the `enum` of the values `span`, longer than `ENUM_SCAN_LIMIT`, holds the
    /// number `n` (by value: `1` is `1.0`), looked up in its table (out of line).
    #[inline(never)]
    pub(crate) fn long_enum_has_number(&self, span: Span, n: &Number) -> bool {
        match self.accel.enum_tables.get(span.start as usize) {
            Some(&(start, mask)) if mask != 0 => self.enum_probe(
                start,
                mask,
                crate::json::number_signature(n),
                |v| matches!(v, Value::Number(m) if crate::json::num_eq(n, m)),
            ),
            _ => self.values[span.range()]
                .iter()
                .any(|v| matches!(v, Value::Number(m) if crate::json::num_eq(n, m))),
        }
    }

    /// Whether the `enum` of the values `span`, longer than `ENUM_SCAN_LIMIT`, holds `v` (of
    /// any kind; strings and numbers have their own lookups), looked up in its table: a
    /// `null` or an object among many strings is one probe, not a walk of them all.
    #[inline(never)]
    pub(crate) fn long_enum_has_value<'a, I: crate::flat::Instance<'a>>(
        &self,
        span: Span,
        v: I,
    ) -> bool {
        match self.accel.enum_tables.get(span.start as usize) {
            Some(&(start, mask)) if mask != 0 => {
                // (`json::enum_signature`, for either representation.)
                let sig = match v.kind() {
                    crate::flat::Kind::String => {
                        crate::json::string_enum_signature(v.as_str().unwrap_or_default())
                    }
                    crate::flat::Kind::Array | crate::flat::Kind::Object => {
                        v.hash_with(crate::json::table_state())
                    }
                    _ => v.signature(),
                };
                self.enum_probe(start, mask, sig, |u| v.equals(u))
            }
            _ => self.values[span.range()].iter().any(|u| v.equals(u)),
        }
    }

    /// The probe of `enum_has_string` in the table at `start`.
    #[inline(always)]
    fn enum_lookup(&self, start: u32, mask: u32, s: &str) -> bool {
        self.enum_probe(
            start,
            mask,
            crate::json::string_enum_signature(s),
            // (A short string's signature is exact, but a long one's keyed hash may equal it.)
            |v| matches!(v, Value::String(t) if t.len() == s.len() && crate::names::same_found(t, s)),
        )
    }

    /// The values of signature `sig` in the enum table at `start`, until one is `same`.
    #[inline(always)]
    fn enum_probe(&self, start: u32, mask: u32, sig: u64, same: impl Fn(&Value) -> bool) -> bool {
        let Some(table) = self
            .accel
            .enum_hash
            .get(start as usize..start as usize + mask as usize + 1)
        else {
            return false;
        };
        let mut slot = crate::json::table_slot(sig) & mask as usize;
        // (At most half full: an empty slot ends every probe.)
        loop {
            let (t, i) = table[slot];
            if i == u32::MAX {
                return false;
            }
            if t == sig && same(&self.values[i as usize]) {
                return true;
            }
            slot = (slot + 1) & mask as usize;
        }
    }

    /// The chain of conditions of the `allOf` `span`, if it has one.
    #[inline(always)]
    pub(crate) fn if_chain(&self, span: Span) -> Option<&IfChain> {
        let chains = self.accel.if_chains.as_deref()?;
        let at = *chains.of.get(span.start as usize)?;
        chains.chains.get((at as usize).checked_sub(1)?)
    }

    /// What `node`'s `unevaluatedProperties` knows without evaluating, if computed.
    #[inline]
    pub(crate) fn unevaluated_of(&self, node: NodeId) -> Option<&Unevaluated> {
        let at = self
            .accel
            .unevaluated
            .binary_search_by_key(&node.0, |(n, _)| n.0)
            .ok()?;
        Some(&self.accel.unevaluated[at].1)
    }

    /// How many required names the walk of the properties `span` must meet.
    #[inline]
    pub(crate) fn walk_required(&self, span: Span) -> u32 {
        // An empty span may start where another one (or the end of the table) does.
        if span.len() == 0 {
            return 0;
        }
        self.accel
            .walk_required
            .get(span.start as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The fail-fast walk's entry of the property `i` (an index into `properties`): its
    /// subschema (a forward gives way to its target) and 1 when the walk counts it for a
    /// sibling `required`; without accelerators, the subschema itself and 0.
    #[inline(always)]
    pub(crate) fn walk_entry(&self, i: usize) -> (NodeId, u32) {
        match self.accel.property_walk.get(i) {
            Some(&entry) => entry,
            None => (self.properties[i].1, 0),
        }
    }

    /// The indices (into `properties`) of `span` in evaluation order: cheapest first, or
    /// in name order without accelerators.
    #[inline]
    pub(crate) fn property_order(&self, span: Span) -> impl Iterator<Item = usize> + '_ {
        let order = self.accel.property_order.get(span.range());
        span.range()
            .enumerate()
            .map(move |(k, i)| order.map_or(i, |o| o[k] as usize))
    }

    /// Where `is_valid` starts: past the root's forwards when the accelerators say so.
    #[inline(always)]
    pub(crate) fn fail_fast_root(&self) -> NodeId {
        match self.accel.fail_fast_root {
            start if start.is_none() => self.root,
            start => start,
        }
    }

    #[inline]
    pub(crate) fn node_list(&self, span: Span) -> &[NodeId] {
        &self.node_lists[span.range()]
    }

    /// What the fail-fast path may evaluate in place of `node`: a node of the forward
    /// shape whose types are every type or its target's (so that its type test adds
    /// nothing) gives way to its target, which the forward call would evaluate next.
    #[inline]
    pub(crate) fn fail_fast_target(&self, node: NodeId) -> NodeId {
        let Some(n) = self.nodes.get(node.index()) else {
            return node;
        };
        if n.shape != Shape::Forward {
            return node;
        }
        match self.accel.spec_of.get(node.index()) {
            Some(&t)
                if self.nodes.get(t as usize).is_some_and(|t| {
                    n.types == crate::json::TypeSet::all() || n.types == t.types
                }) =>
            {
                NodeId(t)
            }
            _ => node,
        }
    }

    /// The nodes of `span` for the fail-fast path: a forward that checks nothing its
    /// target does not is replaced by the target (one call fewer per branch tried). The
    /// error path keeps `node_list`, whose nodes its locations name.
    #[inline]
    pub(crate) fn branches(&self, span: Span) -> &[NodeId] {
        match self.accel.branch_targets.get(span.range()) {
            Some(list) => list,
            None => self.node_list(span),
        }
    }
}

/// A compiled schema: immutable, `Send + Sync`, cheap to clone and share across threads.
///
/// ```
/// use toolschema::Schema;
/// use serde_json::json;
///
/// let schema = Schema::compile(&json!({
///     "type": "object",
///     "properties": {"count": {"type": "integer", "maximum": 10}},
///     "required": ["count"]
/// }))?;
/// assert!(schema.is_valid(&json!({"count": 3})));
/// assert!(!schema.is_valid(&json!({"count": 11})));
/// # Ok::<(), toolschema::SchemaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Schema {
    pub(crate) compiled: Arc<Compiled>,
}

impl Schema {
    /// Compiles a JSON Schema 2020-12 document with the default [`Options`](crate::Options).
    ///
    /// # Errors
    /// A [`SchemaError`](crate::SchemaError) naming the keyword and its location when the
    /// schema is malformed, exceeds the default [`Limits`](crate::Limits), or has a
    /// reference that resolves to nothing inside the document.
    pub fn compile(schema: &Value) -> Result<Schema, crate::SchemaError> {
        crate::Options::new().compile(schema)
    }

    /// Whether `instance` conforms. Short-circuits at the first failure and allocates
    /// nothing on the heap in steady state. `false` too when the evaluation runs past its
    /// step budget ([`EVALUATION_STEPS_MIN`](crate::EVALUATION_STEPS_MIN), then
    /// [`EVALUATION_STEPS_PER_VALUE`](crate::EVALUATION_STEPS_PER_VALUE) per value of the
    /// instance), which only schemas applying one subschema many times to the same value
    /// reach; [`Schema::validate`] then reports
    /// [`ErrorKind::EvaluationBudgetExceeded`](crate::ErrorKind::EvaluationBudgetExceeded).
    pub fn is_valid(&self, instance: &Value) -> bool {
        crate::validate::is_valid(&self.compiled, instance)
    }

    /// Validates `instance`, returning every error when it does not conform.
    ///
    /// # Errors
    /// [`ValidationErrors`](crate::ValidationErrors), in evaluation order.
    ///
    /// ```
    /// use toolschema::Schema;
    /// use serde_json::json;
    ///
    /// let schema = Schema::compile(&json!({"properties": {"count": {"maximum": 10}}}))?;
    /// let errors = schema.validate(&json!({"count": 15})).unwrap_err();
    /// assert_eq!(errors.to_string(), "/count: must be at most 10");
    /// # Ok::<(), toolschema::SchemaError>(())
    /// ```
    pub fn validate(&self, instance: &Value) -> Result<(), crate::ValidationErrors> {
        self.validate_instance(instance)
    }

    /// Every error of `instance`, by the reporting path alone: without the `is_valid` pass
    /// that [`Schema::validate`] and [`Schema::iter_errors`] start with (and end at, when
    /// it says yes). For tests that check both paths agree in both directions; not a
    /// stable API.
    #[doc(hidden)]
    pub fn errors_unchecked(&self, instance: &Value) -> Vec<crate::ValidationError> {
        crate::validate::collect_errors(&self.compiled, instance, 0, usize::MAX)
    }

    /// The errors of `instance`, lazily: errors are produced a batch at a time, so a huge
    /// invalid instance never builds an unbounded list.
    pub fn iter_errors<'s, 'v>(&'s self, instance: &'v Value) -> ErrorIter<'s, 'v> {
        ErrorIter {
            compiled: &self.compiled,
            instance,
            produced: 0,
            batch: Vec::new().into_iter(),
            done: false,
        }
    }
}

/// The iterator [`Schema::iter_errors`] returns.
#[derive(Debug)]
pub struct ErrorIter<'s, 'v> {
    compiled: &'s Compiled,
    instance: &'v Value,
    produced: usize,
    batch: std::vec::IntoIter<crate::ValidationError>,
    done: bool,
}

impl Iterator for ErrorIter<'_, '_> {
    type Item = crate::ValidationError;

    fn next(&mut self) -> Option<crate::ValidationError> {
        // Batches start small (most callers want the first few errors) and double up to a
        // cap: memory stays bounded by the cap, and a huge invalid instance costs a number
        // of passes that grows with its error count over the cap, not over the first batch.
        const FIRST: usize = 256;
        const CAP: usize = 1 << 16;
        if let Some(e) = self.batch.next() {
            self.produced += 1;
            return Some(e);
        }
        if self.done {
            return None;
        }
        if self.produced == 0 && crate::validate::is_valid(self.compiled, self.instance) {
            // A valid instance (the common case) has no errors to collect.
            self.done = true;
            return None;
        }
        let size = self.produced.clamp(FIRST, CAP);
        let errors =
            crate::validate::collect_errors(self.compiled, self.instance, self.produced, size);
        if errors.len() < size {
            self.done = true;
        }
        self.batch = errors.into_iter();
        let e = self.batch.next()?;
        self.produced += 1;
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The evaluator walks these in tight loops: keep them small.
    #[test]
    fn node_layout_is_compact() {
        // Exactly 16: the typed side-table ids (`ids.rs`) must not grow it either.
        assert!(
            std::mem::size_of::<Keyword>() == 16,
            "{}",
            std::mem::size_of::<Keyword>()
        );
        assert!(
            std::mem::size_of::<Node>() <= 16,
            "{}",
            std::mem::size_of::<Node>()
        );
        assert_eq!(std::mem::size_of::<NodeId>(), 4);
    }

    /// Compile writes one per annotation keyword (every `description` and `title`).
    #[test]
    fn annotations_are_compact() {
        assert!(
            std::mem::size_of::<Annotation>() <= 24,
            "{}",
            std::mem::size_of::<Annotation>()
        );
    }
}
