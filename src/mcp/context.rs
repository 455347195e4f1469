//! What a handler knows about its call: protocol version, cancellation, progress, logging.

use super::jsonrpc::Id;
use super::version::ProtocolVersion;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Sends one JSON-RPC message (already serialized) to the client, with the id of the request
/// it answers or relates to (a call's progress and log entries), when there is one: the HTTP
/// transport sends it on that request's stream.
pub(crate) type Sink = Arc<dyn Fn(String, Outgoing, Option<&Id>) + Send + Sync>;

/// What an outgoing message is: a transport short of room may drop notifications, never
/// answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outgoing {
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
    /// The id of the `tools/call` request.
    pub(crate) request: Id,
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
        let params = json!({"level": level.as_str(), "logger": self.tool, "data": message});
        (self.sink)(
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
                .to_string(),
            Outgoing::Notification,
            Some(&self.request),
        );
    }
}
