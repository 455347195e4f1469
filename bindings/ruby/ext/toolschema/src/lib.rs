//! The native extension of the `toolschema` gem: `Toolschema::Validator` over the
//! toolschema engine. The Ruby side (`lib/toolschema.rb`) defines the exception and
//! error classes and the keyword-argument constructor; this crate defines the
//! validator's methods.
//!
//! Ruby data is read in place ([`data`]); JSON text is validated on the engine's flat
//! path, with the GVL released for large texts.

mod data;
mod output;

use data::{Bounds, DataError, Tree};
use magnus::rb_sys::AsRawValue;
use magnus::{
    Error, ExceptionClass, RArray, RModule, RString, Ruby, Symbol, TryConvert, Value, function,
    method, prelude::*, value::Lazy,
};
use toolschema::{Draft, Limits, Options, Schema, SchemaErrorKind};

/// A compiled schema, immutable: safe to share across threads (and Ractors, frozen).
#[magnus::wrap(
    class = "Toolschema::Validator",
    free_immediately,
    size,
    frozen_shareable
)]
struct Validator {
    schema: Schema,
}

/// Texts at least this long are validated with the GVL released (after a copy, so that
/// no other thread can change them meanwhile); shorter ones cost less than the release.
const GVL_RELEASE_BYTES: usize = 16 * 1024;

/// The deepest schema nesting read from Ruby data, whatever `max_depth` allows: the
/// schema is then copied into a `serde_json::Value`, whose recursive drop must fit a
/// Ruby thread's stack (1 MiB by default).
const SCHEMA_DEPTH_CEILING: u32 = 1000;

pub(crate) static MODULE: Lazy<RModule> = Lazy::new(|ruby| {
    ruby.class_object()
        .const_get("Toolschema")
        .expect("Toolschema is defined before the extension loads")
});

fn exception(ruby: &Ruby, name: &str) -> Result<ExceptionClass, Error> {
    ruby.get_inner(&MODULE).const_get(name)
}

/// `Toolschema::SchemaError.new(message, kind, location, violations)`.
fn schema_error(
    ruby: &Ruby,
    kind: &str,
    location: &str,
    message: &str,
    violations: RArray,
) -> Error {
    let make = || -> Result<Error, Error> {
        let class = exception(ruby, "SchemaError")?;
        let e: Value =
            class.funcall("new", (message, ruby.to_symbol(kind), location, violations))?;
        Ok(magnus::Exception::from_value(e)
            .map(Error::from)
            .unwrap_or_else(|| Error::new(ruby.exception_arg_error(), message.to_owned())))
    };
    make().unwrap_or_else(|e| e)
}

fn kind_name(kind: SchemaErrorKind) -> &'static str {
    match kind {
        SchemaErrorKind::InvalidKeyword => "invalid_keyword",
        SchemaErrorKind::UnresolvedReference => "unresolved_reference",
        SchemaErrorKind::ForbiddenReference => "forbidden_reference",
        SchemaErrorKind::DepthExceeded => "depth_exceeded",
        SchemaErrorKind::TooManySubschemas => "too_many_subschemas",
        SchemaErrorKind::TooLarge => "too_large",
        SchemaErrorKind::ReferenceCycle => "reference_cycle",
        SchemaErrorKind::DuplicateIdentifier => "duplicate_identifier",
        SchemaErrorKind::InvalidPattern => "invalid_pattern",
        SchemaErrorKind::UnknownDialect => "unknown_dialect",
        SchemaErrorKind::MetaSchemaViolation => "meta_schema_violation",
        _ => "invalid_schema",
    }
}

/// A compile error as a `Toolschema::SchemaError`, every violation with its own.
fn from_schema_error(ruby: &Ruby, e: &toolschema::SchemaError) -> Error {
    let violations = ruby.ary_new();
    for v in e.violations() {
        let one = schema_error(
            ruby,
            kind_name(v.kind()),
            v.location(),
            &v.to_string(),
            ruby.ary_new(),
        );
        let _ = violations.push(one.value().unwrap_or_else(|| ruby.qnil().as_value()));
    }
    let message = if e.violations().len() > 1 {
        let all: Vec<String> = e.violations().iter().map(|v| v.to_string()).collect();
        format!("invalid schema: {}", all.join("; "))
    } else {
        format!("invalid schema: {e}")
    };
    schema_error(
        ruby,
        kind_name(e.kind()),
        e.location(),
        &message,
        violations,
    )
}

fn data_error(ruby: &Ruby, e: DataError) -> Error {
    match e {
        DataError::Type(message) => Error::new(ruby.exception_type_error(), message),
        DataError::Depth { location, max } => Error::new(
            ruby.exception_arg_error(),
            format!("data nested deeper than {max} levels of arrays and hashes at {location}"),
        ),
        DataError::TooMany { max } => Error::new(
            ruby.exception_arg_error(),
            format!("data holding more than {max} values"),
        ),
    }
}

fn parse_error(ruby: &Ruby, e: &toolschema::JsonError) -> Error {
    let make = || -> Result<Error, Error> {
        let class = exception(ruby, "ParseError")?;
        let v: Value = class.funcall(
            "new",
            (format!("malformed JSON: {e}"), e.offset, e.line, e.column),
        )?;
        Ok(magnus::Exception::from_value(v)
            .map(Error::from)
            .unwrap_or_else(|| Error::new(ruby.exception_arg_error(), e.to_string())))
    };
    make().unwrap_or_else(|err| err)
}

fn draft_of(ruby: &Ruby, draft: Value) -> Result<Option<Draft>, Error> {
    if draft.is_nil() {
        return Ok(None);
    }
    let name: String = match Symbol::from_value(draft) {
        Some(s) => s.name()?.into_owned(),
        None => String::try_convert(draft)?,
    };
    Ok(Some(match name.as_str() {
        "draft4" => Draft::Draft4,
        "draft6" => Draft::Draft6,
        "draft7" => Draft::Draft7,
        "draft2019_09" => Draft::Draft201909,
        "draft2020_12" => Draft::Draft202012,
        _ => {
            return Err(Error::new(
                ruby.exception_arg_error(),
                format!(
                    "unknown draft {name:?}: expected :draft4, :draft6, :draft7, :draft2019_09 or :draft2020_12"
                ),
            ));
        }
    }))
}

/// The schema argument as a `serde_json::Value`: JSON text, or Ruby data.
fn schema_value(ruby: &Ruby, schema: Value, limits: Limits) -> Result<serde_json::Value, Error> {
    if let Some(text) = RString::from_value(schema) {
        // SAFETY: copied at once; no Ruby code runs in between.
        let bytes = unsafe { text.as_slice() }.to_vec();
        return serde_json::from_slice(&bytes).map_err(|e| {
            schema_error(
                ruby,
                "malformed_json",
                "",
                &format!("invalid schema: malformed JSON: {e}"),
                ruby.ary_new(),
            )
        });
    }
    let depth = u32::try_from(limits.max_depth)
        .unwrap_or(u32::MAX)
        .min(SCHEMA_DEPTH_CEILING);
    let bounds = Bounds {
        depth,
        values: limits.max_values().min(u32::MAX as usize / 2),
    };
    // SAFETY: the GVL is held, `schema` is an argument (alive and on the stack), and
    // nothing below runs Ruby code or allocates a Ruby object before the tree is dropped.
    let walked = unsafe { Tree::walk(schema.as_raw(), bounds) }.map(|tree| tree.to_value());
    walked.map_err(|e| match e {
        DataError::Depth { location, .. } => schema_error(
            ruby,
            "depth_exceeded",
            &location,
            &format!(
                "invalid schema: {location}: nesting exceeds the maximum depth of {}",
                limits.max_depth.min(SCHEMA_DEPTH_CEILING as usize)
            ),
            ruby.ary_new(),
        ),
        DataError::TooMany { max } => schema_error(
            ruby,
            "too_many_subschemas",
            "",
            &format!("invalid schema: /: the schema has more than the maximum of {max} values"),
            ruby.ary_new(),
        ),
        other => data_error(ruby, other),
    })
}

impl Validator {
    /// `Toolschema::Validator.__new(schema, draft, formats, content, same_document_refs,
    /// max_depth, max_subschemas, documents)`: the keyword arguments are the Ruby side's;
    /// `documents` an Array of [uri, schema] pairs.
    #[allow(clippy::too_many_arguments)]
    fn new(
        ruby: &Ruby,
        schema: Value,
        draft: Value,
        formats: bool,
        content: bool,
        same_document_refs: bool,
        max_depth: usize,
        max_subschemas: usize,
        documents: RArray,
    ) -> Result<Validator, Error> {
        let limits = Limits::new(max_depth, max_subschemas);
        let value = schema_value(ruby, schema, limits)?;
        let mut registered = Vec::new();
        for pair in documents.into_iter() {
            let (uri, document): (String, Value) = TryConvert::try_convert(pair)?;
            registered.push((uri, schema_value(ruby, document, limits)?));
        }
        let mut options = Options::new()
            .limits(limits)
            .refs_fragment_only(same_document_refs)
            .assert_formats(formats)
            .assert_content(content)
            .validate_schema(true);
        for (uri, document) in registered {
            options = options.with_document(&uri, document);
        }
        if let Some(draft) = draft_of(ruby, draft)? {
            options = options.default_dialect(draft);
        }
        let compiled = options.compile(&value);
        // (Dropped here, not on a Ruby thread's deeper frames.)
        drop(value);
        compiled
            .map(|schema| Validator { schema })
            .map_err(|e| from_schema_error(ruby, &e))
    }

    fn valid(ruby: &Ruby, rb_self: &Self, data: Value) -> Result<bool, Error> {
        // SAFETY: see `schema_value`; the tree is dropped before anything is allocated.
        let verdict = unsafe { Tree::walk(data.as_raw(), data::DATA_BOUNDS) }
            .map(|tree| rb_self.schema.is_valid_instance(tree.root()));
        verdict.map_err(|e| data_error(ruby, e))
    }

    fn validate(ruby: &Ruby, rb_self: &Self, data: Value) -> Result<RArray, Error> {
        // SAFETY: as in `valid`; the errors own their text.
        let outcome = unsafe { Tree::walk(data.as_raw(), data::DATA_BOUNDS) }
            .map(|tree| rb_self.schema.validate_instance(tree.root()));
        match outcome.map_err(|e| data_error(ruby, e))? {
            Ok(()) => Ok(ruby.ary_new()),
            Err(errors) => output::errors(ruby, errors.iter()),
        }
    }

    fn valid_json(ruby: &Ruby, rb_self: &Self, text: RString) -> Result<bool, Error> {
        let verdict = with_text(text, |bytes| rb_self.schema.is_valid_json(bytes));
        verdict.map_err(|e| parse_error(ruby, &e))
    }

    fn validate_json(ruby: &Ruby, rb_self: &Self, text: RString) -> Result<RArray, Error> {
        match with_text(text, |bytes| rb_self.schema.validate_json(bytes)) {
            Ok(()) => Ok(ruby.ary_new()),
            Err(toolschema::JsonValidationError::Malformed(e)) => Err(parse_error(ruby, &e)),
            Err(toolschema::JsonValidationError::Invalid(errors)) => {
                output::errors(ruby, errors.iter())
            }
        }
    }

    /// `__evaluate(data, format)`: the standard output, `format` one of "flag", "basic",
    /// "detailed", "verbose" (checked by the Ruby side).
    fn evaluate(ruby: &Ruby, rb_self: &Self, data: Value, format: String) -> Result<Value, Error> {
        // SAFETY: as in `valid`; the evaluation owns its errors and annotations.
        let evaluation = unsafe { Tree::walk(data.as_raw(), data::DATA_BOUNDS) }
            .map(|tree| rb_self.schema.evaluate_instance(tree.root()))
            .map_err(|e| data_error(ruby, e))?;
        let out = match format.as_str() {
            "flag" => evaluation.flag(),
            "detailed" => evaluation.detailed(),
            "verbose" => evaluation.verbose(),
            _ => evaluation.basic(),
        };
        output::value(ruby, &out)
    }
}

/// Runs `f` on a String's bytes: in place with the GVL held for a short text; for a long
/// one, on a copy with the GVL released (other Ruby threads run meanwhile).
fn with_text<R: Send>(text: RString, f: impl Fn(&[u8]) -> R + Sync) -> R {
    // SAFETY: the bytes are read before any Ruby code can run (GVL held).
    let bytes = unsafe { text.as_slice() };
    if bytes.len() < GVL_RELEASE_BYTES {
        return f(bytes);
    }
    let copy = bytes.to_vec();
    without_gvl(|| f(&copy))
}

/// `rb_thread_call_without_gvl`: `f` runs with the GVL released. `f` touches no Ruby
/// object and cannot be interrupted (it is bounded by the engine's budgets).
fn without_gvl<R: Send, F: FnOnce() -> R>(f: F) -> R {
    struct Call<F, R> {
        f: Option<F>,
        out: Option<std::thread::Result<R>>,
    }
    unsafe extern "C" fn trampoline<F: FnOnce() -> R, R>(
        arg: *mut std::ffi::c_void,
    ) -> *mut std::ffi::c_void {
        // SAFETY: `arg` is the `Call` below, alive for the whole call.
        let call = unsafe { &mut *(arg as *mut Call<F, R>) };
        if let Some(f) = call.f.take() {
            call.out = Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        }
        std::ptr::null_mut()
    }
    let mut call = Call {
        f: Some(f),
        out: None,
    };
    // SAFETY: the trampoline matches the signature and `call` outlives the call; no
    // unblocking function (the work is bounded).
    unsafe {
        rb_sys::rb_thread_call_without_gvl(
            Some(trampoline::<F, R>),
            &mut call as *mut Call<F, R> as *mut std::ffi::c_void,
            None,
            std::ptr::null_mut(),
        );
    }
    match call.out {
        Some(Ok(r)) => r,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        // (The trampoline always runs.)
        None => unreachable!("rb_thread_call_without_gvl did not call its function"),
    }
}

#[magnus::init]
fn init(ruby: &Ruby) -> Result<(), Error> {
    // Callable from any Ractor: the methods read only their arguments and the immutable
    // validator, and the classes they look up are resolved here, on the main Ractor.
    // SAFETY: called during the extension's initialisation, before any method is defined.
    unsafe { rb_sys::rb_ext_ractor_safe(true) };
    let module = ruby.get_inner(&MODULE);
    output::resolve_classes(ruby);
    let validator = module.define_class("Validator", ruby.class_object())?;
    validator.undef_default_alloc_func();
    validator.define_singleton_method("__new", function!(Validator::new, 8))?;
    validator.define_method("valid?", method!(Validator::valid, 1))?;
    validator.define_method("validate", method!(Validator::validate, 1))?;
    validator.define_method("valid_json?", method!(Validator::valid_json, 1))?;
    validator.define_method("validate_json", method!(Validator::validate_json, 1))?;
    validator.define_private_method("__evaluate", method!(Validator::evaluate, 2))?;
    Ok(())
}
