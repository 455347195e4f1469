//! The logic applicators: `allOf`, `anyOf`, `oneOf` (with the discriminator's pick of
//! branches), `if`/`then`/`else` and if-chains.

use super::*;

/// `oneOf` on the fail-fast path: exactly one branch matches.
#[inline(never)]
pub(super) fn one_of<'a, I: Instance<'a>>(
    c: &Compiled,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
) -> bool {
    one_of_matches(c, span, instance, ctx) == 1
}

/// How many branches of `oneOf` match, counting to 2 at most (those the dispatch rules
/// out are skipped; the second match ends the search, or the first in an exclusive list).
#[inline(always)]
pub(super) fn one_of_matches<'a, I: Instance<'a>>(
    c: &Compiled,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
) -> usize {
    let children = c.branches(span);
    let pick = Dispatched::new(c, span, instance);
    // (No other branch can match once one has, when the list is exclusive.)
    let enough = if c.accel.list_exclusive.get(span.start as usize) == Some(&true) {
        1
    } else {
        2
    };
    let mut matched = 0;
    match pick.indexed() {
        Some(branches) => {
            for j in branches {
                if pick.present(j) && valid_at(c, children[j], instance, ctx) {
                    matched += 1;
                    if matched == enough {
                        break;
                    }
                }
            }
        }
        None => {
            for (j, child) in children.iter().enumerate() {
                if pick.may_match(j) && valid_at(c, *child, instance, ctx) {
                    matched += 1;
                    if matched == enough {
                        break;
                    }
                }
            }
        }
    }
    matched
}

/// `anyOf` on the fail-fast path.
#[inline(never)]
pub(super) fn any_of<'a, I: Instance<'a>>(
    c: &Compiled,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
) -> bool {
    any_of_inline(c, span, instance, ctx)
}

/// `any_of`, inline in `union` (a lone `anyOf` saves a frame).
#[inline(always)]
pub(super) fn any_of_inline<'a, I: Instance<'a>>(
    c: &Compiled,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
) -> bool {
    let children = c.branches(span);
    let pick = Dispatched::new(c, span, instance);
    match pick.indexed() {
        Some(mut branches) => {
            branches.any(|j| pick.present(j) && valid_at(c, children[j], instance, ctx))
        }
        None => children
            .iter()
            .enumerate()
            .any(|(j, child)| pick.may_match(j) && valid_at(c, *child, instance, ctx)),
    }
}

/// `if`/`then`/`else` on the fail-fast path: the branch the condition picks.
#[inline(never)]
pub(super) fn if_then_else<'a, I: Instance<'a>>(
    c: &Compiled,
    cond: NodeId,
    then: NodeId,
    els: NodeId,
    instance: I,
    ctx: Ctx<'_>,
) -> bool {
    if then.is_none() && els.is_none() {
        return true;
    }
    let branch = if valid_at(c, cond, instance, ctx) {
        then
    } else {
        els
    };
    branch.is_none() || valid_at(c, branch, instance, ctx)
}

/// `allOf` on the fail-fast path.
#[inline(never)]
pub(super) fn all_of<'a, I: Instance<'a>>(
    c: &Compiled,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
) -> bool {
    let children = c.branches(span);
    if let Some(chain) = c.if_chain(span)
        && let Some(o) = instance.as_object()
    {
        return if_chain(c, children, chain, o, instance, ctx);
    }
    children
        .iter()
        .all(|child| valid_at(c, *child, instance, ctx))
}

/// An `allOf` with a chain of conditions on one property (see `IfChain`), for an object:
/// with that property, each arm's condition holds exactly when its value is one of the
/// arm's literals (the property's other keywords, none, and `required` of it, met);
/// without, the branches are evaluated as they are.
#[inline(never)]
pub(super) fn if_chain<'a, I: Instance<'a>>(
    c: &Compiled,
    children: &[NodeId],
    chain: &crate::schema::IfChain,
    o: I::Object,
    instance: I,
    ctx: Ctx<'_>,
) -> bool {
    let Some(value) = json::lookup_key(o, chain.key.as_ref()) else {
        return children
            .iter()
            .all(|child| valid_at(c, *child, instance, ctx));
    };
    // (One loop per kind of value, its comparison inline.)
    match value.kind() {
        Kind::String => {
            let s = value.as_str().unwrap_or_default();
            if_chain_arms(
                c,
                children,
                chain,
                instance,
                ctx,
                |v| matches!(v, Value::String(t) if crate::names::same(t, s)),
            )
        }
        Kind::Number => {
            let Some(x) = value.as_number() else {
                return false;
            };
            if_chain_arms(
                c,
                children,
                chain,
                instance,
                ctx,
                |v| matches!(v, Value::Number(y) if json::num_eq(&x, y)),
            )
        }
        kind => if_chain_arms(c, children, chain, instance, ctx, |v| {
            json::kind_index(v) == kind as usize && value.equals(v)
        }),
    }
}

/// `if_chain`'s walk of the branches, `is` telling whether a literal is the value.
#[inline(always)]
pub(super) fn if_chain_arms<'a, I: Instance<'a>>(
    c: &Compiled,
    children: &[NodeId],
    chain: &crate::schema::IfChain,
    instance: I,
    ctx: Ctx<'_>,
    is: impl Fn(&Value) -> bool,
) -> bool {
    let mut arms = chain.arms.iter().peekable();
    for (j, &child) in children.iter().enumerate() {
        let next = match arms.next_if(|arm| arm.branch as usize == j) {
            Some(arm) => {
                if c.values[arm.values.range()].iter().any(&is) {
                    arm.then
                } else {
                    arm.els
                }
            }
            None => child,
        };
        if !next.is_none() && !valid_at(c, next, instance, ctx) {
            return false;
        }
    }
    true
}

/// A branch's presence filter (`Compiled::presence`).
pub(super) type Presence = Option<Box<[std::sync::Arc<str>]>>;

/// The branches of a `oneOf`/`anyOf` that its discriminator leaves possible.
pub(super) struct Dispatched<'c, 'a, I: Instance<'a>> {
    dispatch: Option<&'c crate::schema::Dispatch>,
    found: Option<I>,
    /// The list's presence filters and the object they test, when it has some.
    presence: Option<(&'c [Presence], I::Object)>,
}

impl<'c, 'a, I: Instance<'a>> Dispatched<'c, 'a, I> {
    #[inline]
    fn new(c: &'c Compiled, span: crate::schema::Span, instance: I) -> Dispatched<'c, 'a, I> {
        let Some(o) = instance.as_object() else {
            return Dispatched {
                dispatch: None,
                found: None,
                presence: None,
            };
        };
        let presence = if c.accel.list_presence.get(span.start as usize) == Some(&true) {
            c.accel.presence.get(span.range()).map(|p| (p, o))
        } else {
            None
        };
        match c.dispatch_of(span) {
            Some((d, summary)) => Dispatched {
                dispatch: Some(d),
                found: json::lookup_key_in(o, d.property.as_ref(), summary),
                presence,
            },
            None => Dispatched {
                dispatch: None,
                found: None,
                presence,
            },
        }
    }

    /// Whether branch `j` may match (false only when it certainly does not).
    #[inline]
    fn may_match(&self, j: usize) -> bool {
        self.dispatch
            .and_then(|d| d.filters.get(j))
            .is_none_or(|f| f.admits(self.found))
            && self.present(j)
    }

    /// Whether the object holds one of the names branch `j` needs one of (true when the
    /// branch has no presence filter).
    #[inline]
    fn present(&self, j: usize) -> bool {
        match self.presence {
            Some((filters, o)) => match filters.get(j) {
                Some(Some(names)) => json::has_any(o, names),
                _ => true,
            },
            None => true,
        }
    }

    /// The branches that may match, from the dispatch's string index, when it has one and
    /// the property holds a string (each branch once).
    #[inline]
    fn indexed(&self) -> Option<impl Iterator<Item = usize> + 'c>
    where
        'a: 'c,
    {
        match (self.dispatch, self.found.and_then(|v| v.as_str())) {
            (Some(d), Some(s)) => d.for_string(s),
            _ => None,
        }
    }
}

/// Evaluates every branch keeping the annotations of those that match: (matches, the
/// errors of each branch, in order; empty for those that matched).
pub(super) fn annotate_branches<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    children: &[NodeId],
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> (usize, Vec<Vec<ValidationError>>) {
    let mut matched = 0;
    let mut each = Vec::with_capacity(children.len());
    for child in children {
        let mut branch = col.branch();
        if eval(c, *child, instance, ctx, &mut branch) {
            matched += 1;
            col.absorb(branch);
            each.push(Vec::new());
        } else {
            each.push(branch.take());
        }
    }
    (matched, each)
}

/// The failure of a union none of whose branches matched, when every branch was evaluated
/// (`evaluate`): through the closest branch, as `iter_errors` reports it.
#[allow(clippy::too_many_arguments)]
fn none_matched<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
    each: Vec<Vec<ValidationError>>,
    fallback: ErrorKind,
) -> bool {
    match tagged::decide(c, node, k, span, instance, ctx, col) {
        tagged::Tagged::Reported => false,
        tagged::Tagged::Selects(branch, property) if branch < each.len() => {
            closest::report_tagged(c, node, k, ctx, col, each, branch, property)
        }
        _ => closest::report_branches(c, node, k, ctx, col, each, fallback),
    }
}

/// `allOf` in the keyword loop: every branch, each reported.
#[inline(always)]
pub(super) fn each_of<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    for child in c.node_list(span) {
        check!(ok, col, eval(c, *child, instance, ctx, col));
    }
    ok
}

/// `anyOf` in the keyword loop. Collecting annotations, every branch is evaluated (the
/// matching ones annotate); otherwise the fail-fast verdict first, and only a failure
/// evaluates the branches for their errors (or the tagged branch's, see `tagged`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn any_of_reported<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let children = c.node_list(span);
    let kind = ErrorKind::AnyOf {
        branches: children.len(),
    };
    if C::ANNOTATE {
        let (matched, each) = annotate_branches(c, children, instance, ctx, col);
        return matched > 0 || none_matched(c, node, k, span, instance, ctx, col, each, kind);
    }
    if any_of(c, span, instance, ctx) {
        return true;
    }
    closest::report(c, node, k, span, instance, ctx, col, kind)
}

/// `oneOf` in the keyword loop, as `any_of_reported`; the branches' errors are the
/// causes only when none matched.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn one_of_reported<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    span: crate::schema::Span,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let children = c.node_list(span);
    if C::ANNOTATE {
        let (matched, each) = annotate_branches(c, children, instance, ctx, col);
        let kind = ErrorKind::OneOf {
            branches: children.len(),
            matched,
        };
        return match matched {
            1 => true,
            0 => none_matched(c, node, k, span, instance, ctx, col, each, kind),
            _ => fail!(col, c, ctx, node, k, kind),
        };
    }
    let matched = one_of_matches(c, span, instance, ctx);
    if matched == 1 {
        return true;
    }
    let kind = ErrorKind::OneOf {
        branches: children.len(),
        matched,
    };
    if matched == 0 {
        return closest::report(c, node, k, span, instance, ctx, col, kind);
    }
    fail!(col, c, ctx, node, k, kind)
}

/// `if`/`then`/`else` in the keyword loop: the condition decides which branch is
/// evaluated; its annotations are kept when it holds (collecting annotations).
#[inline(always)]
pub(super) fn if_reported<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    cond: NodeId,
    then: NodeId,
    els: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let next = if C::ANNOTATE {
        let mut branch = col.branch();
        if eval(c, cond, instance, ctx, &mut branch) {
            col.absorb(branch);
            then
        } else {
            els
        }
    } else {
        if then.is_none() && els.is_none() {
            return true;
        }
        if valid_at(c, cond, instance, ctx) {
            then
        } else {
            els
        }
    };
    next.is_none() || eval(c, next, instance, ctx, col)
}
