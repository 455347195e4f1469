//! The conformance fixtures of `tests/conformance/talkback_tools.rs`, served over the
//! newline-delimited stdio transport (`Server::serve` on pipes), each driven the way its
//! scenario drives it: the same requests, and the scenario's own client answers.

#[path = "conformance/talkback_tools.rs"]
mod talkback_tools;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};
use toolschema::mcp::Server;

struct Stdio {
    to_server: std::io::PipeWriter,
    from_server: BufReader<std::io::PipeReader>,
    served: Option<std::thread::JoinHandle<()>>,
}

impl Stdio {
    fn start(version: &str, capabilities: Value) -> Stdio {
        let server = Server::builder("conformance", "1")
            .tools(talkback_tools::all())
            .build()
            .unwrap();
        let (server_in, to_server) = std::io::pipe().unwrap();
        let (from_server, server_out) = std::io::pipe().unwrap();
        let served = std::thread::spawn(move || {
            server.serve(server_in, server_out).unwrap();
        });
        let mut s = Stdio {
            to_server,
            from_server: BufReader::new(from_server),
            served: Some(served),
        };
        let init = s.ask(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": capabilities,
                "clientInfo": {"name": "conformance-test-client", "version": "1.0.0"}}}));
        assert_eq!(init["result"]["protocolVersion"], version);
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.to_server, "{message}").unwrap();
    }

    fn next(&mut self) -> Value {
        let mut line = String::new();
        self.from_server.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn ask(&mut self, message: &Value) -> Value {
        self.send(message);
        self.next()
    }

    fn close(mut self) {
        drop(self.to_server);
        if let Some(h) = self.served.take() {
            h.join().unwrap();
        }
    }
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[test]
fn logging_scenario() {
    let mut s = Stdio::start("2025-11-25", json!({}));
    assert_eq!(
        s.ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}}))["result"],
        json!({})
    );
    let start = Instant::now();
    s.send(&call(2, "test_tool_with_logging", json!({})));
    let mut logs = Vec::new();
    let answer = loop {
        let m = s.next();
        if m.get("id").is_some() {
            break m;
        }
        assert_eq!(m["method"], "notifications/message");
        assert_eq!(m["params"]["level"], "info");
        logs.push(m["params"]["data"].as_str().unwrap().to_string());
    };
    assert_eq!(
        logs,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]
    );
    assert!(start.elapsed() >= Duration::from_millis(100));
    assert_eq!(answer["result"]["content"][0]["type"], "text");
    s.close();
}

#[test]
fn progress_scenario() {
    let mut s = Stdio::start("2025-06-18", json!({}));
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "progress-test-1"}}}));
    for p in [0, 50, 100] {
        assert_eq!(
            s.next(),
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": "progress-test-1", "progress": f64::from(p), "total": 100.0}})
        );
    }
    assert_eq!(s.next()["id"], 1);
    // Without a token: no notifications, the same answer.
    let answer = s.ask(&call(2, "test_tool_with_progress", json!({})));
    assert_eq!(answer["id"], 2);
    s.close();
}

#[test]
fn sampling_scenario() {
    let mut s = Stdio::start("2025-11-25", json!({"sampling": {}, "elicitation": {}}));
    let request = s.ask(&call(
        1,
        "test_sampling",
        json!({"prompt": "Test prompt for sampling"}),
    ));
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(
        request["params"],
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}], "maxTokens": 100})
    );
    let answer = s.ask(
        &json!({"jsonrpc": "2.0", "id": request["id"], "result": {"role": "assistant",
        "content": {"type": "text", "text": "This is a test response from the client"},
        "model": "test-model", "stopReason": "endTurn"}}),
    );
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "LLM response: This is a test response from the client"}])
    );
    s.close();
    // Without the capability: an error result, and no request.
    let mut s = Stdio::start("2025-11-25", json!({}));
    let answer = s.ask(&call(1, "test_sampling", json!({"prompt": "p"})));
    assert_eq!(answer["result"]["isError"], true);
    s.close();
}

#[test]
fn elicitation_scenario() {
    let mut s = Stdio::start("2025-06-18", json!({"sampling": {}, "elicitation": {}}));
    let request = s.ask(&call(
        1,
        "test_elicitation",
        json!({"message": "Please provide your information"}),
    ));
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(
        request["params"]["message"],
        "Please provide your information"
    );
    assert_eq!(
        request["params"]["requestedSchema"]["required"],
        json!(["username", "email"])
    );
    let answer = s.ask(
        &json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept",
        "content": {"username": "testuser", "email": "test@example.com"}}}),
    );
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "User response: action=accept, content={\"email\":\"test@example.com\",\"username\":\"testuser\"}"
    );
    s.close();
}

#[test]
fn sep1034_defaults_scenario() {
    let mut s = Stdio::start("2025-11-25", json!({"sampling": {}, "elicitation": {}}));
    let request = s.ask(&call(1, "test_elicitation_sep1034_defaults", json!({})));
    let p = &request["params"]["requestedSchema"]["properties"];
    assert_eq!(
        (&p["name"]["type"], &p["name"]["default"]),
        (&json!("string"), &json!("John Doe"))
    );
    assert_eq!(
        (&p["age"]["type"], &p["age"]["default"]),
        (&json!("integer"), &json!(30))
    );
    assert_eq!(
        (&p["score"]["type"], &p["score"]["default"]),
        (&json!("number"), &json!(95.5))
    );
    assert_eq!(
        p["status"]["enum"],
        json!(["active", "inactive", "pending"])
    );
    assert_eq!(p["status"]["default"], "active");
    assert_eq!(
        (&p["verified"]["type"], &p["verified"]["default"]),
        (&json!("boolean"), &json!(true))
    );
    let answer = s.ask(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept",
        "content": {"name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": false}}}));
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Elicitation completed: action=accept, content="),
        "{text}"
    );
    s.close();
}

#[test]
fn sep1330_enums_scenario() {
    let mut s = Stdio::start("2025-11-25", json!({"sampling": {}, "elicitation": {}}));
    let request = s.ask(&call(1, "test_elicitation_sep1330_enums", json!({})));
    let p = &request["params"]["requestedSchema"]["properties"];
    assert!(p["untitledSingle"]["enum"].is_array() && p["untitledSingle"].get("oneOf").is_none());
    assert!(
        p["titledSingle"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["const"].is_string() && o["title"].is_string())
    );
    assert_eq!(p["legacyEnum"]["enumNames"].as_array().unwrap().len(), 3);
    assert_eq!(
        p["untitledMulti"]["items"]["enum"],
        json!(["option1", "option2", "option3"])
    );
    assert_eq!(
        p["titledMulti"]["items"]["anyOf"].as_array().unwrap().len(),
        3
    );
    let answer = s.ask(
        &json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept",
        "content": {"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
            "untitledMulti": ["option1", "option2"], "titledMulti": ["value1", "value2"]}}}),
    );
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Elicitation completed: action=accept"),
        "{text}"
    );
    // A choice outside the form is refused, without echoing it.
    let request = s.ask(&call(2, "test_elicitation_sep1330_enums", json!({})));
    let answer = s.ask(
        &json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept",
        "content": {"titledMulti": ["SECRET"]}}}),
    );
    assert_eq!(answer["result"]["isError"], true);
    assert!(!answer.to_string().contains("SECRET"));
    s.close();
}
