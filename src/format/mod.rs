//! Checkers for the `format` keyword.
//!
//! STUB: to be replaced by the full set of 2020-12 formats (see issue 4).

/// Checks `value` against the built-in format `name`.
///
/// Returns `None` when the format is unknown (an annotation only), else whether it conforms.
pub(crate) fn check(name: &str, value: &str) -> Option<bool> {
    let _ = (name, value);
    None
}
