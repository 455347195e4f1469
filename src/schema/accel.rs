//! The accelerator tables' types: what the compiler's shortcuts (`compile::accel`) build
//! for the fail-fast path. Under `Options::shortcuts(false)` none is built; the semantic
//! program (nodes, keywords and the side tables they index) is in the parent module.

use super::*;

/// The accelerators of a compiled schema (`Compiled::accel`): tables the compiler's
/// shortcuts build and the fail-fast path reads. Where the general keyword loop reads one
/// (name lookups, `properties` order, the fused `required` count), it has a fallback from
/// the semantic tables for when the table is absent: under `Options::shortcuts(false)`
/// every table here is empty (see [`Accelerators::is_empty`]), and the keyword loop
/// decides alone.
#[derive(Debug)]
pub(crate) struct Accelerators {
    /// Where `is_valid` starts (`NodeId::NONE`: the root, see `Compiled::fail_fast_root`):
    /// the root, or the target of a root of the forward shape whose check its target's
    /// implies (`{"$ref": "#/$defs/Message", ...}`, a fused `allOf`), see
    /// `Compiled::fail_fast_target`.
    pub(crate) fail_fast_root: NodeId,
    /// Indices into `properties`, cheapest first within each span (for evaluation).
    pub(crate) property_order: Vec<u32>,
    /// Beside `properties`: the property's position in its span's `property_order`.
    pub(crate) property_rank: Vec<u32>,
    /// At the first entry of each `properties` span: whether its subschemas that are not
    /// assertions only come cheapest first in name order (the instance's key order), so
    /// that one walk of the instance is a good evaluation order.
    pub(crate) deferred_in_name_order: Vec<bool>,
    /// Beside `properties`: the name is required by a sibling `required` whose check the
    /// fail-fast walk of the instance's keys does (see `walk_required`).
    pub(crate) property_required: Vec<bool>,
    /// At the first entry of a `properties` span: how many of its names the instance must
    /// have (a sibling `required`, checked by counting during the walk; 0 when none).
    pub(crate) walk_required: Vec<u32>,
    /// At the first entry of a `required` span in `strings`: the fail-fast path leaves the
    /// check to the sibling properties walk.
    pub(crate) required_walked: Vec<bool>,
    /// Beside `properties`: (name summary, index into `properties`), by summary within
    /// each span (see [`Compiled::find_property`] and `names::summary`).
    pub(crate) property_sigs: Vec<(u64, u32)>,
    /// At the first entry of a `properties` span of more than [`SCAN_LIMIT`] names: its
    /// hash table in `property_hash` (start, size - 1; one entry when its names crowd it,
    /// see [`Names::Hash`]).
    pub(crate) property_tables: Vec<(u32, u32)>,
    /// Per node: the index of its `ArraySpec` (typed-array shape) or `ObjectSpec`
    /// (plain-object shape); for a node of the forward shape, the node the fail-fast path
    /// goes on to (see `accel::forwards::forward_targets`).
    pub(crate) spec_of: Vec<u32>,
    pub(crate) array_specs: Vec<ArraySpec>,
    pub(crate) object_specs: Vec<ObjectSpec>,
    /// Per node of the property-test shape (through `spec_of`): what it tests.
    pub(crate) property_tests: Vec<PropertyTest>,
    /// Per node of the type-switch shape (through `spec_of`): the branch for each kind of
    /// instance (null, boolean, number, string, array, object), `NodeId::NONE` for none.
    pub(crate) type_switches: Vec<[NodeId; 6]>,
    /// Open-addressing tables of (signature, index into `properties`); empty slots have
    /// index `u32::MAX`.
    pub(crate) property_hash: Vec<(u64, u32)>,
    /// Per `values` entry: at the first value of an `enum` of more than
    /// [`ENUM_SCAN_LIMIT`] values, its hash table of values in `enum_hash` (start,
    /// size - 1); (0, 0) elsewhere. Empty when no `enum` is that long.
    pub(crate) enum_tables: Vec<(u32, u32)>,
    /// Open-addressing tables of (signature, index into `values`) of long enums' values
    /// (`json::enum_signature`, slot by `json::table_slot`); empty slots have index
    /// `u32::MAX`.
    pub(crate) enum_hash: Vec<(u64, u32)>,
    /// Beside `properties`, for the fail-fast walks of objects: each property's subschema
    /// (a forward gives way to its target, as in `branch_targets`) and 1 when the walk
    /// counts the name for a sibling `required` (`property_required`), read together.
    pub(crate) property_walk: Vec<(NodeId, u32)>,
    /// Beside `properties`, for a span with sibling `additionalProperties` and
    /// `patternProperties`: whether some sibling pattern may match the name (false when
    /// every one is ruled out, see `Pattern::rules_out_name`), so that the patterned walk
    /// skips the patterns for a declared key. False elsewhere (no pattern to skip).
    pub(crate) property_patterned: Vec<bool>,
    /// Beside `node_lists`: each node, or for a node of the forward shape whose check its
    /// target's implies, that target (see `Compiled::branches`).
    pub(crate) branch_targets: Vec<NodeId>,
    /// Per `node_lists` entry: for the first entry of a `oneOf`/`anyOf` list, its index in
    /// `dispatches` (or `DispatchId::NONE`).
    pub(crate) list_dispatch: Vec<DispatchId>,
    pub(crate) dispatches: Vec<Dispatch>,
    /// Per `node_lists` entry: true at the first entry of a `oneOf` list whose branches
    /// no instance can match two of (see `accel::exclusive`): the first match decides.
    pub(crate) list_exclusive: Vec<bool>,
    /// Per `node_lists` entry of a `oneOf`/`anyOf` list: names of which an object the
    /// branch accepts holds at least one (`None`: not known; empty: no object is
    /// accepted), see `accel::presence`; empty when no list has any.
    pub(crate) presence: Vec<Option<Box<[Arc<str>]>>>,
    /// Per `node_lists` entry: true at the first entry of a list some of whose branches
    /// have a presence filter.
    pub(crate) list_presence: Vec<bool>,
    /// Per node with `unevaluatedProperties` (sorted by node): the properties known to be
    /// evaluated whenever the node is valid (see `accel::unevaluated`).
    pub(crate) unevaluated: Vec<(NodeId, Unevaluated)>,
    /// The chains of conditions on one property (see `accel::if_chains`); none for most
    /// schemas (boxed: a word in `Compiled`, which is moved as it is built).
    pub(crate) if_chains: Option<Box<IfChains>>,
    /// Beside `dispatches` and `property_tests`: the summary (`names::summary`) of the
    /// property each looks up, computed once by `accel::summaries` so that a flat
    /// object's lookup only compares integers (a `Value` lookup ignores them).
    pub(crate) dispatch_summaries: Vec<u64>,
    pub(crate) property_test_summaries: Vec<u64>,
}

impl Default for Accelerators {
    fn default() -> Accelerators {
        Accelerators {
            fail_fast_root: NodeId::NONE,
            property_order: Vec::new(),
            property_rank: Vec::new(),
            deferred_in_name_order: Vec::new(),
            property_required: Vec::new(),
            walk_required: Vec::new(),
            required_walked: Vec::new(),
            property_sigs: Vec::new(),
            property_tables: Vec::new(),
            spec_of: Vec::new(),
            array_specs: Vec::new(),
            object_specs: Vec::new(),
            property_tests: Vec::new(),
            type_switches: Vec::new(),
            property_hash: Vec::new(),
            enum_tables: Vec::new(),
            enum_hash: Vec::new(),
            property_walk: Vec::new(),
            property_patterned: Vec::new(),
            branch_targets: Vec::new(),
            list_dispatch: Vec::new(),
            dispatches: Vec::new(),
            list_exclusive: Vec::new(),
            presence: Vec::new(),
            list_presence: Vec::new(),
            unevaluated: Vec::new(),
            if_chains: None,
            dispatch_summaries: Vec::new(),
            property_test_summaries: Vec::new(),
        }
    }
}

impl Accelerators {
    /// Whether no accelerator is built (the reference configuration): every table empty,
    /// no start past the root. Lists every field, so that a new table must be decided here.
    pub(crate) fn is_empty(&self) -> bool {
        let Accelerators {
            fail_fast_root,
            property_order,
            property_rank,
            deferred_in_name_order,
            property_required,
            walk_required,
            required_walked,
            property_sigs,
            property_tables,
            spec_of,
            array_specs,
            object_specs,
            property_tests,
            type_switches,
            property_hash,
            enum_tables,
            enum_hash,
            property_walk,
            property_patterned,
            branch_targets,
            list_dispatch,
            dispatches,
            list_exclusive,
            presence,
            list_presence,
            unevaluated,
            if_chains,
            dispatch_summaries,
            property_test_summaries,
        } = self;
        fail_fast_root.is_none()
            && property_order.is_empty()
            && property_rank.is_empty()
            && deferred_in_name_order.is_empty()
            && property_required.is_empty()
            && walk_required.is_empty()
            && required_walked.is_empty()
            && property_sigs.is_empty()
            && property_tables.is_empty()
            && spec_of.is_empty()
            && array_specs.is_empty()
            && object_specs.is_empty()
            && property_tests.is_empty()
            && type_switches.is_empty()
            && property_hash.is_empty()
            && enum_tables.is_empty()
            && enum_hash.is_empty()
            && property_walk.is_empty()
            && property_patterned.is_empty()
            && branch_targets.is_empty()
            && list_dispatch.is_empty()
            && dispatches.is_empty()
            && list_exclusive.is_empty()
            && presence.is_empty()
            && list_presence.is_empty()
            && unevaluated.is_empty()
            && if_chains.is_none()
            && dispatch_summaries.is_empty()
            && property_test_summaries.is_empty()
    }
}

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
    /// The walk `ObjectWalk::Few`'s names, inline (empty for the other walks).
    pub(crate) few: FewNames,
}

/// Up to this many declared names, a plain object's walk keeps them in its spec
/// ([`FewNames`], `ObjectWalk::Few`): the tool arguments MCP servers declare (github's
/// `issue_write` has 14), the small records of the bench corpus (helm-chart-lock's
/// dependencies, code-climate's issues).
pub(crate) const FEW_NAMES: usize = 16;

/// The declared names of a walk of a few names, each with what the walk reads of it, side
/// by side in the spec: its summary (`names::summary`), its subschema (past forwards, as
/// `property_walk` holds it), whether it counts for `required`, and, when that subschema
/// is decided by its types alone (`{"type": "string"}`), those types. A key is then
/// matched by comparing its summary with a few integers in the spec's own cache lines,
/// with no read of `property_sigs`, `property_walk` or their bounds per key (the table
/// work issue #46's profiles found in every key of a small object), and a value of a
/// bare `type` property is checked there too, with no read of its node; only a key of
/// `names::EXACT_BELOW` bytes or more, whose summary does not tell it apart, reads its
/// name to compare the bytes.
///
/// The names are kept sorted by their bytes, as a serde_json `Map` gives its keys, and a
/// walk starts each search just past the name the previous key matched
/// ([`FewNames::find`]): on a `Value`, a key whose name follows the previous key's (every
/// key when the object holds all the names up to its last) is found by one comparison.
/// The order is only a hint: on a miss the names are scanned, past a 64-bit filter that
/// turns most undeclared keys away at once, so a flat document's keys, in any order, are
/// found all the same.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FewNames {
    /// The summaries of the names, sorted by name; past `len`, unused.
    pub(crate) summaries: [u64; FEW_NAMES],
    /// The names' subschemas, past forwards (`property_walk`'s).
    pub(crate) children: [NodeId; FEW_NAMES],
    /// The names' indices into `properties` (for the bytes of a long key).
    pub(crate) names: [u32; FEW_NAMES],
    /// The types of the subschemas whose bit is set in `typed`.
    pub(crate) types: [TypeSet; FEW_NAMES],
    /// Bit `j`: name `j`'s subschema is decided by its types (shape `Empty` or
    /// `TypeUnion`), kept in `types`: the fail-fast walk tests them without a call.
    pub(crate) typed: u16,
    /// Bit `j`: name `j` is counted for a sibling `required` (`property_required`).
    pub(crate) required: u16,
    /// The union of the names' [`FewNames::filter_bit`]s: a key whose bit is clear is no
    /// declared name, with no summary compared (the undeclared keys of an open object,
    /// the extra key of a closed one).
    pub(crate) filter: u64,
    /// How many names.
    pub(crate) len: u8,
}

impl FewNames {
    /// No names (the other walks).
    pub(crate) const NONE: FewNames = FewNames {
        summaries: [0; FEW_NAMES],
        children: [NodeId::NONE; FEW_NAMES],
        names: [0; FEW_NAMES],
        types: [TypeSet::empty(); FEW_NAMES],
        typed: 0,
        required: 0,
        filter: 0,
        len: 0,
    };

    /// The position of `key` (of summary `summary`) among the names, if declared: first
    /// name `from` (where the sorted order says the next key is), then, unless
    /// [`FewNames::filter`] rules the key out, the names from there on, round to the one
    /// before it. (Equal summaries of different long names are rare; the scan goes on
    /// past them.)
    #[inline(always)]
    pub(crate) fn find(
        &self,
        c: &Compiled,
        key: crate::flat::LazyKey<'_>,
        summary: u64,
        from: usize,
    ) -> Option<usize> {
        let len = usize::from(self.len).min(FEW_NAMES);
        if from < len && self.is(c, from, key, summary) {
            return Some(from);
        }
        if self.filter & FewNames::filter_bit(summary) == 0 {
            return None;
        }
        // (A plain loop: `Iterator::find`'s `try_fold` stayed out of line on the `Value`
        // path, +12% instructions a call on the MCP tool sources.)
        let mut j = from;
        for _ in 0..len {
            j += 1;
            if j >= len {
                j = 0;
            }
            if self.is(c, j, key, summary) {
                return Some(j);
            }
        }
        None
    }

    /// Whether `key` (of summary `summary`) is name `j`: a short key by its summary alone
    /// (which says it is short: its name is not read, nor, on a flat node, sliced), a
    /// long one by its bytes too when the summaries match.
    #[inline(always)]
    fn is(&self, c: &Compiled, j: usize, key: crate::flat::LazyKey<'_>, summary: u64) -> bool {
        // (A `match`, not `is_some_and`: its closure stayed out of line, +4% on
        // helm-chart-lock's `Value` path.)
        self.summaries[j % FEW_NAMES] == summary
            && (crate::names::summary_is_exact(summary)
                || match c.properties.get(self.names[j % FEW_NAMES] as usize) {
                    Some((name, _)) => crate::names::same(name, key.get()),
                    None => false,
                })
    }

    /// The bit of `filter` a name of summary `summary` sets: six bits of its signature
    /// (`names::mix`'s multiply, its top bits the best mixed).
    #[inline(always)]
    pub(crate) const fn filter_bit(summary: u64) -> u64 {
        1 << (summary.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
    }
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
    /// `Keys` for a few names (at most [`FEW_NAMES`]), kept inline in the spec
    /// (`ObjectSpec::few`): no lookup table is read per key.
    Few,
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
        additional: AdditionalId,
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
