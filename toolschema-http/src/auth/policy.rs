//! Per-tool security schemes set by the operator (for servers that declare none, e.g.
//! behind the proxy), read from a JSON policy file.

use std::collections::HashMap;
use toolschema::mcp::SecurityScheme;

/// Which scopes each tool needs, whatever the tools declare.
///
/// The file is a JSON object:
///
/// ```json
/// {
///   "tools": {
///     "write_file": ["files:write"],
///     "read_file": [{"type": "noauth"}, {"type": "oauth2", "scopes": ["files:read"]}]
///   },
///   "default": ["files:read"]
/// }
/// ```
///
/// A tool's entry is a `securitySchemes` array, or an array of scope strings (shorthand for
/// one `oauth2` scheme with those scopes; `[]` means any valid token). It replaces what the
/// tool declares. `default`, when given, applies to tools with no entry that declare no
/// schemes themselves. Unknown members are refused, so that a typo does not leave a tool
/// open; for the same reason [`HttpServer::bind`](crate::HttpServer::bind) refuses a policy
/// naming a tool its server does not have. (Behind the proxy the tools are known only once
/// listed: there, a misspelt entry is not caught; give a `default`.)
///
/// ```
/// use toolschema_http::auth::ToolPolicy;
/// let policy = ToolPolicy::from_json(r#"{"tools": {"write_file": ["files:write"]}}"#)?;
/// assert!(policy.schemes_for("write_file").is_some());
/// assert!(policy.schemes_for("read_file").is_none());
/// # Ok::<(), toolschema_http::auth::AuthError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolPolicy {
    tools: HashMap<String, Vec<SecurityScheme>>,
    default: Option<Vec<SecurityScheme>>,
}

impl ToolPolicy {
    /// Reads a policy document (see the type's documentation).
    ///
    /// # Errors
    /// Not JSON, an unknown member, or an entry that is not a scheme or scope array.
    pub fn from_json(text: &str) -> Result<ToolPolicy, super::AuthError> {
        let err = |m: String| super::AuthError(format!("tool policy: {m}"));
        let doc: serde_json::Value =
            serde_json::from_str(text).map_err(|e| err(format!("not JSON: {e}")))?;
        let obj = doc
            .as_object()
            .ok_or_else(|| err("must be a JSON object".into()))?;
        let mut policy = ToolPolicy::default();
        for (key, value) in obj {
            match key.as_str() {
                "tools" => {
                    let tools = value
                        .as_object()
                        .ok_or_else(|| err("\"tools\" must be an object".into()))?;
                    for (name, entry) in tools {
                        let schemes =
                            entry_schemes(entry).map_err(|e| err(format!("tool {name:?}: {e}")))?;
                        policy.tools.insert(name.clone(), schemes);
                    }
                }
                "default" => {
                    policy.default =
                        Some(entry_schemes(value).map_err(|e| err(format!("default: {e}")))?);
                }
                other => return Err(err(format!("unknown member {other:?}"))),
            }
        }
        Ok(policy)
    }

    /// Sets one tool's schemes.
    pub fn tool(mut self, name: impl Into<String>, schemes: Vec<SecurityScheme>) -> ToolPolicy {
        self.tools.insert(name.into(), schemes);
        self
    }

    /// The schemes set for `tool` by its own entry, if any.
    pub fn schemes_for(&self, tool: &str) -> Option<&[SecurityScheme]> {
        self.tools.get(tool).map(Vec::as_slice)
    }

    /// The tools with an entry of their own.
    pub(crate) fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// The `default` entry.
    pub(crate) fn default_schemes(&self) -> Option<&[SecurityScheme]> {
        self.default.as_deref()
    }
}

fn entry_schemes(entry: &serde_json::Value) -> Result<Vec<SecurityScheme>, String> {
    let items = entry
        .as_array()
        .ok_or("must be an array of scopes or of security schemes")?;
    if items.iter().all(serde_json::Value::is_string) {
        let scopes: Vec<String> = items
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
        if let Some(bad) = scopes
            .iter()
            .find(|s| !toolschema::mcp::security::valid_scope(s))
        {
            return Err(format!("{bad:?} is not a scope token"));
        }
        return Ok(vec![SecurityScheme::oauth2(scopes)]);
    }
    SecurityScheme::list_from_json(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_entries() {
        let p = ToolPolicy::from_json(
            r#"{"tools": {"w": ["files:write"], "r": [{"type": "noauth"}], "any": []}, "default": ["x"]}"#,
        )
        .unwrap();
        assert_eq!(
            p.schemes_for("w").unwrap(),
            [SecurityScheme::oauth2(["files:write"])]
        );
        assert_eq!(p.schemes_for("r").unwrap(), [SecurityScheme::NoAuth]);
        assert_eq!(
            p.schemes_for("any").unwrap(),
            [SecurityScheme::oauth2(Vec::<String>::new())]
        );
        assert_eq!(
            p.default_schemes().unwrap(),
            [SecurityScheme::oauth2(["x"])]
        );
        for bad in [
            r#"{"tool": {}}"#,
            r#"{"tools": {"w": "files:write"}}"#,
            r#"{"tools": {"w": ["a b"]}}"#,
            r#"{"tools": {"w": [{"type": "basic"}]}}"#,
            r#"[]"#,
            "nope",
        ] {
            assert!(ToolPolicy::from_json(bad).is_err(), "{bad}");
        }
    }
}
