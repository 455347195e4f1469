//! [`Instance`]: what the evaluator reads of an instance, for `&serde_json::Value` and for
//! a flat [`Node`] alike, so that one evaluator serves both.
//!
//! Every method is `#[inline]`: on `&Value` each is the `match` the evaluator writes today,
//! so a generic evaluator monomorphised for `&Value` compiles to the same code.
//! Objects give each key with its summary (`names::summary`): a flat node has it from the
//! parse, a `Value` computes it (as the name tables' lookups do today).
//!
//! The evaluator (`validate/`, and the instance-side helpers of `json.rs` and `schema/`)
//! is generic over it; the port was a rewrite of patterns, one for one:
//! - `match instance { Value::Object(o) => .. }` → `if let Some(o) = instance.as_object()`;
//!   `Value::Array(items)` → `as_array()` (`items.len()`, `.iter()`, `.iter().skip(n)`
//!   (O(1)), `items.get(i)` for `items[i]` in `uniqueItems`); `Value::String(s)` →
//!   `as_str()`; `Value::Number(x)` → `as_number()` (an owned `serde_json::Number`, which
//!   every `json.rs` number rule takes by reference); `Value::Bool(b)` → `as_bool()`;
//! - `json::kind_index(v)` → `v.kind() as usize`; `JsonType::of(v)` → `v.json_type()`;
//! - `for (key, value) in o` + `names.find(c, key)` → `for (key, summary, value) in
//!   o.entries()` + a `Names::find` taking the summary (today it computes it from `key`);
//! - `json::has_key(o, name)` / `json::get(o, name)` / `o.get(name)` → `json::has(o,
//!   name)` / `json::lookup(o, name)` (`o.contains(name, summary)` / `o.get(name,
//!   summary)`, the name's summary computed at the call: a `Value` ignores it);
//! - `json::equal(instance, schema_value)`, `json::hash_value`, `json::value_signature`,
//!   `json::count_values` → [`Instance::equals`], [`Instance::hash_with`],
//!   [`Instance::signature`], [`Instance::count_values`]: on `&Value` the `json.rs`
//!   functions themselves, on a flat node [`equal`], [`hash`] (equal results, same hashes)
//!   and the parser's count;
//! - a `Value` built from the instance (`propertyNames` evaluates each key as a
//!   `Value::String` in a reused scratch) can stay a `&Value`: the generic evaluator calls
//!   itself at `&Value` there.

use super::parse::{
    self, ARRAY, BOOL, FLOAT, KIND_MASK, NEG_INT, NULL, NUMBER, NUMBER_FORM, OBJECT, STRING, TRUE,
};
use super::{Node, Slot, Tree};
use crate::json::JsonType;
use serde_json::{Map, Number, Value};

/// The kinds of value JSON has (integers and other numbers are one kind), numbered as the
/// evaluator's `json::kind_index` numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// `null`
    Null = 0,
    /// `true`, `false`
    Bool = 1,
    /// A number.
    Number = 2,
    /// A string.
    String = 3,
    /// An array.
    Array = 4,
    /// An object.
    Object = 5,
}

/// A JSON value as the evaluator reads it: a copyable handle.
///
/// ```
/// use toolschema::flat::{Document, Instance, Kind, Object};
///
/// fn names<'a, I: Instance<'a>>(v: I) -> Vec<&'a str> {
///     v.as_object().map(|o| o.entries().map(|(k, _, _)| k).collect()).unwrap_or_default()
/// }
/// let mut doc = Document::new();
/// let tree = doc.parse_str(r#"{"b": 1, "a": 2}"#)?;
/// let value: serde_json::Value = serde_json::from_str(r#"{"b": 1, "a": 2}"#).unwrap();
/// assert_eq!(names(tree.root()), ["b", "a"]); // document order
/// assert_eq!(names(&value), ["a", "b"]); // serde_json's map sorts
/// assert_eq!(tree.root().kind(), Kind::Object);
/// # Ok::<(), toolschema::flat::ParseError>(())
/// ```
pub trait Instance<'a>: Copy + 'a {
    /// An object's view.
    type Object: Object<'a, Value = Self>;
    /// An array's view.
    type Array: Array<'a, Item = Self>;

    /// The kind of value.
    fn kind(self) -> Kind;
    /// The value when it is a boolean.
    fn as_bool(self) -> Option<bool>;
    /// The value when it is a number, in serde_json's form (`u64`, negative `i64`, else
    /// `f64`): what `json.rs`'s number semantics take.
    fn as_number(self) -> Option<Number>;
    /// The text when it is a string.
    fn as_str(self) -> Option<&'a str>;
    /// The array's view when it is one.
    fn as_array(self) -> Option<Self::Array>;
    /// The object's view when it is one.
    fn as_object(self) -> Option<Self::Object>;

    /// The `Value` itself, for a `&Value` (`None` for a flat node): the evaluator's few
    /// representation-specific paths (the step budget's count) read it directly.
    fn as_value(self) -> Option<&'a Value>;
    /// How many values the document holds, counted as `json::count_values` counts them,
    /// when `self` is its root (a flat tree counted them while parsing).
    fn count_values(self) -> usize;
    /// JSON equality with a value of the schema ([`equal`]; `json::equal` for a `&Value`).
    fn equals(self, other: &Value) -> bool;
    /// [`hash`] (`json::hash_value` for a `&Value`: the same hash).
    fn hash_with(self, state: &ahash::RandomState) -> u64;
    /// `json::value_signature`: a few instructions, equal for equal values.
    #[inline]
    fn signature(self) -> u64 {
        use crate::names::mix;
        match self.kind() {
            Kind::String => crate::names::signature(self.as_str().unwrap_or_default()),
            Kind::Number => self
                .as_number()
                .map_or(0, |n| crate::json::number_signature(&n)),
            Kind::Null => mix(NULL_SEED),
            Kind::Bool => mix(BOOL_SEED ^ u64::from(self.as_bool().unwrap_or(false))),
            Kind::Array => mix(ARRAY_SEED ^ self.as_array().map_or(0, |a| a.len()) as u64),
            Kind::Object => mix(OBJECT_SEED ^ self.as_object().map_or(0, |o| o.len()) as u64),
        }
    }

    /// The JSON Schema type: numbers with no fractional part are `Integer`.
    #[inline]
    fn json_type(self) -> JsonType {
        match self.kind() {
            Kind::Null => JsonType::Null,
            Kind::Bool => JsonType::Boolean,
            Kind::Number => match self.as_number() {
                Some(n) if crate::json::is_integer(&n) => JsonType::Integer,
                _ => JsonType::Number,
            },
            Kind::String => JsonType::String,
            Kind::Array => JsonType::Array,
            Kind::Object => JsonType::Object,
        }
    }
}

/// An object's entries, distinct by name.
pub trait Object<'a>: Copy + 'a {
    /// The values.
    type Value: Instance<'a>;
    /// The entries: (name, its summary, value).
    type Entries: Iterator<Item = (&'a str, u64, Self::Value)>;
    /// The number of entries.
    fn len(self) -> usize;
    /// Whether there is none.
    #[inline]
    fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// The value of `name`, whose summary (`flat::summary(name)`) is `summary`.
    fn get(self, name: &str, summary: u64) -> Option<Self::Value>;
    /// Whether `name` (of summary `summary`) is a key.
    #[inline]
    fn contains(self, name: &str, summary: u64) -> bool {
        self.get(name, summary).is_some()
    }
    /// The value of `name`, its summary computed here when the representation needs it.
    #[inline(always)]
    fn lookup(self, name: &str) -> Option<Self::Value> {
        self.get(name, crate::names::summary(name))
    }
    /// The entries, in the representation's order (sorted by name for a serde_json map,
    /// the document's order for a flat node).
    fn entries(self) -> Self::Entries;
    /// [`Object::entries`] with each name sliced only when read ([`LazyKey::get`]): a walk
    /// that decides a short key by its summary alone reads no name. (The evaluator's;
    /// hidden from the documented API.)
    #[doc(hidden)]
    #[inline(always)]
    fn entries_lazy(self) -> impl Iterator<Item = (LazyKey<'a>, u64, Self::Value)> {
        self.entries()
            .map(|(name, summary, value)| (LazyKey(KeyAt::Text(name)), summary, value))
    }
    /// Whether every one of `names` is a key, `summaries` holding their summaries when
    /// computed (at compile time: `Compiled::string_summaries`), else empty. (The
    /// evaluator's; hidden from the documented API.)
    #[doc(hidden)]
    #[inline]
    fn has_all(self, names: &[std::sync::Arc<str>], summaries: &[u64]) -> bool {
        if summaries.len() == names.len() {
            names
                .iter()
                .zip(summaries)
                .all(|(name, &summary)| self.contains(name, summary))
        } else {
            names.iter().all(|name| self.lookup(name).is_some())
        }
    }
}

/// An entry's name as [`Object::entries_lazy`] gives it: on a flat node, where it is (a
/// slot of the tree), turned into a `&str` (two char-boundary checks) only by
/// [`LazyKey::get`]. Not a stable API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct LazyKey<'a>(KeyAt<'a>);

#[derive(Clone, Copy, Debug)]
enum KeyAt<'a> {
    Text(&'a str),
    Flat(&'a Tree<'a>, &'a Slot),
}

impl<'a> LazyKey<'a> {
    /// The name.
    #[inline(always)]
    pub fn get(self) -> &'a str {
        match self.0 {
            KeyAt::Text(name) => name,
            KeyAt::Flat(tree, slot) => parse::key_str(tree.input, tree.text, slot),
        }
    }
}

/// An array's items.
pub trait Array<'a>: Copy + 'a {
    /// The items.
    type Item: Instance<'a>;
    /// The items in order (skipping is O(1)).
    type Iter: ExactSizeIterator<Item = Self::Item> + DoubleEndedIterator + Clone;
    /// The number of items.
    fn len(self) -> usize;
    /// Whether there is none.
    #[inline]
    fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// Item `i`.
    fn get(self, i: usize) -> Option<Self::Item>;
    /// The items from index `n` on (none when `n` is past the end), in O(1).
    fn tail(self, n: usize) -> Self;
    /// The items.
    fn iter(self) -> Self::Iter;
}

// --- `&serde_json::Value` ---------------------------------------------------------

impl<'a> Instance<'a> for &'a Value {
    type Object = &'a Map<String, Value>;
    type Array = &'a [Value];

    #[inline(always)]
    fn kind(self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }
    #[inline(always)]
    fn as_bool(self) -> Option<bool> {
        self.as_bool()
    }
    #[inline(always)]
    fn as_number(self) -> Option<Number> {
        match self {
            Value::Number(n) => Some(n.clone()),
            _ => None,
        }
    }
    #[inline(always)]
    fn as_str(self) -> Option<&'a str> {
        Value::as_str(self)
    }
    #[inline(always)]
    fn as_array(self) -> Option<&'a [Value]> {
        Value::as_array(self).map(Vec::as_slice)
    }
    #[inline(always)]
    fn as_object(self) -> Option<&'a Map<String, Value>> {
        Value::as_object(self)
    }
    #[inline]
    fn json_type(self) -> JsonType {
        JsonType::of(self)
    }
    #[inline(always)]
    fn as_value(self) -> Option<&'a Value> {
        Some(self)
    }
    #[inline]
    fn count_values(self) -> usize {
        crate::json::count_values(self)
    }
    #[inline]
    fn equals(self, other: &Value) -> bool {
        crate::json::equal(self, other)
    }
    #[inline]
    fn hash_with(self, state: &ahash::RandomState) -> u64 {
        crate::json::hash_value(self, state)
    }
    #[inline]
    fn signature(self) -> u64 {
        crate::json::value_signature(self)
    }
}

/// Objects up to this many keys are scanned (as `json::get` does): the map's own search
/// calls `memcmp` at every probe.
const SCAN_KEYS: usize = 8;

impl<'a> Object<'a> for &'a Map<String, Value> {
    type Value = &'a Value;
    type Entries = ValueEntries<'a>;

    #[inline(always)]
    fn len(self) -> usize {
        Map::len(self)
    }
    #[inline]
    fn get(self, name: &str, _summary: u64) -> Option<&'a Value> {
        if Map::len(self) <= SCAN_KEYS {
            self.iter()
                .find(|(k, _)| crate::names::same(k, name))
                .map(|(_, v)| v)
        } else {
            Map::get(self, name)
        }
    }
    #[inline(always)]
    fn lookup(self, name: &str) -> Option<&'a Value> {
        Object::get(self, name, 0)
    }
    #[inline(always)]
    fn entries(self) -> ValueEntries<'a> {
        ValueEntries(self.iter())
    }
    /// The size test once for all names, the scan inline (no summary is read).
    #[inline]
    fn has_all(self, names: &[std::sync::Arc<str>], _summaries: &[u64]) -> bool {
        if Map::len(self) <= SCAN_KEYS {
            names
                .iter()
                .all(|name| self.keys().any(|k| crate::names::same(k, name)))
        } else {
            names.iter().all(|name| self.contains_key(&**name))
        }
    }
}

/// The entries of a serde_json map, each name's summary computed as it comes.
#[derive(Clone)]
pub struct ValueEntries<'a>(serde_json::map::Iter<'a>);

impl<'a> Iterator for ValueEntries<'a> {
    type Item = (&'a str, u64, &'a Value);
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .next()
            .map(|(k, v)| (k.as_str(), crate::names::summary(k), v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<'a> Array<'a> for &'a [Value] {
    type Item = &'a Value;
    type Iter = std::slice::Iter<'a, Value>;

    #[inline(always)]
    fn len(self) -> usize {
        <[Value]>::len(self)
    }
    #[inline(always)]
    fn get(self, i: usize) -> Option<&'a Value> {
        <[Value]>::get(self, i)
    }
    #[inline(always)]
    fn tail(self, n: usize) -> &'a [Value] {
        <[Value]>::get(self, n..).unwrap_or_default()
    }
    #[inline(always)]
    fn iter(self) -> std::slice::Iter<'a, Value> {
        <[Value]>::iter(self)
    }
}

// --- flat nodes -------------------------------------------------------------------

impl<'t> Node<'t> {
    /// The number's text as written (`1.0`, `1e2`, `123456789012345678901234567890`), for
    /// exact decimal semantics; `None` for any other kind.
    #[inline]
    pub fn number_text(self) -> Option<&'t str> {
        (self.slot.tag & KIND_MASK == NUMBER)
            .then(|| parse::number_text(self.tree.input, self.slot))
    }

    /// The children of a container slot.
    #[inline(always)]
    fn children(self, per: usize) -> &'t [Slot] {
        let start = self.slot.at as usize;
        let n = self.slot.word as usize * per;
        self.tree.slots.get(start..start + n).unwrap_or_default()
    }
}

impl<'t> Instance<'t> for Node<'t> {
    type Object = FlatObject<'t>;
    type Array = FlatArray<'t>;

    #[inline(always)]
    fn kind(self) -> Kind {
        match self.slot.tag & KIND_MASK {
            NULL => Kind::Null,
            BOOL => Kind::Bool,
            NUMBER => Kind::Number,
            STRING => Kind::String,
            ARRAY => Kind::Array,
            _ => Kind::Object,
        }
    }
    #[inline(always)]
    fn as_bool(self) -> Option<bool> {
        (self.slot.tag & KIND_MASK == BOOL).then_some(self.slot.tag & TRUE != 0)
    }
    #[inline(always)]
    fn as_number(self) -> Option<Number> {
        if self.slot.tag & KIND_MASK != NUMBER {
            return None;
        }
        let word = self.slot.word;
        Some(match self.slot.tag & NUMBER_FORM {
            NEG_INT => Number::from(word as i64),
            // (Only finite floats are stored: `from_f64` refuses none of them.)
            FLOAT => Number::from_f64(f64::from_bits(word)).unwrap_or_else(|| Number::from(0)),
            _ => Number::from(word),
        })
    }
    #[inline(always)]
    fn as_str(self) -> Option<&'t str> {
        (self.slot.tag & KIND_MASK == STRING)
            .then(|| parse::string_str(self.tree.input, self.tree.text, self.slot))
    }
    #[inline(always)]
    fn as_array(self) -> Option<FlatArray<'t>> {
        (self.slot.tag & KIND_MASK == ARRAY).then(|| FlatArray {
            tree: self.tree,
            items: self.children(1),
        })
    }
    #[inline(always)]
    fn as_object(self) -> Option<FlatObject<'t>> {
        (self.slot.tag & KIND_MASK == OBJECT).then(|| FlatObject {
            tree: self.tree,
            entries: self.children(2),
        })
    }
    #[inline]
    fn json_type(self) -> JsonType {
        match self.kind() {
            Kind::Number => match self.slot.tag & NUMBER_FORM {
                FLOAT if !crate::json::is_integral(f64::from_bits(self.slot.word)) => {
                    JsonType::Number
                }
                _ => JsonType::Integer,
            },
            Kind::Null => JsonType::Null,
            Kind::Bool => JsonType::Boolean,
            Kind::String => JsonType::String,
            Kind::Array => JsonType::Array,
            Kind::Object => JsonType::Object,
        }
    }
    #[inline(always)]
    fn as_value(self) -> Option<&'t Value> {
        None
    }
    #[inline]
    fn count_values(self) -> usize {
        self.tree.count_values()
    }
    #[inline]
    fn equals(self, other: &Value) -> bool {
        equal(self, other)
    }
    #[inline]
    fn hash_with(self, state: &ahash::RandomState) -> u64 {
        hash(self, state)
    }
}

/// A flat object: its entries, a key slot then a value slot each.
#[derive(Clone, Copy, Debug)]
pub struct FlatObject<'t> {
    tree: &'t Tree<'t>,
    entries: &'t [Slot],
}

impl<'t> Object<'t> for FlatObject<'t> {
    type Value = Node<'t>;
    type Entries = FlatEntries<'t>;

    #[inline(always)]
    fn len(self) -> usize {
        self.entries.len() / 2
    }
    /// A scan comparing summaries, then, for a long name, bytes; in a large object, a
    /// binary search of its index.
    #[inline]
    fn get(self, name: &str, summary: u64) -> Option<Node<'t>> {
        if self.len() > super::LARGE_OBJECT {
            return self.search(name, summary);
        }
        self.scan(name, summary)
    }
    #[inline(always)]
    fn entries(self) -> FlatEntries<'t> {
        FlatEntries {
            tree: self.tree,
            it: self.entries.chunks_exact(2),
        }
    }
    #[inline(always)]
    fn entries_lazy(self) -> impl Iterator<Item = (LazyKey<'t>, u64, Node<'t>)> {
        let tree = self.tree;
        self.entries.chunks_exact(2).filter_map(move |e| match e {
            [key, slot] => Some((
                LazyKey(KeyAt::Flat(tree, key)),
                key.word,
                Node { tree, slot },
            )),
            _ => None,
        })
    }
}

impl<'t> FlatObject<'t> {
    #[inline(always)]
    fn key(self, slot: &Slot) -> &'t str {
        parse::key_str(self.tree.input, self.tree.text, slot)
    }

    #[inline(always)]
    fn scan(self, name: &str, summary: u64) -> Option<Node<'t>> {
        self.entries.chunks_exact(2).find_map(|e| {
            (e[0].word == summary && crate::names::same_found(name, self.key(&e[0]))).then(|| {
                Node {
                    tree: self.tree,
                    slot: &e[1],
                }
            })
        })
    }

    /// `get` in a large object: its index (found by where its entries start) searched
    /// by (summary, name).
    #[inline(never)]
    fn search(self, name: &str, summary: u64) -> Option<Node<'t>> {
        let start = (self.entries.as_ptr() as usize)
            .wrapping_sub(self.tree.slots.as_ptr() as usize)
            / std::mem::size_of::<Slot>();
        let indexed = self
            .tree
            .large
            .binary_search_by_key(&start, |&(at, _)| at as usize)
            .ok()
            .and_then(|k| self.tree.large.get(k))
            .and_then(|&(_, offset)| {
                let offset = offset as usize;
                self.tree.index.get(offset..offset + self.len())
            });
        // (Every large object of a parse has its index; were one missing, the scan.)
        let Some(order) = indexed else {
            return self.scan(name, summary);
        };
        let at = order
            .binary_search_by(|&i| {
                let key = &self.entries[2 * i as usize];
                (key.word, self.key(key)).cmp(&(summary, name))
            })
            .ok()?;
        let i = *order.get(at)? as usize;
        self.entries.get(2 * i + 1).map(|slot| Node {
            tree: self.tree,
            slot,
        })
    }
}

/// The entries of a flat object, in the document's order.
#[derive(Clone, Debug)]
pub struct FlatEntries<'t> {
    tree: &'t Tree<'t>,
    it: std::slice::ChunksExact<'t, Slot>,
}

impl<'t> Iterator for FlatEntries<'t> {
    type Item = (&'t str, u64, Node<'t>);
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let e = self.it.next()?;
        let (key, value) = (&e[0], e.get(1)?);
        let name = parse::key_str(self.tree.input, self.tree.text, key);
        Some((
            name,
            key.word,
            Node {
                tree: self.tree,
                slot: value,
            },
        ))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
}

impl ExactSizeIterator for FlatEntries<'_> {}

/// A flat array: its items' slots, contiguous.
#[derive(Clone, Copy, Debug)]
pub struct FlatArray<'t> {
    tree: &'t Tree<'t>,
    items: &'t [Slot],
}

impl<'t> Array<'t> for FlatArray<'t> {
    type Item = Node<'t>;
    type Iter = FlatItems<'t>;

    #[inline(always)]
    fn len(self) -> usize {
        self.items.len()
    }
    #[inline(always)]
    fn get(self, i: usize) -> Option<Node<'t>> {
        self.items.get(i).map(|slot| Node {
            tree: self.tree,
            slot,
        })
    }
    #[inline(always)]
    fn tail(self, n: usize) -> FlatArray<'t> {
        FlatArray {
            tree: self.tree,
            items: self.items.get(n..).unwrap_or_default(),
        }
    }
    #[inline(always)]
    fn iter(self) -> FlatItems<'t> {
        FlatItems {
            tree: self.tree,
            it: self.items.iter(),
        }
    }
}

/// The items of a flat array.
#[derive(Clone, Debug)]
pub struct FlatItems<'t> {
    tree: &'t Tree<'t>,
    it: std::slice::Iter<'t, Slot>,
}

impl<'t> Iterator for FlatItems<'t> {
    type Item = Node<'t>;
    #[inline(always)]
    fn next(&mut self) -> Option<Node<'t>> {
        let tree = self.tree;
        self.it.next().map(|slot| Node { tree, slot })
    }
    #[inline(always)]
    fn nth(&mut self, n: usize) -> Option<Node<'t>> {
        let tree = self.tree;
        self.it.nth(n).map(|slot| Node { tree, slot })
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
}

impl DoubleEndedIterator for FlatItems<'_> {
    #[inline(always)]
    fn next_back(&mut self) -> Option<Self::Item> {
        let tree = self.tree;
        self.it.next_back().map(|slot| Node { tree, slot })
    }
}

impl ExactSizeIterator for FlatItems<'_> {}

// --- equality and hashing, through the trait ----------------------------------------

/// JSON equality as JSON Schema defines it (`const`, `enum`, `uniqueItems`), between any
/// two representations: numbers by value (`1` is `1.0`), objects in any key order. The
/// rule of `json::equal`, generic.
///
/// Deep values cannot overflow the stack: every 32 levels the walk moves to a fresh stack
/// segment when little is left.
pub fn equal<'a, 'b, A: Instance<'a>, B: Instance<'b>>(a: A, b: B) -> bool {
    equal_at(a, b, 0)
}

/// Levels between two checks of the stack left (as `json::equal`).
const GROW_EVERY: u32 = 32;

#[inline(always)]
fn deeper<R>(depth: u32, f: impl FnOnce() -> R) -> R {
    if depth % GROW_EVERY == GROW_EVERY - 1 {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
    } else {
        f()
    }
}

fn equal_at<'a, 'b, A: Instance<'a>, B: Instance<'b>>(a: A, b: B, depth: u32) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Bool, Kind::Bool) => a.as_bool() == b.as_bool(),
        (Kind::Number, Kind::Number) => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => crate::json::num_eq(&x, &y),
            _ => false,
        },
        (Kind::String, Kind::String) => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => crate::names::same(x, y),
            _ => false,
        },
        (Kind::Array, Kind::Array) => match (a.as_array(), b.as_array()) {
            (Some(x), Some(y)) => {
                x.len() == y.len()
                    && deeper(depth, || {
                        x.iter()
                            .zip(y.iter())
                            .all(|(p, q)| equal_at(p, q, depth + 1))
                    })
            }
            _ => false,
        },
        (Kind::Object, Kind::Object) => match (a.as_object(), b.as_object()) {
            (Some(x), Some(y)) => {
                x.len() == y.len() && deeper(depth, || objects_equal(x, y, depth + 1))
            }
            _ => false,
        },
        _ => false,
    }
}

/// Two objects of equal length, both distinct by name: walked side by side while their
/// names agree in order, each name looked up once they do not.
fn objects_equal<'a, 'b, X: Object<'a>, Y: Object<'b>>(x: X, y: Y, depth: u32) -> bool {
    let mut others = y.entries();
    for (k, _, v) in x.entries() {
        match others.next() {
            Some((l, _, w)) if crate::names::same(k, l) => {
                if !equal_at(v, w, depth) {
                    return false;
                }
            }
            _ => {
                return x
                    .entries()
                    .all(|(k, s, v)| y.get(k, s).is_some_and(|w| equal_at(v, w, depth)));
            }
        }
    }
    true
}

/// Seeds that keep kinds apart (`json.rs`'s, so that both hashes agree).
const NULL_SEED: u64 = 0x6e75_6c6c;
const BOOL_SEED: u64 = 0x626f_6f6c;
const ARRAY_SEED: u64 = 0x6172_7261_7900_0000;
const OBJECT_SEED: u64 = 0x6f62_6a65_6374_0000;

/// A hash consistent with [`equal`], the same as `json::hash_value` gives the equal
/// `Value`: equal values hash alike whatever their representation.
pub fn hash<'a, I: Instance<'a>>(value: I, state: &ahash::RandomState) -> u64 {
    hash_at(value, state, 0)
}

fn hash_at<'a, I: Instance<'a>>(value: I, state: &ahash::RandomState, depth: u32) -> u64 {
    match value.kind() {
        Kind::Null => NULL_SEED,
        Kind::Bool => BOOL_SEED ^ u64::from(value.as_bool().unwrap_or(false)),
        Kind::Number => {
            let sig = value
                .as_number()
                .map_or(0, |n| crate::json::number_signature(&n));
            state.hash_one((0x6e75_6d62u32, sig))
        }
        Kind::String => state.hash_one(value.as_str().unwrap_or_default()),
        Kind::Array => {
            let Some(items) = value.as_array() else {
                return ARRAY_SEED;
            };
            deeper(depth, || {
                items
                    .iter()
                    .fold(ARRAY_SEED ^ items.len() as u64, |h, item| {
                        state.hash_one((h, hash_at(item, state, depth + 1)))
                    })
            })
        }
        Kind::Object => {
            let Some(map) = value.as_object() else {
                return OBJECT_SEED;
            };
            let sum = deeper(depth, || {
                map.entries().fold(0u64, |sum, (k, _, v)| {
                    sum.wrapping_add(state.hash_one((k, hash_at(v, state, depth + 1))))
                })
            });
            state.hash_one((OBJECT_SEED ^ map.len() as u64, sum))
        }
    }
}
