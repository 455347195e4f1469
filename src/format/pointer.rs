//! `json-pointer` (RFC 6901) and `relative-json-pointer`
//! (draft-handrews-relative-json-pointer-01).

/// RFC 6901 section 3: empty, or `/`-prefixed tokens where `~` is followed by `0` or `1`.
pub(super) fn is_json_pointer(value: &str) -> bool {
    let b = value.as_bytes();
    if b.first().is_some_and(|&c| c != b'/') {
        return false;
    }
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'~' {
            if !matches!(b.get(i + 1), Some(b'0' | b'1')) {
                return false;
            }
            i += 1;
        }
        i += 1;
    }
    true
}

/// `non-negative-integer ( "#" / json-pointer )`, the integer without
/// leading zeros.
pub(super) fn is_relative_json_pointer(value: &str) -> bool {
    let b = value.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || (digits > 1 && b.first() == Some(&b'0')) {
        return false;
    }
    match value.get(digits..) {
        Some("#") => true,
        Some(rest) => is_json_pointer(rest),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers() {
        assert!(is_json_pointer(""));
        assert!(is_json_pointer("/a~1b/~0"));
        assert!(!is_json_pointer("/~2"));
        assert!(!is_json_pointer("/~"));
        assert!(!is_json_pointer("#/a"));
    }

    #[test]
    fn relative_pointers() {
        assert!(is_relative_json_pointer("0#"));
        assert!(is_relative_json_pointer("120/foo"));
        assert!(!is_relative_json_pointer("01#"));
        assert!(!is_relative_json_pointer("0##"));
        assert!(!is_relative_json_pointer("-1"));
        assert!(!is_relative_json_pointer("1#/a"));
        assert!(!is_relative_json_pointer(""));
    }
}
