//! `uri`, `uri-reference` (RFC 3986 section 3 and 4.1) and `iri`,
//! `iri-reference` (RFC 3987 section 2.2), parsed by hand in one pass.

use super::ip;

/// RFC 3986 `URI`: an absolute URI with a scheme.
pub(super) fn is_uri(value: &str) -> bool {
    reference(value, false, true)
}

/// RFC 3986 `URI-reference`.
pub(super) fn is_uri_reference(value: &str) -> bool {
    reference(value, false, false)
}

/// RFC 3987 `IRI`.
pub(super) fn is_iri(value: &str) -> bool {
    reference(value, true, true)
}

/// RFC 3987 `IRI-reference`.
pub(super) fn is_iri_reference(value: &str) -> bool {
    reference(value, true, false)
}

/// RFC 3987 `ucschar` or `iprivate`.
pub(super) fn is_ucschar_or_private(c: char) -> bool {
    is_ucschar(c) || is_iprivate(c)
}

fn is_ucschar(c: char) -> bool {
    let c = u32::from(c);
    matches!(c, 0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF)
        || ((0x10000..=0xEFFFD).contains(&c)
            && (c & 0xFFFF) <= 0xFFFD
            && !(0xE0000..0xE1000).contains(&c))
}

fn is_iprivate(c: char) -> bool {
    matches!(u32::from(c), 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// Which component is being scanned; they differ in the extra characters allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    UserInfo,
    RegName,
    Path,
    Query,
    Fragment,
}

/// Whether every character of `s` may appear in `part`
/// (`pct-encoded`, `unreserved`, `sub-delims` and the part's extras; with
/// `iri`, also `ucschar`, and `iprivate` in the query).
fn valid_chars(s: &str, part: Part, iri: bool) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'%' => {
                if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
                {
                    return false;
                }
                i += 3;
                continue;
            }
            // unreserved
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {}
            // sub-delims
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' => {}
            b':' if part != Part::RegName => {}
            b'@' if matches!(part, Part::Path | Part::Query | Part::Fragment) => {}
            b'/' | b'?' if matches!(part, Part::Query | Part::Fragment) => {}
            b'/' if part == Part::Path => {}
            0x80.. if iri => {
                let Some(ch) = s.get(i..).and_then(|rest| rest.chars().next()) else {
                    return false;
                };
                if !(is_ucschar(ch) || (part == Part::Query && is_iprivate(ch))) {
                    return false;
                }
                i += ch.len_utf8();
                continue;
            }
            _ => return false,
        }
        i += 1;
    }
    true
}

/// `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`, or (unless
/// `absolute`) a `relative-ref`.
fn reference(value: &str, iri: bool, absolute: bool) -> bool {
    let (rest, fragment) = match value.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (value, None),
    };
    if fragment.is_some_and(|f| !valid_chars(f, Part::Fragment, iri)) {
        return false;
    }
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    if query.is_some_and(|q| !valid_chars(q, Part::Query, iri)) {
        return false;
    }
    // A scheme is whatever precedes the first ':' if no '/' comes earlier.
    let scheme_end = rest
        .find([':', '/'])
        .filter(|&p| rest.as_bytes().get(p) == Some(&b':'));
    let hier = match scheme_end {
        Some(p) => {
            let scheme = rest.get(..p).unwrap_or("").as_bytes();
            let valid_scheme = scheme.first().is_some_and(u8::is_ascii_alphabetic)
                && scheme
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
            if !valid_scheme {
                // RFC 3986 section 4.2: a relative path's first segment has no ':'.
                return false;
            }
            rest.get(p + 1..).unwrap_or("")
        }
        None if absolute => return false,
        None => rest,
    };
    let path = match hier.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            if !authority(after.get(..end).unwrap_or(""), iri) {
                return false;
            }
            after.get(end..).unwrap_or("")
        }
        None => hier,
    };
    valid_chars(path, Part::Path, iri)
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn authority(s: &str, iri: bool) -> bool {
    let host_port = match s.split_once('@') {
        Some((userinfo, host_port)) => {
            if !valid_chars(userinfo, Part::UserInfo, iri) {
                return false;
            }
            host_port
        }
        None => s,
    };
    let (host, port) = if let Some(literal) = host_port.strip_prefix('[') {
        let Some((inner, after)) = literal.split_once(']') else {
            return false;
        };
        if !ip_literal(inner) {
            return false;
        }
        match after {
            "" => return true,
            _ => match after.strip_prefix(':') {
                Some(port) => ("", port),
                None => return false,
            },
        }
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (host, port),
            None => (host_port, ""),
        }
    };
    port.bytes().all(|c| c.is_ascii_digit()) && valid_chars(host, Part::RegName, iri)
}

/// `IPv6address / IPvFuture` inside brackets.
fn ip_literal(s: &str) -> bool {
    let b = s.as_bytes();
    if let Some(rest) = b.strip_prefix(b"v").or_else(|| b.strip_prefix(b"V")) {
        let hex = rest.iter().take_while(|c| c.is_ascii_hexdigit()).count();
        let tail = rest.get(hex..).unwrap_or(&[]);
        return hex > 0
            && tail.first() == Some(&b'.')
            && tail.len() > 1
            && tail
                .iter()
                .skip(1)
                .all(|&c| c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:".contains(&c));
    }
    ip::is_ipv6_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        for ok in [
            "http://foo.bar/?baz=qux#quux",
            "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
            "ldap://[2001:db8::7]/c=GB?objectClass?one",
            "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
            "http://[V1.fe]",
            "file:/etc/hosts",
        ] {
            assert!(is_uri(ok), "{ok}");
        }
        for bad in [
            "//foo.bar",
            "abc",
            "http:// x",
            "bar,baz:foo",
            "http://example.com/%6G",
            "http://example.com:abc/",
            "http:/[::1]",
            "http://[::ffff:01.2.3.4]",
        ] {
            assert!(!is_uri(bad), "{bad}");
        }
    }

    #[test]
    fn references() {
        for ok in ["", "//", "?q=1", "#f", "./this:that", "/abc"] {
            assert!(is_uri_reference(ok), "{ok}");
        }
        for bad in ["1:b", "//a@b@example.com/", "#frag\\ment", "/[::1]"] {
            assert!(!is_uri_reference(bad), "{bad}");
        }
    }

    #[test]
    fn iris() {
        assert!(is_iri("http://ƒøø.ßår/?∂éœ=πîx#πîüx"));
        assert!(is_iri("http://ƒøø.ßår/?q=\u{F0000}"));
        assert!(!is_iri("http://ƒøø.ßår/\u{F0000}"));
        assert!(is_iri_reference("âππ"));
        assert!(!is_uri_reference("âππ"));
    }
}
