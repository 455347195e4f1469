//! JSON text parsed into a flat, reusable layout, for validating straight from bytes.
//!
//! Most callers hold bytes, not a `serde_json::Value`: parsing into a `Value` costs an
//! allocation per string, array and object, and then the evaluator's first touch of each
//! `BTreeMap` node. Here a [`Document`] parses the text into one vector of 16-byte
//! [`slots`](Slot): the direct children of an array, and the (key, value) entries of an
//! object, sit side by side, so an array is indexed and an object scanned without a
//! pointer chase per element. Each key's [`summary`] (`names::summary`, what
//! the compiled name tables compare; its signature is `names::mix` of it) is computed
//! while the key is in cache. Strings with no escape are borrowed from the input; the
//! others are unescaped into one reusable text buffer. Numbers keep their place in the
//! text (the exact decimal as written) and the value serde_json would give them
//! (`u64`, `i64` or `f64`). A `Document` is cleared, never freed, between parses: once
//! its buffers have grown to the largest input seen, parsing allocates nothing.
//!
//! The grammar and the values are serde_json's (`from_slice::<Value>`), so that the two
//! representations validate alike:
//! - the same inputs are accepted (RFC 8259, nothing more: no comments, no trailing
//!   commas, no `NaN`); a number whose value overflows `f64` (`1e400`) is refused, as
//!   serde_json refuses it; `-0` is the float `-0.0`, integers past `u64`/`i64` are floats;
//! - depth is bounded as serde_json bounds it by default (127 levels of arrays and
//!   objects; configurable with [`Document::max_depth`]); the parser itself is a loop with
//!   an explicit stack, so no depth can overflow the thread's stack;
//! - a key given twice keeps the value given last, at the place of its first occurrence
//!   (serde_json keeps the last value too; its map then sorts the keys, this layout keeps
//!   the document's order): an object never holds one name twice, so a validator reading
//!   it sees the value the application will see;
//! - floats get serde_json's value: without its `float_roundtrip` feature (this crate
//!   does not enable it) serde_json may be a unit in the last place off the nearest float
//!   (it is on real coordinates), and the same arithmetic is done here; when another crate
//!   of the build enables it, serde_json rounds correctly, and so does this parser (the
//!   mode is probed once at run time).
//!
//! Malformed text is a [`ParseError`] with a byte offset, line and column, never a panic.
//! Inputs are bounded to `u32` offsets ([`MAX_INPUT`], about 2 GiB) and, below that, by
//! what the caller passes.
//!
//! The [`Instance`] trait reads both representations alike: the evaluator is generic over
//! it, so `Schema::is_valid_json` runs it on the flat tree and `Schema::is_valid` on a
//! `&Value`.
//!
//! Why a parser of our own rather than simd-json's tape or sonic-rs (measured side by side
//! on the bench corpus, `benches/benches/parse.rs`: 0.87x simd-json's throughput, 1.16x
//! sonic-rs's, 4.9x serde_json's, geomean): neither gives what the evaluator needs
//! without a second pass. Neither computes key summaries; simd-json's tape must be walked
//! to index an array or skip a value, and its input is mutated (a copy per text);
//! neither keeps a number's text (exact decimals); both keep repeated keys (serde_json
//! keeps the last, and a validator must see the value the application sees); sonic-rs
//! allocates per document; and both rest on `unsafe` SIMD code, where this module has
//! no `unsafe` at all.
//!
//! ```
//! use toolschema::flat::{Document, Instance, Object};
//!
//! let mut doc = Document::new();
//! let tree = doc.parse(br#"{"name": "Ada", "tags": ["a", "b"], "n": 1.0}"#)?;
//! let root = tree.root();
//! let object = root.as_object().expect("an object");
//! assert_eq!(object.len(), 3);
//! let name = object.get("name", toolschema::flat::summary("name")).and_then(|v| v.as_str());
//! assert_eq!(name, Some("Ada"));
//! # Ok::<(), toolschema::flat::ParseError>(())
//! ```

mod instance;
mod parse;
#[cfg(test)]
mod tests;

pub use instance::{Array, Instance, Kind, LazyKey, Object, equal, hash};
pub use parse::{MAX_INPUT, ParseError, ParseErrorKind};

/// The summary of a property name that object entries carry: the one the compiled name
/// tables compare (`names::summary`); equal names have equal summaries.
#[inline(always)]
pub fn summary(name: &str) -> u64 {
    crate::names::summary(name)
}

/// The default bound on nesting, serde_json's: `from_slice` reads 127 nested arrays and
/// objects and refuses 128 (its recursion limit of 128 counts the level it fails at).
pub const DEFAULT_MAX_DEPTH: u32 = 127;

/// One value, or one object key, in the flat layout: 16 bytes.
///
/// A value: `tag` holds the [`Kind`] in its low three bits and flags above (see the
/// constants in `parse`); a string has its start (`at`) and length (`word`) in the input or
/// in the unescaped text; a number its text start (`at`), the text length in the tag's top
/// 24 bits (saturated) and the value's bits (`word`); an array or an object the index of
/// its first child slot (`at`) and its length (`word`; an object's entries take two slots
/// each, key then value). A key: its summary (`word`), start (`at`) and length, with the
/// escaped flag in the top bit (`tag`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Slot {
    word: u64,
    at: u32,
    tag: u32,
}

/// A reusable parser and the storage of the last document it parsed.
///
/// Keep one per thread (or per worker) and parse every instance with it: its buffers are
/// cleared, not freed, so steady-state parsing allocates nothing.
///
/// ```
/// use toolschema::flat::{Document, Instance};
///
/// let mut doc = Document::new();
/// for text in ["[1, 2, 3]", "{\"a\": null}"] {
///     let tree = doc.parse_str(text)?;
///     assert!(tree.root().as_array().is_some() || tree.root().as_object().is_some());
/// }
/// assert!(doc.parse_str("[1, 2").is_err());
/// # Ok::<(), toolschema::flat::ParseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Document {
    /// The finished slots: every container's children, contiguous; the root last.
    slots: Vec<Slot>,
    /// The children of the containers still open, moved to `slots` when one closes.
    stack: Vec<Slot>,
    /// The open containers: where their children start on `stack`, and whether each is
    /// an object.
    frames: Vec<(u32, bool)>,
    /// Unescaped strings and keys (those with a backslash in the input).
    text: String,
    /// Scratch for the duplicate-key check of large objects: (summary, entry index).
    keys: Vec<(u64, u32)>,
    /// Scratch for walking the values a repeated key drops.
    walk: Vec<Slot>,
    /// The entries of each large object (over [`LARGE_OBJECT`] entries), by position,
    /// sorted by (summary, name): its lookups are binary searches, not scans.
    index: Vec<u32>,
    /// Per large object, in the order they closed: where its entries start in `slots`
    /// and its part of `index` (both increase, so this is sorted by the first).
    large: Vec<(u32, u32)>,
    /// The values parsed (see [`Tree::count_values`]).
    values: u64,
    max_depth: u32,
}

/// Objects with more entries than this get a sorted index when parsed: a name lookup in
/// one costs O(log n) comparisons, as in a `serde_json` map, rather than a scan (which a
/// schema listing many names would repeat for each, in O(names × keys)).
pub(crate) const LARGE_OBJECT: usize = 32;

impl Default for Document {
    fn default() -> Self {
        Document::new()
    }
}

impl Document {
    /// An empty document, with the default depth bound ([`DEFAULT_MAX_DEPTH`]).
    pub fn new() -> Document {
        Document {
            slots: Vec::new(),
            stack: Vec::new(),
            frames: Vec::new(),
            text: String::new(),
            keys: Vec::new(),
            walk: Vec::new(),
            index: Vec::new(),
            large: Vec::new(),
            values: 0,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    /// The same, reading documents nested up to `depth` arrays and objects and refusing
    /// deeper ones (`depth` at least 1). Parsing needs no stack however deep; the bound protects what reads the
    /// tree recursively.
    pub fn max_depth(mut self, depth: u32) -> Document {
        self.max_depth = depth.max(1);
        self
    }

    /// Parses `input` (UTF-8 JSON text), replacing the previous document.
    ///
    /// # Errors
    /// [`ParseError`] for text that is not one JSON value (with optional whitespace
    /// around it), for invalid UTF-8, nesting past the bound, a number out of `f64`
    /// range, or an input of [`MAX_INPUT`] bytes or more.
    // (Inline: out of line, its set-up and the `Tree` it returns cost a 19-byte call 6%.)
    #[inline(always)]
    pub fn parse<'d>(&'d mut self, input: &'d [u8]) -> Result<Tree<'d>, ParseError> {
        let text = parse::utf8(input)?;
        self.parse_str(text)
    }

    /// [`Document::parse`] of text already known to be UTF-8.
    ///
    /// # Errors
    /// As [`Document::parse`].
    #[inline(always)]
    pub fn parse_str<'d>(&'d mut self, input: &'d str) -> Result<Tree<'d>, ParseError> {
        self.clear();
        parse::parse(self, input)?;
        Ok(Tree {
            input,
            text: &self.text,
            slots: &self.slots,
            index: &self.index,
            large: &self.large,
            values: self.values,
        })
    }

    #[inline(always)]
    fn clear(&mut self) {
        // (`keys` and `walk` are scratch their users clear before use.)
        self.slots.clear();
        self.stack.clear();
        self.frames.clear();
        self.text.clear();
        self.index.clear();
        self.large.clear();
        self.values = 0;
    }

    /// Bytes of scratch the document holds (capacity, not use): what a parse of the
    /// largest input seen so far needed.
    pub fn scratch_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.capacity() * size_of::<Slot>()
            + self.stack.capacity() * size_of::<Slot>()
            + self.frames.capacity() * size_of::<(u32, bool)>()
            + self.text.capacity()
            + self.keys.capacity() * size_of::<(u64, u32)>()
            + self.walk.capacity() * size_of::<Slot>()
            + self.index.capacity() * size_of::<u32>()
            + self.large.capacity() * size_of::<(u32, u32)>()
    }

    /// Frees the buffers when they grew past `bytes` (after an unusually large input),
    /// so that a long-lived document does not keep the memory of its largest input.
    pub fn shrink_to(&mut self, bytes: usize) {
        if self.scratch_bytes() > bytes {
            let depth = self.max_depth;
            *self = Document::new();
            self.max_depth = depth;
        }
    }
}

/// A parsed document: the input, the unescaped text and the slots, borrowed from the
/// [`Document`] until its next parse.
#[derive(Debug, Clone, Copy)]
pub struct Tree<'d> {
    input: &'d str,
    text: &'d str,
    slots: &'d [Slot],
    index: &'d [u32],
    large: &'d [(u32, u32)],
    values: u64,
}

impl<'d> Tree<'d> {
    /// The top-level value.
    #[inline]
    pub fn root<'t>(&'t self) -> Node<'t> {
        // (The parser always leaves the root last; an empty slice cannot come from it.)
        let slot = self.slots.last().unwrap_or(&EMPTY);
        Node { tree: self, slot }
    }

    /// How many values the document holds, counted as the evaluator's step budget counts
    /// a `Value` (`json::count_values`: every value once, a string once more per 4,096
    /// bytes; keys not counted), with no walk: the parser counted them.
    #[inline]
    pub fn count_values(&self) -> usize {
        self.values as usize
    }

    /// How many slots the document took (16 bytes each).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }
}

/// A `null`, for the root of a tree that has none (never made by a parse).
static EMPTY: Slot = Slot {
    word: 0,
    at: 0,
    tag: 0,
};

/// A value in a [`Tree`]: a copyable handle of two pointers (the tree, the slot).
#[derive(Clone, Copy, Debug)]
pub struct Node<'t> {
    tree: &'t Tree<'t>,
    slot: &'t Slot,
}
