//! The tests' authorization server stub and signing keys (test-only keys beside this file),
//! shared by toolschema-http/tests/auth.rs and toolschema-cli/tests/auth_interop.rs.

#![allow(dead_code)]

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

pub fn rsa() -> EncodingKey {
    EncodingKey::from_rsa_pem(include_bytes!("rsa.pem")).unwrap()
}
pub fn rsa_other() -> EncodingKey {
    EncodingKey::from_rsa_pem(include_bytes!("rsa_other.pem")).unwrap()
}
pub fn ec() -> EncodingKey {
    EncodingKey::from_ec_pem(include_bytes!("ec.pem")).unwrap()
}
pub fn ed() -> EncodingKey {
    EncodingKey::from_ed_pem(include_bytes!("ed.pem")).unwrap()
}

pub fn jwk(key: &EncodingKey, alg: Algorithm, kid: &str) -> Value {
    let mut j = Jwk::from_encoding_key(key, alg).unwrap();
    j.common.key_id = Some(kid.into());
    serde_json::to_value(j).unwrap()
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The authorization server stub: RFC 8414 metadata, a JWKS the test can change, and an
/// introspection endpoint answering from a table.
pub struct AuthServer {
    pub url: String,
    pub jwks: Arc<Mutex<Value>>,
    pub jwks_fetches: Arc<AtomicUsize>,
    pub introspection: Arc<Mutex<HashMap<String, (u16, Value)>>>,
}

pub fn auth_server() -> AuthServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let jwks = Arc::new(Mutex::new(json!({"keys": [
        jwk(&rsa(), Algorithm::RS256, "rsa1"),
        jwk(&ec(), Algorithm::ES256, "ec1"),
        jwk(&ed(), Algorithm::EdDSA, "ed1"),
    ]})));
    let jwks_fetches = Arc::new(AtomicUsize::new(0));
    let introspection: Arc<Mutex<HashMap<String, (u16, Value)>>> = Arc::default();
    let (j, f, i, issuer) = (
        Arc::clone(&jwks),
        Arc::clone(&jwks_fetches),
        Arc::clone(&introspection),
        url.clone(),
    );
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let path = line.split(' ').nth(1).unwrap_or("").to_string();
            let mut length = 0;
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let body = String::from_utf8_lossy(&body).to_string();
            let (status, doc) = match path.as_str() {
                "/.well-known/oauth-authorization-server" => (
                    200,
                    json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks"),
                           "authorization_endpoint": format!("{issuer}/authorize"),
                           "token_endpoint": format!("{issuer}/token"),
                           "response_types_supported": ["code"]}),
                ),
                "/jwks" => {
                    f.fetch_add(1, Ordering::SeqCst);
                    (200, j.lock().unwrap().clone())
                }
                "/introspect" => {
                    let token = body
                        .split('&')
                        .find_map(|kv| kv.strip_prefix("token="))
                        .unwrap_or("")
                        .to_string();
                    i.lock()
                        .unwrap()
                        .get(&token)
                        .cloned()
                        .unwrap_or((401, json!({"active": false})))
                }
                _ => (404, json!({"error": "not found"})),
            };
            let text = doc.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    AuthServer {
        url,
        jwks,
        jwks_fetches,
        introspection,
    }
}

/// A JWT signed by `key` under key id `kid`.
pub fn mint(key: &EncodingKey, alg: Algorithm, kid: &str, claims: &Value) -> String {
    let mut h = Header::new(alg);
    h.kid = Some(kid.into());
    jsonwebtoken::encode(&h, claims, key).unwrap()
}

/// A POST of `body` to the MCP endpoint `url`, with a bearer token and a session id when
/// given.
pub fn post_text(
    url: &str,
    token: Option<&str>,
    session: Option<&str>,
    body: &str,
) -> reqwest::blocking::Response {
    let mut req = reqwest::blocking::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(body.to_string());
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    req.send().unwrap()
}
