//! Ruby data as the engine reads it: one walk over the Ruby objects checks that they are
//! JSON data (as `JSON.dump` would see them) and lays their structure out in a flat
//! table of slots; strings are borrowed in place, never copied. The table implements
//! the engine's [`Instance`] trait, so the evaluator reads it directly: no JSON text and
//! no `serde_json::Value` is built.
//!
//! Safety rests on one rule: between the walk and the last read of the table, no Ruby
//! object is allocated and no Ruby code runs, so the garbage collector cannot run, move
//! or free a string whose bytes a slot borrows, and no other Ruby thread can mutate one
//! (the GVL is held throughout). Errors are turned into Ruby exceptions only after the
//! table is dropped; the location they name is built first, in Rust memory.

use rb_sys::stable_api::StableApiDefinition;
use rb_sys::{VALUE, ruby_value_type as T};
use serde_json::{Map, Number, Value};
use std::ffi::c_int;
use toolschema::flat::{Array, Instance, Kind, Object};

/// One value of the table: an array's items and an object's entries are contiguous.
#[derive(Clone, Copy)]
pub(crate) struct Slot<'a> {
    /// The key of an object entry (empty for an array item and the root).
    key: &'a str,
    /// The key's summary (`flat::summary`), what the evaluator's name tables compare.
    summary: u64,
    node: Node<'a>,
}

#[derive(Clone, Copy)]
enum Node<'a> {
    Null,
    Bool(bool),
    /// A non-negative integer.
    UInt(u64),
    /// A negative integer.
    Int(i64),
    /// A finite float, or an integer past `u64`/`i64` (as serde_json reads its text).
    Float(f64),
    Str(&'a str),
    /// `start`, `len` in the table; `raw`, the Ruby array (for telling a cycle apart).
    Array {
        start: u32,
        len: u32,
        raw: VALUE,
    },
    /// `start`, `len`; `index`, where its sorted index starts in [`Tree::index`] when it
    /// has more than [`LARGE_OBJECT`] entries (else `u32::MAX`).
    Object {
        start: u32,
        len: u32,
        index: u32,
        raw: VALUE,
    },
}

/// Objects with more entries than this get an index sorted by (summary, name): a lookup
/// is a binary search, not a scan (the flat parser's threshold).
const LARGE_OBJECT: u32 = 32;

/// The deepest nesting of arrays and objects read, the engine's bound on JSON text
/// (`flat::DEFAULT_MAX_DEPTH`, serde_json's), so that `valid?` and `valid_json?` accept
/// the same documents.
pub(crate) const MAX_DATA_DEPTH: u32 = toolschema::flat::DEFAULT_MAX_DEPTH;

/// The walked data.
pub(crate) struct Tree<'a> {
    slots: Vec<Slot<'a>>,
    /// Per slot, the slot of its container (the root's is itself).
    parents: Vec<u32>,
    /// The sorted indexes of large objects, end to end.
    index: Vec<u32>,
}

/// Why Ruby data could not be read.
pub(crate) enum DataError {
    /// Not JSON data (`TypeError`): the message names the location.
    Type(String),
    /// Nested deeper than the bound (`ArgumentError` for data; a schema error for a
    /// schema).
    Depth { location: String, max: u32 },
    /// More values than the bound (schemas only).
    TooMany { max: usize },
}

/// Bounds on one walk.
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    /// The deepest container level (the root container is level 1).
    pub(crate) depth: u32,
    /// The most values.
    pub(crate) values: usize,
}

/// Bounds on data: the depth of JSON text; 2^26 values (about 4 GiB of table), past
/// which an object graph sharing its parts (a Hash holding one Array many times, nested)
/// would expand beyond memory.
pub(crate) const DATA_BOUNDS: Bounds = Bounds {
    depth: MAX_DATA_DEPTH,
    values: 1 << 26,
};

/// A container whose slots are reserved but not yet filled.
struct Task {
    raw: VALUE,
    start: u32,
    len: u32,
    level: u32,
    object: bool,
}

fn api() -> &'static impl StableApiDefinition {
    rb_sys::stable_api::get_default()
}

/// `RUBY_ENC_CODERANGE_*` (`ruby/internal/encoding/coderange.h`: `FL_USER2`, `FL_USER3`).
const CR_7BIT: c_int = 1 << 20;
const CR_VALID: c_int = 1 << 21;

impl<'a> Tree<'a> {
    /// Walks `root`.
    ///
    /// # Safety
    /// The caller holds the GVL, and keeps `root` reachable and every object under it
    /// unmodified while the tree lives: it runs no Ruby code and allocates no Ruby object
    /// until the tree is dropped.
    pub(crate) unsafe fn walk(root: VALUE, bounds: Bounds) -> Result<Tree<'a>, DataError> {
        let mut tree = Tree {
            slots: Vec::with_capacity(16),
            parents: Vec::with_capacity(16),
            index: Vec::new(),
        };
        tree.slots.push(Slot {
            key: "",
            summary: 0,
            node: Node::Null,
        });
        tree.parents.push(0);
        let mut tasks: Vec<Task> = Vec::new();
        let mut walker = Walker {
            tree: &mut tree,
            tasks: &mut tasks,
            bounds,
            error: None,
        };
        // SAFETY: as the caller promised.
        unsafe {
            walker.place(0, root, 0)?;
            while let Some(task) = walker.tasks.pop() {
                walker.fill(task)?;
            }
        }
        tree.build_indexes();
        Ok(tree)
    }

    /// The root.
    pub(crate) fn root(&self) -> Val<'_, 'a> {
        Val { tree: self, at: 0 }
    }

    fn build_indexes(&mut self) {
        for i in 0..self.slots.len() {
            if let Node::Object {
                start, len, raw, ..
            } = self.slots[i].node
                && len > LARGE_OBJECT
            {
                let at = self.index.len() as u32;
                let slots = &self.slots;
                let mut order: Vec<u32> = (0..len).collect();
                order.sort_unstable_by(|&x, &y| {
                    let a = &slots[(start + x) as usize];
                    let b = &slots[(start + y) as usize];
                    (a.summary, a.key).cmp(&(b.summary, b.key))
                });
                self.index.extend_from_slice(&order);
                self.slots[i].node = Node::Object {
                    start,
                    len,
                    index: at,
                    raw,
                };
            }
        }
    }

    /// The JSON Pointer of slot `at`.
    fn pointer(&self, mut at: u32) -> String {
        let mut parts: Vec<String> = Vec::new();
        while at != 0 {
            let parent = self.parents[at as usize];
            let part = match self.slots[parent as usize].node {
                Node::Array { start, .. } => (at - start).to_string(),
                _ => self.slots[at as usize]
                    .key
                    .replace('~', "~0")
                    .replace('/', "~1"),
            };
            parts.push(part);
            at = parent;
        }
        let mut out = String::new();
        for part in parts.iter().rev() {
            out.push('/');
            out.push_str(part);
        }
        out
    }

    /// The data as a `serde_json::Value` (for a schema; the tree's depth is bounded).
    pub(crate) fn to_value(&self) -> Value {
        self.value_at(0)
    }

    fn value_at(&self, at: u32) -> Value {
        match self.slots[at as usize].node {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            Node::UInt(n) => Value::Number(n.into()),
            Node::Int(n) => Value::Number(n.into()),
            Node::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
            Node::Str(s) => Value::String(s.to_owned()),
            Node::Array { start, len, .. } => {
                Value::Array((start..start + len).map(|i| self.value_at(i)).collect())
            }
            Node::Object { start, len, .. } => {
                let mut map = Map::new();
                for i in start..start + len {
                    map.insert(self.slots[i as usize].key.to_owned(), self.value_at(i));
                }
                Value::Object(map)
            }
        }
    }
}

struct Walker<'w, 'a> {
    tree: &'w mut Tree<'a>,
    tasks: &'w mut Vec<Task>,
    bounds: Bounds,
    /// An error met inside `rb_hash_foreach`'s callback.
    error: Option<DataError>,
}

impl<'a> Walker<'_, 'a> {
    /// Reads `value` into slot `at`, whose container is at `level` (0 for the root);
    /// a container gets its slots reserved and a task to fill them.
    unsafe fn place(&mut self, at: u32, value: VALUE, level: u32) -> Result<(), DataError> {
        let api = api();
        let node = if value == rb_sys::Qnil as VALUE {
            Node::Null
        } else if value == rb_sys::Qtrue as VALUE {
            Node::Bool(true)
        } else if value == rb_sys::Qfalse as VALUE {
            Node::Bool(false)
        } else if api.fixnum_p(value) {
            // (`c_long` is `i64` here; the conversion keeps 32-bit `long`s building.)
            #[allow(clippy::useless_conversion)]
            let n = i64::from(api.fix2long(value));
            if n >= 0 {
                Node::UInt(n as u64)
            } else {
                Node::Int(n)
            }
        } else if api.flonum_p(value) {
            // SAFETY: a Float.
            self.float(at, unsafe { rb_sys::rb_float_value(value) })?
        } else if api.static_sym_p(value) {
            // SAFETY: a Symbol.
            Node::Str(unsafe { self.symbol_text(at, value, "a Symbol")? })
        } else if api.special_const_p(value) {
            return Err(self.unsupported(at, value));
        } else {
            // SAFETY: a heap object.
            match unsafe { api.builtin_type(value) } {
                T::RUBY_T_STRING => Node::Str(unsafe { self.text(at, value, "a String")? }),
                T::RUBY_T_HASH => {
                    let len = unsafe { api.rhash_size(value) };
                    let (start, len) = self.reserve(at, value, len, level)?;
                    self.tasks.push(Task {
                        raw: value,
                        start,
                        len,
                        level: level + 1,
                        object: true,
                    });
                    Node::Object {
                        start,
                        len,
                        index: u32::MAX,
                        raw: value,
                    }
                }
                T::RUBY_T_ARRAY => {
                    let len = unsafe { api.rarray_len(value) } as usize;
                    let (start, len) = self.reserve(at, value, len, level)?;
                    self.tasks.push(Task {
                        raw: value,
                        start,
                        len,
                        level: level + 1,
                        object: false,
                    });
                    Node::Array {
                        start,
                        len,
                        raw: value,
                    }
                }
                T::RUBY_T_FLOAT => self.float(at, unsafe { rb_sys::rb_float_value(value) })?,
                T::RUBY_T_BIGNUM => unsafe { self.bignum(at, value)? },
                T::RUBY_T_SYMBOL => Node::Str(unsafe { self.symbol_text(at, value, "a Symbol")? }),
                _ => return Err(self.unsupported(at, value)),
            }
        };
        self.tree.slots[at as usize].node = node;
        Ok(())
    }

    /// Reserves the slots of a container at slot `at` (one level below `level`).
    fn reserve(
        &mut self,
        at: u32,
        raw: VALUE,
        len: usize,
        level: u32,
    ) -> Result<(u32, u32), DataError> {
        if level + 1 > self.bounds.depth {
            return Err(self.too_deep(at, raw));
        }
        let start = self.tree.slots.len();
        if start + len > self.bounds.values {
            return Err(DataError::TooMany {
                max: self.bounds.values,
            });
        }
        let empty = Slot {
            key: "",
            summary: 0,
            node: Node::Null,
        };
        self.tree.slots.resize(start + len, empty);
        self.tree.parents.resize(start + len, at);
        Ok((start as u32, len as u32))
    }

    /// Past the depth bound at slot `at`, about to hold container `raw`: a cycle when
    /// `raw` or one of its ancestors repeats on the way down (named where it closes),
    /// else data nested too deep.
    fn too_deep(&self, at: u32, raw: VALUE) -> DataError {
        let mut chain: Vec<(u32, VALUE)> = vec![(at, raw)];
        let mut up = at;
        while up != 0 {
            up = self.tree.parents[up as usize];
            if let Node::Array { raw, .. } | Node::Object { raw, .. } =
                self.tree.slots[up as usize].node
            {
                chain.push((up, raw));
            }
        }
        chain.reverse();
        for j in 1..chain.len() {
            if chain[..j].iter().any(|&(_, r)| r == chain[j].1) {
                return DataError::Type(format!(
                    "a cyclic structure (an Array or a Hash that contains itself) at {}",
                    self.location(chain[j].0)
                ));
            }
        }
        DataError::Depth {
            location: self.location(at),
            max: self.bounds.depth,
        }
    }

    /// Fills a container's reserved slots.
    unsafe fn fill(&mut self, task: Task) -> Result<(), DataError> {
        if task.object {
            let mut fill = HashFill {
                walker: self,
                task: &task,
                next: 0,
                strings: false,
                symbols: false,
            };
            // SAFETY: `raw` is a Hash; the callback runs no Ruby code.
            unsafe {
                rb_sys::rb_hash_foreach(
                    task.raw,
                    Some(hash_entry),
                    &mut fill as *mut HashFill<'_, '_, '_> as VALUE,
                );
            }
            let (next, mixed) = (fill.next, fill.strings && fill.symbols);
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if next != task.len {
                // (Cannot happen: nothing ran that could change the Hash.)
                return Err(DataError::Type("a Hash changed size while read".into()));
            }
            if mixed {
                self.merge_repeated_keys(&task);
            }
        } else {
            let api = api();
            for i in 0..task.len {
                // SAFETY: an Array of at least `len` items (nothing changed it).
                let item = unsafe { api.rarray_aref(task.raw, i as isize) };
                unsafe { self.place(task.start + i, item, task.level)? };
            }
        }
        Ok(())
    }

    /// A Hash holding both `"a"` and `:a`: `JSON.dump` writes the name twice, and a JSON
    /// parser keeps the value given last, so the entry keeps its first place with the
    /// last value (the flat parser's rule); the container's length shrinks.
    fn merge_repeated_keys(&mut self, task: &Task) {
        let start = task.start as usize;
        let end = start + task.len as usize;
        let mut kept = start;
        for i in start..end {
            let slot = self.tree.slots[i];
            if let Some(first) = (start..kept).find(|&j| self.tree.slots[j].key == slot.key) {
                self.tree.slots[first].node = slot.node;
                self.reparent(slot.node, first as u32);
            } else {
                self.tree.slots[kept] = slot;
                self.reparent(slot.node, kept as u32);
                kept += 1;
            }
        }
        let container = self.tree.parents[start];
        if let Node::Object {
            start: s,
            index,
            raw,
            ..
        } = self.tree.slots[container as usize].node
        {
            self.tree.slots[container as usize].node = Node::Object {
                start: s,
                len: (kept - start) as u32,
                index,
                raw,
            };
        }
    }

    /// A container moved to slot `to`: its children's parent is now `to`.
    fn reparent(&mut self, node: Node<'a>, to: u32) {
        if let Node::Array { start, len, .. } | Node::Object { start, len, .. } = node {
            for p in &mut self.tree.parents[start as usize..(start + len) as usize] {
                *p = to;
            }
        }
    }

    fn float(&self, at: u32, f: f64) -> Result<Node<'a>, DataError> {
        if f.is_finite() {
            Ok(Node::Float(f))
        } else {
            Err(DataError::Type(format!(
                "{} is not a JSON number (NaN and Infinity are not JSON) at {}",
                if f.is_nan() { "NaN" } else { "Infinity" },
                self.location(at)
            )))
        }
    }

    /// An Integer past a fixnum: exactly as a `u64` or `i64` when it fits (what a JSON
    /// parser gives its digits), else the nearest float; past the float range an error.
    unsafe fn bignum(&self, at: u32, value: VALUE) -> Result<Node<'a>, DataError> {
        const WORDS: usize = 17; // 1088 bits: past f64::MAX
        let mut words = [0u64; WORDS];
        let flags =
            (rb_sys::INTEGER_PACK_LSWORD_FIRST | rb_sys::INTEGER_PACK_NATIVE_BYTE_ORDER) as c_int;
        // SAFETY: an Integer; the buffer holds WORDS words of 8 bytes. The magnitude is
        // written, the sign returned (±2 when it did not fit).
        let sign = unsafe {
            rb_sys::rb_integer_pack(value, words.as_mut_ptr().cast(), WORDS as _, 8, 0, flags)
        };
        if sign.abs() > 1 {
            return Err(self.out_of_range(at));
        }
        let top = words.iter().rposition(|&w| w != 0).unwrap_or(0);
        if top == 0 {
            let m = words[0];
            return Ok(if sign >= 0 {
                Node::UInt(m)
            } else if m <= 1 << 63 {
                Node::Int((m as i64).wrapping_neg())
            } else {
                Node::Float(-(m as f64))
            });
        }
        // The nearest float: the top 64 bits, the lowest set when any bit below is
        // (round to odd keeps the one rounding to 53 bits correct), scaled by 2^shift.
        let hi = words[top];
        let lz = hi.leading_zeros();
        let mut mantissa = if lz == 0 {
            hi
        } else {
            (hi << lz) | (words[top - 1] >> (64 - lz))
        };
        let below_mask = if lz == 0 { u64::MAX } else { u64::MAX >> lz };
        let sticky = (lz != 0 && words[top - 1] & below_mask != 0)
            || words[..top - 1].iter().any(|&w| w != 0)
            || (lz == 0 && words[top - 1] != 0);
        if sticky {
            mantissa |= 1;
        }
        let shift = (top as i32) * 64 - lz as i32;
        let f = mantissa as f64 * 2f64.powi(shift);
        if !f.is_finite() {
            return Err(self.out_of_range(at));
        }
        Ok(Node::Float(if sign < 0 { -f } else { f }))
    }

    fn out_of_range(&self, at: u32) -> DataError {
        DataError::Type(format!(
            "an Integer past the range of JSON numbers (about 1.8e308) at {}",
            self.location(at)
        ))
    }

    /// A Symbol's name.
    unsafe fn symbol_text(&self, at: u32, sym: VALUE, what: &str) -> Result<&'a str, DataError> {
        // SAFETY: a Symbol; its name is an interned, frozen String.
        let name = unsafe { rb_sys::rb_sym2str(sym) };
        unsafe { self.text(at, name, what) }
    }

    /// A String's text, borrowed: UTF-8 (or US-ASCII, or binary holding UTF-8, or any
    /// ASCII-compatible encoding holding ASCII only).
    unsafe fn text(&self, at: u32, s: VALUE, what: &str) -> Result<&'a str, DataError> {
        let api = api();
        // SAFETY: a String; its bytes stay put while the tree lives (see the module).
        let bytes: &'a [u8] = unsafe {
            let len = api.rstring_len(s) as usize;
            if len == 0 {
                &[]
            } else {
                std::slice::from_raw_parts(api.rstring_ptr(s).cast::<u8>(), len)
            }
        };
        // SAFETY: reads and caches the code range in the flags; allocates nothing.
        let (range, enc) =
            unsafe { (rb_sys::rb_enc_str_coderange(s), rb_sys::rb_enc_get_index(s)) };
        // SAFETY: plain lookups of the built-in encodings' indexes.
        let (utf8, binary) =
            unsafe { (rb_sys::rb_utf8_encindex(), rb_sys::rb_ascii8bit_encindex()) };
        if range == CR_7BIT || (range == CR_VALID && enc == utf8) {
            // SAFETY: ASCII, or UTF-8 that Ruby found valid.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        if enc == binary
            && let Ok(text) = std::str::from_utf8(bytes)
        {
            return Ok(text);
        }
        Err(DataError::Type(format!(
            "{what} that is not valid UTF-8 at {}",
            self.location(at)
        )))
    }

    fn unsupported(&self, at: u32, value: VALUE) -> DataError {
        // The location first: naming the class may allocate (a GC could then move the
        // strings the table borrows), and the walk stops here.
        let location = self.location(at);
        let what = class_name(value).map_or_else(
            || "an object".to_string(),
            |name| format!("an instance of {name}"),
        );
        DataError::Type(format!(
            "{what} is not JSON data at {location} (expected Hash, Array, String, Integer, Float, true, false, nil or Symbol)"
        ))
    }

    /// The location of slot `at`, shown as `/` for the root.
    fn location(&self, at: u32) -> String {
        let p = self.tree.pointer(at);
        if p.is_empty() { "/".to_string() } else { p }
    }
}

/// The name of `value`'s class when it has one. `rb_class2name` may allocate (a copy of
/// the name): called only once the walk has stopped and nothing borrowed is read again.
fn class_name(value: VALUE) -> Option<String> {
    // SAFETY: `rb_obj_class` gives any value's class (special constants included),
    // singleton classes skipped; `rb_class2name` gives a named class's name.
    unsafe {
        let class = rb_sys::rb_obj_class(value);
        if rb_sys::rb_mod_name(class) == rb_sys::Qnil as VALUE {
            return None;
        }
        let name = rb_sys::rb_class2name(class);
        if name.is_null() {
            return None;
        }
        Some(
            std::ffi::CStr::from_ptr(name)
                .to_string_lossy()
                .into_owned(),
        )
    }
}

struct HashFill<'f, 'w, 'a> {
    walker: &'f mut Walker<'w, 'a>,
    task: &'f Task,
    next: u32,
    strings: bool,
    symbols: bool,
}

/// `rb_hash_foreach`'s callback: one entry into the next reserved slot.
extern "C" fn hash_entry(key: VALUE, value: VALUE, arg: VALUE) -> c_int {
    const CONTINUE: c_int = 0; // ST_CONTINUE
    const STOP: c_int = 1; // ST_STOP
    // SAFETY: `arg` is the `HashFill` that `fill` passed, alive for the whole iteration.
    let fill = unsafe { &mut *(arg as *mut HashFill<'_, '_, '_>) };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: called under the GVL by `rb_hash_foreach`.
        unsafe { fill_entry(fill, key, value) }
    }));
    match result {
        Ok(Ok(())) => CONTINUE,
        Ok(Err(e)) => {
            fill.walker.error = Some(e);
            STOP
        }
        Err(_) => {
            fill.walker.error = Some(DataError::Type("internal error reading a Hash".into()));
            STOP
        }
    }
}

unsafe fn fill_entry(
    fill: &mut HashFill<'_, '_, '_>,
    key: VALUE,
    value: VALUE,
) -> Result<(), DataError> {
    let api = api();
    if fill.next >= fill.task.len {
        return Err(DataError::Type("a Hash grew while read".into()));
    }
    let at = fill.task.start + fill.next;
    fill.next += 1;
    let walker = &mut *fill.walker;
    let name = if api.static_sym_p(key)
        || (!api.special_const_p(key)
        // SAFETY: a heap object.
        && unsafe { api.builtin_type(key) } == T::RUBY_T_SYMBOL)
    {
        fill.symbols = true;
        // SAFETY: a Symbol.
        unsafe { walker.symbol_text(at, key, "a Symbol key")? }
    } else if !api.special_const_p(key) && unsafe { api.builtin_type(key) } == T::RUBY_T_STRING {
        fill.strings = true;
        // SAFETY: a String.
        unsafe { walker.text(at, key, "a String key")? }
    } else {
        // (The location first: see `unsupported`.)
        let location = walker.location(walker.tree.parents[at as usize]);
        let what = class_name(key).unwrap_or_else(|| "an anonymous class".into());
        return Err(DataError::Type(format!(
            "a Hash key of class {what} is not a JSON name at {location} (expected a String or a Symbol)"
        )));
    };
    walker.tree.slots[at as usize].key = name;
    walker.tree.slots[at as usize].summary = toolschema::flat::summary(name);
    // SAFETY: as `walk`'s caller promised.
    unsafe { walker.place(at, value, fill.task.level) }
}

// --- the engine's view ------------------------------------------------------------

/// A value of the tree, as the evaluator reads it.
#[derive(Clone, Copy)]
pub(crate) struct Val<'t, 'a> {
    tree: &'t Tree<'a>,
    at: u32,
}

impl<'t, 'a> Val<'t, 'a> {
    #[inline(always)]
    fn node(self) -> Node<'a> {
        self.tree.slots[self.at as usize].node
    }
}

impl<'t, 'a: 't> Instance<'t> for Val<'t, 'a> {
    type Object = Obj<'t, 'a>;
    type Array = Arr<'t, 'a>;

    #[inline]
    fn kind(self) -> Kind {
        match self.node() {
            Node::Null => Kind::Null,
            Node::Bool(_) => Kind::Bool,
            Node::UInt(_) | Node::Int(_) | Node::Float(_) => Kind::Number,
            Node::Str(_) => Kind::String,
            Node::Array { .. } => Kind::Array,
            Node::Object { .. } => Kind::Object,
        }
    }
    #[inline]
    fn as_bool(self) -> Option<bool> {
        match self.node() {
            Node::Bool(b) => Some(b),
            _ => None,
        }
    }
    #[inline]
    fn as_number(self) -> Option<Number> {
        match self.node() {
            Node::UInt(n) => Some(n.into()),
            Node::Int(n) => Some(n.into()),
            Node::Float(f) => Number::from_f64(f),
            _ => None,
        }
    }
    #[inline]
    fn as_str(self) -> Option<&'t str> {
        match self.node() {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }
    #[inline]
    fn as_array(self) -> Option<Arr<'t, 'a>> {
        match self.node() {
            Node::Array { start, len, .. } => Some(Arr {
                tree: self.tree,
                start,
                end: start + len,
            }),
            _ => None,
        }
    }
    #[inline]
    fn as_object(self) -> Option<Obj<'t, 'a>> {
        match self.node() {
            Node::Object {
                start, len, index, ..
            } => Some(Obj {
                tree: self.tree,
                start,
                len,
                index,
            }),
            _ => None,
        }
    }
    #[inline]
    fn as_value(self) -> Option<&'t Value> {
        None
    }
    #[inline]
    fn count_values(self) -> usize {
        self.tree.slots.len()
    }
    #[inline]
    fn equals(self, other: &Value) -> bool {
        toolschema::flat::equal(self, other)
    }
    #[inline]
    fn hash_with(self, state: &ahash::RandomState) -> u64 {
        toolschema::flat::hash(self, state)
    }
}

/// An object's entries.
#[derive(Clone, Copy)]
pub(crate) struct Obj<'t, 'a> {
    tree: &'t Tree<'a>,
    start: u32,
    len: u32,
    index: u32,
}

impl<'t, 'a: 't> Object<'t> for Obj<'t, 'a> {
    type Value = Val<'t, 'a>;
    type Entries = Entries<'t, 'a>;

    #[inline]
    fn len(self) -> usize {
        self.len as usize
    }
    #[inline]
    fn get(self, name: &str, summary: u64) -> Option<Val<'t, 'a>> {
        let slots = &self.tree.slots[self.start as usize..(self.start + self.len) as usize];
        if self.index == u32::MAX {
            return slots
                .iter()
                .position(|s| s.summary == summary && s.key == name)
                .map(|i| Val {
                    tree: self.tree,
                    at: self.start + i as u32,
                });
        }
        let order = &self.tree.index[self.index as usize..(self.index + self.len) as usize];
        let found = order
            .binary_search_by(|&i| {
                let s = &slots[i as usize];
                (s.summary, s.key).cmp(&(summary, name))
            })
            .ok()?;
        Some(Val {
            tree: self.tree,
            at: self.start + order[found],
        })
    }
    #[inline]
    fn entries(self) -> Entries<'t, 'a> {
        Entries {
            tree: self.tree,
            at: self.start,
            end: self.start + self.len,
        }
    }
}

/// The entries of an object, in the Hash's order.
#[derive(Clone)]
pub(crate) struct Entries<'t, 'a> {
    tree: &'t Tree<'a>,
    at: u32,
    end: u32,
}

impl<'t, 'a: 't> Iterator for Entries<'t, 'a> {
    type Item = (&'t str, u64, Val<'t, 'a>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.end {
            return None;
        }
        let slot = &self.tree.slots[self.at as usize];
        let item = (
            slot.key,
            slot.summary,
            Val {
                tree: self.tree,
                at: self.at,
            },
        );
        self.at += 1;
        Some(item)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.at) as usize;
        (n, Some(n))
    }
}

/// An array's items.
#[derive(Clone, Copy)]
pub(crate) struct Arr<'t, 'a> {
    tree: &'t Tree<'a>,
    start: u32,
    end: u32,
}

impl<'t, 'a: 't> Array<'t> for Arr<'t, 'a> {
    type Item = Val<'t, 'a>;
    type Iter = Items<'t, 'a>;

    #[inline]
    fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    #[inline]
    fn get(self, i: usize) -> Option<Val<'t, 'a>> {
        (i < self.len()).then(|| Val {
            tree: self.tree,
            at: self.start + i as u32,
        })
    }
    #[inline]
    fn tail(self, n: usize) -> Arr<'t, 'a> {
        Arr {
            tree: self.tree,
            start: self.start + n.min(self.len()) as u32,
            end: self.end,
        }
    }
    #[inline]
    fn iter(self) -> Items<'t, 'a> {
        Items {
            tree: self.tree,
            at: self.start,
            end: self.end,
        }
    }
}

/// The items of an array.
#[derive(Clone)]
pub(crate) struct Items<'t, 'a> {
    tree: &'t Tree<'a>,
    at: u32,
    end: u32,
}

impl<'t, 'a: 't> Iterator for Items<'t, 'a> {
    type Item = Val<'t, 'a>;
    #[inline]
    fn next(&mut self) -> Option<Val<'t, 'a>> {
        (self.at < self.end).then(|| {
            self.at += 1;
            Val {
                tree: self.tree,
                at: self.at - 1,
            }
        })
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<Val<'t, 'a>> {
        self.at = self
            .at
            .saturating_add(n.min(u32::MAX as usize) as u32)
            .min(self.end);
        self.next()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.at) as usize;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Items<'_, '_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        (self.at < self.end).then(|| {
            self.end -= 1;
            Val {
                tree: self.tree,
                at: self.end,
            }
        })
    }
}

impl ExactSizeIterator for Items<'_, '_> {}
