//! Hostile clients against the resource server: requests built to slip a scoped tool call
//! past the per-tool check (a duplicated `name`, odd JSON forms, batches), sessions used by
//! another subject or with no subject, and routes other than the MCP endpoint. Same harness
//! as tests/auth.rs: tokens minted here, a JWKS served by a stub on 127.0.0.1.

use jsonwebtoken::Algorithm;
use reqwest::blocking::{Client, Response};
use serde_json::{Value, json};
use std::time::Duration;
use stub::{AuthServer, auth_server, mint, now, rsa};

#[path = "auth/stub.rs"]
mod stub;
use toolschema::mcp::{CallToolResult, SecurityScheme, Server, Tool};
use toolschema_http::auth::AuthOptions;
use toolschema_http::{HttpOptions, HttpServer};

static WRITES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn start(auth: AuthOptions) -> String {
    let open = Tool::builder("open")
        .handler(|_, _| Ok(CallToolResult::text("opened")))
        .build()
        .unwrap();
    let write = Tool::builder("write")
        .security_schemes(vec![SecurityScheme::oauth2(["files:write"])])
        .handler(|_, _| {
            WRITES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(CallToolResult::text("written"))
        })
        .build()
        .unwrap();
    let server = Server::builder("auth-hostile", "1.0")
        .tools(vec![open, write])
        .build()
        .unwrap();
    let http = HttpServer::bind(&server, "127.0.0.1:0", HttpOptions::new().auth(auth)).unwrap();
    let url = format!("http://{}/mcp", http.local_addr());
    std::thread::spawn(move || http.run());
    url
}

fn jwt_server(a: &AuthServer) -> String {
    start(
        AuthOptions::jwt(&a.url)
            .unwrap()
            .jwks_refresh_interval(Duration::from_millis(300)),
    )
}

fn token(a: &AuthServer, url: &str, sub: Option<&str>, scope: &str) -> String {
    let mut c = json!({"iss": a.url, "aud": url, "exp": now() + 600, "iat": now(), "scope": scope});
    if let Some(s) = sub {
        c["sub"] = json!(s);
    }
    mint(&rsa(), Algorithm::RS256, "rsa1", &c)
}

fn open_session(url: &str, token: &str, version: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = stub::post_text(url, Some(token), None, &init.to_string());
    assert_eq!(r.status(), 200, "{:?}", r.text());
    let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let note = r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#;
    assert_eq!(
        stub::post_text(url, Some(token), Some(&id), note).status(),
        202
    );
    id
}

/// Whether the answer shows the scoped tool ran.
fn ran(r: Response) -> (u16, bool) {
    let status = r.status().as_u16();
    let text = r.text().unwrap_or_default();
    (status, text.contains("written"))
}

#[test]
fn a_scoped_call_in_an_odd_form_never_runs_without_the_scope() {
    let a = auth_server();
    let url = jwt_server(&a);
    let reader = token(&a, &url, Some("alice"), "files:read");
    let session = open_session(&url, &reader, "2025-06-18");
    let before = WRITES.load(std::sync::atomic::Ordering::SeqCst);
    let bodies = [
        // `name` twice: a reader that keeps the last one would call `write`.
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open","name":"write","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","name":"open","arguments":{}}}"#,
        // Escapes in the name and the method.
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wr\u0069te","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools\/call","params":{"name":"write","arguments":{}}}"#,
        // `_meta` or `arguments` twice (the params reading fails as a whole).
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{},"arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","_meta":{},"_meta":{}}}"#,
        // `arguments` of another type than the reader expects.
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":[]}}"#,
        // As a notification, or under a null id: a server that ran it would answer nothing.
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"write","arguments":{}}}"#,
        // A `_meta` of another type than an object (the params reading fails as a whole).
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{},"_meta":5}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{},"_meta":[]}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{},"_meta":null}}"#,
        // params as an array, the name not a string.
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":["write"]}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":["write"]}}"#,
    ];
    for body in bodies {
        let (status, wrote) = ran(stub::post_text(&url, Some(&reader), Some(&session), body));
        assert!(!wrote, "the scoped tool ran ({status}) for {body}");
    }
    // The same, in 2025-03-26 batches.
    let old = open_session(&url, &reader, "2025-03-26");
    for body in bodies {
        let batch = format!(
            r#"[{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"open"}}}}, {}]"#,
            body
        );
        let (status, wrote) = ran(stub::post_text(&url, Some(&reader), Some(&old), &batch));
        assert!(
            !wrote,
            "the scoped tool ran ({status}) in the batch {batch}"
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        WRITES.load(std::sync::atomic::Ordering::SeqCst),
        before,
        "the scoped tool's handler ran"
    );
    // Sanity: the plain call is refused and the writer's goes through.
    let plain = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{}}}"#;
    assert_eq!(
        stub::post_text(&url, Some(&reader), Some(&session), plain).status(),
        403
    );
    let writer = token(&a, &url, Some("alice"), "files:write");
    assert!(ran(stub::post_text(&url, Some(&writer), Some(&session), plain)).1);
}

/// An authorization server that answers its metadata but whose JWKS answers 500, or never
/// answers; its JWKS hits counted.
fn failing_jwks(hang: bool) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits = std::sync::Arc::new(AtomicUsize::new(0));
    let (issuer, count) = (url.clone(), std::sync::Arc::clone(&hits));
    std::thread::spawn(move || {
        let mut parked = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let _ = reader.read_line(&mut line);
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                    break;
                }
            }
            let (status, body) = if line.contains("/.well-known/oauth-authorization-server") {
                (
                    200,
                    json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")}).to_string(),
                )
            } else {
                count.fetch_add(1, Ordering::SeqCst);
                if hang {
                    parked.push(stream);
                    continue;
                }
                (500, "{}".to_string())
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, hits)
}

#[test]
fn a_failing_jwks_is_not_asked_once_per_token() {
    use std::sync::atomic::Ordering;
    let (issuer, hits) = failing_jwks(false);
    let url = start(
        AuthOptions::jwt(&issuer)
            .unwrap()
            .jwks_refresh_interval(Duration::from_secs(5)),
    );
    let t = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &json!({"iss": issuer, "aud": url, "sub": "a", "exp": now() + 60}),
    );
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    for _ in 0..20 {
        let r = stub::post_text(&url, Some(&t), None, init);
        assert_eq!(r.status(), 503);
    }
    let n = hits.load(Ordering::SeqCst);
    assert!(
        n <= 2,
        "20 tokens made {n} JWKS requests to a failing server"
    );
}

#[test]
fn a_hanging_jwks_does_not_queue_requests_behind_one_another() {
    let (issuer, _) = failing_jwks(true);
    let url = start(AuthOptions::jwt(&issuer).unwrap());
    let t = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &json!({"iss": issuer, "aud": url, "sub": "a", "exp": now() + 60}),
    );
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let started = std::time::Instant::now();
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (url, t) = (url.clone(), t.clone());
            std::thread::spawn(move || {
                let r = Client::builder()
                    .timeout(Duration::from_secs(60))
                    .build()
                    .unwrap()
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json")
                    .header("authorization", format!("Bearer {t}"))
                    .body(init)
                    .send()
                    .unwrap();
                r.status().as_u16()
            })
        })
        .collect();
    for c in clients {
        assert_eq!(c.join().unwrap(), 503);
    }
    // One fetch times out (10 s); the requests that waited for it do not each start another.
    let took = started.elapsed();
    assert!(took < Duration::from_secs(18), "took {took:?}");
}

#[test]
fn the_listeners_metrics_path_needs_the_token_and_a_good_host() {
    let a = auth_server();
    let open = Tool::builder("open")
        .handler(|_, _| Ok(CallToolResult::text("opened")))
        .build()
        .unwrap();
    let server = Server::builder("auth-metrics", "1.0")
        .tools(vec![open])
        .build()
        .unwrap();
    let http = HttpServer::bind(
        &server,
        "127.0.0.1:0",
        HttpOptions::new().auth(AuthOptions::jwt(&a.url).unwrap()),
    )
    .unwrap()
    .metrics(toolschema_http::metrics::Metrics::new(), Some("/metrics"));
    let addr = http.local_addr();
    let url = format!("http://{addr}/mcp");
    std::thread::spawn(move || http.run());
    let t = token(&a, &url, Some("alice"), "");
    let session = open_session(&url, &t, "2025-06-18");
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open"}}"#;
    assert_eq!(
        stub::post_text(&url, Some(&t), Some(&session), call).status(),
        200
    );
    let metrics = format!("http://{addr}/metrics");
    let get = |token: Option<&str>, host: Option<&str>| {
        let mut req = Client::new().get(&metrics);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        if let Some(h) = host {
            req = req.header("host", h);
        }
        req.send().unwrap()
    };
    let r = get(None, None);
    assert_eq!(r.status(), 401);
    assert!(!r.text().unwrap().contains("gen_ai_tool_name"));
    assert_eq!(get(Some("not-a-jwt"), None).status(), 401);
    // DNS rebinding: a page of another site reaching the listener under its own name.
    assert_eq!(get(Some(&t), Some("evil.example")).status(), 403);
    let r = get(Some(&t), None);
    assert_eq!(r.status(), 200);
    assert!(r.text().unwrap().contains("gen_ai_tool_name=\"open\""));
    // Every route without a token: only the metadata answers; nothing reaches a session.
    let client = Client::new();
    for method in ["GET", "POST", "DELETE", "OPTIONS", "HEAD", "PUT"] {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        for path in ["/mcp", "/metrics"] {
            let r = client
                .request(m.clone(), format!("http://{addr}{path}"))
                .header("mcp-session-id", &session)
                .header("content-type", "application/json")
                .body(call)
                .send()
                .unwrap();
            assert_eq!(r.status(), 401, "{method} {path}");
        }
        let r = client
            .request(m.clone(), format!("http://{addr}/mcp/x"))
            .send()
            .unwrap();
        assert_eq!(r.status(), 404, "{method} /mcp/x");
        let r = client
            .request(
                m,
                format!("http://{addr}/.well-known/oauth-protected-resource/mcp"),
            )
            .send()
            .unwrap();
        let want = match method {
            "GET" | "HEAD" => 200,
            "OPTIONS" => 204,
            _ => 405,
        };
        assert_eq!(r.status(), want, "{method} metadata");
    }
    // The session is still there for its owner.
    assert_eq!(
        stub::post_text(&url, Some(&t), Some(&session), call).status(),
        200
    );
}

#[test]
fn a_session_opened_by_a_token_without_a_subject_is_its_alone() {
    let a = auth_server();
    let url = jwt_server(&a);
    let first = token(&a, &url, None, "files:read");
    // Another token without `sub` (or `client_id`), for another client.
    let other = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &json!({"iss": a.url, "aud": url, "exp": now() + 600, "iat": now() - 1, "jti": "other"}),
    );
    let session = open_session(&url, &first, "2025-06-18");
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open"}}"#;
    assert_eq!(
        stub::post_text(&url, Some(&other), Some(&session), call).status(),
        404
    );
    assert_eq!(
        stub::post_text(&url, None, Some(&session), call).status(),
        401
    );
    let delete = Client::new()
        .delete(&url)
        .header("authorization", format!("Bearer {other}"))
        .header("mcp-session-id", &session)
        .send()
        .unwrap();
    assert_eq!(delete.status(), 404);
    assert_eq!(
        stub::post_text(&url, Some(&first), Some(&session), call).status(),
        200
    );
}

#[test]
fn claims_in_odd_forms_are_judged_strictly() {
    let a = auth_server();
    let url = jwt_server(&a);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let base = || json!({"iss": a.url, "aud": url, "sub": "s", "exp": now() + 600});
    let with = |k: &str, v: Value| {
        let mut c = base();
        if v.is_null() {
            c.as_object_mut().unwrap().remove(k);
        } else {
            c[k] = v;
        }
        mint(&rsa(), Algorithm::RS256, "rsa1", &c)
    };
    for (what, t) in [
        (
            "exp as a string",
            with("exp", json!((now() + 600).to_string())),
        ),
        ("exp missing", with("exp", Value::Null)),
        ("exp past the leeway", with("exp", json!(now() - 31))),
        ("nbf past the leeway", with("nbf", json!(now() + 120))),
        ("aud missing", with("aud", Value::Null)),
        (
            "aud array without us",
            with("aud", json!(["http://127.0.0.1:1/mcp"])),
        ),
        ("aud as an object", with("aud", json!({"x": url}))),
        (
            "iss with a slash more",
            with("iss", json!(format!("{}/", a.url))),
        ),
        ("iss missing", with("iss", Value::Null)),
        ("kid of another key type", {
            mint(&rsa(), Algorithm::RS256, "ec1", &base())
        }),
    ] {
        let r = stub::post_text(&url, Some(&t), None, init);
        assert_eq!(r.status(), 401, "{what}");
    }
    for (what, t) in [
        (
            "aud array with us",
            with("aud", json!(["http://127.0.0.1:1/mcp", url])),
        ),
        ("exp within the leeway", with("exp", json!(now() - 5))),
    ] {
        let r = stub::post_text(&url, Some(&t), None, init);
        assert_eq!(r.status(), 200, "{what}");
    }
    // `scp` as an array grants as `scope` does; a scope in another case does not.
    let session = open_session(&url, &with("scp", json!(["files:write"])), "2025-06-18");
    let write = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{}}}"#;
    let r = stub::post_text(
        &url,
        Some(&with("scp", json!(["files:write"]))),
        Some(&session),
        write,
    );
    assert_eq!(r.status(), 200);
    let r = stub::post_text(
        &url,
        Some(&with("scope", json!("FILES:WRITE"))),
        Some(&session),
        write,
    );
    assert_eq!(r.status(), 403);
    // An Authorization header of 60 KB, or not UTF-8, is refused, not a crash.
    let huge = format!("Bearer {}", "A".repeat(60_000));
    let r = Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("authorization", huge)
        .body(init)
        .send()
        .unwrap();
    assert!(r.status().is_client_error(), "{}", r.status());
    let r = Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header(
            "authorization",
            reqwest::header::HeaderValue::from_bytes(b"Bearer \xff\xfe").unwrap(),
        )
        .body(init)
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        stub::post_text(&url, Some(&with("sub", json!("s"))), None, init).status(),
        200
    );
}

#[test]
fn a_policy_naming_a_tool_the_server_lacks_is_refused_at_bind() {
    let server = Server::builder("p", "1.0")
        .tools(vec![
            Tool::builder("write_file")
                .handler(|_, _| Ok(CallToolResult::text("w")))
                .build()
                .unwrap(),
        ])
        .build()
        .unwrap();
    let policy = toolschema_http::auth::ToolPolicy::from_json(
        r#"{"tools": {"write_flie": ["files:write"]}}"#,
    )
    .unwrap();
    let auth = AuthOptions::jwt("https://as.example").unwrap();
    let err = HttpServer::bind(
        &server,
        "127.0.0.1:0",
        HttpOptions::new().auth(auth.clone().policy(policy)),
    )
    .unwrap_err();
    assert!(err.to_string().contains("write_flie"), "{err}");
    let good = toolschema_http::auth::ToolPolicy::from_json(
        r#"{"tools": {"write_file": ["files:write"]}}"#,
    )
    .unwrap();
    assert!(
        HttpServer::bind(
            &server,
            "127.0.0.1:0",
            HttpOptions::new().auth(auth.policy(good))
        )
        .is_ok()
    );
}
