//! JSON-RPC 2.0 error codes and message shapes.

use serde_json::{Value, json};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The message is not a valid request object (also: too large, bad batch).
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters: unknown tool, malformed or unreadable params, a 2026-07-28
/// `_meta` missing a required field, arguments refused before 2025-11-25.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error: the handler failed or panicked.
pub const INTERNAL_ERROR: i64 = -32603;
/// Implementation-defined: too many requests in flight on this connection, or too much
/// memory held by them.
pub const SERVER_BUSY: i64 = -32000;
/// The request's `_meta` names a protocol version the server does not serve (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

#[allow(dead_code)] // Value-shaped answers, for code that builds messages as values.
pub(crate) fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[allow(dead_code)] // Value-shaped answers, for code that builds messages as values.
pub(crate) fn error_with_data(id: &Value, code: i64, message: &str, data: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
}

#[allow(dead_code)] // Value-shaped answers, for code that builds messages as values.
pub(crate) fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A request id exactly as the client wrote it: the JSON text of a string or a number,
/// echoed byte for byte (`100000000000000000001` stays an integer, `1e2` stays `1e2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Id {
    raw: std::sync::Arc<str>,
    /// The identity of the id: strings by their value (`"\u0061"` is `"a"`), numbers by
    /// their text.
    key: std::sync::Arc<str>,
}

impl Id {
    /// The `null` id of an answer to a message whose id cannot be read.
    pub(crate) fn null() -> Id {
        let null: std::sync::Arc<str> = "null".into();
        Id {
            raw: null.clone(),
            key: null,
        }
    }

    /// The id, when `raw` is a string or a number.
    pub(crate) fn parse(raw: &serde_json::value::RawValue) -> Option<Id> {
        let text = raw.get().trim();
        let key: std::sync::Arc<str> = match text.as_bytes().first()? {
            b'"' => {
                let s: String = serde_json::from_str(text).ok()?;
                serde_json::to_string(&s).ok()?.into()
            }
            b'-' | b'0'..=b'9' => text.into(),
            _ => return None,
        };
        Some(Id {
            raw: text.into(),
            key,
        })
    }

    pub(crate) fn key(&self) -> &str {
        &self.key
    }

    pub(crate) fn raw(&self) -> &str {
        &self.raw
    }
}

/// A result response, as one line of JSON.
pub(crate) fn result_line(id: &Id, result: &Value) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{result}}}",
        id.raw()
    )
}

/// An error response, as one line of JSON.
pub(crate) fn error_line(id: &Id, code: i64, message: &str, data: Option<&Value>) -> String {
    let mut error = json!({"code": code, "message": message});
    if let (Some(d), Some(obj)) = (data, error.as_object_mut()) {
        obj.insert("data".into(), d.clone());
    }
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{error}}}",
        id.raw()
    )
}
