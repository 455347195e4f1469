//! Forwarding nodes: a node that only passes the instance on (`$ref`, a one-branch `allOf`)
//! is skipped by the fail-fast path, which goes on to where the chain ends.

use super::*;

/// The nodes whose `allOf` (or `$ref` beside other keywords) was fused, see `fuse`,
/// forward the fail-fast path to the fused node. (Such a node has the general or the
/// union shape: its `allOf` or `$ref` keeps it from every other; the check keeps a node
/// whose shape reads `spec_of` from being misread.)
pub(super) fn fused_forwards(c: &mut Compiled, fused: &[(NodeId, NodeId)]) {
    for &(node, to) in fused {
        let n = &mut c.nodes[node.index()];
        if matches!(n.shape, Shape::General | Shape::Union) {
            n.shape = Shape::Forward;
            c.accel.spec_of[node.index()] = to.0;
        }
    }
}

/// The fail-fast path follows a node of the forward shape by a call that skips the stack
/// check: nodes more than [`MAX_FORWARDS`] forwards away from a node of another shape go
/// back to the general shape, so that such calls nest that deep at most.
#[inline(never)]
pub(super) fn forward_chains(c: &mut Compiled, live: &[u32]) {
    for &i in live {
        let mut node = NodeId(i);
        let mut hops = 0;
        while let Some(target) = forward_target(c, node)
            && hops <= MAX_FORWARDS
        {
            node = target;
            hops += 1;
        }
        if hops > MAX_FORWARDS {
            c.nodes[i as usize].shape = Shape::General;
        }
    }
}

/// See [`forward_chains`].
pub(super) const MAX_FORWARDS: u32 = 16;

/// The node a node of the forward shape refers to (`None` for any other node).
pub(super) fn forward_target(c: &Compiled, node: NodeId) -> Option<NodeId> {
    let n = c.nodes[node.index()];
    if n.shape != Shape::Forward {
        return None;
    }
    let body = &c.keywords[n.body()];
    // (A `$ref` first leads on whatever follows it: a fused node keeps its keywords.)
    match body.first().map(|&kw| leads_to(c, kw)) {
        Some(Leads::Ref(target)) => Some(target),
        Some(Leads::OneBranch(_) | Leads::Nowhere) | None => forwarded_to(c, body),
    }
}

/// The node a body of one `$ref`, or of an `allOf` of one branch, leads to.
pub(super) fn forwarded_to(c: &Compiled, body: &[Keyword]) -> Option<NodeId> {
    match *body {
        [kw] => match leads_to(c, kw) {
            Leads::Ref(target) | Leads::OneBranch(target) => Some(target),
            Leads::Nowhere => None,
        },
        [] | [_, _, ..] => None,
    }
}

/// Where a keyword alone passes the instance on to, if it does nothing else.
enum Leads {
    /// A `$ref`'s target.
    Ref(NodeId),
    /// The branch of an `allOf` of one.
    OneBranch(NodeId),
    Nowhere,
}

/// See [`Leads`]: decided here for every keyword.
fn leads_to(c: &Compiled, kw: Keyword) -> Leads {
    match kw {
        Keyword::Ref(target) => Leads::Ref(target),
        Keyword::AllOf(span) if span.len() == 1 => c
            .node_lists
            .get(span.start as usize)
            .map_or(Leads::Nowhere, |&b| Leads::OneBranch(b)),
        Keyword::AllOf(_)
        | Keyword::Properties(_)
        | Keyword::PatternProperties(_)
        | Keyword::AdditionalProperties(_)
        | Keyword::PropertyNames(_)
        | Keyword::DependentSchemas(_)
        | Keyword::PrefixItems(_)
        | Keyword::Items { .. }
        | Keyword::Contains(_)
        | Keyword::AnyOf(_)
        | Keyword::OneOf(_)
        | Keyword::Not(_)
        | Keyword::If { .. }
        | Keyword::DynamicRef(_)
        | Keyword::UnevaluatedProperties(_)
        | Keyword::UnevaluatedItems(_)
        | crate::schema::assertion_keywords!() => Leads::Nowhere,
    }
}

/// A chain of forwards that ends on a node its types decide (`{"$ref": "#/definitions/
/// Glob"}` → `{"$ref": "#/definitions/SimpleGlob"}` → `{"type": "string"}`) accepts
/// exactly the values of the types every node of the chain admits. Its first node, when
/// it declares no `type` of its own, takes that set and the shape of a node its types
/// decide (`Shape::TypeUnion`): the fail-fast path answers at the type test, with no call.
/// (Nodes with a declared `type` keep it: the error path reports against it.)
#[inline(never)]
pub(super) fn decided_forwards(c: &mut Compiled, live: &[u32]) {
    for &i in live {
        let n = c.nodes[i as usize];
        if n.shape != Shape::Forward || n.typed || n.types.is_strict() {
            continue;
        }
        let mut set = n.types;
        let mut node = NodeId(i);
        let mut hops = 0;
        let decided = loop {
            let at = c.nodes[node.index()];
            if at.types.is_strict() || hops > MAX_FORWARDS {
                break false;
            }
            set = set.intersect(at.types);
            match (at.shape, forward_target(c, node)) {
                (Shape::Forward, Some(target)) => node = target,
                (Shape::Forward, None) => break false,
                (Shape::TypeUnion, _) => break true,
                _ => break at.body().is_empty(),
            }
            hops += 1;
        };
        if decided {
            let n = &mut c.nodes[i as usize];
            n.types = set;
            n.shape = Shape::TypeUnion;
        }
    }
    // Arrays whose items' schema is now decided by its types are typed arrays.
    for &i in live {
        let n = c.nodes[i as usize];
        if n.shape != Shape::ItemsArray {
            continue;
        }
        let Some(&spec) = c.accel.spec_of.get(i as usize) else {
            continue;
        };
        let Some(spec) = c.accel.array_specs.get_mut(spec as usize) else {
            continue;
        };
        let item = c.nodes[spec.item.index()];
        // (Not with `uniqueItems`, which the typed-array walk does not check: the items
        // array checks it, then each item at its type test.)
        if item.shape == Shape::TypeUnion && !item.types.is_strict() && !spec.unique {
            spec.items = item.types;
            c.nodes[i as usize].shape = Shape::TypedArray;
        }
    }
}

/// Where each node of the forward shape leads the fail-fast path (kept in `spec_of`): past
/// the forwards that follow it as long as they declare no `type`. Such a node's types are
/// inferred from its target's and hold all its target accepts, so its own type test
/// decides nothing the target's does not.
#[inline(never)]
pub(super) fn forward_targets(c: &mut Compiled, live: &[u32]) {
    for &i in live {
        let Some(mut to) = forward_target(c, NodeId(i)) else {
            continue;
        };
        // (Chains of forwards are at most `MAX_FORWARDS` long, see `forward_chains`.)
        for _ in 0..=MAX_FORWARDS {
            let t = c.nodes[to.index()];
            if t.typed || t.types.is_strict() {
                break;
            }
            match forward_target(c, to) {
                Some(next) => to = next,
                None => break,
            }
        }
        c.accel.spec_of[i as usize] = to.0;
    }
}
