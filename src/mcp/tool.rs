//! Tool definitions: name rules, annotations, input and output schemas, the handler.

use super::content::CallToolResult;
use super::context::CallContext;
use super::security::{self, SecurityScheme};
use super::version::ProtocolVersion;
use crate::{Options, Schema, SchemaError, SchemaErrorKind};
use serde_json::{Map, Value, json};
use std::fmt;
use std::sync::Arc;

/// What a handler may fail with; any `std::error::Error` converts with `?`.
///
/// The client sees only a static `-32603` message; the error's text goes to the server's log.
pub type HandlerError = Box<dyn std::error::Error + Send + Sync>;

pub(crate) type Handler =
    Arc<dyn Fn(Value, &CallContext) -> Result<CallToolResult, HandlerError> + Send + Sync>;

/// Deserializes validated arguments into the handler's own type.
///
/// # Errors
/// When the type does not fit the arguments (the schema and the type disagree). The error
/// names no argument value.
///
/// ```
/// use std::collections::BTreeMap;
/// // Any `Deserialize` type: your own `#[derive(Deserialize)]` struct, or a map.
/// let args: BTreeMap<String, Vec<f64>> =
///     toolschema::mcp::from_arguments(serde_json::json!({"numbers": [1.5, 2.5]}))?;
/// assert_eq!(args["numbers"], [1.5, 2.5]);
/// # Ok::<(), toolschema::mcp::HandlerError>(())
/// ```
pub fn from_arguments<T: serde::de::DeserializeOwned>(arguments: Value) -> Result<T, HandlerError> {
    serde_json::from_value(arguments).map_err(|e| {
        let why = match e.classify() {
            serde_json::error::Category::Data => {
                "a value has another type or shape than the handler's type expects"
            }
            _ => "the arguments cannot be read",
        };
        HandlerError::from(format!(
            "the validated arguments do not deserialize into the handler's type: {why}"
        ))
    })
}

/// A tool definition that cannot be accepted: a bad name, field or schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    tool: String,
    message: String,
}

impl ToolError {
    /// The error `message` about `tool`, for code that reads tool definitions from its own
    /// sources (a tool file's extra fields, say) and reports their problems as the builder
    /// reports its own.
    ///
    /// ```
    /// let e = toolschema::mcp::ToolError::new("echo", "x-response: not an object");
    /// assert_eq!((e.tool(), e.message()), ("echo", "x-response: not an object"));
    /// ```
    pub fn new(tool: &str, message: impl Into<String>) -> ToolError {
        ToolError {
            tool: tool.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn duplicate(name: &str) -> ToolError {
        ToolError::new(name, "another tool has the same name")
    }

    /// The tool's name as given (may be the invalid name itself).
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// What is wrong, without the tool's name.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool {:?}: {}", self.tool, self.message)
    }
}

impl std::error::Error for ToolError {}

/// Hints about a tool's behaviour (`ToolAnnotations`). All are hints, never guarantees.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-readable title.
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true; meaningful when not read-only).
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (default true).
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(t) = &self.title {
            m.insert("title".into(), Value::from(t.as_str()));
        }
        for (key, v) in [
            ("readOnlyHint", self.read_only_hint),
            ("destructiveHint", self.destructive_hint),
            ("idempotentHint", self.idempotent_hint),
            ("openWorldHint", self.open_world_hint),
        ] {
            if let Some(b) = v {
                m.insert(key.into(), Value::Bool(b));
            }
        }
        Value::Object(m)
    }
}

/// Whether a tool can run as a task (`execution.taskSupport`, 2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// The tool must not be run as a task (the default).
    Forbidden,
    /// The client may run the tool as a task.
    Optional,
    /// The client must run the tool as a task.
    Required,
}

impl TaskSupport {
    fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// A defined tool: metadata, compiled schemas and handler. Cheap to clone.
///
/// Build with [`Tool::builder`] or [`Tool::from_json`].
#[derive(Clone)]
pub struct Tool {
    pub(crate) inner: Arc<ToolInner>,
}

pub(crate) struct ToolInner {
    pub(crate) name: String,
    title: Option<String>,
    description: Option<String>,
    icons: Option<Value>,
    annotations: ToolAnnotations,
    task_support: Option<TaskSupport>,
    meta: Option<Map<String, Value>>,
    security: Vec<SecurityScheme>,
    input_json: Value,
    pub(crate) input: Schema,
    output_json: Option<Value>,
    /// The output schema as an object wrapper, for clients that reject other roots.
    output_wrapped: Option<Value>,
    pub(crate) output: Option<Schema>,
    pub(crate) handler: Handler,
}

/// The property that carries a non-object `structuredContent` for clients before 2026-07-28.
pub(crate) const WRAP_KEY: &str = "result";

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.inner.name)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// Starts a definition. The input schema defaults to `{"type": "object"}`.
    pub fn builder(name: impl Into<String>) -> ToolBuilder {
        ToolBuilder {
            name: name.into(),
            title: None,
            description: None,
            icons: None,
            annotations: ToolAnnotations::default(),
            task_support: None,
            meta: None,
            security: None,
            input: json!({"type": "object"}),
            output: None,
            handler: None,
            error: None,
        }
    }

    /// Reads an MCP `Tool` object (`name`, `title`, `description`, `icons`, `annotations`,
    /// `execution`, `_meta`, `inputSchema`, `outputSchema`, and `securitySchemes` at the
    /// top level or in `_meta`) into a builder; add a handler and call
    /// [`ToolBuilder::build`].
    ///
    /// # Errors
    /// A field of the wrong type or a missing `name`/`inputSchema`.
    pub fn from_json(tool: &Value) -> Result<ToolBuilder, ToolError> {
        let obj = tool
            .as_object()
            .ok_or_else(|| ToolError::new("", "a tool must be a JSON object"))?;
        let name = match obj.get("name") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(ToolError::new("", "\"name\" must be a string")),
        };
        let err = |m: &str| ToolError::new(&name, m);
        let opt_str = |key: &str| match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(err(&format!("\"{key}\" must be a string"))),
        };
        let mut b = Tool::builder(name.clone());
        b.title = opt_str("title")?;
        b.description = opt_str("description")?;
        if let Some(icons) = obj.get("icons") {
            b = b.icons(icons.clone());
        }
        if let Some(a) = obj.get("annotations") {
            let a = a
                .as_object()
                .ok_or_else(|| err("\"annotations\" must be an object"))?;
            let flag = |key: &str| match a.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Bool(v)) => Ok(Some(*v)),
                Some(_) => Err(err(&format!("\"annotations.{key}\" must be a boolean"))),
            };
            b.annotations = ToolAnnotations {
                title: match a.get("title") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => return Err(err("\"annotations.title\" must be a string")),
                },
                read_only_hint: flag("readOnlyHint")?,
                destructive_hint: flag("destructiveHint")?,
                idempotent_hint: flag("idempotentHint")?,
                open_world_hint: flag("openWorldHint")?,
            };
        }
        if let Some(e) = obj.get("execution") {
            let e = e
                .as_object()
                .ok_or_else(|| err("\"execution\" must be an object"))?;
            b.task_support = match e.get("taskSupport") {
                None => None,
                Some(v) => Some(match v.as_str() {
                    Some("forbidden") => TaskSupport::Forbidden,
                    Some("optional") => TaskSupport::Optional,
                    Some("required") => TaskSupport::Required,
                    _ => {
                        return Err(err(
                            "\"execution.taskSupport\" must be \"forbidden\", \"optional\" or \"required\"",
                        ));
                    }
                }),
            };
        }
        match obj.get("_meta") {
            None => {}
            Some(Value::Object(m)) => b.meta = Some(m.clone()),
            Some(_) => return Err(err("\"_meta\" must be an object")),
        }
        // Top level (as the Apps SDK writes it) or in `_meta` (as it is published); both
        // must agree when both are there.
        let top = obj.get(security::META_KEY);
        let in_meta = b.meta.as_mut().and_then(|m| m.remove(security::META_KEY));
        let read = |v: &Value| SecurityScheme::list_from_json(v).map_err(|e| err(&e));
        b.security = match (top, in_meta) {
            (None, None) => None,
            (Some(v), None) => Some(read(v)?),
            (None, Some(v)) => Some(read(&v)?),
            (Some(a), Some(m)) => {
                let (a, m) = (read(a)?, read(&m)?);
                if a != m {
                    return Err(err(
                        "\"securitySchemes\" and \"_meta.securitySchemes\" disagree",
                    ));
                }
                Some(a)
            }
        };
        if b.meta.as_ref().is_some_and(Map::is_empty)
            && obj
                .get("_meta")
                .is_some_and(|m| m.get(security::META_KEY).is_some())
        {
            b.meta = None;
        }
        match obj.get("inputSchema") {
            Some(s) => b.input = s.clone(),
            None => return Err(err("\"inputSchema\" is required")),
        }
        match obj.get("outputSchema") {
            None | Some(Value::Null) => {}
            Some(s) => b.output = Some(s.clone()),
        }
        Ok(b)
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The annotations as declared.
    pub fn annotations(&self) -> &ToolAnnotations {
        &self.inner.annotations
    }

    /// True only when `readOnlyHint` is true.
    pub fn read_only(&self) -> bool {
        self.inner.annotations.read_only_hint == Some(true)
    }

    /// True when the tool is not read-only and `destructiveHint` is not false.
    pub fn destructive(&self) -> bool {
        !self.read_only() && self.inner.annotations.destructive_hint != Some(false)
    }

    /// True only when `idempotentHint` is true.
    pub fn idempotent(&self) -> bool {
        self.inner.annotations.idempotent_hint == Some(true)
    }

    /// True unless `openWorldHint` is false.
    pub fn open_world(&self) -> bool {
        self.inner.annotations.open_world_hint != Some(false)
    }

    /// The declared `execution.taskSupport` ([`TaskSupport::Forbidden`] when absent).
    pub fn task_support(&self) -> TaskSupport {
        self.inner.task_support.unwrap_or(TaskSupport::Forbidden)
    }

    /// The security schemes the tool declares (alternatives; none: no requirement). See
    /// [`security`](super::security).
    pub fn security_schemes(&self) -> &[SecurityScheme] {
        &self.inner.security
    }

    /// True when only a caller with a verified OAuth token may call the tool: it declares
    /// schemes and none of them is `noauth`.
    pub fn requires_token(&self) -> bool {
        !SecurityScheme::allows_any::<&str>(&self.inner.security, None)
    }

    /// The compiled input schema.
    pub fn input_schema(&self) -> &Schema {
        &self.inner.input
    }

    /// The input schema as declared (for its `x-mcp-header` annotations).
    pub(crate) fn input_json(&self) -> &Value {
        &self.inner.input_json
    }

    /// The compiled output schema, when the tool declares one.
    pub fn output_schema(&self) -> Option<&Schema> {
        self.inner.output.as_ref()
    }

    /// True when structured content is wrapped in an object for a client at `version`.
    pub(crate) fn wraps_output(&self, version: ProtocolVersion) -> bool {
        self.inner.output_wrapped.is_some() && !version.accepts_non_object_output_schema()
    }

    /// The `Tool` object a client at `version` receives in `tools/list`.
    pub fn to_json(&self, version: ProtocolVersion) -> Value {
        let t = &self.inner;
        let mut m = Map::new();
        m.insert("name".into(), Value::from(t.name.as_str()));
        if version >= ProtocolVersion::V2025_06_18
            && let Some(title) = &t.title
        {
            m.insert("title".into(), Value::from(title.as_str()));
        }
        if let Some(d) = &t.description {
            m.insert("description".into(), Value::from(d.as_str()));
        }
        if version >= ProtocolVersion::V2025_11_25
            && let Some(icons) = &t.icons
        {
            m.insert("icons".into(), icons.clone());
        }
        m.insert("inputSchema".into(), t.input_json.clone());
        if version >= ProtocolVersion::V2025_06_18 {
            match (&t.output_json, &t.output_wrapped) {
                (Some(_), Some(w)) if !version.accepts_non_object_output_schema() => {
                    m.insert("outputSchema".into(), w.clone());
                }
                (Some(o), _) => {
                    m.insert("outputSchema".into(), o.clone());
                }
                _ => {}
            }
        }
        if version >= ProtocolVersion::V2025_03_26 && !t.annotations.is_empty() {
            m.insert("annotations".into(), t.annotations.to_json());
        }
        if version == ProtocolVersion::V2025_11_25
            && let Some(ts) = t.task_support
        {
            m.insert("execution".into(), json!({"taskSupport": ts.as_str()}));
        }
        if version >= ProtocolVersion::V2025_06_18 {
            if !t.security.is_empty() {
                m.insert(
                    "_meta".into(),
                    security::publish(t.meta.as_ref(), &t.security),
                );
            } else if let Some(meta) = &t.meta {
                m.insert("_meta".into(), Value::Object(meta.clone()));
            }
        }
        Value::Object(m)
    }
}

/// Builds a [`Tool`]; every check runs in [`build`](Self::build).
pub struct ToolBuilder {
    name: String,
    title: Option<String>,
    description: Option<String>,
    icons: Option<Value>,
    annotations: ToolAnnotations,
    task_support: Option<TaskSupport>,
    meta: Option<Map<String, Value>>,
    security: Option<Vec<SecurityScheme>>,
    input: Value,
    output: Option<Value>,
    handler: Option<Handler>,
    error: Option<String>,
}

impl ToolBuilder {
    /// Sets the display title.
    pub fn title(mut self, title: impl Into<String>) -> ToolBuilder {
        self.title = Some(title.into());
        self
    }

    /// Sets the description the model reads.
    pub fn description(mut self, description: impl Into<String>) -> ToolBuilder {
        self.description = Some(description.into());
        self
    }

    /// Sets `icons`: an array of `{src, mimeType?, sizes?, theme?}` objects.
    pub fn icons(mut self, icons: Value) -> ToolBuilder {
        let ok = icons
            .as_array()
            .is_some_and(|a| a.iter().all(|i| i.get("src").is_some_and(Value::is_string)));
        if !ok {
            self.error = Some("\"icons\" must be an array of objects with a string \"src\"".into());
        }
        self.icons = Some(icons);
        self
    }

    /// Sets all annotations.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> ToolBuilder {
        self.annotations = annotations;
        self
    }

    /// Sets `readOnlyHint`.
    pub fn read_only_hint(mut self, yes: bool) -> ToolBuilder {
        self.annotations.read_only_hint = Some(yes);
        self
    }

    /// Sets `destructiveHint`.
    pub fn destructive_hint(mut self, yes: bool) -> ToolBuilder {
        self.annotations.destructive_hint = Some(yes);
        self
    }

    /// Sets `idempotentHint`.
    pub fn idempotent_hint(mut self, yes: bool) -> ToolBuilder {
        self.annotations.idempotent_hint = Some(yes);
        self
    }

    /// Sets `openWorldHint`.
    pub fn open_world_hint(mut self, yes: bool) -> ToolBuilder {
        self.annotations.open_world_hint = Some(yes);
        self
    }

    /// Sets `execution.taskSupport`.
    pub fn task_support(mut self, support: TaskSupport) -> ToolBuilder {
        self.task_support = Some(support);
        self
    }

    /// Sets the tool's security schemes (alternatives: a caller that satisfies one may
    /// call), published in `_meta.securitySchemes` and enforced by the transports; see
    /// [`security`](super::security).
    pub fn security_schemes(mut self, schemes: Vec<SecurityScheme>) -> ToolBuilder {
        self.security = Some(schemes);
        self
    }

    /// Sets the tool's `_meta` object.
    pub fn meta(mut self, meta: Map<String, Value>) -> ToolBuilder {
        self.meta = Some(meta);
        self
    }

    /// Sets the input schema (its root describes the arguments object). A schema declaring
    /// an older draft is listed and enforced as its 2020-12 form
    /// ([`crate::upgrade::for_listing`]).
    pub fn input_schema(mut self, schema: Value) -> ToolBuilder {
        self.input = schema;
        self
    }

    /// Sets the output schema that `structuredContent` must match (listed as
    /// [`input_schema`](Self::input_schema) says).
    pub fn output_schema(mut self, schema: Value) -> ToolBuilder {
        self.output = Some(schema);
        self
    }

    /// Sets the handler: it receives the validated arguments and the call's context.
    pub fn handler<F>(mut self, handler: F) -> ToolBuilder
    where
        F: Fn(Value, &CallContext) -> Result<CallToolResult, HandlerError> + Send + Sync + 'static,
    {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// Checks the definition and compiles both schemas with the default limits.
    ///
    /// Without a handler, the tool answers a text block naming itself (a mock).
    ///
    /// # Errors
    /// A name that is not 1–128 characters of `A-Z a-z 0-9 _ - .`; an input schema whose root
    /// is not an object schema; a schema that does not compile (an unsupported `$schema`
    /// dialect included); a malformed field.
    pub fn build(self) -> Result<Tool, ToolError> {
        let name = self.name;
        let err = |m: String| ToolError::new(&name, m);
        if let Some(problem) = super::contract::tool_name_problem(&name) {
            return Err(err(problem.into()));
        }
        if let Some(e) = self.error {
            return Err(err(e));
        }
        // The one listing rule: a schema in an older draft is listed, and enforced, as 2020-12.
        let listed = |v: Value| super::contract::listed_schema(&v).unwrap_or(v);
        let Value::Object(mut input_obj) = listed(self.input) else {
            return Err(err("inputSchema must be a JSON object".into()));
        };
        match input_obj.get("type") {
            None => {
                input_obj.insert("type".into(), Value::from("object"));
            }
            Some(Value::String(t)) if t == "object" => {}
            Some(_) => {
                return Err(err(
                    "inputSchema: the root \"type\" must be \"object\"".into()
                ));
            }
        }
        let input_json = Value::Object(input_obj);
        let input = compile(&input_json)
            .map_err(|e| err(format!("inputSchema: {}", describe(&input_json, &e))))?;
        let (output_json, output_wrapped, output) = match self.output.map(listed) {
            None => (None, None, None),
            Some(Value::Object(mut o)) => {
                let is_object = default_output_root(&mut o);
                let json = Value::Object(o);
                let schema = compile(&json)
                    .map_err(|e| err(format!("outputSchema: {}", describe(&json, &e))))?;
                let wrapped = if is_object {
                    None
                } else {
                    Some(wrap_schema(&json))
                };
                (Some(json), wrapped, Some(schema))
            }
            Some(_) => return Err(err("outputSchema must be a JSON object".into())),
        };
        let handler = self.handler.unwrap_or_else(|| {
            let text = format!("tool {name} was called");
            Arc::new(move |_, _: &CallContext| Ok(CallToolResult::text(text.clone())))
        });
        Ok(Tool {
            inner: Arc::new(ToolInner {
                name,
                title: self.title,
                description: self.description,
                icons: self.icons,
                annotations: self.annotations,
                task_support: self.task_support,
                meta: self.meta,
                security: self.security.unwrap_or_default(),
                input_json,
                input,
                output_json,
                output_wrapped,
                output,
                handler,
            }),
        })
    }
}

/// The default-object-root rule (SEP-2106): an output schema whose root declares none of
/// `type`, `$ref`, `oneOf`, `anyOf`, `allOf`, `not`, `if`, `const`, `enum` gets
/// `"type": "object"`. Answers whether the root is then an object schema.
///
/// ```
/// use serde_json::json;
/// use toolschema::mcp::contract::default_output_root;
///
/// let mut bare = json!({"properties": {"n": {"type": "integer"}}});
/// assert!(default_output_root(bare.as_object_mut().unwrap()));
/// assert_eq!(bare["type"], "object");
/// let mut array = json!({"type": "array"});
/// assert!(!default_output_root(array.as_object_mut().unwrap()));
/// ```
pub fn default_output_root(o: &mut Map<String, Value>) -> bool {
    const DECLARING: [&str; 9] = [
        "type", "$ref", "oneOf", "anyOf", "allOf", "not", "if", "const", "enum",
    ];
    if !DECLARING.iter().any(|k| o.contains_key(*k)) {
        o.insert("type".into(), Value::from("object"));
    }
    o.get("type").and_then(Value::as_str) == Some("object")
}

fn compile(schema: &Value) -> Result<Schema, SchemaError> {
    Options::new().compile(schema)
}

pub(crate) fn describe(schema: &Value, e: &SchemaError) -> String {
    if e.kind() == SchemaErrorKind::UnknownDialect {
        let named = schema
            .get("$schema")
            .map(Value::to_string)
            .unwrap_or_default();
        return format!("unsupported $schema {named}: {e}");
    }
    e.to_string()
}

/// Wraps a non-object output schema as `{"type": "object", "properties": {"result": ...}}`.
///
/// `$defs`/`definitions` move to the wrapper's root and same-document references are
/// re-pointed, so the schema means the same under every dialect without relying on `$id`.
/// This is what clients before 2026-07-28 are shown for an output schema whose root is not
/// an object (their `structuredContent` is wrapped under the same `result` key).
///
/// ```
/// use serde_json::json;
/// use toolschema::mcp::contract::wrap_schema;
///
/// let wrapped = wrap_schema(&json!({"type": "array", "items": {"$ref": "#/$defs/n"},
///     "$defs": {"n": {"type": "integer"}}}));
/// assert_eq!(wrapped["properties"]["result"]["items"]["$ref"], "#/$defs/n");
/// assert_eq!(wrapped["$defs"]["n"]["type"], "integer");
/// ```
pub fn wrap_schema(schema: &Value) -> Value {
    let mut inner = schema.clone();
    let mut root = Map::new();
    root.insert("type".into(), Value::from("object"));
    if let Some(obj) = inner.as_object_mut() {
        if let Some(s) = obj.remove("$schema") {
            root.insert("$schema".into(), s);
        }
        for key in ["$defs", "definitions"] {
            if let Some(d) = obj.remove(key) {
                root.insert(key.into(), d);
            }
        }
    }
    repoint_refs(&mut inner);
    for key in ["$defs", "definitions"] {
        if let Some(d) = root.get_mut(key) {
            repoint_refs(d);
        }
    }
    root.insert("properties".into(), json!({ WRAP_KEY: inner }));
    root.insert("required".into(), json!([WRAP_KEY]));
    Value::Object(root)
}

fn repoint_refs(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                match (k.as_str(), &mut *child) {
                    ("$ref", Value::String(r)) => {
                        let keep = r.starts_with("#/$defs/") || r.starts_with("#/definitions/");
                        if r == "#" || (r.starts_with("#/") && !keep) {
                            *r = format!("#/properties/{WRAP_KEY}{}", &r[1..]);
                        }
                    }
                    ("const" | "enum" | "default" | "examples", _) => {}
                    _ => repoint_refs(child),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(repoint_refs),
        _ => {}
    }
}
