//! Validation straight from JSON text: [`Schema::is_valid_json`] and
//! [`Schema::validate_json`], for callers that hold bytes (files, JSON Lines, JSON-RPC
//! messages, HTTP bodies) and need no `Value` of their own.
//!
//! The text is parsed by the flat parser (`crate::flat`), which gives malformed JSON its
//! byte offset, line and column and bounds nesting at [`crate::flat::DEFAULT_MAX_DEPTH`],
//! into a per-thread [`Document`] reused from call to call (so that steady-state
//! validation from bytes allocates nothing), and the evaluator runs on the flat tree
//! itself. Only an invalid instance given to [`Schema::validate_json`] is parsed again into
//! a `Value`, for the reporting path (errors are rare and allocate anyway).
//! [`Schema::is_valid_json_reference`] keeps the slow, obvious form (the `Value`
//! evaluator on serde_json's parse) that the tests compare the fast one with.

use super::Schema;
use crate::flat::{Document, ParseError, ParseErrorKind};
use serde_json::Value;
use std::cell::Cell;
use std::fmt;

/// Scratch a thread's document keeps between calls; past this (after an unusually large
/// instance) its buffers are freed, so that a long-lived thread does not hold the memory
/// of its largest input.
const SCRATCH_KEPT: usize = 4 << 20;

thread_local! {
    /// The document each thread parses instances into (taken out while in use).
    static SCRATCH: Cell<Document> = Cell::new(Document::new());
}

/// Runs `f` with the thread's document. A nested call (a format checker that validates
/// JSON text itself, on the same thread) finds an empty one in its place and works in that;
/// at thread exit, a fresh one is used.
fn with_document<R>(f: impl FnOnce(&mut Document) -> R) -> R {
    let mut doc = SCRATCH.try_with(Cell::take).unwrap_or_default();
    let out = f(&mut doc);
    doc.shrink_to(SCRATCH_KEPT);
    let _ = SCRATCH.try_with(|cell| cell.set(doc));
    out
}

/// Why [`Schema::validate_json`] refused its input.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonValidationError {
    /// The text is not one JSON value (or nests too deep): what is wrong and where.
    Malformed(ParseError),
    /// The text is JSON and does not conform.
    Invalid(crate::ValidationErrors),
}

impl fmt::Display for JsonValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonValidationError::Malformed(e) => write!(f, "malformed JSON: {e}"),
            JsonValidationError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for JsonValidationError {}

impl Schema {
    /// Whether the JSON text `json` conforms: [`Schema::is_valid`] for a caller that
    /// holds bytes, with no `serde_json::Value` built. The text is parsed into a flat
    /// document kept per thread and reused, so that in steady state a call allocates
    /// nothing (a document grown past 4 MiB by a large instance is freed after it).
    ///
    /// # Errors
    /// [`JsonError`](crate::JsonError) when `json` is not one JSON value (invalid UTF-8,
    /// a syntax error, nesting deeper than 127 arrays and objects), with its byte offset;
    /// no part of the input is quoted.
    ///
    /// ```
    /// use toolschema::Schema;
    /// use serde_json::json;
    ///
    /// let schema = Schema::compile(&json!({"properties": {"count": {"maximum": 10}}}))?;
    /// assert_eq!(schema.is_valid_json(br#"{"count": 3}"#), Ok(true));
    /// assert_eq!(schema.is_valid_json(br#"{"count": 11}"#), Ok(false));
    /// assert_eq!(schema.is_valid_json(br#"{"count": 1"#).unwrap_err().offset, 11);
    /// # Ok::<(), toolschema::SchemaError>(())
    /// ```
    pub fn is_valid_json(&self, json: &[u8]) -> Result<bool, ParseError> {
        with_document(|doc| {
            let tree = doc.parse(json)?;
            Ok(crate::validate::is_valid(&self.compiled, tree.root()))
        })
    }

    /// [`Schema::is_valid_json`] in its slow, obvious form: the flat parser for the error
    /// and the depth bound, then serde_json's `Value` and [`Schema::is_valid`]. The
    /// reference the fast form is tested against; not a stable API.
    ///
    /// # Errors
    /// As [`Schema::is_valid_json`].
    #[doc(hidden)]
    pub fn is_valid_json_reference(&self, json: &[u8]) -> Result<bool, ParseError> {
        let value = parse(json)?;
        Ok(self.is_valid(&value))
    }

    /// Validates the JSON text `json`: [`Schema::validate`] for a caller that holds bytes.
    ///
    /// # Errors
    /// [`JsonValidationError::Malformed`] as [`Schema::is_valid_json`] says,
    /// [`JsonValidationError::Invalid`] with every error when it does not conform.
    ///
    /// ```
    /// use toolschema::{JsonValidationError, Schema};
    /// use serde_json::json;
    ///
    /// let schema = Schema::compile(&json!({"properties": {"count": {"maximum": 10}}}))?;
    /// assert!(schema.validate_json(br#"{"count": 3}"#).is_ok());
    /// match schema.validate_json(br#"{"count": 15}"#) {
    ///     Err(JsonValidationError::Invalid(errors)) => {
    ///         assert_eq!(errors.to_string(), "/count: must be at most 10")
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), toolschema::SchemaError>(())
    /// ```
    pub fn validate_json(&self, json: &[u8]) -> Result<(), JsonValidationError> {
        if self
            .is_valid_json(json)
            .map_err(JsonValidationError::Malformed)?
        {
            return Ok(());
        }
        // Invalid: the reporting path, on a `Value` (its errors in the order `validate`
        // gives them).
        // (The flat parse just found the text well formed: serde_json's alone is enough.)
        let value = from_slice(json).map_err(JsonValidationError::Malformed)?;
        self.validate(&value).map_err(JsonValidationError::Invalid)
    }
}

/// `json` as a `Value`, once the flat parser has found it well formed (so that malformed
/// text gets the flat parser's error, with its offset, and the depth bound is the flat
/// parser's, one below serde_json's).
fn parse(json: &[u8]) -> Result<Value, ParseError> {
    Document::new().parse(json)?;
    from_slice(json)
}

/// serde_json's parse of text the flat parser accepted. Text the flat parser accepts,
/// serde_json accepts too (the flat parser's tests compare the two); should they ever
/// differ, an error, never a panic.
fn from_slice(json: &[u8]) -> Result<Value, ParseError> {
    serde_json::from_slice(json).map_err(|e| ParseError {
        kind: ParseErrorKind::ExpectedValue,
        offset: 0,
        line: e.line(),
        column: e.column(),
    })
}
