//! Prometheus metrics for the contract proxy and `serve`, in the text format Prometheus
//! scrapes (OpenMetrics, encoded by the `prometheus-client` crate).
//!
//! Names follow the OpenTelemetry semantic conventions for MCP as the OpenTelemetry
//! Prometheus exporter writes them (dots become underscores, the unit a suffix):
//!
//! | series | what |
//! | --- | --- |
//! | `mcp_server_operation_duration_seconds` (histogram) | each client request, from the moment it arrived to its answer leaving; labels `mcp_method_name`, `gen_ai_tool_name` (for `tools/call`), `error_type` (the JSON-RPC error code, or `tool_error` for an `isError` result; absent on success) |
//! | `toolschema_proxy_contract_violations_total` | each failed check reported, labels `direction` (`arguments` or `result`) and `keyword` (`minLength`, `required`, ...) |
//! | `toolschema_proxy_oversized_messages_total` | messages over the size limits, label `from` (`client` or `server`) |
//! | `toolschema_proxy_refused_messages_total` | what the proxy refused without forwarding, label `reason` (`contract`, `unreadable`, `policy`, `pin`) and `from` |
//! | `toolschema_proxy_pin_mismatches_total` | tool listings whose definition differs from its pin (label `gen_ai_tool_name`) |
//! | `toolschema_proxy_upstream_restarts_total` | the pooled server (stateless requests) started again after it died |
//!
//! Label values that a peer chooses (the method and tool names a client sends, the error
//! codes and keywords) are bounded, so that a client sending 100,000 made-up tool names
//! cannot grow the series without end: each such label keeps the first distinct values it
//! sees ([`MAX_LABEL_VALUES`] tool names; 100 methods, 100 keywords, 50 error types), of at
//! most [`MAX_LABEL_LEN`] bytes, and counts every later or longer one under [`OTHER`] (the
//! OpenTelemetry conventions' name for values outside a known set).
//!
//! ```
//! use toolschema_http::metrics::Metrics;
//! let metrics = Metrics::new();
//! metrics.observe_operation("tools/call", Some("echo"), None, std::time::Duration::from_millis(3));
//! let text = metrics.encode();
//! assert!(text.contains("mcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/call\",gen_ai_tool_name=\"echo\"} 1"));
//! ```

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Method, Request, Response, StatusCode};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// A metric's labels, in order; a label with no value is left out.
type Labels = Vec<(&'static str, String)>;
type HistogramFamily = Family<Labels, Histogram, fn() -> Histogram>;

/// The bucket bounds the MCP semantic conventions advise for operation durations, in seconds.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The value a bounded label takes past its limits (see the [module](self) documentation).
pub const OTHER: &str = "_OTHER";
/// The distinct tool names the tool label keeps before counting under [`OTHER`].
pub const MAX_LABEL_VALUES: usize = 1000;
/// The longest label value kept (in bytes); a longer one is counted under [`OTHER`].
pub const MAX_LABEL_LEN: usize = 256;

/// The values one peer-chosen label has taken, and how many it may take.
struct Bounded(Mutex<HashSet<String>>, usize);

impl Bounded {
    fn new(max: usize) -> Bounded {
        Bounded(Mutex::new(HashSet::new()), max)
    }

    /// `value` itself while the label has room for it, else [`OTHER`].
    fn label(&self, value: &str) -> String {
        if value.len() > MAX_LABEL_LEN {
            return OTHER.to_string();
        }
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if seen.contains(value) {
            return value.to_string();
        }
        if seen.len() >= self.1 {
            return OTHER.to_string();
        }
        seen.insert(value.to_string());
        value.to_string()
    }
}

fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// The metrics of one process (every session of a proxy, or a `serve`), cheap to update
/// from any thread.
pub struct Metrics {
    registry: Registry,
    operations: HistogramFamily,
    violations: Family<Labels, Counter>,
    oversized: Family<Labels, Counter>,
    refused: Family<Labels, Counter>,
    pin_mismatches: Family<Labels, Counter>,
    restarts: Counter,
    methods: Bounded,
    tools: Bounded,
    error_types: Bounded,
    keywords: Bounded,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Every series registered, none observed yet.
    pub fn new() -> Arc<Metrics> {
        let mut registry = Registry::default();
        let operations = HistogramFamily::new_with_constructor(duration_histogram);
        registry.register_with_unit(
            "mcp_server_operation_duration",
            "MCP request duration as the client sees it (mcp.server.operation.duration)",
            Unit::Seconds,
            operations.clone(),
        );
        let violations = Family::<Labels, Counter>::default();
        registry.register(
            "toolschema_proxy_contract_violations",
            "Failed schema checks by direction (arguments, result) and keyword",
            violations.clone(),
        );
        let oversized = Family::<Labels, Counter>::default();
        registry.register(
            "toolschema_proxy_oversized_messages",
            "Messages over the proxy's size limits, by sender",
            oversized.clone(),
        );
        let refused = Family::<Labels, Counter>::default();
        registry.register(
            "toolschema_proxy_refused_messages",
            "Messages answered or dropped by the proxy instead of forwarded, by reason",
            refused.clone(),
        );
        let pin_mismatches = Family::<Labels, Counter>::default();
        registry.register(
            "toolschema_proxy_pin_mismatches",
            "Listed tools whose definition differs from the pinned digest",
            pin_mismatches.clone(),
        );
        let restarts = Counter::default();
        registry.register(
            "toolschema_proxy_upstream_restarts",
            "Times the pooled server child was started again after it died",
            restarts.clone(),
        );
        Arc::new(Metrics {
            registry,
            operations,
            violations,
            oversized,
            refused,
            pin_mismatches,
            restarts,
            methods: Bounded::new(100),
            tools: Bounded::new(MAX_LABEL_VALUES),
            error_types: Bounded::new(50),
            keywords: Bounded::new(100),
        })
    }

    /// Records one operation: its method, tool (for `tools/call`), error type (`None` on
    /// success) and how long it took. (Each label bounded: see the [module](self)
    /// documentation.)
    pub fn observe_operation(
        &self,
        method: &str,
        tool: Option<&str>,
        error_type: Option<&str>,
        took: Duration,
    ) {
        let mut labels: Labels = vec![("mcp_method_name", self.methods.label(method))];
        if let Some(t) = tool {
            labels.push(("gen_ai_tool_name", self.tools.label(t)));
        }
        if let Some(e) = error_type {
            labels.push(("error_type", self.error_types.label(e)));
        }
        self.operations
            .get_or_create(&labels)
            .observe(took.as_secs_f64());
    }

    /// Counts one failed check.
    pub fn count_violation(&self, direction: &str, keyword: &str) {
        self.violations
            .get_or_create(&vec![
                ("direction", direction.to_string()),
                ("keyword", self.keywords.label(keyword)),
            ])
            .inc();
    }

    /// Counts one oversized message from `from` (`client` or `server`).
    pub fn count_oversized(&self, from: &str) {
        self.oversized
            .get_or_create(&vec![("from", from.to_string())])
            .inc();
    }

    /// Counts one message refused for `reason`, sent by `from`.
    pub fn count_refused(&self, from: &str, reason: &str) {
        self.refused
            .get_or_create(&vec![
                ("from", from.to_string()),
                ("reason", reason.to_string()),
            ])
            .inc();
    }

    /// Counts one listing of `tool` whose definition differs from its pin.
    pub fn count_pin_mismatch(&self, tool: &str) {
        self.pin_mismatches
            .get_or_create(&vec![("gen_ai_tool_name", self.tools.label(tool))])
            .inc();
    }

    /// Counts one restart of the pooled server.
    pub fn count_restart(&self) {
        self.restarts.inc();
    }

    /// The exposition text (OpenMetrics, as Prometheus scrapes it).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // (Writing to a String cannot fail.)
        let _ = encode(&mut out, &self.registry);
        out
    }

    /// The content type of [`encode`](Self::encode)'s text.
    pub const CONTENT_TYPE: &'static str =
        "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /// Serves `GET /metrics` on `addr` from a thread of its own (any other path is 404);
    /// returns the address bound (port 0 picks one).
    ///
    /// # Errors
    /// When the address cannot be bound or the thread cannot start.
    pub fn serve(self: &Arc<Metrics>, addr: &str) -> io::Result<SocketAddr> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let bound = listener.local_addr()?;
        let metrics = Arc::clone(self);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("metrics".into())
            .spawn(move || runtime.block_on(serve_loop(listener, metrics)))?;
        Ok(bound)
    }

    /// The reply to an HTTP request for the metrics (`GET` or `HEAD`; 405 otherwise).
    pub(crate) fn reply(&self, method: &Method) -> Response<Full<Bytes>> {
        let mut r = match *method {
            Method::GET | Method::HEAD => Response::new(Full::new(Bytes::from(self.encode()))),
            _ => {
                let mut r = Response::new(Full::new(Bytes::new()));
                *r.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
                return r;
            }
        };
        r.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static(Metrics::CONTENT_TYPE),
        );
        r
    }
}

async fn serve_loop(listener: std::net::TcpListener, metrics: Arc<Metrics>) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        eprintln!("toolschema: the metrics listener cannot start");
        return;
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let metrics = Arc::clone(&metrics);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                let reply = if req.uri().path() == "/metrics" {
                    metrics.reply(req.method())
                } else {
                    let mut r = Response::new(Full::new(Bytes::new()));
                    *r.status_mut() = StatusCode::NOT_FOUND;
                    r
                };
                async move { Ok::<_, std::convert::Infallible>(reply) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(io, service);
            let _ = tokio::time::timeout(Duration::from_secs(60), conn).await;
        });
    }
}

/// The most requests a session tracks at once (a client that never waits for its answers
/// cannot grow the table past this; later ones go unmeasured until some are answered).
const MAX_TRACKED: usize = 4096;

/// One request on its way.
struct Op {
    method: String,
    tool: Option<String>,
    /// The trace id of the client's `traceparent`.
    trace: Option<String>,
    /// The client's `traceparent` and `tracestate`, for the span (with tracing).
    context: Option<(String, Option<String>)>,
    since: Instant,
    wall: SystemTime,
}

/// The requests of one session on their way, for their durations and for the trace id
/// their reports carry.
pub(crate) struct Tracker {
    metrics: Option<Arc<Metrics>>,
    tracing: Option<Arc<crate::trace::Tracing>>,
    ops: Mutex<HashMap<String, Op>>,
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    /// Read on its own ([`Head::params`]): a member of an odd type in it must not hide
    /// the request from the metrics.
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<HeadError<'a>>,
    #[serde(default)]
    result: Option<HeadResult>,
}

impl<'a> Head<'a> {
    /// The params' tool name and trace context, each read when it reads (a `_meta` that
    /// is not an object leaves the name readable).
    fn params(&self) -> Option<HeadParams<'a>> {
        #[derive(Deserialize)]
        struct NameOnly<'a> {
            #[serde(borrow, default)]
            name: Option<Cow<'a, str>>,
        }
        let raw = self.params?.get();
        serde_json::from_str::<HeadParams<'a>>(raw)
            .ok()
            .or_else(|| {
                let n = serde_json::from_str::<NameOnly<'a>>(raw).ok()?;
                Some(HeadParams {
                    name: n.name,
                    meta: None,
                })
            })
    }
}

#[derive(Deserialize)]
struct HeadParams<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<HeadMeta<'a>>,
}

#[derive(Deserialize)]
struct HeadMeta<'a> {
    #[serde(borrow, default)]
    traceparent: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tracestate: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct HeadError<'a> {
    #[serde(borrow, default)]
    code: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct HeadResult {
    #[serde(default, rename = "isError")]
    is_error: Option<Value>,
}

/// The trace id of a W3C `traceparent` (`00-TRACEID-PARENTID-FLAGS`), when well formed and
/// not all zeros.
pub fn trace_id(traceparent: &str) -> Option<&str> {
    let mut parts = traceparent.trim().split('-');
    let version = parts.next()?;
    let trace = parts.next()?;
    let parent = parts.next()?;
    let flags = parts.next()?;
    let hex = |s: &str, n: usize| {
        s.len() == n && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let ok = hex(version, 2)
        && version != "ff"
        && hex(trace, 32)
        && trace.bytes().any(|b| b != b'0')
        && hex(parent, 16)
        && hex(flags, 2);
    ok.then_some(trace)
}

/// The key an id is filed under: its JSON text, normalized when it holds escapes.
fn key(id: &RawValue) -> String {
    let raw = id.get();
    if raw.contains('\\')
        && let Ok(v) = serde_json::from_str::<Value>(raw)
    {
        return v.to_string();
    }
    raw.to_string()
}

fn error_type(head: &Head<'_>) -> Option<String> {
    if let Some(e) = &head.error {
        return Some(
            e.code
                .map(|c| c.get().to_string())
                .unwrap_or_else(|| "error".into()),
        );
    }
    match head.result.as_ref().and_then(|r| r.is_error.as_ref()) {
        Some(Value::Bool(true)) => Some("tool_error".into()),
        _ => None,
    }
}

impl Tracker {
    pub(crate) fn new(
        metrics: Option<Arc<Metrics>>,
        tracing: Option<Arc<crate::trace::Tracing>>,
    ) -> Tracker {
        Tracker {
            metrics,
            tracing,
            ops: Mutex::new(HashMap::new()),
        }
    }

    fn ops(&self) -> std::sync::MutexGuard<'_, HashMap<String, Op>> {
        self.ops.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A message from the client: its requests start; the trace id of the message (of a
    /// single one), for what is reported about it.
    pub(crate) fn request_in(&self, text: &[u8]) -> Option<String> {
        if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
            let items: Vec<&RawValue> = serde_json::from_slice(text).ok()?;
            for item in items {
                self.request_in(item.get().as_bytes());
            }
            return None;
        }
        let head: Head = serde_json::from_slice(text).ok()?;
        let params = head.params();
        let meta = params.as_ref().and_then(|p| p.meta.as_ref());
        let traceparent = meta.and_then(|m| m.traceparent.as_deref());
        let trace = traceparent.and_then(trace_id).map(str::to_string);
        if let (Some(id), Some(method)) = (head.id, head.method.as_deref()) {
            let mut ops = self.ops();
            if ops.len() < MAX_TRACKED {
                let tool = match method {
                    "tools/call" => params.as_ref().and_then(|p| p.name.as_deref()),
                    _ => None,
                };
                ops.insert(
                    key(id),
                    Op {
                        method: method.to_string(),
                        tool: tool.map(str::to_string),
                        trace: trace.clone(),
                        context: match (&self.tracing, traceparent) {
                            (Some(_), Some(tp)) => Some((
                                tp.to_string(),
                                meta.and_then(|m| m.tracestate.as_deref())
                                    .map(str::to_string),
                            )),
                            _ => None,
                        },
                        since: Instant::now(),
                        wall: SystemTime::now(),
                    },
                );
            }
        }
        trace
    }

    /// The trace id of the request a server message answers (for what is reported about it).
    pub(crate) fn trace_of_answer(&self, text: &[u8]) -> Option<String> {
        let head: Head = serde_json::from_slice(text).ok()?;
        if head.method.is_some() {
            return None;
        }
        self.ops().get(&key(head.id?))?.trace.clone()
    }

    /// A message on its way to the client (JSON text): the request it answers ends.
    pub(crate) fn to_client(&self, text: &[u8]) {
        if self.metrics.is_none() && self.tracing.is_none() {
            return self.forget(text);
        }
        if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
            if let Ok(items) = serde_json::from_slice::<Vec<&RawValue>>(text) {
                for item in items {
                    self.to_client(item.get().as_bytes());
                }
            }
            return;
        }
        let Ok(head) = serde_json::from_slice::<Head>(text) else {
            return;
        };
        if head.method.is_some() {
            return;
        }
        let Some(id) = head.id else { return };
        self.end(&key(id), error_type(&head));
    }

    /// Without metrics only the trace ids are kept: drop an answered request's.
    fn forget(&self, text: &[u8]) {
        #[derive(Deserialize)]
        struct Id<'a> {
            #[serde(borrow, default)]
            id: Option<&'a RawValue>,
            #[serde(borrow, default)]
            method: Option<Cow<'a, str>>,
        }
        if let Ok(Id {
            id: Some(id),
            method: None,
        }) = serde_json::from_slice::<Id>(text)
        {
            self.ops().remove(&key(id));
        } else if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
            && let Ok(items) = serde_json::from_slice::<Vec<&RawValue>>(text)
        {
            for item in items {
                self.forget(item.get().as_bytes());
            }
        }
    }

    fn end(&self, key: &str, error_type: Option<String>) {
        let Some(op) = self.ops().remove(key) else {
            return;
        };
        let took = op.since.elapsed();
        if let Some(m) = &self.metrics {
            m.observe_operation(&op.method, op.tool.as_deref(), error_type.as_deref(), took);
        }
        if let Some(t) = &self.tracing {
            let (traceparent, tracestate) = match &op.context {
                Some((p, s)) => (Some(p.as_str()), s.as_deref()),
                None => (None, None),
            };
            t.record(&crate::trace::Finished {
                method: &op.method,
                tool: op.tool.as_deref(),
                id: key,
                traceparent,
                tracestate,
                error_type: error_type.as_deref(),
                start: op.wall,
                end: op.wall + took,
            });
        }
    }

    /// The process's metrics, when kept.
    pub(crate) fn metrics(&self) -> Option<&Arc<Metrics>> {
        self.metrics.as_ref()
    }
}

/// An endpoint whose operations are measured: what `serve --http --metrics` serves.
pub(crate) struct Metered<E> {
    pub(crate) inner: E,
    pub(crate) metrics: Arc<Metrics>,
    /// The listener's path for the metrics, when asked.
    pub(crate) path: Option<String>,
}

struct MeteredBackend {
    inner: Box<dyn crate::Backend>,
    tracker: Arc<Tracker>,
}

impl crate::Backend for MeteredBackend {
    fn handle(&self, message: &str) {
        self.tracker.request_in(message.as_bytes());
        self.inner.handle(message);
    }

    fn finish(&self, grace: Duration) {
        self.inner.finish(grace);
    }
}

impl<E: crate::Endpoint> Metered<E> {
    /// `connect` (plain or verified) of the inner endpoint, with both directions counted.
    fn metered(
        &self,
        sink: toolschema::mcp::transport::Sink,
        connect: impl FnOnce(
            toolschema::mcp::transport::Sink,
        ) -> Result<Box<dyn crate::Backend>, String>,
    ) -> Result<Box<dyn crate::Backend>, String> {
        let tracker = Arc::new(Tracker::new(Some(Arc::clone(&self.metrics)), None));
        let seen = Arc::clone(&tracker);
        let sink: toolschema::mcp::transport::Sink = Arc::new(move |text, kind, id| {
            seen.to_client(text.as_bytes());
            sink(text, kind, id);
        });
        let inner = connect(sink)?;
        Ok(Box::new(MeteredBackend { inner, tracker }))
    }
}

// Every method forwards: a wrapper that forgot one (the verified connection, a tool's
// security schemes) would quietly change what the endpoint allows.
impl<E: crate::Endpoint> crate::Endpoint for Metered<E> {
    fn connect(
        &self,
        sink: toolschema::mcp::transport::Sink,
        stateless: bool,
    ) -> Result<Box<dyn crate::Backend>, String> {
        self.metered(sink, |sink| self.inner.connect(sink, stateless))
    }

    fn connect_verified(
        &self,
        sink: toolschema::mcp::transport::Sink,
        stateless: bool,
    ) -> Result<Box<dyn crate::Backend>, String> {
        self.metered(sink, |sink| self.inner.connect_verified(sink, stateless))
    }

    fn security_schemes(&self, tool: &str) -> Option<Vec<toolschema::mcp::SecurityScheme>> {
        self.inner.security_schemes(tool)
    }

    fn input_schema(&self, tool: &str) -> Option<Cow<'_, Value>> {
        self.inner.input_schema(tool)
    }

    fn keeps_unrelated(&self) -> bool {
        self.inner.keeps_unrelated()
    }

    fn metrics_at(&self, path: &str) -> Option<&Metrics> {
        match &self.path {
            Some(p) if p == path => Some(&self.metrics),
            _ => self.inner.metrics_at(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_a_client_chooses_are_bounded() {
        let m = Metrics::new();
        let took = Duration::from_millis(1);
        m.observe_operation("tools/call", Some("kept"), None, took);
        for i in 0..(3 * MAX_LABEL_VALUES) {
            let name = format!("made-up-{i}");
            m.observe_operation(&name, Some(&name), Some(&name), took);
            m.count_violation("arguments", &name);
            m.count_pin_mismatch(&name);
        }
        m.observe_operation(
            "tools/call",
            Some(&"x".repeat(MAX_LABEL_LEN + 1)),
            None,
            took,
        );
        m.observe_operation("tools/call", Some("kept"), None, took);
        let text = m.encode();
        let series = text.lines().filter(|l| !l.starts_with('#')).count();
        // Each kept value is a few series (a histogram's buckets); never one per name sent.
        assert!(series < 25 * MAX_LABEL_VALUES, "{series} series");
        assert!(text.contains(&format!("made-up-{}", MAX_LABEL_VALUES - 2)));
        assert!(text.contains(&format!("gen_ai_tool_name=\"{OTHER}\"")));
        assert!(text.contains(&format!("mcp_method_name=\"{OTHER}\"")));
        assert!(text.contains(&format!("keyword=\"{OTHER}\"")));
        assert!(!text.contains(&format!("made-up-{}", 2 * MAX_LABEL_VALUES)));
        assert!(!text.contains(&"x".repeat(MAX_LABEL_LEN + 1)));
        // A value seen before the limit keeps being counted under its own name.
        assert!(text.contains(
            "mcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/call\",gen_ai_tool_name=\"kept\"} 2"
        ));
    }

    #[test]
    fn trace_ids_are_read_from_well_formed_traceparents_only() {
        let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(trace_id(tp), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(
            trace_id("00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
            None
        );
        assert_eq!(
            trace_id("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"),
            None
        );
        assert_eq!(trace_id("00-4bf92f35-00f067aa0ba902b7-01"), None);
        assert_eq!(trace_id(""), None);
    }

    #[test]
    fn a_request_is_measured_once_with_its_tool_and_outcome() {
        let metrics = Metrics::new();
        let t = Tracker::new(Some(Arc::clone(&metrics)), None);
        t.request_in(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#);
        t.request_in(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#);
        t.to_client(br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":true}}"#);
        t.to_client(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        t.to_client(br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"x"}}"#);
        let text = metrics.encode();
        assert!(text.contains(r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="echo",error_type="tool_error"} 1"#), "{text}");
        assert!(text.contains(r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/list",error_type="-32601"} 1"#), "{text}");
        assert!(!text.contains(r#"gen_ai_tool_name="echo"} "#), "{text}");
        // A `_meta` of an odd type does not hide the call from the metrics.
        t.request_in(br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"hidden","_meta":5}}"#);
        t.to_client(br#"{"jsonrpc":"2.0","id":8,"result":{}}"#);
        let text = metrics.encode();
        assert!(text.contains(r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="hidden"} 1"#), "{text}");
    }
}
