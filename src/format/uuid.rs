//! `uuid`: the RFC 4122 string form, any version and variant.

/// `8-4-4-4-12` hex digits, either case.
pub(super) fn is_uuid(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::is_uuid;

    #[test]
    fn uuids() {
        assert!(is_uuid("2EB8AA08-AA98-11EA-B4AA-73B441D16380"));
        assert!(is_uuid("99c17cbb-656f-f64a-940f-1a4568f03487"));
        assert!(!is_uuid("2eb8aa08-aa98-11ea-b4aa-73b441d1638"));
        assert!(!is_uuid("2eb8aa08aa9811eab4aa73b441d16380----"));
    }
}
