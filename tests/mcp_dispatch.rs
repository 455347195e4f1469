//! The MCP dispatch layer over an in-memory connection (the `toolschema serve` binary is
//! toolschema-cli/tests/serve.rs).

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toolschema::mcp::{
    CallToolResult, Content, ProtocolVersion, Server, TaskSupport, Tool, testing,
};

const SECRET: &str = "SECRET-7f3a9c";

mod support;

use support::mcp::Client;

fn code(r: &Value) -> i64 {
    r["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error, got {r}"))
}

fn stats_tool() -> Tool {
    Tool::builder("stats")
        .title("Stats")
        .input_schema(json!({"properties": {"numbers": {"type": "array", "items": {"type": "number"}}}, "required": ["numbers"]}))
        .output_schema(json!({"properties": {"count": {"type": "integer"}}, "required": ["count"]}))
        .task_support(TaskSupport::Optional)
        .read_only_hint(true)
        .handler(|args, _| Ok(CallToolResult::structured(json!({"count": args["numbers"].as_array().map_or(0, Vec::len)}))))
        .build()
        .unwrap()
}

fn server_with(tools: Vec<Tool>, page: usize) -> Server {
    Server::builder("test", "0.0.1")
        .tools(tools)
        .page_size(page)
        .shutdown_grace(Duration::from_millis(200))
        .build()
        .unwrap()
}

fn fixed(name: &str, output: Option<Value>, result: CallToolResult) -> Tool {
    let mut b = Tool::builder(name);
    if let Some(o) = output {
        b = b.output_schema(o);
    }
    b.handler(move |_, _| Ok(result.clone())).build().unwrap()
}

fn slow_tool(saw_cancel: Arc<AtomicBool>) -> Tool {
    Tool::builder("slow")
        .handler(move |_, ctx| {
            for i in 0..200 {
                if ctx.is_cancelled() {
                    saw_cancel.store(true, Ordering::SeqCst);
                    return Ok(CallToolResult::error("cancelled"));
                }
                ctx.progress(f64::from(i), Some(200.0), Some("working"));
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(CallToolResult::text("finished"))
        })
        .build()
        .unwrap()
}

#[test]
fn malformed_messages_get_their_codes_and_never_stop_the_server() {
    let c = Client::at(
        &server_with(vec![stats_tool()], 10),
        "2025-11-25",
        json!({}),
    );
    for (text, expected) in [
        ("{not json", -32700),
        ("42", -32600),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":5}"#, -32600),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"nope/nothing"}"#,
            -32601,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#, -32602),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"missing"}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stats","arguments":[1]}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"bogus"}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            -32602,
        ),
        // `_meta` is an object in every revision: another value is refused, not skipped
        // (a skipped `_meta` would hide a version or a progress token from the checks).
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stats","arguments":{},"_meta":5}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":"x"}}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":[]}}"#,
            -32602,
        ),
    ] {
        c.send_text(text);
        let r = c.next();
        assert_eq!(code(&r), expected, "{text} -> {r}");
        // The next message is never lost.
        assert_eq!(
            c.request(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}))["result"],
            json!({})
        );
    }
    // Notifications (even unknown ones) and client responses get no answer.
    c.send_text(r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#);
    c.send_text(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);
    assert!(c.quiet_for(Duration::from_millis(100)));
}

#[test]
fn invalid_arguments_are_reported_by_version_without_values() {
    let server = server_with(vec![stats_tool()], 10);
    let bad = json!({"numbers": [1, SECRET, {"k": SECRET}]});
    for v in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let r = Client::at(&server, v, json!({})).call("stats", bad.clone());
        assert_eq!(code(&r), -32602, "{v}: {r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("/numbers/1") && msg.contains("/numbers/2"),
            "{msg}"
        );
        assert!(!r.to_string().contains(SECRET), "{r}");
    }
    let r = Client::at(&server, "2025-11-25", json!({})).call("stats", bad.clone());
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("/numbers/1: ") && text.contains("/numbers/2: "),
        "{text}"
    );
    assert!(!r.to_string().contains(SECRET), "{r}");
    // Missing arguments are an empty object, validated like any other.
    let r = Client::at(&server, "2025-11-25", json!({})).call("stats", Value::Null);
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("missing required property \"numbers\"")
    );
}

#[test]
fn modern_requests_carry_their_version_in_meta() {
    let server = server_with(vec![stats_tool()], 10);
    let c = Client::new(&server);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}});
    let d = c.request(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}),
    );
    let d = &d["result"];
    assert!(
        d["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    assert_eq!(d["resultType"], "complete");
    assert!(
        d["ttlMs"].is_u64()
            && d["cacheScope"] == "public"
            && d["capabilities"]["tools"].is_object()
    );
    assert_eq!(
        d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "test"
    );

    let l = c.request(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}),
    );
    assert_eq!(l["result"]["resultType"], "complete");
    assert!(l["result"]["ttlMs"].is_u64() && l["result"]["cacheScope"] == "public");
    assert!(
        l["result"]["tools"][0].get("execution").is_none(),
        "execution moved out of Tool at 2026-07-28"
    );

    let r = c.request(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"_meta": meta, "name": "stats", "arguments": {"numbers": "x"}}}));
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["resultType"], "complete");

    let r = c.request(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}));
    assert_eq!(code(&r), -32022);
    assert_eq!(r["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert_eq!(r["error"]["data"]["requested"], "2099-01-01");
    let r = c.request(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": 7}}}));
    assert_eq!(code(&r), -32602);
}

#[test]
fn initialize_negotiates_and_listing_follows_the_version() {
    let server = server_with(vec![stats_tool()], 10);
    let c = Client::new(&server);
    let r = c.request(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "1999-01-01", "capabilities": {}}}));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    assert!(r["result"]["capabilities"]["tools"].is_object());
    let list = |v: &str| {
        Client::at(&server, v, json!({}))
            .request(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))["result"]["tools"]
            [0]
        .clone()
    };
    let old = list("2024-11-05");
    assert!(
        old.get("title").is_none()
            && old.get("outputSchema").is_none()
            && old.get("annotations").is_none(),
        "{old}"
    );
    assert_eq!(
        old["inputSchema"]["type"], "object",
        "the default object root is written out"
    );
    let mid = list("2025-03-26");
    assert!(mid["annotations"]["readOnlyHint"] == true && mid.get("outputSchema").is_none());
    let new = list("2025-11-25");
    assert_eq!(new["title"], "Stats");
    assert_eq!(new["outputSchema"]["type"], "object");
    assert_eq!(new["execution"]["taskSupport"], "optional");
    assert!(list("2025-06-18").get("execution").is_none());
}

#[test]
fn pagination_is_deterministic_and_cursors_are_checked() {
    let tools: Vec<Tool> = (0..5)
        .map(|i| Tool::builder(format!("t{i}")).build().unwrap())
        .collect();
    let c = Client::at(&server_with(tools, 2), "2025-11-25", json!({}));
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    for _ in 0..3 {
        let r = c.request(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": cursor}}));
        names.extend(
            r["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
        cursor = r["result"]
            .get("nextCursor")
            .cloned()
            .unwrap_or(Value::Null);
    }
    assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
    assert!(cursor.is_null());
    for bad in [
        json!("ts1.0"),
        json!("ts1.ff"),
        json!("ts1."),
        json!(""),
        json!(3),
    ] {
        let r = c.request(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": bad}}),
        );
        assert_eq!(code(&r), -32602, "{bad}");
    }
}

#[test]
fn results_are_checked_against_the_output_schema() {
    let obj = json!({"properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let tools = vec![
        fixed(
            "ok",
            Some(obj.clone()),
            CallToolResult::structured(json!({"n": 1})),
        ),
        fixed(
            "wrong",
            Some(obj.clone()),
            CallToolResult::structured(json!({"n": SECRET})),
        ),
        fixed(
            "absent",
            Some(obj.clone()),
            CallToolResult::text("no structure"),
        ),
        fixed(
            "null_for_object",
            Some(obj.clone()),
            CallToolResult::structured(Value::Null),
        ),
        fixed(
            "error_passes",
            Some(obj.clone()),
            CallToolResult::error("boom").with_structured(json!({"n": "x"})),
        ),
        fixed(
            "null_ok",
            Some(json!({"type": "null"})),
            CallToolResult::structured(Value::Null),
        ),
        fixed(
            "zero",
            Some(json!({"type": "integer"})),
            CallToolResult::structured(json!(0)),
        ),
        fixed(
            "list",
            Some(
                json!({"type": "array", "items": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": "number"}}}),
            ),
            CallToolResult::structured(json!([1, 2])),
        ),
        fixed(
            "no_schema",
            None,
            CallToolResult::structured(json!(false)).with_content(Content::text("f")),
        ),
    ];
    let server = server_with(tools, 20);
    let c = Client::at(&server, "2025-11-25", json!({}));
    assert_eq!(
        c.call("ok", json!({}))["result"]["structuredContent"],
        json!({"n": 1})
    );
    assert_eq!(
        c.call("ok", json!({}))["result"]["content"][0]["text"],
        r#"{"n":1}"#
    );
    // A result breaking the tool's own schema is the server's fault: an `isError` result
    // naming the location, never `-32602` (which blames the client), never the value.
    for (name, location) in [
        ("wrong", "- /n: "),
        ("absent", "- /: "),
        ("null_for_object", "- /: "),
    ] {
        let r = c.call(name, json!({}));
        assert_eq!(r["result"]["isError"], true, "{name}: {r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("does not match its own output schema"),
            "{text}"
        );
        assert!(text.contains(location), "{name}: {text}");
        assert!(!r.to_string().contains(SECRET));
    }
    assert_eq!(c.call("error_passes", json!({}))["result"]["isError"], true);
    let r = c.call("null_ok", json!({}));
    assert_eq!(r["result"]["content"][0]["text"], "null", "{r}");
    // Wrapped for clients before 2026-07-28, bare from 2026-07-28 on.
    let r = c.call("zero", json!({}));
    assert_eq!(r["result"]["structuredContent"], json!({"result": 0}));
    assert_eq!(r["result"]["content"][0]["text"], "0");
    let listed = c.request(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    let list_tool = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "list")
        .unwrap()
        .clone();
    let wrapped = toolschema::Schema::compile(&list_tool["outputSchema"]).unwrap();
    assert_eq!(list_tool["outputSchema"]["type"], "object");
    assert!(wrapped.is_valid(&c.call("list", json!({}))["result"]["structuredContent"]));
    assert!(
        !wrapped.is_valid(&json!({"result": ["x"]})),
        "refs still resolve after wrapping"
    );
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let r = c.request(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"_meta": meta, "name": "zero"}}));
    assert_eq!(r["result"]["structuredContent"], json!(0));
    assert_eq!(
        c.call("no_schema", json!({}))["result"]["content"],
        json!([{"type": "text", "text": "f"}])
    );
    // Before 2025-06-18 there is no structuredContent on the wire; the text mirror remains.
    let r = Client::at(&server, "2025-03-26", json!({})).call("ok", json!({}));
    assert!(
        r["result"].get("structuredContent").is_none()
            && r["result"]["content"][0]["text"] == r#"{"n":1}"#
    );
}

#[test]
fn handler_errors_and_panics_are_internal_errors_and_the_server_goes_on() {
    let failing = Tool::builder("fails")
        .handler(|_, _| Err(format!("db password {SECRET}").into()))
        .build()
        .unwrap();
    let panicking = Tool::builder("panics")
        .handler(|_, _| panic!("handler bug"))
        .build()
        .unwrap();
    let c = Client::at(
        &server_with(vec![failing, panicking], 10),
        "2025-11-25",
        json!({}),
    );
    for name in ["fails", "panics", "fails"] {
        let r = c.call(name, json!({}));
        assert_eq!(code(&r), -32603);
        assert!(!r.to_string().contains(SECRET));
    }
    assert_eq!(
        c.request(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}))["result"],
        json!({})
    );
}

#[test]
fn calls_run_concurrently_and_cancellation_silences_them() {
    let saw = Arc::new(AtomicBool::new(false));
    let c = Client::at(
        &server_with(vec![slow_tool(Arc::clone(&saw))], 10),
        "2025-11-25",
        json!({}),
    );
    c.send_text(
        &json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "slow", "_meta": {"progressToken": "tok"}}})
        .to_string(),
    );
    let n = c.next();
    assert_eq!(n["method"], "notifications/progress");
    assert_eq!(n["params"]["progressToken"], "tok");
    // A ping is answered while the call runs.
    let started = Instant::now();
    assert_eq!(
        c.request(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}))["result"],
        json!({})
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    // The same id cannot be reused while the call runs.
    let r = c.request(
        &json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "slow"}}),
    );
    assert_eq!(code(&r), -32600);
    c.send_text(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"user"}}"#);
    let deadline = Instant::now() + Duration::from_secs(5);
    while c.conn.in_flight() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        saw.load(Ordering::SeqCst),
        "the handler saw the cancellation flag"
    );
    while let Some(line) = c.try_line(Duration::from_millis(200)) {
        assert!(
            !line.contains("\"id\":41"),
            "a cancelled call got a response: {line}"
        );
    }
}

#[test]
fn batches_follow_the_version() {
    let server = server_with(vec![stats_tool()], 10);
    let c = Client::at(&server, "2025-03-26", json!({}));
    c.send_text(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stats","arguments":{"numbers":[1]}}},5]"#);
    let r = c.next();
    let items = r.as_array().expect("a batch answer is an array");
    assert_eq!(items.len(), 3, "{r}");
    assert_eq!(items[1]["result"]["content"][0]["text"], r#"{"count":1}"#);
    assert_eq!(items[2]["error"]["code"], -32600);
    c.send_text("[]");
    assert_eq!(code(&c.next()), -32600);
    let c = Client::at(&server, "2025-06-18", json!({}));
    c.send_text(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    let r = c.next();
    assert_eq!(code(&r), -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("batches"));
}

#[test]
fn tool_definitions_are_checked_when_defined() {
    for name in ["", "has space", "emoji😀", &"x".repeat(129)] {
        assert!(Tool::builder(name).build().is_err(), "{name:?}");
    }
    assert!(Tool::builder("a-b.c_D9").build().is_ok());
    assert!(
        Tool::builder("t")
            .input_schema(json!({"type": "array"}))
            .build()
            .is_err()
    );
    assert!(
        Tool::builder("t")
            .input_schema(json!({"type": "string"}))
            .build()
            .is_err()
    );
    assert!(
        Tool::builder("t")
            .input_schema(json!({"properties": {"a": {"minLength": -1}}}))
            .build()
            .is_err()
    );
    let e = Tool::builder("t")
        .input_schema(json!({"$schema": "https://example.com/my-dialect"}))
        .build()
        .unwrap_err();
    assert!(
        e.to_string().contains("$schema")
            && e.to_string().contains("https://example.com/my-dialect"),
        "{e}"
    );
    let e = Tool::builder("t")
        .output_schema(json!({"$schema": "urn:nope", "type": "object"}))
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("urn:nope"), "{e}");
    // Output schema: object assumed only when the root declares nothing that says otherwise.
    let t = Tool::builder("t")
        .output_schema(json!({"properties": {"a": {"type": "string"}}}))
        .build()
        .unwrap();
    assert!(!t.output_schema().unwrap().is_valid(&json!([1])));
    let t = Tool::builder("t")
        .output_schema(json!({"oneOf": [{"type": "string"}, {"type": "array"}]}))
        .build()
        .unwrap();
    assert!(t.output_schema().unwrap().is_valid(&json!("s")));
    let t = Tool::builder("t")
        .output_schema(json!({"enum": [1, 2]}))
        .build()
        .unwrap();
    assert!(t.output_schema().unwrap().is_valid(&json!(2)));
    // Duplicates are refused by the server builder.
    assert!(
        Server::builder("s", "1")
            .tool(stats_tool())
            .tool(stats_tool())
            .build()
            .is_err()
    );
    // From JSON, with field types checked.
    assert!(Tool::from_json(&json!({"name": "t"})).is_err());
    assert!(
        Tool::from_json(
            &json!({"name": "t", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}})
        )
        .is_err()
    );
    assert!(
        Tool::from_json(
            &json!({"name": "t", "inputSchema": {}, "execution": {"taskSupport": "always"}})
        )
        .is_err()
    );
    assert!(
        Tool::from_json(
            &json!({"name": "t", "inputSchema": {}, "icons": [{"src": "https://x/i.png"}]})
        )
        .unwrap()
        .build()
        .is_ok()
    );
}

#[test]
fn annotation_predicates_use_the_spec_defaults() {
    let t = |a: Value| {
        Tool::from_json(&json!({"name": "t", "inputSchema": {}, "annotations": a}))
            .unwrap()
            .build()
            .unwrap()
    };
    let none = t(json!({}));
    assert!(!none.read_only() && none.destructive() && !none.idempotent() && none.open_world());
    let ro = t(json!({"readOnlyHint": true, "destructiveHint": true}));
    assert!(ro.read_only() && !ro.destructive());
    let safe = t(json!({"destructiveHint": false, "idempotentHint": true, "openWorldHint": false}));
    assert!(!safe.destructive() && safe.idempotent() && !safe.open_world());
}

#[test]
fn testing_helpers_call_through_json() {
    let t = stats_tool();
    testing::call(&t, json!({"numbers": [1, 2]}))
        .assert_valid()
        .assert_text("\"count\":2");
    assert_eq!(
        testing::call(&t, json!({"numbers": [1]})).assert_structured(),
        json!({"count": 1})
    );
    testing::call(&t, json!({})).assert_error_matching("missing required property");
    testing::call_at(&t, ProtocolVersion::V2025_06_18, json!({})).assert_protocol_error(-32602);
    testing::call_at(&t, ProtocolVersion::V2026_07_28, json!({"numbers": []})).assert_valid();
    let img = Tool::builder("img")
        .handler(|_, _| Ok(CallToolResult::new().with_content(Content::image("AAAA", "image/png"))))
        .build()
        .unwrap();
    testing::call(&img, json!({})).assert_valid().assert_image();
}
