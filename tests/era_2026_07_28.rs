//! The 2026-07-28 era as the specification's schema says (issue #38): each test sends the
//! exact request and checks the exact answer, and both against the pinned subset of the
//! spec's schema (`tests/mcp_spec/2026-07-28.subset.json`, see its README), so that a new
//! revision of the spec shows up here as a failure.

use serde_json::{Value, json};
use std::time::Duration;
use toolschema::Schema;
use toolschema::mcp::{CallToolResult, LogLevel, Server, TaskSupport, Tool};

const PV: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

fn pinned() -> Value {
    let text = include_str!("mcp_spec/2026-07-28.subset.json");
    serde_json::from_str(text).expect("the pinned subset is JSON")
}

/// The pinned definition `name`, compiled.
fn spec(name: &str) -> Schema {
    let mut doc = pinned();
    assert!(doc["$defs"].get(name).is_some(), "{name} is not pinned");
    doc.as_object_mut()
        .unwrap()
        .insert("$ref".into(), json!(format!("#/$defs/{name}")));
    Schema::compile(&doc).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn conforms(name: &str, message: &Value) {
    let schema = spec(name);
    let errors: Vec<String> = schema.iter_errors(message).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "not a {name}: {errors:?}\n{message}");
}

mod support;

use support::mcp::Client;

fn server() -> Server {
    let logs = Tool::builder("logs")
        .handler(|_, ctx| {
            ctx.log(LogLevel::Error, "something to say");
            Ok(CallToolResult::text("done"))
        })
        .build()
        .unwrap();
    let maybe = Tool::builder("maybe_task")
        .task_support(TaskSupport::Optional)
        .handler(|_, _| Ok(CallToolResult::text("ran")))
        .build()
        .unwrap();
    let must = Tool::builder("must_task")
        .task_support(TaskSupport::Required)
        .handler(|_, _| Ok(CallToolResult::text("ran")))
        .build()
        .unwrap();
    let count = Tool::builder("count")
        .output_schema(json!({"type": "integer"}))
        .handler(|_, ctx| {
            ctx.progress(1.0, Some(2.0), Some("half"));
            Ok(CallToolResult::structured(json!(3)))
        })
        .build()
        .unwrap();
    Server::builder("ts", "9.9")
        .tools([logs, maybe, must, count])
        .build()
        .unwrap()
}

fn meta() -> Value {
    json!({PV: "2026-07-28", CAPS: {}, "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}})
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The pinned schema is what the server follows: the `_meta` fields it requires, the log
/// levels it knows, the methods a 2026-07-28 client may send, the deprecations it obeys.
#[test]
fn the_pinned_schema_holds_what_the_server_relies_on() {
    let doc = pinned();
    let defs = &doc["$defs"];
    let mut required: Vec<&str> = defs["RequestMetaObject"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort();
    assert_eq!(required, [CAPS, PV]);
    let levels: Vec<&str> = defs["LoggingLevel"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for level in &levels {
        assert!(LogLevel::parse(level).is_some(), "{level}");
    }
    assert_eq!(levels.len(), 8);
    let mut methods: Vec<&str> = defs["ClientRequest"]["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["$ref"].as_str().unwrap().trim_start_matches("#/$defs/");
            defs[name]["properties"]["method"]["const"]
                .as_str()
                .unwrap()
        })
        .collect();
    methods.sort();
    assert_eq!(
        methods,
        [
            "completion/complete",
            "prompts/get",
            "prompts/list",
            "resources/list",
            "resources/read",
            "resources/templates/list",
            "server/discover",
            "subscriptions/listen",
            "tools/call",
            "tools/list"
        ],
        "initialize, ping and logging/setLevel are not 2026-07-28 methods"
    );
    let deprecated: Vec<&str> = doc["x-deprecated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(deprecated.contains(&"ServerCapabilities.logging"));
    assert!(deprecated.contains(&"RequestMetaObject.io.modelcontextprotocol/logLevel"));
    assert!(
        defs["ServerCapabilities"]["properties"]
            .get("tasks")
            .is_none(),
        "tasks moved to an extension at 2026-07-28"
    );
    assert!(defs["Tool"]["properties"].get("execution").is_none());
    assert_eq!(
        defs["UnsupportedProtocolVersionError"]["properties"]["error"]["allOf"][1]["properties"]["code"]
            ["const"],
        -32022
    );
}

/// #38.1: "A request missing any required field is malformed; the server MUST reject it with
/// JSON-RPC error code -32602" (basic/index, per-request protocol fields).
#[test]
fn required_meta_fields_are_enforced() {
    let c = Client::new(&server());
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": {PV: "2026-07-28"}}});
    assert!(
        !spec("DiscoverRequest").is_valid(&request),
        "the spec calls it malformed"
    );
    assert_eq!(
        c.ask(&request),
        error(
            json!(1),
            -32602,
            "invalid params: _meta \"io.modelcontextprotocol/clientCapabilities\" is required"
        )
    );
    // No protocol version at all, and no initialize before: malformed, not 2025-11-25.
    for (id, request) in [
        (
            2,
            json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover"}),
        ),
        (
            3,
            json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": {CAPS: {}}}}),
        ),
        (
            4,
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}}),
        ),
        (
            5,
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "logs"}}),
        ),
    ] {
        let answer = c.ask(&request);
        assert_eq!(
            answer,
            error(
                json!(id),
                -32602,
                "invalid params: _meta \"io.modelcontextprotocol/protocolVersion\" is required (2026-07-28); earlier versions start with initialize"
            )
        );
        conforms("JSONRPCErrorResponse", &answer);
    }
    let request = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list",
        "params": {"_meta": {PV: "2026-07-28", CAPS: []}}});
    assert_eq!(
        c.ask(&request)["error"]["code"],
        -32602,
        "clientCapabilities must be an object"
    );
}

/// #38.2: one answer about versions. `supportedVersions` ("The client should choose a version
/// from this list for use in subsequent requests", DiscoverResult) and `-32022`'s `supported`
/// ("Protocol versions the server supports. The client should choose a mutually supported
/// version from this list and retry") name the same versions: those a request's `_meta` may
/// carry. Earlier versions are reached through `initialize` only.
#[test]
fn supported_versions_are_the_same_everywhere() {
    let c = Client::new(&server());
    let discovered = c.ask(&json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": {"_meta": meta()}}));
    let supported = discovered["result"]["supportedVersions"].clone();
    assert_eq!(supported, json!(["2026-07-28"]));
    for requested in ["2025-11-25", "2024-11-05", "1900-01-01"] {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": {PV: requested, CAPS: {}}}});
        conforms("ListToolsRequest", &request);
        let answer = c.ask(&request);
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022,
                "message": "unsupported protocol version",
                "data": {"supported": supported, "requested": requested}}})
        );
        conforms("UnsupportedProtocolVersionError", &answer);
    }
}

/// #38.3: `initialize`, `ping` and `logging/setLevel` are not 2026-07-28 methods
/// (ClientRequest): with modern `_meta` they are unknown (-32601) and change nothing; "A
/// request carrying modern per-request `_meta` is served statelessly" (versioning).
#[test]
fn legacy_methods_are_unknown_to_modern_requests() {
    let c = Client::new(&server());
    for method in ["initialize", "ping", "logging/setLevel"] {
        let mut params = json!({"_meta": meta()});
        if method == "initialize" {
            params["protocolVersion"] = json!("2025-11-25");
            params["capabilities"] = json!({});
            params["clientInfo"] = json!({"name": "c", "version": "1"});
        }
        if method == "logging/setLevel" {
            params["level"] = json!("debug");
        }
        let answer = c.ask(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
        assert_eq!(
            answer,
            error(
                json!(1),
                -32601,
                &format!(
                    "method not found: \"{method}\" is not a method of protocol version 2026-07-28"
                )
            )
        );
    }
    // The modern initialize opened no session: a request without `_meta` is still malformed.
    let answer = c.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(answer["error"]["code"], -32602);
    // And a legacy session does not leak into modern requests: they are stateless.
    let c = Client::new(&server());
    let init = c.ask(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let listed = c.ask(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta()}}),
    );
    assert_eq!(listed["result"]["resultType"], "complete");
    conforms("ListToolsResultResponse", &listed);
}

/// #38.4: "If the `io.modelcontextprotocol/logLevel` value carried in a request's `_meta` is
/// not a recognized log level, the server SHOULD reject that request" with -32602 (logging).
#[test]
fn unknown_log_levels_are_rejected() {
    let c = Client::new(&server());
    let mut m = meta();
    m["io.modelcontextprotocol/logLevel"] = json!("verbose");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": m, "name": "logs"}});
    assert!(!spec("CallToolRequest").is_valid(&request));
    assert_eq!(
        c.ask(&request),
        error(
            json!(1),
            -32602,
            "invalid params: _meta \"io.modelcontextprotocol/logLevel\" must be a log level name (debug, info, notice, warning, error, critical, alert, emergency)"
        )
    );
}

/// #38.5: the discover result has `serverInfo` only in `_meta` ("`_meta['io.modelcontextprotocol/serverInfo']`:
/// Name and version of the server software", discover) and no `logging` capability
/// (deprecated by SEP-2577: "New implementations SHOULD NOT adopt it"), so no
/// `notifications/message` either.
#[test]
fn discover_answers_exactly_the_schema() {
    let c = Client::new(&server());
    let request = json!({"jsonrpc": "2.0", "id": "discover-1", "method": "server/discover", "params": {"_meta": meta()}});
    conforms("DiscoverRequest", &request);
    let answer = c.ask(&request);
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": "discover-1", "result": {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {"listChanged": false}},
            "ttlMs": 60000,
            "cacheScope": "public",
            "_meta": {SERVER_INFO: {"name": "ts", "version": "9.9"}}
        }})
    );
    conforms("DiscoverResultResponse", &answer);
    // A tool that logs, asked for every level: nothing but the answer.
    let mut m = meta();
    m["io.modelcontextprotocol/logLevel"] = json!("debug");
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"_meta": m, "name": "logs"}});
    conforms("CallToolRequest", &request);
    let answer = c.ask(&request);
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete",
            "content": [{"type": "text", "text": "done"}],
            "_meta": {SERVER_INFO: {"name": "ts", "version": "9.9"}}}})
    );
    conforms("CallToolResultResponse", &answer);
    assert!(c.quiet());
}

/// #38.6: tasks at 2025-11-25. "If a server's capabilities do not include
/// `tasks.requests.tools.call`, then clients MUST NOT attempt to use task augmentation"
/// (2025-11-25 tasks): this server offers no tasks, so it advertises none, and a tool that
/// would require one is listed (and run) as a plain call.
#[test]
fn tasks_are_offered_at_2025_11_25_only_and_required_is_listed() {
    let c = Client::new(&server());
    let init = c.ask(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    assert_eq!(
        init["result"]["capabilities"],
        json!({"tools": {"listChanged": false}, "logging": {},
            "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}})
    );
    let listed = c.ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(
        tool("maybe_task")["execution"],
        json!({"taskSupport": "optional"})
    );
    assert_eq!(
        tool("must_task")["execution"],
        json!({"taskSupport": "required"})
    );
    // Called without `task`, a required tool gets the error the spec names.
    let ran = c.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "must_task"}}));
    assert_eq!(ran["error"]["code"], -32601, "{ran}");
    // At 2026-07-28 tasks left the core protocol (an extension this server does not
    // offer): no `tasks` capability, no `execution` in Tool, and the tool runs as a call.
    let c = Client::new(&server());
    let discovered = c.ask(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}}),
    );
    assert!(
        discovered["result"]["capabilities"].get("tasks").is_none(),
        "{discovered}"
    );
    let listed = c.ask(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}}),
    );
    conforms("ListToolsResultResponse", &listed);
    assert!(
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("execution").is_none())
    );
    let ran = c.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "must_task", "_meta": meta()}}));
    assert_eq!(ran["result"]["content"][0]["text"], "ran", "{ran}");
}

/// Also checked: progress at 2026-07-28 (`_meta.progressToken`, ProgressNotificationParams),
/// and non-object output roots at 2025-11-25 (wrapped in `type: "object"`, as
/// 2025-11-25's `Tool.outputSchema` requires), bare at 2026-07-28.
#[test]
fn progress_and_output_roots_follow_the_schema() {
    let c = Client::new(&server());
    let mut m = meta();
    m["progressToken"] = json!("tok-1");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": m, "name": "count"}});
    conforms("CallToolRequest", &request);
    let progress = c.ask(&request);
    assert_eq!(
        progress,
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "tok-1", "progress": 1.0, "total": 2.0, "message": "half"}})
    );
    conforms("ProgressNotification", &progress);
    let answer = c.next();
    assert_eq!(answer["result"]["structuredContent"], json!(3));
    conforms("CallToolResultResponse", &answer);
    let listed = c.ask(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta()}}),
    );
    let count = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "count")
        .unwrap()
        .clone();
    assert_eq!(count["outputSchema"], json!({"type": "integer"}));
    conforms("Tool", &count);

    let c = Client::new(&server());
    c.ask(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}));
    let listed = c.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let count = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "count")
        .unwrap()
        .clone();
    assert_eq!(count["outputSchema"]["type"], "object");
    assert_eq!(count["outputSchema"]["required"], json!(["result"]));
    let answer = c.ask(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "count"}}),
    );
    assert_eq!(answer["result"]["structuredContent"], json!({"result": 3}));
}

/// Also checked: `subscriptions/listen`. The server "MUST send
/// `notifications/subscriptions/acknowledged` as the first message carrying the
/// subscription's ID"; this server's tools never change, so it honours none of the types
/// ("Notification types the server does not support are omitted"); a cancelled stream ends
/// silently, and at shutdown an open one gets its result ("Graceful Closure").
#[test]
fn subscriptions_are_acknowledged_and_closed_gracefully() {
    let c = Client::new(&server());
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}});
    conforms("SubscriptionsListenRequest", &request);
    let ack = c.ask(&request);
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}, "notifications": {}}})
    );
    conforms("SubscriptionsAcknowledgedNotification", &ack);
    let ack = c.ask(
        &json!({"jsonrpc": "2.0", "id": "two", "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {}}}),
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "two"
    );
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "two"}});
    conforms("CancelledNotification", &cancel);
    c.conn.handle(&cancel.to_string());
    assert!(c.quiet());
    c.conn.finish(Duration::from_secs(1));
    let closed = c.next();
    assert_eq!(
        closed,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "_meta": {
            "io.modelcontextprotocol/subscriptionId": 1, SERVER_INFO: {"name": "ts", "version": "9.9"}}}})
    );
    conforms("SubscriptionsListenResultResponse", &closed);
    assert!(c.quiet(), "the cancelled subscription gets no answer");
    // Without `notifications` the request is malformed.
    let c = Client::new(&server());
    let bad = c.ask(&json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen", "params": {"_meta": meta()}}));
    assert_eq!(bad["error"]["code"], -32602);
}
