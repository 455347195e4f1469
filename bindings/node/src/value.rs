//! JavaScript values read for the engine: one pass over the value through Node-API copies
//! what the evaluator reads (kinds, numbers, strings, the shape) into a compact arena, and
//! the evaluator reads that arena through `toolschema::flat::Instance`. No JSON text and no
//! `serde_json::Value` is built on the way.
//!
//! The value is read as `JSON.stringify` would send it: own enumerable string keys,
//! `toJSON` called (a `Date` becomes its ISO string), `undefined` members skipped and
//! `undefined` items read as `null`, `NaN` and the infinities as `null`. What JSON cannot
//! carry is refused with a clear error instead of being dropped: functions, symbols,
//! cycles, nesting deeper than the text path accepts. A `BigInt` is read as an integer.

use napi::sys;
use serde_json::{Number, Value};
use std::fmt::Write as _;
use std::ptr;
use toolschema::flat::{self, Array, Instance, Kind, Object};

/// As deep as the text path reads (`flat::DEFAULT_MAX_DEPTH` arrays and objects): the
/// walk recurses, and a cycle is found when it passes this bound.
const MAX_DEPTH: usize = flat::DEFAULT_MAX_DEPTH as usize;
/// The most values one call reads: 2^26, as the Ruby gem (a JSON text that long is over
/// 128 MiB); a value past it is refused, never walked for hours.
const MAX_VALUES: usize = 1 << 26;

/// One value of the arena.
#[derive(Clone, Copy)]
enum Slot {
    Null,
    Bool(bool),
    Number(NumberSlot),
    /// `text[start..start + len]`
    String(u32, u32),
    /// `items[start..start + len]`
    Array(u32, u32),
    /// `entries[start..start + len]`
    Object(u32, u32),
}

#[derive(Clone, Copy)]
enum NumberSlot {
    U64(u64),
    I64(i64),
    F64(f64),
}

#[derive(Clone, Copy)]
struct Entry {
    key_start: u32,
    key_len: u32,
    summary: u64,
    value: u32,
}

/// The arena one value is read into; reused from call to call (its buffers keep their
/// capacity).
#[derive(Default)]
pub struct Tree {
    slots: Vec<Slot>,
    items: Vec<u32>,
    entries: Vec<Entry>,
    text: String,
    /// `json::count_values`'s count: values, and a step per 4 KiB of string.
    count: usize,
    // Scratch for the walk: children are gathered here, then moved to `items`/`entries`
    // as one contiguous run when their container is done.
    pending_items: Vec<u32>,
    pending_entries: Vec<Entry>,
    // The containers on the path, for the cycle check.
    ancestors: Vec<sys::napi_value>,
    // The path, for error messages.
    path: Vec<PathPart>,
}

enum PathPart {
    /// A member name: its range in the arena's text.
    Key(u32, u32),
    Index(u32),
}

/// Why a value cannot be read as JSON.
pub struct ReadError(pub String);

/// A Node-API call failed (an exception is pending, e.g. a getter or `toJSON` threw).
struct Failed;

enum Stop {
    Value(String),
    Napi,
}

impl From<Failed> for Stop {
    fn from(_: Failed) -> Stop {
        Stop::Napi
    }
}

#[inline(always)]
fn ok(status: sys::napi_status) -> Result<(), Failed> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Failed)
    }
}

impl Tree {
    /// Reads `value` (a live handle of `env`) into the arena, replacing what it held.
    ///
    /// # Errors
    /// A [`ReadError`] for what JSON cannot carry; `Err(None)` when a Node-API call failed
    /// with a pending JavaScript exception (the caller lets it propagate).
    pub fn read(
        &mut self,
        env: sys::napi_env,
        value: sys::napi_value,
    ) -> Result<(), Option<ReadError>> {
        self.slots.clear();
        self.items.clear();
        self.entries.clear();
        self.text.clear();
        self.count = 0;
        self.pending_items.clear();
        self.pending_entries.clear();
        self.ancestors.clear();
        self.path.clear();
        let mut to_json = ptr::null_mut();
        if unsafe { sys::napi_create_string_utf8(env, c"toJSON".as_ptr(), 6, &mut to_json) }
            != sys::Status::napi_ok
        {
            return Err(None);
        }
        let mut reader = Reader {
            env,
            tree: self,
            to_json,
            replaced: false,
        };
        match reader.value(value, None) {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(Some(ReadError(
                "undefined is not a JSON value (nothing to validate)".into(),
            ))),
            Err(Stop::Value(message)) => Err(Some(ReadError(message))),
            Err(Stop::Napi) => {
                // A getter or `toJSON` threw (its exception propagates), or Node-API
                // refused a call without one.
                let mut pending = false;
                unsafe { sys::napi_is_exception_pending(env, &mut pending) };
                if pending {
                    Err(None)
                } else {
                    Err(Some(ReadError("the value could not be read".into())))
                }
            }
        }
    }

    /// The root, once [`Tree::read`] succeeded.
    pub fn root(&self) -> Js<'_> {
        Js {
            tree: self,
            index: (self.slots.len() - 1) as u32,
        }
    }

    /// Memory the arena holds on to between calls, so that one huge value does not keep
    /// it for the life of the validator.
    pub fn shrink(&mut self) {
        const KEEP: usize = 1 << 16;
        if self.slots.capacity() > KEEP || self.text.capacity() > KEEP * 16 {
            *self = Tree::default();
        }
    }
}

struct Reader<'t> {
    env: sys::napi_env,
    tree: &'t mut Tree,
    /// The string "toJSON", made once per read (a property lookup by a C string makes
    /// the string each time).
    to_json: sys::napi_value,
    /// Set while reading what a `toJSON` returned: it is not asked for `toJSON` again.
    replaced: bool,
}

impl Reader<'_> {
    /// The JSON Pointer of the first `depth` parts of the path (shortened past 16 parts:
    /// a message, not a dump).
    fn path_text_to(&self, depth: usize) -> String {
        let parts = &self.tree.path[..depth.min(self.tree.path.len())];
        if parts.is_empty() {
            return "/".into();
        }
        let mut out = String::new();
        if parts.len() > 16 {
            let _ = write!(out, "(at depth {})", parts.len());
            return out;
        }
        for part in parts {
            out.push('/');
            match part {
                PathPart::Key(start, len) => {
                    let k = &self.tree.text[*start as usize..(*start + *len) as usize];
                    out.push_str(&k.replace('~', "~0").replace('/', "~1"))
                }
                PathPart::Index(i) => {
                    let _ = write!(out, "{i}");
                }
            }
        }
        out
    }

    fn path_text(&self) -> String {
        self.path_text_to(usize::MAX)
    }

    fn refuse(&self, what: &str) -> Stop {
        Stop::Value(format!(
            "{}: {what} cannot be validated (JSON has no such value)",
            self.path_text()
        ))
    }

    fn push(&mut self, slot: Slot) -> Result<u32, Stop> {
        let index = self.tree.slots.len();
        // An object may hold the same object many times (`[x, x]` nested 60 deep is tiny
        // in memory): read as JSON.stringify writes it, the count, not the depth, must
        // stop it before it runs for hours.
        if index >= MAX_VALUES {
            return Err(Stop::Value(format!(
                "the value has more than {MAX_VALUES} values (an object held more than once counts each time) and cannot be validated"
            )));
        }
        self.tree.slots.push(slot);
        self.tree.count += 1;
        Ok(index as u32)
    }

    /// Reads one value; `None` for one JSON.stringify leaves out (`undefined`).
    /// `key` is the member name or index passed to `toJSON`, as JSON.stringify passes it.
    fn value(
        &mut self,
        value: sys::napi_value,
        key: Option<sys::napi_value>,
    ) -> Result<Option<u32>, Stop> {
        let env = self.env;
        let mut ty = 0;
        ok(unsafe { sys::napi_typeof(env, value, &mut ty) })?;
        let slot = match ty {
            sys::ValueType::napi_undefined => return Ok(None),
            sys::ValueType::napi_null => Slot::Null,
            sys::ValueType::napi_boolean => {
                let mut b = false;
                ok(unsafe { sys::napi_get_value_bool(env, value, &mut b) })?;
                Slot::Bool(b)
            }
            sys::ValueType::napi_number => {
                let mut x = 0f64;
                ok(unsafe { sys::napi_get_value_double(env, value, &mut x) })?;
                number(x)
            }
            sys::ValueType::napi_string => self.string(value)?,
            sys::ValueType::napi_bigint => self.bigint(value)?,
            sys::ValueType::napi_object => return self.object(value, key),
            sys::ValueType::napi_function => return Err(self.refuse("a function")),
            sys::ValueType::napi_symbol => return Err(self.refuse("a symbol")),
            _ => return Err(self.refuse("an external (native) value")),
        };
        self.push(slot).map(Some)
    }

    fn string(&mut self, value: sys::napi_value) -> Result<Slot, Stop> {
        let (start, len) = self.text(value)?;
        Ok(Slot::String(start, len))
    }

    /// Copies a string into the arena's text: its start and length there.
    fn text(&mut self, value: sys::napi_value) -> Result<(u32, u32), Stop> {
        let env = self.env;
        let start = self.tree.text.len();
        // Most strings are short: one call into spare room first; only a string that may
        // not have fit (it filled the room) is measured and read again.
        const ROOM: usize = 256;
        unsafe {
            let text = self.tree.text.as_mut_vec();
            text.reserve(ROOM);
            let room = text.capacity() - start;
            let mut written = 0usize;
            ok(sys::napi_get_value_string_utf8(
                env,
                value,
                text.as_mut_ptr().add(start).cast(),
                room,
                &mut written,
            ))?;
            if written + 1 < room.saturating_sub(3) {
                if start + written >= u32::MAX as usize {
                    return Err(Stop::Value(
                        "the value's strings are too large to validate".into(),
                    ));
                }
                // SAFETY: Node-API wrote `written` bytes of UTF-8 (whole characters).
                text.set_len(start + written);
                self.tree.count += written / 4096;
                return Ok((start as u32, written as u32));
            }
        }
        let mut len = 0usize;
        ok(unsafe { sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len) })?;
        if start + len >= u32::MAX as usize {
            return Err(Stop::Value(
                "the value's strings are too large to validate".into(),
            ));
        }
        // SAFETY: Node-API writes `len` bytes of UTF-8 (lone surrogates become U+FFFD)
        // and a NUL into the reserved spare capacity; only the `written` bytes are kept.
        unsafe {
            let text = self.tree.text.as_mut_vec();
            text.reserve(len + 1);
            let mut written = 0usize;
            ok(sys::napi_get_value_string_utf8(
                env,
                value,
                text.as_mut_ptr().add(start).cast(),
                len + 1,
                &mut written,
            ))?;
            text.set_len(start + written.min(len));
        }
        self.tree.count += len / 4096;
        Ok((start as u32, len as u32))
    }

    fn bigint(&mut self, value: sys::napi_value) -> Result<Slot, Stop> {
        let env = self.env;
        let mut sign = 0i32;
        let mut count = 0usize;
        ok(unsafe {
            sys::napi_get_value_bigint_words(
                env,
                value,
                ptr::null_mut(),
                &mut count,
                ptr::null_mut(),
            )
        })?;
        let mut words = vec![0u64; count.max(1)];
        ok(unsafe {
            sys::napi_get_value_bigint_words(env, value, &mut sign, &mut count, words.as_mut_ptr())
        })?;
        let negative = sign != 0;
        let n = if count <= 1 {
            let w = words[0];
            if !negative {
                NumberSlot::U64(w)
            } else if w <= i64::MAX as u64 + 1 {
                NumberSlot::I64((w as i128).wrapping_neg() as i64)
            } else {
                NumberSlot::F64(-(w as f64))
            }
        } else {
            // Beyond 64 bits: the nearest double, as a JSON parser without arbitrary
            // precision reads such a literal.
            let mut x = 0f64;
            for w in words[..count].iter().rev() {
                x = x * 18446744073709551616.0 + *w as f64;
            }
            NumberSlot::F64(if negative { -x } else { x })
        };
        Ok(Slot::Number(n))
    }

    fn object(
        &mut self,
        value: sys::napi_value,
        key: Option<sys::napi_value>,
    ) -> Result<Option<u32>, Stop> {
        let env = self.env;
        // `toJSON` first, as JSON.stringify does (a Date gives its ISO string); its result
        // is read as it is, with no second `toJSON` (as JSON.stringify reads it).
        if !std::mem::take(&mut self.replaced) {
            let mut to_json = ptr::null_mut();
            ok(unsafe { sys::napi_get_property(env, value, self.to_json, &mut to_json) })?;
            let mut ty = 0;
            ok(unsafe { sys::napi_typeof(env, to_json, &mut ty) })?;
            if ty == sys::ValueType::napi_function {
                let arg = match key {
                    Some(k) => k,
                    None => {
                        let mut empty = ptr::null_mut();
                        ok(unsafe {
                            sys::napi_create_string_utf8(env, c"".as_ptr(), 0, &mut empty)
                        })?;
                        empty
                    }
                };
                let mut replaced = ptr::null_mut();
                ok(unsafe {
                    sys::napi_call_function(env, value, to_json, 1, &arg, &mut replaced)
                })?;
                self.replaced = true;
                let read = self.value(replaced, key);
                self.replaced = false;
                return read;
            }
        }
        if self.tree.ancestors.len() >= MAX_DEPTH {
            for (depth, &ancestor) in self.tree.ancestors.iter().enumerate() {
                let mut same = false;
                ok(unsafe { sys::napi_strict_equals(env, value, ancestor, &mut same) })?;
                if same {
                    return Err(Stop::Value(format!(
                        "{}: the value contains itself (a cycle) and cannot be validated",
                        self.path_text_to(depth)
                    )));
                }
            }
            return Err(Stop::Value(format!(
                "{}: the value nests deeper than {MAX_DEPTH} arrays and objects",
                self.path_text()
            )));
        }
        // The handles a container's members take are freed with a scope per container
        // at the top two levels (where a large value's bulk hangs); deeper ones use
        // their parent's, which saves two calls per small object.
        let scoped = self.tree.ancestors.len() < 2;
        let mut scope = ptr::null_mut();
        if scoped {
            ok(unsafe { sys::napi_open_handle_scope(env, &mut scope) })?;
        }
        self.tree.ancestors.push(value);
        let result = self.container(value);
        self.tree.ancestors.pop();
        if scoped {
            let closed = unsafe { sys::napi_close_handle_scope(env, scope) };
            let slot = result?;
            ok(closed)?;
            return self.push(slot).map(Some);
        }
        let slot = result?;
        self.push(slot).map(Some)
    }

    fn container(&mut self, value: sys::napi_value) -> Result<Slot, Stop> {
        let env = self.env;
        let mut is_array = false;
        ok(unsafe { sys::napi_is_array(env, value, &mut is_array) })?;
        if is_array {
            let mut len = 0u32;
            ok(unsafe { sys::napi_get_array_length(env, value, &mut len) })?;
            let mark = self.tree.pending_items.len();
            for i in 0..len {
                let mut item = ptr::null_mut();
                ok(unsafe { sys::napi_get_element(env, value, i, &mut item) })?;
                self.tree.path.push(PathPart::Index(i));
                let read = match self.value(item, None) {
                    Ok(Some(index)) => Ok(index),
                    // An `undefined` item is `null` in JSON.stringify's output.
                    Ok(None) => self.push(Slot::Null),
                    Err(e) => Err(e),
                };
                self.tree.path.pop();
                let index = read?;
                self.tree.pending_items.push(index);
            }
            let start = self.tree.items.len();
            self.tree
                .items
                .extend(self.tree.pending_items.drain(mark..));
            return Ok(Slot::Array(start as u32, len));
        }
        let mut names = ptr::null_mut();
        ok(unsafe {
            sys::napi_get_all_property_names(
                env,
                value,
                sys::KeyCollectionMode::own_only,
                sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                sys::KeyConversion::numbers_to_strings,
                &mut names,
            )
        })?;
        let mut len = 0u32;
        ok(unsafe { sys::napi_get_array_length(env, names, &mut len) })?;
        let mark = self.tree.pending_entries.len();
        for i in 0..len {
            let mut name = ptr::null_mut();
            ok(unsafe { sys::napi_get_element(env, names, i, &mut name) })?;
            let (key_start, key_len) = self.text(name)?;
            let mut member = ptr::null_mut();
            ok(unsafe { sys::napi_get_property(env, value, name, &mut member) })?;
            self.tree.path.push(PathPart::Key(key_start, key_len));
            let read = self.value(member, Some(name));
            self.tree.path.pop();
            // An `undefined` member is left out, as JSON.stringify leaves it out.
            if let Some(index) = read? {
                let key = &self.tree.text[key_start as usize..(key_start + key_len) as usize];
                self.tree.pending_entries.push(Entry {
                    key_start,
                    key_len,
                    summary: flat::summary(key),
                    value: index,
                });
            }
        }
        let start = self.tree.entries.len();
        let count = self.tree.pending_entries.len() - mark;
        self.tree
            .entries
            .extend(self.tree.pending_entries.drain(mark..));
        Ok(Slot::Object(start as u32, count as u32))
    }
}

/// A JavaScript number as a JSON number: integers as serde_json reads their text
/// (`u64`, negative `i64`), others as `f64`; `NaN` and the infinities are `null`, as
/// JSON.stringify writes them.
fn number(x: f64) -> Slot {
    if !x.is_finite() {
        return Slot::Null;
    }
    if x.fract() == 0.0 {
        if (0.0..18446744073709551616.0).contains(&x) {
            return Slot::Number(NumberSlot::U64(x as u64));
        }
        if (-9223372036854775808.0..0.0).contains(&x) {
            return Slot::Number(NumberSlot::I64(x as i64));
        }
    }
    Slot::Number(NumberSlot::F64(x))
}

// --- the evaluator's view -------------------------------------------------------------

/// A value of a read [`Tree`], as the evaluator reads it.
#[derive(Clone, Copy)]
pub struct Js<'a> {
    tree: &'a Tree,
    index: u32,
}

impl<'a> Js<'a> {
    #[inline(always)]
    fn slot(self) -> Slot {
        self.tree.slots[self.index as usize]
    }
}

impl<'a> Instance<'a> for Js<'a> {
    type Object = JsObject<'a>;
    type Array = JsArray<'a>;

    #[inline]
    fn kind(self) -> Kind {
        match self.slot() {
            Slot::Null => Kind::Null,
            Slot::Bool(_) => Kind::Bool,
            Slot::Number(_) => Kind::Number,
            Slot::String(..) => Kind::String,
            Slot::Array(..) => Kind::Array,
            Slot::Object(..) => Kind::Object,
        }
    }

    #[inline]
    fn as_bool(self) -> Option<bool> {
        match self.slot() {
            Slot::Bool(b) => Some(b),
            _ => None,
        }
    }

    #[inline]
    fn as_number(self) -> Option<Number> {
        match self.slot() {
            Slot::Number(NumberSlot::U64(n)) => Some(Number::from(n)),
            Slot::Number(NumberSlot::I64(n)) => Some(Number::from(n)),
            Slot::Number(NumberSlot::F64(x)) => Number::from_f64(x),
            _ => None,
        }
    }

    #[inline]
    fn as_str(self) -> Option<&'a str> {
        match self.slot() {
            Slot::String(start, len) => {
                Some(&self.tree.text[start as usize..(start + len) as usize])
            }
            _ => None,
        }
    }

    #[inline]
    fn as_array(self) -> Option<JsArray<'a>> {
        match self.slot() {
            Slot::Array(start, len) => Some(JsArray {
                tree: self.tree,
                items: &self.tree.items[start as usize..(start + len) as usize],
            }),
            _ => None,
        }
    }

    #[inline]
    fn as_object(self) -> Option<JsObject<'a>> {
        match self.slot() {
            Slot::Object(start, len) => Some(JsObject {
                tree: self.tree,
                entries: &self.tree.entries[start as usize..(start + len) as usize],
            }),
            _ => None,
        }
    }

    fn as_value(self) -> Option<&'a Value> {
        None
    }

    fn count_values(self) -> usize {
        self.tree.count
    }

    fn equals(self, other: &Value) -> bool {
        flat::equal(self, other)
    }

    fn hash_with(self, state: &ahash::RandomState) -> u64 {
        flat::hash(self, state)
    }
}

/// An object of a read [`Tree`].
#[derive(Clone, Copy)]
pub struct JsObject<'a> {
    tree: &'a Tree,
    entries: &'a [Entry],
}

impl<'a> JsObject<'a> {
    #[inline(always)]
    fn key(self, entry: &Entry) -> &'a str {
        &self.tree.text[entry.key_start as usize..(entry.key_start + entry.key_len) as usize]
    }
}

impl<'a> Object<'a> for JsObject<'a> {
    type Value = Js<'a>;
    type Entries = JsEntries<'a>;

    #[inline]
    fn len(self) -> usize {
        self.entries.len()
    }

    #[inline]
    fn get(self, name: &str, summary: u64) -> Option<Js<'a>> {
        self.entries
            .iter()
            .find(|e| e.summary == summary && self.key(e) == name)
            .map(|e| Js {
                tree: self.tree,
                index: e.value,
            })
    }

    #[inline]
    fn entries(self) -> JsEntries<'a> {
        JsEntries {
            object: self,
            inner: self.entries.iter(),
        }
    }
}

/// The entries of a [`JsObject`], in the object's own key order.
pub struct JsEntries<'a> {
    object: JsObject<'a>,
    inner: std::slice::Iter<'a, Entry>,
}

impl<'a> Iterator for JsEntries<'a> {
    type Item = (&'a str, u64, Js<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|e| {
            (
                self.object.key(e),
                e.summary,
                Js {
                    tree: self.object.tree,
                    index: e.value,
                },
            )
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// An array of a read [`Tree`].
#[derive(Clone, Copy)]
pub struct JsArray<'a> {
    tree: &'a Tree,
    items: &'a [u32],
}

impl<'a> Array<'a> for JsArray<'a> {
    type Item = Js<'a>;
    type Iter = JsItems<'a>;

    #[inline]
    fn len(self) -> usize {
        self.items.len()
    }

    #[inline]
    fn get(self, i: usize) -> Option<Js<'a>> {
        self.items.get(i).map(|&index| Js {
            tree: self.tree,
            index,
        })
    }

    #[inline]
    fn tail(self, n: usize) -> JsArray<'a> {
        JsArray {
            tree: self.tree,
            items: self.items.get(n..).unwrap_or_default(),
        }
    }

    #[inline]
    fn iter(self) -> JsItems<'a> {
        JsItems {
            tree: self.tree,
            inner: self.items.iter(),
        }
    }
}

/// The items of a [`JsArray`].
#[derive(Clone)]
pub struct JsItems<'a> {
    tree: &'a Tree,
    inner: std::slice::Iter<'a, u32>,
}

impl<'a> Iterator for JsItems<'a> {
    type Item = Js<'a>;

    #[inline]
    fn next(&mut self) -> Option<Js<'a>> {
        self.inner.next().map(|&index| Js {
            tree: self.tree,
            index,
        })
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<Js<'a>> {
        self.inner.nth(n).map(|&index| Js {
            tree: self.tree,
            index,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for JsItems<'_> {}

impl<'a> DoubleEndedIterator for JsItems<'a> {
    #[inline]
    fn next_back(&mut self) -> Option<Js<'a>> {
        self.inner.next_back().map(|&index| Js {
            tree: self.tree,
            index,
        })
    }
}
