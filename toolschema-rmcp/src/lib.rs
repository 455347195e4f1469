//! Every call and result of an [rmcp](https://docs.rs/rmcp) server checked against the
//! schemas its tools publish, with [toolschema].
//!
//! rmcp turns a call's arguments into your parameter type with serde, which checks types
//! but not `minLength`, `enum`, `maximum`, `additionalProperties: false` and the rest of the
//! schema the client was shown, and it sends whatever `structuredContent` the handler
//! returns. With this crate, arguments that break the input schema never reach the handler:
//! the client gets the refusal its protocol version expects (JSON-RPC `-32602` up to
//! 2025-06-18, an `isError` result the model can read from 2025-11-25 on), listing each
//! failure's location and reason and never a value. A result whose `structuredContent`
//! breaks the output schema becomes an `isError` result (or a JSON-RPC error, or a log
//! line: see [`OutputPolicy`]).
//!
//! The change to a server written with rmcp's macros is two lines: the router's type and
//! its constructor. `#[tool_handler]` keeps working, since [`ValidatedRouter`] answers the
//! same `call`, `list_all` and `get`.
//!
//! ```
//! use rmcp::{ServerHandler, tool, tool_handler, tool_router};
//! use rmcp::handler::server::wrapper::Parameters;
//! use toolschema_rmcp::ValidatedRouter;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Echo {
//!     message: String,
//! }
//!
//! #[derive(Clone)]
//! struct Server {
//!     tool_router: ValidatedRouter<Self>, // was: ToolRouter<Self>
//! }
//!
//! #[tool_router]
//! impl Server {
//!     fn new() -> Self {
//!         // was: Self { tool_router: Self::tool_router() }
//!         Self { tool_router: ValidatedRouter::new(Self::tool_router()) }
//!     }
//!
//!     #[tool(description = "Echo a message")]
//!     fn echo(&self, Parameters(Echo { message }): Parameters<Echo>) -> String {
//!         message
//!     }
//! }
//!
//! #[tool_handler(router = self.tool_router)]
//! impl ServerHandler for Server {}
//! # let _ = Server::new();
//! ```
//!
//! Servers that write `call_tool` by hand use [`ToolChecks::call`]; tests call a router
//! through the checks without a transport with [`testing::Client`].
//!
//! A tool whose input schema is known at build time can have its calls accepted by a
//! validator generated from that schema (`#[toolschema_macros::validator]`), given with
//! [`ValidatedRouter::with_generated`]; it decides only while its schema is the one the
//! tool publishes, and [`testing::check_input_schema_file`] keeps a checked-in schema file
//! equal to a parameter type.
//!
//! # rmcp versions
//!
//! This release depends on rmcp `=3.11.0`, pinned exactly: the router and model types it
//! wraps change between rmcp releases. A new rmcp release is supported by a new release of
//! this crate (its version names the rmcp it pins); until then, Cargo keeps the two in step.

use rmcp::ErrorData;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, JsonObject};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock};
use toolschema::mcp::contract::{
    CheckedTool, Refusal, SchemaProblem, Violations, check_argument_map, check_result_parts,
    refuse_arguments, refuse_result,
};
use toolschema::{GeneratedValidator, Options};

pub use toolschema::mcp::ProtocolVersion;
pub use toolschema::mcp::contract::{NamePolicy, OutputPolicy};

pub mod testing;

/// The toolschema revision for an rmcp protocol version: the same revision when toolschema
/// knows it, else the one [`ProtocolVersion::negotiate`] falls back to.
///
/// ```
/// assert_eq!(
///     toolschema_rmcp::protocol_version(&rmcp::model::ProtocolVersion::V_2025_06_18),
///     toolschema_rmcp::ProtocolVersion::V2025_06_18,
/// );
/// ```
pub fn protocol_version(version: &rmcp::model::ProtocolVersion) -> ProtocolVersion {
    ProtocolVersion::negotiate(Some(version.as_str()))
}

/// The revision a request is served at: its `_meta` version (2026-07-28), else the one the
/// `initialize` handshake settled, else 2025-03-26 (no version known).
pub fn request_version(context: &RequestContext<RoleServer>) -> ProtocolVersion {
    match context.protocol_version() {
        Some(v) => protocol_version(&v),
        None => ProtocolVersion::negotiate(None),
    }
}

/// An rmcp `Tool` as toolschema checks it: both schemas compiled with `options`, under the
/// name `policy`.
///
/// # Errors
/// Under [`NamePolicy::Refuse`], a name the spec discourages (such as `ns/tool`).
///
/// ```
/// use std::sync::Arc;
/// let schema = serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}});
/// let tool = rmcp::model::Tool::new("weather", "The weather", Arc::new(schema.as_object().unwrap().clone()));
/// let checked = toolschema_rmcp::checked_tool(&tool, &toolschema::Options::new(), Default::default()).unwrap();
/// assert!(checked.problems().is_empty() && checked.input_schema().is_some());
/// ```
pub fn checked_tool(
    tool: &rmcp::model::Tool,
    options: &Options,
    policy: NamePolicy,
) -> Result<CheckedTool, SchemaProblem> {
    let mut json = serde_json::Map::new();
    json.insert("name".into(), Value::from(tool.name.as_ref()));
    json.insert(
        "inputSchema".into(),
        Value::Object((*tool.input_schema).clone()),
    );
    if let Some(output) = &tool.output_schema {
        json.insert("outputSchema".into(), Value::Object((**output).clone()));
    }
    CheckedTool::from_json_with(&Value::Object(json), options, policy)
}

/// A compiled tool and the schema objects it was compiled from: a route whose schemas are
/// other `Arc`s has changed and is compiled again.
struct Compiled {
    input: Arc<JsonObject>,
    output: Option<Arc<JsonObject>>,
    tool: Option<CheckedTool>,
    /// The verdict of the tool's generated validator, when it stands for this input
    /// schema and these options.
    generated: Option<Verdict>,
    /// Why the tool's generated validator does not decide.
    generated_problem: Option<SchemaProblem>,
}

/// A generated validator's `is_valid`.
type Verdict = fn(&Value) -> bool;

/// A generated validator given to a tool ([`ToolChecks::with_generated`]).
#[derive(Clone, Copy)]
struct Generated {
    type_name: &'static str,
    is_valid: Verdict,
    mismatch: fn(&Value, &Options) -> Option<String>,
}

/// The checks of a set of tools: their compiled schemas (compiled once, and again when a
/// tool's schemas change), the [`Options`] they compile with and the policies for names
/// and bad output. [`ValidatedRouter`] is built on it; a server that writes `call_tool` by
/// hand uses [`call`](Self::call).
pub struct ToolChecks {
    options: Options,
    names: NamePolicy,
    on_bad_output: OutputPolicy,
    generated: HashMap<String, Generated>,
    compiled: RwLock<HashMap<String, Arc<Compiled>>>,
}

impl Default for ToolChecks {
    fn default() -> Self {
        ToolChecks::new()
    }
}

impl Clone for ToolChecks {
    fn clone(&self) -> Self {
        ToolChecks {
            options: self.options.clone(),
            names: self.names,
            on_bad_output: self.on_bad_output,
            generated: self.generated.clone(),
            compiled: RwLock::new(read(&self.compiled).clone()),
        }
    }
}

impl std::fmt::Debug for ToolChecks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolChecks")
            .field("names", &self.names)
            .field("on_bad_output", &self.on_bad_output)
            .field(
                "generated",
                &self
                    .generated
                    .iter()
                    .map(|(tool, g)| (tool.as_str(), g.type_name))
                    .collect::<std::collections::BTreeMap<_, _>>(),
            )
            .field("compiled", &read(&self.compiled).len())
            .finish()
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|p| p.into_inner())
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|p| p.into_inner())
}

impl ToolChecks {
    /// Checks with the default [`Options`] (formats annotate, as in the MCP SDKs),
    /// [`NamePolicy::Warn`] and [`OutputPolicy::ErrorResult`].
    pub fn new() -> ToolChecks {
        ToolChecks {
            options: Options::new(),
            names: NamePolicy::Warn,
            on_bad_output: OutputPolicy::ErrorResult,
            generated: HashMap::new(),
            compiled: RwLock::new(HashMap::new()),
        }
    }

    /// Compiles with `options` (e.g. `Options::new().assert_formats(true)`).
    pub fn with_options(mut self, options: Options) -> ToolChecks {
        self.options = options;
        write(&self.compiled).clear();
        self
    }

    /// What a tool name the spec discourages gets.
    pub fn with_name_policy(mut self, policy: NamePolicy) -> ToolChecks {
        self.names = policy;
        write(&self.compiled).clear();
        self
    }

    /// What a result that breaks its output schema becomes, e.g.
    /// `OutputPolicy::JsonRpcError(-32603)`.
    pub fn with_output_policy(mut self, policy: OutputPolicy) -> ToolChecks {
        self.on_bad_output = policy;
        self
    }

    /// Gives `tool` a validator generated at build time (`#[toolschema_macros::validator]`
    /// or `toolschema-codegen`) for its input schema: a call its generated code accepts
    /// passes without the engine's evaluation; one it does not accept is checked by the
    /// engine, whose errors make the refusal (the same refusal as without it).
    ///
    /// The generated validator decides only when it stands for the tool as listed: its
    /// schema is the tool's `inputSchema` (compared as JSON values) and it was generated
    /// with the options these checks compile with, in every setting that can change a
    /// verdict ([`GeneratedValidator::mismatch`]). Otherwise the engine decides, as if
    /// no validator were given, and [`prepare`](Self::prepare) (and
    /// [`ValidatedRouter::problems`]) report why, as they report a validator given to a
    /// tool that is not listed. The attribute takes the schema inline (below) or from a
    /// checked-in file (`path = ...`), which [`testing::check_input_schema_file`] keeps
    /// equal to the schema rmcp derives from a parameter type:
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_rmcp::ToolChecks;
    ///
    /// #[toolschema_macros::validator(schema = r#"{"type": "object", "properties": {"n": {"type": "integer"}}}"#)]
    /// struct DigitArgs;
    ///
    /// let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    /// let tool = rmcp::model::Tool::new("digit", "A digit", Arc::new(schema.as_object().unwrap().clone()));
    /// let checks = ToolChecks::new().with_generated::<DigitArgs>("digit");
    /// assert!(checks.prepare([&tool]).is_empty());
    /// // Asserting formats changes verdicts: this validator was generated without.
    /// let checks = checks.with_options(toolschema::Options::new().assert_formats(true));
    /// assert_eq!(checks.prepare([&tool]).len(), 1);
    /// ```
    pub fn with_generated<V: GeneratedValidator>(mut self, tool: impl Into<String>) -> ToolChecks {
        self.add_generated::<V>(tool.into());
        self
    }

    fn add_generated<V: GeneratedValidator>(&mut self, tool: String) {
        write(&self.compiled).remove(&tool);
        self.generated.insert(
            tool,
            Generated {
                type_name: std::any::type_name::<V>(),
                is_valid: V::is_valid,
                mismatch: V::mismatch,
            },
        );
    }

    /// Whether `tool`'s generated validator decides, or why not.
    fn generated_for(
        &self,
        tool: &rmcp::model::Tool,
        checked: Option<&CheckedTool>,
    ) -> (Option<Verdict>, Option<SchemaProblem>) {
        let Some(g) = self.generated.get(tool.name.as_ref()) else {
            return (None, None);
        };
        // (A refused tool or a schema that does not compile is reported as such, and
        // nothing decides its calls.)
        if checked.and_then(CheckedTool::input_schema).is_none() {
            return (None, None);
        }
        let published = Value::Object((*tool.input_schema).clone());
        match (g.mismatch)(&published, &self.options) {
            None => (Some(g.is_valid), None),
            Some(why) => (
                None,
                Some(SchemaProblem {
                    tool: tool.name.to_string(),
                    location: "/inputSchema".into(),
                    reason: format!(
                        "the generated validator {} does not stand for it ({why}); the runtime engine decides",
                        g.type_name
                    ),
                }),
            ),
        }
    }

    /// The compiled form of `tool`, compiling it when it is new or its schemas changed
    /// (its `tool` is `None` when the name policy refuses it).
    fn compiled(&self, tool: &rmcp::model::Tool) -> Arc<Compiled> {
        if let Some(c) = read(&self.compiled).get(tool.name.as_ref())
            && Arc::ptr_eq(&c.input, &tool.input_schema)
            && match (&c.output, &tool.output_schema) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
        {
            return c.clone();
        }
        let checked = match checked_tool(tool, &self.options, self.names) {
            Ok(t) => {
                for p in t.problems() {
                    tracing::error!("toolschema: {p}; its calls go unchecked there");
                }
                for p in t.warnings() {
                    tracing::warn!("toolschema: {p}");
                }
                Some(t)
            }
            Err(p) => {
                tracing::error!("toolschema: {p}; its calls are refused");
                None
            }
        };
        let (generated, generated_problem) = self.generated_for(tool, checked.as_ref());
        if let Some(p) = &generated_problem {
            tracing::error!("toolschema: {p}");
        }
        let c = Arc::new(Compiled {
            input: tool.input_schema.clone(),
            output: tool.output_schema.clone(),
            tool: checked,
            generated,
            generated_problem,
        });
        write(&self.compiled).insert(tool.name.to_string(), c.clone());
        c
    }

    /// Compiles `tools` now, so schema problems are reported at start-up rather than on
    /// the first call, and forgets tools not among them. Answers every problem found,
    /// including generated validators that do not decide (see
    /// [`with_generated`](Self::with_generated)).
    pub fn prepare<'t>(
        &self,
        tools: impl IntoIterator<Item = &'t rmcp::model::Tool>,
    ) -> Vec<SchemaProblem> {
        let mut problems = Vec::new();
        let mut names = std::collections::HashSet::new();
        for tool in tools {
            names.insert(tool.name.to_string());
            let compiled = self.compiled(tool);
            match &compiled.tool {
                Some(t) => problems.extend(t.problems().iter().cloned()),
                None => {
                    problems.extend(checked_tool(tool, &self.options, NamePolicy::Refuse).err())
                }
            }
            problems.extend(compiled.generated_problem.clone());
        }
        write(&self.compiled).retain(|name, _| names.contains(name));
        let mut unlisted: Vec<(&String, &Generated)> = self
            .generated
            .iter()
            .filter(|(name, _)| !names.contains(*name))
            .collect();
        unlisted.sort_by_key(|(name, _)| *name);
        problems.extend(unlisted.into_iter().map(|(name, g)| SchemaProblem {
            tool: name.clone(),
            location: "/inputSchema".into(),
            reason: format!(
                "the generated validator {} is given for a tool that is not listed",
                g.type_name
            ),
        }));
        problems
    }

    /// Checks the arguments of a call to `tool` at `version`, in place (they are not
    /// copied): `None` when the handler may run, else the answer the client gets instead
    /// (an `isError` result from 2025-11-25 on, a JSON-RPC `-32602` error before). With a
    /// generated validator that decides ([`with_generated`](Self::with_generated)), its
    /// code accepts; what it does not accept the engine checks and explains.
    pub fn check_arguments(
        &self,
        tool: &rmcp::model::Tool,
        mut arguments: Option<&mut JsonObject>,
        version: ProtocolVersion,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        let compiled = self.compiled(tool);
        let Some(checked) = &compiled.tool else {
            return Some(Err(ErrorData::invalid_params(
                format!(
                    "tool {} is refused: its name is not a valid tool name",
                    tool.name
                ),
                None,
            )));
        };
        let schema = checked.input_schema()?;
        if let Some(is_valid) = compiled.generated
            && generated_accepts(is_valid, arguments.as_deref_mut())
        {
            return None;
        }
        let v = check_argument_map(schema, checked.name(), arguments).err()?;
        report(&v);
        Some(into_rmcp(refuse_arguments(&v, version)))
    }

    /// Checks the answer of a call to `tool` against its output schema: the answer as it
    /// was, or what a mismatch becomes under the output policy. Results that are not
    /// complete (input required, a task) pass as they are.
    pub fn check_response(
        &self,
        tool: &rmcp::model::Tool,
        response: Result<CallToolResponse, ErrorData>,
        version: ProtocolVersion,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.on_bad_output == OutputPolicy::Pass {
            return response;
        }
        let Ok(CallToolResponse::Complete(result)) = &response else {
            return response;
        };
        let compiled = self.compiled(tool);
        let Some(checked) = &compiled.tool else {
            return response;
        };
        match check_result_parts(
            checked.output_schema(),
            checked.name(),
            result.is_error == Some(true),
            result.structured_content.as_ref(),
        ) {
            Ok(()) => response,
            Err(v) => {
                report(&v);
                match refuse_result(&v, self.on_bad_output, version) {
                    Some(refusal) => into_rmcp(refusal),
                    None => response,
                }
            }
        }
    }

    /// A whole checked call for a server that writes `call_tool` by hand: checks the
    /// arguments of `request` against `tool`, runs `handler` only when they pass, then
    /// checks its answer.
    ///
    /// ```
    /// use rmcp::model::{CallToolRequestParams, CallToolResponse};
    /// use std::sync::Arc;
    /// use toolschema_rmcp::{ProtocolVersion, ToolChecks};
    ///
    /// let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}});
    /// let tool = rmcp::model::Tool::new("digit", "A digit", Arc::new(schema.as_object().unwrap().clone()));
    /// let checks = ToolChecks::new();
    /// let request = CallToolRequestParams::new("digit")
    ///     .with_arguments(serde_json::json!({"n": 10}).as_object().unwrap().clone());
    /// let answer = futures::executor::block_on(checks.call(&tool, request, ProtocolVersion::V2025_11_25, |_| async {
    ///     unreachable!("the handler does not run")
    /// }));
    /// let Ok(CallToolResponse::Complete(result)) = answer else { panic!() };
    /// assert_eq!(result.is_error, Some(true));
    /// ```
    pub async fn call<F, Fut>(
        &self,
        tool: &rmcp::model::Tool,
        mut request: CallToolRequestParams,
        version: ProtocolVersion,
        handler: F,
    ) -> Result<CallToolResponse, ErrorData>
    where
        F: FnOnce(CallToolRequestParams) -> Fut,
        Fut: Future<Output = Result<CallToolResponse, ErrorData>>,
    {
        if let Some(answer) = self.check_arguments(tool, request.arguments.as_mut(), version) {
            return answer;
        }
        let response = handler(request).await;
        self.check_response(tool, response, version)
    }
}

/// Whether a generated validator accepts a call's arguments (absent counts as `{}`), held
/// in place: the map is moved into a `Value` for the call and back (no copy).
fn generated_accepts(is_valid: Verdict, arguments: Option<&mut JsonObject>) -> bool {
    let Some(map) = arguments else {
        return is_valid(&Value::Object(JsonObject::new()));
    };
    let value = Value::Object(std::mem::take(map));
    let accepted = is_valid(&value);
    if let Value::Object(back) = value {
        *map = back;
    }
    accepted
}

/// Reports a violation where rmcp reports: its `tracing` events (never a value).
fn report(v: &Violations) {
    tracing::warn!(
        tool = v.tool(),
        direction = v.direction().as_str(),
        "toolschema: {v}"
    );
}

/// A toolschema refusal as rmcp answers it.
fn into_rmcp(refusal: Refusal) -> Result<CallToolResponse, ErrorData> {
    match refusal {
        Refusal::Error {
            code,
            message,
            data,
        } => Err(ErrorData::new(
            ErrorCode(i32::try_from(code).unwrap_or(-32603)),
            message,
            Some(data),
        )),
        Refusal::Result(value) => match serde_json::from_value::<CallToolResult>(value) {
            Ok(result) => Ok(CallToolResponse::Complete(result)),
            Err(_) => Err(ErrorData::internal_error("internal error", None)),
        },
    }
}

/// rmcp's [`ToolRouter`] with every call checked: arguments against the input schema
/// before the handler runs, results against the output schema after.
///
/// A drop-in for `ToolRouter<S>` under `#[tool_handler(router = self.tool_router)]`: it
/// answers the same `call`, `list_all` and `get` (no `Deref` to the router, so that a call
/// can never reach the unchecked one by accident). Change the router with this type's own methods
/// ([`add_route`](Self::add_route), [`disable_route`](Self::disable_route), ...): a route
/// added or changed later is compiled again (at the latest on its first call), and a
/// disabled one is answered as rmcp answers it.
pub struct ValidatedRouter<S> {
    router: ToolRouter<S>,
    checks: ToolChecks,
}

impl<S> Clone for ValidatedRouter<S> {
    fn clone(&self) -> Self {
        ValidatedRouter {
            router: self.router.clone(),
            checks: self.checks.clone(),
        }
    }
}

impl<S> std::fmt::Debug for ValidatedRouter<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValidatedRouter")
            .field("router", &self.router)
            .field("checks", &self.checks)
            .finish()
    }
}

impl<S: Send + Sync + 'static> ValidatedRouter<S> {
    /// Wraps `router` with the default [`ToolChecks`], compiling every tool's schemas now
    /// (problems go to `tracing`, see [`problems`](Self::problems)).
    pub fn new(router: ToolRouter<S>) -> Self {
        ValidatedRouter::with_checks(router, ToolChecks::new())
    }

    /// Wraps `router` with `checks` (options, name and output policies).
    ///
    /// ```
    /// # use rmcp::handler::server::router::tool::ToolRouter;
    /// use toolschema_rmcp::{OutputPolicy, ToolChecks, ValidatedRouter};
    /// let checks = ToolChecks::new()
    ///     .with_options(toolschema::Options::new().assert_formats(true))
    ///     .with_output_policy(OutputPolicy::JsonRpcError(-32603));
    /// let router: ValidatedRouter<()> = ValidatedRouter::with_checks(ToolRouter::new(), checks);
    /// assert!(router.problems().is_empty());
    /// ```
    pub fn with_checks(router: ToolRouter<S>, checks: ToolChecks) -> Self {
        let this = ValidatedRouter { router, checks };
        this.recompile();
        this
    }

    fn recompile(&self) {
        let tools = self.router.list_all();
        self.checks.prepare(tools.iter());
    }

    /// The schemas of listed tools that did not compile (their calls go unchecked there),
    /// and the names the name policy refuses.
    pub fn problems(&self) -> Vec<SchemaProblem> {
        let tools = self.router.list_all();
        self.checks.prepare(tools.iter())
    }

    /// Gives tool `tool` a validator generated at build time, as
    /// [`ToolChecks::with_generated`] (which says when it decides), compiling now: a
    /// validator that does not stand for the tool's input schema is reported by
    /// [`problems`](Self::problems).
    ///
    /// ```
    /// use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
    /// use rmcp::model::CallToolResult;
    /// use std::sync::Arc;
    /// use toolschema_rmcp::ValidatedRouter;
    ///
    /// #[toolschema_macros::validator(schema = r#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}}"#)]
    /// struct DigitArgs;
    ///
    /// let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}});
    /// let tool = rmcp::model::Tool::new("digit", "A digit", Arc::new(schema.as_object().unwrap().clone()));
    /// let route = ToolRoute::<()>::new_dyn(tool, |_ctx| Box::pin(async { Ok(CallToolResult::success(vec![]).into()) }));
    /// let router = ValidatedRouter::new(ToolRouter::new().with_route(route))
    ///     .with_generated::<DigitArgs>("digit");
    /// assert!(router.problems().is_empty());
    /// ```
    pub fn with_generated<V: GeneratedValidator>(mut self, tool: impl Into<String>) -> Self {
        self.checks.add_generated::<V>(tool.into());
        self.recompile();
        self
    }

    /// The checks in use.
    pub fn checks(&self) -> &ToolChecks {
        &self.checks
    }

    /// The wrapped router.
    pub fn router(&self) -> &ToolRouter<S> {
        &self.router
    }

    /// The wrapped router, checks removed.
    pub fn into_inner(self) -> ToolRouter<S> {
        self.router
    }

    /// Calls a tool as [`ToolRouter::call`] does, with the checks: invalid arguments are
    /// refused before the handler runs, a result breaking the output schema is replaced
    /// per the output policy. Unknown and disabled tools are answered by the router.
    pub async fn call(
        &self,
        mut context: ToolCallContext<'_, S>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.router.get(context.name()) else {
            return self.router.call(context).await;
        };
        let version = request_version(context.request_context());
        if let Some(answer) = self
            .checks
            .check_arguments(tool, context.arguments.as_mut(), version)
        {
            return answer;
        }
        let response = self.router.call(context).await;
        self.checks.check_response(tool, response, version)
    }

    /// The listed tools, as [`ToolRouter::list_all`].
    pub fn list_all(&self) -> Vec<rmcp::model::Tool> {
        self.router.list_all()
    }

    /// A listed tool, as [`ToolRouter::get`].
    pub fn get(&self, name: &str) -> Option<&rmcp::model::Tool> {
        self.router.get(name)
    }

    /// See [`ToolRouter::has_route`].
    pub fn has_route(&self, name: &str) -> bool {
        self.router.has_route(name)
    }

    /// See [`ToolRouter::is_disabled`].
    pub fn is_disabled(&self, name: &str) -> bool {
        self.router.is_disabled(name)
    }

    /// Adds a route (or replaces one of the same name), compiling its schemas.
    pub fn add_route(&mut self, route: ToolRoute<S>) {
        self.router.add_route(route);
        self.recompile();
    }

    /// Builder-style [`add_route`](Self::add_route), for any route rmcp's
    /// `ToolRouter::with_route` takes.
    pub fn with_route<R, A>(mut self, route: R) -> Self
    where
        R: rmcp::handler::server::router::tool::IntoToolRoute<S, A>,
    {
        self.add_route(route.into_tool_route());
        self
    }

    /// Merges another router's routes, compiling them.
    pub fn merge(&mut self, other: ToolRouter<S>) {
        self.router.merge(other);
        self.recompile();
    }

    /// Removes a route (see [`ToolRouter::remove_route`]).
    pub fn remove_route(&mut self, name: &str) {
        self.router.remove_route(name);
        self.recompile();
    }

    /// Disables a route (see [`ToolRouter::disable_route`]).
    pub fn disable_route(&mut self, name: impl Into<Cow<'static, str>>) -> bool {
        let changed = self.router.disable_route(name);
        self.recompile();
        changed
    }

    /// Enables a disabled route, compiling it.
    pub fn enable_route(&mut self, name: &str) -> bool {
        let changed = self.router.enable_route(name);
        self.recompile();
        changed
    }

    /// See [`ToolRouter::set_notifier`].
    pub fn set_notifier(&mut self, f: impl Fn() + Send + Sync + 'static) {
        self.router.set_notifier(f);
    }

    /// See [`ToolRouter::bind_peer_notifier`].
    pub fn bind_peer_notifier(&mut self, peer: &rmcp::service::Peer<RoleServer>) {
        self.router.bind_peer_notifier(peer);
    }
}

impl<S: Send + Sync + 'static> From<ToolRouter<S>> for ValidatedRouter<S> {
    fn from(router: ToolRouter<S>) -> Self {
        ValidatedRouter::new(router)
    }
}
