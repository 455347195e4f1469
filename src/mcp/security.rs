//! What authorization a tool needs: its security schemes (`noauth`, `oauth2` with scopes).
//!
//! No MCP schema version (2024-11-05 to 2026-07-28) has a `securitySchemes` member on
//! `Tool`, so a tool's schemes are published in its `_meta` under `securitySchemes`
//! (clients at 2025-06-18 and later, the versions whose `Tool` carries `_meta`), in the
//! form the OpenAI Apps SDK uses: `[{"type": "noauth"}, {"type": "oauth2", "scopes":
//! ["files:write"]}]`. The schemes are alternatives: a caller that satisfies any one may
//! call. A tool that declares none needs nothing beyond what the transport asks of every
//! request.
//!
//! The HTTP transport (`toolschema-http`) checks them against the bearer token's scopes
//! before a call is dispatched (403 `insufficient_scope` otherwise). A connection with no
//! verified token (stdio, or HTTP without authorization configured) cannot call a tool that
//! only `oauth2` allows, unless the server trusts the local user
//! ([`ServerBuilder::trust_local_user`](super::ServerBuilder::trust_local_user)).
//!
//! ```
//! use toolschema::mcp::{SecurityScheme, Tool};
//!
//! let tool = Tool::builder("delete_file")
//!     .security_schemes(vec![SecurityScheme::oauth2(["files:write"])])
//!     .build()?;
//! assert!(tool.requires_token());
//! assert!(!SecurityScheme::allows_any(tool.security_schemes(), Some(&["files:read"][..])));
//! assert!(SecurityScheme::allows_any(
//!     tool.security_schemes(),
//!     Some(&["files:read", "files:write"][..])
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde_json::{Map, Value, json};

/// The `_meta` key under which a tool's schemes are published.
pub const META_KEY: &str = "securitySchemes";

/// One way a caller may be authorized to call a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SecurityScheme {
    /// Anyone may call, with or without a token.
    NoAuth,
    /// A caller whose OAuth token was verified and grants every one of these scopes (none:
    /// any verified token).
    OAuth2 {
        /// The scopes the token must grant.
        scopes: Vec<String>,
    },
}

impl SecurityScheme {
    /// An `oauth2` scheme needing these scopes.
    pub fn oauth2<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> SecurityScheme {
        SecurityScheme::OAuth2 {
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether a caller is allowed by this scheme: `granted` is `Some(scopes)` for a caller
    /// whose token was verified, `None` for one without.
    pub fn allows<S: AsRef<str>>(&self, granted: Option<&[S]>) -> bool {
        match (self, granted) {
            (SecurityScheme::NoAuth, _) => true,
            (SecurityScheme::OAuth2 { .. }, None) => false,
            (SecurityScheme::OAuth2 { scopes }, Some(granted)) => scopes
                .iter()
                .all(|s| granted.iter().any(|g| g.as_ref() == s)),
        }
    }

    /// Whether any of `schemes` allows the caller; true when there are none.
    pub fn allows_any<S: AsRef<str>>(schemes: &[SecurityScheme], granted: Option<&[S]>) -> bool {
        schemes.is_empty() || schemes.iter().any(|s| s.allows(granted))
    }

    /// The scopes to name in an `insufficient_scope` challenge when `schemes` refuse a
    /// caller: those of the first `oauth2` scheme.
    pub fn challenge_scopes(schemes: &[SecurityScheme]) -> &[String] {
        schemes
            .iter()
            .find_map(|s| match s {
                SecurityScheme::OAuth2 { scopes } => Some(scopes.as_slice()),
                SecurityScheme::NoAuth => None,
            })
            .unwrap_or(&[])
    }

    /// The scheme as published: `{"type": "noauth"}` or `{"type": "oauth2", "scopes": [..]}`.
    pub fn to_json(&self) -> Value {
        match self {
            SecurityScheme::NoAuth => json!({"type": "noauth"}),
            SecurityScheme::OAuth2 { scopes } => json!({"type": "oauth2", "scopes": scopes}),
        }
    }

    /// Reads a `securitySchemes` array.
    ///
    /// # Errors
    /// Not an array, an entry that is not an object with `type` `noauth` or `oauth2`, or
    /// `scopes` that is not an array of strings without spaces.
    pub fn list_from_json(value: &Value) -> Result<Vec<SecurityScheme>, String> {
        let Value::Array(items) = value else {
            return Err("\"securitySchemes\" must be an array".into());
        };
        items.iter().map(SecurityScheme::from_json).collect()
    }

    fn from_json(item: &Value) -> Result<SecurityScheme, String> {
        let obj = item
            .as_object()
            .ok_or("each security scheme must be an object")?;
        match obj.get("type").and_then(Value::as_str) {
            Some("noauth") => Ok(SecurityScheme::NoAuth),
            Some("oauth2") => {
                let scopes = match obj.get("scopes") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|s| match s.as_str() {
                            Some(s) if valid_scope(s) => Ok(s.to_string()),
                            _ => Err(
                                "\"scopes\" must hold scope tokens (printable ASCII, no space, quote or backslash)"
                                    .to_string(),
                            ),
                        })
                        .collect::<Result<_, _>>()?,
                    Some(_) => return Err("\"scopes\" must be an array of strings".into()),
                };
                Ok(SecurityScheme::OAuth2 { scopes })
            }
            _ => Err("a security scheme's \"type\" must be \"noauth\" or \"oauth2\"".into()),
        }
    }
}

/// A scope token as RFC 6749 §3.3 defines it (`%x21 / %x23-5B / %x5D-7E`, at least one).
pub fn valid_scope(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

/// `meta` with the schemes put under [`META_KEY`].
pub(crate) fn publish(meta: Option<&Map<String, Value>>, schemes: &[SecurityScheme]) -> Value {
    let mut m = meta.cloned().unwrap_or_default();
    m.insert(
        META_KEY.into(),
        Value::Array(schemes.iter().map(SecurityScheme::to_json).collect()),
    );
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_are_alternatives() {
        let schemes = [
            SecurityScheme::oauth2(["a", "b"]),
            SecurityScheme::oauth2(["c"]),
        ];
        assert!(SecurityScheme::allows_any(&schemes, Some(&["c"][..])));
        assert!(SecurityScheme::allows_any(&schemes, Some(&["b", "a"][..])));
        assert!(!SecurityScheme::allows_any(&schemes, Some(&["a"][..])));
        assert!(!SecurityScheme::allows_any::<&str>(&schemes, None));
        assert_eq!(SecurityScheme::challenge_scopes(&schemes), ["a", "b"]);
        let open = [SecurityScheme::NoAuth, SecurityScheme::oauth2(["x"])];
        assert!(SecurityScheme::allows_any::<&str>(&open, None));
        assert!(SecurityScheme::allows_any::<&str>(&[], None));
        // oauth2 with no scopes: any verified token, but a token it must be.
        let any_token = [SecurityScheme::oauth2(Vec::<String>::new())];
        assert!(SecurityScheme::allows_any::<&str>(
            &any_token,
            Some(&[][..])
        ));
        assert!(!SecurityScheme::allows_any::<&str>(&any_token, None));
    }

    /// Runs `messages` on a connection (verified by the transport or not) and returns the
    /// answers.
    fn run(server: &crate::mcp::Server, verified: bool, messages: &[Value]) -> Vec<Value> {
        use std::sync::{Arc, Mutex};
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&out);
        let sink: crate::mcp::transport::Sink = Arc::new(move |line, _, _| {
            sink.lock()
                .unwrap()
                .push(serde_json::from_str::<Value>(&line).unwrap());
        });
        let conn = if verified {
            crate::mcp::transport::connect_verified(server, sink)
        } else {
            crate::mcp::transport::connect(server, sink)
        };
        for m in messages {
            conn.handle(&m.to_string());
        }
        conn.finish(std::time::Duration::from_secs(5));
        out.lock().unwrap().clone()
    }

    #[test]
    fn a_token_only_tool_needs_a_verified_connection_or_trust() {
        use crate::mcp::{CallToolResult, Server, Tool};
        let tool = |name: &str, schemes: Vec<SecurityScheme>| {
            Tool::builder(name)
                .security_schemes(schemes)
                .handler(|_, _| Ok(CallToolResult::text("ran")))
                .build()
                .unwrap()
        };
        let tools = vec![
            tool("scoped", vec![SecurityScheme::oauth2(["files:write"])]),
            tool(
                "open",
                vec![SecurityScheme::NoAuth, SecurityScheme::oauth2(["x"])],
            ),
            tool("plain", vec![]),
        ];
        let messages: Vec<Value> = [
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ]
        .into_iter()
        .chain(["scoped", "open", "plain"].iter().enumerate().map(|(i, n)| {
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": n, "arguments": {}}})
        }))
        .collect();
        let answer =
            |answers: &[Value], id: usize| answers.iter().find(|a| a["id"] == id).cloned().unwrap();
        let server = Server::builder("t", "1")
            .tools(tools.clone())
            .build()
            .unwrap();
        let local = run(&server, false, &messages);
        let refused = answer(&local, 1);
        assert_eq!(refused["error"]["code"], crate::mcp::jsonrpc::UNAUTHORIZED);
        assert_eq!(
            refused["error"]["data"]["requiredScopes"],
            json!(["files:write"])
        );
        assert_eq!(answer(&local, 2)["result"]["content"][0]["text"], "ran");
        assert_eq!(answer(&local, 3)["result"]["content"][0]["text"], "ran");
        let verified = run(&server, true, &messages);
        assert_eq!(answer(&verified, 1)["result"]["content"][0]["text"], "ran");
        let trusting = Server::builder("t", "1")
            .tools(tools)
            .trust_local_user(true)
            .build()
            .unwrap();
        let trusted = run(&trusting, false, &messages);
        assert_eq!(answer(&trusted, 1)["result"]["content"][0]["text"], "ran");
    }

    #[test]
    fn published_in_meta_from_2025_06_18_and_read_back() {
        use crate::mcp::{ProtocolVersion, Tool};
        let declared = json!({"name": "w", "inputSchema": {"type": "object"},
            "_meta": {"other": 1}, "securitySchemes": [{"type": "oauth2", "scopes": ["a"]}]});
        let tool = Tool::from_json(&declared).unwrap().build().unwrap();
        assert_eq!(tool.security_schemes(), [SecurityScheme::oauth2(["a"])]);
        assert!(tool.requires_token());
        let listed = tool.to_json(ProtocolVersion::V2025_06_18);
        assert_eq!(
            listed["_meta"],
            json!({"other": 1, "securitySchemes": [{"type": "oauth2", "scopes": ["a"]}]})
        );
        assert!(listed.get("securitySchemes").is_none());
        assert!(
            tool.to_json(ProtocolVersion::V2025_03_26)
                .get("_meta")
                .is_none()
        );
        // Read back from `_meta` alone; `_meta` left with nothing else is dropped.
        let again = json!({"name": "w", "inputSchema": {"type": "object"},
            "_meta": {"securitySchemes": [{"type": "noauth"}]}});
        let tool = Tool::from_json(&again).unwrap().build().unwrap();
        assert_eq!(tool.security_schemes(), [SecurityScheme::NoAuth]);
        assert!(!tool.requires_token());
        assert_eq!(
            tool.to_json(ProtocolVersion::V2025_11_25)["_meta"],
            json!({"securitySchemes": [{"type": "noauth"}]})
        );
        // Both places, disagreeing: refused.
        let both = json!({"name": "w", "inputSchema": {"type": "object"},
            "securitySchemes": [{"type": "noauth"}],
            "_meta": {"securitySchemes": [{"type": "oauth2"}]}});
        assert!(Tool::from_json(&both).is_err());
        let bad = json!({"name": "w", "inputSchema": {"type": "object"}, "securitySchemes": [{"type": "apiKey"}]});
        assert!(Tool::from_json(&bad).is_err());
    }

    #[test]
    fn reads_and_refuses() {
        let v = json!([{"type": "noauth"}, {"type": "oauth2", "scopes": ["files:write"]}]);
        let s = SecurityScheme::list_from_json(&v).unwrap();
        assert_eq!(
            s,
            [
                SecurityScheme::NoAuth,
                SecurityScheme::oauth2(["files:write"])
            ]
        );
        assert_eq!(
            Value::Array(s.iter().map(SecurityScheme::to_json).collect()),
            v
        );
        for bad in [
            json!({"type": "noauth"}),
            json!([{"type": "apiKey"}]),
            json!([{"type": "oauth2", "scopes": "a"}]),
            json!([{"type": "oauth2", "scopes": ["a b"]}]),
            json!([{"type": "oauth2", "scopes": ["say \"hi\""]}]),
            json!([7]),
        ] {
            assert!(SecurityScheme::list_from_json(&bad).is_err(), "{bad}");
        }
    }
}
