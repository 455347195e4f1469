//! Errors: [`SchemaError`] when a schema cannot compile, [`ValidationError`] when an
//! instance does not conform.
//!
//! Validation errors are redaction-safe by construction: [`ErrorKind`] carries only data
//! taken from the schema (limits, type names, property names the schema declares), never
//! a value from the instance. A property name found only in the instance appears only
//! inside the instance-location pointer.

use crate::json::{JsonType, TypeSet};
use serde_json::Number;
use std::fmt;
use std::sync::Arc;

/// Why a schema was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// A keyword's value is malformed (`"minLength": -1`, `"type": 5`, ...).
    InvalidKeyword,
    /// A `$ref` or `$dynamicRef` resolves to nothing known.
    UnresolvedReference,
    /// A reference the options forbid (not a fragment, with `refs_fragment_only`).
    ForbiddenReference,
    /// The document nests deeper than [`Limits::max_depth`](crate::Limits::max_depth).
    DepthExceeded,
    /// The document has more objects than [`Limits::max_subschemas`](crate::Limits::max_subschemas).
    TooManySubschemas,
    /// The schema's locations (JSON pointers of its subschemas) add up to more than a
    /// capped schema may keep: long keys above many subschemas.
    TooLarge,
    /// References form a loop that never consumes the instance.
    ReferenceCycle,
    /// Two resources claim the same `$id`, or a resource defines an anchor twice.
    DuplicateIdentifier,
    /// A `pattern` or `patternProperties` key is not a valid ECMA-262 regular expression.
    InvalidPattern,
    /// `$schema` names a dialect this crate does not know.
    UnknownDialect,
    /// The schema is not valid against its dialect's meta-schema (with
    /// [`Options::validate_schema`](crate::Options::validate_schema)); every violation is
    /// in [`SchemaError::violations`].
    MetaSchemaViolation,
}

/// A schema that cannot be compiled: what is wrong and where.
///
/// The location is a JSON Pointer into the schema document (prefixed by the document's
/// URI when the problem is in a registered document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    inner: Box<SchemaErrorInner>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SchemaErrorInner {
    kind: SchemaErrorKind,
    location: String,
    message: String,
    violations: Vec<SchemaError>,
}

impl SchemaError {
    pub(crate) fn new(
        kind: SchemaErrorKind,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> SchemaError {
        SchemaError {
            inner: Box::new(SchemaErrorInner {
                kind,
                location: location.into(),
                message: message.into(),
                violations: Vec::new(),
            }),
        }
    }

    /// This error, carrying several violations found together.
    pub(crate) fn with_violations(mut self, violations: Vec<SchemaError>) -> SchemaError {
        self.inner.violations = violations;
        self
    }

    /// Every problem when several were found together, each with its own location: every
    /// meta-schema violation (with [`Options::validate_schema`](crate::Options::validate_schema))
    /// and the compiler's independent errors (a bad `type` and a bad `pattern` are both
    /// listed, this error first); empty when there is only this one.
    ///
    /// ```
    /// use serde_json::json;
    ///
    /// let bad = json!({"properties": {"a": {"minLength": -1}, "b": {"pattern": "["}}});
    /// let err = toolschema::Schema::compile(&bad).unwrap_err();
    /// let mut at: Vec<&str> = err.violations().iter().map(|e| e.location()).collect();
    /// at.sort();
    /// assert_eq!(at, ["/properties/a/minLength", "/properties/b/pattern"]);
    /// ```
    pub fn violations(&self) -> &[SchemaError] {
        &self.inner.violations
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> SchemaErrorKind {
        self.inner.kind
    }

    /// Where in the schema: a JSON Pointer (empty for the root).
    pub fn location(&self) -> &str {
        &self.inner.location
    }

    /// Why, in one lowercase line.
    pub fn message(&self) -> &str {
        &self.inner.message
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = if self.inner.location.is_empty() {
            "/"
        } else {
            &self.inner.location
        };
        write!(f, "{}: {}", loc, self.inner.message)
    }
}

impl std::error::Error for SchemaError {}

/// What a failed keyword asserted. Payloads come from the schema only.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The schema is `false`: nothing is valid.
    FalseSchema,
    /// `type`: the instance has another type.
    Type {
        /// The types the schema allows.
        expected: TypeSet,
        /// The instance's type.
        found: JsonType,
    },
    /// `const`: the instance is not the one allowed value.
    Const {
        /// The schema's value as JSON, clipped to 80 characters.
        expected: Arc<str>,
    },
    /// `enum`: the instance is none of the allowed values.
    Enum {
        /// How many values the schema allows.
        count: usize,
        /// The first 5 values as JSON, each clipped to 80 characters: from the schema, so safe to show, and what a
        /// caller needs to correct its input.
        allowed: Vec<Arc<str>>,
    },
    /// `multipleOf`.
    MultipleOf {
        /// The divisor.
        multiple_of: Number,
    },
    /// `maximum`.
    Maximum {
        /// The inclusive bound.
        limit: Number,
    },
    /// `exclusiveMaximum`.
    ExclusiveMaximum {
        /// The exclusive bound.
        limit: Number,
    },
    /// `minimum`.
    Minimum {
        /// The inclusive bound.
        limit: Number,
    },
    /// `exclusiveMinimum`.
    ExclusiveMinimum {
        /// The exclusive bound.
        limit: Number,
    },
    /// `maxLength` (in Unicode code points).
    MaxLength {
        /// The bound.
        limit: u64,
    },
    /// `minLength` (in Unicode code points).
    MinLength {
        /// The bound.
        limit: u64,
    },
    /// `pattern`: the string does not match.
    Pattern {
        /// The schema's pattern.
        pattern: Arc<str>,
    },
    /// A pattern could not be decided within its backtracking budget.
    PatternBudgetExceeded {
        /// The schema's pattern.
        pattern: Arc<str>,
    },
    /// The call stopped before the end: it evaluated more subschemas than its budget
    /// allows ([`EVALUATION_STEPS_MIN`](crate::EVALUATION_STEPS_MIN),
    /// [`EVALUATION_STEPS_PER_VALUE`](crate::EVALUATION_STEPS_PER_VALUE)), or
    /// [`Schema::evaluate`](crate::Schema::evaluate) kept more location text than
    /// [`EVALUATION_OUTPUT_BYTES`](crate::EVALUATION_OUTPUT_BYTES). Reported alone, at the
    /// root; the instance counts as invalid.
    EvaluationBudgetExceeded,
    /// `format` (when formats assert).
    Format {
        /// The format name.
        format: Arc<str>,
    },
    /// `maxItems`.
    MaxItems {
        /// The bound.
        limit: u64,
    },
    /// `minItems`.
    MinItems {
        /// The bound.
        limit: u64,
    },
    /// `uniqueItems`: two items are equal.
    UniqueItems {
        /// Index of the first of two equal items.
        first: usize,
        /// Index of the second.
        second: usize,
    },
    /// `contains`: no item matches.
    Contains,
    /// `minContains`: too few items match `contains`.
    MinContains {
        /// The bound.
        limit: u64,
    },
    /// `maxContains`: too many items match `contains`.
    MaxContains {
        /// The bound.
        limit: u64,
    },
    /// `maxProperties`.
    MaxProperties {
        /// The bound.
        limit: u64,
    },
    /// `minProperties`.
    MinProperties {
        /// The bound.
        limit: u64,
    },
    /// `required`: a property is missing.
    Required {
        /// The missing property, as the schema names it.
        property: Arc<str>,
    },
    /// `dependentRequired` (or array `dependencies`): a property is missing.
    DependentRequired {
        /// The present property that requires another.
        property: Arc<str>,
        /// The missing property.
        missing: Arc<str>,
    },
    /// `additionalProperties`: this property is not allowed (the instance location names it).
    AdditionalProperties,
    /// `unevaluatedProperties`: this property is not allowed (the instance location names it).
    UnevaluatedProperties,
    /// `additionalItems` (before 2020-12): this item is not allowed.
    AdditionalItems,
    /// `unevaluatedItems`: this item is not allowed.
    UnevaluatedItems,
    /// `propertyNames`: this property's name is not allowed (the instance location names it).
    PropertyNames,
    /// `not`: the instance matches the negated schema.
    Not,
    /// `anyOf`: no branch matches.
    AnyOf {
        /// How many branches there are.
        branches: usize,
    },
    /// `oneOf`: not exactly one branch matches.
    OneOf {
        /// How many branches there are.
        branches: usize,
        /// How many matched (0, or more than 1).
        matched: usize,
    },
    /// `anyOf`/`oneOf` that no branch matches, reported through the branch the instance most
    /// plausibly meant: that branch's own errors come just before this one, each at its own
    /// location (`/user/address/zip: must match the pattern ...`), and this error, at the
    /// union, says which branch that was and why. A union where no branch stands out fails
    /// with [`AnyOf`](Self::AnyOf) or [`OneOf`](Self::OneOf) instead, every branch's errors
    /// as its causes.
    ///
    /// ```
    /// use toolschema::{BranchChoice, ErrorKind, Schema};
    /// use serde_json::json;
    ///
    /// let schema = Schema::compile(&json!({"properties": {"address": {"anyOf": [
    ///     {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}},
    ///     {"type": "null"}]}}}))?;
    /// let errors: Vec<_> = schema.iter_errors(&json!({"address": {"zip": "x"}})).collect();
    /// assert_eq!(errors[0].to_string(), "/address/zip: must match the pattern \"^[0-9]{5}$\"");
    /// assert!(matches!(errors[1].kind(),
    ///     ErrorKind::ClosestBranch { branch: 0, choice: BranchChoice::Type, .. }));
    /// # Ok::<(), toolschema::SchemaError>(())
    /// ```
    ClosestBranch {
        /// `"anyOf"` or `"oneOf"`.
        keyword: &'static str,
        /// The chosen branch's index.
        branch: usize,
        /// How many branches there are.
        branches: usize,
        /// Why this branch.
        choice: BranchChoice,
    },
    /// `contentEncoding` (when content asserts): the string is not in that encoding.
    ContentEncoding {
        /// The encoding name.
        encoding: Arc<str>,
    },
    /// `contentMediaType` (when content asserts): the string is not of that media type.
    ContentMediaType {
        /// The media type.
        media_type: Arc<str>,
    },
}

impl ErrorKind {
    /// The keyword this kind reports, as it appears in schemas.
    pub fn keyword(&self) -> &'static str {
        match self {
            ErrorKind::FalseSchema => "false",
            ErrorKind::Type { .. } => "type",
            ErrorKind::Const { .. } => "const",
            ErrorKind::Enum { .. } => "enum",
            ErrorKind::MultipleOf { .. } => "multipleOf",
            ErrorKind::Maximum { .. } => "maximum",
            ErrorKind::ExclusiveMaximum { .. } => "exclusiveMaximum",
            ErrorKind::Minimum { .. } => "minimum",
            ErrorKind::ExclusiveMinimum { .. } => "exclusiveMinimum",
            ErrorKind::MaxLength { .. } => "maxLength",
            ErrorKind::MinLength { .. } => "minLength",
            ErrorKind::Pattern { .. } | ErrorKind::PatternBudgetExceeded { .. } => "pattern",
            // (Not a keyword's failure: the evaluation as a whole.)
            ErrorKind::EvaluationBudgetExceeded => "",
            ErrorKind::Format { .. } => "format",
            ErrorKind::MaxItems { .. } => "maxItems",
            ErrorKind::MinItems { .. } => "minItems",
            ErrorKind::UniqueItems { .. } => "uniqueItems",
            ErrorKind::Contains => "contains",
            ErrorKind::MinContains { .. } => "minContains",
            ErrorKind::MaxContains { .. } => "maxContains",
            ErrorKind::MaxProperties { .. } => "maxProperties",
            ErrorKind::MinProperties { .. } => "minProperties",
            ErrorKind::Required { .. } => "required",
            ErrorKind::DependentRequired { .. } => "dependentRequired",
            ErrorKind::AdditionalProperties => "additionalProperties",
            ErrorKind::UnevaluatedProperties => "unevaluatedProperties",
            ErrorKind::AdditionalItems => "additionalItems",
            ErrorKind::UnevaluatedItems => "unevaluatedItems",
            ErrorKind::PropertyNames => "propertyNames",
            ErrorKind::Not => "not",
            ErrorKind::AnyOf { .. } => "anyOf",
            ErrorKind::OneOf { .. } => "oneOf",
            ErrorKind::ClosestBranch { keyword, .. } => keyword,
            ErrorKind::ContentEncoding { .. } => "contentEncoding",
            ErrorKind::ContentMediaType { .. } => "contentMediaType",
        }
    }
}

/// Why [`ErrorKind::ClosestBranch`] reports the branch it does.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BranchChoice {
    /// The branches are told apart by a tag property (a `const` or `enum` per branch), and
    /// the instance's tag selects this one.
    Tag {
        /// The tag property, as the schema names it.
        property: Arc<str>,
    },
    /// Every other branch rejects the value itself (its type, or the one literal it allows):
    /// the non-null member of an optional, the object member of `string | object`.
    Type,
    /// Of the branches that admit the value's type, this one got furthest into it (its
    /// errors lie deepest, then are fewest).
    Deepest,
}

/// Schema text quoted in a one-line message, shortened past 120 characters.
/// How many of an `enum`'s values its error shows.
pub(crate) const ALLOWED_SHOWN: usize = 5;
/// The most characters of one `const` or `enum` value an error shows.
pub(crate) const ALLOWED_CHARS: usize = 80;

impl ErrorKind {
    /// `const`'s error: the schema's value, clipped.
    pub(crate) fn const_of(value: &serde_json::Value) -> ErrorKind {
        ErrorKind::Const {
            expected: clipped_json(value),
        }
    }

    /// `enum`'s error: the count and the first values, clipped.
    pub(crate) fn enum_of(values: &[serde_json::Value]) -> ErrorKind {
        ErrorKind::Enum {
            count: values.len(),
            allowed: values
                .iter()
                .take(ALLOWED_SHOWN)
                .map(clipped_json)
                .collect(),
        }
    }
}

/// `value` as JSON, at most [`ALLOWED_CHARS`] characters (then `…`); the writing stops
/// there, so a large value costs no more than a small one.
fn clipped_json(value: &serde_json::Value) -> Arc<str> {
    struct Upto(Vec<u8>);
    impl std::io::Write for Upto {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            // Four bytes per character at most: enough to cut at a character after.
            let room = (ALLOWED_CHARS * 4 + 4).saturating_sub(self.0.len());
            if room == 0 {
                return Err(std::io::Error::other("full"));
            }
            let n = buf.len().min(room);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Upto(Vec::new());
    let _ = serde_json::to_writer(&mut out, value);
    let text = String::from_utf8_lossy(&out.0);
    match text.char_indices().nth(ALLOWED_CHARS) {
        None => Arc::from(text.as_ref()),
        Some((i, _)) => Arc::from(format!("{}…", &text[..i])),
    }
}

pub(crate) fn clip(s: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 120;
    match s.char_indices().nth(MAX) {
        None => std::borrow::Cow::Borrowed(s),
        Some((i, _)) => std::borrow::Cow::Owned(format!("{}…", &s[..i])),
    }
}

/// A string written as a JSON string literal (`"ech\u200bo"`), so that messages sent as
/// JSON never carry Rust's escapes; invisible and control characters are escaped.
pub(crate) struct Quoted<T: AsRef<str>>(pub T);

impl<T: AsRef<str>> fmt::Display for Quoted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        f.write_char('"')?;
        for c in self.0.as_ref().chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                // What Rust's Debug would escape (controls, format and unassigned characters,
                // lone combining marks), in JSON's `\uXXXX` form.
                c if c != '\'' && (c.is_control() || c.escape_debug().nth(1).is_some()) => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        write!(f, "\\u{u:04x}")?;
                    }
                }
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

fn type_list(types: TypeSet) -> String {
    let names: Vec<&str> = types.iter().map(JsonType::as_str).collect();
    match names.len() {
        0 => "nothing".to_string(),
        1 => names[0].to_string(),
        _ => {
            let (last, rest) = names.split_last().unwrap_or((&"", &[]));
            format!("{} or {}", rest.join(", "), last)
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::FalseSchema => f.write_str("no value is allowed here"),
            ErrorKind::Type { expected, found } => {
                write!(
                    f,
                    "must be {}, not {}",
                    type_list(*expected),
                    found.as_str()
                )
            }
            ErrorKind::Const { expected } => write!(f, "must be the constant {expected}"),
            ErrorKind::Enum { count, allowed } => {
                if *count == 1 {
                    f.write_str("must be the one allowed value")?;
                } else {
                    write!(f, "must be one of the {count} allowed values")?;
                }
                for (i, v) in allowed.iter().enumerate() {
                    f.write_str(if i == 0 { ": " } else { ", " })?;
                    f.write_str(v)?;
                }
                if *count > allowed.len() {
                    f.write_str(", …")?;
                }
                Ok(())
            }
            ErrorKind::MultipleOf { multiple_of } => {
                write!(f, "must be a multiple of {multiple_of}")
            }
            ErrorKind::Maximum { limit } => write!(f, "must be at most {limit}"),
            ErrorKind::ExclusiveMaximum { limit } => write!(f, "must be less than {limit}"),
            ErrorKind::Minimum { limit } => write!(f, "must be at least {limit}"),
            ErrorKind::ExclusiveMinimum { limit } => write!(f, "must be greater than {limit}"),
            ErrorKind::MaxLength { limit } => {
                write!(
                    f,
                    "must be at most {} long",
                    plural(*limit, "character", "characters")
                )
            }
            ErrorKind::MinLength { limit } => {
                write!(
                    f,
                    "must be at least {} long",
                    plural(*limit, "character", "characters")
                )
            }
            ErrorKind::Pattern { pattern } => {
                write!(f, "must match the pattern {}", Quoted(clip(pattern)))
            }
            ErrorKind::PatternBudgetExceeded { pattern } => {
                write!(
                    f,
                    "pattern evaluation exceeded its budget for the pattern {}",
                    Quoted(clip(pattern))
                )
            }
            ErrorKind::EvaluationBudgetExceeded => f.write_str(
                "evaluation stopped: the schema applies the same subschemas to the instance \
                 more often than its budget allows, or its output grew too large",
            ),
            ErrorKind::Format { format } => write!(f, "must be a valid {}", Quoted(format)),
            ErrorKind::MaxItems { limit } => {
                write!(f, "must have at most {}", plural(*limit, "item", "items"))
            }
            ErrorKind::MinItems { limit } => {
                write!(f, "must have at least {}", plural(*limit, "item", "items"))
            }
            ErrorKind::UniqueItems { first, second } => {
                write!(
                    f,
                    "items must be unique, but items {first} and {second} are equal"
                )
            }
            ErrorKind::Contains => f.write_str("must contain at least one matching item"),
            ErrorKind::MinContains { limit } => {
                write!(
                    f,
                    "must contain at least {}",
                    plural(*limit, "matching item", "matching items")
                )
            }
            ErrorKind::MaxContains { limit } => {
                write!(
                    f,
                    "must contain at most {}",
                    plural(*limit, "matching item", "matching items")
                )
            }
            ErrorKind::MaxProperties { limit } => {
                write!(
                    f,
                    "must have at most {}",
                    plural(*limit, "property", "properties")
                )
            }
            ErrorKind::MinProperties { limit } => {
                write!(
                    f,
                    "must have at least {}",
                    plural(*limit, "property", "properties")
                )
            }
            ErrorKind::Required { property } => {
                write!(f, "missing required property {}", Quoted(property))
            }
            ErrorKind::DependentRequired { property, missing } => {
                write!(
                    f,
                    "missing property {}, required when {} is present",
                    Quoted(missing),
                    Quoted(property)
                )
            }
            ErrorKind::AdditionalProperties => f.write_str("property is not allowed"),
            ErrorKind::UnevaluatedProperties => {
                f.write_str("property is not allowed (unevaluated)")
            }
            ErrorKind::AdditionalItems => f.write_str("item is not allowed"),
            ErrorKind::UnevaluatedItems => f.write_str("item is not allowed (unevaluated)"),
            ErrorKind::PropertyNames => f.write_str("property name is not allowed"),
            ErrorKind::Not => f.write_str("must not match the schema under \"not\""),
            ErrorKind::AnyOf { branches } => {
                write!(
                    f,
                    "must match at least one of {} but matches none",
                    plural(*branches as u64, "schema", "schemas")
                )
            }
            ErrorKind::ClosestBranch {
                keyword,
                branch,
                branches,
                choice,
            } => {
                match choice {
                    _ if *branches == 1 => write!(f, "does not match /{keyword}/0")?,
                    BranchChoice::Tag { property } => write!(
                        f,
                        "the {} property selects branch /{keyword}/{branch}, which does not match",
                        Quoted(property)
                    )?,
                    BranchChoice::Type => write!(
                        f,
                        "matches none of the {branches} schemas under \"{keyword}\"; \
                         /{keyword}/{branch} is the only one that admits this type of value"
                    )?,
                    BranchChoice::Deepest => write!(
                        f,
                        "matches none of the {branches} schemas under \"{keyword}\"; \
                         /{keyword}/{branch} comes closest, the other {} fail sooner",
                        branches - 1
                    )?,
                }
                f.write_str(" (its errors are listed above)")
            }
            ErrorKind::OneOf { branches, matched } => {
                if *matched == 0 {
                    write!(
                        f,
                        "must match exactly one of {} but matches none",
                        plural(*branches as u64, "schema", "schemas")
                    )
                } else {
                    write!(
                        f,
                        "must match exactly one of {} but matches {matched}",
                        plural(*branches as u64, "schema", "schemas")
                    )
                }
            }
            ErrorKind::ContentEncoding { encoding } => {
                write!(f, "must be encoded as {}", Quoted(encoding))
            }
            ErrorKind::ContentMediaType { media_type } => {
                write!(f, "must be of media type {}", Quoted(media_type))
            }
        }
    }
}

/// One way in which an instance fails its schema.
///
/// Rendering (`Display`, `Debug`) never includes a value from the instance.
#[derive(Clone, PartialEq)]
pub struct ValidationError {
    inner: Box<ValidationErrorInner>,
}

#[derive(Clone, PartialEq)]
struct ValidationErrorInner {
    /// The instance location, the keyword location and the absolute keyword location end
    /// to end (one allocation for the three).
    locations: String,
    /// Where the first two end in `locations`.
    ends: [u32; 2],
    kind: ErrorKind,
    causes: Vec<ValidationError>,
}

impl ValidationError {
    /// An error whose three locations are end to end in `locations`, the first two ending
    /// at `ends` (see `location::error_locations`).
    pub(crate) fn new(
        (locations, ends): (String, [u32; 2]),
        kind: ErrorKind,
        causes: Vec<ValidationError>,
    ) -> ValidationError {
        ValidationError {
            inner: Box::new(ValidationErrorInner {
                locations,
                ends,
                kind,
                causes,
            }),
        }
    }

    /// Location `i` (0: instance, 1: keyword, 2: absolute keyword).
    fn location(&self, i: usize) -> &str {
        let [a, b] = self.inner.ends.map(|e| e as usize);
        let text = &self.inner.locations;
        let range = match i {
            0 => 0..a,
            1 => a..b,
            _ => b..text.len(),
        };
        text.get(range).unwrap_or_default()
    }

    /// Where in the instance: a JSON Pointer (RFC 6901), empty for the root.
    pub fn instance_location(&self) -> &str {
        self.location(0)
    }

    /// The keyword that failed, as the path evaluation took to it (through `$ref`s).
    pub fn keyword_location(&self) -> &str {
        self.location(1)
    }

    /// The keyword that failed, as its schema resource's URI plus a JSON Pointer fragment.
    pub fn absolute_keyword_location(&self) -> &str {
        self.location(2)
    }

    /// What the keyword asserted.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// For `anyOf`, `oneOf` and similar: the errors of the branches that failed.
    pub fn causes(&self) -> &[ValidationError] {
        &self.inner.causes
    }

    /// The message without the location prefix.
    pub fn message(&self) -> String {
        self.inner.kind.to_string()
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = self.instance_location();
        write!(
            f,
            "{}: {}",
            if loc.is_empty() { "/" } else { loc },
            self.inner.kind
        )
    }
}

impl fmt::Debug for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidationError")
            .field("instance_location", &self.instance_location())
            .field("keyword_location", &self.keyword_location())
            .field("kind", &self.inner.kind)
            .field("causes", &self.inner.causes)
            .finish()
    }
}

impl std::error::Error for ValidationError {}

/// Every error an instance produced, in evaluation order (at least one).
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationErrors {
    errors: Vec<ValidationError>,
}

impl ValidationErrors {
    pub(crate) fn new(errors: Vec<ValidationError>) -> ValidationErrors {
        ValidationErrors { errors }
    }

    /// The errors.
    pub fn iter(&self) -> std::slice::Iter<'_, ValidationError> {
        self.errors.iter()
    }

    /// How many errors there are.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always false: a `ValidationErrors` holds at least one error.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors, owned.
    pub fn into_vec(self) -> Vec<ValidationError> {
        self.errors
    }
}

impl IntoIterator for ValidationErrors {
    type Item = ValidationError;
    type IntoIter = std::vec::IntoIter<ValidationError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl<'a> IntoIterator for &'a ValidationErrors {
    type Item = &'a ValidationError;
    type IntoIter = std::slice::Iter<'a, ValidationError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}
