//! Which tools the proxy lets clients see and call: `--allow` and `--deny` tool-name
//! patterns (globs: `*` any run of characters, `?` one, `[abc]` one of a set).
//!
//! A tool is allowed when no deny pattern matches it and, if any allow pattern is given,
//! one of them does. A tool not allowed is left out of every listing and its calls are
//! refused, listed or not. Deny patterns match whatever the ASCII case (`--deny 'write_*'`
//! refuses a call to `WRITE_FILE` too, for a server that finds its tools so); allow
//! patterns match the case as written. Either way the doubt goes to refusing.
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
        let any_case = glob::MatchOptions {
            case_sensitive: false,
            ..glob::MatchOptions::new()
        };
        !self.deny.iter().any(|p| p.matches_with(name, any_case))
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
        // A name in another case does not slip past a deny pattern; an allow pattern
        // does not let it in either.
        let p = ToolPolicy::new(&none, &["write_*", "delete"]).unwrap();
        assert!(!p.allows("WRITE_FILE") && !p.allows("Delete") && p.allows("read"));
        let p = ToolPolicy::new(&["read_*"], &none).unwrap();
        assert!(!p.allows("READ_file"));
        // Odd characters are literal unless they are glob syntax.
        let p = ToolPolicy::new(&none, &["a/b*", "x.y", "é*"]).unwrap();
        assert!(!p.allows("a/b/c") && !p.allows("x.y") && p.allows("xzy") && !p.allows("é1"));
    }
}
