//! Python objects as the engine reads them: one walk over the caller's value ([`check`])
//! refuses what is not JSON (a `set`, `bytes`, a NaN, a non-string key, a lone surrogate)
//! with its location, bounds the depth (a cycle is named as such), counts the values for
//! the step budget, and records each value in a flat index of [`Slot`]s: containers'
//! children side by side, numbers decoded, strings and keys as pointers to the UTF-8
//! Python keeps on each `str` object (no text copied, no JSON built). [`Node`] implements
//! toolschema's `flat::Instance` over that index, so the evaluator then reads plain memory
//! instead of calling into the C API at every step (the direct reading, `instance`, is
//! its slow twin). The index lives in a per-thread buffer reused from call to call.
//!
//! The walk runs no Python code on dicts, lists, tuples and scalars. Anything else
//! JSON-like (a `Mapping` or `Sequence` that is not a dict/list/tuple, a `str` subclass as
//! a key) is first copied into plain containers by [`normalise`] (the slow, rare path).

use crate::instance::{Tag, classify, is_type, utf8};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};
use std::cell::Cell;
use toolschema::flat::{Array, Instance, Kind, Object};

/// The deepest nesting of arrays and objects an instance may have: the same cap as the
/// JSON text path (`is_valid_json`), so both paths answer alike.
pub const MAX_DEPTH: usize = toolschema::flat::DEFAULT_MAX_DEPTH as usize;
/// The most values one call reads: 2^26, as the Ruby gem (a JSON text that long is over
/// 128 MiB); a value past it is refused, never walked for hours.
pub const MAX_VALUES: usize = 1 << 26;

/// Objects of more entries than this are searched through a sorted index of their keys.
const LARGE_OBJECT: usize = 32;

/// A buffer grown past this many slots (24 bytes each) by a large instance is freed after
/// the call.
const KEEP_SLOTS: usize = 1 << 16;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
enum Form {
    Null,
    False,
    True,
    /// `a`: the `i64`.
    Int,
    /// `a`: a `u64` past `i64::MAX`.
    UInt,
    /// `a`: the `f64`'s bits (floats, and integers past `u64`).
    Float,
    /// `a`: the UTF-8's address, `b`: its length (a string, or an object's key).
    Str,
    /// `a`: the first item's slot, `b`: the number of items.
    Array,
    /// `a`: the first entry's slot (a key slot, then a value slot, each entry), `b`: the
    /// number of entries, `c`: where its sorted positions start in `Index::sorted` (large
    /// objects only).
    Object,
}

/// One value of the index.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    form: Form,
    c: u32,
    a: u64,
    b: u64,
}

const EMPTY: Slot = Slot {
    form: Form::Null,
    c: 0,
    a: 0,
    b: 0,
};

/// The index of one instance.
#[derive(Default)]
pub struct Index {
    slots: Vec<Slot>,
    /// For each large object, its entries' positions sorted by key.
    sorted: Vec<u32>,
    count: usize,
    /// The walk's containers on the current path (kept to reuse the allocation).
    path: Vec<*mut ffi::PyObject>,
}

thread_local! {
    static SPARE: Cell<Option<Box<Index>>> = const { Cell::new(None) };
}

impl Slot {
    /// The text of a `Str` slot.
    #[inline(always)]
    fn text<'a>(&self) -> &'a str {
        // The pointer is Python's UTF-8 of a `str` the caller's value keeps alive for the
        // call (the index never outlives it).
        unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                self.a as *const u8,
                self.b as usize,
            ))
        }
    }
}

/// A value of the index, as the engine reads it.
#[derive(Clone, Copy)]
pub struct Node<'a> {
    index: &'a Index,
    slot: &'a Slot,
}

impl<'a> Instance<'a> for Node<'a> {
    type Object = ObjectView<'a>;
    type Array = Items<'a>;

    #[inline(always)]
    fn kind(self) -> Kind {
        match self.slot.form {
            Form::Null => Kind::Null,
            Form::False | Form::True => Kind::Bool,
            Form::Int | Form::UInt | Form::Float => Kind::Number,
            Form::Str => Kind::String,
            Form::Array => Kind::Array,
            Form::Object => Kind::Object,
        }
    }
    #[inline(always)]
    fn as_bool(self) -> Option<bool> {
        match self.slot.form {
            Form::True => Some(true),
            Form::False => Some(false),
            _ => None,
        }
    }
    #[inline(always)]
    fn as_number(self) -> Option<serde_json::Number> {
        match self.slot.form {
            Form::Int => Some((self.slot.a as i64).into()),
            Form::UInt => Some(self.slot.a.into()),
            // (Only finite floats are recorded.)
            Form::Float => Some(
                serde_json::Number::from_f64(f64::from_bits(self.slot.a))
                    .unwrap_or_else(|| 0.into()),
            ),
            _ => None,
        }
    }
    #[inline(always)]
    fn as_str(self) -> Option<&'a str> {
        (self.slot.form == Form::Str).then(|| self.slot.text())
    }
    #[inline(always)]
    fn as_array(self) -> Option<Items<'a>> {
        (self.slot.form == Form::Array).then_some(Items {
            index: self.index,
            start: self.slot.a as usize,
            end: (self.slot.a + self.slot.b) as usize,
        })
    }
    #[inline(always)]
    fn as_object(self) -> Option<ObjectView<'a>> {
        (self.slot.form == Form::Object).then_some(ObjectView {
            index: self.index,
            slot: self.slot,
        })
    }
    #[inline(always)]
    fn as_value(self) -> Option<&'a serde_json::Value> {
        None
    }
    #[inline]
    fn count_values(self) -> usize {
        self.index.count
    }
    #[inline]
    fn equals(self, other: &serde_json::Value) -> bool {
        toolschema::flat::equal(self, other)
    }
    #[inline]
    fn hash_with(self, state: &ahash::RandomState) -> u64 {
        toolschema::flat::hash(self, state)
    }
}

/// An object of the index.
#[derive(Clone, Copy)]
pub struct ObjectView<'a> {
    index: &'a Index,
    slot: &'a Slot,
}

impl<'a> ObjectView<'a> {
    #[inline(always)]
    fn entries_slice(self) -> &'a [Slot] {
        let first = self.slot.a as usize;
        &self.index.slots[first..first + 2 * self.slot.b as usize]
    }
}

impl<'a> Object<'a> for ObjectView<'a> {
    type Value = Node<'a>;
    type Entries = Entries<'a>;

    #[inline(always)]
    fn len(self) -> usize {
        self.slot.b as usize
    }
    #[inline]
    fn get(self, name: &str, _summary: u64) -> Option<Node<'a>> {
        let first = self.slot.a as usize;
        let entries = self.entries_slice();
        if entries.len() / 2 <= LARGE_OBJECT {
            for (j, pair) in entries.chunks_exact(2).enumerate() {
                if pair[0].b as usize == name.len() && pair[0].text() == name {
                    return Some(Node {
                        index: self.index,
                        slot: &self.index.slots[first + 2 * j + 1],
                    });
                }
            }
            return None;
        }
        let start = self.slot.c as usize;
        let sorted = &self.index.sorted[start..start + entries.len() / 2];
        let j = sorted
            .binary_search_by(|&j| entries[2 * j as usize].text().cmp(name))
            .ok()?;
        let j = sorted[j] as usize;
        Some(Node {
            index: self.index,
            slot: &self.index.slots[first + 2 * j + 1],
        })
    }
    #[inline]
    fn entries(self) -> Entries<'a> {
        Entries {
            index: self.index,
            at: self.slot.a as usize,
            end: (self.slot.a + 2 * self.slot.b) as usize,
        }
    }
}

/// An object's entries in the dict's order: (key, its summary, value).
pub struct Entries<'a> {
    index: &'a Index,
    at: usize,
    end: usize,
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, u64, Node<'a>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.end {
            return None;
        }
        let key = self.index.slots[self.at].text();
        let value = Node {
            index: self.index,
            slot: &self.index.slots[self.at + 1],
        };
        self.at += 2;
        Some((key, toolschema::flat::summary(key), value))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.at) / 2;
        (n, Some(n))
    }
}

/// An array of the index, or a tail of one.
#[derive(Clone, Copy)]
pub struct Items<'a> {
    index: &'a Index,
    start: usize,
    end: usize,
}

impl<'a> Array<'a> for Items<'a> {
    type Item = Node<'a>;
    type Iter = Items<'a>;
    #[inline(always)]
    fn len(self) -> usize {
        self.end - self.start
    }
    #[inline]
    fn get(self, i: usize) -> Option<Node<'a>> {
        (i < self.len()).then(|| Node {
            index: self.index,
            slot: &self.index.slots[self.start + i],
        })
    }
    #[inline]
    fn tail(mut self, n: usize) -> Items<'a> {
        self.start = self.start.saturating_add(n).min(self.end);
        self
    }
    #[inline]
    fn iter(self) -> Items<'a> {
        self
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Node<'a>;
    #[inline]
    fn next(&mut self) -> Option<Node<'a>> {
        if self.start >= self.end {
            return None;
        }
        let v = Node {
            index: self.index,
            slot: &self.index.slots[self.start],
        };
        self.start += 1;
        Some(v)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.start;
        (n, Some(n))
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<Node<'a>> {
        self.start = self.start.saturating_add(n).min(self.end);
        self.next()
    }
}

impl DoubleEndedIterator for Items<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.start >= self.end {
            return None;
        }
        self.end -= 1;
        Some(Node {
            index: self.index,
            slot: &self.index.slots[self.end],
        })
    }
}

impl ExactSizeIterator for Items<'_> {}

// --- the walk -----------------------------------------------------------------------

/// One step of a location.
enum Step {
    Key(String),
    Index(usize),
}

/// Why a Python value is not a JSON instance, and where.
pub struct NotJson {
    what: String,
    /// Innermost step first.
    steps: Vec<Step>,
    /// A type error (not JSON) rather than a value error (too deep, out of range).
    type_error: bool,
    /// For a cycle: the steps to the first container met twice (the location names it).
    keep: Option<usize>,
}

impl NotJson {
    /// The JSON Pointer of the value.
    pub fn location(&self) -> String {
        let mut out = String::new();
        let keep = self.keep.unwrap_or(self.steps.len());
        for step in self.steps.iter().rev().take(keep) {
            out.push('/');
            match step {
                Step::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Step::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }

    /// The Python exception: `TypeError` for a value JSON has no form for, `ValueError` for
    /// one too deep or out of range.
    pub fn into_err(self, what: &str) -> PyErr {
        let loc = self.location();
        let at = if loc.is_empty() { "/".to_string() } else { loc };
        let message = format!("{what} is not JSON at {at}: {}", self.what);
        if self.type_error {
            PyTypeError::new_err(message)
        } else {
            PyValueError::new_err(message)
        }
    }
}

fn not_json(what: impl Into<String>) -> NotJson {
    NotJson {
        what: what.into(),
        steps: Vec::new(),
        type_error: true,
        keep: None,
    }
}

fn out_of_range(what: impl Into<String>) -> NotJson {
    NotJson {
        type_error: false,
        ..not_json(what)
    }
}

fn type_name(py: Python<'_>, ptr: *mut ffi::PyObject) -> String {
    let obj = unsafe { Bound::from_borrowed_ptr(py, ptr) };
    obj.get_type()
        .qualname()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

struct Walk<'py, 'i> {
    py: Python<'py>,
    index: &'i mut Index,
    /// A value needs [`normalise`] (a Mapping or Sequence other than dict/list/tuple,
    /// a `str` subclass key): the walk stops there.
    exotic: bool,
    /// The containers on the current path (only read to tell a cycle from depth).
    path: Vec<*mut ffi::PyObject>,
}

impl Walk<'_, '_> {
    /// Records `ptr` at slot `at`.
    fn value(&mut self, ptr: *mut ffi::PyObject, at: usize) -> Result<(), NotJson> {
        self.index.count += 1;
        let slot = match unsafe { classify(ptr) } {
            Tag::Null => EMPTY,
            Tag::True => Slot {
                form: Form::True,
                ..EMPTY
            },
            Tag::False => Slot {
                form: Form::False,
                ..EMPTY
            },
            Tag::Int => int_slot(ptr)?,
            Tag::Float => {
                let f = unsafe { ffi::PyFloat_AsDouble(ptr) };
                if !f.is_finite() {
                    return Err(not_json("NaN and infinities are not JSON numbers"));
                }
                Slot {
                    form: Form::Float,
                    a: f.to_bits(),
                    ..EMPTY
                }
            }
            Tag::Str => match unsafe { utf8(ptr) } {
                Some(s) => {
                    self.index.count += s.len() / 4096;
                    str_slot(s)
                }
                None => return Err(not_json("a string with a lone surrogate")),
            },
            Tag::List | Tag::Tuple => return self.container(ptr, at, false),
            Tag::Dict => return self.container(ptr, at, true),
            Tag::Other => return self.other(ptr),
        };
        self.index.slots[at] = slot;
        Ok(())
    }

    fn container(&mut self, ptr: *mut ffi::PyObject, at: usize, dict: bool) -> Result<(), NotJson> {
        if self.path.len() >= MAX_DEPTH {
            return Err(if self.path.contains(&ptr) {
                // The location of the first container met again on the path.
                let first = (1..self.path.len())
                    .find(|&k| self.path[..k].contains(&self.path[k]))
                    .unwrap_or(self.path.len());
                NotJson {
                    keep: Some(first),
                    ..not_json("a container that contains itself (a cycle)")
                }
            } else {
                out_of_range(format!(
                    "nesting deeper than {MAX_DEPTH} arrays and objects"
                ))
            });
        }
        self.path.push(ptr);
        let r = if dict {
            self.members(ptr, at)
        } else {
            self.items(ptr, at)
        };
        self.path.pop();
        r
    }

    /// Reserves `n` slots side by side; their first.
    fn reserve(&mut self, n: usize) -> Result<usize, NotJson> {
        let first = self.index.slots.len();
        // A container may hold the same list or dict many times (`[x, x]` nested 60 deep
        // is tiny in memory): the walk reads it as JSON would write it out, so the count,
        // not the depth, is what must stop it before it runs for hours.
        if first + n > MAX_VALUES {
            return Err(out_of_range(format!(
                "more than {MAX_VALUES} values (a container held more than once counts each time)"
            )));
        }
        self.index.slots.resize(first + n, EMPTY);
        Ok(first)
    }

    fn items(&mut self, ptr: *mut ffi::PyObject, at: usize) -> Result<(), NotJson> {
        let tuple = unsafe { ffi::PyTuple_Check(ptr) } != 0;
        let len = unsafe {
            if tuple {
                ffi::PyTuple_Size(ptr)
            } else {
                ffi::PyList_Size(ptr)
            }
        }
        .max(0) as usize;
        let first = self.reserve(len)?;
        self.index.slots[at] = Slot {
            form: Form::Array,
            a: first as u64,
            b: len as u64,
            ..EMPTY
        };
        for i in 0..len {
            let item = unsafe {
                if tuple {
                    ffi::PyTuple_GetItem(ptr, i as ffi::Py_ssize_t)
                } else {
                    ffi::PyList_GetItem(ptr, i as ffi::Py_ssize_t)
                }
            };
            if item.is_null() {
                unsafe { ffi::PyErr_Clear() };
                return Err(not_json("a list that changed size while it was read"));
            }
            self.value(item, first + i).map_err(|mut e| {
                e.steps.push(Step::Index(i));
                e
            })?;
            if self.exotic {
                return Ok(());
            }
        }
        Ok(())
    }

    fn members(&mut self, ptr: *mut ffi::PyObject, at: usize) -> Result<(), NotJson> {
        let len = unsafe { ffi::PyDict_Size(ptr) }.max(0) as usize;
        let first = self.reserve(2 * len)?;
        let mut pos: ffi::Py_ssize_t = 0;
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        let mut j = 0;
        while j < len && unsafe { ffi::PyDict_Next(ptr, &mut pos, &mut key, &mut value) } != 0 {
            let exact = is_type(unsafe { ffi::Py_TYPE(key) }, &raw mut ffi::PyUnicode_Type);
            if !exact {
                if unsafe { ffi::PyUnicode_Check(key) } == 0 {
                    return Err(not_json(format!(
                        "an object key of type {} (JSON keys are strings)",
                        type_name(self.py, key)
                    )));
                }
                self.exotic = true;
                return Ok(());
            }
            let Some(name) = (unsafe { utf8(key) }) else {
                return Err(not_json("an object key with a lone surrogate"));
            };
            self.index.slots[first + 2 * j] = str_slot(name);
            self.value(value, first + 2 * j + 1).map_err(|mut e| {
                e.steps.push(Step::Key(name.to_string()));
                e
            })?;
            if self.exotic {
                return Ok(());
            }
            j += 1;
        }
        let mut slot = Slot {
            form: Form::Object,
            a: first as u64,
            b: j as u64,
            ..EMPTY
        };
        if j > LARGE_OBJECT {
            let start = self.index.sorted.len();
            if start + j > u32::MAX as usize {
                return Err(out_of_range("more than 4,294,967,295 object entries"));
            }
            let slots = &self.index.slots;
            let mut order: Vec<u32> = (0..j as u32).collect();
            order.sort_unstable_by(|&x, &y| {
                slots[first + 2 * x as usize]
                    .text()
                    .cmp(slots[first + 2 * y as usize].text())
            });
            self.index.sorted.extend_from_slice(&order);
            slot.c = start as u32;
        }
        self.index.slots[at] = slot;
        Ok(())
    }

    /// Something that is not a dict, list, tuple or scalar: a Mapping or a Sequence is
    /// JSON (copied by [`normalise`] first), anything else is not.
    #[cold]
    fn other(&mut self, ptr: *mut ffi::PyObject) -> Result<(), NotJson> {
        let obj = unsafe { Bound::from_borrowed_ptr(self.py, ptr) };
        match abc(self.py, &obj) {
            Abc::Mapping | Abc::Sequence => {
                self.exotic = true;
                Ok(())
            }
            Abc::Neither => Err(not_json(format!(
                "a value of type {} (JSON has null, booleans, numbers, strings, arrays \
                 and objects)",
                type_name(self.py, ptr)
            ))),
        }
    }
}

#[inline(always)]
fn str_slot(s: &str) -> Slot {
    Slot {
        form: Form::Str,
        a: s.as_ptr() as u64,
        b: s.len() as u64,
        ..EMPTY
    }
}

/// An `int` as serde_json holds a number: `i64`, `u64`, else the nearest `f64` (as the
/// JSON text path reads a long integer literal); past the `f64` range, refused.
fn int_slot(ptr: *mut ffi::PyObject) -> Result<Slot, NotJson> {
    unsafe {
        let mut overflow: std::ffi::c_int = 0;
        let v = ffi::PyLong_AsLongLongAndOverflow(ptr, &mut overflow);
        if overflow == 0 {
            if v == -1 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return Err(not_json("an int that cannot be read"));
            }
            return Ok(Slot {
                form: Form::Int,
                a: v as u64,
                ..EMPTY
            });
        }
        if overflow > 0 {
            let u = ffi::PyLong_AsUnsignedLongLong(ptr);
            if u != u64::MAX || ffi::PyErr_Occurred().is_null() {
                return Ok(Slot {
                    form: Form::UInt,
                    a: u,
                    ..EMPTY
                });
            }
            ffi::PyErr_Clear();
        }
        let f = ffi::PyLong_AsDouble(ptr);
        if f.is_infinite() || (f == -1.0 && !ffi::PyErr_Occurred().is_null()) {
            ffi::PyErr_Clear();
            return Err(out_of_range(
                "an integer past the range of a JSON number (about 1.8e308)",
            ));
        }
        Ok(Slot {
            form: Form::Float,
            a: f.to_bits(),
            ..EMPTY
        })
    }
}

enum Abc {
    Mapping,
    Sequence,
    Neither,
}

fn abc(py: Python<'_>, obj: &Bound<'_, PyAny>) -> Abc {
    static ABCS: PyOnceLock<(Py<PyAny>, Py<PyAny>)> = PyOnceLock::new();
    let Ok((mapping, sequence)) = ABCS.get_or_try_init(py, || -> PyResult<_> {
        let m = py.import("collections.abc")?;
        Ok((
            m.getattr("Mapping")?.unbind(),
            m.getattr("Sequence")?.unbind(),
        ))
    }) else {
        return Abc::Neither;
    };
    if obj.is_instance(mapping.bind(py)).unwrap_or(false) {
        return Abc::Mapping;
    }
    // bytes, bytearray and memoryview are Sequences of ints, not JSON arrays.
    let binary = unsafe {
        ffi::PyBytes_Check(obj.as_ptr()) != 0 || ffi::PyByteArray_Check(obj.as_ptr()) != 0
    } || obj.is_instance_of::<pyo3::types::PyMemoryView>();
    if !binary && obj.is_instance(sequence.bind(py)).unwrap_or(false) {
        return Abc::Sequence;
    }
    Abc::Neither
}

/// A Python value checked as an instance: the object the engine reads (the caller's own
/// or, for exotic containers, a plain copy) and its index. Gives the index's buffer back
/// to the thread when dropped.
pub struct Checked<'py> {
    obj: Bound<'py, PyAny>,
    index: Option<Box<Index>>,
}

impl Checked<'_> {
    /// The root, read through the index.
    pub fn root(&self) -> Node<'_> {
        let index = self.index.as_deref().expect("present until dropped");
        Node {
            index,
            slot: &index.slots[0],
        }
    }

    /// The root, read directly from the Python objects (the slow twin).
    pub fn direct(&self) -> crate::instance::PyValue<'_> {
        let count = self.index.as_deref().map_or(0, |i| i.count);
        crate::instance::PyValue::root(&self.obj, count)
    }
}

impl Drop for Checked<'_> {
    fn drop(&mut self) {
        if let Some(mut index) = self.index.take() {
            if index.slots.capacity() > KEEP_SLOTS {
                return;
            }
            index.slots.clear();
            index.sorted.clear();
            index.count = 0;
            SPARE.with(|s| s.set(Some(index)));
        }
    }
}

fn walk(obj: &Bound<'_, PyAny>, index: &mut Index) -> Result<bool, NotJson> {
    index.slots.clear();
    index.sorted.clear();
    index.count = 0;
    index.slots.push(EMPTY);
    let mut path = std::mem::take(&mut index.path);
    path.clear();
    let mut w = Walk {
        py: obj.py(),
        index,
        exotic: false,
        path,
    };
    let r = w.value(obj.as_ptr(), 0);
    let exotic = w.exotic;
    w.index.path = std::mem::take(&mut w.path);
    r.map(|()| exotic)
}

/// Checks `obj` as a JSON instance and indexes it (see the module's comment).
pub fn check<'py>(obj: &Bound<'py, PyAny>) -> Result<Checked<'py>, NotJson> {
    let mut index = SPARE.with(Cell::take).unwrap_or_default();
    if !walk(obj, &mut index)? {
        return Ok(Checked {
            obj: obj.clone(),
            index: Some(index),
        });
    }
    let copy = normalise(obj, 0).map_err(|e| not_json(e.to_string()))?;
    if walk(&copy, &mut index)? {
        return Err(not_json("a container that could not be read as JSON"));
    }
    Ok(Checked {
        obj: copy,
        index: Some(index),
    })
}

/// A copy of `obj` in plain dicts, lists and exact `str` keys (Mappings and Sequences
/// read through their Python protocols). Values that are not JSON are copied as they are,
/// for the second walk to refuse with their location.
fn normalise<'py>(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    if depth > MAX_DEPTH {
        // Deeper than any instance may be: the second walk refuses it as it stands.
        return Ok(obj.clone());
    }
    match unsafe { classify(obj.as_ptr()) } {
        Tag::Dict | Tag::Other if matches!(abc(py, obj), Abc::Mapping) => {
            let out = PyDict::new(py);
            for item in obj.call_method0("items")?.try_iter()? {
                let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
                let key = match k.cast::<PyString>() {
                    Ok(s) => PyString::new(py, s.to_str()?).into_any(),
                    Err(_) => k,
                };
                out.set_item(key, normalise(&v, depth + 1)?)?;
            }
            Ok(out.into_any())
        }
        Tag::List | Tag::Tuple | Tag::Other if matches!(abc(py, obj), Abc::Sequence) => {
            let out = PyList::empty(py);
            for item in obj.try_iter()? {
                out.append(normalise(&item?, depth + 1)?)?;
            }
            Ok(out.into_any())
        }
        _ => Ok(obj.clone()),
    }
}
