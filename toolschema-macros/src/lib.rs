//! `#[toolschema_macros::validator(...)]`: a JSON Schema known at build time compiled into
//! Rust code (by `toolschema-codegen`, whose docs explain the design), with the verdicts
//! and errors of the [toolschema](https://docs.rs/toolschema) engine.
//!
//! Put the attribute on a unit struct; the struct gets `is_valid`, `validate`,
//! `iter_errors`, `evaluate` (associated functions) and `schema()`, the engine's compiled
//! form. The crate using it depends on `toolschema` (the generated code calls
//! `toolschema::codegen`, the engine's hidden support module).
//!
//! Arguments:
//! - `path = "schema.json"` (relative to the crate's `Cargo.toml`) or
//!   `schema = r#"{...}"#` (inline JSON text): one of the two;
//! - `assert_formats = true`, `assert_content = true`, `draft = 7` (4, 6, 7, 2019, 2020):
//!   the engine options of the same names (`Options::assert_formats`, ...).
//!
//! ```
//! #[toolschema_macros::validator(schema = r#"{"type": "object", "required": ["q"]}"#)]
//! struct Search;
//!
//! assert!(Search::is_valid(&serde_json::json!({"q": "rust"})));
//! ```
//!
//! The struct also implements `toolschema::GeneratedValidator`, for code that takes any
//! generated validator (`toolschema_rmcp::ValidatedRouter::with_generated` gives one to an
//! rmcp tool).
//!
//! A `schemars::JsonSchema` type's schema is not visible to a proc macro (it is computed by
//! running code). For an rmcp tool's parameter type, check its schema in as a file that
//! `path` reads and keep the two equal with a test calling
//! `toolschema_rmcp::testing::check_input_schema_file::<T>(path)`; or, from a build script
//! of a crate whose types live in a dependency, call `toolschema_codegen::generate_for::<T>`
//! (feature `schemars`).

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{DeriveInput, Ident, LitBool, LitInt, LitStr, Token};

struct Args {
    path: Option<LitStr>,
    schema: Option<LitStr>,
    config: toolschema_codegen::Config,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Args> {
        let mut args = Args {
            path: None,
            schema: None,
            config: toolschema_codegen::Config::default(),
        };
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "path" => args.path = Some(input.parse()?),
                "schema" => args.schema = Some(input.parse()?),
                "assert_formats" => args.config.assert_formats = input.parse::<LitBool>()?.value,
                "assert_content" => args.config.assert_content = input.parse::<LitBool>()?.value,
                "draft" => {
                    let lit: LitInt = input.parse()?;
                    let draft: u16 = lit.base10_parse()?;
                    if ![4, 6, 7, 2019, 2020].contains(&draft) {
                        return Err(syn::Error::new(
                            lit.span(),
                            "draft is one of 4, 6, 7, 2019, 2020",
                        ));
                    }
                    args.config.draft = draft;
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown argument `{other}` (expected path, schema, assert_formats, assert_content, draft)"
                        ),
                    ));
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}

/// Generates a validator for a JSON Schema on a unit struct (see the crate docs).
#[proc_macro_attribute]
pub fn validator(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(attr as Args);
    let item = syn::parse_macro_input!(item as DeriveInput);
    match expand(args, &item) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(args: Args, item: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let span = proc_macro2::Span::call_site();
    let (text, tracked) = match (&args.path, &args.schema) {
        (Some(path), None) => {
            let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
            let full = std::path::Path::new(&dir).join(path.value());
            let text = std::fs::read_to_string(&full).map_err(|e| {
                syn::Error::new(path.span(), format!("cannot read {}: {e}", full.display()))
            })?;
            (text, Some(full.to_string_lossy().into_owned()))
        }
        (None, Some(schema)) => (schema.value(), None),
        _ => {
            return Err(syn::Error::new(
                span,
                "give the schema as `path = \"...\"` or `schema = \"...\"` (one of the two)",
            ));
        }
    };
    let generated = toolschema_codegen::generate(&item.ident, &text, &args.config)
        .map_err(|e| syn::Error::new(span, e.to_string()))?;
    let tokens = generated.tokens;
    // (Rebuilt when the schema file changes.)
    let track = tracked.map(|p| {
        let lit = LitStr::new(&p, span);
        quote! { const _: &[u8] = include_bytes!(#lit); }
    });
    Ok(quote! {
        #item
        #track
        #tokens
    })
}
