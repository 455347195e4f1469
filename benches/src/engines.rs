//! The three validators behind one static interface, configured alike.
//!
//! - formats are annotations: toolschema `assert_formats(false)`, jsonschema
//!   `should_validate_formats(false)`, boon without `enable_format_assertions`. boon
//!   asserts `format` by default under draft-07 and earlier, so every built-in boon format
//!   is replaced by a checker that accepts everything (boon refuses to replace `regex`,
//!   which therefore still asserts under draft-07 and earlier);
//! - the dialect is the one `$schema` declares; a schema without `$schema` is 2020-12 for
//!   all three (set explicitly for toolschema and boon; jsonschema's default);
//! - the remaining defaults are each library's own: jsonschema and boon validate a schema
//!   against its meta-schema while compiling, which is part of their compile time.

use serde_json::Value;
use std::error::Error;

/// A validator under test.
pub trait Engine {
    /// The name in reports and criterion ids.
    const NAME: &'static str;
    /// What compiling produces.
    type Compiled;
    /// What compiling consumes besides `&Value`, made outside the timed region
    /// (boon takes ownership of the document; the others take nothing).
    type Input;

    /// Prepares the untimed input of [`Engine::compile`].
    fn prepare(schema: &Value) -> Self::Input;
    /// Compiles `schema`.
    ///
    /// # Errors
    /// The library's compile error, rendered.
    fn compile(schema: &Value, input: Self::Input) -> Result<Self::Compiled, String>;
    /// Whether `instance` is valid, by the library's fastest boolean path.
    fn is_valid(compiled: &Self::Compiled, instance: &Value) -> bool;
    /// The error path: collects every error the library reports and returns how many.
    fn count_errors(compiled: &Self::Compiled, instance: &Value) -> usize;
    /// The rendered errors (for disagreement reports; not timed).
    fn describe_errors(compiled: &Self::Compiled, instance: &Value) -> Vec<String>;
}

/// toolschema, this crate's subject.
pub struct Toolschema;

/// Whether `schema` exceeds toolschema's default [`Limits`](toolschema::Limits), which
/// the other two do not have: such a schema is compiled with `Limits::none()` (and the
/// report says so).
pub fn exceeds_default_limits(schema: &Value) -> bool {
    fn visit(value: &Value, depth: usize, objects: &mut usize, deepest: &mut usize) {
        *deepest = (*deepest).max(depth);
        match value {
            Value::Object(map) => {
                *objects += 1;
                map.values()
                    .for_each(|v| visit(v, depth + 1, objects, deepest));
            }
            Value::Array(items) => items
                .iter()
                .for_each(|v| visit(v, depth + 1, objects, deepest)),
            _ => {}
        }
    }
    let (mut objects, mut deepest) = (0, 0);
    visit(schema, 1, &mut objects, &mut deepest);
    objects > toolschema::Limits::DEFAULT_MAX_SUBSCHEMAS
        || deepest > toolschema::Limits::DEFAULT_MAX_DEPTH
}

impl Engine for Toolschema {
    const NAME: &'static str = "toolschema";
    type Compiled = toolschema::Schema;
    type Input = toolschema::Options;

    fn prepare(schema: &Value) -> toolschema::Options {
        let options = toolschema::Options::new()
            .assert_formats(false)
            .default_dialect(toolschema::Draft::Draft202012);
        if exceeds_default_limits(schema) {
            options.limits(toolschema::Limits::none())
        } else {
            options
        }
    }

    fn compile(schema: &Value, options: toolschema::Options) -> Result<toolschema::Schema, String> {
        options.compile(schema).map_err(|e| e.to_string())
    }

    fn is_valid(compiled: &toolschema::Schema, instance: &Value) -> bool {
        compiled.is_valid(instance)
    }

    fn count_errors(compiled: &toolschema::Schema, instance: &Value) -> usize {
        let errors: Vec<toolschema::ValidationError> = compiled.iter_errors(instance).collect();
        errors.len()
    }

    fn describe_errors(compiled: &toolschema::Schema, instance: &Value) -> Vec<String> {
        compiled
            .iter_errors(instance)
            .map(|e| e.to_string())
            .collect()
    }
}

/// jsonschema-rs (crate `jsonschema`, default features off).
pub struct JsonschemaRs;

impl Engine for JsonschemaRs {
    const NAME: &'static str = "jsonschema";
    type Compiled = jsonschema::Validator;
    type Input = ();

    fn prepare(_: &Value) {}

    fn compile(schema: &Value, (): ()) -> Result<jsonschema::Validator, String> {
        jsonschema::options()
            .should_validate_formats(false)
            .build(schema)
            .map_err(|e| e.to_string())
    }

    fn is_valid(compiled: &jsonschema::Validator, instance: &Value) -> bool {
        compiled.is_valid(instance)
    }

    fn count_errors(compiled: &jsonschema::Validator, instance: &Value) -> usize {
        let errors: Vec<jsonschema::ValidationError<'_>> = compiled.iter_errors(instance).collect();
        errors.len()
    }

    fn describe_errors(compiled: &jsonschema::Validator, instance: &Value) -> Vec<String> {
        compiled
            .iter_errors(instance)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect()
    }
}

/// boon.
pub struct Boon;

/// A compiled boon schema: the collection and the root's index in it.
pub struct BoonCompiled {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

const BOON_URL: &str = "http://toolschema-bench.invalid/schema.json";

/// The format names boon checks out of the box (all but `regex`, which boon does not
/// let a caller replace).
const BOON_FORMATS: &[&str] = &[
    "ipv4",
    "ipv6",
    "hostname",
    "idn-hostname",
    "email",
    "idn-email",
    "date",
    "time",
    "date-time",
    "duration",
    "period",
    "json-pointer",
    "relative-json-pointer",
    "uuid",
    "uri",
    "iri",
    "uri-reference",
    "iri-reference",
    "uri-template",
];

fn accept_any(_: &Value) -> Result<(), Box<dyn Error>> {
    Ok(())
}

fn count_leaves(error: &boon::ValidationError<'_, '_>) -> usize {
    if error.causes.is_empty() {
        1
    } else {
        error.causes.iter().map(count_leaves).sum()
    }
}

impl Engine for Boon {
    const NAME: &'static str = "boon";
    type Compiled = BoonCompiled;
    type Input = Value;

    fn prepare(schema: &Value) -> Value {
        schema.clone()
    }

    fn compile(_: &Value, document: Value) -> Result<BoonCompiled, String> {
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        for name in BOON_FORMATS {
            compiler.register_format(boon::Format {
                name,
                func: accept_any,
            });
        }
        compiler
            .add_resource(BOON_URL, document)
            .map_err(|e| e.to_string())?;
        let mut schemas = boon::Schemas::new();
        let index = compiler
            .compile(BOON_URL, &mut schemas)
            .map_err(|e| format!("{e:#}"))?;
        Ok(BoonCompiled { schemas, index })
    }

    fn is_valid(compiled: &BoonCompiled, instance: &Value) -> bool {
        // boon has no boolean-only path: `validate` is its fastest answer.
        compiled.schemas.validate(instance, compiled.index).is_ok()
    }

    fn count_errors(compiled: &BoonCompiled, instance: &Value) -> usize {
        match compiled.schemas.validate(instance, compiled.index) {
            Ok(()) => 0,
            Err(error) => count_leaves(&error),
        }
    }

    fn describe_errors(compiled: &BoonCompiled, instance: &Value) -> Vec<String> {
        match compiled.schemas.validate(instance, compiled.index) {
            Ok(()) => Vec::new(),
            Err(error) => format!("{error:#}")
                .lines()
                .skip(1)
                .map(|line| line.trim().to_string())
                .collect(),
        }
    }
}
