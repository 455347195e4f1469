//! Tool results: content blocks and `CallToolResult` builders.

use super::version::ProtocolVersion;
use serde_json::{Map, Value, json};
use std::fmt;

/// One content block of a tool result (`text`, `image`, `audio`, `resource`,
/// `resource_link`), kept as its JSON object so that fields a later revision adds survive.
#[derive(Debug, Clone, PartialEq)]
pub struct Content {
    value: Map<String, Value>,
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content::object(json!({"type": "text", "text": text.into()}))
    }

    /// An image block: base64-encoded `data` and its MIME type (`image/png`, ...).
    pub fn image(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Content {
        Content::object(
            json!({"type": "image", "data": base64_data.into(), "mimeType": mime_type.into()}),
        )
    }

    /// An audio block: base64-encoded `data` and its MIME type (`audio/wav`, ...).
    pub fn audio(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Content {
        Content::object(
            json!({"type": "audio", "data": base64_data.into(), "mimeType": mime_type.into()}),
        )
    }

    /// An embedded text resource.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> Content {
        let mut resource = json!({"uri": uri.into(), "text": text.into()});
        if let (Some(m), Some(obj)) = (mime_type, resource.as_object_mut()) {
            obj.insert("mimeType".into(), Value::from(m));
        }
        Content::object(json!({"type": "resource", "resource": resource}))
    }

    /// An embedded binary resource: base64-encoded `blob`.
    pub fn resource_blob(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        base64_blob: impl Into<String>,
    ) -> Content {
        let mut resource = json!({"uri": uri.into(), "blob": base64_blob.into()});
        if let (Some(m), Some(obj)) = (mime_type, resource.as_object_mut()) {
            obj.insert("mimeType".into(), Value::from(m));
        }
        Content::object(json!({"type": "resource", "resource": resource}))
    }

    /// A link to a resource the client may read (2025-06-18 on; rendered as a text block
    /// naming the URI for older clients).
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::object(json!({"type": "resource_link", "uri": uri.into(), "name": name.into()}))
    }

    /// A block from its JSON form.
    ///
    /// # Errors
    /// When `value` is not an object with a string `type`.
    pub fn from_value(value: Value) -> Result<Content, ResultShapeError> {
        match value {
            Value::Object(map) if map.get("type").is_some_and(Value::is_string) => {
                Ok(Content { value: map })
            }
            _ => Err(ResultShapeError(
                "a content block must be an object with a string \"type\"",
            )),
        }
    }

    fn object(value: Value) -> Content {
        match value {
            Value::Object(value) => Content { value },
            _ => Content { value: Map::new() },
        }
    }

    /// The block's `type` (`"text"`, `"image"`, ...).
    pub fn kind(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        if self.kind() == "text" {
            self.value.get("text").and_then(Value::as_str)
        } else {
            None
        }
    }

    /// The block's JSON form.
    pub fn as_json(&self) -> &Map<String, Value> {
        &self.value
    }

    fn render(&self, version: ProtocolVersion) -> Value {
        if self.kind() == "resource_link" && version < ProtocolVersion::V2025_06_18 {
            let uri = self.value.get("uri").and_then(Value::as_str).unwrap_or("");
            return json!({"type": "text", "text": format!("resource: {uri}")});
        }
        Value::Object(self.value.clone())
    }
}

/// A `CallToolResult` that is not shaped as the protocol requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultShapeError(&'static str);

impl fmt::Display for ResultShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for ResultShapeError {}

/// What a tool answers: content blocks, optional `structuredContent`, `isError`, `_meta`.
///
/// ```
/// use toolschema::mcp::{CallToolResult, Content};
/// use serde_json::json;
///
/// let ok = CallToolResult::structured(json!({"mean": 2.0}));
/// let mixed = CallToolResult::text("done").with_content(Content::image("iVBORw0KGgo=", "image/png"));
/// let failed = CallToolResult::error("the city is unknown");
/// assert!(failed.is_error() && !ok.is_error() && mixed.content().len() == 2);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallToolResult {
    content: Vec<Content>,
    structured: Option<Value>,
    is_error: bool,
    meta: Option<Map<String, Value>>,
}

impl CallToolResult {
    /// An empty successful result; add blocks with [`with_content`](Self::with_content).
    pub fn new() -> CallToolResult {
        CallToolResult::default()
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> CallToolResult {
        CallToolResult::new().with_content(Content::text(text))
    }

    /// A successful result carrying `structuredContent` (any JSON value). When the result
    /// has no content block, the server adds a text block holding the serialized JSON.
    pub fn structured(value: Value) -> CallToolResult {
        CallToolResult::new().with_structured(value)
    }

    /// A tool-level failure (`isError: true`) with one text block the model can read.
    pub fn error(message: impl Into<String>) -> CallToolResult {
        CallToolResult {
            is_error: true,
            ..CallToolResult::text(message)
        }
    }

    /// Appends a content block.
    pub fn with_content(mut self, content: Content) -> CallToolResult {
        self.content.push(content);
        self
    }

    /// Sets `structuredContent`.
    pub fn with_structured(mut self, value: Value) -> CallToolResult {
        self.structured = Some(value);
        self
    }

    /// Sets `isError`.
    pub fn with_error(mut self, is_error: bool) -> CallToolResult {
        self.is_error = is_error;
        self
    }

    /// Sets the result's `_meta` object.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> CallToolResult {
        self.meta = Some(meta);
        self
    }

    /// The content blocks.
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// `structuredContent`, when present (`Some(&Value::Null)` for an explicit `null`).
    pub fn structured_content(&self) -> Option<&Value> {
        self.structured.as_ref()
    }

    /// `isError`.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// A result from its JSON form (as in a tool file's `x-response`).
    ///
    /// # Errors
    /// When `value` is not an object, `content` is not an array of blocks, or `isError` is
    /// not a boolean.
    pub fn from_value(value: &Value) -> Result<CallToolResult, ResultShapeError> {
        let obj = value
            .as_object()
            .ok_or(ResultShapeError("a tool result must be an object"))?;
        let content = match obj.get("content") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .cloned()
                .map(Content::from_value)
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => return Err(ResultShapeError("\"content\" must be an array")),
        };
        let is_error = match obj.get("isError") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(ResultShapeError("\"isError\" must be a boolean")),
        };
        let meta = match obj.get("_meta") {
            None => None,
            Some(Value::Object(m)) => Some(m.clone()),
            Some(_) => return Err(ResultShapeError("\"_meta\" must be an object")),
        };
        Ok(CallToolResult {
            content,
            structured: obj.get("structuredContent").cloned(),
            is_error,
            meta,
        })
    }

    /// Adds the text mirror of `structuredContent` when there is no content block (SEP-2106).
    pub(crate) fn mirror_structured(&mut self) {
        if let (true, Some(s)) = (self.content.is_empty(), &self.structured) {
            self.content.push(Content::text(s.to_string()));
        }
    }

    /// The JSON a client at `version` receives. `wrap` names the property that carries
    /// `structuredContent` when the tool's output schema was adapted for an older client.
    pub(crate) fn render(&self, version: ProtocolVersion, wrap: Option<&str>) -> Value {
        let mut out = Map::new();
        out.insert(
            "content".into(),
            Value::Array(self.content.iter().map(|c| c.render(version)).collect()),
        );
        if let (Some(s), true) = (&self.structured, version >= ProtocolVersion::V2025_06_18) {
            let s = match wrap {
                Some(key) => json!({ key: s }),
                None => s.clone(),
            };
            out.insert("structuredContent".into(), s);
        }
        if self.is_error {
            out.insert("isError".into(), Value::Bool(true));
        }
        if let Some(meta) = &self.meta {
            out.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(out)
    }

    /// The JSON form at the newest revision, as a handler wrote it.
    pub fn to_value(&self) -> Value {
        self.render(ProtocolVersion::LATEST, None)
    }
}
