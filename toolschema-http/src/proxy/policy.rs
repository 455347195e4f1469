//! Which tools the proxy lets clients see and call: `--allow` and `--deny` tool-name
//! patterns (globs: `*` any run of characters, `?` one, `[abc]` one of a set).
//!
//! A tool is allowed when no deny pattern matches it and, if any allow pattern is given,
//! one of them does. A tool not allowed is left out of every listing and its calls are
//! refused, listed or not.
//!
//! ```
//! use toolschema_http::proxy::policy::ToolPolicy;
//! let policy = ToolPolicy::new(&["read_*", "list_*"], &["*secret*"]).unwrap();
//! assert!(policy.allows("read_text_file"));
//! assert!(!policy.allows("write_file"));
//! assert!(!policy.allows("read_secret_notes"));
//! ```

use glob::Pattern;

/// Allow and deny patterns on tool names.
#[derive(Debug, Clone, Default)]
pub struct ToolPolicy {
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
}

impl ToolPolicy {
    /// The policy of these patterns.
    ///
    /// # Errors
    /// A pattern that is not a glob (`[` unclosed, ...), named with the reason.
    pub fn new(allow: &[impl AsRef<str>], deny: &[impl AsRef<str>]) -> Result<ToolPolicy, String> {
        let compile = |p: &str| Pattern::new(p).map_err(|e| format!("tool pattern {p:?}: {e}"));
        Ok(ToolPolicy {
            allow: allow
                .iter()
                .map(|p| compile(p.as_ref()))
                .collect::<Result<_, _>>()?,
            deny: deny
                .iter()
                .map(|p| compile(p.as_ref()))
                .collect::<Result<_, _>>()?,
        })
    }

    /// True when there is nothing to enforce.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Whether clients may see and call the tool of this name.
    pub fn allows(&self, name: &str) -> bool {
        !self.deny.iter().any(|p| p.matches(name))
            && (self.allow.is_empty() || self.allow.iter().any(|p| p.matches(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_wins_and_an_empty_allow_list_allows_all() {
        let none: [&str; 0] = [];
        let p = ToolPolicy::new(&none, &["write_*"]).unwrap();
        assert!(p.allows("read_file") && !p.allows("write_file"));
        let p = ToolPolicy::new(&["*"], &["x"]).unwrap();
        assert!(!p.allows("x") && p.allows("y"));
        assert!(ToolPolicy::new(&["[a"], &none).is_err());
        assert!(ToolPolicy::default().is_empty());
    }
}
