//! Generated validators: a JSON Schema known at build time turned into Rust code with the
//! verdicts of the [`toolschema`] engine. Most users want the attribute of
//! `toolschema-macros` (`#[toolschema_macros::validator(path = "schema.json")]`), which
//! calls [`generate`]; a build script may call it too and write the tokens to `OUT_DIR`.
//!
//! # How it works
//!
//! The generator does not interpret the schema itself. It compiles it with the engine in
//! its reference configuration (`Options::shortcuts(false)`, where the engine's general
//! keyword loop decides every verdict), reads that compiled form out
//! (`toolschema::codegen::plan`, a hidden module of the engine that is **not public
//! API**) and writes one function per schema object reachable from the root:
//!
//! - a `match` on the instance's kind, each arm the keywords that look at that kind
//!   (`type`, lengths, bounds, `required`, `items`, `prefixItems`, `contains`, one walk
//!   over an object's keys for `properties`/`additionalProperties`/`patternProperties`
//!   (names matched by length, then by the byte that tells them apart, then whole;
//!   `required` names that are declared properties counted in that walk instead of looked
//!   up), `propertyNames`, `dependentSchemas`), then the applicators that look at any
//!   value (`allOf`, `anyOf`, `oneOf`, `not`, `if`, `$ref` as a plain call);
//! - constants copied from the compiled form (names, integer floors and ceilings of the
//!   bounds, lengths, node numbers, pattern numbers), so no rule is written twice: what one
//!   comparison does not decide (a bound against a huge integer, `1.0` against `integer`,
//!   code points, whether a regular expression matches) calls the engine's own function
//!   for it.
//!
//! Regular expressions (`pattern`, the names of `patternProperties`, a `pattern` under
//! `propertyNames`) are the engine's: the generated code calls its matcher for pattern
//! number *i* of the same compiled form (compiled again from the embedded schema, once, at
//! the first call that needs it), and the subschemas of the properties a pattern matches
//! are generated functions. `multipleOf` calls the engine's rule with the divisor as the
//! engine parsed it. Other keywords with no code of their own call the engine's code for
//! that keyword by its index: `format`, `uniqueItems`, `dependentRequired`, content,
//! `const`/`enum` of values other than strings. These are shared rules, not delegation:
//! the engine checks the one value, no subschema.
//!
//! An `anyOf`/`oneOf` whose branches are told apart by a property (one whose schema is a
//! `const`/`enum`, such as GeoJSON's `type` or a versioned schema's `version`, in two
//! branches or more) looks that property up first in each branch, so that a branch the
//! instance is not of fails before walking the rest of it.
//!
//! Delegated, and counted in [`Coverage`]: `propertyNames` whose subschema asserts more
//! than a string's `type`/`enum`/`const`/lengths/`pattern` (the engine evaluates the
//! keyword), a node with `unevaluatedProperties`/`unevaluatedItems` (the engine evaluates
//! the whole node: those read its other keywords' annotations), and the whole schema when
//! a `$dynamicRef`/`$recursiveRef` reads the dynamic scope. A schema that needs documents
//! other than itself (remote references) does not compile here: the generator takes the
//! schema alone.
//!
//! Errors: the generated code decides the verdict; for an instance it rejects,
//! `validate`/`iter_errors`/`evaluate` are the engine's, compiled lazily from the embedded
//! schema with the same options, so the errors are the runtime engine's exactly.
//!
//! Limits: the generated code counts one step per `$ref` followed, and the engine's
//! count of a regular expression's work, up to [`toolschema::EVALUATION_STEPS_MIN`]; past
//! it (or when a match runs out of its own budget), the call is answered by the engine and
//! its step budget. A reference that can recurse runs on a fresh stack segment when the
//! stack runs low, so a deep instance gets an answer, not an overflow. The generated path
//! allocates nothing (tested on the official suite).
//!
//! The generated type implements `toolschema::GeneratedValidator`, the trait code that
//! takes any generated validator uses (`toolschema-rmcp`'s `with_generated`, for one).
//!
//! With the feature `schemars`, `generate_for` takes a `schemars::JsonSchema` type
//! instead of JSON text: the input schema rmcp publishes for a `Parameters<T>` tool, for
//! a build script of a crate whose tool types live in a dependency.
//!
//! # Example
//! ```
//! let name = proc_macro2::Ident::new("Args", proc_macro2::Span::call_site());
//! let out = toolschema_codegen::generate(
//!     &name,
//!     r#"{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}"#,
//!     &toolschema_codegen::Config::default(),
//! )?;
//! assert!(out.coverage.fully_generated());
//! assert!(out.tokens.to_string().contains("fn is_valid"));
//! # Ok::<(), toolschema_codegen::GenerateError>(())
//! ```

#![deny(missing_docs)]

#[cfg(feature = "schemars")]
mod from_type;
mod generate;

#[cfg(feature = "schemars")]
pub use from_type::{generate_for, input_schema_text};
pub use generate::{Coverage, GenerateError, Generated, generate};
/// The engine options a generated validator fixes at build time.
pub use toolschema::codegen::Config;
