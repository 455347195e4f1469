//! `toolschema proxy` and `mcp::proxy::Contract`: the library's decisions message by
//! message, the stdio runner's process handling, and real servers and clients end to end.
//!
//! The real parts come from tests/proxy/ (npm, pinned in its package-lock.json) and the
//! `.venv` with the pinned Python MCP SDK; `bash .ci/run` installs both. Missing locally,
//! those tests say so loudly and skip; with `CI=true` they fail.

mod support;

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::installed::{self, root};
use toolschema::mcp::contract::OutputPolicy;
use toolschema_http::proxy::{Action, Contract, ContractOptions, Event, Peer};

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

/// tests/proxy with its npm packages installed.
fn node_dir() -> Option<PathBuf> {
    installed::proxy_packages(&[])
}

fn python() -> Option<PathBuf> {
    installed::python("mcp.server.mcpserver")
}

fn temp_dir(name: &str) -> PathBuf {
    installed::temp_dir(&format!("proxy-{name}"))
}

/// Runs the strict Node client: `node client.mjs PACKAGE TOOL ARGS -- COMMAND...`; answers
/// its JSON lines (listing, then outcome).
fn strict_client(
    dir: &Path,
    package: &str,
    tool: &str,
    args: Value,
    server: &[&str],
) -> Vec<Value> {
    let out = Command::new("node")
        .current_dir(dir)
        .arg("client.mjs")
        .args([package, tool, &args.to_string(), "--"])
        .args(server)
        .output()
        .expect("cannot run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(
        lines.len() == 2,
        "the client did not finish:\n{stdout}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines
}

fn through_proxy<'a>(server: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![BIN, "proxy", "--"];
    v.extend_from_slice(server);
    v
}

// ---- real servers and clients ----

/// The key test: the filesystem server stamps draft-07 on every schema, so the strict
/// 2.0.0-beta.5 client refuses its tools at call time; through the proxy the same call works.
#[test]
fn strict_beta5_client_refuses_the_filesystem_server_directly_and_works_through_the_proxy() {
    let Some(dir) = node_dir() else { return };
    let files = temp_dir("fs");
    std::fs::write(files.join("a.txt"), "hello proxy\n").unwrap();
    let files_arg = files.to_str().unwrap();
    let server = [
        "node",
        "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
        files_arg,
    ];
    let path = files.join("a.txt");
    let args = json!({"path": path});

    let direct = strict_client(
        &dir,
        "client-beta5",
        "read_text_file",
        args.clone(),
        &server,
    );
    // What the pinned server emits: draft-07 on every input and output schema.
    let listed = direct[0]["tools"].as_array().unwrap();
    assert!(listed.len() >= 10);
    for t in listed {
        assert_eq!(t["input"], "http://json-schema.org/draft-07/schema#", "{t}");
    }
    let error = direct[1]["error"].as_str().unwrap_or_default();
    assert!(error.contains("2020-12 only"), "{:?}", direct[1]);

    let proxied = strict_client(
        &dir,
        "client-beta5",
        "read_text_file",
        args,
        &through_proxy(&server),
    );
    for t in proxied[0]["tools"].as_array().unwrap() {
        assert!(t["input"].is_null() && t["output"].is_null(), "{t}");
    }
    let result = &proxied[1]["result"];
    assert_eq!(
        result["structuredContent"]["content"], "hello proxy\n",
        "{:?}",
        proxied[1]
    );
}

/// Through the proxy the upgraded draft-07 tools still have their results checked: a server
/// that breaks its own output schema gets an `isError` result naming the locations, and an
/// invalid call never reaches it.
#[test]
fn strict_client_through_the_proxy_still_gets_results_checked_and_bad_calls_refused() {
    let Some(dir) = node_dir() else { return };
    let work = temp_dir("broken");
    let calls = work.join("calls.jsonl");
    let log = work.join("audit.jsonl");
    let calls_arg = calls.to_str().unwrap();
    let server = ["python3", "broken_server.py", calls_arg];
    let direct = strict_client(
        &dir,
        "client-beta5",
        "forecast",
        json!({"city": "Oslo"}),
        &server,
    );
    assert!(
        direct[1]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("2020-12 only")
    );

    let proxied = |tool: &str, args: Value| {
        let mut cmd = vec![BIN, "proxy", "--log", log.to_str().unwrap(), "--"];
        cmd.extend_from_slice(&server);
        strict_client(&dir, "client-beta5", tool, args, &cmd)
    };
    let good = proxied("forecast", json!({"city": "Oslo"}));
    assert_eq!(
        good[1]["result"]["structuredContent"]["sky"], "clear",
        "{:?}",
        good[1]
    );

    let bad = proxied("broken_forecast", json!({"city": "Oslo"}));
    let result = &bad[1]["result"];
    assert_eq!(result["isError"], true, "{:?}", bad[1]);
    let text = result["content"][0]["text"].as_str().unwrap();
    for location in ["/celsius", "/sky", "/wind"] {
        assert!(text.contains(location), "{text}");
    }
    assert!(
        !text.contains("warm") && !text.contains("raining"),
        "quotes a value: {text}"
    );

    let before = std::fs::read_to_string(&calls).unwrap_or_default();
    let refused = proxied("forecast", json!({"city": ""}));
    assert_eq!(refused[1]["result"]["isError"], true, "{:?}", refused[1]);
    assert!(
        refused[1]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("/city")
    );
    let after = std::fs::read_to_string(&calls).unwrap_or_default();
    assert_eq!(before, after, "the server saw the refused call");
    assert_eq!(
        after.lines().count(),
        2,
        "the two valid calls reached the server"
    );

    let audit: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let directions: Vec<&str> = audit
        .iter()
        .map(|r| r["direction"].as_str().unwrap())
        .collect();
    assert_eq!(directions, ["result", "arguments"], "{audit:?}");
    assert_eq!(audit[1]["errors"][0]["keyword"], "minLength");
    assert!(
        audit
            .iter()
            .all(|r| r["time"].is_string() && r["tool"].is_string())
    );
}

/// The current 2.x client accepts draft-07 but refuses draft-04; `toolschema serve --tools`
/// lists a draft-04 tool as 2020-12 (the one listing rule, see tests/dialect_interop.rs), so
/// the tool works directly and through the proxy.
#[test]
fn current_client_calls_a_draft04_tool_directly_and_through_the_proxy() {
    let Some(dir) = node_dir() else { return };
    let server = [BIN, "serve", "--tools", "draft04_tools.json"];
    let direct = strict_client(&dir, "client-current", "area", json!({"side": 4}), &server);
    assert!(direct[0]["tools"][0]["input"].is_null(), "{:?}", direct[0]);
    assert_eq!(
        direct[1]["result"]["structuredContent"]["area"], 16,
        "{:?}",
        direct[1]
    );
    let proxied = strict_client(
        &dir,
        "client-current",
        "area",
        json!({"side": 4}),
        &through_proxy(&server),
    );
    assert_eq!(
        proxied[1]["result"]["structuredContent"]["area"], 16,
        "{:?}",
        proxied[1]
    );
}

/// The everything server (pinned) declares draft-07 on every input schema and on its one
/// output schema; the current client calls its structured tool through the proxy.
#[test]
fn everything_server_through_the_proxy() {
    let Some(dir) = node_dir() else { return };
    let server = [
        "node",
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        "stdio",
    ];
    let direct = strict_client(
        &dir,
        "client-current",
        "get-sum",
        json!({"a": 2, "b": 3}),
        &server,
    );
    let listed = direct[0]["tools"].as_array().unwrap();
    assert!(
        listed
            .iter()
            .all(|t| t["input"] == "http://json-schema.org/draft-07/schema#")
    );
    let proxied = strict_client(
        &dir,
        "client-current",
        "get-structured-content",
        json!({"location": "New York"}),
        &through_proxy(&server),
    );
    assert!(
        proxied[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["input"].is_null())
    );
    let result = &proxied[1]["result"];
    assert!(
        result["structuredContent"].is_object() && result.get("isError").is_none(),
        "{result}"
    );
    let refused = strict_client(
        &dir,
        "client-current",
        "get-sum",
        json!({"a": "two", "b": 3}),
        &through_proxy(&server),
    );
    let text = refused[1]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("invalid arguments for tool get-sum") && text.contains("/a"),
        "{:?}",
        refused[1]
    );
}

/// The Python SDK client through the proxy in front of a Python SDK server (MCPServer, once
/// FastMCP), at three protocol versions: refusals, the server never seeing a refused call,
/// a 10 MB result and 1,000 concurrent calls.
#[test]
fn python_sdk_client_and_server_through_the_proxy() {
    let Some(python) = python() else { return };
    let work = temp_dir("python");
    let dir = root().join("tests/proxy");
    let out = Command::new(python)
        .arg(dir.join("python_client.py"))
        .arg(BIN)
        .arg(dir.join("python_server.py"))
        .arg(work.join("calls.txt"))
        .arg(work.join("audit.jsonl"))
        .output()
        .expect("cannot run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success() && stdout.contains(" passed, 0 failed"),
        "{stdout}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let audit = std::fs::read_to_string(work.join("audit.jsonl")).unwrap();
    assert_eq!(
        audit.lines().count(),
        3,
        "one refused call per version: {audit}"
    );
    assert!(!audit.contains("SECRET"), "{audit}");
}

// ---- the stdio runner ----

fn run_proxy(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .arg("proxy")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
        .collect()
}

#[test]
fn the_servers_exit_code_and_stderr_pass_through() {
    let out = run_proxy(&["--", "sh", "-c", "echo from-the-server >&2; exit 7"], "");
    assert_eq!(out.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&out.stderr).contains("from-the-server"));
}

#[test]
fn closing_stdin_ends_the_server_cleanly_after_its_answers() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    // The call comes before any listing: the proxy lists first, then checks it.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"location": "Oslo"}}});
    let bad = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"units": "kelvin"}}});
    let input = format!("{init}\n{call}\n{bad}\n");
    let out = run_proxy(&["--", BIN, "serve"], &input);
    assert_eq!(out.status.code(), Some(0));
    let answers = lines(&out);
    let by_id = |id: i64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(by_id(1)["result"]["protocolVersion"], "2025-06-18");
    assert!(
        by_id(2)["result"]["structuredContent"]["condition"].is_string(),
        "{answers:?}"
    );
    assert_eq!(by_id(3)["error"]["code"], -32602, "{answers:?}");
    assert_eq!(
        answers.len(),
        3,
        "the proxy's own listing never reaches the client: {answers:?}"
    );
}

#[test]
fn malformed_and_oversized_client_lines_are_answered_not_forwarded() {
    let long = format!("{{\"pad\": \"{}\"}}", "x".repeat(2000));
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let input = format!("not json\n{long}\n{ping}\n");
    let out = run_proxy(&["--max-message-bytes", "1000", "--", BIN, "serve"], &input);
    let answers = lines(&out);
    let codes: Vec<&Value> = answers.iter().map(|a| &a["error"]["code"]).collect();
    assert_eq!(
        codes,
        [&json!(-32700), &json!(-32600), &Value::Null],
        "{answers:?}"
    );
    assert_eq!(answers[2]["id"], 9);
}

// ---- the Contract, message by message ----

fn initialized(version: &str) -> Contract {
    initialized_with(version, ContractOptions::default())
}

fn initialized_with(version: &str, options: ContractOptions) -> Contract {
    let mut c = Contract::new(options);
    c.from_client(&json!({"jsonrpc": "2.0", "id": "i", "method": "initialize",
        "params": {"protocolVersion": version}}));
    c.from_server(&json!({"jsonrpc": "2.0", "id": "i", "result": {"protocolVersion": version}}));
    c
}

fn list(
    c: &mut Contract,
    id: i64,
    cursor: Option<&str>,
    tools: Value,
    next: Option<&str>,
) -> Vec<Action> {
    let params = match cursor {
        Some(cur) => json!({"cursor": cur}),
        None => json!({}),
    };
    c.from_client(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}));
    let mut result = json!({"tools": tools});
    if let Some(n) = next {
        result["nextCursor"] = json!(n);
    }
    c.from_server(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn call(c: &mut Contract, id: i64, name: &str, args: Value) -> Vec<Action> {
    c.from_client(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": args}}))
}

fn sent(actions: &[Action], to: Peer) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Send(p, v) if *p == to => Some(v.clone()),
            _ => None,
        })
        .collect()
}

fn tool(name: &str, input: Value) -> Value {
    json!({"name": name, "inputSchema": input})
}

#[test]
fn refusals_follow_the_protocol_version() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    for (version, as_result) in [("2025-06-18", false), ("2025-11-25", true)] {
        let mut c = initialized(version);
        list(&mut c, 1, None, json!([tool("t", schema.clone())]), None);
        assert_eq!(call(&mut c, 2, "t", json!({"n": 1})), [Action::Forward]);
        let actions = call(&mut c, 3, "t", json!({"n": "SECRET"}));
        assert!(
            matches!(&actions[0], Action::Report(Event::RefusedCall(v)) if v.violations()[0].keyword == "type")
        );
        let answer = &sent(&actions, Peer::Client)[0];
        assert!(!answer.to_string().contains("SECRET"));
        if as_result {
            assert_eq!(answer["result"]["isError"], true, "{answer}");
        } else {
            assert_eq!(answer["error"]["code"], -32602, "{answer}");
        }
        assert!(sent(&actions, Peer::Server).is_empty());
    }
    // 2026-07-28: the version comes from the request's `_meta`, and results say `complete`.
    let mut c = Contract::new(ContractOptions::default());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    c.from_client(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
    );
    c.from_server(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("t", schema)]}}));
    let actions = c.from_client(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "t", "arguments": {}, "_meta": meta}}));
    let answer = &sent(&actions, Peer::Client)[0];
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
}

#[test]
fn pages_are_compiled_and_list_changed_forgets_them() {
    let mut c = initialized("2025-11-25");
    let strict =
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]});
    list(
        &mut c,
        1,
        None,
        json!([tool("a", strict.clone())]),
        Some("p2"),
    );
    list(
        &mut c,
        2,
        Some("p2"),
        json!([tool("b", strict.clone())]),
        None,
    );
    assert!(c.tool("a").is_some() && c.tool("b").is_some());
    assert!(sent(&call(&mut c, 3, "b", json!({})), Peer::Client)[0]["result"]["isError"] == true);

    assert_eq!(
        c.from_server(&json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
        [Action::Forward]
    );
    // The next call is held while the proxy lists again by itself.
    let actions = call(&mut c, 4, "b", json!({"x": "ok"}));
    let own = &sent(&actions, Peer::Server)[0];
    assert_eq!(own["method"], "tools/list");
    assert!(sent(&actions, Peer::Client).is_empty() && c.is_holding());
    let relaxed = json!({"type": "object"});
    let actions = c.from_server(
        &json!({"jsonrpc": "2.0", "id": own["id"], "result": {"tools": [tool("b", relaxed)]}}),
    );
    // The own listing is not shown to the client; the held call goes to the server.
    assert!(sent(&actions, Peer::Client).is_empty());
    assert_eq!(sent(&actions, Peer::Server)[0]["id"], 4);
    assert!(!c.is_holding());
}

#[test]
fn broken_schemas_are_reported_and_passed_or_hidden() {
    let broken = json!({"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}});
    let tools = json!([
        tool("broken", broken),
        tool("fine", json!({"type": "object"}))
    ]);
    let mut c = initialized("2025-11-25");
    let actions = list(&mut c, 1, None, tools.clone(), None);
    assert!(actions.iter().any(
        |a| matches!(a, Action::Report(Event::BrokenSchema { problem, hidden: false })
        if problem.tool == "broken" && problem.location.starts_with("/inputSchema"))
    ));
    assert!(actions.contains(&Action::Forward));
    assert_eq!(
        call(&mut c, 2, "broken", json!({"anything": 1})),
        [Action::Forward]
    );

    let options = ContractOptions {
        hide_broken_tools: true,
        ..ContractOptions::default()
    };
    let mut c = initialized_with("2025-11-25", options);
    let actions = list(&mut c, 1, None, tools, None);
    let shown = &sent(&actions, Peer::Client)[0]["result"]["tools"];
    assert_eq!(shown.as_array().unwrap().len(), 1, "{shown}");
    assert_eq!(
        sent(&call(&mut c, 2, "broken", json!({})), Peer::Client)[0]["error"]["code"],
        -32602
    );
}

#[test]
fn results_are_checked_wrapped_and_mirrored() {
    let listed = json!([{"name": "n", "inputSchema": {"type": "object"},
                         "outputSchema": {"type": "array", "items": {"type": "integer"}}}]);
    let mut c = initialized("2025-06-18");
    let actions = list(&mut c, 1, None, listed.clone(), None);
    let shown = &sent(&actions, Peer::Client)[0]["result"]["tools"][0]["outputSchema"];
    assert_eq!(
        shown["type"], "object",
        "wrapped for a client before 2026-07-28: {shown}"
    );
    call(&mut c, 2, "n", json!({}));
    let actions =
        c.from_server(&json!({"jsonrpc": "2.0", "id": 2, "result": {"structuredContent": [1, 2]}}));
    let answer = &sent(&actions, Peer::Client)[0]["result"];
    assert_eq!(answer["structuredContent"], json!({"result": [1, 2]}));
    assert_eq!(answer["content"][0]["text"], "[1,2]");

    call(&mut c, 3, "n", json!({}));
    let actions =
        c.from_server(&json!({"jsonrpc": "2.0", "id": 3, "result": {"structuredContent": ["x"]}}));
    assert!(matches!(&actions[0], Action::Report(Event::BadOutput(_))));
    assert_eq!(sent(&actions, Peer::Client)[0]["result"]["isError"], true);

    for policy in [OutputPolicy::Log, OutputPolicy::Pass] {
        let options = ContractOptions {
            on_bad_output: policy,
            ..ContractOptions::default()
        };
        let mut c = initialized_with("2026-07-28", options);
        list(&mut c, 1, None, listed.clone(), None);
        call(&mut c, 2, "n", json!({}));
        let bad = json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "structuredContent": ["x"]}});
        let actions = c.from_server(&bad);
        let reported = actions
            .iter()
            .any(|a| matches!(a, Action::Report(Event::BadOutput(_))));
        assert_eq!(reported, policy == OutputPolicy::Log);
        // Mirrored (no content block), not wrapped at 2026-07-28.
        let answer = &sent(&actions, Peer::Client)[0]["result"];
        assert_eq!(answer["structuredContent"], json!(["x"]), "{policy:?}");
        assert_eq!(answer["content"][0]["text"], "[\"x\"]", "{policy:?}");
    }
}

#[test]
fn everything_else_passes_unchanged_in_both_directions() {
    let mut c = initialized("2025-11-25");
    for m in [
        json!({"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "elicitation/create", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 77, "result": {}}),
    ] {
        assert_eq!(c.from_server(&m), [Action::Forward], "{m}");
    }
    for m in [
        json!({"jsonrpc": "2.0", "id": 5, "result": {"role": "assistant"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "x/unknown"}),
        json!({"jsonrpc": "2.0", "id": 9, "method": "server/discover"}),
    ] {
        assert_eq!(c.from_client(&m), [Action::Forward], "{m}");
    }
}

#[test]
fn batches_pass_or_split_at_2025_03_26() {
    let mut c = initialized("2025-03-26");
    let schema = json!({"type": "object", "required": ["x"]});
    list(&mut c, 1, None, json!([tool("t", schema)]), None);
    let ok = json!([{"jsonrpc": "2.0", "id": 2, "method": "ping"},
                    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": {"x": 1}}}]);
    assert_eq!(c.from_client(&ok), [Action::Forward]);
    let mixed = json!([{"jsonrpc": "2.0", "id": 4, "method": "ping"},
                       {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "t", "arguments": {}}}]);
    let actions = c.from_client(&mixed);
    let to_server = &sent(&actions, Peer::Server)[0];
    let to_client = &sent(&actions, Peer::Client)[0];
    assert_eq!(to_server.as_array().unwrap().len(), 1);
    assert_eq!(to_server[0]["id"], 4);
    assert_eq!(to_client[0]["id"], 5);
    assert_eq!(to_client[0]["error"]["code"], -32602);
}

/// Progress from the server and cancellation from the client cross the proxy: the slow
/// call reports progress, is cancelled, never answers, and the session goes on.
#[test]
fn progress_and_cancellation_cross_the_proxy() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(BIN)
        .args(["proxy", "--", BIN, "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut send = |m: Value| writeln!(stdin, "{m}").unwrap();
    let mut next = || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    assert_eq!(next()["id"], 1);
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(next()["id"], 2);
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"seconds": 30}, "_meta": {"progressToken": "p"}}}),
    );
    let progress = loop {
        let m = next();
        if m["method"] == "notifications/progress" {
            break m;
        }
    };
    assert_eq!(progress["params"]["progressToken"], "p");
    send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
    );
    send(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}));
    let answer = loop {
        let m = next();
        if m.get("id").is_some() {
            break m;
        }
    };
    assert_eq!(answer["id"], 4, "the cancelled call answered: {answer}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

// ---- the scripted server: oversized lines, interleaved listings, server requests ----

/// A proxy in front of tests/proxy/scripted_server.py, driven line by line; every read
/// times out rather than hang the test.
struct Scripted {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    /// What the server received, one JSON line per message.
    log: PathBuf,
    audit: PathBuf,
    stderr: PathBuf,
    /// Answers read while waiting for another id.
    early: Vec<Value>,
}

impl Scripted {
    fn start(name: &str, args: &[&str]) -> Scripted {
        let script = root().join("tests/proxy/scripted_server.py");
        let server = ["python3", script.to_str().unwrap()];
        Scripted::start_with(name, args, &server, true, "2025-11-25")
    }

    /// The proxy in front of `server` (with the log file as its last argument when
    /// `log_arg`), initialized at `version`.
    fn start_with(
        name: &str,
        args: &[&str],
        server: &[&str],
        log_arg: bool,
        version: &str,
    ) -> Scripted {
        use std::io::BufRead;
        let work = temp_dir(name);
        let (log, audit, stderr) = (
            work.join("server.jsonl"),
            work.join("audit.jsonl"),
            work.join("stderr.txt"),
        );
        let mut child = Command::new(BIN)
            .arg("proxy")
            .arg("--log")
            .arg(&audit)
            .args(args)
            .arg("--")
            .args(server)
            .args(log_arg.then_some(&log))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut s = Scripted {
            child,
            stdin,
            lines,
            log,
            audit,
            stderr,
            early: Vec::new(),
        };
        s.send(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
        assert_eq!(s.next()["id"], "init");
        s
    }

    fn send(&mut self, m: &Value) {
        self.send_raw(&m.to_string());
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no message within 20 s; stderr: {}", self.stderr()));
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:.200}"))
    }

    /// The answer with that id (skipping notifications and server requests). Answers to
    /// other ids that arrive first are kept for their own `answer` call: the proxy may
    /// answer concurrent requests in either order.
    fn answer(&mut self, id: Value) -> Value {
        if let Some(at) = self.early.iter().position(|m| m["id"] == id) {
            return self.early.remove(at);
        }
        loop {
            let m = self.next();
            if m.get("method").is_some() {
                continue;
            }
            if m["id"] == id {
                return m;
            }
            self.early.push(m);
        }
    }

    fn server_saw(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.audit)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

fn call_msg(id: impl Into<Value>, name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call",
        "params": {"name": name, "arguments": args}})
}

/// A server answer over the limit is dropped, and the request it answered gets an answer
/// in its place under its id (found at the end of the line, where the TypeScript SDK puts
/// it): an `isError` result for a call, `-32603` for anything else. An oversized request
/// from the server is answered to the server; an oversized notification only reported.
#[test]
fn oversized_server_lines_are_answered_under_their_id() {
    let limit = 100_000;
    let mut s = Scripted::start(
        "oversized-server",
        &["--max-server-message-bytes", &limit.to_string()],
    );
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    s.answer(json!(1));
    // Just under the limit passes; over it, the call fails under its own id.
    s.send(&call_msg(2, "huge", json!({"bytes": limit - 200})));
    let fits = s.answer(json!(2));
    assert_eq!(
        fits["result"]["content"][0]["text"].as_str().map(str::len),
        Some(limit - 200)
    );
    s.send(&call_msg("big", "huge", json!({"bytes": 5 * limit})));
    let failed = s.answer(json!("big"));
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let text = failed["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("huge") && text.contains(&limit.to_string()),
        "{text}"
    );
    s.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "test/huge", "params": {"bytes": 3 * limit}}),
    );
    assert_eq!(s.answer(json!(3))["error"]["code"], -32603);
    // The server's own oversized request is refused to the server (it says what it got
    // back); its oversized notification never reaches the client.
    s.send(&call_msg(4, "shout", json!({"bytes": 2 * limit})));
    let shout = s.answer(json!(4));
    let got: Value =
        serde_json::from_str(shout["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(got["big"]["error"], -32600, "{shout}");
    s.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}));
    assert_eq!(s.answer(json!(5))["result"], json!({}));
    let saw = s.server_saw();
    assert!(
        saw.iter()
            .any(|m| m["id"] == "big-4" && m["error"] == -32600),
        "{saw:?}"
    );
    let status = s.stderr();
    let audit = s.audit();
    assert!(s.finish().success());
    assert!(status.contains("no id found to answer"), "{status}");
    assert!(
        status.contains("answered in its place for id \"big\""),
        "{status}"
    );
    let oversized: Vec<&Value> = audit.iter().filter(|r| r["event"] == "oversized").collect();
    assert_eq!(oversized.len(), 4, "{audit:?}");
    assert_eq!(oversized[0]["tool"], "huge");
    assert!(
        oversized
            .iter()
            .all(|r| r["from"] == "server" && r["limit"] == limit)
    );
    assert!(!audit.iter().any(|r| r.to_string().contains("xxxx")));
}

/// A client line over the limit is answered as `serve` answers one (`-32600`), under its id
/// when the line has one; an oversized answer to a server's request is answered to the
/// server in its place. Nothing of either reaches the server.
#[test]
fn oversized_client_lines_are_answered_under_their_id() {
    let limit = 50_000;
    let mut s = Scripted::start(
        "oversized-client",
        &["--max-message-bytes", &limit.to_string()],
    );
    let pad = "p".repeat(2 * limit);
    s.send_raw(&format!(
        r#"{{"jsonrpc": "2.0", "method": "tools/call", "params": {{"name": "t0", "arguments": {{"n": 1, "pad": "{pad}"}}}}, "id": 7}}"#
    ));
    let refused = s.answer(json!(7));
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    s.send_raw(&format!(
        r#"{{"jsonrpc": "2.0", "method": "notifications/x", "params": {{"pad": "{pad}"}}}}"#
    ));
    assert_eq!(
        s.next(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
        "message": format!("message too large: the limit is {limit} bytes")}})
    );
    // The server asks the client; the client's huge answer becomes an error for the server.
    s.send(&call_msg(8, "ask", json!({})));
    for _ in 0..5 {
        let m = s.next();
        match m["method"].as_str() {
            Some("sampling/createMessage") => s.send_raw(&format!(
                r#"{{"jsonrpc": "2.0", "result": {{"role": "assistant", "content": {{"type": "text", "text": "{pad}"}}}}, "id": {}}}"#,
                m["id"]
            )),
            Some("elicitation/create") => s.send(
                &json!({"jsonrpc": "2.0", "id": m["id"], "result": {"action": "decline"}}),
            ),
            _ => {}
        }
    }
    let asked = s.answer(json!(8));
    let got: Value =
        serde_json::from_str(asked["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(got["sampling/createMessage"]["error"], -32603, "{asked}");
    assert_eq!(got["elicitation/create"]["action"], "decline", "{asked}");
    let saw = s.server_saw();
    assert!(
        !saw.iter()
            .any(|m| m["id"] == 7 || m["method"] == "notifications/x"),
        "{saw:?}"
    );
    let audit = s.audit();
    assert!(s.finish().success());
    let from_client = audit.iter().filter(|r| r["from"] == "client").count();
    assert_eq!(from_client, 3, "{audit:?}");
}

fn numbered(range: std::ops::Range<usize>) -> Value {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    Value::Array(
        range
            .map(|i| tool(&format!("t{i}"), schema.clone()))
            .collect(),
    )
}

fn page_answer(id: &Value, tools: Value, next: Option<&str>) -> Value {
    let mut result = json!({"tools": tools});
    if let Some(n) = next {
        result["nextCursor"] = json!(n);
    }
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn list_request(id: i64, cursor: Option<&str>) -> Value {
    match cursor {
        Some(c) => {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"cursor": c}})
        }
        None => json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
    }
}

/// The one own `tools/list` request in `actions`, with its cursor.
fn own_list(actions: &[Action]) -> (Value, Option<String>) {
    let reqs = sent(actions, Peer::Server);
    let req = reqs
        .iter()
        .find(|m| m["method"] == "tools/list")
        .unwrap_or_else(|| panic!("no own listing in {actions:?}"));
    let cursor = req["params"]["cursor"].as_str().map(str::to_string);
    (req["id"].clone(), cursor)
}

fn refused(actions: &[Action]) -> bool {
    actions
        .iter()
        .any(|a| matches!(a, Action::Report(Event::RefusedCall(_))))
}

/// The client's pagination and the proxy's own (started by a call for an unseen tool)
/// interleave page by page; each keeps its own pages, the client's pages pass as they
/// came, and the tools known afterwards are the whole list (a mixed accumulator once left
/// only the last pages known, and calls for the first tools went through unchecked).
#[test]
fn interleaved_listings_keep_their_own_pages() {
    let mut c = initialized("2025-11-25");
    let pages = [
        (None, 0..2, Some("2")),
        (Some("2"), 2..4, Some("4")),
        (Some("4"), 4..6, None),
    ];
    // Client page 1.
    c.from_client(&list_request(1, None));
    let first = page_answer(&json!(1), numbered(0..2), Some("2"));
    assert_eq!(c.from_server(&first), [Action::Forward]);
    // A call for a tool not listed yet: held, the proxy lists on its own.
    let held = c.from_client(&call_msg(50, "t5", json!({"n": "five"})));
    assert!(sent(&held, Peer::Client).is_empty());
    let (mut own_id, mut own_cursor) = own_list(&held);
    assert_eq!(own_cursor, None);
    let mut client_page = 1;
    let mut own_done = None;
    while client_page < pages.len() || own_done.is_none() {
        if own_done.is_none() {
            let (_, range, next) = pages
                .iter()
                .find(|p| p.0.map(str::to_string) == own_cursor)
                .cloned()
                .unwrap();
            let actions = c.from_server(&page_answer(&own_id, numbered(range), next));
            assert!(
                !actions.iter().any(|a| matches!(a, Action::Forward))
                    && sent(&actions, Peer::Client)
                        .iter()
                        .all(|m| m["result"]["tools"].is_null()),
                "the own listing reached the client: {actions:?}"
            );
            if next.is_some() {
                (own_id, own_cursor) = own_list(&actions);
            } else {
                own_done = Some(actions);
            }
        }
        if client_page < pages.len() {
            let (cursor, range, next) = pages[client_page].clone();
            let id = 10 + client_page as i64;
            assert_eq!(c.from_client(&list_request(id, cursor)), [Action::Forward]);
            let page = page_answer(&json!(id), numbered(range), next);
            assert_eq!(c.from_server(&page), [Action::Forward]);
            client_page += 1;
        }
    }
    // The held call was checked against the listing: refused, never forwarded.
    let released = own_done.unwrap();
    assert!(refused(&released), "{released:?}");
    assert!(sent(&released, Peer::Server).is_empty(), "{released:?}");
    // Every tool is known, from the first page to the last.
    for i in 0..6 {
        let actions = call(&mut c, 100 + i, &format!("t{i}"), json!({"n": "x"}));
        assert!(refused(&actions), "t{i}: {actions:?}");
    }
}

/// Two client paginations at once, over the same cursors, and one abandoned half-way:
/// each complete one is a whole listing.
#[test]
fn concurrent_client_paginations_do_not_mix() {
    let mut c = initialized("2025-11-25");
    c.from_client(&list_request(1, None));
    c.from_client(&list_request(2, None));
    c.from_server(&page_answer(&json!(1), numbered(0..2), Some("2")));
    c.from_server(&page_answer(&json!(2), numbered(0..2), Some("2")));
    c.from_client(&list_request(3, Some("2")));
    c.from_server(&page_answer(&json!(3), numbered(2..4), None));
    for i in 0..4 {
        assert!(
            refused(&call(&mut c, 100 + i, &format!("t{i}"), json!({}))),
            "t{i}"
        );
    }
}

/// `list_changed` in the middle of a pagination: pages from before and after the change
/// are not a snapshot. The client's pages still pass; the proxy does not take them for
/// the list, and its own listing, caught by a change too, starts again.
#[test]
fn a_list_change_mid_pagination_is_not_taken_for_a_snapshot() {
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
    let mut c = initialized("2025-11-25");
    c.from_client(&list_request(1, None));
    c.from_server(&page_answer(&json!(1), numbered(0..2), Some("2")));
    assert_eq!(c.from_server(&changed), [Action::Forward]);
    c.from_client(&list_request(2, Some("2")));
    assert_eq!(
        c.from_server(&page_answer(&json!(2), numbered(2..4), None)),
        [Action::Forward]
    );
    // Not taken: a call for t0 makes the proxy list on its own.
    let held = c.from_client(&call_msg(3, "t0", json!({"n": 0})));
    let (id, cursor) = own_list(&held);
    assert_eq!(cursor, None);
    let next = c.from_server(&page_answer(&id, numbered(0..2), Some("2")));
    let (id, cursor) = own_list(&next);
    assert_eq!(cursor.as_deref(), Some("2"));
    // The tools change under the own listing too: it starts again from the first page.
    c.from_server(&changed);
    let again = c.from_server(&page_answer(&id, numbered(2..4), None));
    let (id, cursor) = own_list(&again);
    assert_eq!(cursor, None, "{again:?}");
    assert!(c.is_holding());
    let next = c.from_server(&page_answer(&id, numbered(0..3), Some("3")));
    let (id, _) = own_list(&next);
    let done = c.from_server(&page_answer(&id, numbered(3..5), None));
    // Released and checked: valid, so forwarded as it came.
    assert_eq!(
        sent(&done, Peer::Server),
        [call_msg(3, "t0", json!({"n": 0}))]
    );
    assert!(!c.is_holding());
    assert!(refused(&call(&mut c, 4, "t4", json!({}))));
}

/// End to end against a server with four pages: a call for an unseen tool starts the
/// proxy's own listing while the client pages through; the client's pages arrive whole and
/// in order, the held call is refused, and every tool is checked afterwards. After the
/// server's tools change, a call for the new tool makes the proxy list again.
#[test]
fn a_paginating_client_and_the_proxys_own_listing_interleave() {
    let mut s = Scripted::start("interleave", &[]);
    s.send(&list_request(1, None));
    let mut page = s.answer(json!(1));
    let mut seen: Vec<String> = Vec::new();
    let mut id = 1;
    loop {
        for t in page["result"]["tools"].as_array().unwrap() {
            seen.push(t["name"].as_str().unwrap().to_string());
        }
        let Some(cursor) = page["result"]["nextCursor"].as_str().map(str::to_string) else {
            break;
        };
        if id == 1 {
            // Sent back to back: the proxy's listing and the client's interleave.
            s.send(&call_msg(50, "t5", json!({"n": -1})));
        }
        id += 1;
        s.send(&list_request(id, Some(&cursor)));
        page = s.answer(json!(id));
    }
    assert_eq!(seen, ["t0", "t1", "t2", "t3", "t4", "t5", "t6"]);
    let held = s.answer(json!(50));
    assert_eq!(held["result"]["isError"], true, "{held}");
    for i in 0..7 {
        s.send(&call_msg(60 + i, &format!("t{i}"), json!({"n": "x"})));
        assert_eq!(s.answer(json!(60 + i))["result"]["isError"], true, "t{i}");
    }
    s.send(&call_msg(70, "t6", json!({"n": 6})));
    assert_eq!(
        s.answer(json!(70))["result"]["content"][0]["text"],
        "{\"n\": 6}"
    );
    // The tools change: the new one is found by listing again, and checked.
    s.send(&call_msg(80, "grow", json!({})));
    s.answer(json!(80));
    s.send(&call_msg(81, "late", json!({})));
    assert_eq!(s.answer(json!(81))["result"]["isError"], true);
    let saw = s.server_saw();
    let status = s.stderr();
    assert!(s.finish().success());
    let calls: Vec<&Value> = saw
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| &m["id"])
        .collect();
    assert_eq!(
        calls,
        [&json!(70), &json!(80)],
        "only valid calls reach it: {saw:?}"
    );
    let own = saw
        .iter()
        .filter(|m| m["method"] == "tools/list" && m["id"].is_string())
        .count();
    assert_eq!(own, 8, "two own listings of four pages: {saw:?}");
    // (Only `grow`, which the server does not list, went through unchecked.)
    let unchecked: Vec<&str> = status.lines().filter(|l| l.contains("unchecked")).collect();
    assert_eq!(unchecked.len(), 1, "{status}");
    assert!(unchecked[0].contains("\"grow\""), "{status}");
}

/// The three protocol eras end to end, with `toolschema serve` upstream: 2026-07-28 with no
/// handshake (`server/discover`, the version in each request's `_meta`), and 2025-03-26
/// batches, passed whole when nothing is refused and split when a call is.
#[test]
fn eras_and_batches_end_to_end() {
    // (The call for an unseen tool makes the proxy list on its own, speaking for the client
    // with the call's protocol `_meta`, which a 2026-07-28 server requires.)
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}});
    let input = [
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"_meta": meta,
            "name": "get_weather", "arguments": {"location": "Oslo", "units": "kelvin"}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"_meta": meta,
            "name": "get_weather", "arguments": {"location": "Oslo"}}}),
    ]
    .map(|m| m.to_string())
    .join("\n");
    let answers = lines(&run_proxy(&["--", BIN, "serve"], &format!("{input}\n")));
    let by_id = |id: i64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap_or_default()
    };
    assert!(by_id(1)["result"].is_object(), "{answers:?}");
    assert!(by_id(2)["result"]["tools"].is_array(), "{answers:?}");
    let refused = by_id(3);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(refused["result"]["resultType"], "complete", "{refused}");
    assert!(
        by_id(4)["result"]["structuredContent"].is_object(),
        "{answers:?}"
    );

    let mut s = Scripted::start_with("batches", &[], &[BIN, "serve"], false, "2025-03-26");
    s.send(&json!([{"jsonrpc": "2.0", "id": 2, "method": "ping"},
                   {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]));
    let whole = s.next();
    let ids: Vec<&Value> = whole.as_array().unwrap().iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!(2), &json!(3)], "{whole}");
    s.send(&json!([
        call_msg(4, "get_weather", json!({"location": "Oslo"})),
        call_msg(5, "get_weather", json!({"units": "SECRET"}))
    ]));
    let (a, b) = (s.next(), s.next());
    let all: Vec<Value> = [a, b]
        .iter()
        .flat_map(|x| {
            x.as_array()
                .cloned()
                .unwrap_or_else(|| panic!("not a batch: {x}"))
        })
        .collect();
    let five = all.iter().find(|a| a["id"] == 5).unwrap();
    assert_eq!(five["error"]["code"], -32602, "{five}");
    assert!(!five.to_string().contains("SECRET"));
    assert!(
        all.iter().any(|a| a["id"] == 4 && a["result"].is_object()),
        "{all:?}"
    );
    assert!(s.finish().success());
}

/// Requests from the server to the client (sampling, elicitation, roots), its progress and
/// its cancellation of a request cross the proxy to the client; the client's answers and
/// its own progress notification reach the server intact.
#[test]
fn server_requests_progress_and_cancellation_cross_both_ways() {
    let mut s = Scripted::start("server-requests", &[]);
    s.send(&call_msg(1, "ask", json!({"progressToken": "tok"})));
    let mut got = Vec::new();
    while got.len() < 5 {
        let m = s.next();
        match m["method"].as_str() {
            Some("sampling/createMessage") => s.send(&json!({"jsonrpc": "2.0", "id": m["id"],
                "result": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}})),
            Some("elicitation/create") => {
                s.send(&json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": m["id"], "progress": 1}}));
                s.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": {"action": "accept", "content": {"ok": true}}}));
            }
            _ => {}
        }
        got.push(m);
    }
    let methods: Vec<&str> = got.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "sampling/createMessage",
            "elicitation/create",
            "roots/list",
            "notifications/progress",
            "notifications/cancelled"
        ]
    );
    assert_eq!(got[3]["params"]["progressToken"], "tok");
    assert_eq!(got[4]["params"]["requestId"], "c-1");
    let answer = s.answer(json!(1));
    let body: Value =
        serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        body["sampling/createMessage"]["content"]["text"], "hello",
        "{answer}"
    );
    assert_eq!(
        body["elicitation/create"]["content"]["ok"], true,
        "{answer}"
    );
    let saw = s.server_saw();
    assert!(s.finish().success());
    assert!(
        saw.iter().any(|m| m["method"] == "notifications/progress"),
        "the client's progress reached the server: {saw:?}"
    );
}

/// The text entry points read only the envelope of what passes unchanged; whatever they
/// are fed, they decide exactly as the full path does (`from_client` / `from_server`).
#[test]
fn the_pass_through_path_decides_as_the_full_path() {
    let out = json!({"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]});
    let listed = json!([
        {"name": "plain", "inputSchema": {"type": "object"}},
        {"name": "typed", "inputSchema": {"type": "object"}, "outputSchema": out},
        {"name": "listy", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
    ]);
    let ids = [
        json!(1),
        json!("a"),
        json!("\\u0041"),
        json!(-7),
        json!(12345678901234567890u64),
    ];
    let results = [
        json!({"content": [{"type": "text", "text": "x"}]}),
        json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"t": 1}}),
        json!({"content": [], "structuredContent": {"t": 1}}),
        json!({"content": null, "structuredContent": {"t": 1}}),
        json!({"structuredContent": {"t": "hot"}, "content": [{"type": "text", "text": "x"}]}),
        json!({"content": [{"type": "text", "text": "x"}]}),
        json!({"content": [{"type": "text", "text": "x"}], "isError": true}),
        json!({"content": [{"type": "text", "text": "x"}], "structuredContent": [1, 2]}),
    ];
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        for policy in [
            OutputPolicy::ErrorResult,
            OutputPolicy::Log,
            OutputPolicy::Pass,
        ] {
            for tool_name in ["plain", "typed", "listy", "unlisted"] {
                for id in &ids {
                    for result in &results {
                        let options = ContractOptions {
                            on_bad_output: policy,
                            ..ContractOptions::default()
                        };
                        let mut full = initialized_with(version, options.clone());
                        let mut text = initialized_with(version, options);
                        for c in [&mut full, &mut text] {
                            list(c, 900, None, listed.clone(), None);
                        }
                        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                            "params": {"name": tool_name, "arguments": {}}});
                        assert_eq!(
                            full.from_client(&call),
                            text.from_client_text(&call.to_string())
                        );
                        for answer in [
                            json!({"jsonrpc": "2.0", "id": id, "result": result}),
                            json!({"jsonrpc": "2.0", "id": id, "error": {"code": 1, "message": "m"}}),
                            json!({"jsonrpc": "2.0", "id": 424242, "result": result}),
                        ] {
                            let line = answer.to_string();
                            assert_eq!(
                                full.from_server(&answer),
                                text.from_server_text(&line),
                                "{version} {policy:?} {tool_name}: {line}"
                            );
                        }
                    }
                }
            }
        }
    }
    // Everything else the client or the server sends.
    let mut full = initialized("2025-11-25");
    let mut text = initialized("2025-11-25");
    for m in [
        json!({"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1}}),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!([{"jsonrpc": "2.0", "id": 6, "result": {}}]),
        json!({"jsonrpc": "2.0", "id": 7, "result": {}, "result": 1}),
        json!(3),
    ] {
        assert_eq!(
            full.from_server(&m),
            text.from_server_text(&m.to_string()),
            "{m}"
        );
    }
    for m in [
        json!({"jsonrpc": "2.0", "id": 5, "result": {"role": "assistant"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "resources/read"}),
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
        json!([{"jsonrpc": "2.0", "id": 10, "method": "ping"}]),
        json!(["method"]),
    ] {
        assert_eq!(
            full.from_client(&m),
            text.from_client_text(&m.to_string()),
            "{m}"
        );
    }
}

/// A server that ignores the end of its input is killed once the grace period (5 s) is
/// over, and the proxy ends with the kill's status.
#[test]
fn a_server_that_outlives_the_client_is_killed_after_the_grace() {
    let start = std::time::Instant::now();
    let out = run_proxy(&["--", "sleep", "60"], "");
    let took = start.elapsed();
    assert!(
        took >= std::time::Duration::from_secs(4) && took < std::time::Duration::from_secs(30),
        "{took:?}"
    );
    assert_eq!(out.status.code(), Some(128 + 9));
    assert!(String::from_utf8_lossy(&out.stderr).contains("killing it"));
}
