//! The pass-through path: most messages cross the proxy unchanged, and deciding that needs
//! only their envelope. These read the envelope borrowed from the line (no tree, no
//! allocation for what is not looked at) and answer `None` whenever the full path must
//! decide, so they never decide differently from it; only what is checked is parsed.

use super::{Action, Contract, Pending};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use toolschema::mcp::contract::{OutputPolicy, check_result, result_needs_adapting};

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

/// What the argument check of a `tools/call` reads from its params.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
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

/// The deepest nesting serde_json reads into a `Value` (its recursion limit is 128).
const READ_DEPTH: usize = 127;

/// Whether JSON text nests more than `depth` arrays and objects (strings skipped).
fn nested_deeper_than(text: &[u8], depth: usize) -> bool {
    let mut open = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                open += 1;
                if open > depth {
                    return true;
                }
            }
            b']' | b'}' => open = open.saturating_sub(1),
            _ => {}
        }
    }
    false
}

impl Contract {
    /// A client message the proxy has nothing to do with: forwarded unparsed.
    pub(super) fn client_fast_path(&mut self, text: &str) -> Option<Vec<Action>> {
        let env = envelope(text)?;
        match env.method.as_deref() {
            Some("tools/call") => self.call_fast_path(text, &env),
            Some("initialize" | "tools/list" | "notifications/cancelled") => None,
            _ => Some(vec![Action::Forward]),
        }
    }

    /// A call to a listed tool whose arguments pass its input schema, checked from their
    /// text: forwarded, its result awaited, as the full path would. Anything else (refused
    /// or unreadable arguments, an unknown or hidden tool, an id not in its key's form)
    /// takes the full path, which decides and reports.
    fn call_fast_path(&mut self, text: &str, env: &Envelope<'_>) -> Option<Vec<Action>> {
        let key = key_of(env.id?)?;
        let params = env.params?.get();
        if !params.starts_with('{') {
            return None;
        }
        let p: CallParams = serde_json::from_str(params).ok()?;
        let name = p.name?;
        let entry = self.tools.get(name.as_ref())?;
        if entry.hidden {
            return None;
        }
        if let Some(schema) = entry.tool.input_schema() {
            let arguments = match p.arguments.map(RawValue::get) {
                None | Some("null") => "{}",
                Some(a) if a.starts_with('{') => a,
                Some(_) => return None,
            };
            if schema.is_valid_json(arguments.as_bytes()) != Ok(true) {
                return None;
            }
        }
        // The full path reads the whole message into a `Value` first, and answers one
        // nested past serde_json's limit as not JSON.
        if nested_deeper_than(text.as_bytes(), READ_DEPTH) {
            return None;
        }
        let version = match p.meta {
            None => self.request_version(None),
            Some(meta) => {
                let mut params = Map::new();
                params.insert("_meta".into(), serde_json::from_str(meta.get()).ok()?);
                self.request_version(Some(&params))
            }
        };
        self.pending.insert(
            key.to_string(),
            Pending::Call {
                tool: name.into_owned(),
                version,
            },
        );
        Some(vec![Action::Forward])
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
