//! OpenTelemetry traces: one span per MCP request, exported over OTLP (HTTP/protobuf) by
//! the `opentelemetry-otlp` crate, in the trace of the client's W3C `traceparent` (read
//! from the request's `params._meta`, which the proxy passes on unchanged).
//!
//! Each span is named `{mcp.method.name} {gen_ai.tool.name}` (the method alone for other
//! requests), of kind server, from the request's arrival to its answer's departure, with
//! the attributes `mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`,
//! `error.type` (the JSON-RPC code, or `tool_error`) and an error status on failure.
//! Spans are batched and sent from a thread of the SDK's own; [`Tracing::shutdown`] sends
//! what is left.

use opentelemetry::trace::{
    Span, SpanContext, SpanId, SpanKind, Status, TraceContextExt, TraceFlags, TraceId, TraceState,
    Tracer, TracerProvider,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Where spans go: an OTLP/HTTP collector.
pub struct Tracing {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl std::fmt::Debug for Tracing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracing").finish_non_exhaustive()
    }
}

/// What a finished request's span records.
pub(crate) struct Finished<'a> {
    pub(crate) method: &'a str,
    pub(crate) tool: Option<&'a str>,
    pub(crate) id: &'a str,
    pub(crate) traceparent: Option<&'a str>,
    pub(crate) tracestate: Option<&'a str>,
    pub(crate) error_type: Option<&'a str>,
    pub(crate) start: SystemTime,
    pub(crate) end: SystemTime,
}

impl Tracing {
    /// Exports to the collector at `endpoint` (`http://HOST:4318`; `/v1/traces` is
    /// added unless the path already ends with it), as service `service`.
    ///
    /// # Errors
    /// When the URL is not one, or the exporter cannot be built.
    pub fn otlp(endpoint: &str, service: &str) -> Result<Arc<Tracing>, String> {
        let trimmed = endpoint.trim_end_matches('/');
        let url = if trimmed.ends_with("/v1/traces") {
            trimmed.to_string()
        } else {
            format!("{trimmed}/v1/traces")
        };
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(format!(
                "--otlp-endpoint {endpoint:?}: an http:// or https:// URL"
            ));
        }
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url)
            .with_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("--otlp-endpoint {endpoint:?}: {e}"))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(
                Resource::builder()
                    .with_service_name(service.to_string())
                    .build(),
            )
            .build();
        let tracer = provider.tracer("toolschema");
        Ok(Arc::new(Tracing { provider, tracer }))
    }

    /// Sends the spans not sent yet, and stops (at the process's end).
    pub fn shutdown(&self) {
        let _ = self.provider.force_flush();
        let _ = self.provider.shutdown_with_timeout(Duration::from_secs(5));
    }

    pub(crate) fn record(&self, r: &Finished<'_>) {
        let parent = r
            .traceparent
            .and_then(parse_traceparent)
            .map(|(trace, span, flags)| {
                let state = r
                    .tracestate
                    .and_then(|s| TraceState::from_str(s).ok())
                    .unwrap_or_default();
                Context::new()
                    .with_remote_span_context(SpanContext::new(trace, span, flags, true, state))
            })
            .unwrap_or_default();
        let name = match r.tool {
            Some(t) => format!("{} {t}", r.method),
            None => r.method.to_string(),
        };
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", r.method.to_string()),
            KeyValue::new("jsonrpc.request.id", r.id.to_string()),
        ];
        if let Some(t) = r.tool {
            attributes.push(KeyValue::new("gen_ai.tool.name", t.to_string()));
        }
        if let Some(e) = r.error_type {
            attributes.push(KeyValue::new("error.type", e.to_string()));
        }
        let mut span = self
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_start_time(r.start)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, &parent);
        if let Some(e) = r.error_type {
            span.set_status(Status::error(e.to_string()));
        }
        span.end_with_timestamp(r.end);
    }
}

/// The trace id, parent span id and flags of a well-formed W3C `traceparent`.
fn parse_traceparent(tp: &str) -> Option<(TraceId, SpanId, TraceFlags)> {
    let trace = crate::metrics::trace_id(tp)?;
    let mut parts = tp.trim().split('-').skip(2);
    let span = SpanId::from_hex(parts.next()?).ok()?;
    let flags = u8::from_str_radix(parts.next()?, 16).ok()?;
    if span == SpanId::INVALID {
        return None;
    }
    Some((TraceId::from_hex(trace).ok()?, span, TraceFlags::new(flags)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collector that accepts connections and never answers: requests are not held up
    /// by it (spans beyond the SDK's queue are dropped), and the process's end is not
    /// held up past the export and shutdown timeouts.
    #[test]
    fn a_hanging_collector_holds_up_nothing() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let mut parked = Vec::new();
            for s in listener.incoming() {
                parked.push(s);
            }
        });
        let tracing = Tracing::otlp(&url, "test").unwrap();
        let (done, finished) = std::sync::mpsc::channel();
        let t = Arc::clone(&tracing);
        std::thread::spawn(move || {
            let now = SystemTime::now();
            for i in 0..20_000 {
                t.record(&Finished {
                    method: "tools/call",
                    tool: Some("echo"),
                    id: &i.to_string(),
                    traceparent: Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                    tracestate: Some("a=b"),
                    error_type: None,
                    start: now,
                    end: now,
                });
            }
            let _ = done.send(());
        });
        assert!(
            finished.recv_timeout(Duration::from_secs(20)).is_ok(),
            "recording spans blocked on the collector"
        );
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            tracing.shutdown();
            let _ = done.send(());
        });
        assert!(
            finished.recv_timeout(Duration::from_secs(60)).is_ok(),
            "shutdown waited for ever on the collector"
        );
    }
}
