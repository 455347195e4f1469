//! Calling a tool in a test the way a client's transport delivers the call.
//!
//! [`call`] builds the `tools/call` request, serializes it to JSON text and feeds the text to
//! a one-tool server, so the arguments are checked, the handler runs, and the result is
//! checked and rendered exactly as a client would receive it: a test cannot pass on a value
//! no client could send. The assertions panic with a message naming what was expected.
//!
//! ```
//! use toolschema::mcp::{CallToolResult, ProtocolVersion, Tool, testing};
//! use serde_json::json;
//!
//! let tool = Tool::builder("add")
//!     .input_schema(json!({
//!         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!         "required": ["a", "b"]
//!     }))
//!     .output_schema(json!({"properties": {"sum": {"type": "integer"}}, "required": ["sum"]}))
//!     .handler(|args, _ctx| {
//!         let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
//!         Ok(CallToolResult::structured(json!({"sum": sum})))
//!     })
//!     .build()?;
//!
//! let ok = testing::call(&tool, json!({"a": 2, "b": 3}));
//! ok.assert_valid();
//! assert_eq!(ok.assert_structured()["sum"], 5);
//! ok.assert_text("\"sum\":5");
//!
//! // From 2025-11-25 on, refused arguments come back as an error result for the model.
//! testing::call(&tool, json!({"a": "two"}))
//!     .assert_error_matching("/a: ")
//!     .assert_error_matching("missing required property \"b\"");
//! // Older clients get a JSON-RPC error instead.
//! testing::call_at(&tool, ProtocolVersion::V2025_06_18, json!({"a": "two"})).assert_protocol_error(-32602);
//! # Ok::<(), toolschema::mcp::ToolError>(())
//! ```

use super::content::{CallToolResult, Content};
use super::server::Server;
use super::tool::Tool;
use super::version::ProtocolVersion;
use serde_json::{Value, json};

/// Calls `tool` with `arguments` at protocol 2025-11-25 (see [`call_at`]).
pub fn call(tool: &Tool, arguments: Value) -> ToolCall {
    call_at(tool, ProtocolVersion::V2025_11_25, arguments)
}

/// Calls `tool` with `arguments` as a client at `version` would: through JSON text, after
/// the version's handshake (`initialize`, or the per-request `_meta` at 2026-07-28).
pub fn call_at(tool: &Tool, version: ProtocolVersion, arguments: Value) -> ToolCall {
    let server = match Server::builder("toolschema-testing", env!("CARGO_PKG_VERSION"))
        .tool(tool.clone())
        .build()
    {
        Ok(s) => s,
        Err(e) => {
            return ToolCall {
                response: json!({"error": {"code": 0, "message": e.to_string()}}),
            };
        }
    };
    let conn = server.connect(|_| {});
    let mut params = json!({"name": tool.name(), "arguments": arguments});
    if version.uses_handshake() {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version.as_str(), "capabilities": {},
            "clientInfo": {"name": "toolschema-testing", "version": "0"}}});
        let _ = conn.handle_inline(&init.to_string());
    } else if let Some(p) = params.as_object_mut() {
        p.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/protocolVersion": version.as_str(),
                   "io.modelcontextprotocol/clientCapabilities": {}}),
        );
    }
    let request =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let response = conn.handle_inline(&request).unwrap_or(Value::Null);
    ToolCall { response }
}

/// The answer to one call, as the client received it.
#[derive(Debug, Clone)]
pub struct ToolCall {
    response: Value,
}

impl ToolCall {
    /// The whole JSON-RPC response.
    pub fn response(&self) -> &Value {
        &self.response
    }

    /// The `CallToolResult`, when the call was answered with a result.
    pub fn result(&self) -> Option<CallToolResult> {
        self.response
            .get("result")
            .and_then(|r| CallToolResult::from_value(r).ok())
    }

    /// The JSON-RPC error code, when the call was answered with an error.
    pub fn error_code(&self) -> Option<i64> {
        self.response
            .get("error")
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64)
    }

    fn expect_result(&self) -> CallToolResult {
        match self.result() {
            Some(r) => r,
            None => panic!("expected a tool result, got {}", self.response),
        }
    }

    /// Asserts a well-formed, successful result (not `isError`, not a protocol error).
    ///
    /// # Panics
    /// Otherwise.
    #[track_caller]
    pub fn assert_valid(&self) -> &ToolCall {
        let r = self.expect_result();
        assert!(
            !r.is_error(),
            "expected a successful result, got an error result: {}",
            self.response
        );
        self
    }

    /// Asserts a text block containing `needle`.
    ///
    /// # Panics
    /// When no text block contains it.
    #[track_caller]
    pub fn assert_text(&self, needle: &str) -> &ToolCall {
        let r = self.expect_result();
        let found = mentions(&r, needle);
        assert!(
            found,
            "expected a text block containing {needle:?}, got {}",
            self.response
        );
        self
    }

    /// Asserts `structuredContent` is present and returns it.
    ///
    /// # Panics
    /// When it is absent.
    #[track_caller]
    pub fn assert_structured(&self) -> Value {
        match self.expect_result().structured_content() {
            Some(v) => v.clone(),
            None => panic!("expected structuredContent, got {}", self.response),
        }
    }

    /// Asserts an image block.
    ///
    /// # Panics
    /// When there is none.
    #[track_caller]
    pub fn assert_image(&self) -> &ToolCall {
        let found = self
            .expect_result()
            .content()
            .iter()
            .any(|c| c.kind() == "image");
        assert!(found, "expected an image block, got {}", self.response);
        self
    }

    /// Asserts an error result (`isError: true`) whose text contains `needle`.
    ///
    /// # Panics
    /// When the result is not an error result, or no text block contains `needle`.
    #[track_caller]
    pub fn assert_error_matching(&self, needle: &str) -> &ToolCall {
        let r = self.expect_result();
        assert!(
            r.is_error(),
            "expected an error result, got {}",
            self.response
        );
        let found = mentions(&r, needle);
        assert!(
            found,
            "expected an error result mentioning {needle:?}, got {}",
            self.response
        );
        self
    }

    /// Asserts a JSON-RPC error with that code.
    ///
    /// # Panics
    /// When the response is not that error.
    #[track_caller]
    pub fn assert_protocol_error(&self, code: i64) -> &ToolCall {
        assert_eq!(
            self.error_code(),
            Some(code),
            "expected JSON-RPC error {code}, got {}",
            self.response
        );
        self
    }
}

/// Whether a text block of `result` contains `needle`.
fn mentions(result: &CallToolResult, needle: &str) -> bool {
    result
        .content()
        .iter()
        .filter_map(Content::as_text)
        .any(|t| t.contains(needle))
}
