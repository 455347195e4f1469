//! `email` (RFC 5321 section 4.1.2 `Mailbox`) and `idn-email` (RFC 6531 section 3.3).

use super::{hostname, ip};

/// Longest local part, in octets (RFC 5321 section 4.5.3.1.1).
const MAX_LOCAL: usize = 64;

/// `Local-part "@" ( Domain / address-literal )` in ASCII.
pub(super) fn is_email(value: &str) -> bool {
    value.is_ascii() && mailbox(value, false)
}

/// As [`is_email`], with UTF-8 allowed in the local part (RFC 6531
/// `atext =/ UTF8-non-ascii`, `qtextSMTP =/ UTF8-non-ascii`) and an
/// internationalized domain.
pub(super) fn is_idn_email(value: &str) -> bool {
    mailbox(value, true)
}

fn mailbox(value: &str, international: bool) -> bool {
    // The domain part never holds '@', so the last one separates the parts.
    let Some((local, domain)) = value.rsplit_once('@') else {
        return false;
    };
    if local.len() > MAX_LOCAL || !local_part(local.as_bytes(), international) {
        return false;
    }
    if let Some(literal) = domain.strip_prefix('[') {
        return literal.strip_suffix(']').is_some_and(address_literal);
    }
    if international {
        hostname::is_idn_hostname(domain)
    } else {
        hostname::is_hostname(domain)
    }
}

/// `Dot-string / Quoted-string`.
fn local_part(b: &[u8], international: bool) -> bool {
    if let Some(quoted) = b.strip_prefix(b"\"") {
        let Some(inner) = quoted.strip_suffix(b"\"") else {
            return false;
        };
        let mut i = 0;
        while let Some(&c) = inner.get(i) {
            match c {
                // quoted-pairSMTP = %d92 %d32-126
                b'\\' => {
                    if !inner.get(i + 1).is_some_and(|&n| (32..=126).contains(&n)) {
                        return false;
                    }
                    i += 1;
                }
                // qtextSMTP = %d32-33 / %d35-91 / %d93-126
                32..=33 | 35..=91 | 93..=126 => {}
                0x80.. if international => {}
                _ => return false,
            }
            i += 1;
        }
        return true;
    }
    // Dot-string = Atom *("." Atom)
    !b.is_empty()
        && b.split(|&c| c == b'.').all(|atom| {
            !atom.is_empty()
                && atom.iter().all(|&c| {
                    c.is_ascii_alphanumeric()
                        || b"!#$%&'*+-/=?^_`{|}~".contains(&c)
                        || (international && c >= 0x80)
                })
        })
}

/// `IPv4-address-literal / IPv6-address-literal`; no General-address-literal
/// tags are registered, so none is accepted.
fn address_literal(literal: &str) -> bool {
    match literal.get(..5) {
        Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => literal.get(5..).is_some_and(ip::is_ipv6),
        _ => ip::is_ipv4(literal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert!(is_email("joe.bloggs@example.com"));
        assert!(is_email("\"joe@bloggs\"@example.com"));
        assert!(is_email("joe@[IPv6:::1]"));
        assert!(is_email("joe@[127.0.0.1]"));
        assert!(!is_email("joe@[127.0.0.300]"));
        assert!(!is_email("te..st@example.com"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("joe@"));
        assert!(!is_email("δοκιμή@example.com"));
        assert!(!is_email(&format!("{}@example.com", "a".repeat(65))));
    }

    #[test]
    fn idn_emails() {
        assert!(is_idn_email("실례@실례.테스트"));
        assert!(is_idn_email("\"δοκιμή\"@example.com"));
        assert!(!is_idn_email("user＠example.com"));
    }
}
