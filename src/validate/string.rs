//! String keywords: lengths in code points, `contentEncoding`/`contentMediaType`.

use super::*;

/// The code points of `s` (kept out of line: it is rarely needed).
#[inline(never)]
pub(super) fn code_points(s: &str) -> u64 {
    json::char_count(s) as u64
}

/// `maxLength`: a string has no more code points than bytes, so the byte length decides
/// most strings and the code points are counted only past it.
#[inline(always)]
pub(super) fn max_length(s: &str, max: u64) -> bool {
    s.len() as u64 <= max || code_points(s) <= max
}

/// `minLength`: a code point takes at most four bytes, so a long enough string needs no
/// count, and one shorter in bytes than `min` fails without one.
#[inline(always)]
pub(super) fn min_length(s: &str, min: u64) -> bool {
    s.len() as u64 >= min.saturating_mul(4) || (s.len() as u64 >= min && code_points(s) >= min)
}

/// `contentEncoding: base64` and `contentMediaType: application/json`, when they assert.
pub(super) fn content<C: Collector>(
    c: &Compiled,
    i: crate::schema::ContentId,
    s: &str,
    ctx: Ctx<'_>,
    node: NodeId,
    k: usize,
    col: &mut C,
) -> bool {
    let check = &c.contents[i.index()];
    let decoded: std::borrow::Cow<'_, [u8]> = match &check.encoding {
        Some(enc) => match base64_decode(s) {
            Some(bytes) => std::borrow::Cow::Owned(bytes),
            None => {
                return fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::ContentEncoding {
                        encoding: enc.clone()
                    }
                );
            }
        },
        None => std::borrow::Cow::Borrowed(s.as_bytes()),
    };
    match &check.media_type {
        Some(mt) if serde_json::from_slice::<serde::de::IgnoredAny>(&decoded).is_err() => {
            fail!(
                col,
                c,
                ctx,
                node,
                k,
                ErrorKind::ContentMediaType {
                    media_type: mt.clone()
                }
            )
        }
        _ => true,
    }
}

/// Standard base64 (RFC 4648 section 4, with padding; padding only at the end).
pub(super) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).ok()
}
