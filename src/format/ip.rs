//! `ipv4` (RFC 2673 section 3.2 dotted-quad) and `ipv6` (RFC 4291 section 2.2).

/// One `dec-octet` (RFC 3986 section 3.2.2): 0-255 without leading zeros.
fn dec_octet(b: &[u8]) -> bool {
    match b {
        [d] => d.is_ascii_digit(),
        [b'1'..=b'9', d] => d.is_ascii_digit(),
        [b'1', d, e] => d.is_ascii_digit() && e.is_ascii_digit(),
        [b'2', b'0'..=b'4', e] => e.is_ascii_digit(),
        [b'2', b'5', b'0'..=b'5'] => true,
        _ => false,
    }
}

/// Four dot-separated decimal octets, no leading zeros.
pub(super) fn is_ipv4_bytes(b: &[u8]) -> bool {
    let mut parts = 0;
    for part in b.split(|&c| c == b'.') {
        parts += 1;
        if parts > 4 || !dec_octet(part) {
            return false;
        }
    }
    parts == 4
}

/// RFC 2673 dotted-quad.
pub(super) fn is_ipv4(value: &str) -> bool {
    is_ipv4_bytes(value.as_bytes())
}

/// RFC 4291 text form: eight 16-bit hex groups, one `::` for a run of zero
/// groups, and optionally a trailing dotted-quad for the last two groups.
/// Zone ids and prefixes are not part of an address.
pub(super) fn is_ipv6_bytes(b: &[u8]) -> bool {
    let mut groups = 0;
    let mut compressed = false;
    let mut i = 0;
    if b.starts_with(b"::") {
        compressed = true;
        i = 2;
        if b.len() == 2 {
            return true;
        }
    } else if b.first() == Some(&b':') {
        return false;
    }
    loop {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_hexdigit) {
            i += 1;
        }
        match b.get(i) {
            Some(b'.') => {
                // A dotted-quad takes the place of the last two groups.
                return b.get(start..).is_some_and(is_ipv4_bytes)
                    && if compressed {
                        groups + 2 <= 7
                    } else {
                        groups + 2 == 8
                    };
            }
            _ if i == start || i - start > 4 => return false,
            None => {
                groups += 1;
                break;
            }
            Some(b':') => {
                groups += 1;
                i += 1;
                if b.get(i) == Some(&b':') {
                    if compressed {
                        return false;
                    }
                    compressed = true;
                    i += 1;
                    if i == b.len() {
                        break;
                    }
                }
            }
            Some(_) => return false,
        }
        if groups > 8 {
            return false;
        }
    }
    if compressed { groups <= 7 } else { groups == 8 }
}

/// RFC 4291 section 2.2.
pub(super) fn is_ipv6(value: &str) -> bool {
    is_ipv6_bytes(value.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4() {
        assert!(is_ipv4("0.0.0.0"));
        assert!(is_ipv4("255.255.255.255"));
        assert!(!is_ipv4("256.1.1.1"));
        assert!(!is_ipv4("01.1.1.1"));
        assert!(!is_ipv4("1.1.1"));
        assert!(!is_ipv4("1.1.1.1."));
    }

    #[test]
    fn v6() {
        for ok in [
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "1::2:3:4:5:6:7",
        ] {
            assert!(is_ipv6(ok), "{ok}");
        }
        for bad in [
            ":::",
            "1:2:3:4:5:6:7",
            "1::2::3",
            ":1::",
            "1:",
            "::1.2.3",
            "1:2:3:4:5:6:7:1.2.3.4",
            "::12345",
            "1::2:3:4:5:6:7:8",
            "fe80::1%eth0",
        ] {
            assert!(!is_ipv6(bad), "{bad}");
        }
    }
}
