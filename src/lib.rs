//! toolschema: a JSON Schema 2020-12 validator tuned for the schemas MCP tools publish.
//!
//! The pipeline: a schema (`serde_json::Value`) is compiled once by [`Options::compile`]
//! (or [`Schema::compile`]) into an arena of nodes. Every reference inside the document
//! (JSON Pointer, `$anchor`, embedded `$id`, `$dynamicRef`) is resolved to a node index at
//! compile time, and caps on depth and size ([`Limits`]) refuse hostile schemas with a
//! clear [`SchemaError`]. The compiled [`Schema`] is immutable and `Send + Sync`;
//! [`Schema::is_valid`] answers without heap allocation, [`Schema::validate`] and
//! [`Schema::iter_errors`] explain failures without ever quoting instance values.
//!
//! ```
//! use toolschema::Schema;
//! use serde_json::json;
//!
//! let schema = Schema::compile(&json!({
//!     "type": "object",
//!     "properties": {"units": {"enum": ["celsius", "fahrenheit"]}},
//!     "required": ["location"]
//! }))?;
//! assert!(schema.is_valid(&json!({"location": "Paris", "units": "celsius"})));
//! let errors: Vec<String> = schema
//!     .iter_errors(&json!({"units": "kelvin"}))
//!     .map(|e| e.to_string())
//!     .collect();
//! assert_eq!(errors, [
//!     "/: missing required property \"location\"",
//!     "/units: must be one of the 2 allowed values: \"celsius\", \"fahrenheit\"",
//! ]);
//! # Ok::<(), toolschema::SchemaError>(())
//! ```
//!
//! Dialects: 2020-12 (the default), 2019-09, draft-07, draft-06 and draft-04, each
//! evaluated with its own semantics; `$schema` selects the dialect of each schema resource
//! and [`Options::default_dialect`] the dialect of a schema that declares none.

#![deny(missing_docs)]

#[doc(hidden)]
pub mod codegen;
mod compile;
mod error;
// Public but hidden until `Schema::is_valid_json` wires it in (#36): tests, benches and
// fuzz targets outside the crate exercise it meanwhile.
#[doc(hidden)]
pub mod flat;
mod format;
mod generated;
mod json;
mod limits;
pub mod lint;
#[cfg(feature = "mcp")]
pub mod mcp;
mod metaschema;
mod names;
mod options;
mod output;
mod pattern;
mod schema;
pub mod upgrade;
mod validate;

pub use error::{
    BranchChoice, ErrorKind, SchemaError, SchemaErrorKind, ValidationError, ValidationErrors,
};
pub use flat::{ParseError as JsonError, ParseErrorKind as JsonErrorKind};
pub use generated::GeneratedValidator;
pub use json::{JsonType, TypeSet};
pub use limits::Limits;
pub use options::{Draft, Options};
pub use output::{
    Annotation, EVALUATION_OUTPUT_BYTES, EVALUATION_STEPS_MIN, EVALUATION_STEPS_PER_VALUE,
    Evaluation, OUTPUT_FORMAT_DEPTH,
};
pub use schema::{ErrorIter, JsonValidationError, Schema};

/// This crate's version (`CARGO_PKG_VERSION`), for tools that report which toolschema they
/// run (the Bowtie harness answers it in its implementation metadata).
///
/// ```
/// assert!(!toolschema::VERSION.is_empty());
/// ```
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Whether `name` is a `format` with a built-in checker (the formats of 2020-12, and the
/// numeric formats code generators emit, such as `uint32`); any other format is only an
/// annotation, even when formats assert.
///
/// ```
/// assert!(toolschema::is_known_format("email"));
/// assert!(toolschema::is_known_format("uint32"));
/// assert!(!toolschema::is_known_format("color"));
/// ```
pub fn is_known_format(name: &str) -> bool {
    format::check(name, "").is_some()
}

/// The README's Rust examples run as doctests, so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
