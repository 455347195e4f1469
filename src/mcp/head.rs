//! What an oversized message is, learned without holding it: a streaming scan of its
//! top-level keys that keeps a few bytes of state, however long the line.

use serde_json::Value;

/// The longest `id` or `method` value kept (a longer one is treated as absent).
const MAX_CAPTURE: usize = 256;
/// The longest top-level key compared (longer keys are none of the ones looked for).
const MAX_KEY: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Capture {
    Nothing,
    Key,
    Id,
    Method,
}

/// The envelope of a JSON-RPC message too large to parse: its `id`, `method` and whether
/// it carries a `result` or `error`, found by a scan that keeps a few hundred bytes
/// whatever the message's length (the keys may come in any order: TypeScript SDKs write
/// `result` before `id`).
///
/// Feed it the message's bytes in order, in chunks of any size.
///
/// ```
/// use toolschema::mcp::transport::MessageHead;
///
/// let mut head = MessageHead::new();
/// head.feed(br#"{"result": {"content": [{"type": "text", "text": "...long..."}]}, "#);
/// head.feed(br#""jsonrpc": "2.0", "id": 42}"#);
/// assert_eq!(head.id(), Some(&serde_json::json!(42)));
/// assert!(head.is_response() && head.method().is_none());
/// ```
#[derive(Clone)]
pub struct MessageHead {
    bytes: u64,
    depth: u32,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    /// The scan stopped: the top level closed, or it is not an object (a batch, garbage).
    done: bool,
    object: bool,
    capture: Capture,
    buf: Vec<u8>,
    overflow: bool,
    key: Vec<u8>,
    id: Option<Value>,
    method: Option<String>,
    result_or_error: bool,
}

impl Default for MessageHead {
    fn default() -> MessageHead {
        MessageHead::new()
    }
}

impl std::fmt::Debug for MessageHead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageHead")
            .field("bytes", &self.bytes)
            .field("id", &self.id)
            .field("method", &self.method)
            .field("is_response", &self.is_response())
            .finish()
    }
}

impl MessageHead {
    /// A scan that has seen nothing yet.
    pub fn new() -> MessageHead {
        MessageHead {
            bytes: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            expect_key: false,
            done: false,
            object: false,
            capture: Capture::Nothing,
            buf: Vec::new(),
            overflow: false,
            key: Vec::new(),
            id: None,
            method: None,
            result_or_error: false,
        }
    }

    /// The message's `id` when it is a string or a number at the top level of an object.
    pub fn id(&self) -> Option<&Value> {
        self.id.as_ref()
    }

    /// The message's `method`, when it has one.
    pub fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }

    /// True for a response: a `result` or an `error`, no `method`.
    pub fn is_response(&self) -> bool {
        self.object && self.result_or_error && self.method.is_none()
    }

    /// How many bytes were fed.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn push(&mut self, b: u8) {
        let target = match self.capture {
            Capture::Nothing => return,
            Capture::Key => &mut self.key,
            Capture::Id | Capture::Method => &mut self.buf,
        };
        let cap = if self.capture == Capture::Key {
            MAX_KEY
        } else {
            MAX_CAPTURE
        };
        if target.len() < cap {
            target.push(b);
        } else {
            self.overflow = true;
        }
    }

    /// The end of a top-level value.
    fn end_value(&mut self) {
        let capture = std::mem::replace(&mut self.capture, Capture::Nothing);
        if self.overflow || !matches!(capture, Capture::Id | Capture::Method) {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(&self.buf) else {
            return;
        };
        match (capture, v) {
            (Capture::Id, v @ (Value::String(_) | Value::Number(_))) => self.id = Some(v),
            (Capture::Method, Value::String(m)) => self.method = Some(m),
            _ => {}
        }
    }

    /// Scans the next bytes of the message.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as u64;
        for &b in chunk {
            if self.done {
                return;
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.capture == Capture::Key {
                        // The key is complete; its value follows the colon.
                        // (A key longer than any looked for matches none of them.)
                        self.capture = Capture::Nothing;
                        if std::mem::take(&mut self.overflow) {
                            self.key.clear();
                        }
                        continue;
                    }
                }
                self.push(b);
                continue;
            }
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && self.expect_key {
                        self.capture = Capture::Key;
                        self.key.clear();
                        self.overflow = false;
                    } else {
                        self.push(b);
                    }
                }
                b'{' | b'[' if self.depth == 0 => {
                    self.object = b == b'{';
                    self.done = !self.object;
                    self.depth = 1;
                    self.expect_key = true;
                }
                b'{' | b'[' => {
                    self.push(b);
                    self.depth += 1;
                }
                b'}' | b']' if self.depth == 1 => {
                    self.end_value();
                    self.depth = 0;
                    self.done = true;
                }
                b'}' | b']' if self.depth > 1 => {
                    self.push(b);
                    self.depth -= 1;
                }
                b':' if self.depth == 1 && self.expect_key => {
                    self.expect_key = false;
                    self.buf.clear();
                    self.capture = match self.key.as_slice() {
                        b"id" => Capture::Id,
                        b"method" => Capture::Method,
                        b"result" | b"error" => {
                            self.result_or_error = true;
                            Capture::Nothing
                        }
                        _ => Capture::Nothing,
                    };
                    self.key.clear();
                }
                b',' if self.depth == 1 => {
                    self.end_value();
                    self.expect_key = true;
                }
                _ if self.depth == 0 => self.done = true,
                _ => self.push(b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MessageHead;
    use serde_json::json;

    fn scan(text: &str, chunk: usize) -> MessageHead {
        let mut h = MessageHead::new();
        for c in text.as_bytes().chunks(chunk) {
            h.feed(c);
        }
        h
    }

    #[test]
    fn finds_the_envelope_in_any_order_and_any_chunking() {
        let big = "x".repeat(10_000);
        let cases = [
            (
                format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{"t":"{big}"}}}}"#),
                Some(json!(7)),
                None,
                true,
            ),
            (
                format!(
                    r#"{{"result": {{"content": [{{"text": "a \"id\": 3, {big}"}}], "id": [1]}}, "jsonrpc": "2.0", "id": "r-1"}}"#
                ),
                Some(json!("r-1")),
                None,
                true,
            ),
            (
                format!(
                    r#"{{"method":"sampling/createMessage","params":{{"x":"{big}"}},"id":"s,1}}"}}"#
                ),
                Some(json!("s,1}")),
                Some("sampling/createMessage"),
                false,
            ),
            (
                format!(r#"{{"method":"notifications/message","params":{{"x":"{big}"}}}}"#),
                None,
                Some("notifications/message"),
                false,
            ),
            (
                format!(r#"[{{"id":1,"result":"{big}"}}]"#),
                None,
                None,
                false,
            ),
            (
                format!(r#"{{"id":{{"nested":1}},"error":{{"m":"{big}"}}}}"#),
                None,
                None,
                true,
            ),
            (format!(r#"{{"id":"{big}","result":1}}"#), None, None, true),
            (format!("not json {big}"), None, None, false),
        ];
        for (text, id, method, response) in cases {
            for chunk in [1, 7, 4096, text.len()] {
                let h = scan(&text, chunk);
                assert_eq!(h.id(), id.as_ref(), "{chunk}: {:.80}", text);
                assert_eq!(h.method(), method, "{chunk}: {:.80}", text);
                assert_eq!(h.is_response(), response, "{chunk}: {:.80}", text);
                assert_eq!(h.bytes(), text.len() as u64);
            }
        }
    }
}
