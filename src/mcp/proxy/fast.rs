//! The pass-through path: most messages cross the proxy unchanged, and deciding that needs
//! only their envelope. These read the envelope borrowed from the line (no tree, no
//! allocation for what is not looked at) and answer `None` whenever the full path must
//! decide, so they never decide differently from it; only what is checked is parsed.

use super::{Action, Contract, Pending};
use crate::mcp::contract::{OutputPolicy, check_result, result_needs_adapting};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(borrow, default, rename = "structuredContent")]
    structured: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "isError")]
    is_error: Option<&'a RawValue>,
}

/// A single JSON object (a batch, or anything else, takes the full path). Parsing it
/// checks the whole text is JSON.
fn envelope(text: &str) -> Option<Envelope<'_>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// The key the full path files a request under (`Value::to_string` of its id), when the
/// id's text is already in that form: a short integer, or a string with no escape.
fn key_of(id: &RawValue) -> Option<&str> {
    let raw = id.get();
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    let integer =
        !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit());
    let plain_string = raw.len() >= 2
        && raw.starts_with('"')
        && raw.ends_with('"')
        && !raw[1..raw.len() - 1].contains(['\\', '"']);
    (integer || plain_string).then_some(raw)
}

impl Contract {
    /// A client message the proxy has nothing to do with: forwarded unparsed.
    pub(super) fn client_fast_path(&mut self, text: &str) -> Option<Vec<Action>> {
        let env = envelope(text)?;
        match env.method.as_deref() {
            Some("initialize" | "tools/list" | "tools/call" | "notifications/cancelled") => None,
            _ => Some(vec![Action::Forward]),
        }
    }

    /// A server message that goes through unchanged: forwarded after reading no more than
    /// its envelope and, for a call's result, what the output check needs.
    pub(super) fn server_fast_path(&mut self, text: &str) -> Option<Vec<Action>> {
        let env = envelope(text)?;
        if let Some(method) = env.method.as_deref() {
            return (method != "notifications/tools/list_changed").then(|| vec![Action::Forward]);
        }
        let Some(id) = env.id else {
            return Some(vec![Action::Forward]);
        };
        let key = key_of(id)?;
        let (tool, version) = match self.pending.get(key) {
            None => return Some(vec![Action::Forward]),
            Some(Pending::Call { tool, version }) => (tool, *version),
            Some(_) => return None,
        };
        if let (Some(result), Some(entry)) = (env.result, self.tools.get(tool)) {
            // Only the parts the checks read: what `structuredContent` is (parsed only
            // when there is a schema to check it against), and whether there is content.
            let r: CallResult = serde_json::from_str(result.get()).ok()?;
            let schema = entry.tool.output_schema();
            let checked = schema.is_some() && self.options.on_bad_output != OutputPolicy::Pass;
            let mut view = Map::new();
            if let Some(s) = r.structured {
                let s = if checked {
                    serde_json::from_str(s.get()).ok()?
                } else {
                    Value::Null
                };
                view.insert("structuredContent".into(), s);
            }
            if let Some(c) = r.content {
                let raw = c.get().trim();
                let empty = raw == "null"
                    || raw
                        .strip_prefix('[')
                        .and_then(|r| r.strip_suffix(']'))
                        .is_some_and(|inner| inner.trim().is_empty());
                let shown = if empty {
                    serde_json::from_str(raw).ok()?
                } else {
                    Value::from(vec![Value::Null])
                };
                view.insert("content".into(), shown);
            }
            if let Some(e) = r.is_error {
                view.insert("isError".into(), serde_json::from_str(e.get()).ok()?);
            }
            let view = Value::Object(view);
            let wrap = schema.is_some() && entry.tool.wraps_output(version);
            if (checked && check_result(schema, tool, &view).is_err())
                || result_needs_adapting(&view, wrap, version)
            {
                return None;
            }
        }
        self.pending.remove(key);
        Some(vec![Action::Forward])
    }
}
