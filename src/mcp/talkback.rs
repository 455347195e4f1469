//! Requests from a handler to the client: sampling, elicitation, any other method.
//!
//! Before 2026-07-28 they are JSON-RPC requests the server sends while the call runs, the
//! client's responses routed back by id. At 2026-07-28 the server sends no requests
//! (SEP-2322, multi round-trip requests): the call is answered with an `input_required`
//! result naming what it needs, and the client retries it with the answers.

use super::version::ProtocolVersion;
use crate::{Options, Schema};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, OnceLock};

/// Why a request from a handler to the client gave no usable answer.
///
/// ```
/// use std::time::Duration;
/// use toolschema::mcp::{CallContext, ClientRequestError, ProtocolVersion};
///
/// // A context outside any connection cannot reach a client.
/// let ctx = CallContext::detached(ProtocolVersion::V2025_11_25);
/// let asked = ctx.create_message(serde_json::json!({"messages": [], "maxTokens": 10}), Duration::from_secs(1));
/// assert!(matches!(asked, Err(ClientRequestError::MissingCapability { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientRequestError {
    /// The client did not declare the capability the method needs (`sampling`,
    /// `elicitation`, `elicitation.url`), or its protocol version has no such method.
    MissingCapability {
        /// The capability, as a dotted path (`"sampling"`, `"elicitation.url"`).
        capability: &'static str,
    },
    /// No answer came in time; the server sent `notifications/cancelled` for the request.
    Timeout,
    /// The call itself was cancelled (or the server is shutting down) while it waited.
    Cancelled,
    /// The client answered with a JSON-RPC error.
    Rejected {
        /// The error's code.
        code: i64,
        /// The error's message, cut to 256 characters.
        message: String,
    },
    /// The connection closed before the answer came.
    ConnectionClosed,
    /// The request breaks the protocol's rules (for elicitation: the requested schema is
    /// not the flat object of primitive properties the spec allows). Each entry names a
    /// location, never a value.
    InvalidRequest(Vec<String>),
    /// The client's answer breaks the protocol's rules (for elicitation: accepted content
    /// that does not match the requested schema). Each entry names a location, never a
    /// value.
    InvalidAnswer(Vec<String>),
    /// Protocol 2026-07-28: the request was handed to the client as part of an
    /// `input_required` result, and the handler will run again, with the answer, when the
    /// client retries the call. Return this error from the handler (`?` does it); whatever
    /// the handler returns instead is dropped.
    InputRequired,
}

impl fmt::Display for ClientRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientRequestError::MissingCapability { capability } => {
                write!(f, "the client does not offer the {capability} capability")
            }
            ClientRequestError::Timeout => f.write_str("the client did not answer in time"),
            ClientRequestError::Cancelled => f.write_str("the call was cancelled"),
            ClientRequestError::Rejected { code, message } => {
                write!(f, "the client answered with error {code}: {message}")
            }
            ClientRequestError::ConnectionClosed => f.write_str("the connection closed"),
            ClientRequestError::InvalidRequest(e) => {
                write!(f, "invalid request to the client: {}", e.join("; "))
            }
            ClientRequestError::InvalidAnswer(e) => {
                write!(f, "invalid answer from the client: {}", e.join("; "))
            }
            ClientRequestError::InputRequired => f.write_str(
                "input required: the client answers when it retries the call (2026-07-28)",
            ),
        }
    }
}

impl std::error::Error for ClientRequestError {}

/// What came back for one outgoing request.
pub(crate) enum Reply {
    Result(Value),
    Error { code: i64, message: String },
    Garbage,
}

/// How many stray responses are reported on stderr per connection.
const MAX_STRAY_REPORTS: u32 = 8;

/// The requests a connection has sent to its client and not yet seen answered.
#[derive(Default)]
pub(crate) struct Outstanding {
    state: Mutex<OutstandingState>,
}

#[derive(Default)]
struct OutstandingState {
    next: u64,
    waiting: HashMap<String, SyncSender<Reply>>,
    closed: bool,
    strays: u32,
}

impl Outstanding {
    fn lock(&self) -> std::sync::MutexGuard<'_, OutstandingState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A fresh id (its JSON text and its key) and the channel its answer arrives on; `None`
    /// once the connection is closed. The ids are strings with a prefix no number and no
    /// other connection uses, so they never collide with each other; the client's own ids
    /// live in the other direction.
    pub(crate) fn open(&self) -> Option<(String, Receiver<Reply>)> {
        let mut s = self.lock();
        if s.closed {
            return None;
        }
        s.next += 1;
        let key = format!("\"toolschema-{}\"", s.next);
        let (tx, rx) = sync_channel(1);
        s.waiting.insert(key.clone(), tx);
        Some((key, rx))
    }

    /// Forgets a request (answered elsewhere, timed out, cancelled).
    pub(crate) fn forget(&self, key: &str) {
        self.lock().waiting.remove(key);
    }

    /// Routes a response by its id's key; a response nobody waits for is reported (a
    /// few times per connection) and dropped.
    pub(crate) fn deliver(&self, key: &str, reply: Reply) {
        let mut s = self.lock();
        match s.waiting.remove(key) {
            Some(tx) => {
                let _ = tx.try_send(reply);
            }
            None => {
                s.strays += 1;
                if s.strays <= MAX_STRAY_REPORTS {
                    let shown: String = key.chars().take(64).collect();
                    eprintln!(
                        "toolschema mcp: ignoring a response to no request of ours (id {shown})"
                    );
                    if s.strays == MAX_STRAY_REPORTS {
                        eprintln!(
                            "toolschema mcp: further stray responses on this connection are ignored silently"
                        );
                    }
                }
            }
        }
    }

    /// The connection is closing: every waiting request ends with `ConnectionClosed`.
    pub(crate) fn close(&self) {
        let mut s = self.lock();
        s.closed = true;
        s.waiting.clear();
    }
}

/// The capability a method needs, by the client's capabilities; `Err` names the missing one.
pub(crate) fn required_capability(
    method: &str,
    params: &Value,
    version: ProtocolVersion,
    caps: Option<&Value>,
) -> Result<(), ClientRequestError> {
    let has = |path: &[&str]| {
        let mut v = caps;
        for p in path {
            v = v.and_then(|c| c.get(*p));
        }
        v.is_some_and(|v| !v.is_null())
    };
    let missing = |capability| Err(ClientRequestError::MissingCapability { capability });
    match method {
        "sampling/createMessage" if !has(&["sampling"]) => missing("sampling"),
        "elicitation/create" => {
            if version < ProtocolVersion::V2025_06_18 || !has(&["elicitation"]) {
                return missing("elicitation");
            }
            let url = params.get("mode").and_then(Value::as_str) == Some("url");
            if url && (version < ProtocolVersion::V2025_11_25 || !has(&["elicitation", "url"])) {
                return missing("elicitation.url");
            }
            // Since 2025-11-25 an empty `elicitation` object means form mode; a client that
            // lists only `url` offers no forms.
            let elicitation = caps.and_then(|c| c.get("elicitation"));
            let form_declared = elicitation
                .and_then(Value::as_object)
                .is_none_or(|o| o.is_empty() || o.contains_key("form"));
            if !url && version >= ProtocolVersion::V2025_11_25 && !form_declared {
                return missing("elicitation.form");
            }
            Ok(())
        }
        "roots/list" if !has(&["roots"]) => missing("roots"),
        _ => Ok(()),
    }
}

/// The spec's rules for a form's `requestedSchema`, at `version` (2025-06-18 has four
/// kinds of property; 2025-11-25 adds defaults and the SEP-1330 enum forms).
fn requested_schema_rules(version: ProtocolVersion) -> &'static Schema {
    static V2025_06: OnceLock<Schema> = OnceLock::new();
    static V2025_11: OnceLock<Schema> = OnceLock::new();
    let string_list = json!({"type": "array", "items": {"type": "string"}});
    let titled = json!({"type": "array", "items": {"type": "object",
        "properties": {"const": {"type": "string"}, "title": {"type": "string"}},
        "required": ["const", "title"]}});
    let object = |props: Value, required: Value| {
        let mut p = props;
        p["title"] = json!({"type": "string"});
        p["description"] = json!({"type": "string"});
        json!({"type": "object", "properties": p, "required": required})
    };
    let build = |kinds: Vec<Value>| -> Schema {
        let rules = json!({
            "type": "object",
            "properties": {
                "$schema": {"type": "string"},
                "type": {"const": "object"},
                "properties": {"type": "object", "additionalProperties": {"anyOf": kinds}},
                "required": string_list,
            },
            "required": ["type", "properties"],
        });
        // A fixed schema: it compiles, or the crate is broken.
        Options::new()
            .compile(&rules)
            .unwrap_or_else(|e| panic!("the elicitation rules do not compile: {e}"))
    };
    if version < ProtocolVersion::V2025_11_25 {
        return V2025_06.get_or_init(|| {
            build(vec![
                object(
                    json!({"type": {"const": "string"}, "minLength": {"type": "integer"},
                        "maxLength": {"type": "integer"},
                        "format": {"enum": ["email", "uri", "date", "date-time"]}}),
                    json!(["type"]),
                ),
                object(
                    json!({"type": {"enum": ["number", "integer"]}, "minimum": {"type": "number"},
                        "maximum": {"type": "number"}}),
                    json!(["type"]),
                ),
                object(
                    json!({"type": {"const": "boolean"}, "default": {"type": "boolean"}}),
                    json!(["type"]),
                ),
                object(
                    json!({"type": {"const": "string"}, "enum": string_list, "enumNames": string_list}),
                    json!(["type", "enum"]),
                ),
            ])
        });
    }
    V2025_11.get_or_init(|| {
        build(vec![
            object(
                json!({"type": {"const": "string"}, "minLength": {"type": "integer"},
                    "maxLength": {"type": "integer"},
                    "format": {"enum": ["email", "uri", "date", "date-time"]},
                    "default": {"type": "string"}}),
                json!(["type"]),
            ),
            object(
                json!({"type": {"enum": ["number", "integer"]}, "minimum": {"type": "number"},
                    "maximum": {"type": "number"}, "default": {"type": "number"}}),
                json!(["type"]),
            ),
            object(
                json!({"type": {"const": "boolean"}, "default": {"type": "boolean"}}),
                json!(["type"]),
            ),
            // Single choice: untitled (`enum`), legacy titled (`enumNames`), titled (`oneOf`).
            object(
                json!({"type": {"const": "string"}, "enum": string_list, "enumNames": string_list,
                    "default": {"type": "string"}}),
                json!(["type", "enum"]),
            ),
            object(
                json!({"type": {"const": "string"}, "oneOf": titled, "default": {"type": "string"}}),
                json!(["type", "oneOf"]),
            ),
            // Multiple choice: untitled (`items.enum`) and titled (`items.anyOf`).
            object(
                json!({"type": {"const": "array"}, "minItems": {"type": "integer"},
                    "maxItems": {"type": "integer"}, "default": string_list,
                    "items": {"type": "object", "properties": {"type": {"const": "string"},
                        "enum": string_list}, "required": ["type", "enum"]}}),
                json!(["type", "items"]),
            ),
            object(
                json!({"type": {"const": "array"}, "minItems": {"type": "integer"},
                    "maxItems": {"type": "integer"}, "default": string_list,
                    "items": {"type": "object", "properties": {"anyOf": titled},
                        "required": ["anyOf"]}}),
                json!(["type", "items"]),
            ),
        ])
    })
}

/// The most problems listed in one error.
const MAX_PROBLEMS: usize = 20;

fn problems(schema: &Schema, instance: &Value, prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = schema
        .iter_errors(instance)
        .take(MAX_PROBLEMS)
        .map(|e| format!("{prefix}{e}"))
        .collect();
    if out.len() == MAX_PROBLEMS {
        out.push("(more problems not shown)".into());
    }
    out
}

/// Checks an `elicitation/create` request; answers the compiled requested schema of a form
/// (none for URL mode).
pub(crate) fn check_elicitation(
    params: &Value,
    version: ProtocolVersion,
) -> Result<Option<Schema>, ClientRequestError> {
    let invalid = |m: &str| Err(ClientRequestError::InvalidRequest(vec![m.to_string()]));
    let Some(obj) = params.as_object() else {
        return invalid("params must be an object");
    };
    if !obj.get("message").is_some_and(Value::is_string) {
        return invalid("/message must be a string");
    }
    if obj.get("mode").and_then(Value::as_str) == Some("url") {
        if !obj.get("url").is_some_and(Value::is_string)
            || !obj.get("elicitationId").is_some_and(Value::is_string)
        {
            return invalid("a URL elicitation needs string \"url\" and \"elicitationId\"");
        }
        return Ok(None);
    }
    let Some(requested) = obj.get("requestedSchema") else {
        return invalid("/requestedSchema is required");
    };
    let rules = requested_schema_rules(version);
    if !rules.is_valid(requested) {
        return Err(ClientRequestError::InvalidRequest(problems(
            rules,
            requested,
            "requestedSchema: ",
        )));
    }
    Options::new()
        .compile(requested)
        .map(Some)
        .map_err(|e| ClientRequestError::InvalidRequest(vec![format!("requestedSchema: {e}")]))
}

/// Checks an `ElicitResult`: a known action, and accepted form content that matches the
/// requested schema.
pub(crate) fn check_elicit_answer(
    answer: &Value,
    form: Option<&Schema>,
) -> Result<(), ClientRequestError> {
    let bad = |m: &str| Err(ClientRequestError::InvalidAnswer(vec![m.to_string()]));
    let action = answer.get("action").and_then(Value::as_str);
    match action {
        Some("decline" | "cancel") => Ok(()),
        Some("accept") => {
            let Some(form) = form else { return Ok(()) };
            let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
            let Some(fields) = content.as_object() else {
                return bad("/content must be an object");
            };
            // The result schema's own rule: flat values only.
            for (k, v) in fields {
                let flat = match v {
                    Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
                    Value::Array(items) => items.iter().all(Value::is_string),
                    _ => false,
                };
                if !flat {
                    let key: String = k.chars().take(64).collect();
                    return bad(&format!(
                        "/content/{key} must be a string, number, boolean or array of strings"
                    ));
                }
            }
            if form.is_valid(&content) {
                Ok(())
            } else {
                Err(ClientRequestError::InvalidAnswer(problems(
                    form,
                    &content,
                    "content: ",
                )))
            }
        }
        _ => bad("/action must be \"accept\", \"decline\" or \"cancel\""),
    }
}

/// Checks a `CreateMessageResult`'s required members.
pub(crate) fn check_sampling_answer(answer: &Value) -> Result<(), ClientRequestError> {
    let mut out = Vec::new();
    if !answer.get("model").is_some_and(Value::is_string) {
        out.push("/model must be a string".to_string());
    }
    if !matches!(
        answer.get("role").and_then(Value::as_str),
        Some("user" | "assistant")
    ) {
        out.push("/role must be \"user\" or \"assistant\"".to_string());
    }
    if !answer
        .get("content")
        .is_some_and(|c| c.is_object() || c.is_array())
    {
        out.push("/content must be an object or an array".to_string());
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(ClientRequestError::InvalidAnswer(out))
    }
}

/// A client's error message, cut for [`ClientRequestError::Rejected`].
pub(crate) fn clip_message(s: &str) -> String {
    s.chars().take(256).collect()
}

/// Reads a response's `error` member.
pub(crate) fn read_error(error: &Value) -> Reply {
    match (
        error.get("code").and_then(Value::as_i64),
        error.get("message").and_then(Value::as_str),
    ) {
        (Some(code), Some(message)) => Reply::Error {
            code,
            message: clip_message(message),
        },
        _ => Reply::Garbage,
    }
}

/// How long a `requestState` stays good: long enough for a person to answer a form, short
/// enough to bound a replay (the draft asks for a short expiry).
pub(crate) const STATE_TTL_SECS: u64 = 600;

/// Length of the HMAC-SHA256 tag that leads a `requestState`.
const TAG_LEN: usize = 32;

/// The key of this process's `requestState` tags: random, made on first use, never written
/// anywhere, so a state outlives neither the server nor a restart.
fn state_key() -> &'static [u8; 32] {
    static KEY: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        let mut key = [0u8; 32];
        if getrandom::fill(&mut key).is_err() {
            // No OS random source: std's per-process hash seeds and the clock are the best
            // left; say so rather than fail every multi round-trip call.
            eprintln!("toolschema mcp: no random source; requestState keys are weak");
            use std::hash::{BuildHasher, Hasher};
            for chunk in key.chunks_mut(8) {
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u128(now_nanos());
                chunk.copy_from_slice(&h.finish().to_le_bytes());
            }
        }
        key
    })
}

fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

pub(crate) fn now_secs() -> u64 {
    (now_nanos() / 1_000_000_000) as u64
}

/// What a `requestState` is bound to: a SHA-256 of the method, the tool's name and its
/// arguments (serialized with sorted keys, as serde_json's map keeps them), each
/// length-prefixed so no two calls give the same bytes. The draft asks for "an identifier for
/// the originating request"; a state minted for one call is refused by any other.
pub(crate) fn state_binding(tool: &str, arguments: &Value) -> [u8; 32] {
    let arguments = serde_json::to_vec(arguments).unwrap_or_default();
    let mut digest = Sha256::new();
    for part in [b"tools/call".as_slice(), tool.as_bytes(), &arguments] {
        digest.update((part.len() as u64).to_be_bytes());
        digest.update(part);
    }
    digest.finalize().into()
}

/// The tag over a state's payload and the call it belongs to.
fn state_tag(binding: &[u8; 32], payload: &[u8]) -> Hmac<Sha256> {
    let mut mac = match Hmac::<Sha256>::new_from_slice(state_key()) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes a key of any length"),
    };
    mac.update(b"toolschema requestState v1");
    mac.update(binding);
    mac.update(payload);
    mac
}

/// The state of a 2026-07-28 call across its rounds: the answers so far, by request key.
/// Carried by the client as the opaque `requestState`: base64url of an HMAC-SHA256 tag and
/// a JSON payload (the answers and an expiry). The draft has servers treat it as
/// attacker-controlled input; the tag binds it to this server process and to the call it
/// was minted for (tool and arguments), so an altered, forged, expired or cross-call state
/// is refused, never read. A state is not single-use: a client may retry the same call with
/// it again, and every answer in it is checked again when it is used.
pub(crate) fn decode_state(state: &str, binding: &[u8; 32]) -> Option<Map<String, Value>> {
    decode_state_at(state, binding, now_secs())
}

fn decode_state_at(state: &str, binding: &[u8; 32], now: u64) -> Option<Map<String, Value>> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(state)
        .ok()?;
    if bytes.len() < TAG_LEN {
        return None;
    }
    let (tag, payload) = bytes.split_at(TAG_LEN);
    state_tag(binding, payload).verify_slice(tag).ok()?;
    let Value::Object(mut payload) = serde_json::from_slice(payload).ok()? else {
        return None;
    };
    if payload.get("exp").and_then(Value::as_u64)? < now {
        return None;
    }
    match payload.remove("answers")? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// The `requestState` for a call (its [`state_binding`]) that has these answers.
pub(crate) fn encode_state(binding: &[u8; 32], answers: &Map<String, Value>) -> String {
    encode_state_at(binding, answers, now_secs())
}

fn encode_state_at(binding: &[u8; 32], answers: &Map<String, Value>, now: u64) -> String {
    use base64::Engine;
    let payload = serde_json::json!({"exp": now + STATE_TTL_SECS, "answers": answers}).to_string();
    let tag = state_tag(binding, payload.as_bytes())
        .finalize()
        .into_bytes();
    let mut bytes = Vec::with_capacity(TAG_LEN + payload.len());
    bytes.extend_from_slice(&tag);
    bytes.extend_from_slice(payload.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod state_tests {
    use super::*;
    use serde_json::json;

    fn params(name: &str, arguments: Value) -> [u8; 32] {
        state_binding(name, &arguments)
    }

    fn answers() -> Map<String, Value> {
        match json!({"toolschema-1": {"action": "accept", "content": {"a": "apple"}}}) {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_state_round_trips_for_its_own_call_only() {
        let call = params("two", json!({"x": 1, "y": [true]}));
        let state = encode_state_at(&call, &answers(), 1000);
        assert_eq!(decode_state_at(&state, &call, 1000), Some(answers()));
        assert_eq!(
            decode_state_at(&state, &call, 1000 + STATE_TTL_SECS),
            Some(answers())
        );
        // Expired.
        assert_eq!(decode_state_at(&state, &call, 1001 + STATE_TTL_SECS), None);
        // Another tool, other arguments, no arguments.
        assert_eq!(
            decode_state_at(&state, &params("one", json!({"x": 1, "y": [true]})), 1000),
            None
        );
        assert_eq!(
            decode_state_at(&state, &params("two", json!({"x": 2, "y": [true]})), 1000),
            None
        );
        assert_eq!(
            decode_state_at(&state, &params("two", Value::Null), 1000),
            None
        );
    }

    #[test]
    fn an_altered_or_forged_state_is_refused() {
        use base64::Engine;
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let call = params("two", json!({}));
        let state = encode_state_at(&call, &answers(), 1000);
        let bytes = engine.decode(&state).unwrap();
        // Any one byte flipped, in the tag or the payload.
        for i in [0, TAG_LEN - 1, TAG_LEN, bytes.len() - 1] {
            let mut altered = bytes.clone();
            altered[i] ^= 1;
            assert_eq!(
                decode_state_at(&engine.encode(&altered), &call, 1000),
                None,
                "byte {i}"
            );
        }
        // The old unprotected form, a payload with a made-up tag, truncated, not base64.
        let bare = engine.encode(Value::Object(answers()).to_string());
        assert_eq!(decode_state_at(&bare, &call, 1000), None);
        let mut forged = vec![0u8; TAG_LEN];
        forged.extend_from_slice(&bytes[TAG_LEN..]);
        assert_eq!(decode_state_at(&engine.encode(&forged), &call, 1000), None);
        assert_eq!(
            decode_state_at(&engine.encode(&bytes[..TAG_LEN - 1]), &call, 1000),
            None
        );
        assert_eq!(decode_state_at("%%%", &call, 1000), None);
    }
}
