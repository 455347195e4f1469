//! The `toolschema` Python package's native module (`toolschema._toolschema`): the engine's
//! compiled schemas over Python objects read in place (see `instance`), over JSON text with
//! the GIL released, and the MCP tool contract `toolschema serve` applies (see `contract`).

mod contract;
mod convert;
mod index;
mod instance;

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use toolschema::{Draft, Limits, Options, Schema};

create_exception!(
    toolschema,
    ValidationError,
    PyValueError,
    "An instance does not conform: `message`, `instance_location` (a JSON Pointer into the \
     instance), `keyword_location` (the path evaluation took to the failed keyword), \
     `absolute_keyword_location` and `kind` (the keyword's name). Never carries a value of \
     the instance."
);
create_exception!(
    toolschema,
    SchemaError,
    PyValueError,
    "A schema does not compile: `message`, `location` (a JSON Pointer into the schema), \
     `kind` and `violations` (every problem found together)."
);
create_exception!(
    toolschema,
    JsonError,
    PyValueError,
    "JSON text is malformed (or nests deeper than 127 levels): `offset`, `line`, `column`. \
     No part of the text is quoted."
);

/// A dialect named as users write it: `"2020-12"`, `"draft7"`, `7`, a `$schema` URI.
fn parse_draft(draft: &Bound<'_, PyAny>) -> PyResult<Draft> {
    let text = if let Ok(n) = draft.extract::<i64>() {
        n.to_string()
    } else {
        draft.extract::<String>()?.to_ascii_lowercase()
    };
    let t = text.trim_end_matches('#').trim_end_matches("/schema");
    let t = t.rsplit('/').next().unwrap_or(t);
    let t = t.trim_start_matches("draft").trim_start_matches(['-', '_']);
    Ok(match t {
        "4" | "04" => Draft::Draft4,
        "6" | "06" => Draft::Draft6,
        "7" | "07" => Draft::Draft7,
        "2019-09" | "201909" => Draft::Draft201909,
        "2020-12" | "202012" => Draft::Draft202012,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown draft {text:?} (expected one of \"2020-12\", \"2019-09\", \"7\", \"6\", \"4\")"
            )));
        }
    })
}

/// The options every entry point takes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn options(
    draft: Option<&Bound<'_, PyAny>>,
    assert_formats: bool,
    assert_content: bool,
    refs_fragment_only: bool,
    max_depth: usize,
    max_subschemas: usize,
    documents: Option<&Bound<'_, PyAny>>,
) -> PyResult<Options> {
    let mut opts = Options::new()
        .assert_formats(assert_formats)
        .assert_content(assert_content)
        .refs_fragment_only(refs_fragment_only)
        .limits(Limits::new(max_depth, max_subschemas));
    if let Some(d) = draft.filter(|d| !d.is_none()) {
        opts = opts.default_dialect(parse_draft(d)?);
    }
    if let Some(docs) = documents.filter(|d| !d.is_none()) {
        for item in docs.call_method0("items")?.try_iter()? {
            let (uri, doc): (String, Bound<'_, PyAny>) = item?.extract()?;
            opts = opts.with_document(&uri, convert::to_value(&doc, "a registered document")?);
        }
    }
    Ok(opts)
}

pub(crate) fn schema_error(py: Python<'_>, e: &toolschema::SchemaError) -> PyErr {
    let err = SchemaError::new_err(e.to_string());
    let set = || -> PyResult<()> {
        let v = err.value(py);
        v.setattr("message", e.message())?;
        v.setattr("location", e.location())?;
        v.setattr("kind", format!("{:?}", e.kind()))?;
        let list = PyList::empty(py);
        for x in e.violations() {
            let d = PyDict::new(py);
            d.set_item("location", x.location())?;
            d.set_item("message", x.message())?;
            d.set_item("kind", format!("{:?}", x.kind()))?;
            list.append(d)?;
        }
        v.setattr("violations", list)
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

fn validation_error(py: Python<'_>, e: &toolschema::ValidationError) -> PyErr {
    let err = ValidationError::new_err(e.to_string());
    let set = || -> PyResult<()> {
        let v = err.value(py);
        v.setattr("message", e.message())?;
        v.setattr("instance_location", e.instance_location())?;
        v.setattr("keyword_location", e.keyword_location())?;
        v.setattr("absolute_keyword_location", e.absolute_keyword_location())?;
        v.setattr("kind", e.kind().keyword())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

fn json_error(py: Python<'_>, e: &toolschema::JsonError) -> PyErr {
    let err = JsonError::new_err(format!("malformed JSON: {e}"));
    let set = || -> PyResult<()> {
        let v = err.value(py);
        v.setattr("offset", e.offset)?;
        v.setattr("line", e.line)?;
        v.setattr("column", e.column)
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// The bytes of a `str` or bytes-like argument (a `str`'s UTF-8, no copy).
enum Text<'py> {
    Str(Bound<'py, PyString>),
    Bytes(Bound<'py, PyBytes>),
    Owned(Vec<u8>),
}

impl Text<'_> {
    fn of<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Text<'py>> {
        if let Ok(s) = obj.cast::<PyString>() {
            // (Fails on a lone surrogate, which no UTF-8 text holds.)
            s.to_str()?;
            return Ok(Text::Str(s.clone()));
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Text::Bytes(b.clone()));
        }
        if let Ok(v) = obj.extract::<Vec<u8>>() {
            return Ok(Text::Owned(v));
        }
        Err(PyTypeError::new_err(
            "JSON text must be str, bytes or bytearray",
        ))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Text::Str(s) => s.to_str().map(str::as_bytes).unwrap_or_default(),
            Text::Bytes(b) => b.as_bytes(),
            Text::Owned(v) => v,
        }
    }
}

/// A compiled JSON Schema (2020-12, 2019-09, draft 7, 6 or 4; `$schema` picks, else
/// `draft`, else 2020-12).
///
/// ```python
/// v = toolschema.Validator({"type": "object", "required": ["city"]})
/// v.is_valid({"city": "Paris"})   # True
/// v.validate({})                  # raises ValidationError (instance_location "", kind "required")
/// ```
///
/// Instances are read in place: dict, list, tuple, str, int (any size), float, bool,
/// None, and other `collections.abc.Mapping`/`Sequence` objects. A value JSON has no form
/// for (a set, bytes, NaN, a non-string key) raises `TypeError` naming its location;
/// nesting deeper than 127 levels (or a cycle) raises `ValueError`. Immutable and safe to
/// share between threads.
///
/// Options: `draft` for a schema without `$schema` ("2020-12", "2019-09", "7", "6",
/// "4"); `assert_formats` (formats assert instead of annotating); `assert_content`
/// (`contentEncoding: base64` and `contentMediaType: application/json` assert);
/// `refs_fragment_only` (`$ref`s must start with `#`, as MCP SDKs require); `max_depth`
/// and `max_subschemas` bound the schema; `documents` maps URIs to schemas `$ref`s may
/// reach (nothing is ever fetched).
#[pyclass(frozen, module = "toolschema")]
struct Validator {
    schema: Schema,
}

#[pymethods]
impl Validator {
    #[new]
    #[pyo3(signature = (schema, *, draft=None, assert_formats=false, assert_content=false,
                        refs_fragment_only=false, max_depth=64, max_subschemas=10000, documents=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        schema: &Bound<'_, PyAny>,
        draft: Option<&Bound<'_, PyAny>>,
        assert_formats: bool,
        assert_content: bool,
        refs_fragment_only: bool,
        max_depth: usize,
        max_subschemas: usize,
        documents: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Validator> {
        let opts = options(
            draft,
            assert_formats,
            assert_content,
            refs_fragment_only,
            max_depth,
            max_subschemas,
            documents,
        )?;
        let value = convert::to_value(schema, "the schema")?;
        let schema = opts.compile(&value).map_err(|e| schema_error(py, &e))?;
        Ok(Validator { schema })
    }

    /// Whether `instance` conforms.
    fn is_valid(&self, instance: &Bound<'_, PyAny>) -> PyResult<bool> {
        let checked = index::check(instance).map_err(|e| e.into_err("the instance"))?;
        Ok(self.schema.is_valid_instance(checked.root()))
    }

    /// The verdict and error locations through the direct reading of the Python objects
    /// (the index's slow twin; for the tests).
    fn _direct<'py>(
        &self,
        py: Python<'py>,
        instance: &Bound<'py, PyAny>,
    ) -> PyResult<(bool, Bound<'py, PyList>)> {
        let checked = index::check(instance).map_err(|e| e.into_err("the instance"))?;
        let valid = self.schema.is_valid_instance(checked.direct());
        let locations = PyList::empty(py);
        if let Err(errors) = self.schema.validate_instance(checked.direct()) {
            for e in errors.iter() {
                locations.append((e.instance_location(), e.keyword_location()))?;
            }
        }
        Ok((valid, locations))
    }

    /// Raises `ValidationError` (the first error, in evaluation order) unless `instance`
    /// conforms.
    fn validate(&self, py: Python<'_>, instance: &Bound<'_, PyAny>) -> PyResult<()> {
        let checked = index::check(instance).map_err(|e| e.into_err("the instance"))?;
        match self.schema.validate_instance(checked.root()) {
            Ok(()) => Ok(()),
            Err(errors) => Err(match errors.iter().next() {
                Some(e) => validation_error(py, e),
                None => ValidationError::new_err("invalid"),
            }),
        }
    }

    /// Every error of `instance`, as `ValidationError` objects (not raised).
    fn iter_errors<'py>(
        &self,
        py: Python<'py>,
        instance: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let checked = index::check(instance).map_err(|e| e.into_err("the instance"))?;
        let list = PyList::empty(py);
        if let Err(errors) = self.schema.validate_instance(checked.root()) {
            for e in errors.iter() {
                list.append(validation_error(py, e).into_value(py))?;
            }
        }
        list.try_iter().map(Bound::into_any)
    }

    /// The standard output of evaluating `instance`: `output` is "flag", "basic"
    /// (default), "detailed" or "verbose"; returned as Python data.
    #[pyo3(signature = (instance, output="basic"))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        instance: &Bound<'py, PyAny>,
        output: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let checked = index::check(instance).map_err(|e| e.into_err("the instance"))?;
        let evaluation = self.schema.evaluate_instance(checked.root());
        let value = match output {
            "flag" => evaluation.flag(),
            "basic" => evaluation.basic(),
            "detailed" => evaluation.detailed(),
            "verbose" => evaluation.verbose(),
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown output format {other:?} (expected \"flag\", \"basic\", \
                     \"detailed\" or \"verbose\")"
                )));
            }
        };
        convert::to_py(py, &value)
    }

    /// Whether the JSON text `data` (str, bytes or bytearray) conforms, parsed with no
    /// Python object built and the GIL released. Raises `JsonError` for malformed text.
    fn is_valid_json(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<bool> {
        let text = Text::of(data)?;
        let bytes = text.bytes();
        let schema = &self.schema;
        py.detach(|| schema.is_valid_json(bytes))
            .map_err(|e| json_error(py, &e))
    }

    /// `validate` for JSON text (the GIL released while validating): raises `JsonError`
    /// for malformed text, `ValidationError` when it does not conform.
    fn validate_json(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = Text::of(data)?;
        let bytes = text.bytes();
        let schema = &self.schema;
        match py.detach(|| schema.validate_json(bytes)) {
            Ok(()) => Ok(()),
            Err(toolschema::JsonValidationError::Malformed(e)) => Err(json_error(py, &e)),
            Err(toolschema::JsonValidationError::Invalid(errors)) => {
                Err(match errors.iter().next() {
                    Some(e) => validation_error(py, e),
                    None => ValidationError::new_err("invalid"),
                })
            }
        }
    }

    fn __repr__(&self) -> String {
        "<toolschema.Validator>".to_string()
    }
}

/// A `Validator` for `schema`, its dialect chosen by its `$schema` (else 2020-12).
#[pyfunction]
#[pyo3(signature = (schema, *, draft=None, assert_formats=false, assert_content=false,
                    refs_fragment_only=false, max_depth=64, max_subschemas=10000, documents=None))]
#[allow(clippy::too_many_arguments)]
fn validator_for(
    py: Python<'_>,
    schema: &Bound<'_, PyAny>,
    draft: Option<&Bound<'_, PyAny>>,
    assert_formats: bool,
    assert_content: bool,
    refs_fragment_only: bool,
    max_depth: usize,
    max_subschemas: usize,
    documents: Option<&Bound<'_, PyAny>>,
) -> PyResult<Validator> {
    Validator::new(
        py,
        schema,
        draft,
        assert_formats,
        assert_content,
        refs_fragment_only,
        max_depth,
        max_subschemas,
        documents,
    )
}

/// Whether `instance` conforms to `schema` (compiled for this call: keep a `Validator`
/// for repeated use).
#[pyfunction]
#[pyo3(signature = (schema, instance, *, draft=None, assert_formats=false))]
fn is_valid(
    py: Python<'_>,
    schema: &Bound<'_, PyAny>,
    instance: &Bound<'_, PyAny>,
    draft: Option<&Bound<'_, PyAny>>,
    assert_formats: bool,
) -> PyResult<bool> {
    Validator::new(
        py,
        schema,
        draft,
        assert_formats,
        false,
        false,
        64,
        10_000,
        None,
    )?
    .is_valid(instance)
}

/// Raises `ValidationError` unless `instance` conforms to `schema`.
#[pyfunction]
#[pyo3(signature = (schema, instance, *, draft=None, assert_formats=false))]
fn validate(
    py: Python<'_>,
    schema: &Bound<'_, PyAny>,
    instance: &Bound<'_, PyAny>,
    draft: Option<&Bound<'_, PyAny>>,
    assert_formats: bool,
) -> PyResult<()> {
    Validator::new(
        py,
        schema,
        draft,
        assert_formats,
        false,
        false,
        64,
        10_000,
        None,
    )?
    .validate(py, instance)
}

#[pymodule]
fn _toolschema(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Validator>()?;
    m.add_class::<contract::ToolContract>()?;
    m.add_function(wrap_pyfunction!(validator_for, m)?)?;
    m.add_function(wrap_pyfunction!(is_valid, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add("ValidationError", py.get_type::<ValidationError>())?;
    m.add("SchemaError", py.get_type::<SchemaError>())?;
    m.add("JsonError", py.get_type::<JsonError>())?;
    m.add("ENGINE_VERSION", toolschema::VERSION)?;
    m.add("MAX_INSTANCE_DEPTH", index::MAX_DEPTH)?;
    Ok(())
}
