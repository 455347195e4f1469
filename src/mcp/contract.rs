//! The per-call contract of a tool, free of any transport: check a call's arguments and
//! render the refusal a protocol version expects; check a result against the output schema
//! and decide what a mismatch becomes. The contract proxy of the `toolschema-http` crate is
//! built on these functions, and any server or gateway can call them directly.
//!
//! ```
//! use toolschema::mcp::ProtocolVersion;
//! use toolschema::mcp::contract::{CheckedTool, Refusal, check_arguments, refuse_arguments};
//! use serde_json::json;
//!
//! let tool = CheckedTool::from_json(&json!({
//!     "name": "get_weather",
//!     "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}},
//!                     "required": ["city"]}
//! }), &toolschema::Options::new());
//! assert!(tool.problems().is_empty());
//! let schema = tool.input_schema().expect("it compiled");
//! let refused = check_arguments(schema, tool.name(), Some(&json!({"city": ""}))).unwrap_err();
//! assert_eq!(refused.violations()[0].location, "/city");
//! // 2025-06-18 expects a JSON-RPC error, 2025-11-25 on an `isError` result.
//! assert!(matches!(refuse_arguments(&refused, ProtocolVersion::V2025_06_18), Refusal::Error { code: -32602, .. }));
//! assert!(matches!(refuse_arguments(&refused, ProtocolVersion::V2025_11_25), Refusal::Result(_)));
//! ```

use super::jsonrpc;
use super::tool::{WRAP_KEY, describe};
pub use super::tool::{default_output_root, wrap_schema};
use super::version::ProtocolVersion;
use crate::{Options, Schema};
use serde_json::{Map, Value, json};
use std::fmt;

/// How many failures a report lists before summarizing the rest.
pub const MAX_REPORTED_ERRORS: usize = 20;

/// Which side broke the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The client's `tools/call` arguments broke the input schema.
    Arguments,
    /// The server's result broke the output schema.
    Result,
}

impl Direction {
    /// `"arguments"` or `"result"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Arguments => "arguments",
            Direction::Result => "result",
        }
    }
}

/// One failed check: where, which keyword, why. Never a value from the instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The instance location, a JSON Pointer (`""` is the root).
    pub location: String,
    /// The keyword that failed (`"minLength"`, `"required"`, ...).
    pub keyword: String,
    /// What the keyword asserted, from the schema's facts only.
    pub reason: String,
    /// Where in the schema: the failing keyword's JSON Pointer (`""` when the failure is
    /// not a keyword's, such as a missing `structuredContent`).
    pub schema_location: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = if self.location.is_empty() {
            "/"
        } else {
            &self.location
        };
        write!(f, "{loc}: {}", self.reason)
    }
}

/// The failures of one call's arguments or result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations {
    tool: String,
    direction: Direction,
    items: Vec<Violation>,
    truncated: bool,
}

impl Violations {
    fn collect(schema: &Schema, tool: &str, direction: Direction, instance: &Value) -> Violations {
        let mut items: Vec<Violation> = Vec::new();
        // (A union's chosen branch reports its own errors first, at their own locations:
        // see `ErrorKind::ClosestBranch`.)
        for e in schema.iter_errors(instance) {
            items.push(Violation {
                location: e.instance_location().to_string(),
                keyword: e.kind().keyword().to_string(),
                reason: e.message(),
                schema_location: e.keyword_location().to_string(),
            });
            if items.len() > MAX_REPORTED_ERRORS {
                break;
            }
        }
        let truncated = items.len() > MAX_REPORTED_ERRORS;
        items.truncate(MAX_REPORTED_ERRORS);
        Violations {
            tool: tool.to_string(),
            direction,
            items,
            truncated,
        }
    }

    fn single(tool: &str, direction: Direction, keyword: &str, reason: &str) -> Violations {
        Violations {
            tool: tool.to_string(),
            direction,
            items: vec![Violation {
                location: String::new(),
                keyword: keyword.to_string(),
                reason: reason.to_string(),
                schema_location: String::new(),
            }],
            truncated: false,
        }
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Arguments or result.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The failures, at most [`MAX_REPORTED_ERRORS`].
    pub fn violations(&self) -> &[Violation] {
        &self.items
    }

    /// True when there were more failures than listed.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// One line per failure; a result's name the schema keyword too, for the server's
    /// developer (the schema is theirs; an argument refusal goes to a model).
    fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .items
            .iter()
            .map(|v| match self.direction {
                Direction::Result if !v.schema_location.is_empty() => {
                    format!("{v} (schema {})", v.schema_location)
                }
                _ => v.to_string(),
            })
            .collect();
        if self.truncated {
            lines.push("(more errors not shown)".into());
        }
        lines
    }

    fn bulleted(&self, headline: &str) -> String {
        let mut text = format!("{headline}:");
        for l in self.lines() {
            text.push_str("\n- ");
            text.push_str(&l);
        }
        text
    }

    /// The audit-log record: tool, direction, and each failure's location, keyword and
    /// reason (never a value).
    pub fn to_json(&self) -> Value {
        let errors: Vec<Value> = self
            .items
            .iter()
            .map(|v| json!({"location": v.location, "keyword": v.keyword, "reason": v.reason}))
            .collect();
        json!({
            "tool": self.tool,
            "direction": self.direction.as_str(),
            "errors": errors,
            "truncated": self.truncated,
        })
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool {:?}: {}: {}",
            self.tool,
            self.direction.as_str(),
            self.lines().join("; ")
        )
    }
}

/// A `Tool` object with its schemas as clients are shown them under the one listing rule
/// ([`upgrade::for_listing`](crate::upgrade::for_listing)): an `inputSchema` or
/// `outputSchema` declaring an older draft becomes its 2020-12 form. `None` when nothing
/// changes. Build the [`CheckedTool`] that enforces calls from the same view, so that what
/// is listed is what is enforced (the proxy and `serve` both do).
///
/// ```
/// use toolschema::mcp::contract::{CheckedTool, listing_view};
/// use serde_json::json;
///
/// let tool = json!({"name": "add", "inputSchema": {
///     "$schema": "http://json-schema.org/draft-04/schema#",
///     "type": "object", "properties": {"a": {"type": "integer"}}}});
/// let shown = listing_view(&tool).expect("draft-04 is shown as 2020-12");
/// assert_eq!(shown["inputSchema"], json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
/// // Enforced as shown: 2020-12's `integer` admits 1.0.
/// let checked = CheckedTool::from_json(&shown, &toolschema::Options::new());
/// assert!(checked.input_schema().unwrap().is_valid(&json!({"a": 1.0})));
/// ```
pub fn listing_view(tool: &Value) -> Option<Value> {
    let mut t = tool.as_object()?.clone();
    let mut changed = false;
    for key in ["inputSchema", "outputSchema"] {
        if let Some(up) = t.get(key).and_then(listed_schema) {
            t.insert(key.into(), up);
            changed = true;
        }
    }
    changed.then_some(Value::Object(t))
}

/// One schema under the listing rule; `None` when it is shown (and enforced) as it is.
pub(crate) fn listed_schema(schema: &Value) -> Option<Value> {
    match crate::upgrade::for_listing(schema) {
        crate::upgrade::Listing::Upgraded { schema, .. } => Some(schema),
        _ => None,
    }
}

/// A problem found in a listed tool's schema: it does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// The tool's name.
    pub tool: String,
    /// Where: `/inputSchema` or `/outputSchema` followed by the JSON Pointer into it.
    pub location: String,
    /// Why it does not compile.
    pub reason: String,
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool {:?}: {}: {}",
            self.tool, self.location, self.reason
        )
    }
}

/// A tool as another server lists it, with whatever of its schemas compiled.
///
/// Unlike [`Tool`](super::Tool), nothing about the definition is refused: a schema that
/// does not compile is recorded in [`problems`](Self::problems) and left unchecked, and
/// names the spec discourages are kept.
#[derive(Debug, Clone)]
pub struct CheckedTool {
    name: String,
    input: Option<Schema>,
    output: Option<Schema>,
    output_is_object: bool,
    problems: Vec<SchemaProblem>,
    warnings: Vec<SchemaProblem>,
}

/// What [`CheckedTool::from_json_with`] does with a name the spec discourages (outside
/// 1–128 characters of `A-Z a-z 0-9 _ - .`, such as `ns/tool`), which SDKs accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NamePolicy {
    /// The tool is refused.
    Refuse,
    /// The tool is kept and the name listed in [`CheckedTool::warnings`] (the default).
    #[default]
    Warn,
    /// The name is not looked at.
    Accept,
}

/// Why `name` is not a tool name the spec recommends (1–128 characters of
/// `A-Z a-z 0-9 _ - .`), or `None` when it is one.
///
/// ```
/// use toolschema::mcp::contract::tool_name_problem;
/// assert_eq!(tool_name_problem("get_weather"), None);
/// assert!(tool_name_problem("ns/tool").is_some());
/// ```
pub fn tool_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.chars().count() > 128 {
        return Some("a tool name must be 1 to 128 characters long");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Some("a tool name may contain only A-Z, a-z, 0-9, '_', '-' and '.'");
    }
    None
}

impl CheckedTool {
    /// Compiles a listed `Tool` object's `inputSchema` and `outputSchema`, each under its
    /// own declared dialect, with `options` (caps included). The output schema follows the
    /// default-object-root rule (SEP-2106).
    pub fn from_json(tool: &Value, options: &Options) -> CheckedTool {
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut problems = Vec::new();
        let mut problem = |location: &str, reason: String| {
            problems.push(SchemaProblem {
                tool: name.clone(),
                location: location.to_string(),
                reason,
            })
        };
        let input = match tool.get("inputSchema") {
            Some(s @ Value::Object(_)) => match options.compile(s) {
                Ok(schema) => Some(schema),
                Err(e) => {
                    problem(&format!("/inputSchema{}", e.location()), reason(s, &e));
                    None
                }
            },
            Some(_) => {
                problem("/inputSchema", "the input schema must be an object".into());
                None
            }
            None => {
                problem("/inputSchema", "the tool has no input schema".into());
                None
            }
        };
        let (output, output_is_object) = match tool.get("outputSchema") {
            None | Some(Value::Null) => (None, true),
            Some(Value::Object(o)) => {
                let mut o = o.clone();
                let is_object = default_output_root(&mut o);
                let json = Value::Object(o);
                match options.compile(&json) {
                    Ok(schema) => (Some(schema), is_object),
                    Err(e) => {
                        problem(&format!("/outputSchema{}", e.location()), reason(&json, &e));
                        (None, is_object)
                    }
                }
            }
            Some(_) => {
                problem(
                    "/outputSchema",
                    "the output schema must be an object".into(),
                );
                (None, true)
            }
        };
        CheckedTool {
            name,
            input,
            output,
            output_is_object,
            problems,
            warnings: Vec::new(),
        }
    }

    /// [`from_json`](Self::from_json), with a policy for names the spec discourages.
    ///
    /// ```
    /// use toolschema::mcp::contract::{CheckedTool, NamePolicy};
    /// use serde_json::json;
    ///
    /// let tool = json!({"name": "files/read", "inputSchema": {"type": "object"}});
    /// let options = toolschema::Options::new().assert_formats(true);
    /// let warned = CheckedTool::from_json_with(&tool, &options, NamePolicy::Warn).unwrap();
    /// assert_eq!(warned.warnings()[0].location, "/name");
    /// assert!(CheckedTool::from_json_with(&tool, &options, NamePolicy::Refuse).is_err());
    /// ```
    ///
    /// # Errors
    /// Under [`NamePolicy::Refuse`], a discouraged name (location `/name`).
    pub fn from_json_with(
        tool: &Value,
        options: &Options,
        names: NamePolicy,
    ) -> Result<CheckedTool, SchemaProblem> {
        let mut checked = CheckedTool::from_json(tool, options);
        if names == NamePolicy::Accept {
            return Ok(checked);
        }
        if let Some(why) = tool_name_problem(&checked.name) {
            let problem = SchemaProblem {
                tool: checked.name.clone(),
                location: "/name".into(),
                reason: why.into(),
            };
            if names == NamePolicy::Refuse {
                return Err(problem);
            }
            checked.warnings.push(problem);
        }
        Ok(checked)
    }

    /// What [`NamePolicy::Warn`] let through: a discouraged name.
    pub fn warnings(&self) -> &[SchemaProblem] {
        &self.warnings
    }

    /// The tool's name (empty when the listing gave none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compiled input schema; `None` when it did not compile (calls go unchecked).
    pub fn input_schema(&self) -> Option<&Schema> {
        self.input.as_ref()
    }

    /// The compiled output schema; `None` when the tool has none or it did not compile.
    pub fn output_schema(&self) -> Option<&Schema> {
        self.output.as_ref()
    }

    /// The schemas that did not compile.
    pub fn problems(&self) -> &[SchemaProblem] {
        &self.problems
    }

    /// True when the output schema's root is not an object, so clients before 2026-07-28
    /// need it (and `structuredContent`) wrapped under `"result"`.
    pub fn wraps_output(&self, version: ProtocolVersion) -> bool {
        !self.output_is_object && !version.accepts_non_object_output_schema()
    }
}

/// Why a schema does not compile, naming an unsupported `$schema`.
fn reason(schema: &Value, e: &crate::SchemaError) -> String {
    if e.kind() == crate::SchemaErrorKind::UnknownDialect {
        return describe(schema, e);
    }
    e.message().to_string()
}

/// Checks a call's `arguments` (absent or `null` counts as `{}`) against the input schema.
///
/// # Errors
/// The failures, with locations and reasons and never a value.
pub fn check_arguments(
    schema: &Schema,
    tool: &str,
    arguments: Option<&Value>,
) -> Result<(), Violations> {
    let empty;
    let arguments = match arguments {
        None | Some(Value::Null) => {
            empty = Value::Object(Map::new());
            &empty
        }
        Some(a @ Value::Object(_)) => a,
        Some(_) => {
            return Err(Violations::single(
                tool,
                Direction::Arguments,
                "type",
                "\"arguments\" must be an object",
            ));
        }
    };
    if schema.is_valid(arguments) {
        return Ok(());
    }
    Err(Violations::collect(
        schema,
        tool,
        Direction::Arguments,
        arguments,
    ))
}

/// Checks a call's `arguments` held as a JSON object (absent counts as `{}`), as SDKs
/// decode them (rmcp's `JsonObject`), without copying them.
///
/// The validator walks a [`Value`], so the map is moved into one for the check and moved
/// back before this returns (a few pointer moves, no copy): the `&mut` is a loan, the
/// arguments come back unchanged.
///
/// ```
/// use toolschema::mcp::contract::{CheckedTool, check_argument_map};
/// use serde_json::{Map, json};
///
/// let tool = CheckedTool::from_json(&json!({"name": "t", "inputSchema": {
///     "type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}}}),
///     &toolschema::Options::new());
/// let mut args: Map<String, serde_json::Value> = json!({"n": 10}).as_object().unwrap().clone();
/// let refused = check_argument_map(tool.input_schema().unwrap(), "t", Some(&mut args)).unwrap_err();
/// assert_eq!(refused.to_string(), "tool \"t\": arguments: /n: must be at most 9");
/// assert_eq!(args["n"], 10);
/// ```
///
/// # Errors
/// The failures, with locations and reasons and never a value.
pub fn check_argument_map(
    schema: &Schema,
    tool: &str,
    arguments: Option<&mut Map<String, Value>>,
) -> Result<(), Violations> {
    let Some(map) = arguments else {
        return check_arguments(schema, tool, None);
    };
    let value = Value::Object(std::mem::take(map));
    let checked = check_arguments(schema, tool, Some(&value));
    if let Value::Object(back) = value {
        *map = back;
    }
    checked
}

/// What the client gets instead of a call's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// A JSON-RPC error.
    Error {
        /// The JSON-RPC error code.
        code: i64,
        /// The error message.
        message: String,
        /// `{"errors": [...]}`: one line per failure.
        data: Value,
    },
    /// A `CallToolResult` (`isError: true`) the model can read.
    Result(Value),
}

impl Refusal {
    /// The full JSON-RPC response for request `id`.
    pub fn into_response(self, id: &Value) -> Value {
        match self {
            Refusal::Error {
                code,
                message,
                data,
            } => jsonrpc::error_with_data(id, code, &message, data),
            Refusal::Result(result) => jsonrpc::response(id, result),
        }
    }
}

fn error_result(text: String, version: ProtocolVersion) -> Value {
    let mut result = json!({"content": [{"type": "text", "text": text}], "isError": true});
    if version >= ProtocolVersion::V2026_07_28
        && let Some(obj) = result.as_object_mut()
    {
        obj.insert("resultType".into(), Value::from("complete"));
    }
    result
}

/// A call that failed for a reason other than its schemas (e.g. a result too large to
/// relay): an `isError` result the model can read, shaped for `version`.
pub fn failed_call(text: String, version: ProtocolVersion) -> Refusal {
    Refusal::Result(error_result(text, version))
}

/// The refusal of invalid arguments a client at `version` expects: JSON-RPC `-32602` up to
/// 2025-06-18, an `isError` result from 2025-11-25 on.
pub fn refuse_arguments(violations: &Violations, version: ProtocolVersion) -> Refusal {
    let headline = format!("invalid arguments for tool {}", violations.tool);
    if version.reports_argument_errors_as_results() {
        return Refusal::Result(error_result(violations.bulleted(&headline), version));
    }
    let lines = violations.lines();
    Refusal::Error {
        code: jsonrpc::INVALID_PARAMS,
        message: format!("{headline}: {}", lines.join("; ")),
        data: json!({ "errors": lines }),
    }
}

/// Checks a `CallToolResult` (as JSON) against the tool's output schema. An `isError`
/// result passes as it is; otherwise a tool with an output schema must return
/// `structuredContent` that validates. The value is checked as the tool produced it
/// (unwrapped).
///
/// # Errors
/// The failures, with locations and reasons and never a value.
pub fn check_result(output: Option<&Schema>, tool: &str, result: &Value) -> Result<(), Violations> {
    check_result_parts(
        output,
        tool,
        result.get("isError").and_then(Value::as_bool) == Some(true),
        result.get("structuredContent"),
    )
}

/// [`check_result`] for a result an SDK holds as a struct: its `isError` flag and its
/// `structuredContent`, so nothing is serialised for the check.
///
/// ```
/// use toolschema::mcp::contract::{CheckedTool, check_result_parts};
/// use serde_json::json;
///
/// let tool = CheckedTool::from_json(&json!({"name": "t", "inputSchema": {"type": "object"},
///     "outputSchema": {"type": "object", "required": ["temp"]}}), &toolschema::Options::new());
/// assert!(check_result_parts(tool.output_schema(), "t", false, Some(&json!({"temp": 3}))).is_ok());
/// let bad = check_result_parts(tool.output_schema(), "t", false, Some(&json!({}))).unwrap_err();
/// assert_eq!(bad.violations()[0].keyword, "required");
/// // An error result is not held to the output schema.
/// assert!(check_result_parts(tool.output_schema(), "t", true, None).is_ok());
/// ```
///
/// # Errors
/// The failures, with locations and reasons and never a value.
pub fn check_result_parts(
    output: Option<&Schema>,
    tool: &str,
    is_error: bool,
    structured: Option<&Value>,
) -> Result<(), Violations> {
    let Some(schema) = output else {
        return Ok(());
    };
    if is_error {
        return Ok(());
    }
    match structured {
        None => Err(Violations::single(
            tool,
            Direction::Result,
            "outputSchema",
            "the result has no structuredContent but the tool declares an output schema",
        )),
        Some(s) if schema.is_valid(s) => Ok(()),
        Some(s) => Err(Violations::collect(schema, tool, Direction::Result, s)),
    }
}

/// What a result that breaks the output schema becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputPolicy {
    /// An `isError` result naming the locations, for the model (the default: the server
    /// broke its contract, and `-32602` would tell the client it sent bad params).
    #[default]
    ErrorResult,
    /// A JSON-RPC error with this code (e.g. `-32603`, internal error).
    JsonRpcError(i64),
    /// The result goes through unchanged; the mismatch is only reported.
    Log,
    /// Results are not checked at all.
    Pass,
}

/// What a client at `version` gets for a result that broke the output schema under
/// `policy`; `None` when the result goes through unchanged.
pub fn refuse_result(
    violations: &Violations,
    policy: OutputPolicy,
    version: ProtocolVersion,
) -> Option<Refusal> {
    let headline = format!(
        "tool {} produced a result that does not match its own output schema \
         (a fault of the server, not of the request)",
        violations.tool
    );
    match policy {
        OutputPolicy::ErrorResult => Some(Refusal::Result(error_result(
            violations.bulleted(&headline),
            version,
        ))),
        OutputPolicy::JsonRpcError(code) => {
            let lines = violations.lines();
            Some(Refusal::Error {
                code,
                message: format!("{headline}: {}", lines.join("; ")),
                data: json!({ "errors": lines }),
            })
        }
        OutputPolicy::Log | OutputPolicy::Pass => None,
    }
}

/// True when [`adapt_result`] would change `result`.
pub fn result_needs_adapting(result: &Value, wrap: bool, version: ProtocolVersion) -> bool {
    if version < ProtocolVersion::V2025_06_18 || result.get("structuredContent").is_none() {
        return false;
    }
    let empty = match result.get("content") {
        None | Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(_) => false,
    };
    empty || wrap
}

/// Adapts a valid result for a client at `version`: mirrors `structuredContent` into a text
/// block when there is no content block (SEP-2106), and wraps it under `"result"` when
/// `wrap` (a non-object output root for a client before 2026-07-28). Answers whether
/// anything changed.
pub fn adapt_result(result: &mut Value, wrap: bool, version: ProtocolVersion) -> bool {
    let Some(obj) = result.as_object_mut() else {
        return false;
    };
    let mut changed = false;
    if version >= ProtocolVersion::V2025_06_18
        && let Some(s) = obj.get("structuredContent")
    {
        let empty = match obj.get("content") {
            None | Some(Value::Null) => true,
            Some(Value::Array(a)) => a.is_empty(),
            Some(_) => false,
        };
        if empty {
            let text = s.to_string();
            obj.insert("content".into(), json!([{"type": "text", "text": text}]));
            changed = true;
        }
        if wrap && let Some(s) = obj.remove("structuredContent") {
            obj.insert("structuredContent".into(), json!({ WRAP_KEY: s }));
            changed = true;
        }
    }
    changed
}
