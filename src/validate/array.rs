//! Array keywords: `items`/`prefixItems`, `contains`, `uniqueItems`, `minItems`/`maxItems`.

use super::*;

/// `contains` (number `i` of the schema's) on the fail-fast path: items are counted until
/// the answer is known (no location, no annotation).
#[inline(never)]
pub(super) fn contains_count<'a, A: crate::flat::Array<'a>>(
    c: &Compiled,
    i: crate::schema::ContainsId,
    items: A,
    ctx: Ctx<'_>,
) -> bool {
    let Some(spec) = c.contains.get(i.index()) else {
        return false;
    };
    let mut count = 0u64;
    for item in items.iter() {
        if valid_at(c, spec.node, item, ctx) {
            count += 1;
            if spec.max.is_some_and(|max| count > max) {
                return false;
            }
            if spec.max.is_none() && count >= spec.min {
                return true;
            }
        }
    }
    count >= spec.min
}

/// A node of the items-array shape (see `Shape::ItemsArray`), fail-fast: its bounds, then
/// each item against the items' schema, with no keyword loop.
#[inline(never)]
pub(super) fn items_array<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Some(items) = instance.as_array() else {
        return true;
    };
    let spec = c.array_spec(node);
    // (Every node of the shape has its spec; without one, the general loop decides.)
    let Some(spec) = spec else {
        return eval_node(c, node, instance, ctx, col);
    };
    let len = items.len() as u64;
    if len < spec.min || len > spec.max {
        return false;
    }
    if spec.unique {
        // (Apart: arrays of typed arrays, the hot path of GeoJSON, lose an instruction per
        // item to register allocation when the check shares their function.)
        return unique_items_array(c, spec, items, ctx, col);
    }
    let child = spec.item;
    let of = c.node(child);
    let marker = 0u8;
    if of.shape == Shape::PlainObject
        && !enters_resource(c, of, &ctx)
        && (&raw const marker as usize) >= ctx.stack_limit
    {
        // Arrays of objects: the items' shape (and room on the stack, the same for every
        // item) is settled once, not per item as `eval` would.
        // (Loops written out here and below: `Iterator::all` was left out of line once this
        // function had a module of its own, +3.9% instructions on helm-chart-lock.)
        for item in items.iter() {
            if !(admits(of.types, item) && plain_object(c, child, item, ctx, col)) {
                return false;
            }
        }
        return true;
    }
    if of.shape == Shape::TypedArray {
        // Arrays of typed arrays (GeoJSON rings): inline, no call per item (as in the
        // node loop's `items`; a shared function for both was slower, see BENCHMARKS.md).
        for item in items.iter() {
            if !(admits(of.types, item) && typed_array_inline(c, child, item)) {
                return false;
            }
        }
        true
    } else {
        for item in items.iter() {
            if !eval(c, child, item, ctx, col) {
                return false;
            }
        }
        true
    }
}

/// `items_array` for `uniqueItems: true`: no two items equal, then each item.
#[inline(never)]
pub(super) fn unique_items_array<'a, A: crate::flat::Array<'a>, C: Collector>(
    c: &Compiled,
    spec: &crate::schema::ArraySpec,
    items: A,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    duplicate(items).is_none() && items.iter().all(|item| eval(c, spec.item, item, ctx, col))
}

/// `items` (from index `skip`) on the fail-fast path of the general keyword loop (out of
/// line: inlined, its table reads were hoisted into every node's loop).
#[inline(never)]
pub(super) fn items_from<'a, A: crate::flat::Array<'a>, C: Collector>(
    c: &Compiled,
    child: NodeId,
    skip: u32,
    items: A,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let items = items.tail(skip as usize);
    // (One look past a forward for all the items.)
    let child = c.fail_fast_target(child);
    let of = c.node(child);
    if of.body().is_empty() {
        // Items of a type only (`{"type": "number"}`): one test each.
        items.iter().all(|item| admits(of.types, item))
    } else if of.shape == Shape::TypedArray {
        items
            .iter()
            .all(|item| admits(of.types, item) && typed_array_inline(c, child, item))
    } else {
        let marker = 0u8;
        if C::FAIL_FAST
            && of.shape == Shape::PlainObject
            && !enters_resource(c, of, &ctx)
            && (&raw const marker as usize) >= ctx.stack_limit
        {
            // (As in `items_array`.)
            return items
                .iter()
                .all(|item| admits(of.types, item) && plain_object(c, child, item, ctx, col));
        }
        items.iter().all(|item| eval(c, child, item, ctx, col))
    }
}

/// Strings or numbers up to which `duplicate` compares pairs (by signature).
pub(super) const PAIRWISE: usize = 16;

/// JSON equality of two items (`json::equal` for `Value`s).
#[inline(always)]
fn same_item<'a, I: Instance<'a>>(a: I, b: I) -> bool {
    match (a.as_value(), b.as_value()) {
        (Some(a), Some(b)) => json::equal(a, b),
        _ => crate::flat::equal(a, b),
    }
}

/// Item `i` of `items` (an index below its length).
#[inline(always)]
fn item<'a, A: crate::flat::Array<'a>>(items: A, i: usize) -> Option<A::Item> {
    items.get(i)
}

/// The first pair of equal items, if any.
pub(super) fn duplicate<'a, A: crate::flat::Array<'a>>(items: A) -> Option<(usize, usize)> {
    // Pairs compared directly up to a size where hashing costs less: a few items by
    // equality alone, which ends at their first difference (so do objects and arrays, up
    // to eight: their signatures are their lengths, alike in most arrays); more strings
    // or numbers by their signatures first (`json::value_signature`: a few instructions,
    // equal for equal items), the items only where those meet.
    let scalars = !matches!(
        items.get(0).map(|v| v.kind()),
        Some(Kind::Object | Kind::Array)
    );
    if items.len() <= if scalars { 4 } else { 8 } {
        // (The pair whose second item comes first, as the hashed search reports it.)
        for (j, b) in items.iter().enumerate().skip(1) {
            for (i, a) in items.iter().take(j).enumerate() {
                // (Two strings inline, the commonest; anything else by a call.)
                let same = match (a.as_str(), b.as_str()) {
                    (Some(a), Some(b)) => crate::names::same(a, b),
                    _ => same_item(a, b),
                };
                if same {
                    return Some((i, j));
                }
            }
        }
        return None;
    }
    duplicate_past_few(items, scalars)
}

/// `duplicate` past a few items (out of line: the small arrays' path keeps a small frame).
#[inline(never)]
pub(super) fn duplicate_past_few<'a, A: crate::flat::Array<'a>>(
    items: A,
    scalars: bool,
) -> Option<(usize, usize)> {
    if scalars && items.len() <= PAIRWISE {
        let mut signatures = [0u64; PAIRWISE];
        for (s, item) in signatures.iter_mut().zip(items.iter()) {
            *s = item.signature();
        }
        for (j, b) in items.iter().enumerate().skip(1) {
            for (i, a) in items.iter().take(j).enumerate() {
                if signatures[i] == signatures[j] && same_item(a, b) {
                    return Some((i, j));
                }
            }
        }
        return None;
    }
    // Large arrays: each item's hash looked up in a table of the earlier distinct items';
    // items are compared only where hashes meet. The table is kept per thread: no
    // allocation in steady state (its room is given back after an array over about
    // 700,000 items).
    thread_local! {
        static TABLE: RefCell<Vec<(u32, u32)>> = const { RefCell::new(Vec::new()) };
    }
    if u32::try_from(items.len()).is_err() {
        // (Four billion items and more: indices of a word.)
        return duplicate_by_hashing(items, &mut Vec::new(), usize::MAX, |j| j, |i| i);
    }
    let Ok(mut table) =
        TABLE.with(|cell| cell.try_borrow_mut().map(|mut b| std::mem::take(&mut *b)))
    else {
        return duplicate_by_hashing(
            items,
            &mut Vec::new(),
            u32::MAX,
            |j| j as u32,
            |i| i as usize,
        );
    };
    let found = duplicate_by_hashing(items, &mut table, u32::MAX, |j| j as u32, |i| i as usize);
    if table.capacity() <= 1 << 20 {
        let _ = TABLE.with(|cell| cell.try_borrow_mut().map(|mut b| *b = table));
    }
    found
}

/// The first pair of equal items (by the later item's position, then the earlier's),
/// through an open-addressing table in `table` of the first item of each value seen:
/// (the hash's high half, the item's index as `to` makes it; `empty` in a free slot).
pub(super) fn duplicate_by_hashing<'a, A: crate::flat::Array<'a>, N: Copy + Eq>(
    items: A,
    table: &mut Vec<(u32, N)>,
    empty: N,
    to: impl Fn(usize) -> N,
    from: impl Fn(N) -> usize,
) -> Option<(usize, usize)> {
    // (Keys drawn once per process: see `json::hash_value`. They keep the slots of
    // distinct items from being chosen by an instance too: the table stays fast.)
    static STATE: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
    let state = STATE.get_or_init(ahash::RandomState::new);
    // At most two thirds full: an empty slot ends every probe.
    let size = items
        .len()
        .saturating_add(items.len() / 2)
        .next_power_of_two();
    let mask = size - 1;
    table.clear();
    table.resize(size, (0, empty));
    for (j, it) in items.iter().enumerate() {
        let hash = it.hash_with(state);
        let tag = (hash >> 32) as u32;
        let mut slot = hash as usize & mask;
        loop {
            let (t, i) = table[slot];
            if i == empty {
                table[slot] = (tag, to(j));
                break;
            }
            if t == tag && item(items, from(i)).is_some_and(|earlier| same_item(earlier, it)) {
                return Some((from(i), j));
            }
            slot = (slot + 1) & mask;
        }
    }
    None
}

/// `minItems`.
#[inline(always)]
pub(super) fn min_items(items: usize, min: u64) -> bool {
    items as u64 >= min
}

/// `maxItems`.
#[inline(always)]
pub(super) fn max_items(items: usize, max: u64) -> bool {
    items as u64 <= max
}

/// `prefixItems` (and the array form of `items` in older drafts): item `i` against
/// schema `i`.
#[inline(always)]
pub(super) fn prefix_items<'a, A: crate::flat::Array<'a>, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    items: A,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    for (i, (child, item)) in c.node_list(span).iter().zip(items.iter()).enumerate() {
        check!(ok, col, eval_at!(c, *child, item, ctx, Seg::Index(i), col));
    }
    ok
}

/// `items` (and `additionalItems`): every item from index `skip` on against `child`.
/// `additionalItems: false` reports each item past the prefix as its own error.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn items_from_index<'a, A: crate::flat::Array<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    child: NodeId,
    skip: u32,
    items: A,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    let forbidden = c.keyword_names[k] == "additionalItems" && c.is_false_schema(child);
    for (i, item) in items.iter().enumerate().skip(skip as usize) {
        let item_ok = if forbidden {
            if !C::FAIL_FAST {
                col.error(
                    c,
                    ctx,
                    node,
                    k,
                    Some(Seg::Index(i)),
                    ErrorKind::AdditionalItems,
                    Vec::new(),
                );
            }
            false
        } else {
            eval_at!(c, child, item, ctx, Seg::Index(i), col)
        };
        check!(ok, col, item_ok);
    }
    ok
}

/// `contains` with `minContains`/`maxContains` on the reporting paths: the matching
/// items counted (all of them, and annotated, when annotations are collected).
#[inline(always)]
pub(super) fn contains<'a, A: crate::flat::Array<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    i: crate::schema::ContainsId,
    items: A,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let spec = c.contains[i.index()];
    let mut count = 0u64;
    let mut matched: Vec<Value> = Vec::new();
    for (idx, item) in items.iter().enumerate() {
        let path = ctx.path.push(Seg::Index(idx));
        if C::ANNOTATE {
            let mut branch = col.branch();
            if eval(
                c,
                spec.node,
                item,
                Ctx(&Frame {
                    path: &path,
                    ..*ctx
                }),
                &mut branch,
            ) {
                col.absorb(branch);
                count += 1;
                matched.push(Value::from(idx));
            }
            continue;
        }
        if valid_at(
            c,
            spec.node,
            item,
            Ctx(&Frame {
                path: &path,
                ..*ctx
            }),
        ) {
            count += 1;
            if spec.max.is_none_or(|max| count > max) && count >= spec.min {
                break;
            }
        }
    }
    if C::ANNOTATE && spec.annotates {
        col.annotate(c, ctx, node, "contains", Value::Array(matched));
    }
    if count < spec.min {
        let kind = if spec.min == 1 && c.keyword_names[k] == "contains" {
            ErrorKind::Contains
        } else {
            ErrorKind::MinContains { limit: spec.min }
        };
        return fail!(col, c, ctx, node, k, kind);
    }
    match spec.max {
        Some(max) if count > max => {
            fail!(col, c, ctx, node, k, ErrorKind::MaxContains { limit: max })
        }
        _ => true,
    }
}
