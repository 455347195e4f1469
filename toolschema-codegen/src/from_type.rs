//! The input of the generator from a `schemars::JsonSchema` type (feature `schemars`).

use crate::{Config, GenerateError, Generated, generate};
use proc_macro2::Ident;
use serde_json::Value;

/// The `inputSchema` rmcp 3.11 publishes for a tool whose parameters are `Parameters<T>`,
/// as JSON text (pretty, with a final newline): schemars' 2020-12 settings
/// (`SchemaSettings::draft2020_12()`, no transforms), the root schema of `T`, its root
/// `title` and `description` removed, as rmcp's `schema_for_input` computes it.
///
/// # Errors
/// [`GenerateError::NotAnInputSchema`] when the root is not `"type": "object"` (rmcp
/// refuses such a type as a tool's parameters).
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// /// Echo arguments (not published: the root description is removed).
/// struct Echo {
///     message: String,
/// }
/// let text = toolschema_codegen::input_schema_text::<Echo>()?;
/// let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
/// assert_eq!(schema["required"], serde_json::json!(["message"]));
/// assert!(schema.get("description").is_none() && schema.get("title").is_none());
/// assert!(toolschema_codegen::input_schema_text::<u32>().is_err());
/// # Ok::<(), toolschema_codegen::GenerateError>(())
/// ```
pub fn input_schema_text<T: schemars::JsonSchema>() -> Result<String, GenerateError> {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let value = serde_json::to_value(schema).map_err(|e| GenerateError::Json(e.to_string()))?;
    let Value::Object(mut object) = value else {
        return Err(GenerateError::NotAnInputSchema(
            "the schema is not a JSON object".into(),
        ));
    };
    match object.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(GenerateError::NotAnInputSchema(format!(
                "its root type is {other}, not \"object\""
            )));
        }
        None => {
            return Err(GenerateError::NotAnInputSchema(
                "its root has no \"type\" (MCP requires \"object\")".into(),
            ));
        }
    }
    object.remove("title");
    object.remove("description");
    let mut text =
        serde_json::to_string_pretty(&object).map_err(|e| GenerateError::Json(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// [`generate`] for the input schema rmcp publishes for a `Parameters<T>` tool
/// ([`input_schema_text`]), for a build script whose tool types are in a dependency
/// crate (a build script cannot see its own crate's types). The generated type's
/// `SCHEMA` is that text, which `toolschema-rmcp` compares with the tool's published
/// schema before it lets the generated code decide.
///
/// # Errors
/// [`GenerateError::NotAnInputSchema`] when `T`'s root is not an object, else those of
/// [`generate`].
///
/// ```
/// // In build.rs: write the validator next to the build's other outputs, then
/// // `include!(concat!(env!("OUT_DIR"), "/echo.rs"));` in the crate, after
/// // `pub struct EchoArgs;`.
/// #[derive(schemars::JsonSchema)]
/// struct Echo {
///     message: String,
/// }
/// let name = proc_macro2::Ident::new("EchoArgs", proc_macro2::Span::call_site());
/// let out = toolschema_codegen::generate_for::<Echo>(&name, &Default::default())?;
/// assert!(out.coverage.fully_generated());
/// assert!(out.tokens.to_string().contains("GeneratedValidator for EchoArgs"));
/// # Ok::<(), toolschema_codegen::GenerateError>(())
/// ```
pub fn generate_for<T: schemars::JsonSchema>(
    name: &Ident,
    config: &Config,
) -> Result<Generated, GenerateError> {
    generate(name, &input_schema_text::<T>()?, config)
}
