//! URI references resolved per RFC 3986, for `$id`, `$ref` and registered documents.

use fluent_uri::{Uri, UriRef};

/// The base URI of a document that declares none.
pub(crate) const DEFAULT_BASE: &str = "json-schema:///";

/// Resolves `reference` against the absolute `base` (which has no fragment), returning a
/// normalized absolute URI that may carry a fragment.
pub(crate) fn resolve(reference: &str, base: &str) -> Result<String, String> {
    if let Some(fragment) = plain_fragment(reference, base) {
        return Ok(format!("{base}#{fragment}"));
    }
    let reference_parsed = UriRef::parse(reference)
        .map_err(|e| format!("{reference:?} is not a URI reference: {e}"))?;
    if reference_parsed.has_scheme() {
        return Ok(reference_parsed.normalize().to_string());
    }
    let base_parsed = Uri::parse(base).map_err(|e| format!("base {base:?} is not a URI: {e}"))?;
    reference_parsed
        .resolve_against(&base_parsed)
        .map(|u| u.normalize().to_string())
        .map_err(|e| format!("{reference:?} cannot be resolved against {base:?}: {e}"))
}

/// The fragment of a fragment-only `reference`, which keeps `base` as it is (RFC 3986,
/// 5.2.2): no parsing. `None` for any other reference, and for fragments with characters
/// a URI may not hold (they go the long way, to be refused).
pub(crate) fn plain_fragment<'r>(reference: &'r str, base: &str) -> Option<&'r str> {
    let fragment = reference.strip_prefix('#')?;
    let plain = !base.contains('#')
        && fragment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?%".contains(&b));
    plain.then_some(fragment)
}

/// Normalizes an absolute URI given by a caller (registered documents).
pub(crate) fn normalize(uri: &str) -> Result<String, String> {
    let parsed = Uri::parse(uri).map_err(|e| format!("{uri:?} is not an absolute URI: {e}"))?;
    Ok(parsed.normalize().to_string())
}

/// Splits `uri#fragment`; the fragment is `""` when absent or empty.
pub(crate) fn split_fragment(uri: &str) -> (&str, &str) {
    match uri.find('#') {
        Some(i) => (&uri[..i], &uri[i + 1..]),
        None => (uri, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution() {
        assert_eq!(
            resolve("foo.json#/a", "http://x.com/dir/base.json").as_deref(),
            Ok("http://x.com/dir/foo.json#/a")
        );
        assert_eq!(
            resolve("#a", DEFAULT_BASE).as_deref(),
            Ok("json-schema:///#a")
        );
        assert_eq!(
            resolve("#/x", "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed").as_deref(),
            Ok("urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/x")
        );
        assert!(resolve("foo", "urn:example:x").is_err());
        assert_eq!(split_fragment("a#b"), ("a", "b"));
    }
}
