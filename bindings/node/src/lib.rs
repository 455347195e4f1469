//! The native addon of the `toolschema` npm package: compiled schemas validating JSON
//! text (the flat path: the text never becomes JavaScript objects) and JavaScript values
//! (read through Node-API into a compact arena, see [`value`]). The JavaScript API
//! (`index.js`, typed by `index.d.ts`) wraps this one; nothing here is called directly
//! by users.

#![deny(clippy::all)]

mod value;

use napi::bindgen_prelude::Unknown;
use napi::{Either, Env, JsValue, Status};
use napi_derive::napi;
use serde_json::Value;
use toolschema::{Draft, JsonValidationError, Limits, Options, Schema, ValidationErrors};

/// Compile options, as `compile(schema, options)` takes them.
#[napi(object)]
#[derive(Default)]
pub struct CompileOptions {
    /// The dialect of a schema that declares no `$schema`: "2020-12" (the default),
    /// "2019-09", "draft-07", "draft-06" or "draft-04".
    pub dialect: Option<String>,
    /// Whether `format` asserts (default false: an annotation, as 2020-12 says).
    pub formats: Option<bool>,
    /// Whether `contentEncoding`/`contentMediaType`/`contentSchema` assert.
    pub content: Option<bool>,
    /// Whether only `#...` references are allowed (no other documents).
    pub fragment_only_refs: Option<bool>,
    /// Whether the schema is checked against its dialect's meta-schema first.
    pub validate_schema: Option<bool>,
    /// The cap on schema nesting.
    pub max_depth: Option<u32>,
    /// The cap on the number of subschemas.
    pub max_subschemas: Option<u32>,
    /// Other documents references may reach: JSON text of an object mapping each URI to
    /// its schema (`index.js` writes it from an object).
    pub documents: Option<String>,
}

/// Why a schema did not compile.
#[napi(object)]
pub struct CompileFailure {
    /// A JSON Pointer into the schema ("" for the root).
    pub keyword_location: String,
    /// Why, in one lowercase line.
    pub message: String,
    /// Every problem found together (this one first).
    pub violations: Vec<Violation>,
}

/// One problem of a schema.
#[napi(object)]
pub struct Violation {
    /// A JSON Pointer into the schema.
    pub keyword_location: String,
    /// Why.
    pub message: String,
}

/// One validation error: where and why, never the value.
#[napi(object)]
pub struct OutputUnit {
    /// A JSON Pointer into the instance.
    pub instance_location: String,
    /// The path of keywords that failed.
    pub keyword_location: String,
    /// The message (it never quotes the instance).
    pub message: String,
}

/// `validate()`'s answer.
#[napi(object)]
pub struct ValidationResult {
    /// Whether the value conforms.
    pub valid: bool,
    /// Every error, in evaluation order.
    pub errors: Vec<OutputUnit>,
}

/// Why a schema cannot be upgraded.
#[napi(object)]
pub struct UpgradeFailure {
    /// A JSON Pointer into the original schema.
    pub keyword_location: String,
    /// Why.
    pub message: String,
}

fn draft(name: Option<&str>) -> napi::Result<Draft> {
    Ok(match name.unwrap_or("2020-12") {
        "2020-12" | "draft-2020-12" => Draft::Draft202012,
        "2019-09" | "draft-2019-09" => Draft::Draft201909,
        "draft-07" | "draft7" | "7" => Draft::Draft7,
        "draft-06" | "draft6" | "6" => Draft::Draft6,
        "draft-04" | "draft4" | "4" => Draft::Draft4,
        other => {
            return Err(napi::Error::new(
                Status::InvalidArg,
                format!(
                    "unknown dialect {other:?} (expected \"2020-12\", \"2019-09\", \"draft-07\", \"draft-06\" or \"draft-04\")"
                ),
            ));
        }
    })
}

fn parse_schema(text: &str) -> napi::Result<Value> {
    serde_json::from_str(text)
        .map_err(|e| napi::Error::new(Status::InvalidArg, format!("the schema is not JSON: {e}")))
}

/// Compiles a schema given as JSON text.
#[napi]
pub fn compile(
    schema: String,
    options: Option<CompileOptions>,
) -> napi::Result<Either<Validator, CompileFailure>> {
    let options = options.unwrap_or_default();
    let value = parse_schema(&schema)?;
    let mut limits = Limits::default();
    if let Some(depth) = options.max_depth {
        limits = limits.with_max_depth(depth as usize);
    }
    if let Some(count) = options.max_subschemas {
        limits = limits.with_max_subschemas(count as usize);
    }
    let mut builder = Options::new();
    if let Some(documents) = options.documents.as_deref() {
        let Value::Object(map) = parse_schema(documents)? else {
            return Err(napi::Error::new(
                Status::InvalidArg,
                "documents: expected an object mapping URIs to schemas",
            ));
        };
        for (uri, document) in map {
            builder = builder.with_document(&uri, document);
        }
    }
    let compiled = builder
        .default_dialect(draft(options.dialect.as_deref())?)
        .assert_formats(options.formats.unwrap_or(false))
        .assert_content(options.content.unwrap_or(false))
        .refs_fragment_only(options.fragment_only_refs.unwrap_or(false))
        .validate_schema(options.validate_schema.unwrap_or(false))
        .limits(limits)
        .compile(&value);
    Ok(match compiled {
        Ok(schema) => Either::A(Validator {
            schema,
            tree: value::Tree::default(),
        }),
        Err(e) => {
            let mut violations = vec![Violation {
                keyword_location: e.location().to_owned(),
                message: e.message().to_owned(),
            }];
            violations.extend(
                e.violations()
                    .iter()
                    .filter(|v| v.location() != e.location() || v.message() != e.message())
                    .map(|v| Violation {
                        keyword_location: v.location().to_owned(),
                        message: v.message().to_owned(),
                    }),
            );
            Either::B(CompileFailure {
                keyword_location: e.location().to_owned(),
                message: e.message().to_owned(),
                violations,
            })
        }
    })
}

/// Upgrades a schema (JSON text) of an older draft to 2020-12: the upgraded schema as
/// JSON text, or why it cannot be.
#[napi]
pub fn upgrade(
    schema: String,
    dialect: Option<String>,
) -> napi::Result<Either<String, UpgradeFailure>> {
    let value = parse_schema(&schema)?;
    Ok(
        match toolschema::upgrade::upgrade(&value, draft(dialect.as_deref())?) {
            Ok(upgraded) => Either::A(upgraded.to_string()),
            Err(e) => Either::B(UpgradeFailure {
                keyword_location: e.location,
                message: e.reason,
            }),
        },
    )
}

/// A compiled schema.
#[napi]
pub struct Validator {
    schema: Schema,
    /// The arena JavaScript values are read into, reused from call to call.
    tree: value::Tree,
}

fn errors_of(errors: &ValidationErrors) -> Vec<OutputUnit> {
    errors
        .iter()
        .map(|e| OutputUnit {
            instance_location: e.instance_location().to_owned(),
            keyword_location: e.keyword_location().to_owned(),
            message: e.message(),
        })
        .collect()
}

fn malformed(e: toolschema::JsonError) -> napi::Error {
    napi::Error::new(Status::InvalidArg, format!("the text is not JSON: {e}"))
}

impl Validator {
    /// Reads `value` into the arena.
    fn read(&mut self, env: &Env, value: Unknown<'_>) -> napi::Result<()> {
        match self.tree.read(env.raw(), value.raw()) {
            Ok(()) => Ok(()),
            Err(Some(value::ReadError(message))) => {
                self.tree.shrink();
                Err(napi::Error::new(Status::InvalidArg, message))
            }
            // A getter or `toJSON` threw: its exception propagates as it is.
            Err(None) => {
                self.tree.shrink();
                Err(napi::Error::new(
                    Status::PendingException,
                    "a JavaScript exception",
                ))
            }
        }
    }
}

#[napi]
impl Validator {
    /// Whether the JavaScript value conforms.
    #[napi]
    pub fn is_valid(&mut self, env: Env, value: Unknown<'_>) -> napi::Result<bool> {
        self.read(&env, value)?;
        let valid = self.schema.is_valid_instance(self.tree.root());
        self.tree.shrink();
        Ok(valid)
    }

    /// Whether the JSON text conforms (the text is parsed by the engine, never by V8).
    #[napi]
    pub fn is_valid_json(&self, text: String) -> napi::Result<bool> {
        self.schema
            .is_valid_json(text.as_bytes())
            .map_err(malformed)
    }

    /// Every error of the JavaScript value.
    #[napi]
    pub fn validate(&mut self, env: Env, value: Unknown<'_>) -> napi::Result<ValidationResult> {
        self.read(&env, value)?;
        let result = match self.schema.validate_instance(self.tree.root()) {
            Ok(()) => ValidationResult {
                valid: true,
                errors: Vec::new(),
            },
            Err(errors) => ValidationResult {
                valid: false,
                errors: errors_of(&errors),
            },
        };
        self.tree.shrink();
        Ok(result)
    }

    /// Every error of the JSON text.
    #[napi]
    pub fn validate_json(&self, text: String) -> napi::Result<ValidationResult> {
        match self.schema.validate_json(text.as_bytes()) {
            Ok(()) => Ok(ValidationResult {
                valid: true,
                errors: Vec::new(),
            }),
            Err(JsonValidationError::Invalid(errors)) => Ok(ValidationResult {
                valid: false,
                errors: errors_of(&errors),
            }),
            Err(JsonValidationError::Malformed(e)) => Err(malformed(e)),
        }
    }

    /// The standard output ("flag", "basic", "detailed" or "verbose") of the value.
    #[napi]
    pub fn evaluate(
        &mut self,
        env: Env,
        value: Unknown<'_>,
        format: Option<String>,
    ) -> napi::Result<Value> {
        self.read(&env, value)?;
        let evaluation = self.schema.evaluate_instance(self.tree.root());
        self.tree.shrink();
        output(&evaluation, format.as_deref())
    }

    /// The standard output of the JSON text.
    #[napi]
    pub fn evaluate_json(&self, text: String, format: Option<String>) -> napi::Result<Value> {
        let evaluation = self
            .schema
            .evaluate_json(text.as_bytes())
            .map_err(malformed)?;
        output(&evaluation, format.as_deref())
    }
}

fn output(evaluation: &toolschema::Evaluation, format: Option<&str>) -> napi::Result<Value> {
    Ok(match format.unwrap_or("basic") {
        "flag" => evaluation.flag(),
        "basic" => evaluation.basic(),
        "detailed" => evaluation.detailed(),
        "verbose" => evaluation.verbose(),
        other => {
            return Err(napi::Error::new(
                Status::InvalidArg,
                format!(
                    "unknown output format {other:?} (expected \"flag\", \"basic\", \"detailed\" or \"verbose\")"
                ),
            ));
        }
    })
}
