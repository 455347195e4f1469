//! What a handler knows about its call: protocol version, cancellation, progress, logging,
//! and the requests it may make to the client.

use super::jsonrpc::Id;
use super::talkback::{
    self, ClientRequestError, Outstanding, Reply, check_elicit_answer, check_elicitation,
    check_sampling_answer,
};
use super::tasks::{META_RELATED_TASK, Status};
use super::version::ProtocolVersion;
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Sends one JSON-RPC message (already serialized) to the client, with the id of the request
/// it answers or relates to (a call's progress and log entries), when there is one: the HTTP
/// transport sends it on that request's stream.
pub type Sink = Arc<dyn Fn(String, Outgoing, Option<&Id>) + Send + Sync>;

/// What an outgoing message is: a transport short of room may drop notifications, never
/// answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outgoing {
    /// A response to a request.
    Answer,
    /// A progress or log notification.
    Notification,
}

/// Severity of a `notifications/message` log entry (RFC 5424 levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level's wire name (`"debug"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<LogLevel> {
        [
            LogLevel::Debug,
            LogLevel::Info,
            LogLevel::Notice,
            LogLevel::Warning,
            LogLevel::Error,
            LogLevel::Critical,
            LogLevel::Alert,
            LogLevel::Emergency,
        ]
        .into_iter()
        .find(|l| l.as_str() == s)
    }
}

/// The context of one `tools/call`: handed to the handler next to its arguments.
///
/// Handlers that run long should poll [`is_cancelled`](Self::is_cancelled): a cancelled call's
/// answer is never sent, so stopping early only saves work.
pub struct CallContext {
    pub(crate) version: ProtocolVersion,
    pub(crate) cancelled: Arc<AtomicBool>,
    pub(crate) progress_token: Option<Value>,
    pub(crate) sink: Sink,
    /// The lowest level the client wants; `None` sends nothing.
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) client_info: Option<Value>,
    pub(crate) tool: String,
    /// The way back to the client, when the call came over a connection.
    pub(crate) talk: Option<Talk>,
    /// The id of the `tools/call` request.
    pub(crate) request: Id,
}

/// What a handler needs to make requests to the client.
pub(crate) struct Talk {
    pub(crate) outstanding: Arc<Outstanding>,
    /// The client's declared capabilities (the session's, or the request's at 2026-07-28).
    pub(crate) capabilities: Option<Value>,
    /// The task the call runs as, and how to report its status.
    pub(crate) task: Option<TaskLink>,
    /// At 2026-07-28: the rounds of a multi round-trip call.
    pub(crate) rounds: Option<Mutex<Rounds>>,
}

/// Reports a task's `working` / `input_required` status.
pub(crate) struct TaskLink {
    pub(crate) id: String,
    pub(crate) set_status: Box<dyn Fn(Status) + Send + Sync>,
}

/// A 2026-07-28 call's input requests: the answers the client has given (this round and
/// the earlier ones, from `requestState`), and what this round asks for.
#[derive(Default)]
pub(crate) struct Rounds {
    pub(crate) answers: Map<String, Value>,
    pub(crate) asked: Map<String, Value>,
    pub(crate) count: u64,
    /// The call's [`super::talkback::state_binding`], which its `requestState` carries.
    pub(crate) binding: [u8; 32],
}

impl CallContext {
    /// A context that sends nothing anywhere, for calling a handler directly.
    pub fn detached(version: ProtocolVersion) -> CallContext {
        CallContext {
            version,
            cancelled: Arc::new(AtomicBool::new(false)),
            progress_token: None,
            sink: Arc::new(|_, _, _| {}),
            log_level: None,
            client_info: None,
            tool: String::new(),
            request: Id::null(),
            talk: None,
        }
    }

    /// The protocol revision the client speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// True once the client cancelled this call (`notifications/cancelled`) or the server is
    /// shutting down.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// The flag behind [`is_cancelled`](Self::is_cancelled), to hand to worker threads.
    pub fn cancellation_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancelled)
    }

    /// The client's `Implementation` object (`name`, `version`, ...), when it sent one.
    pub fn client_info(&self) -> Option<&Value> {
        self.client_info.as_ref()
    }

    /// True when the request carried a `progressToken`, so progress reports are delivered.
    pub fn wants_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    /// Sends `notifications/progress` (only when the request carried a `progressToken` and
    /// the call is not cancelled). `progress` should increase with each report.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        if self.is_cancelled() {
            return;
        }
        let mut params = json!({"progressToken": token, "progress": progress});
        if let Some(obj) = params.as_object_mut() {
            if let Some(t) = total {
                obj.insert("total".into(), json!(t));
            }
            if let (Some(m), true) = (message, self.version >= ProtocolVersion::V2025_03_26) {
                obj.insert("message".into(), Value::from(m));
            }
        }
        self.tie_to_task(&mut params);
        (self.sink)(
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
                .to_string(),
            Outgoing::Notification,
            Some(&self.request),
        );
    }

    /// Sends a `notifications/message` log entry to the client, when the client asked for
    /// this level (`logging/setLevel`, or the request's `io.modelcontextprotocol/logLevel`).
    pub fn log(&self, level: LogLevel, message: &str) {
        if self.log_level.is_none_or(|min| level < min) {
            return;
        }
        let mut params = json!({"level": level.as_str(), "logger": self.tool, "data": message});
        self.tie_to_task(&mut params);
        (self.sink)(
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
                .to_string(),
            Outgoing::Notification,
            Some(&self.request),
        );
    }

    /// In a task, every message about it carries the related-task `_meta` (2025-11-25).
    fn tie_to_task(&self, params: &mut Value) {
        let Some(task) = self.talk.as_ref().and_then(|t| t.task.as_ref()) else {
            return;
        };
        if let Some(obj) = params.as_object_mut() {
            let meta = obj.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(META_RELATED_TASK.into(), json!({"taskId": task.id}));
            }
        }
    }

    /// Asks the client to sample an LLM (`sampling/createMessage`, `CreateMessageRequest`
    /// params) and returns its `CreateMessageResult` (`role`, `content`, `model` checked).
    ///
    /// Waits up to `timeout`, and ends early when the call is cancelled. In a task, the
    /// request carries the task's related-task `_meta` and the task shows `input_required`
    /// meanwhile. At protocol 2026-07-28 see [`ClientRequestError::InputRequired`].
    ///
    /// # Errors
    /// See [`ClientRequestError`]; the client must have declared `sampling`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolschema::mcp::{CallToolResult, Tool};
    /// let ask = Tool::builder("ask")
    ///     .handler(|_, ctx| {
    ///         let answer = ctx.create_message(
    ///             serde_json::json!({"messages": [{"role": "user",
    ///                 "content": {"type": "text", "text": "Say hi"}}], "maxTokens": 20}),
    ///             Duration::from_secs(60),
    ///         )?;
    ///         Ok(CallToolResult::text(answer["content"]["text"].as_str().unwrap_or_default()))
    ///     })
    ///     .build()?;
    /// # Ok::<(), toolschema::mcp::ToolError>(())
    /// ```
    pub fn create_message(
        &self,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientRequestError> {
        let answer = self.request("sampling/createMessage", params, timeout)?;
        check_sampling_answer(&answer)?;
        Ok(answer)
    }

    /// Asks the user for input through the client (`elicitation/create`) and returns its
    /// `ElicitResult` (`action`, and `content` when accepted).
    ///
    /// Before anything is sent, a form's `requestedSchema` is checked against the
    /// restricted subset the spec allows at the negotiated version (a flat object of
    /// string, number, boolean and enum properties) and compiled; accepted content is
    /// validated against it. URL mode (`"mode": "url"`, 2025-11-25) needs the client's
    /// `elicitation.url` capability.
    ///
    /// # Errors
    /// See [`ClientRequestError`]: [`InvalidRequest`](ClientRequestError::InvalidRequest)
    /// and [`InvalidAnswer`](ClientRequestError::InvalidAnswer) list locations, never
    /// values.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolschema::mcp::{CallContext, ClientRequestError, ProtocolVersion};
    /// let ctx = CallContext::detached(ProtocolVersion::V2025_11_25);
    /// // A nested object is not a form field: refused before anything is sent.
    /// let asked = ctx.elicit(serde_json::json!({"message": "Address?", "requestedSchema":
    ///     {"type": "object", "properties": {"address": {"type": "object"}}}}), Duration::from_secs(1));
    /// assert!(matches!(asked, Err(ClientRequestError::InvalidRequest(_))));
    /// ```
    pub fn elicit(&self, params: Value, timeout: Duration) -> Result<Value, ClientRequestError> {
        let form = check_elicitation(&params, self.version)?;
        let answer = self.request("elicitation/create", params, timeout)?;
        check_elicit_answer(&answer, form.as_ref())?;
        Ok(answer)
    }

    /// Sends any request to the client and returns its result object (unchecked beyond
    /// being an object). `sampling/createMessage`, `elicitation/create` and `roots/list`
    /// need the matching client capability.
    ///
    /// # Errors
    /// See [`ClientRequestError`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolschema::mcp::{CallContext, ClientRequestError, ProtocolVersion};
    /// let ctx = CallContext::detached(ProtocolVersion::V2025_06_18);
    /// let roots = ctx.request("ping", serde_json::json!({}), Duration::from_secs(1));
    /// assert_eq!(roots, Err(ClientRequestError::ConnectionClosed));
    /// ```
    pub fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientRequestError> {
        if self.is_cancelled() {
            return Err(ClientRequestError::Cancelled);
        }
        let caps = self.talk.as_ref().and_then(|t| t.capabilities.as_ref());
        talkback::required_capability(method, &params, self.version, caps)?;
        let Some(talk) = &self.talk else {
            return Err(ClientRequestError::ConnectionClosed);
        };
        if !params.is_object() {
            return Err(ClientRequestError::InvalidRequest(vec![
                "params must be an object".into(),
            ]));
        }
        if let Some(rounds) = &talk.rounds {
            // 2026-07-28: no server-to-client requests; the call answers `input_required`.
            let mut r = rounds.lock().unwrap_or_else(|p| p.into_inner());
            r.count += 1;
            let key = format!("toolschema-{}", r.count);
            if let Some(answer) = r.answers.get(&key) {
                return match answer {
                    Value::Object(_) => Ok(answer.clone()),
                    _ => Err(ClientRequestError::InvalidAnswer(vec![format!(
                        "/inputResponses/{key} must be an object"
                    )])),
                };
            }
            r.asked
                .insert(key, json!({"method": method, "params": params}));
            return Err(ClientRequestError::InputRequired);
        }
        let mut params = params;
        self.tie_to_task(&mut params);
        let Some((key, rx)) = talk.outstanding.open() else {
            return Err(ClientRequestError::ConnectionClosed);
        };
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{key},\"method\":{},\"params\":{params}}}",
            Value::from(method)
        );
        if let Some(task) = &talk.task {
            (task.set_status)(Status::InputRequired);
        }
        // A request is never dropped for a slow reader, like an answer.
        (self.sink)(line, Outgoing::Answer, Some(&self.request));
        let deadline = Instant::now() + timeout;
        let outcome = loop {
            let now = Instant::now();
            if self.is_cancelled() || now >= deadline {
                talk.outstanding.forget(&key);
                let (error, reason) = if self.is_cancelled() {
                    (ClientRequestError::Cancelled, "the call was cancelled")
                } else {
                    (ClientRequestError::Timeout, "timed out")
                };
                (self.sink)(
                    format!(
                        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{key},\"reason\":\"{reason}\"}}}}"
                    ),
                    Outgoing::Notification,
                    Some(&self.request),
                );
                break Err(error);
            }
            // Short waits, so that a cancelled call stops waiting promptly.
            match rx.recv_timeout((deadline - now).min(Duration::from_millis(50))) {
                Ok(Reply::Result(v)) if v.is_object() => break Ok(v),
                Ok(Reply::Result(_) | Reply::Garbage) => {
                    break Err(ClientRequestError::InvalidAnswer(vec![
                        "the response is neither a result object nor an error with a code and a message"
                            .into(),
                    ]));
                }
                Ok(Reply::Error { code, message }) => {
                    break Err(ClientRequestError::Rejected { code, message });
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    break Err(ClientRequestError::ConnectionClosed);
                }
            }
        };
        if let Some(task) = &talk.task {
            (task.set_status)(Status::Working);
        }
        outcome
    }
}
