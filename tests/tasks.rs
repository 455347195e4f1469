//! Tasks (SEP-1686, protocol 2025-11-25) with exact messages on an in-process connection:
//! task-augmented `tools/call`, `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`,
//! status notifications, the limits (number, time to live), and a task that asks the client.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toolschema::mcp::{CallToolResult, Server, ServerBuilder, TaskSupport, Tool};

mod support;

use support::mcp::Client;

/// A client initialized at 2025-11-25 (where tasks are) that accepts elicitation.
fn client(server: &Server) -> Client {
    Client::at(server, "2025-11-25", json!({"elicitation": {}}))
}

/// The answer to request `id`, skipping the status notifications that may come first.
#[track_caller]
fn answer(c: &Client, id: u64) -> Value {
    loop {
        let m = c.next();
        if m["id"] == id {
            return m;
        }
        assert_eq!(m["method"], "notifications/tasks/status", "{m}");
    }
}

/// A gate the `slow` tool waits on, so a test decides when it finishes.
#[derive(Clone, Default)]
struct Gate(Arc<AtomicBool>);

impl Gate {
    fn open(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn builder(gate: &Gate) -> ServerBuilder {
    let g = gate.clone();
    let slow = Tool::builder("slow")
        .task_support(TaskSupport::Required)
        .handler(move |_, ctx| {
            while !g.0.load(Ordering::SeqCst) {
                if ctx.is_cancelled() {
                    return Ok(CallToolResult::text("stopped"));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(CallToolResult::text("slow done"))
        })
        .build()
        .unwrap();
    let quick = Tool::builder("quick")
        .task_support(TaskSupport::Optional)
        .input_schema(json!({"properties": {"n": {"type": "integer"}}, "required": ["n"]}))
        .handler(|args, _| Ok(CallToolResult::text(format!("n={}", args["n"]))))
        .build()
        .unwrap();
    let plain = Tool::builder("plain")
        .handler(|_, _| Ok(CallToolResult::text("plain")))
        .build()
        .unwrap();
    let failing = Tool::builder("failing")
        .task_support(TaskSupport::Optional)
        .handler(|_, _| Ok(CallToolResult::error("it broke")))
        .build()
        .unwrap();
    let asks = Tool::builder("asks")
        .task_support(TaskSupport::Optional)
        .handler(|_, ctx| {
            let answer = ctx.elicit(
                json!({"message": "Go?", "requestedSchema": {"type": "object", "properties": {"go": {"type": "boolean"}}}}),
                Duration::from_secs(20),
            )?;
            Ok(CallToolResult::text(answer["action"].as_str().unwrap_or_default()))
        })
        .build()
        .unwrap();
    let chatty = Tool::builder("chatty")
        .task_support(TaskSupport::Optional)
        .handler(|_, ctx| {
            ctx.log(toolschema::mcp::LogLevel::Info, "working on it");
            ctx.progress(1.0, None, None);
            Ok(CallToolResult::text("said"))
        })
        .build()
        .unwrap();
    Server::builder("tasks", "1")
        .tools([slow, quick, plain, failing, asks, chatty])
        .task_poll_interval(Duration::from_millis(100))
}

fn task_call(id: u64, name: &str, arguments: Value, task: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "task": task}})
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn is_timestamp(v: &Value) -> bool {
    let s = v.as_str().unwrap_or_default();
    s.len() == 24 && s.ends_with('Z') && s.as_bytes()[10] == b'T'
}

#[test]
fn a_task_runs_in_the_background_and_its_result_waits() {
    let gate = Gate::default();
    let c = client(&builder(&gate).build().unwrap());
    let created = c.ask(&task_call(1, "slow", json!({}), json!({"ttl": 60000})));
    assert_eq!(created["id"], 1);
    let task = &created["result"]["task"];
    let id = task["taskId"].as_str().unwrap().to_string();
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60000);
    assert_eq!(task["pollInterval"], 100);
    assert!(
        is_timestamp(&task["createdAt"]) && is_timestamp(&task["lastUpdatedAt"]),
        "{task}"
    );
    let got = c.ask(&rpc(2, "tasks/get", json!({"taskId": id})));
    assert_eq!(got["result"]["status"], "working");
    assert_eq!(got["result"]["taskId"], id.as_str());
    // tasks/result blocks: nothing comes until the task finishes.
    c.send(&rpc(3, "tasks/result", json!({"taskId": id})));
    assert!(c.quiet());
    gate.open();
    let mut seen = [c.next(), c.next()];
    seen.sort_by_key(|m| m.get("id").is_some());
    let (status, result) = (&seen[0], &seen[1]);
    assert_eq!(status["method"], "notifications/tasks/status");
    assert_eq!(status["params"]["status"], "completed");
    assert_eq!(
        *result,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "slow done"}],
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}}})
    );
    // A finished task answers at once, again.
    let again = c.ask(&rpc(4, "tasks/result", json!({"taskId": id})));
    assert_eq!(again["result"]["content"][0]["text"], "slow done");
    assert_eq!(
        c.ask(&rpc(5, "tasks/get", json!({"taskId": id})))["result"]["status"],
        "completed"
    );
}

#[test]
fn task_support_is_enforced_as_the_spec_says() {
    let c = client(&builder(&Gate::default()).build().unwrap());
    let plain_call =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}});
    assert_eq!(
        c.ask(&plain_call),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message":
            "tool \"slow\" runs only as a task (execution.taskSupport is \"required\"): call it with params.task"}})
    );
    assert_eq!(
        c.ask(&task_call(2, "plain", json!({}), json!({}))),
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message":
            "tool \"plain\" cannot run as a task (execution.taskSupport is \"forbidden\")"}})
    );
    // Optional: both ways.
    let direct = c.ask(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "quick", "arguments": {"n": 1}}}));
    assert_eq!(direct["result"]["content"][0]["text"], "n=1");
    let created = c.ask(&task_call(4, "quick", json!({"n": 2}), json!({})));
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    c.send(&rpc(5, "tasks/result", json!({"taskId": id})));
    let result = answer(&c, 5);
    assert_eq!(result["result"]["content"][0]["text"], "n=2", "{result}");
    // Malformed task params.
    c.send(&task_call(6, "quick", json!({"n": 2}), json!(5)));
    assert_eq!(answer(&c, 6)["error"]["code"], -32602);
    c.send(&task_call(7, "quick", json!({"n": 2}), json!({"ttl": -1})));
    assert_eq!(answer(&c, 7)["error"]["code"], -32602);
}

#[test]
fn failures_unknown_ids_and_cancellation() {
    let gate = Gate::default();
    let c = client(&builder(&gate).build().unwrap());
    // A result with isError makes the task `failed`; invalid arguments too.
    let created = c.ask(&task_call(1, "failing", json!({}), json!({})));
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let status = c.next();
    assert_eq!(status["params"]["status"], "failed", "{status}");
    let result = c.ask(&rpc(2, "tasks/result", json!({"taskId": id})));
    assert_eq!(result["result"]["isError"], true);
    let created = c.ask(&task_call(3, "quick", json!({"n": "x"}), json!({})));
    assert_eq!(c.next()["params"]["status"], "failed");
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let result = c.ask(&rpc(4, "tasks/result", json!({"taskId": id})));
    assert_eq!(result["result"]["isError"], true, "{result}");
    // Unknown tasks: -32602 for get, result and cancel.
    for (i, m) in ["tasks/get", "tasks/result", "tasks/cancel"]
        .iter()
        .enumerate()
    {
        let answer = c.ask(&rpc(10 + i as u64, m, json!({"taskId": "nope"})));
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 10 + i as u64, "error": {"code": -32602,
                "message": if *m == "tasks/result" { "invalid params: unknown task: \"nope\"" } else { "invalid params: unknown task \"nope\"" }}})
        );
    }
    // Cancelling a running task: cancelled before the answer, the handler is told, the
    // waiting tasks/result ends; a second cancel is refused.
    let created = c.ask(&task_call(20, "slow", json!({}), json!({})));
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    c.send(&rpc(21, "tasks/result", json!({"taskId": id})));
    assert!(c.quiet());
    c.send(&rpc(22, "tasks/cancel", json!({"taskId": id})));
    let mut seen: Vec<Value> = (0..3).map(|_| c.next()).collect();
    seen.sort_by_key(|m| m["id"].as_u64().unwrap_or(0));
    assert_eq!(seen[0]["params"]["status"], "cancelled");
    assert_eq!(seen[1]["id"], 21);
    assert_eq!(seen[1]["error"]["code"], -32603);
    assert_eq!(seen[2]["id"], 22);
    assert_eq!(seen[2]["result"]["status"], "cancelled");
    assert_eq!(
        seen[2]["result"]["statusMessage"],
        "The task was cancelled by request."
    );
    let again = c.ask(&rpc(23, "tasks/cancel", json!({"taskId": id})));
    assert_eq!(again["error"]["code"], -32602);
    // It stays cancelled, though the handler returns.
    assert!(c.quiet());
    assert_eq!(
        c.ask(&rpc(24, "tasks/get", json!({"taskId": id})))["result"]["status"],
        "cancelled"
    );
}

#[test]
fn the_list_is_paginated() {
    let c = client(&builder(&Gate::default()).page_size(2).build().unwrap());
    let mut ids = Vec::new();
    for i in 0..5 {
        let created = c.ask(&task_call(i, "quick", json!({"n": i}), json!({})));
        ids.push(
            created["result"]["task"]["taskId"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        assert_eq!(c.next()["method"], "notifications/tasks/status");
    }
    let mut listed = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let page = c.ask(&rpc(100 + pages, "tasks/list", params));
        pages += 1;
        for t in page["result"]["tasks"].as_array().unwrap() {
            listed.push(t["taskId"].as_str().unwrap().to_string());
        }
        match page["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(listed, ids);
    let bad = c.ask(&rpc(200, "tasks/list", json!({"cursor": "tk1.ffff"})));
    assert_eq!(bad["error"]["code"], -32602);
}

#[test]
fn the_table_is_bounded_and_finished_tasks_expire() {
    let gate = Gate::default();
    let c = client(
        &builder(&gate)
            .max_tasks(1)
            .task_ttl(Duration::from_millis(200))
            .build()
            .unwrap(),
    );
    let created = c.ask(&task_call(1, "slow", json!({}), json!({"ttl": 999999999})));
    // A longer ttl than the server keeps is cut to its own.
    assert_eq!(created["result"]["task"]["ttl"], 200);
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let busy = c.ask(&task_call(2, "quick", json!({"n": 1}), json!({})));
    assert_eq!(
        busy,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "server busy: too many tasks running"}})
    );
    gate.open();
    assert_eq!(c.next()["params"]["status"], "completed");
    // A finished task makes room.
    let created = c.ask(&task_call(3, "quick", json!({"n": 1}), json!({})));
    assert_eq!(created["result"]["task"]["status"], "working");
    assert_eq!(c.next()["params"]["status"], "completed");
    // The first task was evicted for it; the second expires after its ttl.
    assert_eq!(
        c.ask(&rpc(4, "tasks/get", json!({"taskId": id})))["error"]["code"],
        -32602
    );
    let second = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        c.ask(&rpc(5, "tasks/get", json!({"taskId": second})))["error"]["code"],
        -32602
    );
}

#[test]
fn a_task_that_asks_the_client_is_input_required_meanwhile() {
    let c = client(&builder(&Gate::default()).build().unwrap());
    let created = c.ask(&task_call(1, "asks", json!({}), json!({})));
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut seen = [c.next(), c.next()];
    seen.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(seen[0]["method"], "notifications/tasks/status");
    assert_eq!(seen[0]["params"]["status"], "input_required");
    assert_eq!(
        seen[1],
        json!({"jsonrpc": "2.0", "id": "toolschema-1", "method": "elicitation/create",
            "params": {"message": "Go?", "requestedSchema": {"type": "object", "properties": {"go": {"type": "boolean"}}},
                "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}}})
    );
    assert_eq!(
        c.ask(&rpc(2, "tasks/get", json!({"taskId": id})))["result"]["status"],
        "input_required"
    );
    c.send(&json!({"jsonrpc": "2.0", "id": "toolschema-1", "result": {"action": "accept", "content": {"go": true}}}));
    let statuses: Vec<String> = (0..2)
        .map(|_| c.next()["params"]["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(statuses, ["working", "completed"]);
    let result = c.ask(&rpc(3, "tasks/result", json!({"taskId": id})));
    assert_eq!(result["result"]["content"][0]["text"], "accept");
}

#[test]
fn no_tasks_before_2025_11_25_or_without_task_tools() {
    // 2025-06-18: no capability, the `task` field is ignored and the call runs plainly.
    let server = builder(&Gate::default()).build().unwrap();
    let c = Client::new(&server);
    let init = c.ask(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    assert!(init["result"]["capabilities"].get("tasks").is_none());
    let plain_call = c.ask(&task_call(1, "quick", json!({"n": 3}), json!({})));
    assert_eq!(plain_call["result"]["content"][0]["text"], "n=3");
    assert_eq!(
        c.ask(&rpc(2, "tasks/list", json!({})))["error"]["code"],
        -32601
    );
    // 2025-11-25 without any task tool: no capability either.
    let plain = Tool::builder("p").build().unwrap();
    let server = Server::builder("s", "1").tool(plain).build().unwrap();
    let c = Client::new(&server);
    let init = c.ask(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    assert!(
        init["result"]["capabilities"].get("tasks").is_none(),
        "{init}"
    );
}

#[test]
fn notifications_from_a_task_name_it() {
    let c = client(&builder(&Gate::default()).build().unwrap());
    let created = c.ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "chatty", "task": {}, "_meta": {"progressToken": "p"}}}));
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let related = json!({"io.modelcontextprotocol/related-task": {"taskId": id}});
    assert_eq!(
        c.next(),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params":
            {"level": "info", "logger": "chatty", "data": "working on it", "_meta": related}})
    );
    assert_eq!(
        c.next(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params":
            {"progressToken": "p", "progress": 1.0, "_meta": related}})
    );
    let status = c.next();
    assert_eq!(status["params"]["status"], "completed");
    // The status notification carries the task itself, not the related-task `_meta`.
    assert!(status["params"].get("_meta").is_none(), "{status}");
}
