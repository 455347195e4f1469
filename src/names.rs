//! Fast lookup of property names: a 64-bit signature per name, compared before the bytes.
//!
//! Looking an instance key up among a schema's declared names is the commonest operation
//! on objects. Comparing strings byte-wise (a binary search, a `BTreeMap` lookup) costs a
//! `memcmp` call per probe; a signature costs two loads and a multiply per key, and then
//! one probe compares integers. The bytes are compared only when signatures agree, which
//! is almost always the one real match.

/// A well-mixed 64-bit summary of `s`: its length and its first and last bytes (up to
/// eight each). Equal strings have equal signatures. Two different strings under
/// [`EXACT_BELOW`] bytes never do, and such a string never shares one with a longer
/// string (see [`same_found`]); longer strings rarely do.
#[inline(always)]
pub(crate) const fn signature(s: &str) -> u64 {
    mix(summary(s))
}

/// Spreads a [`summary`] over all 64 bits, for hash tables: an odd multiplier and a right
/// xor-shift, both invertible (equal signatures mean equal summaries).
#[inline(always)]
pub(crate) const fn mix(summary: u64) -> u64 {
    let mixed = summary.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mixed ^ (mixed >> 29)
}

/// What [`signature`] mixes: a short string whole, its length in bits 56 to 58 (bit 63
/// clear); for a longer one, its first and last eight bytes and its length, bit 63 set.
/// Compared as it is where no hash table needs its bits spread (a scan of a few names);
/// it tells strings apart exactly as the signature does.
#[inline(always)]
pub(crate) const fn summary(s: &str) -> u64 {
    summary_of_bytes(s.as_bytes())
}

/// [`summary`] of a string's bytes: for the parser, which holds a key's bytes where a
/// `&str` of them would cost two char-boundary checks per key.
#[inline(always)]
pub(crate) const fn summary_of_bytes(b: &[u8]) -> u64 {
    let n = b.len();
    // Two possibly overlapping loads per size class, no loop over the bytes (branches on
    // the length mispredict when key lengths vary). A `const fn`, so that the signatures
    // of keyword names are computed when the crate compiles.
    if n >= EXACT_BELOW {
        (read_u64(b, 0) ^ read_u64(b, n - 8).rotate_left(23) ^ (n as u64).rotate_left(53))
            | (1 << 63)
    } else {
        // A short string whole: its bytes in order (the two loads overlap on the same
        // bytes), its length above them.
        let bytes = if n >= 4 {
            read_u32(b, 0) as u64 | ((read_u32(b, n - 4) as u64) << (8 * (n - 4)))
        } else if n > 0 {
            // (One to three bytes: first, middle and last are all of them.)
            b[0] as u64 | ((b[n / 2] as u64) << 8) | ((b[n - 1] as u64) << 16)
        } else {
            0
        };
        bytes | ((n as u64) << 56)
    }
}

/// The longest run of occupied slots a name table probed by signature may have, and the
/// most names one signature may stand for in it. Signatures are not keyed (the cheap
/// lookup of the common path), so a schema can make every name share one; a table past
/// either bound is looked up by binary search over its names instead (see
/// `schema::Names::Sorted`), a lookup of O(log n) comparisons whatever the names.
pub(crate) const LONGEST_RUN: usize = 64;
pub(crate) const LARGEST_GROUP: usize = 8;

/// Strings shorter than this are told apart by their signature alone.
pub(crate) const EXACT_BELOW: usize = 8;

/// Whether `name` is `key`, given that their signatures are equal: for a key shorter than
/// [`EXACT_BELOW`] bytes it is (the mixing is a bijection, and the summaries of short
/// strings are the strings themselves, apart from every longer string's), with no byte
/// read; a longer key is compared byte by byte.
#[inline(always)]
pub(crate) fn same_found(name: &str, key: &str) -> bool {
    key.len() < EXACT_BELOW || same(name, key)
}

/// Whether the string of `summary` is shorter than [`EXACT_BELOW`] bytes (bit 63 of its
/// [`summary`] clear), so that an equal summary is an equal string with no byte read: a
/// walk can decide a key by its summary alone, without reading (or slicing) its name.
#[inline(always)]
pub(crate) const fn summary_is_exact(summary: u64) -> bool {
    summary >> 63 == 0
}

#[inline(always)]
const fn read_u64(b: &[u8], at: usize) -> u64 {
    let (_, rest) = b.split_at(at);
    match rest.first_chunk::<8>() {
        Some(word) => u64::from_le_bytes(*word),
        None => 0,
    }
}

#[inline(always)]
const fn read_u32(b: &[u8], at: usize) -> u32 {
    let (_, rest) = b.split_at(at);
    match rest.first_chunk::<4>() {
        Some(word) => u32::from_le_bytes(*word),
        None => 0,
    }
}

/// Byte equality of two strings, inline for the short names schemas use (no call).
#[inline(always)]
pub(crate) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            if read_u64(a, i) != read_u64(b, i) {
                return false;
            }
            i += 8;
        }
        // The last, overlapping word covers the remainder.
        read_u64(a, n - 8) == read_u64(b, n - 8)
    } else if n >= 4 {
        // Two overlapping words cover all of 4 to 7 bytes.
        read_u32(a, 0) == read_u32(b, 0) && read_u32(a, n - 4) == read_u32(b, n - 4)
    } else if n > 0 {
        // First, middle and last cover all of 1 to 3 bytes.
        a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_tells_whether_it_is_exact() {
        // (Every length around the bound, in characters of one to four bytes.)
        for n in 0..24 {
            for c in ['a', '\u{e9}', '\u{20ac}', '\u{10ffff}'] {
                let s = c.to_string().repeat(n);
                assert_eq!(
                    summary_is_exact(summary(&s)),
                    s.len() < EXACT_BELOW,
                    "{s:?}"
                );
                assert_eq!(summary(&s), summary_of_bytes(s.as_bytes()));
            }
        }
    }

    #[test]
    fn equal_strings_agree_and_neighbours_differ() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "name",
            "names",
            "dryRun",
            "dry_run",
            "abcdefgh",
            "abcdefghi",
            "bbcdefgha",
            "x-very-long-property-name-1",
            "x-very-long-property-name-2",
            "é",
            "\u{1F600}",
            "abc",
            "acc",
            "abd",
            "abcd",
            "abce",
            "bbcd",
            "abcdef",
            "abXdef",
            "abcdefg",
            "abcxefg",
            "xbcdefg",
        ];
        for a in names {
            // A copy elsewhere in memory: equality is by content.
            let copy = String::from(a);
            assert_eq!(signature(a), signature(copy.as_str()));
            assert!(same(a, copy.as_str()));
            for b in names {
                if a != b {
                    assert!(!same(a, b), "{a:?} {b:?}");
                    assert_ne!(signature(a), signature(b), "{a:?} {b:?}");
                }
            }
        }
    }

    /// Short strings have equal signatures only when they are equal, and never the
    /// signature of a longer string (what lets `same_found` skip the bytes): every string
    /// of up to three bytes over a small alphabet, and many of four to seven.
    #[test]
    fn short_signatures_are_exact() {
        let alphabet: Vec<char> = "ab~/\u{0}\u{7f}".chars().collect();
        let mut by_sig = std::collections::HashMap::new();
        let mut strings: Vec<String> = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = strings
                .iter()
                .filter(|s| s.chars().count() == strings.last().map_or(0, |l| l.chars().count()))
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            strings.extend(longer);
        }
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for len in 4..EXACT_BELOW {
            for _ in 0..20_000 {
                let s: String = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        (b'a' + (state % 4) as u8) as char
                    })
                    .collect();
                strings.push(s);
            }
        }
        strings.push("é".into());
        strings.push("\u{1F600}".into());
        for s in &strings {
            assert!(s.len() < EXACT_BELOW);
            if let Some(other) = by_sig.insert(signature(s), s.clone()) {
                assert_eq!(&other, s, "equal signatures");
            }
            // Apart from every longer string's.
            assert_eq!(summary(s) >> 63, 0, "{s:?}");
        }
        for s in [
            "abcdefgh",
            "abcdefghi",
            "\u{1F600}\u{1F600}",
            "x-very-long-property-name",
        ] {
            assert_eq!(summary(s) >> 63, 1, "{s:?}");
        }
        assert!(same_found("name", "name"));
        assert!(same_found("longer name", "longer name"));
        assert!(!same_found("longer nbme", "longer name"));
    }
}
