//! Results as Ruby data: errors as `Toolschema::Error`s, standard output as Hashes.

use magnus::{Error, IntoValue, RArray, RClass, Ruby, Value, prelude::*, value::Lazy};
use serde_json::Value as Json;

static ERROR: Lazy<RClass> = Lazy::new(|ruby| {
    ruby.get_inner(&crate::MODULE)
        .const_get("Error")
        .expect("Toolschema::Error is defined before the extension loads")
});

/// Resolves the classes looked up lazily, once, at load time (on the main Ractor).
pub(crate) fn resolve_classes(ruby: &Ruby) {
    let _ = ruby.get_inner(&ERROR);
}

/// Every error as a `Toolschema::Error` (locations, kind, message: never a value).
pub(crate) fn errors<'e>(
    ruby: &Ruby,
    errors: impl ExactSizeIterator<Item = &'e toolschema::ValidationError>,
) -> Result<RArray, Error> {
    let class = ruby.get_inner(&ERROR);
    let out = ruby.ary_new_capa(errors.len());
    for e in errors {
        let keyword = e.kind().keyword();
        let kind = ruby.to_symbol(if keyword.is_empty() {
            "budget"
        } else {
            keyword
        });
        let one: Value = class.funcall(
            "new",
            (
                e.instance_location(),
                e.keyword_location(),
                kind,
                e.message(),
            ),
        )?;
        out.push(one)?;
    }
    Ok(out)
}

/// A JSON value as Ruby data (String keys), for the standard output formats. Its depth
/// is the output's (a few levels per error), so recursion is bounded.
pub(crate) fn value(ruby: &Ruby, v: &Json) -> Result<Value, Error> {
    Ok(match v {
        Json::Null => ruby.qnil().as_value(),
        Json::Bool(b) => b.into_value_with(ruby),
        Json::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_value_with(ruby)
            } else if let Some(i) = n.as_i64() {
                i.into_value_with(ruby)
            } else {
                n.as_f64().unwrap_or(0.0).into_value_with(ruby)
            }
        }
        Json::String(s) => s.as_str().into_value_with(ruby),
        Json::Array(items) => {
            let out = ruby.ary_new_capa(items.len());
            for item in items {
                out.push(value(ruby, item)?)?;
            }
            out.as_value()
        }
        Json::Object(map) => {
            let out = ruby.hash_new();
            for (k, item) in map {
                out.aset(k.as_str(), value(ruby, item)?)?;
            }
            out.as_value()
        }
    })
}
