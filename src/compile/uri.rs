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
    if is_normal_absolute(reference) {
        return Ok(reference.to_string());
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

/// Whether `uri` is an absolute URI that normalizing leaves as it is, by a conservative
/// test that needs no parse (most `$id`s, like `https://example.com/schemas/a.json`, pass):
/// a lowercase scheme, `//`, a non-empty lowercase host of letters, digits, `.` and `-` (no
/// port, user or IP literal), a path of plain characters with no dot segment, and an
/// optional fragment of plain characters. No percent-encoding, no query.
fn is_normal_absolute(uri: &str) -> bool {
    // (A fragment's plain bytes are those a pointer keeps as they are in a fragment; a
    // path's, the same but `?`, which would start a query.)
    let plain = |b: u8| super::pointer::FRAGMENT_SAFE[usize::from(b)];
    // (Byte scans: a substring search's set-up costs more than the whole test.)
    let bytes = uri.as_bytes();
    let (uri, fragment) = match bytes.iter().position(|&b| b == b'#') {
        Some(i) => (&bytes[..i], &bytes[i + 1..]),
        None => (bytes, &[][..]),
    };
    let Some(colon) = uri.iter().position(|&b| b == b':') else {
        return false;
    };
    let (scheme, rest) = (&uri[..colon], &uri[colon + 1..]);
    let Some(rest) = rest.strip_prefix(b"//") else {
        return false;
    };
    let (host, path) = rest.split_at(rest.iter().position(|&b| b == b'/').unwrap_or(rest.len()));
    let scheme_ok = scheme.first().is_some_and(u8::is_ascii_lowercase)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+-.".contains(&b));
    let host_ok = !host.is_empty()
        && host
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    let path_ok = path.iter().all(|&b| b != b'?' && plain(b))
        && !path
            .split(|&b| b == b'/')
            .any(|segment| segment == b"." || segment == b"..");
    let fragment_ok = fragment.iter().all(|&b| plain(b));
    scheme_ok && host_ok && path_ok && fragment_ok
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
        assert_eq!(
            resolve("HTTP://Example.COM:80/a/./b/../c#f", DEFAULT_BASE).as_deref(),
            Ok("http://example.com/a/c#f")
        );
        assert_eq!(split_fragment("a#b"), ("a", "b"));
    }

    /// The shortcut for absolute URIs already normal answers what normalizing answers,
    /// and takes only URIs it leaves unchanged.
    #[test]
    fn normal_absolute_uris_skip_the_parse() {
        let cases = [
            "https://json.schemastore.org/chart-lock.json",
            "http://hl7.org/fhir/json-schema/4.0",
            "https://example.com/a/b#/definitions/x",
            "https://example.com",
            "https://example.com/",
            "urn:example:x",
            "HTTP://example.com/a",
            "http://Example.com/a",
            "http://example.com:80/a",
            "http://example.com:8080/a",
            "http://example.com/a/./b",
            "http://example.com/a/../b",
            "http://example.com/a/..",
            "http://example.com/%7Ea",
            "http://example.com/a?q=1",
            "http://user@example.com/a",
            "http://[::1]/a",
            "http://example.com/a#b c",
            "file:///tmp/a.json",
            "tag:example.com,2024:schemas/a",
        ];
        for uri in cases {
            let Ok(parsed) = UriRef::parse(uri) else {
                assert!(!is_normal_absolute(uri), "{uri}");
                continue;
            };
            let normal = parsed.normalize().to_string();
            if is_normal_absolute(uri) {
                assert_eq!(normal, uri, "{uri} is not normal");
            }
            assert_eq!(resolve(uri, DEFAULT_BASE), Ok(normal), "{uri}");
        }
        assert!(is_normal_absolute(
            "https://json.schemastore.org/chart-lock.json"
        ));
        assert!(!is_normal_absolute("http://example.com:80/a"));
        assert!(!is_normal_absolute("http://example.com/a/../b"));
    }
}
