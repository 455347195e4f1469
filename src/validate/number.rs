//! Number keywords: the four bounds.

use super::*;

/// Whether the number `x` meets `kw`, one of the four bounds, of limit `i`. (Kept off the
/// leaves' inline paths: there it made every call dearer, `leaf_one`'s by its registers,
/// +0.8% on cspell, which has no bound, and in the leaf loop the instance's float
/// conversions were hoisted out of the loop and run for instances of every type, +35% on
/// `{"minProperties": 1, "maxProperties": 3}`.)
#[inline(always)]
pub(super) fn within_bound(c: &Compiled, kw: Keyword, i: LimitId, x: &serde_json::Number) -> bool {
    let Some(limit) = c.limits.get(i.index()) else {
        return false;
    };
    let ord = json::cmp_num(json::Num::of(x), limit.num);
    match kw {
        Keyword::Maximum(_) => ord != Ordering::Greater,
        Keyword::ExclusiveMaximum(_) => ord == Ordering::Less,
        Keyword::Minimum(_) => ord != Ordering::Less,
        Keyword::ExclusiveMinimum(_) => ord == Ordering::Greater,
        // (Asked of the bounds only.)
        other_assertion_keywords!() | applicator_keywords!() => false,
    }
}
