//! Calling a router through the checks in a test, without a transport; keeping a
//! checked-in schema file equal to the schema rmcp publishes for a parameter type
//! ([`check_input_schema_file`]).
//!
//! ```
//! use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
//! use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
//! use std::sync::Arc;
//! use toolschema_rmcp::{ProtocolVersion, ValidatedRouter, testing::Client};
//!
//! struct Service;
//! let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}});
//! let tool = rmcp::model::Tool::new("digit", "A digit", Arc::new(schema.as_object().unwrap().clone()));
//! let router = ValidatedRouter::new(ToolRouter::<Service>::new().with_route(ToolRoute::new_dyn(tool, |_ctx| {
//!     Box::pin(async { Ok(CallToolResult::success(vec![ContentBlock::text("ok")]).into()) })
//! })));
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let client = Client::new();
//! let refused = client.call(&router, &Service, "digit", serde_json::json!({"n": 10}), ProtocolVersion::V2025_06_18).await;
//! assert_eq!(refused.unwrap_err().code.0, -32602);
//! let Ok(CallToolResponse::Complete(ok)) = client.call(&router, &Service, "digit", serde_json::json!({"n": 1}), ProtocolVersion::V2025_11_25).await
//! else { panic!() };
//! assert_eq!(ok.is_error, Some(false));
//! # });
//! ```

use crate::ValidatedRouter;
use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString};
use rmcp::service::{Peer, RequestContext, RoleServer, RunningService};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use toolschema::mcp::ProtocolVersion;

/// The service behind the test peer: it is never sent anything.
struct Unused;
impl ServerHandler for Unused {}

/// A stand-in for the client: builds the request context a transport would, and calls
/// a router with it. Requests to the client (sampling, logging) go nowhere.
pub struct Client {
    running: RunningService<RoleServer, Unused>,
    next_id: AtomicI64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

impl Default for Client {
    fn default() -> Self {
        Client::new()
    }
}

impl Client {
    /// A client with no transport behind it. Call inside a Tokio runtime (rmcp spawns the
    /// peer's task).
    pub fn new() -> Client {
        let transport = (
            futures::sink::drain(),
            futures::stream::pending::<rmcp::service::RxJsonRpcMessage<RoleServer>>(),
        );
        let running = rmcp::service::serve_directly(Unused, transport, None);
        Client {
            running,
            next_id: AtomicI64::new(1),
        }
    }

    /// The peer the contexts carry.
    pub fn peer(&self) -> &Peer<RoleServer> {
        self.running.peer()
    }

    /// The context of a `tools/call` of `name` with `arguments` (an object, or `null` for
    /// none) at `version`, as the transport would hand it to `call_tool`.
    pub fn context<'s, S>(
        &self,
        service: &'s S,
        name: &str,
        arguments: Value,
        version: ProtocolVersion,
    ) -> ToolCallContext<'s, S> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut request = RequestContext::new(NumberOrString::Number(id), self.peer().clone());
        if let Ok(v) = serde_json::from_value(Value::from(version.as_str())) {
            request.meta.set_protocol_version(v);
        }
        ToolCallContext::new(service, params, request)
    }

    /// Calls `name` through `router`'s checks, as a client at `version` would.
    pub async fn call<S: Send + Sync + 'static>(
        &self,
        router: &ValidatedRouter<S>,
        service: &S,
        name: &str,
        arguments: Value,
        version: ProtocolVersion,
    ) -> Result<CallToolResponse, ErrorData> {
        router
            .call(self.context(service, name, arguments, version))
            .await
    }

    /// Calls `name` through a plain rmcp router, no checks (to compare with).
    pub async fn call_unchecked<S: Send + Sync + 'static>(
        &self,
        router: &ToolRouter<S>,
        service: &S,
        name: &str,
        arguments: Value,
        version: ProtocolVersion,
    ) -> Result<CallToolResponse, ErrorData> {
        router
            .call(self.context(service, name, arguments, version))
            .await
    }
}

/// The environment variable under which [`check_input_schema_file`] writes the file
/// instead of comparing it: `TOOLSCHEMA_WRITE_SCHEMAS=1 cargo test`.
pub const WRITE_SCHEMAS: &str = "TOOLSCHEMA_WRITE_SCHEMAS";

/// The `inputSchema` rmcp publishes for a tool whose parameters are `Parameters<T>`
/// (computed by rmcp's own `schema_for_input`, as `#[tool]` does), as the JSON text
/// [`check_input_schema_file`] writes: pretty, with a final newline.
///
/// # Errors
/// rmcp's reason when it refuses the type (a root that is not an object).
///
/// ```
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Echo {
///     message: String,
/// }
/// let text = toolschema_rmcp::testing::input_schema_text::<Echo>().unwrap();
/// let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
/// assert_eq!(schema["required"], serde_json::json!(["message"]));
/// assert!(toolschema_rmcp::testing::input_schema_text::<u32>().is_err());
/// ```
pub fn input_schema_text<T: rmcp::schemars::JsonSchema + std::any::Any>() -> Result<String, String>
{
    let schema = rmcp::handler::server::common::schema_for_input::<T>()?;
    let mut text = serde_json::to_string_pretty(&*schema).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

/// Compares the schema file at `path` with the `inputSchema` rmcp publishes for
/// `Parameters<T>` ([`input_schema_text`]), as JSON values: for a tool type whose
/// generated validator reads that file (`#[toolschema_macros::validator(path = ...)]`,
/// given to the tool with [`ValidatedRouter::with_generated`]), a test calling this fails
/// when the type changed and the file did not. With the environment variable
/// [`WRITE_SCHEMAS`] set to `1`, it writes the file instead (then the validator is
/// generated again from it on the next build).
///
/// A file that drifted never makes a wrong verdict (the checks see that the generated
/// validator's schema is not the published one and let the engine decide), but it loses
/// the generated code's speed: this test says so at `cargo test` time.
///
/// # Errors
/// What differs (the first JSON Pointer where the two differ), or why the file cannot be
/// read, parsed or written.
///
/// ```
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Echo {
///     message: String,
/// }
/// let dir = std::env::temp_dir().join(format!("toolschema-rmcp-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("echo.json");
/// std::fs::write(&file, toolschema_rmcp::testing::input_schema_text::<Echo>().unwrap()).unwrap();
/// assert_eq!(toolschema_rmcp::testing::check_input_schema_file::<Echo>(&file), Ok(()));
/// std::fs::write(&file, r#"{"type": "object"}"#).unwrap();
/// let drift = toolschema_rmcp::testing::check_input_schema_file::<Echo>(&file).unwrap_err();
/// assert!(drift.contains("is not the input schema of"), "{drift}");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn check_input_schema_file<T: rmcp::schemars::JsonSchema + std::any::Any>(
    path: impl AsRef<Path>,
) -> Result<(), String> {
    let path = path.as_ref();
    let type_name = std::any::type_name::<T>();
    let text = input_schema_text::<T>().map_err(|e| format!("{type_name}: {e}"))?;
    if std::env::var(WRITE_SCHEMAS).is_ok_and(|v| v == "1") {
        return std::fs::write(path, &text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()));
    }
    let again = format!("(write it again with {WRITE_SCHEMAS}=1 cargo test)");
    let on_disk = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e} {again}", path.display()))?;
    let on_disk: Value = serde_json::from_str(&on_disk)
        .map_err(|e| format!("{} is not JSON: {e} {again}", path.display()))?;
    let published: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    match first_difference(&on_disk, &published, String::new()) {
        None => Ok(()),
        Some(at) => Err(format!(
            "{} is not the input schema of {type_name} (they differ at \"{at}\") {again}",
            path.display()
        )),
    }
}

/// The JSON Pointer of the first place where `a` and `b` differ (`""`: the root).
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => first_difference(p, q, here),
                    _ => Some(here),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            let mismatch = x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| first_difference(p, q, format!("{at}/{i}")));
            mismatch
                .or_else(|| (x.len() != y.len()).then(|| format!("{at}/{}", x.len().min(y.len()))))
        }
        _ => (a != b).then_some(at),
    }
}
