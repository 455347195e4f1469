//! Call arguments checked from the message text (`Schema::is_valid_json`) by the server and
//! the proxy: the verdict, the refusal and the handler's `Value` are those of the `Value`
//! path on arguments where text and `Value` could part ways (floats that are integers,
//! repeated keys, escaped keys, numbers past `u64` and `f64`, deep nesting). Where JSON
//! parsers themselves read the text differently (a member named twice; for the proxy, an
//! integer past 64 bits too), the message is refused with `-32600` naming the location.

use serde_json::{Value, json};
use std::sync::{Mutex, mpsc};
use std::time::Duration;
use toolschema::Schema;
use toolschema::mcp::contract::{check_arguments, refuse_arguments};
use toolschema::mcp::{CallToolResult, Connection, ProtocolVersion, Server, Tool};
use toolschema_http::proxy::{Action, Contract, ContractOptions};

/// Whether an object in `text` names a member twice (names compared unescaped).
fn repeats_a_member(text: &str) -> bool {
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    struct Strict;
    impl<'de> Deserialize<'de> for Strict {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
            d.deserialize_any(StrictVisitor)
        }
    }
    struct StrictVisitor;
    impl<'de> Visitor<'de> for StrictVisitor {
        type Value = Strict;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if !seen.insert(key) {
                    return Err(A::Error::custom("a member named twice"));
                }
                map.next_value::<Strict>()?;
            }
            Ok(Strict)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
            while seq.next_element::<Strict>()?.is_some() {}
            Ok(Strict)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_str<E>(self, _: &str) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_unit<E>(self) -> Result<Strict, E> {
            Ok(Strict)
        }
    }
    serde_json::from_str::<Strict>(text).is_err()
}

/// Whether `text` (with no digits inside its strings) holds an integer literal past
/// `i64`/`u64`.
fn has_long_integer(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_digit() || "-+.eE".contains(c)))
        .filter(|t| {
            let digits = t.strip_prefix('-').unwrap_or(t);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        })
        .any(|t| t.parse::<i64>().is_err() && t.parse::<u64>().is_err())
}

/// Input schemas, and arguments as a client writes them.
fn cases() -> Vec<(Value, Vec<&'static str>)> {
    let integer =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let closed = json!({"type": "object", "properties": {"n": {"type": "number"}},
        "additionalProperties": false});
    let bounded = json!({"type": "object", "properties": {
        "n": {"type": "integer", "maximum": 100_000_000_000_000_000_000.0_f64},
        "u": {"maximum": 18_446_744_073_709_551_615_u64},
        "m": {"multipleOf": 0.1}}});
    let strings = json!({"type": "object", "properties": {
        "s": {"type": "string", "maxLength": 1},
        "p": {"pattern": "^a\"b$"},
        "e": {"enum": ["x\u{0}y", "é"]}}});
    let nested = json!({"type": "object", "properties": {"d": {"type": "array", "items": {"$ref": "#/properties/d"}}}});
    vec![
        (
            integer,
            vec![
                r#"{"n": 1.0}"#,
                r#"{"n": 1.5}"#,
                r#"{"n": 1e2}"#,
                r#"{"n": -0.0}"#,
                r#"{"n": 1E-2}"#,
                r#"{"n": 12345678901234567890}"#,
                r#"{"n": -9223372036854775809}"#,
                r#"{"n": "x", "n": 2}"#,
                r#"{"n": 2, "n": "x"}"#,
                r#"{"\u006e": 3}"#,
                r#"{"n\u0000": 3}"#,
                r#"{}"#,
                r#"null"#,
            ],
        ),
        (
            closed,
            vec![
                r#"{"\u006e": 1}"#,
                r#"{"\u006e\u006e": 1}"#,
                r#"{"n": 1, "n": 2}"#,
                r#"{"n": {"a": 1}, "n": 2}"#,
                r#"{"n": 2, "n": {"a": 1}}"#,
            ],
        ),
        (
            bounded,
            vec![
                r#"{"n": 100000000000000000000}"#,
                r#"{"n": 100000000000000000001}"#,
                r#"{"n": 1e20}"#,
                r#"{"n": 1.00000000000000000001e20}"#,
                r#"{"n": 200000000000000000000}"#,
                r#"{"u": 18446744073709551615}"#,
                r#"{"u": 18446744073709551616}"#,
                r#"{"m": 0.3}"#,
                r#"{"m": 0.30000000000000004}"#,
                r#"{"m": 1e308}"#,
            ],
        ),
        (
            strings,
            vec![
                r#"{"s": "\ud83d\ude00"}"#,
                r#"{"s": "é"}"#,
                r#"{"s": "\u00e9\u00e9"}"#,
                r#"{"p": "a\"b"}"#,
                r#"{"p": "a\u0022b"}"#,
                r#"{"p": "a\\b"}"#,
                r#"{"e": "x\u0000y"}"#,
                r#"{"e": "\u00e9"}"#,
                r#"{"e": "e\u0301"}"#,
            ],
        ),
        (
            nested,
            vec![r#"{"d": [[[[[]]]]]}"#, r#"{"d": [[[[[1]]]]]}"#],
        ),
    ]
}

/// A tool that hands back the arguments its handler got.
fn echo(schema: &Value) -> Tool {
    Tool::builder("t")
        .input_schema(schema.clone())
        .handler(|args, _| Ok(CallToolResult::structured(json!({"got": args}))))
        .build()
        .expect("the tool builds")
}

struct Client {
    conn: Connection,
    rx: mpsc::Receiver<String>,
}

impl Client {
    fn at(server: &Server, version: &str) -> Client {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let conn = server.connect(move |line| {
            let _ = tx.lock().expect("sender").send(line);
        });
        let c = Client { conn, rx };
        c.conn.handle(&format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}}}}}}"#
        ));
        assert!(c.answer()["result"].is_object());
        c
    }

    fn send_call(&self, id: u64, arguments: &str) {
        self.conn.handle(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","arguments":{arguments}}}}}"#
        ));
    }

    fn answer(&self) -> Value {
        loop {
            let line = self
                .rx
                .recv_timeout(Duration::from_secs(60))
                .expect("an answer");
            let v: Value = serde_json::from_str(&line).expect("JSON");
            if v.get("method").is_none() {
                return v;
            }
        }
    }

    fn call(&self, id: u64, arguments: &str) -> Value {
        self.send_call(id, arguments);
        let a = self.answer();
        assert_eq!(a["id"], id, "{a}");
        a
    }
}

#[test]
fn the_server_decides_from_text_as_from_the_value() {
    let mut id = 1;
    for (schema, arguments) in cases() {
        let compiled = Schema::compile(&schema).expect("the schema compiles");
        let server = Server::builder("s", "1")
            .tool(echo(&schema))
            .build()
            .expect("the server builds");
        for (version, v) in [
            ("2025-06-18", ProtocolVersion::V2025_06_18),
            ("2025-11-25", ProtocolVersion::V2025_11_25),
        ] {
            let client = Client::at(&server, version);
            for text in &arguments {
                id += 1;
                let value: Value = serde_json::from_str(text).expect("the case is JSON");
                let value = if value.is_null() { json!({}) } else { value };
                let a = client.call(id, text);
                if repeats_a_member(text) {
                    // Parsers disagree on which value counts: refused, whatever the schema.
                    assert_eq!(a["error"]["code"], -32600, "{text}: {a}");
                    let message = a["error"]["message"].as_str().unwrap_or("");
                    assert!(message.contains("/params/arguments/"), "{text}: {a}");
                    continue;
                }
                let expected = check_arguments(&compiled, "t", Some(&value));
                assert_eq!(
                    compiled.is_valid_json(text.as_bytes()),
                    Ok(expected.is_ok()),
                    "{text}"
                );
                match expected {
                    Ok(()) => {
                        // The handler got the `Value` serde_json reads (the last of a
                        // repeated key, keys unescaped).
                        assert_eq!(
                            a["result"]["structuredContent"]["got"], value,
                            "{text}: {a}"
                        );
                    }
                    Err(violations) => {
                        let refusal = refuse_arguments(&violations, v).into_response(&json!(id));
                        match v {
                            ProtocolVersion::V2025_06_18 => {
                                assert_eq!(a["error"], refusal["error"], "{text}")
                            }
                            _ => {
                                assert_eq!(a["result"]["isError"], true, "{text}: {a}");
                                assert_eq!(
                                    a["result"]["content"], refusal["result"]["content"],
                                    "{text}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn unreadable_arguments_keep_their_reasons() {
    let schema = json!({"type": "object"});
    let server = Server::builder("s", "1")
        .tool(echo(&schema))
        .build()
        .expect("the server builds");
    let client = Client::at(&server, "2025-11-25");
    let cases = [
        (
            r#"{"x": 1e400}"#,
            "invalid params: cannot be read (number out of range)",
        ),
        (
            &*format!(r#"{{"x": {}1{}}}"#, "[".repeat(200), "]".repeat(200)),
            "invalid params: cannot be read (recursion limit exceeded)",
        ),
        (r#"[1]"#, "invalid params: \"arguments\" must be an object"),
        (r#""x""#, "invalid params: \"arguments\" must be an object"),
    ];
    for (i, (text, message)) in cases.into_iter().enumerate() {
        let a = client.call(100 + i as u64, text);
        assert_eq!(a["error"]["code"], -32602, "{a}");
        assert_eq!(a["error"]["message"], message, "{a}");
    }
    // As deep as serde_json reads a `Value` on its own: the handler gets it (the answer,
    // which echoes it a few levels down, is too deep for the test to read as a `Value`).
    let depth = 126;
    let deep = format!(r#"{{"x":{}1{}}}"#, "[".repeat(depth), "]".repeat(depth));
    client.send_call(200, &deep);
    let line = client
        .rx
        .recv_timeout(Duration::from_secs(60))
        .expect("an answer");
    assert!(line.contains(r#""id":200,"result""#), "{line}");
    assert!(line.contains(&format!(r#""got":{deep}"#)), "{line}");
}

/// A proxy that has listed one tool with this input schema and an output schema.
fn proxy(schema: &Value) -> Contract {
    let mut contract = Contract::new(ContractOptions::default());
    contract.from_client(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    contract.from_server(
        &json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}),
    );
    contract.from_client(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    contract.from_server(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "t", "inputSchema": schema,
         "outputSchema": {"type": "object", "properties": {"k": {"type": "integer"}}}}]}}));
    contract
}

#[test]
fn the_proxy_decides_from_text_as_from_the_value() {
    let mut checked = 0;
    for (schema, arguments) in cases() {
        let compiled = Schema::compile(&schema).expect("the schema compiles");
        let mut text_path = proxy(&schema);
        let mut value_path = proxy(&schema);
        for (i, args) in arguments.iter().enumerate() {
            for id in [
                json!(i),
                json!(format!("c{i}")),
                json!(format!("c\\u0041{i}")),
            ] {
                let message = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","arguments":{args},"_meta":{{"progressToken":1}}}}}}"#
                );
                let from_text = text_path.from_client_text(&message);
                if repeats_a_member(args) || has_long_integer(args) {
                    // Parsers read it differently: refused, never forwarded.
                    let refused = from_text.iter().find_map(|a| match a {
                        Action::Send(toolschema_http::proxy::Peer::Client, m) => Some(m),
                        _ => None,
                    });
                    let refused = refused.expect("answered to the client");
                    assert_eq!(refused["error"]["code"], -32600, "{message}: {refused}");
                    assert_eq!(refused["id"], id, "{message}");
                    assert!(!from_text.iter().any(|a| matches!(a, Action::Forward)));
                    checked += 1;
                    continue;
                }
                let from_value = value_path
                    .from_client(&serde_json::from_str(&message).expect("the message is JSON"));
                assert_eq!(from_text, from_value, "{message}");
                let value: Value = serde_json::from_str(args).expect("JSON");
                let value = if value.is_null() { json!({}) } else { value };
                let valid = compiled.is_valid(&value);
                assert_eq!(
                    matches!(from_text[..], [Action::Forward]),
                    valid,
                    "{message}"
                );
                // The call is awaited either way: its result is checked alike.
                let result = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"structuredContent":{{"k":"not an integer"}}}}}}"#
                );
                let from_text = text_path.from_server_text(&result);
                let from_value = value_path
                    .from_server(&serde_json::from_str(&result).expect("the result is JSON"));
                assert_eq!(from_text, from_value, "{result}");
                if valid {
                    assert!(!matches!(from_text[..], [Action::Forward]), "{result}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100);
}

#[test]
fn the_proxy_reads_deep_calls_as_the_full_path_does() {
    let schema = json!({"type": "object"});
    for depth in [120, 124, 125, 126, 127, 130, 1000] {
        let args = format!(r#"{{"x": {}1{}}}"#, "[".repeat(depth), "]".repeat(depth));
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"t","arguments":{args}}}}}"#
        );
        let fast = proxy(&schema).from_client_text(&message);
        // The full path: the message read whole, or answered as not JSON.
        let full = match serde_json::from_str::<Value>(&message) {
            Ok(v) => proxy(&schema).from_client(&v),
            Err(_) => proxy(&schema).from_client_text(&format!("{message} x")),
        };
        assert_eq!(fast, full, "depth {depth}");
    }
}
