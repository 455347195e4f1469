//! `ToolContract`: one listed tool's published schemas, compiled once, and the rules
//! `toolschema serve` and the proxy apply to a `tools/call` (toolschema's
//! `mcp::contract`): arguments checked before the tool runs, refused as the negotiated
//! protocol version expects (JSON-RPC `-32602` up to 2025-06-18, an `isError` result from
//! 2025-11-25 on); `structuredContent` checked against the output schema after. Refusals
//! name locations and keywords, never a value. The Python middleware and SDK helpers
//! (`toolschema.fastmcp`, `toolschema.mcp`) are thin shells around it.

use crate::{convert, index, options};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use toolschema::mcp::ProtocolVersion;
use toolschema::mcp::contract::{
    CheckedTool, OutputPolicy, Refusal, Violations, check_arguments, check_result_parts,
    refuse_arguments, refuse_result,
};

/// The contract of one listed MCP tool (a `Tool` as `tools/list` returns it, as a dict):
/// its `inputSchema` and `outputSchema` compiled once.
///
/// `check_arguments` and `check_result` answer `None` when the call may go on, else a
/// dict: `{"error": {"code", "message", "data"}}` (a JSON-RPC error to answer) or
/// `{"result": {...}}` (a `CallToolResult` with `isError: true` to answer instead), with
/// `"violations"` (tool, direction, each location/keyword/reason) for logs. A schema that
/// does not compile is listed in `problems` and left unchecked, as the proxy does.
#[pyclass(frozen, module = "toolschema")]
pub struct ToolContract {
    tool: CheckedTool,
}

fn version(v: Option<&str>) -> ProtocolVersion {
    ProtocolVersion::negotiate(v)
}

fn refusal<'py>(
    py: Python<'py>,
    refusal: Option<Refusal>,
    violations: &Violations,
) -> PyResult<Bound<'py, PyAny>> {
    let out = PyDict::new(py);
    match refusal {
        Some(Refusal::Error {
            code,
            message,
            data,
        }) => {
            let e = PyDict::new(py);
            e.set_item("code", code)?;
            e.set_item("message", message)?;
            e.set_item("data", convert::to_py(py, &data)?)?;
            out.set_item("error", e)?;
        }
        Some(Refusal::Result(result)) => out.set_item("result", convert::to_py(py, &result)?)?,
        None => {}
    }
    out.set_item("violations", convert::to_py(py, &violations.to_json())?)?;
    Ok(out.into_any())
}

fn policy(p: &Bound<'_, PyAny>) -> PyResult<OutputPolicy> {
    if let Ok(code) = p.extract::<i64>() {
        return Ok(OutputPolicy::JsonRpcError(code));
    }
    match p.extract::<String>()?.as_str() {
        "error_result" => Ok(OutputPolicy::ErrorResult),
        "log" => Ok(OutputPolicy::Log),
        "pass" => Ok(OutputPolicy::Pass),
        other => Err(PyValueError::new_err(format!(
            "unknown output policy {other:?} (expected \"error_result\", \"log\", \"pass\" or \
             a JSON-RPC error code)"
        ))),
    }
}

#[pymethods]
impl ToolContract {
    #[new]
    #[pyo3(signature = (tool, *, assert_formats=false, refs_fragment_only=false, max_depth=64,
                        max_subschemas=10000))]
    fn new(
        tool: &Bound<'_, PyAny>,
        assert_formats: bool,
        refs_fragment_only: bool,
        max_depth: usize,
        max_subschemas: usize,
    ) -> PyResult<ToolContract> {
        let opts = options(
            None,
            assert_formats,
            false,
            refs_fragment_only,
            max_depth,
            max_subschemas,
            None,
        )?;
        let value = convert::to_value(tool, "the tool")?;
        Ok(ToolContract {
            tool: CheckedTool::from_json(&value, &opts),
        })
    }

    /// The tool's name.
    #[getter]
    fn name(&self) -> &str {
        self.tool.name()
    }

    /// Why a schema was left unchecked (it does not compile), one line each.
    #[getter]
    fn problems<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.tool.problems().iter().map(|p| p.to_string()))
    }

    /// Whether an input schema is checked.
    #[getter]
    fn has_input_schema(&self) -> bool {
        self.tool.input_schema().is_some()
    }

    /// Whether an output schema is checked.
    #[getter]
    fn has_output_schema(&self) -> bool {
        self.tool.output_schema().is_some()
    }

    /// Whether a client at `protocol_version` needs `structuredContent` wrapped under
    /// `"result"` (a non-object output schema before 2026-07-28).
    #[pyo3(signature = (protocol_version=None))]
    fn wraps_output(&self, protocol_version: Option<&str>) -> bool {
        self.tool.wraps_output(version(protocol_version))
    }

    /// Checks a call's `arguments` (None counts as `{}`): `None` when they conform, else
    /// the refusal a client at `protocol_version` expects (see the class).
    #[pyo3(signature = (arguments, protocol_version=None))]
    fn check_arguments<'py>(
        &self,
        py: Python<'py>,
        arguments: Option<&Bound<'py, PyAny>>,
        protocol_version: Option<&str>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(schema) = self.tool.input_schema() else {
            return Ok(None);
        };
        let value = match arguments.filter(|a| !a.is_none()) {
            None => None,
            Some(args) => {
                let checked = index::check(args).map_err(|e| e.into_err("the arguments"))?;
                if schema.is_valid_instance(checked.root()) && args.is_instance_of::<PyDict>() {
                    return Ok(None);
                }
                Some(convert::to_value(args, "the arguments")?)
            }
        };
        match check_arguments(schema, self.tool.name(), value.as_ref()) {
            Ok(()) => Ok(None),
            Err(v) => {
                let r = refuse_arguments(&v, version(protocol_version));
                refusal(py, Some(r), &v).map(Some)
            }
        }
    }

    /// Checks a result's `structuredContent` (None when the result has none) against the
    /// output schema; an `is_error` result passes as it is. `None` when it conforms, else
    /// what `policy` makes of the mismatch: "error_result" (an `isError` result, the
    /// default), a JSON-RPC error code, "log" (only `"violations"`: the result goes on)
    /// or "pass" (never checked).
    #[pyo3(signature = (structured_content, *, is_error=false, protocol_version=None,
                        policy=None))]
    fn check_result<'py>(
        &self,
        py: Python<'py>,
        structured_content: Option<&Bound<'py, PyAny>>,
        is_error: bool,
        protocol_version: Option<&str>,
        policy: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let policy = match policy {
            Some(p) => self::policy(p)?,
            None => OutputPolicy::ErrorResult,
        };
        let Some(schema) = self.tool.output_schema() else {
            return Ok(None);
        };
        if is_error || policy == OutputPolicy::Pass {
            return Ok(None);
        }
        let value: Option<Value> = match structured_content.filter(|s| !s.is_none()) {
            None => None,
            Some(s) => {
                let checked = index::check(s).map_err(|e| e.into_err("the result"))?;
                if schema.is_valid_instance(checked.root()) {
                    return Ok(None);
                }
                Some(convert::to_value(s, "the result")?)
            }
        };
        match check_result_parts(Some(schema), self.tool.name(), false, value.as_ref()) {
            Ok(()) => Ok(None),
            Err(v) => {
                let r = refuse_result(&v, policy, version(protocol_version));
                refusal(py, r, &v).map(Some)
            }
        }
    }

    fn __repr__(&self) -> String {
        format!("<toolschema.ToolContract {:?}>", self.tool.name())
    }
}
