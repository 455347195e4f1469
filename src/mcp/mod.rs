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
//!   [`Server::connect`] puts it on any other transport.
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
mod example;
#[cfg(feature = "http")]
pub mod http;
pub mod jsonrpc;
pub mod proxy;
mod serve;
mod server;
mod talkback;
mod tasks;
pub mod testing;
mod tool;
mod version;

pub use content::{CallToolResult, Content, ResultShapeError};
pub use context::{CallContext, LogLevel};
pub use server::{Connection, MAX_PROGRESS_TOKEN_BYTES, Server, ServerBuilder};
pub use talkback::ClientRequestError;
pub use tool::{
    HandlerError, TaskSupport, Tool, ToolAnnotations, ToolBuilder, ToolError, from_arguments,
};
pub use version::ProtocolVersion;

/// Runs `toolschema serve`: an MCP server on stdio; returns the process exit code.
///
/// Without `args.tools` it serves the built-in demo tools (`echo`, `calculate_stats`,
/// `get_weather`, `slow`). With them, it is a contract-checking mock: each file holds an
/// array of MCP `Tool` objects or a single one, and each directory's `*.json` files
/// (searched recursively, in path order) hold them. Each call is validated like any other
/// and answered with the tool's `x-response` result when it has one; else, for a tool with
/// an output schema, with an example derived from that schema; else a text block naming the tool. Exit code 0 when stdin closes, 2 when the tools cannot be loaded.
///
/// The `toolschema` binary's entry point, not part of the library's API (hidden, exempt
/// from semver): build servers with [`Server::builder`].
#[doc(hidden)]
pub fn serve_main(args: &ServeArgs) -> i32 {
    serve::serve_main(args)
}

/// What `toolschema serve` was asked for: the binary's arguments, not part of the
/// library's API (hidden, exempt from semver).
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct ServeArgs {
    /// Tool files or directories (each an array of Tool objects, or one); none serves the
    /// built-in demo tools.
    pub tools: Vec<std::path::PathBuf>,
    /// The largest message accepted, in bytes (default: the server's 4 MiB).
    pub max_message_bytes: Option<usize>,
    /// Tools per `tools/list` page (default: the server's).
    pub page_size: Option<usize>,
    /// Serve Streamable HTTP instead of stdio.
    pub http: Option<HttpArgs>,
}

/// What `toolschema serve --http` was asked for (hidden, exempt from semver).
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct HttpArgs {
    /// The address to bind, `HOST:PORT`.
    pub addr: String,
    /// More hosts allowed in `Host` (and origins' hosts).
    pub allow_hosts: Vec<String>,
    /// More origins allowed in `Origin`.
    pub allow_origins: Vec<String>,
    /// The largest request body, in bytes.
    pub max_body_bytes: Option<usize>,
    /// The most sessions at once.
    pub max_sessions: Option<usize>,
    /// The most streams per session.
    pub max_streams: Option<usize>,
}

#[cfg(feature = "http")]
impl HttpArgs {
    /// The endpoint's options these flags ask for (`serve --http` and `proxy --listen`
    /// share the flags): the defaults, with each flag given applied.
    pub fn options(&self) -> http::HttpOptions {
        let mut options = http::HttpOptions::new();
        for h in &self.allow_hosts {
            options = options.allow_host(h);
        }
        for o in &self.allow_origins {
            options = options.allow_origin(o);
        }
        if let Some(n) = self.max_body_bytes {
            options = options.max_body_bytes(n);
        }
        if let Some(n) = self.max_sessions {
            options = options.max_sessions(n);
        }
        if let Some(n) = self.max_streams {
            options = options.max_streams(n);
        }
        options
    }
}

/// Serves `server` as `toolschema serve --http` asks; the process exit code.
fn serve_http_main(server: &Server, args: &HttpArgs) -> i32 {
    #[cfg(feature = "http")]
    {
        let bound = match http::HttpServer::bind(server, args.addr.as_str(), args.options()) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("toolschema serve: cannot listen on {}: {e}", args.addr);
                return 1;
            }
        };
        eprintln!(
            "toolschema serve: {} tool(s) on http://{}/mcp",
            server.tools().len(),
            bound.local_addr()
        );
        match bound.run() {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("toolschema serve: {e}");
                1
            }
        }
    }
    #[cfg(not(feature = "http"))]
    {
        let _ = (server, args);
        eprintln!("toolschema serve: --http needs the `http` feature");
        2
    }
}
