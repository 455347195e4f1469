//! Handlers that talk back (issue #31): requests from a tool to the client (sampling,
//! elicitation, any method) with exact messages on an in-process connection, the hostile
//! clients (never answers, answers twice, answers garbage, floods unknown ids), the
//! 2026-07-28 multi round-trip form, and `logging/setLevel`.

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use toolschema::mcp::{CallToolResult, ClientRequestError, LogLevel, Server, Tool};

mod support;

use support::mcp::Client;

/// The outcome of a request as the tool's text: the answer, or the error's display.
fn report(
    outcome: Result<Value, ClientRequestError>,
) -> Result<CallToolResult, toolschema::mcp::HandlerError> {
    Ok(match outcome {
        Ok(v) => CallToolResult::text(v.to_string()),
        Err(e) => CallToolResult::error(format!("{e:?}")),
    })
}

const FORM: &str = r#"{"type": "object", "properties": {"name": {"type": "string", "minLength": 2},
    "age": {"type": "integer", "minimum": 0}}, "required": ["name"]}"#;

fn server() -> Server {
    let sample = Tool::builder("sample")
        .handler(|_, ctx| {
            report(ctx.create_message(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}),
                Duration::from_millis(400),
            ))
        })
        .build()
        .unwrap();
    let form: Value = serde_json::from_str(FORM).unwrap();
    let elicit = Tool::builder("elicit")
        .handler(move |_, ctx| {
            report(ctx.elicit(
                json!({"message": "Who are you?", "requestedSchema": form}),
                Duration::from_secs(20),
            ))
        })
        .build()
        .unwrap();
    let nested = Tool::builder("nested")
        .handler(|_, ctx| {
            report(ctx.elicit(
                json!({"message": "Address?", "requestedSchema": {"type": "object",
                    "properties": {"ok": {"type": "string"}, "address": {"type": "object", "properties": {}}}}}),
                Duration::from_secs(20),
            ))
        })
        .build()
        .unwrap();
    // Two rounds at 2026-07-28: the second question depends on the first answer.
    let two = Tool::builder("two")
        .handler(|_, ctx| {
            let first = ctx.elicit(
                json!({"message": "First?", "requestedSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}),
                Duration::from_secs(20),
            )?;
            let second = ctx.create_message(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": first["content"]["a"]}}], "maxTokens": 5}),
                Duration::from_secs(20),
            )?;
            Ok(CallToolResult::text(format!("{} / {}", first["content"]["a"], second["content"]["text"])))
        })
        .build()
        .unwrap();
    let roots = Tool::builder("roots")
        .handler(|_, ctx| report(ctx.request("roots/list", json!({}), Duration::from_secs(20))))
        .build()
        .unwrap();
    let logs = Tool::builder("logs")
        .handler(|_, ctx| {
            ctx.log(LogLevel::Info, "info line");
            ctx.log(LogLevel::Error, "error line");
            Ok(CallToolResult::text("logged"))
        })
        .build()
        .unwrap();
    Server::builder("talk", "1")
        .tools([sample, elicit, nested, two, roots, logs])
        .build()
        .unwrap()
}

fn call(id: u64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn sampling_round_trip_with_exact_messages() {
    let c = Client::new(&server());
    c.init("2025-06-18", json!({"sampling": {}}));
    let request = c.ask(&call(1, "sample"));
    assert_eq!(
        request,
        json!({"jsonrpc": "2.0", "id": "toolschema-1", "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}})
    );
    // The client's own request ids live in the other direction: its id 1 is still its call.
    let answer =
        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"});
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-1", "result": answer}));
    assert_eq!(done["id"], 1);
    let got: Value = serde_json::from_str(text(&done)).unwrap();
    assert_eq!(got, answer);
    // The next request gets a fresh id.
    assert_eq!(c.ask(&call(2, "sample"))["id"], "toolschema-2");
}

#[test]
fn a_client_without_the_capability_is_not_asked() {
    let c = Client::new(&server());
    c.init("2025-11-25", json!({}));
    let done = c.ask(&call(1, "sample"));
    assert_eq!(done["id"], 1, "{done}");
    assert_eq!(
        text(&done),
        "MissingCapability { capability: \"sampling\" }"
    );
    let done = c.ask(&call(2, "elicit"));
    assert_eq!(
        text(&done),
        "MissingCapability { capability: \"elicitation\" }"
    );
    let done = c.ask(&call(3, "roots"));
    assert_eq!(text(&done), "MissingCapability { capability: \"roots\" }");
    // Elicitation does not exist before 2025-06-18.
    let c = Client::new(&server());
    c.init("2025-03-26", json!({"elicitation": {}}));
    assert_eq!(
        text(&c.ask(&call(1, "elicit"))),
        "MissingCapability { capability: \"elicitation\" }"
    );
    // A client that lists only URL mode offers no forms (2025-11-25).
    let c = Client::new(&server());
    c.init("2025-11-25", json!({"elicitation": {"url": {}}}));
    assert_eq!(
        text(&c.ask(&call(1, "elicit"))),
        "MissingCapability { capability: \"elicitation.form\" }"
    );
}

#[test]
fn a_client_that_never_answers_times_out_and_is_told() {
    let c = Client::new(&server());
    c.init("2025-06-18", json!({"sampling": {}}));
    let request = c.ask(&call(1, "sample"));
    assert_eq!(request["id"], "toolschema-1");
    let cancelled = c.next();
    assert_eq!(
        cancelled,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "toolschema-1", "reason": "timed out"}})
    );
    assert_eq!(text(&c.next()), "Timeout");
    // A late answer is a stray: ignored, nothing is sent.
    c.send(&json!({"jsonrpc": "2.0", "id": "toolschema-1", "result": {}}));
    assert!(c.quiet());
}

#[test]
fn answers_twice_garbage_and_errors() {
    let c = Client::new(&server());
    c.init("2025-06-18", json!({"sampling": {}}));
    let good = json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"});
    assert_eq!(c.ask(&call(1, "sample"))["id"], "toolschema-1");
    c.send(&json!({"jsonrpc": "2.0", "id": "toolschema-1", "result": good}));
    let done = c.next();
    assert_eq!(done["id"], 1);
    assert!(
        !done["result"]["isError"].as_bool().unwrap_or(false),
        "{done}"
    );
    // The second answer to the same id is ignored.
    c.send(&json!({"jsonrpc": "2.0", "id": "toolschema-1", "result": good}));
    assert!(c.quiet());
    // Garbage: a result that is no object; then one missing its required members.
    assert_eq!(c.ask(&call(2, "sample"))["id"], "toolschema-2");
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-2", "result": "SECRET"}));
    assert_eq!(
        text(&done),
        "InvalidAnswer([\"the response is neither a result object nor an error with a code and a message\"])"
    );
    assert_eq!(c.ask(&call(3, "sample"))["id"], "toolschema-3");
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-3", "result": {"role": "robot", "model": "SECRET"}}));
    assert_eq!(
        text(&done),
        "InvalidAnswer([\"/role must be \\\"user\\\" or \\\"assistant\\\"\", \"/content must be an object or an array\"])"
    );
    assert!(!text(&done).contains("SECRET"));
    // An error answer, and a malformed error.
    assert_eq!(c.ask(&call(4, "sample"))["id"], "toolschema-4");
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-4", "error": {"code": -1, "message": "User rejected sampling request"}}));
    assert_eq!(
        text(&done),
        "Rejected { code: -1, message: \"User rejected sampling request\" }"
    );
    assert_eq!(c.ask(&call(5, "sample"))["id"], "toolschema-5");
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-5", "error": "no"}));
    assert!(text(&done).starts_with("InvalidAnswer"), "{done}");
    // `"result": null` is garbage too, not a missing member.
    assert_eq!(c.ask(&call(6, "sample"))["id"], "toolschema-6");
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-6", "result": null}));
    assert!(text(&done).starts_with("InvalidAnswer"), "{done}");
}

#[test]
fn a_flood_of_unknown_response_ids_is_dropped() {
    let c = Client::new(&server());
    c.init("2025-06-18", json!({"sampling": {}}));
    for i in 0..20_000 {
        c.send(&json!({"jsonrpc": "2.0", "id": format!("toolschema-{}", 100 + i), "result": {}}));
        c.send(&json!({"jsonrpc": "2.0", "id": i, "error": {"code": 1, "message": "m"}}));
    }
    assert!(c.quiet(), "the server answered a response");
    assert_eq!(
        c.ask(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"})),
        json!({"jsonrpc": "2.0", "id": "p", "result": {}})
    );
    // And requests still work after the flood.
    assert_eq!(c.ask(&call(1, "sample"))["id"], "toolschema-1");
}

#[test]
fn cancelling_the_call_ends_the_wait_promptly() {
    let c = Client::new(&server());
    c.init("2025-06-18", json!({"elicitation": {}}));
    assert_eq!(c.ask(&call(7, "elicit"))["method"], "elicitation/create");
    let start = Instant::now();
    c.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
    );
    assert_eq!(
        c.next(),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "toolschema-1", "reason": "the call was cancelled"}})
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    // A cancelled call is never answered.
    assert!(c.quiet());
}

#[test]
fn closing_the_connection_ends_the_wait() {
    let server = server();
    let c = Client::new(&server);
    c.init("2025-06-18", json!({"elicitation": {}}));
    assert_eq!(c.ask(&call(1, "elicit"))["method"], "elicitation/create");
    let start = Instant::now();
    c.conn.finish(Duration::from_secs(10));
    assert!(start.elapsed() < Duration::from_secs(5));
    let done = c.next();
    assert_eq!(text(&done), "ConnectionClosed");
}

#[test]
fn elicitation_checks_the_form_and_the_answer() {
    let c = Client::new(&server());
    c.init("2025-11-25", json!({"elicitation": {}}));
    // A nested object is no form field: refused before anything is sent.
    let done = c.ask(&call(1, "nested"));
    assert_eq!(done["id"], 1);
    let t = text(&done);
    assert!(t.starts_with("InvalidRequest([\"requestedSchema: "), "{t}");
    assert!(t.contains("/properties/address"), "{t}");
    let request = c.ask(&call(2, "elicit"));
    assert_eq!(
        request,
        json!({"jsonrpc": "2.0", "id": "toolschema-1", "method": "elicitation/create",
            "params": {"message": "Who are you?", "requestedSchema": serde_json::from_str::<Value>(FORM).unwrap()}})
    );
    // Accepted content that breaks the form: errors with locations, never the values.
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-1",
        "result": {"action": "accept", "content": {"name": "S", "age": "SECRET-AGE"}}}));
    let t = text(&done);
    assert!(t.starts_with("InvalidAnswer([\"content: "), "{t}");
    assert!(t.contains("/name") && t.contains("/age"), "{t}");
    assert!(!t.contains("SECRET"), "{t}");
    // Nested content is refused by the result's own rule.
    c.ask(&call(3, "elicit"));
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-2",
        "result": {"action": "accept", "content": {"name": {"first": "SECRET"}}}}));
    assert_eq!(
        text(&done),
        "InvalidAnswer([\"/content/name must be a string, number, boolean or array of strings\"])"
    );
    // An unknown action.
    c.ask(&call(4, "elicit"));
    let done =
        c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-3", "result": {"action": "maybe"}}));
    assert!(text(&done).starts_with("InvalidAnswer"), "{done}");
    // Valid: accepted, and declined without content.
    c.ask(&call(5, "elicit"));
    let accepted = json!({"action": "accept", "content": {"name": "Ada", "age": 36}});
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-4", "result": accepted}));
    assert_eq!(
        serde_json::from_str::<Value>(text(&done)).unwrap(),
        accepted
    );
    c.ask(&call(6, "elicit"));
    let done =
        c.ask(&json!({"jsonrpc": "2.0", "id": "toolschema-5", "result": {"action": "decline"}}));
    assert_eq!(text(&done), "{\"action\":\"decline\"}");
}

#[test]
fn the_form_rules_follow_the_version() {
    // `default` on a string and the titled enum forms arrive with 2025-11-25 (SEP-1034,
    // SEP-1330); 2025-06-18's schema has neither.
    let tool = Tool::builder("f")
        .handler(|_, ctx| {
            report(ctx.elicit(
                json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
                    "pick": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}}}}),
                Duration::from_millis(200),
            ))
        })
        .build()
        .unwrap();
    let server = Server::builder("s", "1").tool(tool).build().unwrap();
    let c = Client::new(&server);
    c.init("2025-06-18", json!({"elicitation": {}}));
    let done = c.ask(&call(1, "f"));
    assert!(text(&done).starts_with("InvalidRequest"), "{done}");
    let c = Client::new(&server);
    c.init("2025-11-25", json!({"elicitation": {}}));
    assert_eq!(c.ask(&call(1, "f"))["method"], "elicitation/create");
}

#[test]
fn multi_round_trip_at_2026_07_28() {
    let c = Client::new(&server());
    let meta = |caps: Value| {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps})
    };
    let caps = json!({"elicitation": {}, "sampling": {}});
    // No capability: the handler learns it, and no request goes out.
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "sample", "arguments": {}, "_meta": meta(json!({}))}}));
    assert_eq!(
        text(&done),
        "MissingCapability { capability: \"sampling\" }"
    );
    // Round 1: the call is answered with what it needs; no request is sent.
    let first = c.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "two", "arguments": {}, "_meta": meta(caps.clone())}}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(
        first["result"]["inputRequests"],
        json!({"toolschema-1": {"method": "elicitation/create", "params": {"message": "First?",
            "requestedSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}}})
    );
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(c.quiet());
    // Round 2: the retry carries the answer; the handler runs again and asks the next thing.
    let second = c.ask(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "two", "arguments": {}, "_meta": meta(caps.clone()), "requestState": state,
            "inputResponses": {"toolschema-1": {"action": "accept", "content": {"a": "apple"}}}}}));
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    assert_eq!(
        second["result"]["inputRequests"]["toolschema-2"]["method"],
        "sampling/createMessage"
    );
    assert_eq!(
        second["result"]["inputRequests"]["toolschema-2"]["params"]["messages"][0]["content"]["text"],
        "apple"
    );
    let state = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    // Round 3: complete.
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "two", "arguments": {}, "_meta": meta(caps.clone()), "requestState": state,
            "inputResponses": {"toolschema-2": {"role": "assistant", "model": "m", "content": {"type": "text", "text": "pie"}}}}}));
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(text(&done), "\"apple\" / \"pie\"");
    // An answer that breaks the form is checked on the retry too; a forged state is refused.
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "elicit", "arguments": {}, "_meta": meta(caps.clone()),
            "inputResponses": {"toolschema-1": {"action": "accept", "content": {"name": 7}}}}}));
    assert!(text(&done).starts_with("InvalidAnswer"), "{done}");
    let done = c.ask(&json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "two", "arguments": {}, "_meta": meta(caps), "requestState": "%%%"}}));
    assert_eq!(done["error"]["code"], -32602, "{done}");
}

/// `requestState` is attacker-controlled input (2026-07-28 draft, multi round-trip
/// requests): a state that is forged, altered, or minted for another call is refused with
/// -32602, and the refusal echoes nothing of it.
#[test]
fn request_state_is_integrity_protected() {
    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let c = Client::new(&server());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}}});
    let call = |id: u64, name: &str, arguments: Value, state: &str, answers: Value| {
        c.ask(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta.clone(),
                "requestState": state, "inputResponses": answers}}))
    };
    let refused = |answer: &Value, state: &str| {
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert!(!answer.to_string().contains(state), "{answer}");
    };
    let first = c.ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "two", "arguments": {}, "_meta": meta.clone()}}));
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let apple = json!({"toolschema-1": {"action": "accept", "content": {"a": "apple"}}});
    // Round 2 as minted gets the sampling request; the state it returns holds "apple".
    let second = call(2, "two", json!({}), &state, apple.clone());
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    let state2 = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    // Forged: the answers in the clear, as an unprotected server would take them.
    let forged = engine
        .encode(json!({"toolschema-1": {"action": "accept", "content": {"a": "x"}}}).to_string());
    refused(&call(3, "two", json!({}), &forged, json!({})), &forged);
    // Altered: one bit of the payload (its answers) flipped.
    let mut bytes = engine.decode(&state2).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 1;
    let altered = engine.encode(&bytes);
    refused(&call(4, "two", json!({}), &altered, json!({})), &altered);
    // Cross-tool: the state of a call of `two` given to `elicit`.
    refused(&call(5, "elicit", json!({}), &state2, json!({})), &state2);
    // Cross-call: the same tool with other arguments (it takes any object).
    refused(
        &call(6, "two", json!({"other": 1}), &state2, json!({})),
        &state2,
    );
    // Replayed on the call it was minted for: good, and not single-use (the draft names no
    // such rule; the answers in it are checked again each time).
    for id in [7, 8] {
        let again = call(id, "two", json!({}), &state, apple.clone());
        assert_eq!(again["result"]["resultType"], "input_required", "{again}");
        assert_eq!(
            again["result"]["inputRequests"]["toolschema-2"]["method"],
            "sampling/createMessage"
        );
    }
}

#[test]
fn log_honours_set_level() {
    let c = Client::new(&server());
    c.init("2025-06-18", json!({}));
    // The default level is info: both lines.
    c.send(&call(1, "logs"));
    assert_eq!(c.next()["params"]["data"], "info line");
    assert_eq!(c.next()["params"]["data"], "error line");
    assert_eq!(text(&c.next()), "logged");
    assert_eq!(
        c.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "error"}})),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    c.send(&call(3, "logs"));
    assert_eq!(
        c.next(),
        json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "error", "logger": "logs", "data": "error line"}})
    );
    assert_eq!(text(&c.next()), "logged");
}
