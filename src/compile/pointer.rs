//! JSON Pointers (RFC 6901) and URI fragments that carry them.

use serde_json::Value;

/// Appends `/segment` to `pointer`, escaping `~` and `/`.
pub(crate) fn push(pointer: &mut String, segment: &str) {
    pointer.push('/');
    if !needs_escape(segment) {
        pointer.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Whether `segment` holds a '~' or a '/' (which a pointer escapes): eight bytes a step.
#[inline]
pub(crate) fn needs_escape(segment: &str) -> bool {
    /// Whether some byte of `word` is `byte` (the classic zero-byte test on `word ^ byte`).
    const fn has(word: u64, byte: u8) -> bool {
        const LOW: u64 = 0x0101_0101_0101_0101;
        let x = word ^ (LOW * byte as u64);
        x.wrapping_sub(LOW) & !x & (LOW << 7) != 0
    }
    let mut rest = segment.as_bytes();
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let word = u64::from_le_bytes(*word);
        if has(word, b'~') || has(word, b'/') {
            return true;
        }
        rest = tail;
    }
    rest.iter().any(|&b| b == b'~' || b == b'/')
}

/// `pointer` with `segments` appended.
pub(crate) fn join(pointer: &str, segments: &[&str]) -> String {
    let mut out = String::with_capacity(pointer.len() + 16);
    out.push_str(pointer);
    for s in segments {
        push(&mut out, s);
    }
    out
}

/// `pointer` as a URI fragment: characters a fragment may not hold are percent-encoded.
pub(crate) fn to_fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    push_fragment(&mut out, pointer);
    out
}

/// The bytes a URI fragment holds as they are (RFC 3986: unreserved, sub-delims, ':',
/// '@', '/', '?').
pub(crate) const FRAGMENT_SAFE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
                    | b'/'
                    | b'?'
            );
        b += 1;
    }
    table
};

/// Whether `text` holds only bytes a URI fragment may hold as they are.
pub(crate) fn fragment_safe(text: &str) -> bool {
    text.bytes().all(|b| FRAGMENT_SAFE[usize::from(b)])
}

/// Appends `pointer` to `out` as a URI fragment (see [`to_fragment`]).
pub(crate) fn push_fragment(out: &mut String, pointer: &str) {
    let allowed = |b: u8| FRAGMENT_SAFE[usize::from(b)];
    // Keyword locations seldom need escapes: copy them whole.
    if fragment_safe(pointer) {
        out.push_str(pointer);
        return;
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in pointer.bytes() {
        if allowed(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

/// Decodes `%XX` escapes in a URI fragment; `None` when the result is not UTF-8 or an
/// escape is malformed.
pub(crate) fn percent_decode(fragment: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !fragment.contains('%') {
        return Some(std::borrow::Cow::Borrowed(fragment));
    }
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(std::borrow::Cow::Owned)
}

/// Whether a (decoded) pointer is well formed: empty or `/`-led, every `~` escaped.
pub(crate) fn is_valid(pointer: &str) -> bool {
    if !(pointer.is_empty() || pointer.starts_with('/')) {
        return false;
    }
    let bytes = pointer.as_bytes();
    bytes
        .iter()
        .enumerate()
        .all(|(i, &b)| b != b'~' || matches!(bytes.get(i + 1), Some(b'0') | Some(b'1')))
}

/// The part of `pointer` below `prefix`, when `pointer` lies under it.
pub(crate) fn strip<'a>(pointer: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = pointer.strip_prefix(prefix)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// The value at `pointer` (decoded, well formed) in `root`, as RFC 6901 reads it: array
/// indices in decimal without leading zeros. Allocates only for a segment with escapes.
pub(crate) fn resolve<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    let Some(rest) = pointer.strip_prefix('/') else {
        return pointer.is_empty().then_some(root);
    };
    let mut at = root;
    // (One buffer for the segments with escapes, unescaped in one pass.)
    let mut unescaped = String::new();
    for segment in rest.split('/') {
        let key = if segment.contains('~') {
            unescaped.clear();
            let mut pieces = segment.split('~');
            unescaped.push_str(pieces.next().unwrap_or_default());
            for piece in pieces {
                // (`is_valid` has checked that each `~` is followed by `0` or `1`.)
                unescaped.push(if piece.starts_with('1') { '/' } else { '~' });
                unescaped.push_str(piece.get(1..).unwrap_or_default());
            }
            unescaped.as_str()
        } else {
            segment
        };
        at = match at {
            Value::Object(map) => map.get(key)?,
            Value::Array(items) => {
                let canonical = !key.starts_with('+') && (!key.starts_with('0') || key.len() == 1);
                items.get(key.parse::<usize>().ok().filter(|_| canonical)?)?
            }
            _ => return None,
        };
    }
    Some(at)
}

/// The parent pointer (`None` for the root).
pub(crate) fn parent(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|i| &pointer[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(join("", &["a/b", "c~d"]), "/a~1b/c~0d");
        assert_eq!(percent_decode("/%25foo%22").as_deref(), Some("/%foo\""));
        assert_eq!(percent_decode("%zz"), None);
        assert!(is_valid("/a~0b"));
        assert!(!is_valid("/a~2b"));
        assert_eq!(strip("/a/b", "/a"), Some("/b"));
        assert_eq!(strip("/ab", "/a"), None);
        assert_eq!(parent("/a/b"), Some("/a"));
        let doc = serde_json::json!({"a/b": {"c~d": [1, 2]}, "": 3});
        assert_eq!(resolve(&doc, ""), Some(&doc));
        assert_eq!(resolve(&doc, "/a~1b/c~0d/1"), Some(&serde_json::json!(2)));
        assert_eq!(resolve(&doc, "/"), Some(&serde_json::json!(3)));
        for missing in [
            "/a~1b/c~0d/01",
            "/a~1b/c~0d/+1",
            "/a~1b/c~0d/2",
            "/a/b",
            "a",
            "/x",
        ] {
            assert_eq!(resolve(&doc, missing), None, "{missing}");
            assert_eq!(resolve(&doc, missing), doc.pointer(missing), "{missing}");
        }
    }

    /// The word-at-a-time test sees '~' and '/' at every position of short and long
    /// segments, and nothing in segments without them (bytes near them included).
    #[test]
    fn escapes_are_found_anywhere() {
        for len in 0..24 {
            let plain: String = "abcdefghijklmnopqrstuvwxyz".chars().take(len).collect();
            assert!(!needs_escape(&plain), "{plain:?}");
            for near in ["}", "\u{7f}", ".", "0", "\u{e9}"] {
                assert!(!needs_escape(&format!("{plain}{near}{plain}")));
            }
            for at in 0..=len {
                for special in ['~', '/'] {
                    let mut text = plain.clone();
                    text.insert(at, special);
                    assert!(needs_escape(&text), "{text:?}");
                }
            }
        }
    }
}
