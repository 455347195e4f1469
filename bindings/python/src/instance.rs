//! The direct reading of Python objects: [`PyValue`] implements toolschema's
//! `flat::Instance` over a borrowed `PyObject*`, each read a call into the C API. It is
//! the slow, obvious twin of `index` (which the validator uses): the tests run every
//! suite case through both (`Validator._is_valid_direct`).
//!
//! It reads only what `index::check` accepted: exact `str` keys, `dict`/`list`/`tuple`
//! storage and immutable scalars, so no Python code runs while it reads.

use pyo3::ffi;
use std::marker::PhantomData;
use toolschema::flat::{Array, Instance, Kind, Object};

/// Objects of at most this many keys are searched by comparing keys' UTF-8; larger ones
/// through the dict's hash table.
const SCAN_KEYS: isize = 16;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Tag {
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
pub(crate) fn is_type(t: *mut ffi::PyTypeObject, of: *mut ffi::PyTypeObject) -> bool {
    std::ptr::eq(t, of)
}

#[inline(always)]
pub(crate) unsafe fn classify(ptr: *mut ffi::PyObject) -> Tag {
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
pub(crate) unsafe fn utf8<'a>(ptr: *mut ffi::PyObject) -> Option<&'a str> {
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
    /// The root handle over `obj` (checked by `index::check`), counting `count` values.
    pub fn root(obj: &'a pyo3::Bound<'_, pyo3::PyAny>, count: usize) -> PyValue<'a> {
        PyValue {
            ptr: obj.as_ptr(),
            tag: unsafe { classify(obj.as_ptr()) },
            count: u32::try_from(count).unwrap_or(u32::MAX),
            _life: PhantomData,
        }
    }

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
