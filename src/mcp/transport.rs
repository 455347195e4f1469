//! What a transport needs beyond [`Server::connect`]: the kind and request of each
//! outgoing message, the answer a message will get before it is handled, and a scan of a
//! message too large to parse.
//!
//! The `toolschema-http` crate (Streamable HTTP, the contract proxy) is built on this
//! module; a transport of your own may use it the same way. Newline-delimited stdio needs
//! none of it: [`Server::serve_stdio`].
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use toolschema::mcp::transport::{self, Expected, Outgoing};
//! use toolschema::mcp::Server;
//!
//! let server = Server::builder("demo", "1.0").build()?;
//! let sent = Arc::new(Mutex::new(Vec::new()));
//! let out = Arc::clone(&sent);
//! let conn = transport::connect(&server, Arc::new(move |line, kind, request| {
//!     // An HTTP transport sends `line` on the stream of `request`; under pressure it may
//!     // drop a notification, never an answer.
//!     let request = request.map(|id| id.raw().to_string());
//!     out.lock().unwrap().push((line, kind, request));
//! }));
//! let ping = r#"{"jsonrpc": "2.0", "id": 7, "method": "ping"}"#;
//! // The transport learns which answer to wait for before handing the message on.
//! let Expected::Answer(id) = transport::expected_answer(ping) else { panic!() };
//! assert_eq!(id.raw(), "7");
//! conn.handle(ping);
//! conn.finish(std::time::Duration::from_secs(1));
//! let sent = sent.lock().unwrap();
//! assert_eq!(sent[0].1, Outgoing::Answer);
//! assert_eq!(sent[0].2.as_deref(), Some("7"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Connection, Server};
use std::time::SystemTime;

pub use super::context::{Outgoing, Sink};
pub use super::head::MessageHead;
pub use super::server::{Expected, expected_answer};

/// Opens a connection to `server` whose outgoing messages go to `sink`, with their
/// [`Outgoing`] kind and the id of the request each answers or relates to (a call's
/// progress and log notifications name their call): [`Server::connect`] with the facts a
/// transport that multiplexes requests needs. See the [module example](self).
pub fn connect(server: &Server, sink: Sink) -> Connection {
    server.connect_sink(sink)
}

/// [`connect`] for a transport that verifies each caller's OAuth token, and each
/// `tools/call`'s scopes against the tool's [security schemes](super::security), before
/// handing a message on (as `toolschema-http` does when authorization is configured): the
/// connection then runs calls to tools that need a token, which a connection from
/// [`connect`] refuses with [`UNAUTHORIZED`](super::jsonrpc::UNAUTHORIZED) unless the server
/// trusts the local user.
pub fn connect_verified(server: &Server, sink: Sink) -> Connection {
    server.connect_checked(sink, true)
}

/// `tool`'s input schema as it was declared (before compilation), for annotations a
/// transport reads, such as 2026-07-28 `x-mcp-header`; `None` for an unknown tool.
///
/// ```
/// use serde_json::json;
/// use toolschema::mcp::{Server, Tool, CallToolResult, transport};
///
/// let tool = Tool::builder("where")
///     .input_schema(json!({"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}))
///     .handler(|_, _| Ok(CallToolResult::text("here")))
///     .build()?;
/// let server = Server::builder("demo", "1.0").tool(tool).build()?;
/// let declared = transport::declared_input_schema(&server, "where").unwrap();
/// assert_eq!(declared["properties"]["region"]["x-mcp-header"], "Region");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn declared_input_schema<'s>(server: &'s Server, tool: &str) -> Option<&'s serde_json::Value> {
    server.tool(tool).map(|t| t.input_json())
}

/// `t` as an RFC 3339 UTC timestamp with milliseconds (`2026-07-28T12:00:00.000Z`), the
/// form MCP's task timestamps use.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// let t = UNIX_EPOCH + Duration::from_millis(1_785_240_000_123);
/// assert_eq!(toolschema::mcp::transport::rfc3339(t), "2026-07-28T12:00:00.123Z");
/// ```
pub fn rfc3339(t: SystemTime) -> String {
    super::tasks::iso8601(t)
}
