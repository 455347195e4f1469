//! The MCP tools layer (feature `mcp`): tool definitions checked when they are defined,
//! arguments validated before the handler runs, results checked against the tool's own
//! output schema, and JSON-RPC 2.0 over newline-delimited stdio, all with threads and no
//! async runtime.
//!
//! The pieces, in the order a call meets them:
//! - [`Tool`]: name, metadata, annotations and the two schemas, compiled by
//!   [`ToolBuilder::build`] so a bad schema fails the definition, not the first call. The
//!   input root is an object schema (`"type": "object"` assumed when absent); the output
//!   schema is assumed to be an object only when its root declares none of `type`, `$ref`,
//!   `oneOf`, `anyOf`, `allOf`, `not`, `if`, `const`, `enum` (SEP-2106).
//! - [`Server`]: the registry; [`Server::serve_stdio`] speaks the protocol, and
//!   [`Server::connect`] puts it on any other transport ([`transport`] has what a
//!   multiplexing one needs; Streamable HTTP and the contract proxy are the
//!   `toolschema-http` crate).
//! - The handler: a closure receiving the validated arguments ([`from_arguments`] turns them
//!   into your own type) and a [`CallContext`] (protocol version, cancellation, progress,
//!   client logging), answering a [`CallToolResult`].
//!
//! What the client sees depends on the negotiated [`ProtocolVersion`]:
//! - invalid arguments are a JSON-RPC `-32602` error up to 2025-06-18, and an `isError`
//!   result listing each failure's location and reason from 2025-11-25 on. Neither
//!   quotes an argument value;
//! - `tools/list` leaves out the fields a version does not know; an output schema whose root
//!   is not an object is wrapped as `{"type": "object", "properties": {"result": ...}}` for
//!   clients before 2026-07-28 (which reject other roots), and so is its `structuredContent`;
//! - at 2026-07-28 the version travels in each request's `_meta`, results carry
//!   `resultType: "complete"`, and `tools/list` carries the `ttlMs`/`cacheScope` cache hints.
//!
//! After the handler, an `isError` result passes as it is. Otherwise a tool with an output
//! schema must return `structuredContent` that validates, or the client gets an `isError`
//! result naming the failing locations (the server broke its contract, not the client) and
//! the details go to stderr. `structuredContent` returned without content blocks is
//! mirrored into a text block holding its JSON. A handler that fails or panics gives
//! `-32603`; the server keeps serving.
//!
//! ```
//! use toolschema::mcp::{CallToolResult, Server, Tool, from_arguments};
//! use serde_json::json;
//!
//! let tool = Tool::builder("mean")
//!     .description("The mean of some numbers")
//!     .input_schema(json!({
//!         "properties": {"numbers": {"type": "array", "items": {"type": "number"}, "minItems": 1}},
//!         "required": ["numbers"]
//!     }))
//!     .output_schema(json!({"properties": {"mean": {"type": "number"}}, "required": ["mean"]}))
//!     .read_only_hint(true)
//!     .handler(|mut args, _ctx| {
//!         // With serde's `derive`, deserialize into your own struct instead.
//!         let numbers: Vec<f64> = from_arguments(args["numbers"].take())?;
//!         let mean = numbers.iter().sum::<f64>() / numbers.len() as f64;
//!         Ok(CallToolResult::structured(json!({"mean": mean})))
//!     })
//!     .build()?;
//! assert!(tool.read_only() && !tool.destructive());
//! let server = Server::builder("stats", "1.0.0").tool(tool).build()?;
//! // server.serve_stdio()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod content;
mod context;
pub mod contract;
mod head;
pub mod jsonrpc;
pub mod security;
mod server;
mod talkback;
mod tasks;
pub mod testing;
mod tool;
pub mod transport;
mod version;

pub use content::{CallToolResult, Content, ResultShapeError};
pub use context::{CallContext, LogLevel};
pub use security::SecurityScheme;
pub use server::{Connection, MAX_PROGRESS_TOKEN_BYTES, Server, ServerBuilder};
pub use talkback::ClientRequestError;
pub use tool::{
    HandlerError, TaskSupport, Tool, ToolAnnotations, ToolBuilder, ToolError, from_arguments,
};
pub use version::ProtocolVersion;
