//! JSON-RPC 2.0 error codes and message shapes.

use serde_json::{Value, json};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The message is not a valid request object (also: too large, bad batch).
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters: unknown tool, malformed params, arguments refused before
/// 2025-11-25, a result that breaks the tool's output schema.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error: the handler failed or panicked.
pub const INTERNAL_ERROR: i64 = -32603;
/// Implementation-defined: too many calls in flight on this connection.
pub const SERVER_BUSY: i64 = -32000;
/// The request's `_meta` names a protocol version the server does not serve (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

pub(crate) fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

pub(crate) fn error_with_data(id: &Value, code: i64, message: &str, data: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
}

pub(crate) fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}
