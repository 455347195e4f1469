//! `hostname` (RFC 1123 section 2.1, with A-labels per RFC 5890 section 2.3.2.1)
//! and `idn-hostname` (RFC 5890 to 5893, IDNA2008).

use super::idna::{self, LabelBidi, MAX_LABEL};

/// Longest name in text form: 255 octets on the wire less the length octets
/// of the first label and of the root.
const MAX_NAME: usize = 253;

/// An ASCII hostname: LDH labels of 1 to 63 octets, no hyphen at either end;
/// a label starting `xn--` must be a valid A-label. Other labels with `--`
/// in positions 3-4 (reserved by RFC 5890 section 2.3.1) pass, as RFC 1123
/// allows them and the draft-04/06 suites expect.
pub(super) fn is_hostname(value: &str) -> bool {
    if value.is_empty() || value.len() > MAX_NAME || !value.is_ascii() {
        return false;
    }
    let mut domain = DomainBidi::default();
    value
        .split('.')
        .all(|label| ascii_label(label.as_bytes(), false, &mut domain))
        && domain.ok()
}

/// An internationalized hostname: labels separated by any of the four dots
/// of RFC 3490 section 3.1, each an NR-LDH label, an A-label or a U-label.
pub(super) fn is_idn_hostname(value: &str) -> bool {
    if value.is_empty() {
        return false;
    }
    let mut domain = DomainBidi::default();
    let mut total = 0usize;
    let mut labels = 0usize;
    for label in value.split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}']) {
        labels += 1;
        let octets = if label.is_ascii() {
            if !ascii_label(label.as_bytes(), true, &mut domain) {
                return false;
            }
            label.len()
        } else {
            match unicode_label(label, &mut domain) {
                Some(octets) => octets,
                None => return false,
            }
        };
        total += octets;
    }
    // Dots between labels count once each.
    total + labels - 1 <= MAX_NAME && domain.ok()
}

/// Accumulates the Bidi rule across labels (RFC 5893 section 2: in a domain
/// name with any RTL label, every label must satisfy the rule).
#[derive(Default)]
struct DomainBidi {
    any_rtl: bool,
    all_satisfy: bool,
    seen: bool,
}

impl DomainBidi {
    fn add(&mut self, label: LabelBidi) {
        self.all_satisfy = (self.all_satisfy || !self.seen) && label.satisfies_rule;
        self.seen = true;
        self.any_rtl |= label.has_rtl;
    }

    fn ok(&self) -> bool {
        !self.any_rtl || self.all_satisfy
    }
}

/// An all-ASCII label: LDH rules, and A-label rules when it starts `xn--`;
/// with `idna`, other labels with `--` in positions 3-4 are refused.
fn ascii_label(b: &[u8], idna: bool, domain: &mut DomainBidi) -> bool {
    if b.is_empty() || b.len() > MAX_LABEL || b.first() == Some(&b'-') || b.last() == Some(&b'-') {
        return false;
    }
    if !b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-') {
        return false;
    }
    let xn = b.get(..4).is_some_and(|p| p.eq_ignore_ascii_case(b"xn--"));
    if !xn && (!idna || b.get(2..4) != Some(b"--")) {
        // An NR-LDH label is left-to-right: letters are L, digits EN and the
        // hyphen ES, so RFC 5893 rules 5 and 6 hold and rule 1 needs a letter first.
        domain.add(LabelBidi {
            has_rtl: false,
            satisfies_rule: b.first().is_some_and(u8::is_ascii_alphabetic),
        });
        return true;
    }
    // "--" in positions 3-4 is reserved (RFC 5890 section 2.3.1) unless it
    // is an A-label: "xn--" and Punycode that decodes to a valid U-label
    // with some non-ASCII and encodes back to the same text.
    let Some(encoded) = b.get(4..).filter(|_| xn) else {
        return false;
    };
    let mut decoded = ['\0'; MAX_LABEL];
    let Some(len) = idna::punycode_decode(encoded, &mut decoded) else {
        return false;
    };
    let label = decoded.get(..len).unwrap_or(&[]);
    if label.iter().all(char::is_ascii) {
        return false;
    }
    let mut reencoded = [0u8; MAX_LABEL];
    match idna::punycode_encode(label, &mut reencoded) {
        Some(n)
            if reencoded
                .get(..n)
                .is_some_and(|r| r.eq_ignore_ascii_case(encoded)) => {}
        _ => return false,
    }
    match idna::check_label(label) {
        Some(bidi) => {
            domain.add(bidi);
            true
        }
        None => false,
    }
}

/// A U-label; returns the length of its A-label form.
fn unicode_label(label: &str, domain: &mut DomainBidi) -> Option<usize> {
    let mut chars = ['\0'; MAX_LABEL];
    let mut len = 0;
    for c in label.chars() {
        *chars.get_mut(len)? = c;
        len += 1;
    }
    let chars = chars.get(..len)?;
    let bidi = idna::check_label(chars)?;
    let mut encoded = [0u8; MAX_LABEL];
    let n = idna::punycode_encode(chars, &mut encoded)?;
    let octets = n + 4;
    if octets > MAX_LABEL {
        return None;
    }
    domain.add(bidi);
    Some(octets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_hostnames() {
        assert!(is_hostname("www.example.com"));
        assert!(is_hostname("a--b.com"));
        assert!(is_hostname("xn--9n2bp8q.xn--9t4b11yi5a"));
        assert!(is_hostname("ab--cd.com"));
        assert!(!is_idn_hostname("ab--cd.com"));
        assert!(!is_hostname("xn--X"));
        assert!(!is_hostname("xn---9uc"));
        assert!(!is_hostname("example.com."));
        assert!(!is_hostname(&"a".repeat(64)));
    }

    #[test]
    fn idn_hostnames() {
        assert!(is_idn_hostname("실례.테스트"));
        assert!(is_idn_hostname("a。b"));
        assert!(!is_idn_hostname("0a.א"));
        assert!(!is_idn_hostname("aא"));
        assert!(!is_idn_hostname(&"ü".repeat(59)));
        assert!(!is_idn_hostname("a..b"));
    }
}
