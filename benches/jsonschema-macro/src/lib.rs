//! jsonschema-rs's compile-time validators (`#[jsonschema::validator]`) for every schema of
//! the bench corpora, bench-report's column beside toolschema's generated validators.
//!
//! A crate of its own because the macro of the pinned jsonschema 0.61.2 cannot be built:
//! its feature `macros` needs `jsonschema-macros` 0.61.2, which the registry does not have
//! (0.60.2 is its latest). This crate uses jsonschema 0.60.2 with `macros` (the generated
//! code names `::jsonschema`, so the older release cannot be a renamed dependency of the
//! bench crate, which keeps 0.61.2 for its runtime columns).

use serde_json::Value;

/// A generated `is_valid`.
pub type Check = fn(&Value) -> bool;

#[allow(clippy::all, clippy::pedantic, unused)]
mod generated {
    use super::Check;
    include!(concat!(env!("OUT_DIR"), "/generated.rs"));
}

/// `#[jsonschema::validator]`'s `is_valid` for schema `index` of `case`.
pub fn is_valid_for(case: &str, index: usize) -> Option<Check> {
    generated::JSONSCHEMA
        .iter()
        .find(|(c, i, _)| *c == case && *i == index)
        .map(|&(_, _, f)| f)
}
