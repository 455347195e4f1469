//! The trait validators generated at build time implement.

use crate::{Options, Schema};
use serde_json::Value;

/// A validator generated at build time from a schema known then (by `toolschema-codegen`,
/// or the `#[toolschema_macros::validator]` attribute, which implement it for the type
/// they generate): its verdicts are those of [`Schema::is_valid`] for [`SCHEMA`](Self::SCHEMA)
/// compiled with [`options`](Self::options), without the engine's evaluation.
///
/// Code that takes "some schema's validator" generically (such as `toolschema-rmcp`,
/// which gives a tool a generated validator) takes a `V: GeneratedValidator`, and asks
/// [`mismatch`](Self::mismatch) whether `V` stands for the schema and options it would
/// otherwise compile at run time before it trusts `V`'s verdicts.
///
/// The attribute writes the implementation; here one written by hand, for the schema
/// `{"type": "string"}`, shows the contract:
///
/// ```
/// use std::sync::OnceLock;
/// use toolschema::{GeneratedValidator, Options, Schema};
///
/// struct Text;
///
/// impl GeneratedValidator for Text {
///     const SCHEMA: &'static str = r#"{"type": "string"}"#;
///     fn is_valid(instance: &serde_json::Value) -> bool {
///         instance.is_string()
///     }
///     fn schema() -> &'static Schema {
///         static SCHEMA: OnceLock<Schema> = OnceLock::new();
///         SCHEMA.get_or_init(|| Options::new().compile(&serde_json::json!({"type": "string"})).unwrap())
///     }
///     fn options() -> Options {
///         Options::new()
///     }
/// }
///
/// // Code that takes any generated validator:
/// fn errors<V: GeneratedValidator>(instance: &serde_json::Value) -> usize {
///     if V::is_valid(instance) { 0 } else { V::schema().iter_errors(instance).count() }
/// }
///
/// assert_eq!(errors::<Text>(&serde_json::json!("a")), 0);
/// assert_eq!(errors::<Text>(&serde_json::json!(1)), 1);
/// let published = serde_json::json!({"type": "string"});
/// assert_eq!(Text::mismatch(&published, &Options::new()), None);
/// assert!(Text::mismatch(&serde_json::json!({"type": "integer"}), &Options::new()).is_some());
/// // A setting that changes verdicts must be the same too.
/// assert!(Text::mismatch(&published, &Options::new().assert_formats(true)).is_some());
/// ```
///
/// Implementing it by hand is possible, but then the contract (the engine's verdicts for
/// `SCHEMA` and `options()`) is yours to keep.
pub trait GeneratedValidator {
    /// The schema the validator was generated from, as JSON text.
    const SCHEMA: &'static str;

    /// Whether `instance` conforms: the verdict of [`Schema::is_valid`] for
    /// [`SCHEMA`](Self::SCHEMA) compiled with [`options`](Self::options).
    fn is_valid(instance: &Value) -> bool;

    /// The runtime engine's compiled form of [`SCHEMA`](Self::SCHEMA), with
    /// [`options`](Self::options) (for errors and the rest of [`Schema`]'s API).
    fn schema() -> &'static Schema;

    /// The engine options the validator's verdicts are those of (fixed at build time).
    fn options() -> Options;

    /// Why this validator cannot stand for `schema` compiled with `options` (the schema
    /// differs from [`SCHEMA`](Self::SCHEMA) as a JSON value, or the options differ in a
    /// setting that can change a verdict); `None` when it can.
    ///
    /// See the trait's example.
    fn mismatch(schema: &Value, options: &Options) -> Option<String> {
        match serde_json::from_str::<Value>(Self::SCHEMA) {
            Ok(own) if own == *schema => {}
            Ok(_) => return Some("its schema is not the same JSON value".into()),
            Err(e) => return Some(format!("its schema is not JSON: {e}")),
        }
        Self::options()
            .verdict_difference(options)
            .map(|setting| format!("it was generated with another `{setting}` option"))
    }
}
