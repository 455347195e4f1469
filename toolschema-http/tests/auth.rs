//! Authorization on the HTTP endpoint, over the wire: a real HTTP client (reqwest) against
//! `HttpServer` with `AuthOptions`, tokens minted here with test keys (tests/auth/*.pem) and
//! checked against a JWKS (or an introspection endpoint) served by a small authorization
//! server stub started here on 127.0.0.1. (Real MCP SDK clients and the TypeScript SDK's own
//! authorization server: toolschema-cli/tests/auth_interop.rs.)

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::blocking::{Client, Response};
use serde_json::{Value, json};
use std::net::TcpListener;
use std::sync::atomic::Ordering;
use std::time::Duration;
use stub::{AuthServer, auth_server, ec, ed, jwk, mint, now, rsa, rsa_other};

#[path = "auth/stub.rs"]
mod stub;
use toolschema::mcp::{CallToolResult, SecurityScheme, Server, Tool};
use toolschema_http::auth::{AuthOptions, ToolPolicy};
use toolschema_http::{HttpOptions, HttpServer};

fn tools() -> Vec<Tool> {
    let open = Tool::builder("open")
        .handler(|_, _| Ok(CallToolResult::text("opened")))
        .build()
        .unwrap();
    let write = Tool::builder("write")
        .security_schemes(vec![SecurityScheme::oauth2(["files:write"])])
        .handler(|_, _| Ok(CallToolResult::text("written")))
        .build()
        .unwrap();
    let either = Tool::builder("either")
        .security_schemes(vec![
            SecurityScheme::oauth2(["files:write"]),
            SecurityScheme::oauth2(["admin"]),
        ])
        .handler(|_, _| Ok(CallToolResult::text("either")))
        .build()
        .unwrap();
    // Declares nothing: the policy below gives it a scope.
    let purge = Tool::builder("purge")
        .handler(|_, _| Ok(CallToolResult::text("purged")))
        .build()
        .unwrap();
    vec![open, write, either, purge]
}

/// A server with `auth` on a free port; its endpoint URL (the resource tokens must name:
/// by default, the bound address's endpoint).
fn start(auth: AuthOptions) -> String {
    let server = Server::builder("auth-test", "1.0")
        .tools(tools())
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
            .scopes_supported(["files:read", "files:write"])
            .jwks_refresh_interval(Duration::from_millis(300))
            .policy(ToolPolicy::default().tool("purge", vec![SecurityScheme::oauth2(["admin"])])),
    )
}

fn claims(a: &AuthServer, url: &str, scope: &str) -> Value {
    json!({"iss": a.url, "aud": url, "sub": "alice", "exp": now() + 600, "iat": now(), "scope": scope})
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn post(url: &str, token: Option<&str>, session: Option<&str>, body: &Value) -> Response {
    stub::post_text(url, token, session, &body.to_string())
}

/// A session opened with `token`; its id.
fn open_session(url: &str, token: &str) -> String {
    open_session_at(url, token, "2025-06-18")
}

/// A session opened with `token` at protocol `version`; its id.
fn open_session_at(url: &str, token: &str, version: &str) -> String {
    let r = post(url, Some(token), None, &initialize(version));
    assert_eq!(r.status(), 200, "{:?}", r.text());
    let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, Some(token), Some(&id), &note).status(), 202);
    id
}

fn call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

fn json_of(r: Response) -> Value {
    serde_json::from_str(&r.text().unwrap()).unwrap()
}

fn challenge(r: &Response) -> String {
    r.headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn metadata_is_served_at_both_paths() {
    let a = auth_server();
    let url = jwt_server(&a);
    let base = url.trim_end_matches("/mcp");
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = Client::new().get(format!("{base}{path}")).send().unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["access-control-allow-origin"], "*");
        let doc: Value = json_of(r);
        assert_eq!(doc["resource"], url);
        assert_eq!(doc["authorization_servers"], json!([a.url]));
        assert_eq!(
            doc["scopes_supported"],
            json!(["files:read", "files:write"])
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
    let other = Client::new()
        .get(format!("{base}/.well-known/oauth-protected-resource/other"))
        .send()
        .unwrap();
    assert_eq!(other.status(), 404);
    let post = Client::new()
        .post(format!("{base}/.well-known/oauth-protected-resource"))
        .send()
        .unwrap();
    assert_eq!(post.status(), 405);
}

#[test]
fn no_token_or_a_malformed_header_is_challenged() {
    let a = auth_server();
    let url = jwt_server(&a);
    let r = post(&url, None, None, &initialize("2025-06-18"));
    assert_eq!(r.status(), 401);
    let meta = format!(
        "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        url.trim_end_matches("/mcp")
    );
    assert_eq!(challenge(&r), format!("Bearer {meta}"));
    // GET and DELETE too.
    let get = Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .send()
        .unwrap();
    assert_eq!(get.status(), 401);
    for bad in ["Basic YTpi", "Bearer", "Bearer a b"] {
        let r = Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .header("authorization", bad)
            .body(initialize("2025-06-18").to_string())
            .send()
            .unwrap();
        assert_eq!(r.status(), 400, "{bad}");
        assert!(challenge(&r).starts_with("Bearer error=\"invalid_request\""));
    }
}

#[test]
fn each_bad_token_is_refused_with_invalid_token() {
    let a = auth_server();
    let url = jwt_server(&a);
    let good = claims(&a, &url, "files:read");
    let with = |k: &str, v: Value| {
        let mut c = good.clone();
        c[k] = v;
        c
    };
    let b64 = |v: &Value| {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let alg_none = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "typ": "JWT", "kid": "rsa1"})),
        b64(&good)
    );
    // The RSA key's public half used as an HMAC secret (algorithm confusion).
    let hs256 = {
        let mut h = Header::new(Algorithm::HS256);
        h.kid = Some("rsa1".into());
        let secret = jwk(&rsa(), Algorithm::RS256, "rsa1").to_string();
        jsonwebtoken::encode(
            &h,
            &good,
            &EncodingKey::from_secret(secret.as_bytes()).unwrap(),
        )
        .unwrap()
    };
    let mut no_exp = good.clone();
    no_exp.as_object_mut().unwrap().remove("exp");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "expired",
            mint(
                &rsa(),
                Algorithm::RS256,
                "rsa1",
                &with("exp", json!(now() - 120)),
            ),
            "expired",
        ),
        (
            "not yet valid",
            mint(
                &rsa(),
                Algorithm::RS256,
                "rsa1",
                &with("nbf", json!(now() + 600)),
            ),
            "not valid yet",
        ),
        (
            "wrong audience",
            mint(
                &rsa(),
                Algorithm::RS256,
                "rsa1",
                &with("aud", json!("http://127.0.0.1:1/mcp")),
            ),
            "audience",
        ),
        (
            "wrong issuer",
            mint(
                &rsa(),
                Algorithm::RS256,
                "rsa1",
                &with("iss", json!("http://127.0.0.1:1")),
            ),
            "issuer",
        ),
        (
            "bad signature",
            mint(&rsa_other(), Algorithm::RS256, "rsa1", &good),
            "signature",
        ),
        ("alg none", alg_none, "not a signed JWT"),
        (
            "HS256 with the public key",
            hs256,
            "algorithm is not accepted",
        ),
        (
            "an EC signature under the RSA key's id",
            mint(&ec(), Algorithm::ES256, "rsa1", &good),
            "does not fit",
        ),
        (
            "no exp",
            mint(&rsa(), Algorithm::RS256, "rsa1", &no_exp),
            "exp",
        ),
        (
            "an unknown key",
            mint(&rsa_other(), Algorithm::RS256, "made-up", &good),
            "not one of the authorization server's",
        ),
        ("not a JWT", "abc.def.ghi".into(), "not a signed JWT"),
    ];
    for (what, token, says) in cases {
        let r = post(&url, Some(&token), None, &initialize("2025-06-18"));
        assert_eq!(r.status(), 401, "{what}");
        let c = challenge(&r);
        assert!(
            c.starts_with("Bearer error=\"invalid_token\""),
            "{what}: {c}"
        );
        assert!(c.contains(says), "{what}: {c}");
        assert!(c.contains("resource_metadata=\""), "{what}: {c}");
        let body = r.text().unwrap();
        assert!(!body.contains(&token), "{what}: the token is echoed");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"]["code"], -32001, "{what}");
        assert_eq!(body["error"]["data"]["error"], "invalid_token", "{what}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(says),
            "{what}"
        );
        assert!(!c.contains(&token), "{what}: the token is echoed");
    }
    // Each algorithm accepted with its own key; within the 30 s skew, a just-expired
    // token still passes.
    for token in [
        mint(&rsa(), Algorithm::RS256, "rsa1", &good),
        mint(&ec(), Algorithm::ES256, "ec1", &good),
        mint(&ed(), Algorithm::EdDSA, "ed1", &good),
        mint(
            &rsa(),
            Algorithm::RS256,
            "rsa1",
            &with("exp", json!(now() - 5)),
        ),
    ] {
        let r = post(&url, Some(&token), None, &initialize("2025-06-18"));
        assert_eq!(r.status(), 200, "{:?}", r.text());
    }
}

#[test]
fn scopes_are_checked_per_tool_with_a_403_challenge() {
    let a = auth_server();
    let url = jwt_server(&a);
    let reader = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a, &url, "files:read"),
    );
    let writer = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a, &url, "files:read files:write"),
    );
    let session = open_session(&url, &reader);
    let open = post(&url, Some(&reader), Some(&session), &call("open"));
    assert_eq!(open.status(), 200);
    assert_eq!(json_of(open)["result"]["content"][0]["text"], "opened");
    for tool in ["write", "either"] {
        let r = post(&url, Some(&reader), Some(&session), &call(tool));
        assert_eq!(r.status(), 403, "{tool}");
        let c = challenge(&r);
        assert!(
            c.starts_with(
                "Bearer error=\"insufficient_scope\", scope=\"files:write\", resource_metadata=\""
            ),
            "{c}"
        );
    }
    // The policy gives the undeclared `purge` a scope.
    let r = post(&url, Some(&writer), None, &initialize("2025-06-18"));
    let s2 = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let purge = post(&url, Some(&writer), Some(&s2), &call("purge"));
    assert_eq!(purge.status(), 403);
    assert!(challenge(&purge).contains("scope=\"admin\""));
    // Step-up: a token with the scope, same subject, same session.
    let r = post(&url, Some(&writer), Some(&session), &call("write"));
    assert_eq!(r.status(), 200);
    assert_eq!(json_of(r)["result"]["content"][0]["text"], "written");
    // A batch (2025-03-26) holding a call the token does not allow is refused whole.
    let old = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a, &url, "files:read"),
    );
    let r = post(&url, Some(&old), None, &initialize("2025-03-26"));
    let s3 = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let batch = json!([call("open"), {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "write", "arguments": {}}}]);
    assert_eq!(post(&url, Some(&old), Some(&s3), &batch).status(), 403);
    // A 2026-07-28 request (no session) goes through the same check.
    let modern = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "write", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let r = Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("authorization", format!("Bearer {reader}"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "write")
        .body(modern.to_string())
        .send()
        .unwrap();
    assert_eq!(r.status(), 403);
}

#[test]
fn a_session_answers_only_to_its_subject() {
    let a = auth_server();
    let url = jwt_server(&a);
    let alice = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a, &url, "files:read"),
    );
    let mut c = claims(&a, &url, "files:read files:write");
    c["sub"] = json!("mallory");
    let mallory = mint(&rsa(), Algorithm::RS256, "rsa1", &c);
    let session = open_session(&url, &alice);
    assert_eq!(
        post(&url, Some(&mallory), Some(&session), &call("open")).status(),
        404
    );
    assert_eq!(
        post(&url, Some(&alice), Some(&session), &call("open")).status(),
        200
    );
}

#[test]
fn listing_hides_what_the_token_cannot_call_when_asked() {
    let a = auth_server();
    let url = start(
        AuthOptions::jwt(&a.url)
            .unwrap()
            .hide_unauthorized_tools(true)
            .policy(ToolPolicy::default().tool("purge", vec![SecurityScheme::NoAuth])),
    );
    let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"});
    let names = |token: &str| -> Vec<String> {
        let s = open_session(&url, token);
        let r = json_of(post(&url, Some(token), Some(&s), &list));
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let reader = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a, &url, "files:read"),
    );
    let admin = mint(&rsa(), Algorithm::RS256, "rsa1", &claims(&a, &url, "admin"));
    let writer = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a, &url, "files:write"),
    );
    assert_eq!(names(&reader), ["open", "purge"]);
    assert_eq!(names(&admin), ["open", "either", "purge"]);
    assert_eq!(names(&writer), ["open", "write", "either", "purge"]);
    // A `tools/list` inside a batch (2025-03-26) hides what one sent alone hides.
    let s = open_session_at(&url, &reader, "2025-03-26");
    let batch = json!([
        {"jsonrpc": "2.0", "id": 7, "method": "ping"},
        {"jsonrpc": "2.0", "id": 8, "method": "tools/list"},
    ]);
    let r = json_of(post(&url, Some(&reader), Some(&s), &batch));
    let answers = r.as_array().expect("a batch answer");
    assert_eq!(answers.len(), 2, "{r}");
    let listing = answers.iter().find(|a| a["id"] == 8).expect("the listing");
    let batched: Vec<&str> = listing["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(batched, ["open", "purge"]);
    // Published with the tool (2025-06-18 carries `_meta` on Tool).
    let s = open_session(&url, &writer);
    let r = json_of(post(&url, Some(&writer), Some(&s), &list));
    assert_eq!(
        r["result"]["tools"][1]["_meta"]["securitySchemes"],
        json!([{"type": "oauth2", "scopes": ["files:write"]}])
    );
}

#[test]
fn rotated_keys_are_fetched_on_an_unknown_kid_at_a_bounded_rate() {
    let a = auth_server();
    let url = jwt_server(&a);
    let good = claims(&a, &url, "files:read");
    let first = mint(&rsa(), Algorithm::RS256, "rsa1", &good);
    assert_eq!(
        post(&url, Some(&first), None, &initialize("2025-06-18")).status(),
        200
    );
    assert_eq!(a.jwks_fetches.load(Ordering::SeqCst), 1);
    // Made-up key ids, many at once: at most one fetch per interval (300 ms here).
    let bogus = mint(&rsa_other(), Algorithm::RS256, "bogus", &good);
    std::thread::sleep(Duration::from_millis(350));
    for _ in 0..20 {
        assert_eq!(
            post(&url, Some(&bogus), None, &initialize("2025-06-18")).status(),
            401
        );
    }
    assert_eq!(a.jwks_fetches.load(Ordering::SeqCst), 2);
    // The authorization server rotates in a new key: a token under it is accepted once
    // the interval has passed.
    a.jwks.lock().unwrap()["keys"]
        .as_array_mut()
        .unwrap()
        .push(jwk(&rsa_other(), Algorithm::RS256, "rsa2"));
    std::thread::sleep(Duration::from_millis(350));
    let rotated = mint(&rsa_other(), Algorithm::RS256, "rsa2", &good);
    assert_eq!(
        post(&url, Some(&rotated), None, &initialize("2025-06-18")).status(),
        200
    );
    assert_eq!(a.jwks_fetches.load(Ordering::SeqCst), 3);
}

#[test]
fn introspected_tokens_must_be_active_and_for_this_resource() {
    let a = auth_server();
    let url = start(AuthOptions::introspection(&a.url, &format!("{}/introspect", a.url)).unwrap());
    {
        let mut table = a.introspection.lock().unwrap();
        table.insert(
            "good".into(),
            (200, json!({"active": true, "aud": url, "scope": "files:write", "sub": "bob", "exp": now() + 60})),
        );
        table.insert(
            "elsewhere".into(),
            (
                200,
                json!({"active": true, "aud": "http://127.0.0.1:1/mcp", "scope": "files:write"}),
            ),
        );
        table.insert(
            "stale".into(),
            (200, json!({"active": true, "aud": url, "exp": now() - 120})),
        );
        table.insert(
            "reader".into(),
            (
                200,
                json!({"active": true, "aud": [url], "scope": "files:read"}),
            ),
        );
    }
    let s = open_session(&url, "good");
    assert_eq!(
        post(&url, Some("good"), Some(&s), &call("write")).status(),
        200
    );
    for (token, says) in [
        ("revoked", "not active"),
        ("elsewhere", "audience"),
        ("stale", "expired"),
    ] {
        let r = post(&url, Some(token), None, &initialize("2025-06-18"));
        assert_eq!(r.status(), 401, "{token}");
        assert!(challenge(&r).contains(says), "{token}: {}", challenge(&r));
    }
    let s = open_session(&url, "reader");
    assert_eq!(
        post(&url, Some("reader"), Some(&s), &call("write")).status(),
        403
    );
}

#[test]
fn an_unreachable_authorization_server_is_503_not_401() {
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let url = start(AuthOptions::jwt(&issuer).unwrap());
    let r = post(&url, Some("a.b.c"), None, &initialize("2025-06-18"));
    // A malformed token is refused before any fetch.
    assert_eq!(r.status(), 401);
    let token = mint(
        &rsa(),
        Algorithm::RS256,
        "rsa1",
        &json!({"iss": "x", "aud": url, "exp": now() + 60}),
    );
    let r = post(&url, Some(&token), None, &initialize("2025-06-18"));
    assert_eq!(r.status(), 503);
    assert!(r.headers().contains_key("retry-after"));
}
