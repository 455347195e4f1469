//! Calling a router through the checks in a test, without a transport.
//!
//! ```
//! use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
//! use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
//! use std::sync::Arc;
//! use toolschema_rmcp::{ProtocolVersion, ValidatedRouter, testing::Client};
//!
//! struct Service;
//! let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}});
//! let tool = rmcp::model::Tool::new("digit", "A digit", Arc::new(schema.as_object().unwrap().clone()));
//! let router = ValidatedRouter::new(ToolRouter::<Service>::new().with_route(ToolRoute::new_dyn(tool, |_ctx| {
//!     Box::pin(async { Ok(CallToolResult::success(vec![ContentBlock::text("ok")]).into()) })
//! })));
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let client = Client::new();
//! let refused = client.call(&router, &Service, "digit", serde_json::json!({"n": 10}), ProtocolVersion::V2025_06_18).await;
//! assert_eq!(refused.unwrap_err().code.0, -32602);
//! let Ok(CallToolResponse::Complete(ok)) = client.call(&router, &Service, "digit", serde_json::json!({"n": 1}), ProtocolVersion::V2025_11_25).await
//! else { panic!() };
//! assert_eq!(ok.is_error, Some(false));
//! # });
//! ```

use crate::ValidatedRouter;
use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString};
use rmcp::service::{Peer, RequestContext, RoleServer, RunningService};
use serde_json::Value;
use std::sync::atomic::{AtomicI64, Ordering};
use toolschema::mcp::ProtocolVersion;

/// The service behind the test peer: it is never sent anything.
struct Unused;
impl ServerHandler for Unused {}

/// A stand-in for the client: builds the request context a transport would, and calls
/// a router with it. Requests to the client (sampling, logging) go nowhere.
pub struct Client {
    running: RunningService<RoleServer, Unused>,
    next_id: AtomicI64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

impl Default for Client {
    fn default() -> Self {
        Client::new()
    }
}

impl Client {
    /// A client with no transport behind it. Call inside a Tokio runtime (rmcp spawns the
    /// peer's task).
    pub fn new() -> Client {
        let transport = (
            futures::sink::drain(),
            futures::stream::pending::<rmcp::service::RxJsonRpcMessage<RoleServer>>(),
        );
        let running = rmcp::service::serve_directly(Unused, transport, None);
        Client {
            running,
            next_id: AtomicI64::new(1),
        }
    }

    /// The peer the contexts carry.
    pub fn peer(&self) -> &Peer<RoleServer> {
        self.running.peer()
    }

    /// The context of a `tools/call` of `name` with `arguments` (an object, or `null` for
    /// none) at `version`, as the transport would hand it to `call_tool`.
    pub fn context<'s, S>(
        &self,
        service: &'s S,
        name: &str,
        arguments: Value,
        version: ProtocolVersion,
    ) -> ToolCallContext<'s, S> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut request = RequestContext::new(NumberOrString::Number(id), self.peer().clone());
        if let Ok(v) = serde_json::from_value(Value::from(version.as_str())) {
            request.meta.set_protocol_version(v);
        }
        ToolCallContext::new(service, params, request)
    }

    /// Calls `name` through `router`'s checks, as a client at `version` would.
    pub async fn call<S: Send + Sync + 'static>(
        &self,
        router: &ValidatedRouter<S>,
        service: &S,
        name: &str,
        arguments: Value,
        version: ProtocolVersion,
    ) -> Result<CallToolResponse, ErrorData> {
        router
            .call(self.context(service, name, arguments, version))
            .await
    }

    /// Calls `name` through a plain rmcp router, no checks (to compare with).
    pub async fn call_unchecked<S: Send + Sync + 'static>(
        &self,
        router: &ToolRouter<S>,
        service: &S,
        name: &str,
        arguments: Value,
        version: ProtocolVersion,
    ) -> Result<CallToolResponse, ErrorData> {
        router
            .call(self.context(service, name, arguments, version))
            .await
    }
}
