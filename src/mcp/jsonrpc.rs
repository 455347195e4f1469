//! JSON-RPC 2.0 as MCP uses it: error codes, message shapes, request ids kept byte for
//! byte, and the scan for what two JSON parsers could read differently.
//!
//! ```
//! use toolschema::mcp::jsonrpc::{self, Hazard, Id};
//!
//! let raw = serde_json::value::RawValue::from_string("100000000000000000001".into())?;
//! let id = Id::parse(&raw).unwrap();
//! let line = jsonrpc::error_line(&id, jsonrpc::INVALID_PARAMS, "unknown tool", None);
//! assert!(line.contains(r#""id":100000000000000000001"#));
//!
//! let hazard = jsonrpc::find_hazard(br#"{"a": 1, "a": 2}"#).unwrap();
//! assert_eq!(hazard, Hazard::DuplicateMember("/a".into()));
//! assert_eq!(hazard.code(), jsonrpc::INVALID_REQUEST);
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde_json::{Value, json};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The message is not a valid request object (also: too large, bad batch).
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters: unknown tool, malformed or unreadable params, a 2026-07-28
/// `_meta` missing a required field, arguments refused before 2025-11-25.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error: the handler failed or panicked.
pub const INTERNAL_ERROR: i64 = -32603;
/// Implementation-defined: too many requests in flight on this connection, or too much
/// memory held by them.
pub const SERVER_BUSY: i64 = -32000;
/// Implementation-defined: the caller is not authorized. On a connection without a verified
/// token (e.g. stdio), a call to a tool that needs one; the error's `data` names the scopes
/// as `{"requiredScopes": [..]}`. Over HTTP with authorization, also the body of a 401 or
/// 403 (`data`: the OAuth `error` and `error_description`).
pub const UNAUTHORIZED: i64 = -32001;
/// The request's `_meta` names a protocol version the server does not serve (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// An error response to the request `id`, as a value.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// An error response to the request `id` with `data`, as a value.
pub fn error_with_data(id: &Value, code: i64, message: &str, data: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
}

/// A result response to the request `id`, as a value.
pub fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A request id exactly as the client wrote it: the JSON text of a string or a number,
/// echoed byte for byte (`100000000000000000001` stays an integer, `1e2` stays `1e2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Id {
    raw: std::sync::Arc<str>,
    /// The identity of the id: strings by their value (`"\u0061"` is `"a"`), numbers by
    /// their text.
    key: std::sync::Arc<str>,
}

impl Id {
    /// The `null` id of an answer to a message whose id cannot be read.
    pub fn null() -> Id {
        let null: std::sync::Arc<str> = "null".into();
        Id {
            raw: null.clone(),
            key: null,
        }
    }

    /// The id, when `raw` is a string or a number.
    pub fn parse(raw: &serde_json::value::RawValue) -> Option<Id> {
        let text = raw.get().trim();
        let key: std::sync::Arc<str> = match text.as_bytes().first()? {
            b'"' => {
                let s: String = serde_json::from_str(text).ok()?;
                serde_json::to_string(&s).ok()?.into()
            }
            b'-' | b'0'..=b'9' => text.into(),
            _ => return None,
        };
        Some(Id {
            raw: text.into(),
            key,
        })
    }

    /// What identifies the id: two ids with one key are the same request (`"a"` and
    /// `"\u0061"` are; `1` and `1.0` are not).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The id's JSON text as the client wrote it, to echo in the answer.
    pub fn raw(&self) -> &str {
        &self.raw
    }
}

/// A result response, as one line of JSON.
pub fn result_line(id: &Id, result: &Value) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{result}}}",
        id.raw()
    )
}

/// An error response, as one line of JSON.
pub fn error_line(id: &Id, code: i64, message: &str, data: Option<&Value>) -> String {
    let mut error = json!({"code": code, "message": message});
    if let (Some(d), Some(obj)) = (data, error.as_object_mut()) {
        obj.insert("data".into(), d.clone());
    }
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{error}}}",
        id.raw()
    )
}

/// The deepest nesting of arrays and objects a message may have: serde_json's recursion
/// limit (128) less one, as the JSON-RPC layer reads messages with it.
pub const MAX_MESSAGE_DEPTH: usize = 127;

/// Something in a message's text that two JSON parsers can read differently (or that
/// serde_json cannot read at all, when the id is still to be found), at a location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hazard {
    /// An object names the member at this pointer more than once: parsers keep the first
    /// value, the last, or refuse.
    DuplicateMember(String),
    /// A string (value or member name) at this pointer holds a `\u` escape of a lone UTF-16
    /// surrogate, which is no Unicode text: parsers refuse it or replace it.
    LoneSurrogate(String),
    /// An integer at this pointer needs more than 64 bits: parsers with big integers keep
    /// it exactly, others round it to a float.
    LongInteger(String),
    /// The message nests arrays and objects deeper than [`MAX_MESSAGE_DEPTH`].
    TooDeep,
}

impl Hazard {
    /// The JSON-RPC error code it is refused with.
    pub fn code(&self) -> i64 {
        match self {
            Hazard::DuplicateMember(_) | Hazard::LongInteger(_) => INVALID_REQUEST,
            Hazard::LoneSurrogate(_) | Hazard::TooDeep => PARSE_ERROR,
        }
    }

    /// The refusal's message: a location and a reason, never a value.
    pub fn message(&self) -> String {
        let at = |p: &String| {
            if p.is_empty() {
                "the top level".to_string()
            } else {
                p.clone()
            }
        };
        match self {
            Hazard::DuplicateMember(p) => format!(
                "invalid request: the member {} is named more than once in its object (JSON parsers disagree on which value counts)",
                at(p)
            ),
            Hazard::LoneSurrogate(p) => format!(
                "parse error: the string at {} holds an escaped lone UTF-16 surrogate, which is not Unicode text",
                at(p)
            ),
            Hazard::LongInteger(p) => format!(
                "invalid request: the integer at {} needs more than 64 bits (JSON parsers disagree on its value)",
                at(p)
            ),
            Hazard::TooDeep => format!(
                "parse error: the message nests arrays and objects deeper than {MAX_MESSAGE_DEPTH} levels"
            ),
        }
    }
}

/// The pointer to the first member of `text` named twice in its object (member names
/// compared after unescaping, as JSON parsers compare them), if any. Linear in the text;
/// it allocates for the nesting and the member names seen, never for values.
pub fn find_duplicate_member(text: &[u8]) -> Option<String> {
    let mut scan = Scanner::new(text, false);
    scan.run();
    scan.duplicate
}

/// The first [`Hazard`] in `text`, if any (a single pass over the text; text that is not
/// JSON is left to the parser, though what was found up to where it breaks is reported).
/// The top-level `id` member is exempt from the 64-bit rule: ids are echoed byte for
/// byte ([`Id`]), never read as numbers.
pub fn find_hazard(text: &[u8]) -> Option<Hazard> {
    let mut scan = Scanner::new(text, true);
    scan.run();
    scan.hazard
}

enum Frame {
    /// An object: its ordinal (which object of the text), the raw range of the member
    /// name being read, and whether a name is expected next.
    Object {
        ordinal: usize,
        key: Option<(usize, usize)>,
    },
    Array {
        index: usize,
    },
}

struct Scanner<'a> {
    text: &'a [u8],
    /// Whether every hazard is looked for, or member names alone.
    all: bool,
    stack: Vec<Frame>,
    /// (object ordinal, unescaped name) of every member seen.
    seen: std::collections::HashSet<(usize, std::borrow::Cow<'a, [u8]>)>,
    duplicate: Option<String>,
    hazard: Option<Hazard>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a [u8], all: bool) -> Scanner<'a> {
        Scanner {
            text,
            all,
            stack: Vec::new(),
            seen: std::collections::HashSet::new(),
            duplicate: None,
            hazard: None,
        }
    }

    fn found(&mut self, hazard: Hazard) {
        if let Hazard::DuplicateMember(p) = &hazard {
            self.duplicate = Some(p.clone());
        }
        self.hazard = Some(hazard);
    }

    fn run(&mut self) {
        let text = self.text;
        let mut ordinal = 0usize;
        let mut expect_key = false;
        let mut i = 0;
        while i < text.len() && self.hazard.is_none() {
            match text[i] {
                b'{' => {
                    if self.stack.len() >= MAX_MESSAGE_DEPTH {
                        if self.all {
                            self.found(Hazard::TooDeep);
                        }
                        // Deeper still, the parser refuses the message anyway.
                        return;
                    }
                    ordinal += 1;
                    self.stack.push(Frame::Object { ordinal, key: None });
                    expect_key = true;
                    i += 1;
                }
                b'[' => {
                    if self.stack.len() >= MAX_MESSAGE_DEPTH {
                        if self.all {
                            self.found(Hazard::TooDeep);
                        }
                        return;
                    }
                    self.stack.push(Frame::Array { index: 0 });
                    expect_key = false;
                    i += 1;
                }
                b'}' | b']' => {
                    self.stack.pop();
                    expect_key = false;
                    i += 1;
                }
                b',' => {
                    match self.stack.last_mut() {
                        Some(Frame::Object { .. }) => expect_key = true,
                        Some(Frame::Array { index }) => *index += 1,
                        None => {}
                    }
                    i += 1;
                }
                b'"' => {
                    let start = i + 1;
                    let (end, escaped, lone) = string_end(text, start);
                    let Some(end) = end else { return };
                    if expect_key {
                        expect_key = false;
                        if let Some(Frame::Object { ordinal, key }) = self.stack.last_mut() {
                            *key = Some((start, end));
                            let raw = &text[start..end];
                            let name = if escaped {
                                std::borrow::Cow::Owned(unescape(raw))
                            } else {
                                std::borrow::Cow::Borrowed(raw)
                            };
                            let ordinal = *ordinal;
                            if !self.seen.insert((ordinal, name)) {
                                let p = self.pointer();
                                self.found(Hazard::DuplicateMember(p));
                                return;
                            }
                        }
                    }
                    if lone && self.all {
                        let p = self.pointer();
                        self.found(Hazard::LoneSurrogate(p));
                        return;
                    }
                    i = end + 1;
                }
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while i < text.len()
                        && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        i += 1;
                    }
                    if self.all && !self.at_top_level_id() && long_integer(&text[start..i]) {
                        let p = self.pointer();
                        self.found(Hazard::LongInteger(p));
                        return;
                    }
                }
                _ => i += 1,
            }
        }
    }

    /// Whether the value being read is the top-level object's `id` member.
    fn at_top_level_id(&self) -> bool {
        match self.stack.as_slice() {
            [
                Frame::Object {
                    key: Some((s, e)), ..
                },
            ] => {
                let raw = &self.text[*s..*e];
                raw == b"id" || unescape(raw) == b"id"
            }
            _ => false,
        }
    }

    /// The RFC 6901 pointer to the value being read (each name unescaped; a long pointer
    /// is cut short).
    fn pointer(&self) -> String {
        const MAX_POINTER: usize = 512;
        let mut p = String::new();
        for frame in &self.stack {
            p.push('/');
            match frame {
                Frame::Object {
                    key: Some((s, e)), ..
                } => {
                    let name = unescape(&self.text[*s..*e]);
                    let name = String::from_utf8_lossy(&name);
                    p.push_str(&name.replace('~', "~0").replace('/', "~1"));
                }
                Frame::Object { key: None, .. } => {}
                Frame::Array { index } => p.push_str(&index.to_string()),
            }
            if p.len() > MAX_POINTER {
                let mut cut = MAX_POINTER;
                while !p.is_char_boundary(cut) {
                    cut -= 1;
                }
                p.truncate(cut);
                p.push('…');
                break;
            }
        }
        p
    }
}

/// From just after a string's opening quote: the index of its closing quote (`None` when
/// unterminated), whether it holds an escape, and whether an escape is a lone surrogate.
fn string_end(text: &[u8], from: usize) -> (Option<usize>, bool, bool) {
    let mut escaped = false;
    let mut lone = false;
    // The previous escape was a high surrogate, waiting for its low half.
    let mut high = false;
    let mut i = from;
    while i < text.len() {
        match text[i] {
            b'"' => return (Some(i), escaped, lone || high),
            b'\\' => {
                escaped = true;
                let unit = if text.get(i + 1) == Some(&b'u') {
                    hex4(text.get(i + 2..i + 6))
                } else {
                    None
                };
                match unit {
                    Some(u @ 0xD800..=0xDBFF) => {
                        lone |= high;
                        high = true;
                        let _ = u;
                        i += 6;
                    }
                    Some(0xDC00..=0xDFFF) => {
                        lone |= !high;
                        high = false;
                        i += 6;
                    }
                    Some(_) => {
                        lone |= high;
                        high = false;
                        i += 6;
                    }
                    None => {
                        lone |= high;
                        high = false;
                        i += 2;
                    }
                }
            }
            _ => {
                lone |= high;
                high = false;
                i += 1;
            }
        }
    }
    (None, escaped, lone)
}

fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let digits = digits?;
    let mut n = 0u32;
    for &d in digits {
        n = n * 16 + (d as char).to_digit(16)?;
    }
    Some(n)
}

/// A string's raw contents unescaped (a lone surrogate becomes U+FFFD; such a message is
/// refused anyway).
fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != b'\\' {
            out.push(raw[i]);
            i += 1;
            continue;
        }
        let simple = match raw.get(i + 1) {
            Some(b'b') => Some(b'\x08'),
            Some(b'f') => Some(b'\x0c'),
            Some(b'n') => Some(b'\n'),
            Some(b'r') => Some(b'\r'),
            Some(b't') => Some(b'\t'),
            Some(b'u') => None,
            Some(&c) => Some(c),
            None => {
                out.push(b'\\');
                break;
            }
        };
        if let Some(c) = simple {
            out.push(c);
            i += 2;
            continue;
        }
        let Some(unit) = hex4(raw.get(i + 2..i + 6)) else {
            out.push(b'\\');
            i += 1;
            continue;
        };
        i += 6;
        let c = if (0xD800..0xDC00).contains(&unit) {
            let low = (raw.get(i) == Some(&b'\\') && raw.get(i + 1) == Some(&b'u'))
                .then(|| hex4(raw.get(i + 2..i + 6)))
                .flatten()
                .filter(|l| (0xDC00..0xE000).contains(l));
            match low {
                Some(l) => {
                    i += 6;
                    char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (l - 0xDC00))
                }
                None => None,
            }
        } else {
            char::from_u32(unit)
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(
            c.unwrap_or(char::REPLACEMENT_CHARACTER)
                .encode_utf8(&mut buf)
                .as_bytes(),
        );
    }
    out
}

/// Whether a number token is an integer (no fraction, no exponent) beyond `i64`/`u64`.
fn long_integer(token: &[u8]) -> bool {
    if token.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        return false;
    }
    let Ok(s) = std::str::from_utf8(token) else {
        return false;
    };
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if s.starts_with('-') {
        s.parse::<i64>().is_err()
    } else {
        s.parse::<u64>().is_err()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_members_at_any_depth_are_found_by_their_pointer() {
        let cases: &[(&str, Option<&str>)] = &[
            (r#"{"a": 1, "b": 2}"#, None),
            (r#"{"a": 1, "a": 2}"#, Some("/a")),
            (r#"{"a": {"x": 1}, "b": {"x": 2}}"#, None),
            (
                r#"{"params": {"arguments": {"path": "/etc/passwd", "path": "/safe/x"}}}"#,
                Some("/params/arguments/path"),
            ),
            (r#"{"a": "\u0061", "\u0061": 2}"#, Some("/a")),
            (r#"{"x": [{"k": 1}, {"k": 1, "k": 2}]}"#, Some("/x/1/k")),
            (r#"{"s": "{\"a\":1,\"a\":2}"}"#, None),
            (r#"{"a/b~": 1, "a\/b~": 2}"#, Some("/a~1b~0")),
            (r#"{"\ud83d\ude00": 1, "😀": 2}"#, Some("/😀")),
            (r#"[{"a": 1}, {"a": 1}]"#, None),
            (r#"{"jsonrpc": "2.0", "jsonrpc": "2.0"}"#, Some("/jsonrpc")),
        ];
        for (text, want) in cases {
            assert_eq!(
                find_duplicate_member(text.as_bytes()).as_deref(),
                *want,
                "{text}"
            );
        }
    }

    #[test]
    fn hazards_are_named_by_location() {
        let cases: &[(&str, Option<Hazard>)] = &[
            (
                r#"{"id": 1, "a": "\ud800"}"#,
                Some(Hazard::LoneSurrogate("/a".into())),
            ),
            (
                r#"{"a": "\udc00\ud800"}"#,
                Some(Hazard::LoneSurrogate("/a".into())),
            ),
            (
                r#"{"a": "\ud800x"}"#,
                Some(Hazard::LoneSurrogate("/a".into())),
            ),
            (r#"{"a": "\ud83d\ude00"}"#, None),
            (
                r#"{"\ud800": 1}"#,
                Some(Hazard::LoneSurrogate("/\u{fffd}".into())),
            ),
            (
                r#"{"a": [1, 100000000000000000001]}"#,
                Some(Hazard::LongInteger("/a/1".into())),
            ),
            (
                r#"{"a": -9223372036854775809}"#,
                Some(Hazard::LongInteger("/a".into())),
            ),
            (
                r#"{"a": 18446744073709551615, "b": -9223372036854775808}"#,
                None,
            ),
            (r#"{"a": 1e400, "b": 100000000000000000001.0}"#, None),
            (r#"{"id": 100000000000000000001, "method": "m"}"#, None),
            (
                r#"{"x": {"id": 100000000000000000001}}"#,
                Some(Hazard::LongInteger("/x/id".into())),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(find_hazard(text.as_bytes()), *want, "{text}");
        }
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_MESSAGE_DEPTH),
            "]".repeat(MAX_MESSAGE_DEPTH)
        );
        assert_eq!(find_hazard(deep.as_bytes()), None);
        let deeper = format!("{{\"a\":{deep}}}");
        assert_eq!(find_hazard(deeper.as_bytes()), Some(Hazard::TooDeep));
        // Whatever the input, no panic.
        for text in [
            "",
            "\"",
            "{\"",
            "{\"a\\",
            "\"\\u12",
            "{\"a\":-",
            "}}]]",
            "[\"\\ud800",
        ] {
            let _ = find_hazard(text.as_bytes());
        }
    }
}
