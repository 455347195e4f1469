//! Evaluation order: cheap, likely-failing checks first.
//!
//! Keywords of a node are independent (except `unevaluated*`, which stay last), and so are
//! the entries of `properties`, so their order is free. A failing `oneOf` branch should
//! fail on its cheap discriminator (`"version": {"const": 2}`) before it walks a large
//! sibling property; a static cost estimate per node orders both.

use crate::json::{INSTANCE_KINDS, TypeSet};
use crate::schema::{
    ArraySpec, Compiled, ENUM_SCAN_LIMIT, Keyword, NodeId, ObjectSpec, ObjectWalk, SCAN_LIMIT,
    Shape, Span,
};

/// Caps the estimate so recursive schemas stay finite.
const CAP: u32 = 1_000_000;

/// A static estimate of what evaluating each node costs.
#[inline(never)]
fn node_costs(c: &Compiled, live: &[u32]) -> Vec<u32> {
    // A node's own cost is its keyword count; its subschemas' costs are added to it.
    let local = |i: u32| c.nodes[i as usize].keywords.len() as u32;
    let mut cost: Vec<u32> = (0..c.nodes.len() as u32).map(local).collect();
    // Children are mostly minted after their parents: in reverse id order one round sums
    // most subtrees whole; a second one carries the references to earlier nodes. Finite
    // on recursive schemas (two rounds, capped).
    for _ in 0..2 {
        for &i in live.iter().rev() {
            let mut total = local(i);
            for kw in c.keywords_of(NodeId(i)) {
                total = total.saturating_add(keyword_cost(c, kw, &cost));
            }
            cost[i as usize] = total.min(CAP);
        }
    }
    cost
}

fn keyword_cost(c: &Compiled, kw: &Keyword, cost: &[u32]) -> u32 {
    let of = |id: NodeId| if id.is_none() { 0 } else { cost[id.index()] };
    let sum = |ids: &[NodeId]| ids.iter().fold(0u32, |a, &id| a.saturating_add(of(id)));
    match *kw {
        Keyword::False | Keyword::Type(_) | Keyword::Const(_) => 1,
        // (A long one is looked up in its table.)
        Keyword::Enum(span) => 1 + span.len().min(ENUM_SCAN_LIMIT) as u32 / 4,
        Keyword::MultipleOf(_)
        | Keyword::Maximum(_)
        | Keyword::ExclusiveMaximum(_)
        | Keyword::Minimum(_)
        | Keyword::ExclusiveMinimum(_)
        | Keyword::MaxItems(_)
        | Keyword::MinItems(_)
        | Keyword::MaxProperties(_)
        | Keyword::MinProperties(_) => 1,
        Keyword::MaxLength(_) | Keyword::MinLength(_) => 2,
        Keyword::Required(span) => 1 + span.len() as u32,
        Keyword::DependentRequired(span) => 1 + span.len() as u32,
        Keyword::Pattern(_) | Keyword::Format(_) | Keyword::Content(_) => 8,
        Keyword::UniqueItems => 20,
        Keyword::Properties(span) => c.properties[span.range()]
            .iter()
            .fold(0u32, |a, (_, id)| a.saturating_add(of(*id))),
        Keyword::PatternProperties(span) => c.pattern_properties[span.range()]
            .iter()
            .fold(0u32, |a, (_, id)| {
                a.saturating_add(8 + of(*id).saturating_mul(2))
            }),
        Keyword::AdditionalProperties(i) => {
            // Fused with its siblings `properties` and `patternProperties`.
            let a = c.additional[i as usize];
            let declared = c.properties[a.properties.range()]
                .iter()
                .fold(0u32, |acc, (_, id)| acc.saturating_add(of(*id)));
            let patterns = c.pattern_properties[a.patterns.range()]
                .iter()
                .fold(0u32, |acc, (_, id)| {
                    acc.saturating_add(8 + of(*id).saturating_mul(2))
                });
            (4 + of(a.node).saturating_mul(2))
                .saturating_add(declared)
                .saturating_add(patterns)
        }
        Keyword::PropertyNames(id) => 4 + of(id).saturating_mul(4),
        Keyword::DependentSchemas(span) => c.dependent_schemas[span.range()]
            .iter()
            .fold(0u32, |a, (_, id)| a.saturating_add(of(*id))),
        Keyword::PrefixItems(span) => sum(c.node_list(span)),
        Keyword::Items { node, .. } => 4 + of(node).saturating_mul(4),
        Keyword::Contains(i) => 4 + of(c.contains[i as usize].node).saturating_mul(4),
        Keyword::AllOf(span) | Keyword::AnyOf(span) | Keyword::OneOf(span) => {
            sum(c.node_list(span))
        }
        Keyword::Not(id) | Keyword::Ref(id) => of(id),
        Keyword::If { cond, then, els } => of(cond).saturating_add(of(then).max(of(els))),
        Keyword::DynamicRef(i) => 10 + of(c.dynamic_refs[i as usize].target),
        Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_) => CAP,
    }
}

/// The shape of `node` and its hoisted types, for shapes that depend on its children's
/// types (`Shape::TypedArray`, `Shape::TypeUnion`).
#[inline(never)]
fn type_shape(c: &Compiled, node: NodeId) -> (Shape, TypeSet) {
    let n = c.nodes[node.index()];
    let body = &c.keywords[n.body()];
    let type_only = |id: NodeId| {
        let child = c.nodes[id.index()];
        child.body().is_empty() && !child.types.is_strict()
    };
    let typed_array = body.iter().any(|k| matches!(k, Keyword::Items { .. }))
        && body.iter().all(|k| match *k {
            Keyword::MinItems(_) | Keyword::MaxItems(_) => true,
            Keyword::Items { node, skip: 0 } => type_only(node),
            _ => false,
        });
    if typed_array {
        return (Shape::TypedArray, n.types);
    }
    if let ([Keyword::AnyOf(span) | Keyword::OneOf(span)], false) = (body, n.typed)
        && c.node_list(*span).iter().all(|&id| type_only(id))
    {
        let sets: Vec<TypeSet> = c
            .node_list(*span)
            .iter()
            .map(|&id| c.nodes[id.index()].types)
            .collect();
        let union = sets.iter().fold(TypeSet::empty(), |a, &b| a.union(b));
        let disjoint = sets
            .iter()
            .enumerate()
            .all(|(j, a)| sets[j + 1..].iter().all(|b| !a.overlaps(*b)));
        if matches!(body, [Keyword::AnyOf(_)]) || disjoint {
            return (Shape::TypeUnion, union);
        }
    }
    // `{"not": {"type": "null"}}`: the types the branch rejects decide.
    if let ([Keyword::Not(child)], false) = (body, n.typed)
        && type_only(*child)
        && let Some(rest) = c.nodes[child.index()].types.complement()
    {
        return (Shape::TypeUnion, rest);
    }
    (n.shape, n.types)
}

/// Calls `f` with every subschema `node` applies, to the instance or to a part of it,
/// and whether it applies to the instance itself (`allOf`, `$ref`, `if`...) rather than
/// to a property or an item.
#[inline]
fn each_subschema(c: &Compiled, node: NodeId, mut f: impl FnMut(NodeId, bool)) {
    let mut f = |n: NodeId, same: bool| {
        if !n.is_none() {
            f(n, same)
        }
    };
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::Properties(s) => c.properties[s.range()].iter().for_each(|p| f(p.1, false)),
            Keyword::PatternProperties(s) => c.pattern_properties[s.range()]
                .iter()
                .for_each(|p| f(p.1, false)),
            Keyword::AdditionalProperties(i) => {
                let a = c.additional[i as usize];
                f(a.node, false);
                c.properties[a.properties.range()]
                    .iter()
                    .for_each(|p| f(p.1, false));
                c.pattern_properties[a.patterns.range()]
                    .iter()
                    .for_each(|p| f(p.1, false));
            }
            Keyword::DependentSchemas(s) => c.dependent_schemas[s.range()]
                .iter()
                .for_each(|p| f(p.1, true)),
            Keyword::PrefixItems(s) => c.node_list(s).iter().for_each(|&n| f(n, false)),
            Keyword::AllOf(s) | Keyword::AnyOf(s) | Keyword::OneOf(s) => {
                c.node_list(s).iter().for_each(|&n| f(n, true))
            }
            Keyword::Items { node, .. } => f(node, false),
            Keyword::Contains(i) => f(c.contains[i as usize].node, false),
            Keyword::PropertyNames(n)
            | Keyword::UnevaluatedProperties(n)
            | Keyword::UnevaluatedItems(n) => f(n, false),
            Keyword::Not(n) | Keyword::Ref(n) => f(n, true),
            Keyword::If { cond, then, els } => {
                f(cond, true);
                f(then, true);
                f(els, true);
            }
            Keyword::DynamicRef(i) => {
                let d = c.dynamic_refs[i as usize];
                f(d.target, true);
                if let Some(name) = d.anchor {
                    for r in &c.resources {
                        let anchored = r.dynamic_anchors.iter().filter(|(n, _)| *n == name);
                        anchored.for_each(|&(_, id)| f(id, true));
                    }
                }
            }
            crate::schema::assertion_keywords!() => {}
        }
    }
}

/// The nodes that may be evaluated only to find out whether they fail: a branch of
/// `oneOf`/`anyOf`, a `not`, an `if`, a `contains`, and what applies to the same instance
/// as one of them (through `$ref`, `allOf`, nested branches). Their properties and items
/// are not: once a branch's own checks (its tags, its required names) pass, its parts are
/// mostly being validated for real, and evaluating them in the instance's order costs
/// less than keeping the failing-early order (cmake-presets, whose whole versioned
/// documents sit in `oneOf` branches).
#[inline(never)]
/// (Empty, with no allocation, when no node branches: read it with `get`.)
fn speculative_nodes(c: &Compiled, live: &[u32]) -> Vec<bool> {
    let mut stack: smallvec::SmallVec<[NodeId; 16]> = smallvec::SmallVec::new();
    for i in live.iter().map(|&i| i as usize) {
        let body = &c.keywords[c.nodes[i].body()];
        for kw in body {
            match *kw {
                // (A union alone whose branches the instance's type tells apart applies one
                // branch, as a plain subschema: evaluated, it is not expected to fail.)
                Keyword::AnyOf(s) | Keyword::OneOf(s)
                    if body.len() == 1 && type_switch(c, s).is_some() => {}
                Keyword::AnyOf(s) | Keyword::OneOf(s) => stack.extend_from_slice(c.node_list(s)),
                Keyword::Not(n) => stack.push(n),
                Keyword::If { cond, .. } => stack.push(cond),
                Keyword::Contains(j) => stack.push(c.contains[j as usize].node),
                _ => {}
            }
        }
    }
    if stack.is_empty() {
        return Vec::new();
    }
    let mut seen = vec![false; c.nodes.len()];
    while let Some(n) = stack.pop() {
        if n.is_none() || seen[n.index()] {
            continue;
        }
        seen[n.index()] = true;
        each_subschema(c, n, |child, same_instance| {
            if same_instance {
                stack.push(child)
            }
        });
    }
    seen
}

/// Reorders each node's keywords and each `properties` by estimated cost, hoists `type`
/// to the front of its node, and marks the nodes that hold assertions only.
///
/// Only the nodes evaluation can reach from the root are worked on (see [`live_nodes`]);
/// the rest keep the general shape and their keywords in compiled order.
pub(crate) fn optimize(
    c: &mut Compiled,
    live: &[u32],
    conditions: bool,
    fused: &[(NodeId, NodeId)],
) {
    let cost = node_costs(c, live);
    sort_keywords(c, &cost, live);
    node_shapes(c, live);
    forward_chains(c, live);
    inferred_types(c, live);
    decided_forwards(c, live);
    forward_targets(c, live);
    property_orders(c, &cost, live);
    plain_objects(c, live);
    property_tables(c, live);
    fuse_required(c, live);
    object_specs(c, live);
    property_tests(c, live);
    settle_shapes(c, live);
    fused_forwards(c, fused);
    branch_targets(c);
    patterned_names(c);
    unevaluated_specs(c, live);
    for spec in &mut c.array_specs {
        spec.kind = spec.items.single_kind().unwrap_or(u8::MAX);
    }
    if conditions {
        if_chains(c);
    }
}

/// Nodes looked at per `unevaluatedProperties`: past it, what was found is kept (it is
/// evaluated) but a name not found is left to evaluation.
const UNEVALUATED_NODES: usize = 256;

/// `Compiled::unevaluated`: for each node with `unevaluatedProperties`, the names and
/// patterns its unconditional subschemas evaluate (its own keywords, then `allOf`
/// branches and `$ref` targets, followed), whether one evaluates every property, and
/// whether a conditional one was met. (Schemas composed of `allOf` and `$ref` with
/// `unevaluatedProperties: false`, as 2020-12 generators write them, get an answer per
/// property from a lookup.)
fn unevaluated_specs(c: &mut Compiled, live: &[u32]) {
    if !c
        .keywords
        .iter()
        .any(|k| matches!(k, Keyword::UnevaluatedProperties(_)))
    {
        return;
    }
    let mut out = Vec::new();
    for &i in live {
        if !c
            .keywords_of(NodeId(i))
            .iter()
            .any(|k| matches!(k, Keyword::UnevaluatedProperties(_)))
        {
            continue;
        }
        let mut spec = crate::schema::Unevaluated {
            complete: true,
            ..Default::default()
        };
        let mut names = Vec::new();
        let mut patterns = Vec::new();
        let mut seen: Vec<NodeId> = Vec::new();
        let mut stack = vec![(NodeId(i), true)];
        while let Some((n, top)) = stack.pop() {
            if seen.contains(&n) {
                continue;
            }
            if seen.len() == UNEVALUATED_NODES {
                spec.complete = false;
                break;
            }
            seen.push(n);
            for kw in c.keywords_of(n) {
                match *kw {
                    Keyword::Properties(span) => names.extend(
                        c.properties[span.range()]
                            .iter()
                            .map(|(name, _)| (crate::names::summary(name), name.clone())),
                    ),
                    Keyword::PatternProperties(span) => {
                        patterns.extend(c.pattern_properties[span.range()].iter().map(|&(p, _)| p))
                    }
                    Keyword::AdditionalProperties(_) => spec.all = true,
                    Keyword::UnevaluatedProperties(_) if !top => spec.all = true,
                    Keyword::AllOf(span) => {
                        stack.extend(c.node_list(span).iter().map(|&b| (b, false)))
                    }
                    Keyword::Ref(target) => stack.push((target, false)),
                    Keyword::AnyOf(_)
                    | Keyword::OneOf(_)
                    | Keyword::If { .. }
                    | Keyword::DependentSchemas(_)
                    | Keyword::DynamicRef(_) => spec.complete = false,
                    // Nothing evaluated among the object's properties: the node's own
                    // `unevaluatedProperties`, what applies to names or items, `not` (its
                    // annotations are dropped), assertions.
                    Keyword::UnevaluatedProperties(_)
                    | Keyword::PropertyNames(_)
                    | Keyword::PrefixItems(_)
                    | Keyword::Items { .. }
                    | Keyword::Contains(_)
                    | Keyword::UnevaluatedItems(_)
                    | Keyword::Not(_)
                    | crate::schema::assertion_keywords!() => {}
                }
            }
        }
        // (By summary, then name, once each: `Unevaluated::knows` searches them.)
        names.sort_unstable();
        names.dedup();
        spec.names = names.into();
        spec.patterns = patterns.into();
        out.push((NodeId(i), spec));
    }
    c.unevaluated = out;
}

/// `property_patterned`: for the names of each `properties` beside `additionalProperties`
/// and `patternProperties`, whether a pattern may match them. (A declared key of krakend's
/// objects passes `^[@$_#]`'s first-byte test in no pattern: the walk need not try them.)
fn patterned_names(c: &mut Compiled) {
    // (Left empty when no walk has patterns: nothing reads it then.)
    if c.additional.iter().all(|a| a.patterns.len() == 0) {
        return;
    }
    let mut patterned = vec![false; c.properties.len()];
    for a in &c.additional {
        let patterns = &c.pattern_properties[a.patterns.range()];
        for i in a.properties.range() {
            let name = &c.properties[i].0;
            patterned[i] = patterns
                .iter()
                .any(|&(p, _)| !c.patterns[p as usize].rules_out_name(name));
        }
    }
    c.property_patterned = patterned;
}

/// The `property_walk` entries: each property's subschema as `child` gives it, and its
/// required mark.
fn walk_entries(c: &Compiled, child: impl Fn(&Compiled, NodeId) -> NodeId) -> Vec<(NodeId, u32)> {
    c.properties
        .iter()
        .zip(&c.property_required)
        .map(|(&(_, b), &required)| (child(c, b), u32::from(required)))
        .collect()
}

/// A `fail_fast_root` past typed forwards when they end on a node of the plain-object
/// shape (`{"type": "object", "allOf": [{"$ref": "#/definitions/base"}]}`): a forward
/// checks its types and goes on to its target, nothing else, so `is_valid` may check
/// their types and walk the object at once. Where the types differ from the walk node's,
/// the root is a copy of it with their intersection (the node itself may be reached
/// elsewhere).
fn root_object_walk(c: &mut Compiled) {
    let mut start = c.fail_fast_root;
    let mut types = TypeSet::all();
    // (Forwards form no cycle, `cycles::check` refuses those; bounded regardless.)
    for _ in 0..16 {
        let n = c.nodes[start.index()];
        if n.shape == Shape::PlainObject && start != c.fail_fast_root {
            // (`intersect` keeps no draft-4 integer typing: such a node is not gone past.)
            if n.types.is_strict() {
                return;
            }
            let types = types.intersect(n.types);
            if types == n.types {
                c.fail_fast_root = start;
                return;
            }
            let copy = c.append_node(crate::schema::Node { types, ..n }, start);
            c.spec_of[copy.index()] = c.spec_of[start.index()];
            c.fail_fast_root = copy;
            return;
        }
        match c.spec_of.get(start.index()) {
            Some(&t)
                if n.shape == Shape::Forward
                    && !n.types.is_strict()
                    && (t as usize) < c.nodes.len() =>
            {
                types = types.intersect(n.types);
                start = NodeId(t);
            }
            _ => return,
        }
    }
}

/// The subschemas the fail-fast path reaches through tables of its own (`oneOf`, `anyOf`,
/// `allOf` lists, type switches, object and array specs, the walks' property table) skip
/// forwards (see `Compiled::fail_fast_target`). The error path reads `node_lists` and
/// the keywords, whose nodes its locations name.
#[inline(never)]
fn branch_targets(c: &mut Compiled) {
    c.fail_fast_root = c.fail_fast_target(c.root);
    root_object_walk(c);
    if !c.nodes.iter().any(|n| n.shape == Shape::Forward) {
        c.property_walk = walk_entries(c, |_, b| b);
        // (Left empty: `branches` then reads `node_lists`.)
        return;
    }
    c.property_walk = walk_entries(c, Compiled::fail_fast_target);
    c.branch_targets = c
        .node_lists
        .iter()
        .map(|&b| c.fail_fast_target(b))
        .collect();
    for k in 0..c.type_switches.len() {
        for j in 0..6 {
            let b = c.type_switches[k][j];
            c.type_switches[k][j] = c.fail_fast_target(b);
        }
    }
    for k in 0..c.object_specs.len() {
        let others = c.object_specs[k].others;
        c.object_specs[k].others = c.fail_fast_target(others);
    }
    for k in 0..c.array_specs.len() {
        let item = c.array_specs[k].item;
        c.array_specs[k].item = c.fail_fast_target(item);
    }
}

/// The last shapes, once every other is known (in one pass): nodes with no keyword to
/// dispatch, nodes of assertions only, and unions whose branches' types pick the branch.
#[inline(never)]
fn settle_shapes(c: &mut Compiled, live: &[u32]) {
    for i in live.iter().map(|&i| i as usize) {
        let n = c.nodes[i];
        if n.shape != Shape::General {
            continue;
        }
        if n.body().is_empty() {
            c.nodes[i].shape = Shape::Empty;
        } else if n.leaf {
            c.nodes[i].shape = Shape::Leaf;
        } else if let [Keyword::AnyOf(span) | Keyword::OneOf(span)] = c.keywords[n.body()]
            && let Some(by_kind) = type_switch(c, span)
        {
            c.spec_of[i] = c.type_switches.len() as u32;
            c.type_switches.push(by_kind);
            c.nodes[i].shape = Shape::TypeSwitch;
        } else if let [Keyword::AnyOf(span) | Keyword::OneOf(span)] = c.keywords[n.body()]
            && let Some(values) = literal_union(
                c,
                span,
                matches!(c.keywords[n.body()][0], Keyword::OneOf(_)),
            )
        {
            // A union of literals: the fail-fast path goes on to one enum of them all.
            let to = literal_node(c, NodeId(i as u32), values);
            c.spec_of[i] = to.0;
            c.nodes[i].shape = Shape::Forward;
        } else if let [
            Keyword::AnyOf(_)
            | Keyword::OneOf(_)
            | Keyword::AllOf(_)
            | Keyword::PrefixItems(_)
            | Keyword::If { .. }
            | Keyword::Not(_)
            | Keyword::Contains(_),
        ] = c.keywords[n.body()]
        {
            c.nodes[i].shape = Shape::Union;
        } else if is_tuple(&c.keywords[n.body()]) {
            // A tuple with bounds and the items after it (`{"minItems": 2, "prefixItems":
            // [..], "items": false}`, draft 7's `items` array and `additionalItems`).
            c.nodes[i].shape = Shape::Union;
        }
    }
}

/// Whether a body is a tuple the union shape checks (see `validate::tuple`): one
/// `prefixItems`, at most one `items` after it, bounds on the length, nothing else; the
/// last keyword one of the first two (the shape's dispatch matches on it).
fn is_tuple(body: &[Keyword]) -> bool {
    let count = |f: fn(&Keyword) -> bool| body.iter().filter(|k| f(k)).count();
    matches!(
        body.last(),
        Some(Keyword::PrefixItems(_) | Keyword::Items { .. })
    ) && count(|k| matches!(k, Keyword::PrefixItems(_))) == 1
        && count(|k| matches!(k, Keyword::Items { .. })) <= 1
        && body.iter().all(|k| {
            matches!(
                k,
                Keyword::PrefixItems(_)
                    | Keyword::Items { .. }
                    | Keyword::MinItems(_)
                    | Keyword::MaxItems(_)
            )
        })
}

/// Nodes that test one property against a few literals (see `Shape::PropertyTest` and
/// `literal_test`).
#[inline(never)]
fn property_tests(c: &mut Compiled, live: &[u32]) {
    for i in live.iter().map(|&i| i as usize) {
        if !matches!(c.nodes[i].shape, Shape::PlainObject | Shape::General) {
            continue;
        }
        let Some((name, values, required)) = literal_test(c, NodeId(i as u32)) else {
            continue;
        };
        let values = kept_values(c, values);
        c.spec_of[i] = c.property_tests.len() as u32;
        c.property_tests.push(crate::schema::PropertyTest {
            name,
            values,
            required,
        });
        c.nodes[i].shape = Shape::PropertyTest;
    }
}

/// The nodes whose `allOf` (or `$ref` beside other keywords) was fused, see `fuse`,
/// forward the fail-fast path to the fused node. (Such a node has the general or the
/// union shape: its `allOf` or `$ref` keeps it from every other; the check keeps a node
/// whose shape reads `spec_of` from being misread.)
fn fused_forwards(c: &mut Compiled, fused: &[(NodeId, NodeId)]) {
    for &(node, to) in fused {
        let n = &mut c.nodes[node.index()];
        if matches!(n.shape, Shape::General | Shape::Union) {
            n.shape = Shape::Forward;
            c.spec_of[node.index()] = to.0;
        }
    }
}

/// `Compiled::if_chains`: for each `allOf` with two or more branches of the form
/// `{"if": {"properties": {K: <literals>}, "required": [K]?}, "then": .., "else": ..}`,
/// one `K` in all (the first such branch's), the literals each condition holds for.
/// (Not with a dynamic scope kept: the branches' own resources would go unentered.)
#[inline(never)]
fn if_chains(c: &mut Compiled) {
    if c.dynamic_scope {
        return;
    }
    // (The keywords of unreachable nodes too: harmless.)
    let all_ofs: Vec<Span> = c
        .keywords
        .iter()
        .filter_map(|kw| match *kw {
            Keyword::AllOf(span) if span.len() >= 2 => Some(span),
            _ => None,
        })
        .collect();
    let mut chains: Vec<crate::schema::IfChain> = Vec::new();
    let mut of = Vec::new();
    for span in all_ofs {
        // (A list copied into a fused node, see `fuse`, is met twice.)
        if of.get(span.start as usize).is_some_and(|&k| k != 0) {
            continue;
        }
        let mut key: Option<std::sync::Arc<str>> = None;
        let mut arms = Vec::new();
        for j in 0..span.len() {
            let Some((name, values, then, els)) = if_arm(c, c.node_list(span)[j]) else {
                continue;
            };
            if key.get_or_insert_with(|| name.clone()).as_ref() != name.as_ref() {
                continue;
            }
            let values = kept_values(c, values);
            arms.push(crate::schema::IfArm {
                branch: j as u32,
                values,
                then: c.fail_fast_target(then),
                els: c.fail_fast_target(els),
            });
        }
        if let Some(key) = key
            && arms.len() >= 2
        {
            if of.is_empty() {
                of = vec![0; c.node_lists.len()];
            }
            chains.push(crate::schema::IfChain {
                key,
                arms: arms.into(),
            });
            of[span.start as usize] = chains.len() as u32;
        }
    }
    if !chains.is_empty() {
        c.if_chains = Some(Box::new(crate::schema::IfChains { chains, of }));
    }
}

/// An arm of an `if` chain (see `if_chains`): the branch `b` is an `if` alone whose
/// condition is `properties` of one name, maybe with `required` of it, the name's
/// schema an `enum` or a `const`. Gives the name, the literals (a span of `values` as it
/// is, or those the schema's types admit), `then` and `else`.
fn if_arm(c: &Compiled, b: NodeId) -> Option<(std::sync::Arc<str>, Literals, NodeId, NodeId)> {
    let n = c.nodes[b.index()];
    let [Keyword::If { cond, then, els }] = c.keywords[n.body()] else {
        return None;
    };
    if n.types != TypeSet::all() || cond.is_none() {
        return None;
    }
    let cond = c.fail_fast_target(cond);
    if c.nodes[cond.index()].types != TypeSet::all() {
        return None;
    }
    let (name, values, _) = literal_test(c, cond)?;
    Some((name, values, then, els))
}

/// Literals of a schema: a span of `values`, or the ones kept of such a span.
type Literals = Result<Span, Vec<serde_json::Value>>;

/// The span of `values` that `literal_test`'s literals are: the schema's own, or those
/// kept of them, added.
fn kept_values(c: &mut Compiled, values: Literals) -> Span {
    match values {
        Ok(span) => span,
        Err(kept) => {
            let start = c.values.len() as u32;
            c.values.extend(kept);
            Span {
                start,
                end: c.values.len() as u32,
            }
        }
    }
}

/// What a node whose body is `properties` of one name, with an `enum` or `const` schema,
/// maybe beside `required` of that name alone, tests: the name, the literals its schema's
/// types admit (a span of `values`, or those kept of it), and whether it is required.
fn literal_test(c: &Compiled, node: NodeId) -> Option<(std::sync::Arc<str>, Literals, bool)> {
    let (properties, required) = match c.keywords[c.nodes[node.index()].body()] {
        [Keyword::Properties(p)] => (p, None),
        [Keyword::Properties(p), Keyword::Required(r)]
        | [Keyword::Required(r), Keyword::Properties(p)] => (p, Some(r)),
        _ => return None,
    };
    let [(ref name, child)] = c.properties[properties.range()] else {
        return None;
    };
    if let Some(r) = required
        && !matches!(&c.strings[r.range()], [only] if only.as_ref() == name.as_ref())
    {
        return None;
    }
    let (span, types) = literals(c, child)?;
    let values = if types == TypeSet::all() {
        Ok(span)
    } else {
        // (The literals the child's `type` rejects can never match.)
        Err(c.values[span.range()]
            .iter()
            .filter(|v| crate::validate::admits(types, v))
            .cloned()
            .collect())
    };
    Some((name.clone(), values, required.is_some()))
}

/// For a node (past forwards) of one `enum` or `const` and nothing else but a `type`: its
/// values (a span of `values`) and its types, which only the values they admit pass.
/// `None` for any other node, under draft-4 integer typing, and for more than
/// `LITERALS_MAX` values or a value of more than `LITERAL_SIZE` parts: the values are
/// copied and compared by the callers, once per reference to the node (a hostile schema
/// names one large literal many times).
fn literals(c: &Compiled, node: NodeId) -> Option<(Span, TypeSet)> {
    let n = c.nodes[c.fail_fast_target(node).index()];
    if n.types.is_strict() {
        return None;
    }
    let span = match c.keywords[n.body()] {
        [Keyword::Enum(s)] => s,
        [Keyword::Const(v)] => Span {
            start: v,
            end: v + 1,
        },
        _ => return None,
    };
    let small = span.len() <= LITERALS_MAX
        && c.values[span.range()].iter().all(|v| {
            let mut left = LITERAL_SIZE;
            fits(v, &mut left)
        });
    small.then_some((span, n.types))
}

/// Parts (values, nested ones included) a literal may have to be merged or copied.
const LITERAL_SIZE: u32 = 32;

/// Whether `v` has at most `left` parts (counting stops there: bounded work however
/// large `v` is).
fn fits(v: &serde_json::Value, left: &mut u32) -> bool {
    if *left == 0 {
        return false;
    }
    *left -= 1;
    match v {
        serde_json::Value::Array(items) => items.iter().all(|x| fits(x, left)),
        serde_json::Value::Object(map) => map.values().all(|x| fits(x, left)),
        _ => true,
    }
}

/// Values in a union of literals at most (past it, the branches are tried as they are).
const LITERALS_MAX: usize = 128;

/// For a `oneOf`/`anyOf` (alone in its node) whose branches are each an `enum` or a
/// `const` and nothing else (`{"anyOf": [{"const": "a", "title": "A"}, {"enum": ["b",
/// "c"]}]}`, documented choices as generators write them): the values a branch's types
/// admit, all branches' in order, the one set that decides the union. For `oneOf`, only
/// when no value is in two branches' sets: such a value fails the `oneOf`, which one
/// merged set cannot say.
fn literal_union(c: &Compiled, span: Span, one: bool) -> Option<Vec<serde_json::Value>> {
    let branches = c.node_list(span);
    if branches.len() < 2 {
        return None;
    }
    let mut values: Vec<serde_json::Value> = Vec::new();
    let mut starts = Vec::with_capacity(branches.len());
    for &b in branches {
        let (own, types) = literals(c, b)?;
        if values.len() + own.len() > LITERALS_MAX {
            return None;
        }
        starts.push(values.len());
        values.extend(
            c.values[own.range()]
                .iter()
                .filter(|v| crate::validate::admits(types, v))
                .cloned(),
        );
    }
    if one {
        // Distinct across branches (by JSON equality: `1` is `1.0`).
        starts.push(values.len());
        for w in starts.windows(2) {
            let (mine, later) = (&values[w[0]..w[1]], &values[w[1]..]);
            if mine
                .iter()
                .any(|v| later.iter().any(|u| crate::json::equal(u, v)))
            {
                return None;
            }
        }
    }
    Some(values)
}

/// A node of one `enum` of `values` (with the types of `of`, whose union they decide), for
/// the fail-fast path only: the error path evaluates `of`'s branches, and reports them.
fn literal_node(c: &mut Compiled, of: NodeId, values: Vec<serde_json::Value>) -> NodeId {
    let start = c.values.len() as u32;
    c.values.extend(values);
    let span = Span {
        start,
        end: c.values.len() as u32,
    };
    if span.len() > ENUM_SCAN_LIMIT {
        enum_table(c, span);
    }
    let k = c.keywords.len() as u32;
    c.keywords.push(Keyword::Enum(span));
    c.keyword_names.push("enum");
    let parent = c.nodes[of.index()];
    let node = crate::schema::Node {
        keywords: Span {
            start: k,
            end: k + 1,
        },
        resource: parent.resource,
        types: parent.types,
        typed: false,
        leaf: true,
        shape: Shape::Leaf,
    };
    c.append_node(node, of)
}

/// For a union (`oneOf`/`anyOf` alone in its node) whose branches admit disjoint types:
/// the branch for each kind of instance, the only one that may match it (for `oneOf` too:
/// no other can match). Needs the branches' inferred types.
fn type_switch(c: &Compiled, span: Span) -> Option<[NodeId; 6]> {
    let branches = c.node_list(span);
    let types = |j: usize| c.nodes[branches[j].index()].types;
    let disjoint =
        (0..branches.len()).all(|j| (j + 1..branches.len()).all(|k| !types(j).overlaps(types(k))));
    if branches.len() < 2 || !disjoint {
        return None;
    }
    let mut by_kind = [NodeId::NONE; 6];
    for (slot, kind) in by_kind.iter_mut().zip(INSTANCE_KINDS) {
        // (`overlaps` counts `integer` in `number`: a branch of `integer` takes the
        // numbers, and its own type test tells them apart.)
        let probe = TypeSet::empty().with(kind);
        if let Some(j) = (0..branches.len()).find(|&j| types(j).overlaps(probe)) {
            *slot = branches[j];
        }
    }
    Some(by_kind)
}

/// The `ObjectSpec` of every node of the plain-object shape (needs the fused `required`).
#[inline(never)]
fn object_specs(c: &mut Compiled, live: &[u32]) {
    for i in live.iter().map(|&i| i as usize) {
        if c.nodes[i].shape != Shape::PlainObject {
            continue;
        }
        let body = c.nodes[i].body();
        let mut spec = ObjectSpec {
            min: 0,
            max: u64::MAX,
            required: Span { start: 0, end: 0 },
            names: Span { start: 0, end: 0 },
            others: NodeId::NONE,
            walk: ObjectWalk::Keys,
            table: (Span { start: 0, end: 0 }, false),
            met: 0,
            key_names: NodeId::NONE,
        };
        for kw in &c.keywords[body] {
            match *kw {
                Keyword::Properties(span) => spec.names = span,
                Keyword::AdditionalProperties(a) => {
                    let add = c.additional[a as usize];
                    spec.names = add.properties;
                    // The fail-fast walk need not visit other keys that a schema accepting
                    // anything (`true`, `{}`) covers: MCP's `"additionalProperties": {}`.
                    if !accepts_anything(c, add.node) {
                        spec.others = add.node;
                    }
                    if add.patterns.len() > 0 {
                        spec.walk = ObjectWalk::Patterned { additional: a };
                    }
                }
                Keyword::Required(span)
                    if c.required_walked.get(span.start as usize) != Some(&true) =>
                {
                    spec.required = span;
                }
                Keyword::MinProperties(m) => spec.min = spec.min.max(m),
                Keyword::MaxProperties(m) => spec.max = spec.max.min(m),
                Keyword::PropertyNames(child) => spec.key_names = child,
                _ => {}
            }
        }
        if spec.walk == ObjectWalk::Keys && spec.names.len() == 0 {
            spec.walk = if spec.others.is_none() {
                ObjectWalk::Nothing
            } else {
                ObjectWalk::Values
            };
        }
        if !spec.key_names.is_none() {
            // (`plain_objects` keeps `propertyNames` away from the patterned walk.)
            spec.walk = ObjectWalk::Named;
        }
        spec.met = c.walk_required(spec.names);
        // An object with fewer keys than the names the walk must meet fails before the
        // walk (a tagged branch missing a required member is turned away at once).
        spec.min = spec.min.max(u64::from(spec.met));
        spec.table = c.names_table(spec.names);
        c.spec_of[i] = c.object_specs.len() as u32;
        c.object_specs.push(spec);
    }
}

/// Whether `node` accepts every instance by its types alone, with no keyword to check.
fn accepts_anything(c: &Compiled, node: NodeId) -> bool {
    let n = &c.nodes[node.index()];
    n.body().is_empty() && INSTANCE_KINDS.into_iter().all(|t| n.types.contains(t))
}

/// The nodes evaluation can reach from the root, in id order. A schema document often defines much
/// more than its root uses (the MCP schema defines every message; a tool uses one):
/// those nodes are compiled, so that their errors and reference cycles are reported,
/// but need no evaluation order, shapes or lookup tables.
///
/// Only definitions (`$defs`, `definitions`) can be unreachable: every other node is
/// a member of a reachable one or the target of a reference. Without definitions
/// (`definitions == false`) every node is reachable, and no search is made.
pub(crate) fn live_nodes(c: &Compiled, definitions: bool) -> Vec<u32> {
    if !definitions {
        return (0..c.nodes.len() as u32).collect();
    }
    let mut live = vec![false; c.nodes.len()];
    let mut stack = vec![c.root];
    live[c.root.index()] = true;
    while let Some(n) = stack.pop() {
        each_subschema(c, n, |child, _| {
            if !live[child.index()] {
                live[child.index()] = true;
                stack.push(child);
            }
        });
    }
    (0..c.nodes.len() as u32)
        .filter(|&i| live[i as usize])
        .collect()
}

#[inline(never)]
fn sort_keywords(c: &mut Compiled, cost: &[u32], live: &[u32]) {
    // Keywords: stable sort by cost; `type` first (it is checked before dispatch, see
    // `Node::types`); `unevaluated*` (cost CAP) last.
    // One scratch buffer for every node (most nodes have a handful of keywords).
    let mut pairs: Vec<(Keyword, &'static str)> = Vec::new();
    for i in live.iter().map(|&i| i as usize) {
        let range = c.nodes[i].keywords.range();
        pairs.clear();
        pairs.extend(
            c.keywords[range.clone()]
                .iter()
                .copied()
                .zip(c.keyword_names[range.clone()].iter().copied()),
        );
        let unevaluated = |k: &Keyword| {
            matches!(
                k,
                Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_)
            )
        };
        let rank = |k: &Keyword, cost: &[u32]| match k {
            Keyword::Type(_) => 0,
            _ => 1 + keyword_cost(c, k, cost),
        };
        if pairs.len() > 1 {
            pairs.sort_by_key(|(k, _)| (unevaluated(k), rank(k, cost)));
        }
        let node = &mut c.nodes[i];
        node.leaf = pairs.iter().all(|(k, _)| k.is_assertion());
        // Draft-4 integer typing needs the finer check of the keyword itself, where it
        // can tell (`integer` without `number`). The keyword keeps its set: the error it
        // reports names `1.0` a number under draft 4.
        if let Some((Keyword::Type(set), _)) = pairs.first()
            && !set.relaxed().is_strict()
        {
            node.types = set.relaxed();
            node.typed = true;
        }
        for (offset, &(k, name)) in pairs.iter().enumerate() {
            c.keywords[range.start + offset] = k;
            c.keyword_names[range.start + offset] = name;
        }
    }
}

#[inline(never)]
fn node_shapes(c: &mut Compiled, live: &[u32]) {
    // Arrays of type-only items and unions of types (need every node's hoisted type).
    c.spec_of = vec![u32::MAX; c.nodes.len()];
    for i in live.iter().map(|&i| i as usize) {
        let (mut shape, types) = type_shape(c, NodeId(i as u32));
        let body = &c.keywords[c.nodes[i].body()];
        let items_only = body.iter().all(|k| {
            matches!(
                k,
                Keyword::MinItems(_)
                    | Keyword::MaxItems(_)
                    | Keyword::UniqueItems
                    | Keyword::Items { skip: 0, .. }
            )
        }) && body
            .iter()
            .filter(|k| matches!(k, Keyword::Items { .. }))
            .count()
            == 1;
        if shape == Shape::General && items_only {
            shape = Shape::ItemsArray;
        }
        // With a dynamic scope kept, a forward must land in its own resource: the target's
        // evaluation then enters that resource itself, as the skipped node would have.
        // A lone `allOf` branch (`{"type": "object", "allOf": [{"$ref": ...}]}`) is
        // forwarded to as a `$ref` is.
        if shape == Shape::General
            && let Some(target) = forwarded_to(c, body)
            && (!c.dynamic_scope || c.nodes[target.index()].resource == c.nodes[i].resource)
        {
            shape = Shape::Forward;
        }
        let node = &mut c.nodes[i];
        node.shape = shape;
        node.types = types;
        if matches!(shape, Shape::TypedArray | Shape::ItemsArray) {
            let mut spec = ArraySpec {
                min: 0,
                max: u64::MAX,
                items: TypeSet::all(),
                kind: u8::MAX,
                item: NodeId::NONE,
                unique: false,
            };
            for kw in &c.keywords[c.nodes[i].body()] {
                match *kw {
                    Keyword::MinItems(m) => spec.min = spec.min.max(m),
                    Keyword::MaxItems(m) => spec.max = spec.max.min(m),
                    Keyword::UniqueItems => spec.unique = true,
                    Keyword::Items { node, .. } => {
                        spec.items = c.nodes[node.index()].types;
                        spec.item = node;
                    }
                    _ => {}
                }
            }
            c.spec_of[i] = c.array_specs.len() as u32;
            c.array_specs.push(spec);
        }
    }
}

/// The fail-fast path follows a node of the forward shape by a call that skips the stack
/// check: nodes more than [`MAX_FORWARDS`] forwards away from a node of another shape go
/// back to the general shape, so that such calls nest that deep at most.
#[inline(never)]
fn forward_chains(c: &mut Compiled, live: &[u32]) {
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
const MAX_FORWARDS: u32 = 16;

/// The node a node of the forward shape refers to (`None` for any other node).
fn forward_target(c: &Compiled, node: NodeId) -> Option<NodeId> {
    let n = c.nodes[node.index()];
    if n.shape != Shape::Forward {
        return None;
    }
    match c.keywords.get(n.body().start) {
        Some(&Keyword::Ref(target)) => Some(target),
        _ => forwarded_to(c, &c.keywords[n.body()]),
    }
}

/// The node a body of one `$ref`, or of an `allOf` of one branch, leads to.
fn forwarded_to(c: &Compiled, body: &[Keyword]) -> Option<NodeId> {
    match *body {
        [Keyword::Ref(target)] => Some(target),
        [Keyword::AllOf(span)] if span.len() == 1 => c.node_lists.get(span.start as usize).copied(),
        _ => None,
    }
}

/// A chain of forwards that ends on a node its types decide (`{"$ref": "#/definitions/
/// Glob"}` → `{"$ref": "#/definitions/SimpleGlob"}` → `{"type": "string"}`) accepts
/// exactly the values of the types every node of the chain admits. Its first node, when
/// it declares no `type` of its own, takes that set and the shape of a node its types
/// decide (`Shape::TypeUnion`): the fail-fast path answers at the type test, with no call.
/// (Nodes with a declared `type` keep it: the error path reports against it.)
#[inline(never)]
fn decided_forwards(c: &mut Compiled, live: &[u32]) {
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
        let Some(&spec) = c.spec_of.get(i as usize) else {
            continue;
        };
        let Some(spec) = c.array_specs.get_mut(spec as usize) else {
            continue;
        };
        let item = c.nodes[spec.item.index()];
        if item.shape == Shape::TypeUnion && !item.types.is_strict() {
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
fn forward_targets(c: &mut Compiled, live: &[u32]) {
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
        c.spec_of[i as usize] = to.0;
    }
}

/// Narrows the types of nodes that declare none to what their keywords can accept at
/// all: `{"$ref": "#/$defs/point"}` accepts objects only when `point` does, an `enum` of
/// strings strings only, a `oneOf` the union of its branches. The fail-fast path checks
/// a node's types before anything else, so a branch of the wrong type is turned down
/// without following its reference. Each round of the fixpoint keeps every set an
/// over-approximation (sets only shrink), so stopping early is safe. Nodes with a
/// declared `type` keep it (the error path reports against it).
#[inline(never)]
fn inferred_types(c: &mut Compiled, live: &[u32]) {
    let all = TypeSet::all();
    let mut accepts: Vec<TypeSet> = c.nodes.iter().map(|n| n.types).collect();
    // What each node's own keywords allow (`type`, `const`, `enum`, `false`), found once;
    // only the nodes whose set depends on others' (`$ref`, `allOf`, `anyOf`, `oneOf`) are
    // gone over again, children (minted after their parents, mostly) first.
    let mut dependent: smallvec::SmallVec<[(u32, TypeSet); 64]> = smallvec::SmallVec::new();
    for &i in live.iter().rev() {
        let n = c.nodes[i as usize];
        if n.typed || n.shape == Shape::TypeUnion || n.types.is_strict() {
            continue;
        }
        let mut set = n.types;
        let mut depends = false;
        for kw in c.keywords_of(NodeId(i)) {
            let k = match *kw {
                Keyword::False => TypeSet::empty(),
                // A draft-4 `type` not hoisted: left to the keyword.
                Keyword::Type(t) if !t.relaxed().is_strict() => t.relaxed(),
                Keyword::Const(v) => TypeSet::of_value(&c.values[v as usize]),
                Keyword::Enum(span) => c.values[span.range()]
                    .iter()
                    .fold(TypeSet::empty(), |a, v| a.union(TypeSet::of_value(v))),
                Keyword::Ref(_) | Keyword::AllOf(_) | Keyword::AnyOf(_) | Keyword::OneOf(_) => {
                    depends = true;
                    continue;
                }
                _ => continue,
            };
            if k.is_strict() {
                continue;
            }
            set = set.intersect(k);
        }
        accepts[i as usize] = set;
        if depends {
            dependent.push((i, set));
        }
    }
    // Each round keeps every set an over-approximation (sets only shrink), so stopping
    // early is safe.
    for _ in 0..8 {
        let mut changed = false;
        for &(i, own) in &dependent {
            let mut set = own;
            for kw in c.keywords_of(NodeId(i)) {
                let of = |id: &NodeId| accepts[id.index()];
                let k = match *kw {
                    Keyword::Ref(t) => accepts[t.index()],
                    Keyword::AllOf(span) => c
                        .node_list(span)
                        .iter()
                        .fold(all, |a, id| a.intersect(of(id))),
                    Keyword::AnyOf(span) | Keyword::OneOf(span) => c
                        .node_list(span)
                        .iter()
                        .fold(TypeSet::empty(), |a, id| a.union(of(id))),
                    _ => continue,
                };
                if k.is_strict() {
                    continue;
                }
                set = set.intersect(k);
            }
            if set != accepts[i as usize] {
                accepts[i as usize] = set;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for &i in live {
        let n = &mut c.nodes[i as usize];
        if !n.typed && n.shape != Shape::TypeUnion && !n.types.is_strict() {
            n.types = accepts[i as usize];
        }
    }
}

#[inline(never)]
fn property_orders(c: &mut Compiled, cost: &[u32], live: &[u32]) {
    // Properties: an evaluation order beside the name order (kept for lookups).
    c.property_order = (0..c.properties.len() as u32).collect();
    let speculative = speculative_nodes(c, live);
    let mut spans: smallvec::SmallVec<[_; 8]> = smallvec::SmallVec::new();
    for &i in live {
        let speculative = speculative.get(i as usize).copied().unwrap_or(false);
        for kw in c.keywords_of(NodeId(i)) {
            if let Keyword::Properties(span) = kw {
                spans.push((*span, speculative));
            }
        }
    }
    c.deferred_in_name_order = vec![false; c.properties.len()];
    c.property_rank = vec![0; c.properties.len()];
    for (span, speculative) in spans {
        c.property_order[span.range()].sort_by_key(|&i| cost[c.properties[i as usize].1.index()]);
        for (rank, &i) in c.property_order[span.range()].iter().enumerate() {
            c.property_rank[i as usize] = rank as u32;
        }
        // Whether the instance's own (name) order evaluates the non-leaf properties
        // cheapest first too.
        let mut costs = c.properties[span.range()]
            .iter()
            .filter(|(_, child)| !c.nodes[child.index()].leaf)
            .map(|(_, child)| cost[child.index()]);
        let mut ascending = true;
        if let Some(mut last) = costs.next() {
            for next in costs {
                ascending &= last <= next;
                last = next;
            }
        }
        // Outside `oneOf`/`anyOf`/`not`/`if`/`contains` (where failing early is the
        // point), the order hardly matters: a valid instance is walked whole anyway.
        if let Some(first) = c.deferred_in_name_order.get_mut(span.start as usize) {
            *first = !speculative || ascending;
        }
    }
}

#[inline(never)]
fn plain_objects(c: &mut Compiled, live: &[u32]) {
    // Objects checked by one walk (needs the walk orders above).
    for i in live.iter().map(|&i| i as usize) {
        let body = &c.keywords[c.nodes[i].body()];
        let mut walks = 0;
        let plain = body.iter().all(|k| match *k {
            Keyword::Properties(span) => {
                walks += 1;
                c.deferred_in_name_order.get(span.start as usize) == Some(&true)
            }
            Keyword::AdditionalProperties(_) => {
                walks += 1;
                true
            }
            Keyword::Required(_) | Keyword::MinProperties(_) | Keyword::MaxProperties(_) => true,
            // (Not beside `patternProperties`: the patterned walk has no check of names.)
            Keyword::PropertyNames(_) => !body.iter().any(|k| {
                matches!(*k, Keyword::AdditionalProperties(a)
                    if c.additional[a as usize].patterns.len() > 0)
            }),
            _ => false,
        });
        if plain && walks == 1 {
            c.nodes[i].shape = Shape::PlainObject;
        }
    }
}

#[inline(never)]
fn property_tables(c: &mut Compiled, live: &[u32]) {
    // Summaries for name lookups, sorted within each span (hash tables hold them mixed).
    c.property_sigs = c
        .properties
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (crate::names::summary(name), i as u32))
        .collect();
    let mut spans: smallvec::SmallVec<[_; 8]> = smallvec::SmallVec::new();
    for i in live.iter().map(|&i| i as usize) {
        for kw in c.keywords_of(NodeId(i as u32)) {
            match *kw {
                Keyword::Properties(span) => spans.push(span),
                Keyword::AdditionalProperties(a) => spans.push(c.additional[a as usize].properties),
                _ => {}
            }
        }
    }
    c.property_tables = vec![(0, 0); c.properties.len()];
    // (Sized once: the tables of a large schema took a megabyte in steps.)
    let hashed: usize = spans
        .iter()
        .filter(|span| span.len() > SCAN_LIMIT)
        .map(|span| (span.len() * 2).next_power_of_two())
        .sum();
    c.property_hash.reserve(hashed);
    for span in spans {
        if span.len() <= SCAN_LIMIT {
            c.property_sigs[span.range()].sort_unstable();
            continue;
        }
        if c.property_tables[span.start as usize] != (0, 0) {
            continue;
        }
        // By summary, then name (the order `find_sorted` searches), then index (the first of
        // equal names is found first, as in a scan).
        let names = &c.properties;
        c.property_sigs[span.range()].sort_unstable_by(|&(s, i), &(t, j)| {
            s.cmp(&t)
                .then_with(|| names[i as usize].0.cmp(&names[j as usize].0))
                .then(i.cmp(&j))
        });
        let start = c.property_hash.len();
        c.property_tables[span.start as usize] = match hash_names(c, span) {
            Some(mask) => (start as u32, mask),
            None => {
                c.property_hash.truncate(start);
                let mark = (
                    crate::schema::sorted_span(span),
                    crate::schema::SORTED_NAMES,
                );
                c.property_hash.push(mark);
                (start as u32, 0)
            }
        };
    }
}

/// The hash table of the names of `span` (over SCAN_LIMIT), appended to `property_hash`:
/// its mask, or `None` when a schema made its names crowd it (a signature shared by more
/// than `LARGEST_GROUP` names, a run of occupied slots longer than `LONGEST_RUN`), where
/// every lookup of a key meeting the crowd would walk it all. Building stops there too.
fn hash_names(c: &mut Compiled, span: Span) -> Option<u32> {
    use crate::names::{LARGEST_GROUP, LONGEST_RUN};
    let sigs = &c.property_sigs[span.range()];
    // (Sorted by summary: a group is a run of equal ones.)
    let mut group = 0;
    for (k, &(summary, _)) in sigs.iter().enumerate() {
        group = if k > 0 && sigs[k - 1].0 == summary {
            group + 1
        } else {
            1
        };
        if group > LARGEST_GROUP {
            return None;
        }
    }
    // Open addressing, at most half full: about one probe per lookup.
    let size = (span.len() * 2).next_power_of_two();
    let mask = size - 1;
    let start = c.property_hash.len();
    c.property_hash.resize(start + size, (0, u32::MAX));
    let table = &mut c.property_hash[start..];
    for &(summary, i) in sigs {
        let sig = crate::names::mix(summary);
        let mut slot = sig as usize & mask;
        let mut probes = 0;
        while table[slot].1 != u32::MAX {
            slot = (slot + 1) & mask;
            probes += 1;
            if probes > LONGEST_RUN {
                return None;
            }
        }
        table[slot] = (sig, i);
    }
    // A run no insertion walked can still be long (names whose slots follow each other):
    // measured from an empty slot, which a half-full table has.
    let empty = table.iter().position(|e| e.1 == u32::MAX)?;
    let mut run = 0;
    for k in 1..=size {
        if table[(empty + k) & mask].1 == u32::MAX {
            run = 0;
        } else {
            run += 1;
            if run > LONGEST_RUN {
                return None;
            }
        }
    }
    u32::try_from(mask).ok()
}

/// The hash table of the `enum` values `span`, longer than `ENUM_SCAN_LIMIT` (see
/// `Compiled::enum_has_string`), made as the keyword compiles.
pub(crate) fn enum_table(c: &mut Compiled, span: Span) {
    if c.enum_tables.len() < c.values.len() {
        c.enum_tables.resize(c.values.len(), (0, 0));
    }
    // Open addressing, at most half full.
    let size = (span.len() * 2).next_power_of_two();
    let mask = size - 1;
    let start = c.enum_hash.len();
    c.enum_hash.resize(start + size, (0, u32::MAX));
    for j in span.range() {
        let sig = crate::json::enum_signature(&c.values[j]);
        let mut slot = crate::json::table_slot(sig) & mask;
        while c.enum_hash[start + slot].1 != u32::MAX {
            slot = (slot + 1) & mask;
        }
        c.enum_hash[start + slot] = (sig, j as u32);
    }
    c.enum_tables[span.start as usize] = (start as u32, mask as u32);
}

/// Lets the fail-fast walk of an object's keys (`properties`, or `additionalProperties`
/// with its siblings) check the node's `required` by counting the required names it meets,
/// when they are all declared and distinct: no separate lookup per name.
#[inline(never)]
fn fuse_required(c: &mut Compiled, live: &[u32]) {
    c.property_required = vec![false; c.properties.len()];
    c.walk_required = vec![0; c.properties.len()];
    c.required_walked = vec![false; c.strings.len()];
    let mut found: smallvec::SmallVec<[usize; 16]> = smallvec::SmallVec::new();
    for i in live.iter().map(|&i| i as usize) {
        let mut required = None;
        let mut walked = None;
        for kw in c.keywords_of(NodeId(i as u32)) {
            match *kw {
                Keyword::Required(span) => required = Some(span),
                Keyword::Properties(span) => walked = Some(span),
                Keyword::AdditionalProperties(a) => {
                    walked = Some(c.additional[a as usize].properties)
                }
                _ => {}
            }
        }
        let (Some(required), Some(walked)) = (required, walked) else {
            continue;
        };
        found.clear();
        for name in &c.strings[required.range()] {
            match c.find_property(walked, name) {
                Some(j) if !found.contains(&j) => found.push(j),
                _ => {
                    found.clear();
                    break;
                }
            }
        }
        if found.is_empty() || c.walk_required[walked.start as usize] != 0 {
            continue;
        }
        for &j in &found {
            c.property_required[j] = true;
        }
        c.walk_required[walked.start as usize] = found.len() as u32;
        c.required_walked[required.start as usize] = true;
    }
}

/// The tables the general keyword loop reads, for the reference configuration (see
/// `Options::shortcuts`): name lookups, and evaluation in compiled order. No shape, type
/// hoisting, cost order, fused `required`, forward skipping or other shortcut is made;
/// every node keeps the general shape and all types.
pub(crate) fn reference_tables(c: &mut Compiled) {
    let all: Vec<u32> = (0..c.nodes.len() as u32).collect();
    property_tables(c, &all);
    let n = c.properties.len();
    c.property_order = (0..n as u32).collect();
    c.property_rank = vec![0; n];
    for i in all.iter().map(|&i| i as usize) {
        for kw in &c.keywords[c.nodes[i].keywords.range()] {
            if let Keyword::Properties(span) = *kw {
                for (rank, j) in span.range().enumerate() {
                    c.property_rank[j] = rank as u32;
                }
            }
        }
    }
    // The fail-fast `properties` walks the instance's keys and looks each one up: the
    // plainest order, with no required name counted on the way.
    c.deferred_in_name_order = vec![true; n];
    c.property_required = vec![false; n];
    c.walk_required = vec![0; n];
    c.required_walked = vec![false; c.strings.len()];
    c.property_patterned = vec![false; n];
    c.property_walk = walk_entries(c, |_, b| b);
    c.fail_fast_root = c.root;
}

#[cfg(test)]
mod tests {
    use crate::schema::Shape;
    use serde_json::json;

    /// The reference configuration builds no shortcut: every node keeps the general shape,
    /// all types and no hoisted `type`; no dispatch, exclusivity, chain, spec, fused
    /// `required`, forward target or long-`enum` table exists.
    #[test]
    fn the_reference_configuration_builds_no_shortcut() {
        let enum_values: Vec<_> = (0..40).map(|i| json!(format!("v{i}"))).collect();
        let schema = json!({
            "$ref": "#/$defs/root",
            "$defs": {"root": {
                "type": "object",
                "properties": {
                    "kind": {"enum": enum_values},
                    "items": {"type": "array", "items": {"type": "number"}, "maxItems": 3},
                    "choice": {"oneOf": [
                        {"type": "object", "properties": {"op": {"const": "a"}}, "required": ["op"]},
                        {"type": "object", "properties": {"op": {"const": "b"}}, "required": ["op"]}
                    ]},
                    "literal": {"anyOf": [{"const": 1}, {"const": 2}]}
                },
                "required": ["kind"],
                "allOf": [
                    {"if": {"properties": {"kind": {"const": "v1"}}}, "then": {"required": ["items"]}},
                    {"if": {"properties": {"kind": {"const": "v2"}}}, "then": {"required": ["choice"]}},
                    {"$ref": "#/$defs/extra"}
                ]
            },
            "extra": {"properties": {"extra": {"type": "string"}}}}
        });
        let fast = crate::Options::new().compile(&schema).unwrap();
        let reference = crate::Options::new()
            .shortcuts(false)
            .compile(&schema)
            .unwrap();
        let (f, r) = (&fast.compiled, &reference.compiled);
        // (The default configuration builds several of them on this schema.)
        assert!(f.nodes.iter().any(|n| n.shape != Shape::General));
        assert!(!f.dispatches.is_empty() && f.fail_fast_root != f.root);
        assert!(r.nodes.iter().all(|n| n.shape == Shape::General
            && !n.typed
            && !n.leaf
            && n.types == crate::json::TypeSet::all()));
        assert!(r.dispatches.is_empty() && r.list_exclusive.iter().all(|&x| !x));
        assert!(r.if_chains.is_none() && r.unevaluated.is_empty());
        assert!(r.array_specs.is_empty() && r.object_specs.is_empty());
        assert!(r.property_tests.is_empty() && r.type_switches.is_empty());
        assert!(r.branch_targets.is_empty() && r.spec_of.is_empty());
        assert!(r.required_walked.iter().all(|&x| !x));
        assert!(r.walk_required.iter().all(|&x| x == 0));
        assert!(r.enum_hash.is_empty() && !f.enum_hash.is_empty());
        assert_eq!(r.fail_fast_root, r.root);
        // The same verdicts.
        for instance in [
            json!({"kind": "v1", "items": [1, 2]}),
            json!({"kind": "v1"}),
            json!({"kind": "v2", "choice": {"op": "b"}}),
            json!({"kind": "v2", "choice": {"op": "c"}}),
            json!({"kind": "v9", "literal": 2, "extra": "x"}),
            json!({"kind": "v9", "literal": 3}),
            json!({"kind": "nope"}),
        ] {
            assert_eq!(
                fast.is_valid(&instance),
                reference.is_valid(&instance),
                "{instance}"
            );
        }
    }
}
