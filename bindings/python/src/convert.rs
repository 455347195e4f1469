//! Between Python objects and `serde_json::Value`: for schemas and registered documents
//! (read once, at compile time), the standard output formats, and the MCP contract's
//! refusals. Validation itself never converts (see `instance`).

use crate::index;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Map, Value};
use toolschema::flat::{Array, Instance, Kind, Object};

/// `obj` as a `Value`, refused as the instance path refuses it (`what` names it in the
/// message: "schema", "document").
pub fn to_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let checked = index::check(obj).map_err(|e| e.into_err(what))?;
    Ok(value_of(checked.root()))
}

/// The walk was bounded by `instance::check`'s depth cap.
fn value_of<'a, I: Instance<'a>>(v: I) -> Value {
    match v.kind() {
        Kind::Null => Value::Null,
        Kind::Bool => Value::Bool(v.as_bool().unwrap_or(false)),
        Kind::Number => v.as_number().map_or(Value::Null, Value::Number),
        Kind::String => Value::String(v.as_str().unwrap_or_default().to_string()),
        Kind::Array => Value::Array(
            v.as_array()
                .map(|a| a.iter().map(value_of).collect())
                .unwrap_or_default(),
        ),
        Kind::Object => {
            let mut map = Map::new();
            if let Some(o) = v.as_object() {
                for (k, _, x) in o.entries() {
                    map.insert(k.to_string(), value_of(x));
                }
            }
            Value::Object(map)
        }
    }
}

/// A `Value` as plain Python data (dict, list, str, int, float, bool, None).
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(0.0).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, x) in map {
                dict.set_item(k, to_py(py, x)?)?;
            }
            dict.into_any()
        }
    })
}
