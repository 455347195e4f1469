//! `uri-template` (RFC 6570 section 2, any level).

use super::uri::is_ucschar_or_private;

/// Literals and `{...}` expressions.
///
/// The apostrophe is accepted in literals: RFC 6570's prose excludes it but
/// its ABNF range `%x28-3B` does not start at it, and the official test
/// suite accepts `a'b`.
pub(super) fn is_uri_template(value: &str) -> bool {
    let b = value.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'{' => {
                let Some(len) = b
                    .get(i + 1..)
                    .and_then(|rest| rest.iter().position(|&c| c == b'}'))
                else {
                    return false;
                };
                if !expression(b.get(i + 1..i + 1 + len).unwrap_or(&[])) {
                    return false;
                }
                i += len + 2;
            }
            b'%' => {
                if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
                {
                    return false;
                }
                i += 3;
            }
            0x21
            | 0x23..=0x24
            | 0x26..=0x3B
            | 0x3D
            | 0x3F..=0x5B
            | 0x5D
            | 0x5F
            | 0x61..=0x7A
            | 0x7E => i += 1,
            0x80.. => {
                let Some(ch) = value.get(i..).and_then(|s| s.chars().next()) else {
                    return false;
                };
                if !is_ucschar_or_private(ch) {
                    return false;
                }
                i += ch.len_utf8();
            }
            _ => return false,
        }
    }
    true
}

/// `[ operator ] variable-list`, the text between the braces.
fn expression(b: &[u8]) -> bool {
    // Level 2 and 3 operators; "=,!@|" are reserved and so rejected.
    let b = match b.first() {
        Some(b'+' | b'#' | b'.' | b'/' | b';' | b'?' | b'&') => b.get(1..).unwrap_or(&[]),
        _ => b,
    };
    b.split(|&c| c == b',').all(varspec)
}

/// `varname [ ":" max-length / "*" ]`.
fn varspec(b: &[u8]) -> bool {
    let (name, modifier) = match b.iter().position(|&c| c == b':' || c == b'*') {
        Some(p) => (b.get(..p).unwrap_or(&[]), b.get(p..).unwrap_or(&[])),
        None => (b, &[][..]),
    };
    let modifier_ok = match modifier {
        [] | [b'*'] => true,
        [b':', first, rest @ ..] => {
            (b'1'..=b'9').contains(first) && rest.len() <= 3 && rest.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    };
    modifier_ok && varname(name)
}

/// `varchar *( ["."] varchar )`, `varchar = ALPHA / DIGIT / "_" / pct-encoded`.
fn varname(b: &[u8]) -> bool {
    let mut i = 0;
    let mut last_was_char = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'.' if last_was_char => {
                last_was_char = false;
                i += 1;
                continue;
            }
            b'%' if b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
            {
                i += 3;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' => i += 1,
            _ => return false,
        }
        last_was_char = true;
    }
    last_was_char
}

#[cfg(test)]
mod tests {
    use super::is_uri_template;

    #[test]
    fn templates() {
        for ok in [
            "",
            "http://example.com/{term:1}/{term}",
            "{+var}",
            "{x,y*}",
            "{a.b}",
            "{%41}",
            "{v:1000}",
            "a'b",
        ] {
            assert!(is_uri_template(ok), "{ok}");
        }
        for bad in [
            "{}",
            "{a,,b}",
            "{v:0}",
            "{v:10000}",
            "foo}bar",
            "{a..b}",
            "{v:01}",
            "a b",
            "{var=def}",
            "{,+var}",
            "{a.}",
            "{",
        ] {
            assert!(!is_uri_template(bad), "{bad}");
        }
    }
}
