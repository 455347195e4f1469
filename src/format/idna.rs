//! IDNA2008 label rules (RFC 5891 section 5.4, RFC 5892, RFC 5893) and
//! Punycode (RFC 3492), without allocation.
//!
//! Per-code-point data comes from [`super::idna_tables`], generated from the
//! Unicode Character Database by `gen_idna_tables.py`.

use super::idna_tables::{STARTS, VALUES};

/// Longest A-label (RFC 5890 section 2.3.2.1: a label is at most 63 octets).
pub(super) const MAX_LABEL: usize = 63;

/// RFC 5892 derived property values.
const PVALID: u16 = 0;
const CONTEXTJ: u16 = 1;
const CONTEXTO: u16 = 2;

/// Bidi classes, numbered as in the generator.
const BIDI_L: u16 = 0;
const BIDI_R: u16 = 1;
const BIDI_AL: u16 = 2;
const BIDI_EN: u16 = 3;
const BIDI_ES: u16 = 4;
const BIDI_ET: u16 = 5;
const BIDI_AN: u16 = 6;
const BIDI_CS: u16 = 7;
const BIDI_NSM: u16 = 8;
const BIDI_BN: u16 = 9;
const BIDI_ON: u16 = 10;

/// Joining types, numbered as in the generator.
const JOIN_L: u16 = 1;
const JOIN_R: u16 = 2;
const JOIN_D: u16 = 3;
const JOIN_T: u16 = 4;

/// Scripts, numbered as in the generator.
const GREEK: u16 = 1;
const HEBREW: u16 = 2;
const HIRAGANA: u16 = 3;
const KATAKANA: u16 = 4;
const HAN: u16 = 5;

/// The packed properties of one code point.
#[derive(Clone, Copy)]
struct Props(u16);

impl Props {
    fn of(c: char) -> Props {
        let cp = u32::from(c);
        let index = STARTS
            .partition_point(|&start| start <= cp)
            .saturating_sub(1);
        Props(VALUES.get(index).copied().unwrap_or(3))
    }
    fn class(self) -> u16 {
        self.0 & 0b111
    }
    fn bidi(self) -> u16 {
        (self.0 >> 3) & 0b1111
    }
    fn joining(self) -> u16 {
        (self.0 >> 7) & 0b111
    }
    fn script(self) -> u16 {
        (self.0 >> 10) & 0b111
    }
    fn is_virama(self) -> bool {
        self.0 & (1 << 13) != 0
    }
    fn is_mark(self) -> bool {
        self.0 & (1 << 14) != 0
    }
}

/// What the domain-level Bidi rule needs to know about one valid label.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LabelBidi {
    /// The label holds an R, AL or AN character (RFC 5893 section 1.4).
    pub(super) has_rtl: bool,
    /// The label satisfies the six conditions of RFC 5893 section 2.
    pub(super) satisfies_rule: bool,
}

/// Checks one U-label (given as code points) against RFC 5891 section 5.4
/// and RFC 5892 appendix A, and reports its Bidi facts.
///
/// NFC is not required: the official test suite accepts a decomposed
/// `cafe\u{301}` label in an `idn-email`, and checking it would need the
/// normalization tables.
pub(super) fn check_label(label: &[char]) -> Option<LabelBidi> {
    let first = *label.first()?;
    // RFC 5891 section 4.2.3.1: no leading or trailing hyphen, no "--" in positions 3-4.
    if first == '-'
        || label.last() == Some(&'-')
        || (label.get(2) == Some(&'-') && label.get(3) == Some(&'-'))
    {
        return None;
    }
    // Section 4.2.3.2: no leading combining mark.
    if Props::of(first).is_mark() {
        return None;
    }
    for (i, &c) in label.iter().enumerate() {
        let ok = match Props::of(c).class() {
            PVALID => true,
            CONTEXTJ => context_j(label, i),
            CONTEXTO => context_o(label, i, c),
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    Some(bidi(label))
}

fn before(label: &[char], i: usize) -> Option<Props> {
    label.get(i.checked_sub(1)?).map(|&c| Props::of(c))
}

fn after(label: &[char], i: usize) -> Option<Props> {
    label.get(i + 1).map(|&c| Props::of(c))
}

/// RFC 5892 appendix A.1 and A.2 (ZERO WIDTH NON-JOINER and JOINER).
fn context_j(label: &[char], i: usize) -> bool {
    if before(label, i).is_some_and(Props::is_virama) {
        return true;
    }
    if label.get(i) != Some(&'\u{200C}') {
        return false;
    }
    // (Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})
    let left = label
        .get(..i)
        .unwrap_or(&[])
        .iter()
        .rev()
        .map(|&c| Props::of(c).joining())
        .find(|&j| j != JOIN_T);
    let right = label
        .get(i + 1..)
        .unwrap_or(&[])
        .iter()
        .map(|&c| Props::of(c).joining())
        .find(|&j| j != JOIN_T);
    matches!(left, Some(JOIN_L | JOIN_D)) && matches!(right, Some(JOIN_R | JOIN_D))
}

/// RFC 5892 appendix A.3 to A.9.
fn context_o(label: &[char], i: usize, c: char) -> bool {
    match c {
        '\u{00B7}' => i > 0 && label.get(i - 1) == Some(&'l') && label.get(i + 1) == Some(&'l'),
        '\u{0375}' => after(label, i).is_some_and(|p| p.script() == GREEK),
        '\u{05F3}' | '\u{05F4}' => before(label, i).is_some_and(|p| p.script() == HEBREW),
        '\u{30FB}' => label
            .iter()
            .any(|&c| matches!(Props::of(c).script(), HIRAGANA | KATAKANA | HAN)),
        '\u{0660}'..='\u{0669}' => !label.iter().any(|c| ('\u{06F0}'..='\u{06F9}').contains(c)),
        '\u{06F0}'..='\u{06F9}' => !label.iter().any(|c| ('\u{0660}'..='\u{0669}').contains(c)),
        _ => false,
    }
}

/// RFC 5893 section 2, evaluated for one label.
fn bidi(label: &[char]) -> LabelBidi {
    let class = |c: &char| Props::of(*c).bidi();
    let has_rtl = label
        .iter()
        .any(|c| matches!(class(c), BIDI_R | BIDI_AL | BIDI_AN));
    let last_strong = label.iter().rev().map(class).find(|&b| b != BIDI_NSM);
    let satisfies_rule = match label.first().map(class) {
        Some(BIDI_R | BIDI_AL) => {
            let allowed = label.iter().map(class).all(|b| {
                matches!(
                    b,
                    BIDI_R
                        | BIDI_AL
                        | BIDI_AN
                        | BIDI_EN
                        | BIDI_ES
                        | BIDI_CS
                        | BIDI_ET
                        | BIDI_ON
                        | BIDI_BN
                        | BIDI_NSM
                )
            });
            let has_en = label.iter().any(|c| class(c) == BIDI_EN);
            let has_an = label.iter().any(|c| class(c) == BIDI_AN);
            allowed
                && matches!(last_strong, Some(BIDI_R | BIDI_AL | BIDI_EN | BIDI_AN))
                && !(has_en && has_an)
        }
        Some(BIDI_L) => {
            let allowed = label.iter().map(class).all(|b| {
                matches!(
                    b,
                    BIDI_L | BIDI_EN | BIDI_ES | BIDI_CS | BIDI_ET | BIDI_ON | BIDI_BN | BIDI_NSM
                )
            });
            allowed && matches!(last_strong, Some(BIDI_L | BIDI_EN))
        }
        _ => false,
    };
    LabelBidi {
        has_rtl,
        satisfies_rule,
    }
}

// Punycode parameters, RFC 3492 section 5.
const BASE: u32 = 36;
const TMIN: u32 = 1;
const TMAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

fn adapt(mut delta: u32, num_points: u32, first_time: bool) -> u32 {
    delta /= if first_time { DAMP } else { 2 };
    delta += delta / num_points;
    let mut k = 0;
    while delta > ((BASE - TMIN) * TMAX) / 2 {
        delta /= BASE - TMIN;
        k += BASE;
    }
    k + (BASE - TMIN + 1) * delta / (delta + SKEW)
}

fn digit_value(b: u8) -> Option<u32> {
    match b {
        b'a'..=b'z' => Some(u32::from(b - b'a')),
        b'A'..=b'Z' => Some(u32::from(b - b'A')),
        b'0'..=b'9' => Some(u32::from(b - b'0') + 26),
        _ => None,
    }
}

fn digit_char(d: u32) -> u8 {
    match d {
        0..=25 => b'a' + d as u8,
        _ => b'0' + (d - 26) as u8,
    }
}

fn threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        TMIN
    } else if k >= bias + TMAX {
        TMAX
    } else {
        k - bias
    }
}

/// Decodes the Punycode `input` (the part after `xn--`) into `out`, returning
/// the number of code points; `None` if it is malformed or too long.
pub(super) fn punycode_decode(input: &[u8], out: &mut [char; MAX_LABEL]) -> Option<usize> {
    let (basic, encoded) = match input.iter().rposition(|&b| b == b'-') {
        Some(p) => (input.get(..p)?, input.get(p + 1..)?),
        None => (&[][..], input),
    };
    let mut len = 0;
    for &b in basic {
        if !b.is_ascii() {
            return None;
        }
        *out.get_mut(len)? = char::from(b);
        len += 1;
    }
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut pos = 0;
    while pos < encoded.len() {
        let old_i = i;
        let mut w = 1u32;
        let mut k = BASE;
        loop {
            let digit = digit_value(*encoded.get(pos)?)?;
            pos += 1;
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let count = u32::try_from(len + 1).ok()?;
        bias = adapt(i - old_i, count, old_i == 0);
        n = n.checked_add(i / count)?;
        i %= count;
        let c = char::from_u32(n)?;
        let at = i as usize;
        if len >= MAX_LABEL || at > len {
            return None;
        }
        out.copy_within(at..len, at + 1);
        *out.get_mut(at)? = c;
        len += 1;
        i += 1;
    }
    Some(len)
}

/// Encodes `input` as Punycode into `out` (RFC 3492 section 6.3), returning
/// the length; `None` if it does not fit.
pub(super) fn punycode_encode(input: &[char], out: &mut [u8; MAX_LABEL]) -> Option<usize> {
    let mut len = 0;
    let mut push = |b: u8, len: &mut usize| -> Option<()> {
        *out.get_mut(*len)? = b;
        *len += 1;
        Some(())
    };
    for &c in input {
        if c.is_ascii() {
            push(c as u8, &mut len)?;
        }
    }
    let basic = len as u32;
    let mut handled = basic;
    if basic > 0 {
        push(b'-', &mut len)?;
    }
    let total = u32::try_from(input.len()).ok()?;
    let (mut n, mut delta, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    while handled < total {
        let m = input
            .iter()
            .map(|&c| u32::from(c))
            .filter(|&c| c >= n)
            .min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in input {
            let c = u32::from(c);
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    push(digit_char(t + (q - t) % (BASE - t)), &mut len)?;
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                push(digit_char(q), &mut len)?;
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    Some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(s: &str) -> Option<String> {
        let mut buf = ['\0'; MAX_LABEL];
        let n = punycode_decode(s.as_bytes(), &mut buf)?;
        Some(buf.get(..n)?.iter().collect())
    }

    fn encode(s: &str) -> Option<String> {
        let chars: Vec<char> = s.chars().collect();
        let mut buf = [0u8; MAX_LABEL];
        let n = punycode_encode(&chars, &mut buf)?;
        String::from_utf8(buf.get(..n)?.to_vec()).ok()
    }

    #[test]
    fn punycode_round_trips() {
        assert_eq!(decode("9n2bp8q").as_deref(), Some("실례"));
        assert_eq!(encode("실례").as_deref(), Some("9n2bp8q"));
        assert_eq!(encode("bücher").as_deref(), Some("bcher-kva"));
        assert_eq!(decode("bcher-kva").as_deref(), Some("bücher"));
        assert_eq!(decode("X"), None);
        assert_eq!(encode(&"ü".repeat(60)).map(|s| s.len()), Some(62));
        assert_eq!(encode(&"ü".repeat(70)), None);
    }

    #[test]
    fn labels() {
        let label = |s: &str| check_label(&s.chars().collect::<Vec<_>>()).is_some();
        assert!(label("실례"));
        assert!(label("l·l"));
        assert!(!label("a·l"));
        assert!(label("क्‍ष"));
        assert!(!label("क‍ष"));
        assert!(label("بي‌بي"));
        assert!(!label("〮실례"));
        assert!(!label("ab--c"));
        assert!(!label("A"));
    }
}
