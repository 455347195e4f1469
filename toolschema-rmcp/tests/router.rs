//! `ValidatedRouter` under rmcp's own macros, called through `testing::Client`.

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, Tool};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolschema_rmcp::testing::Client;
use toolschema_rmcp::{
    NamePolicy, OutputPolicy, ProtocolVersion, ToolChecks, ValidatedRouter, protocol_version,
};

const SECRET: &str = "SECRET-5f2a";

#[derive(Deserialize, JsonSchema)]
struct Port {
    #[schemars(length(min = 1))]
    host: String,
    port: u16,
}

#[derive(Serialize, JsonSchema)]
struct Reply {
    #[schemars(range(max = 100))]
    score: u32,
}

#[derive(Clone)]
struct Server {
    tool_router: ValidatedRouter<Self>,
    calls: Arc<AtomicUsize>,
}

#[tool_router]
impl Server {
    fn new(checks: ToolChecks) -> Self {
        Self {
            tool_router: ValidatedRouter::with_checks(Self::tool_router(), checks),
            calls: Arc::default(),
        }
    }

    #[tool(description = "Connect")]
    fn connect(&self, Parameters(p): Parameters<Port>) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        format!("{}:{}", p.host, p.port)
    }

    #[tool(description = "Score: 500 breaks the output schema")]
    fn score(&self, Parameters(p): Parameters<Port>) -> Json<Reply> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Json(Reply {
            score: u32::from(p.port),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {}

fn complete(r: Result<CallToolResponse, rmcp::ErrorData>) -> CallToolResult {
    match r {
        Ok(CallToolResponse::Complete(result)) => result,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn invalid_arguments_never_reach_the_handler() {
    let server = Server::new(ToolChecks::new());
    let client = Client::new();
    let router = &server.tool_router;
    let ok = complete(
        client
            .call(
                router,
                &server,
                "connect",
                json!({"host": "a", "port": 80}),
                ProtocolVersion::V2025_11_25,
            )
            .await,
    );
    assert_eq!(text(&ok), "a:80");
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);

    // 2025-06-18: JSON-RPC -32602, naming the location and never the value.
    let bad = json!({"host": "", "port": 70000, "extra": SECRET});
    let err = client
        .call(
            router,
            &server,
            "connect",
            bad.clone(),
            ProtocolVersion::V2025_06_18,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32602);
    assert!(
        err.message.contains("/port") && err.message.contains("/host"),
        "{err:?}"
    );
    assert!(!format!("{err:?}").contains("70000"), "{err:?}");
    // From 2025-11-25 on: an isError result the model can read.
    for v in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let r = complete(
            client
                .call(router, &server, "connect", bad.clone(), v)
                .await,
        );
        assert_eq!(r.is_error, Some(true));
        assert!(
            text(&r).contains("/port: must be at most 65535"),
            "{}",
            text(&r)
        );
    }
    // Missing arguments count as `{}`.
    let r = complete(
        client
            .call(
                router,
                &server,
                "connect",
                Value::Null,
                ProtocolVersion::V2025_11_25,
            )
            .await,
    );
    assert!(
        text(&r).contains("missing required property \"host\""),
        "{}",
        text(&r)
    );
    assert_eq!(
        server.calls.load(Ordering::SeqCst),
        1,
        "no refused call ran"
    );

    // Unknown tools are answered by rmcp's router as before.
    let err = client
        .call(
            router,
            &server,
            "nope",
            json!({}),
            ProtocolVersion::V2025_11_25,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32602);
}

#[tokio::test]
async fn bad_output_follows_the_policy() {
    let client = Client::new();
    let call = json!({"host": "h", "port": 500});

    let server = Server::new(ToolChecks::new());
    let r = complete(
        client
            .call(
                &server.tool_router,
                &server,
                "score",
                call.clone(),
                ProtocolVersion::V2025_11_25,
            )
            .await,
    );
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).contains("/score: must be at most 100"),
        "{}",
        text(&r)
    );
    assert!(r.structured_content.is_none());
    let fine = complete(
        client
            .call(
                &server.tool_router,
                &server,
                "score",
                json!({"host": "h", "port": 5}),
                ProtocolVersion::V2025_11_25,
            )
            .await,
    );
    assert_eq!(fine.structured_content, Some(json!({"score": 5})));

    let server =
        Server::new(ToolChecks::new().with_output_policy(OutputPolicy::JsonRpcError(-32603)));
    let err = client
        .call(
            &server.tool_router,
            &server,
            "score",
            call.clone(),
            ProtocolVersion::V2025_06_18,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32603);

    let server = Server::new(ToolChecks::new().with_output_policy(OutputPolicy::Log));
    let r = complete(
        client
            .call(
                &server.tool_router,
                &server,
                "score",
                call,
                ProtocolVersion::V2025_11_25,
            )
            .await,
    );
    assert_eq!(r.structured_content, Some(json!({"score": 500})));
}

fn digit_route(name: &'static str, maximum: u64) -> ToolRoute<Server> {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": maximum}}});
    let tool = Tool::new(
        name,
        "A digit",
        Arc::new(schema.as_object().cloned().unwrap()),
    );
    ToolRoute::new_dyn(tool, |ctx: ToolCallContext<'_, Server>| {
        Box::pin(async move {
            ctx.service.calls.fetch_add(1, Ordering::SeqCst);
            Ok(CallToolResult::success(vec![ContentBlock::text("ok")]).into())
        })
    })
}

#[tokio::test]
async fn routes_added_replaced_or_disabled_later_are_checked() {
    let mut server = Server::new(ToolChecks::new());
    let client = Client::new();
    let v = ProtocolVersion::V2025_11_25;
    server.tool_router.add_route(digit_route("digit", 9));
    assert!(
        server
            .tool_router
            .list_all()
            .iter()
            .any(|t| t.name == "digit")
    );
    let r = complete(
        client
            .call(&server.tool_router, &server, "digit", json!({"n": 10}), v)
            .await,
    );
    assert_eq!(r.is_error, Some(true));
    // Replaced with another schema: the new one applies.
    server.tool_router.add_route(digit_route("digit", 99));
    let r = complete(
        client
            .call(&server.tool_router, &server, "digit", json!({"n": 10}), v)
            .await,
    );
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let r = complete(
        client
            .call(&server.tool_router, &server, "digit", json!({"n": 100}), v)
            .await,
    );
    assert_eq!(r.is_error, Some(true));

    assert!(server.tool_router.disable_route("digit"));
    let err = client
        .call(&server.tool_router, &server, "digit", json!({"n": 1}), v)
        .await
        .unwrap_err();
    assert_eq!(err.message, "tool not found");
    assert!(server.tool_router.enable_route("digit"));
    let r = complete(
        client
            .call(&server.tool_router, &server, "digit", json!({"n": 100}), v)
            .await,
    );
    assert_eq!(r.is_error, Some(true));
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn discouraged_names_follow_the_name_policy() {
    let client = Client::new();
    let v = ProtocolVersion::V2025_11_25;
    let warned = Server::new(ToolChecks::new());
    let mut router = warned.tool_router.clone();
    router.add_route(digit_route("ns/digit", 9));
    assert!(router.problems().is_empty());
    let r = complete(
        client
            .call(&router, &warned, "ns/digit", json!({"n": 1}), v)
            .await,
    );
    assert_eq!(r.is_error, Some(false));

    let strict = Server::new(ToolChecks::new().with_name_policy(NamePolicy::Refuse));
    let mut router = strict.tool_router.clone();
    router.add_route(digit_route("ns/digit", 9));
    assert_eq!(router.problems()[0].location, "/name");
    let err = client
        .call(&router, &strict, "ns/digit", json!({"n": 1}), v)
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32602);
    assert_eq!(strict.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn hand_written_call_tool_uses_the_same_checks() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}, "required": ["n"]});
    let tool = Tool::new(
        "digit",
        "A digit",
        Arc::new(schema.as_object().cloned().unwrap()),
    )
    .with_raw_output_schema(Arc::new(
        json!({"type": "object", "required": ["n"]})
            .as_object()
            .cloned()
            .unwrap(),
    ));
    let checks = ToolChecks::new();
    let ran = AtomicUsize::new(0);
    let request = |n: i64| {
        rmcp::model::CallToolRequestParams::new("digit")
            .with_arguments(json!({"n": n}).as_object().cloned().unwrap())
    };
    let handler = |p: rmcp::model::CallToolRequestParams| {
        ran.fetch_add(1, Ordering::SeqCst);
        async move {
            let mut r = CallToolResult::success(vec![]);
            // The bug: echoes nothing structured for 0.
            if p.arguments.and_then(|a| a.get("n").cloned()) != Some(json!(0)) {
                r.structured_content = Some(json!({"n": 1}));
            }
            Ok(r.into())
        }
    };
    let err = checks
        .call(&tool, request(10), ProtocolVersion::V2025_06_18, handler)
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32602);
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    let r = complete(
        checks
            .call(&tool, request(3), ProtocolVersion::V2025_06_18, handler)
            .await,
    );
    assert_eq!(r.structured_content, Some(json!({"n": 1})));
    let r = complete(
        checks
            .call(&tool, request(0), ProtocolVersion::V2025_06_18, handler)
            .await,
    );
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("no structuredContent"), "{}", text(&r));
}

#[test]
fn rmcp_versions_convert() {
    for v in rmcp::model::ProtocolVersion::KNOWN_VERSIONS {
        assert_eq!(protocol_version(v).as_str(), v.as_str());
    }
    let unknown: rmcp::model::ProtocolVersion =
        serde_json::from_value(json!("2099-01-01")).unwrap();
    assert_eq!(
        protocol_version(&unknown),
        ProtocolVersion::LATEST_HANDSHAKE
    );
}
