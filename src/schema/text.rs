//! Validation straight from JSON text: [`Schema::is_valid_json`],
//! [`Schema::validate_json`] and [`Schema::evaluate_json`], for callers that hold bytes
//! (files, JSON Lines, JSON-RPC messages, HTTP bodies) and need no `Value` of their own.
//!
//! The text is parsed by the flat parser (`crate::flat`), which gives malformed JSON its
//! byte offset, line and column and bounds nesting at [`crate::flat::DEFAULT_MAX_DEPTH`],
//! into a per-thread [`Document`] reused from call to call (so that steady-state
//! validation from bytes allocates nothing), and the evaluator runs on the flat tree
//! itself, for the verdict ([`Schema::is_valid_json`]), the errors
//! ([`Schema::validate_json`]) and the full evaluation ([`Schema::evaluate_json`]) alike.
//! [`Schema::is_valid_json_reference`] keeps the slow, obvious form of the verdict (the
//! `Value` evaluator on serde_json's parse) that the tests compare the fast one with; the
//! errors and evaluations are compared with `validate` and `evaluate` on the `Value`.

use super::Schema;
use crate::flat::{Document, ParseError, ParseErrorKind};
use serde_json::Value;
use std::cell::Cell;
use std::fmt;

/// Scratch a thread's document keeps between calls; past this (after an unusually large
/// instance) its buffers are freed, so that a long-lived thread does not hold the memory
/// of its largest input.
const SCRATCH_KEPT: usize = 4 << 20;

/// Inputs up to this many bytes skip the size check after their call (summing eight
/// buffers' capacities, a twentieth of a 12-byte call). Such a parse grows a buffer only
/// to what it needs, at most twice that with `Vec`'s doubling: about 170 KiB for all eight
/// buffers at 1 KiB. So a document past the bound is still freed after the first longer
/// input, and between two checks it can exceed [`SCRATCH_KEPT`] by that much at most.
const UNCHECKED_INPUT: usize = 1 << 10;

thread_local! {
    /// The document each thread parses instances into (taken out while in use). Boxed,
    /// and `None` until the first call: taking and putting back a pointer (with a `const`
    /// initialiser, no lazy-initialisation test) is what a small call can afford, where
    /// moving the document's dozen words in and out and testing its initialisation cost
    /// a fifth of a 12-byte instance's call (callgrind: 1,103 instructions before, 879
    /// after, on cloudflare-docs).
    static SCRATCH: Cell<Option<Box<Document>>> = const { Cell::new(None) };
}

/// Runs `f` with the thread's document, to parse an input of `len` bytes. A nested call
/// (a format checker that validates JSON text itself, on the same thread) finds none in
/// its place and works in a new one; at thread exit, a fresh one is used.
#[inline(always)]
fn with_document<R>(len: usize, f: impl FnOnce(&mut Document) -> R) -> R {
    let mut doc = SCRATCH
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_else(new_document);
    let out = f(&mut doc);
    if len > UNCHECKED_INPUT {
        doc.shrink_to(SCRATCH_KEPT);
    }
    let _ = SCRATCH.try_with(|cell| cell.set(Some(doc)));
    out
}

/// A thread's first document (out of line: once per thread).
#[cold]
#[inline(never)]
fn new_document() -> Box<Document> {
    Box::default()
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
        with_document(json.len(), |doc| {
            let tree = doc.parse(json)?;
            Ok(crate::validate::is_valid(&self.compiled, tree.root()))
        })
    }

    /// Whether the flat document `tree` conforms: [`Schema::is_valid_json`] without its
    /// parse, for benchmarks that parse an instance once into the flat layout and then
    /// validate it many times (Blaze's in-cache protocol). Not a stable API.
    #[doc(hidden)]
    pub fn is_valid_tree(&self, tree: &crate::flat::Tree<'_>) -> bool {
        crate::validate::is_valid(&self.compiled, tree.root())
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

    /// Validates the JSON text `json`: [`Schema::validate`] for a caller that holds bytes,
    /// with no `serde_json::Value` built, whether the instance is valid or not (the errors
    /// are collected on the flat document too).
    ///
    /// The errors are those [`Schema::validate`] reports on the `Value` serde_json reads
    /// from the same text, in evaluation order. Where that order follows an object's
    /// properties (`additionalProperties`, `patternProperties`...), it is the text's own
    /// order here; a `Value` lists them in its map's order (sorted by name, unless
    /// serde_json's `preserve_order` feature keeps the text's). So the two lists are equal
    /// whenever each object's keys are written in that order (as serde_json writes a
    /// `Value`), and otherwise differ only in the order of such errors.
    ///
    /// # Errors
    /// [`JsonValidationError::Malformed`] as [`Schema::is_valid_json`] says (a text nested
    /// deeper than 127 arrays and objects is refused with
    /// [`JsonErrorKind::TooDeep`](crate::JsonErrorKind::TooDeep), as serde_json refuses
    /// it; a caller that reads such documents parses them its own way and calls
    /// [`Schema::validate`]), [`JsonValidationError::Invalid`] with every error when it
    /// does not conform.
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
        with_document(json.len(), |doc| {
            let tree = doc.parse(json).map_err(JsonValidationError::Malformed)?;
            let root = tree.root();
            // Most instances are valid: the fail-fast pass answers them with no
            // allocation, and costs an invalid one little (it stops at the first failure).
            if crate::validate::is_valid(&self.compiled, root) {
                return Ok(());
            }
            // (The errors own their locations: nothing borrows the document after this.)
            let errors = crate::validate::collect_errors(&self.compiled, root, 0, usize::MAX);
            if errors.is_empty() {
                Ok(())
            } else {
                Err(JsonValidationError::Invalid(crate::ValidationErrors::new(
                    errors,
                )))
            }
        })
    }

    /// Evaluates the JSON text `json`: [`Schema::evaluate`] (every error, the annotations,
    /// the standard output formats) for a caller that holds bytes, with no
    /// `serde_json::Value` built: the evaluator runs on the flat document
    /// [`Schema::is_valid_json`] parses into.
    ///
    /// The errors and annotations are those [`Schema::evaluate`] gives on the `Value`
    /// serde_json reads from the same text; where their order follows an object's
    /// properties, it is the text's order (see [`Schema::validate_json`]).
    ///
    /// # Errors
    /// [`JsonError`](crate::JsonError) as [`Schema::is_valid_json`] says (a text nested
    /// deeper than 127 arrays and objects included).
    ///
    /// ```
    /// use toolschema::Schema;
    /// use serde_json::json;
    ///
    /// let schema = Schema::compile(&json!({"properties": {"n": {"title": "N", "maximum": 3}}}))?;
    /// let good = schema.evaluate_json(br#"{"n": 1}"#)?;
    /// assert!(good.is_valid());
    /// assert!(good.annotations().iter().any(|a| a.keyword() == "title" && a.instance_location() == "/n"));
    /// let bad = schema.evaluate_json(br#"{"n": 5}"#)?;
    /// assert_eq!(bad.basic()["errors"][0]["instanceLocation"], "/n");
    /// // Malformed text: where, never what.
    /// assert_eq!(schema.evaluate_json(br#"{"n": }"#).unwrap_err().offset, 6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn evaluate_json(&self, json: &[u8]) -> Result<crate::Evaluation, ParseError> {
        with_document(json.len(), |doc| {
            let tree = doc.parse(json)?;
            let outcome = crate::validate::outcome(&self.compiled, tree.root());
            Ok(crate::Evaluation::from_outcome(outcome))
        })
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
