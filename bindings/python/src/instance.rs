//! Python objects read in place by the engine: [`PyValue`] implements toolschema's
//! `flat::Instance` over a borrowed `PyObject*`, so validation walks the caller's dicts,
//! lists and strings with no JSON round trip and no `serde_json::Value` built.
//!
//! Before a call reads anything, [`check`] walks the whole value once: it refuses what is
//! not JSON (a `set`, `bytes`, a NaN, a non-string key, a lone surrogate) with the
//! location, bounds the depth (a cyclic container is named as such), counts the values
//! for the engine's step budget, and caches every string's UTF-8 (so the evaluator's reads
//! are pointer reads). After it, the evaluator runs no Python code: only exact `str` keys,
//! `dict`/`list`/`tuple` storage and immutable scalars remain. Anything else JSON-like (a
//! `Mapping` or `Sequence` that is not a dict/list/tuple, a `str` subclass as a key) is
//! first copied into plain containers by [`normalise`] (the slow, rare path).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};
use std::marker::PhantomData;
use toolschema::flat::{Array, Instance, Kind, Object};

/// The deepest nesting of arrays and objects an instance may have: the same cap as the
/// JSON text path (`is_valid_json`), so both paths answer alike.
pub const MAX_DEPTH: usize = toolschema::flat::DEFAULT_MAX_DEPTH as usize;

/// Objects of at most this many keys are searched by comparing keys' UTF-8; larger ones
/// through the dict's hash table.
const SCAN_KEYS: isize = 16;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tag {
    Null,
    False,
    True,
    Int,
    Float,
    Str,
    List,
    Tuple,
    Dict,
    /// Not JSON (refused by [`check`] before any read).
    Other,
}

/// A JSON value held by Python, as the engine reads it. Valid while the root object the
/// call borrowed is alive and unchanged (the GIL is held and no Python code runs).
#[derive(Clone, Copy)]
pub struct PyValue<'a> {
    ptr: *mut ffi::PyObject,
    tag: Tag,
    /// The values under the root, for the step budget (0 below the root).
    count: u32,
    _life: PhantomData<&'a ()>,
}

#[inline(always)]
fn is_type(t: *mut ffi::PyTypeObject, of: *mut ffi::PyTypeObject) -> bool {
    std::ptr::eq(t, of)
}

#[inline(always)]
unsafe fn classify(ptr: *mut ffi::PyObject) -> Tag {
    unsafe {
        let t = ffi::Py_TYPE(ptr);
        if is_type(t, &raw mut ffi::PyUnicode_Type) {
            Tag::Str
        } else if is_type(t, &raw mut ffi::PyLong_Type) {
            Tag::Int
        } else if is_type(t, &raw mut ffi::PyDict_Type) {
            Tag::Dict
        } else if is_type(t, &raw mut ffi::PyList_Type) {
            Tag::List
        } else if is_type(t, &raw mut ffi::PyFloat_Type) {
            Tag::Float
        } else if ptr == ffi::Py_None() {
            Tag::Null
        } else if ptr == ffi::Py_True() {
            Tag::True
        } else if ptr == ffi::Py_False() {
            Tag::False
        } else {
            classify_subclass(ptr)
        }
    }
}

#[cold]
unsafe fn classify_subclass(ptr: *mut ffi::PyObject) -> Tag {
    unsafe {
        if ffi::PyTuple_Check(ptr) != 0 {
            Tag::Tuple
        } else if ffi::PyLong_Check(ptr) != 0 {
            // (`bool` cannot be subclassed: True and False were matched by identity.)
            Tag::Int
        } else if ffi::PyFloat_Check(ptr) != 0 {
            Tag::Float
        } else if ffi::PyUnicode_Check(ptr) != 0 {
            Tag::Str
        } else if ffi::PyDict_Check(ptr) != 0 {
            Tag::Dict
        } else if ffi::PyList_Check(ptr) != 0 {
            Tag::List
        } else {
            Tag::Other
        }
    }
}

/// The UTF-8 of a `str` (cached by Python on the object after the first call; a compact
/// ASCII string's own buffer). `None` for a lone surrogate (the error is cleared).
#[inline(always)]
unsafe fn utf8<'a>(ptr: *mut ffi::PyObject) -> Option<&'a str> {
    unsafe {
        let mut len: ffi::Py_ssize_t = 0;
        let data = ffi::PyUnicode_AsUTF8AndSize(ptr, &mut len);
        if data.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), len as usize);
        // Python's UTF-8 encoder produced it.
        Some(std::str::from_utf8_unchecked(bytes))
    }
}

impl<'a> PyValue<'a> {
    #[inline(always)]
    fn child(ptr: *mut ffi::PyObject) -> PyValue<'a> {
        PyValue {
            ptr,
            tag: unsafe { classify(ptr) },
            count: 0,
            _life: PhantomData,
        }
    }
}

impl<'a> Instance<'a> for PyValue<'a> {
    type Object = PyObjectView<'a>;
    type Array = PySeq<'a>;

    #[inline(always)]
    fn kind(self) -> Kind {
        match self.tag {
            Tag::Null | Tag::Other => Kind::Null,
            Tag::False | Tag::True => Kind::Bool,
            Tag::Int | Tag::Float => Kind::Number,
            Tag::Str => Kind::String,
            Tag::List | Tag::Tuple => Kind::Array,
            Tag::Dict => Kind::Object,
        }
    }
    #[inline(always)]
    fn as_bool(self) -> Option<bool> {
        match self.tag {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }
    #[inline]
    fn as_number(self) -> Option<serde_json::Number> {
        match self.tag {
            Tag::Int => Some(unsafe { int_number(self.ptr) }),
            Tag::Float => {
                let f = unsafe { ffi::PyFloat_AsDouble(self.ptr) };
                // (`check` refused the non-finite ones.)
                Some(serde_json::Number::from_f64(f).unwrap_or_else(|| 0.into()))
            }
            _ => None,
        }
    }
    #[inline(always)]
    fn as_str(self) -> Option<&'a str> {
        match self.tag {
            Tag::Str => Some(unsafe { utf8(self.ptr) }.unwrap_or_default()),
            _ => None,
        }
    }
    #[inline(always)]
    fn as_array(self) -> Option<PySeq<'a>> {
        let tuple = match self.tag {
            Tag::List => false,
            Tag::Tuple => true,
            _ => return None,
        };
        let len = unsafe {
            if tuple {
                ffi::PyTuple_Size(self.ptr)
            } else {
                ffi::PyList_Size(self.ptr)
            }
        };
        Some(PySeq {
            ptr: self.ptr,
            tuple,
            start: 0,
            end: len.max(0) as usize,
            _life: PhantomData,
        })
    }
    #[inline(always)]
    fn as_object(self) -> Option<PyObjectView<'a>> {
        (self.tag == Tag::Dict).then_some(PyObjectView {
            ptr: self.ptr,
            _life: PhantomData,
        })
    }
    #[inline(always)]
    fn as_value(self) -> Option<&'a serde_json::Value> {
        None
    }
    #[inline]
    fn count_values(self) -> usize {
        self.count as usize
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

/// An `int` as serde_json holds a number: `u64`, a negative `i64`, else the nearest `f64`
/// (as the JSON text path reads a long integer literal).
unsafe fn int_number(ptr: *mut ffi::PyObject) -> serde_json::Number {
    unsafe {
        let mut overflow: std::ffi::c_int = 0;
        let v = ffi::PyLong_AsLongLongAndOverflow(ptr, &mut overflow);
        if overflow == 0 {
            if v == -1 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return 0.into();
            }
            return v.into();
        }
        if overflow > 0 {
            let u = ffi::PyLong_AsUnsignedLongLong(ptr);
            if u != u64::MAX || ffi::PyErr_Occurred().is_null() {
                return u.into();
            }
            ffi::PyErr_Clear();
        }
        let f = ffi::PyLong_AsDouble(ptr);
        if f == -1.0 && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
        }
        serde_json::Number::from_f64(f).unwrap_or_else(|| 0.into())
    }
}

/// A `dict` with exact `str` keys.
#[derive(Clone, Copy)]
pub struct PyObjectView<'a> {
    ptr: *mut ffi::PyObject,
    _life: PhantomData<&'a ()>,
}

impl<'a> Object<'a> for PyObjectView<'a> {
    type Value = PyValue<'a>;
    type Entries = PyEntries<'a>;

    #[inline(always)]
    fn len(self) -> usize {
        unsafe { ffi::PyDict_Size(self.ptr) }.max(0) as usize
    }
    #[inline]
    fn get(self, name: &str, _summary: u64) -> Option<PyValue<'a>> {
        unsafe {
            if ffi::PyDict_Size(self.ptr) <= SCAN_KEYS {
                let mut pos: ffi::Py_ssize_t = 0;
                let mut key = std::ptr::null_mut();
                let mut value = std::ptr::null_mut();
                while ffi::PyDict_Next(self.ptr, &mut pos, &mut key, &mut value) != 0 {
                    if utf8(key) == Some(name) {
                        return Some(PyValue::child(value));
                    }
                }
                return None;
            }
            // Exact `str` keys only (see `check`): the lookup compares strings and runs no
            // Python code.
            let key = ffi::PyUnicode_FromStringAndSize(name.as_ptr().cast(), name.len() as _);
            if key.is_null() {
                ffi::PyErr_Clear();
                return None;
            }
            let value = ffi::PyDict_GetItem(self.ptr, key);
            ffi::Py_DecRef(key);
            (!value.is_null()).then(|| PyValue::child(value))
        }
    }
    #[inline]
    fn entries(self) -> PyEntries<'a> {
        PyEntries {
            ptr: self.ptr,
            pos: 0,
            _life: PhantomData,
        }
    }
}

/// A dict's entries in insertion order: (key, its summary, value).
pub struct PyEntries<'a> {
    ptr: *mut ffi::PyObject,
    pos: ffi::Py_ssize_t,
    _life: PhantomData<&'a ()>,
}

impl<'a> Iterator for PyEntries<'a> {
    type Item = (&'a str, u64, PyValue<'a>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        unsafe {
            if ffi::PyDict_Next(self.ptr, &mut self.pos, &mut key, &mut value) == 0 {
                return None;
            }
            let name = utf8(key).unwrap_or_default();
            Some((name, toolschema::flat::summary(name), PyValue::child(value)))
        }
    }
}

/// A `list` or `tuple`, or a tail of one.
#[derive(Clone, Copy)]
pub struct PySeq<'a> {
    ptr: *mut ffi::PyObject,
    tuple: bool,
    start: usize,
    end: usize,
    _life: PhantomData<&'a ()>,
}

impl<'a> PySeq<'a> {
    #[inline(always)]
    fn item(&self, i: usize) -> PyValue<'a> {
        let ptr = unsafe {
            if self.tuple {
                ffi::PyTuple_GetItem(self.ptr, i as ffi::Py_ssize_t)
            } else {
                ffi::PyList_GetItem(self.ptr, i as ffi::Py_ssize_t)
            }
        };
        if ptr.is_null() {
            // (Unreachable: the index is in range and nothing resizes the list.)
            unsafe { ffi::PyErr_Clear() };
            return PyValue::child(unsafe { ffi::Py_None() });
        }
        PyValue::child(ptr)
    }
}

impl<'a> Array<'a> for PySeq<'a> {
    type Item = PyValue<'a>;
    type Iter = PySeq<'a>;
    #[inline(always)]
    fn len(self) -> usize {
        self.end - self.start
    }
    #[inline]
    fn get(self, i: usize) -> Option<PyValue<'a>> {
        (i < self.len()).then(|| self.item(self.start + i))
    }
    #[inline]
    fn tail(mut self, n: usize) -> PySeq<'a> {
        self.start = self.start.saturating_add(n).min(self.end);
        self
    }
    #[inline]
    fn iter(self) -> PySeq<'a> {
        self
    }
}

impl<'a> Iterator for PySeq<'a> {
    type Item = PyValue<'a>;
    #[inline]
    fn next(&mut self) -> Option<PyValue<'a>> {
        if self.start >= self.end {
            return None;
        }
        let v = self.item(self.start);
        self.start += 1;
        Some(v)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.start;
        (n, Some(n))
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<PyValue<'a>> {
        self.start = self.start.saturating_add(n).min(self.end);
        self.next()
    }
}

impl DoubleEndedIterator for PySeq<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.start >= self.end {
            return None;
        }
        self.end -= 1;
        Some(self.item(self.end))
    }
}

impl ExactSizeIterator for PySeq<'_> {}

// --- the walk before a call -------------------------------------------------------

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

struct Walk<'py> {
    py: Python<'py>,
    count: usize,
    /// A value needs [`normalise`] (a Mapping or Sequence other than dict/list/tuple,
    /// a `str` subclass key).
    exotic: bool,
    /// The containers on the current path (only read to tell a cycle from depth).
    path: Vec<*mut ffi::PyObject>,
}

impl Walk<'_> {
    fn value(&mut self, ptr: *mut ffi::PyObject) -> Result<(), NotJson> {
        self.count += 1;
        match unsafe { classify(ptr) } {
            Tag::Null | Tag::True | Tag::False => Ok(()),
            Tag::Int => {
                let f = unsafe { ffi::PyLong_AsDouble(ptr) };
                if f.is_infinite() || (f == -1.0 && !unsafe { ffi::PyErr_Occurred() }.is_null()) {
                    unsafe { ffi::PyErr_Clear() };
                    return Err(out_of_range(
                        "an integer past the range of a JSON number (about 1.8e308)",
                    ));
                }
                Ok(())
            }
            Tag::Float => {
                let f = unsafe { ffi::PyFloat_AsDouble(ptr) };
                if f.is_finite() {
                    Ok(())
                } else {
                    Err(not_json("NaN and infinities are not JSON numbers"))
                }
            }
            Tag::Str => match unsafe { utf8(ptr) } {
                Some(s) => {
                    self.count += s.len() / 4096;
                    Ok(())
                }
                None => Err(not_json("a string with a lone surrogate")),
            },
            Tag::List | Tag::Tuple => self.container(ptr, false),
            Tag::Dict => self.container(ptr, true),
            Tag::Other => self.other(ptr),
        }
    }

    fn container(&mut self, ptr: *mut ffi::PyObject, dict: bool) -> Result<(), NotJson> {
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
            self.members(ptr)
        } else {
            self.items(ptr)
        };
        self.path.pop();
        r
    }

    fn items(&mut self, ptr: *mut ffi::PyObject) -> Result<(), NotJson> {
        let tuple = unsafe { ffi::PyTuple_Check(ptr) } != 0;
        let len = unsafe {
            if tuple {
                ffi::PyTuple_Size(ptr)
            } else {
                ffi::PyList_Size(ptr)
            }
        };
        for i in 0..len.max(0) {
            let item = unsafe {
                if tuple {
                    ffi::PyTuple_GetItem(ptr, i)
                } else {
                    ffi::PyList_GetItem(ptr, i)
                }
            };
            if item.is_null() {
                unsafe { ffi::PyErr_Clear() };
                break;
            }
            self.value(item).map_err(|mut e| {
                e.steps.push(Step::Index(i as usize));
                e
            })?;
        }
        Ok(())
    }

    fn members(&mut self, ptr: *mut ffi::PyObject) -> Result<(), NotJson> {
        let mut pos: ffi::Py_ssize_t = 0;
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        while unsafe { ffi::PyDict_Next(ptr, &mut pos, &mut key, &mut value) } != 0 {
            let exact = is_type(unsafe { ffi::Py_TYPE(key) }, &raw mut ffi::PyUnicode_Type);
            if !exact {
                if unsafe { ffi::PyUnicode_Check(key) } == 0 {
                    return Err(not_json(format!(
                        "an object key of type {} (JSON keys are strings)",
                        type_name(self.py, key)
                    )));
                }
                self.exotic = true;
            }
            let Some(name) = (unsafe { utf8(key) }) else {
                return Err(not_json("an object key with a lone surrogate"));
            };
            self.value(value).map_err(|mut e| {
                e.steps.push(Step::Key(name.to_string()));
                e
            })?;
        }
        Ok(())
    }

    /// Something that is not a dict, list, tuple or scalar: a Mapping or a Sequence is
    /// JSON (copied by [`normalise`] before the call), anything else is not.
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
/// or, for exotic containers, a plain copy) and its root handle.
pub struct Checked<'py> {
    obj: Bound<'py, PyAny>,
    count: u32,
}

impl Checked<'_> {
    /// The root handle, valid while `self` lives.
    pub fn root(&self) -> PyValue<'_> {
        PyValue {
            ptr: self.obj.as_ptr(),
            tag: unsafe { classify(self.obj.as_ptr()) },
            count: self.count,
            _life: PhantomData,
        }
    }
}

/// Checks `obj` as a JSON instance (see the module's comment).
pub fn check<'py>(obj: &Bound<'py, PyAny>) -> Result<Checked<'py>, NotJson> {
    let py = obj.py();
    let mut walk = Walk {
        py,
        count: 0,
        exotic: false,
        path: Vec::new(),
    };
    walk.value(obj.as_ptr())?;
    if !walk.exotic {
        return Ok(Checked {
            obj: obj.clone(),
            count: u32::try_from(walk.count).unwrap_or(u32::MAX),
        });
    }
    let copy = normalise(obj, 0).map_err(|e| not_json(e.to_string()))?;
    let mut walk = Walk {
        py,
        count: 0,
        exotic: false,
        path: Vec::new(),
    };
    walk.value(copy.as_ptr())?;
    Ok(Checked {
        obj: copy,
        count: u32::try_from(walk.count).unwrap_or(u32::MAX),
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
