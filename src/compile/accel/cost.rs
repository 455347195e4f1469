//! The static cost estimate per node, and the orders it decides: a node's keywords and
//! its `properties` entries cheap and likely-failing first (`unevaluated*` stay last).

use super::*;

/// Caps the estimate so recursive schemas stay finite.
pub(super) const CAP: u32 = 1_000_000;

/// A static estimate of what evaluating each node costs.
#[inline(never)]
pub(super) fn node_costs(c: &Compiled, live: &[u32]) -> Vec<u32> {
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

pub(super) fn keyword_cost(c: &Compiled, kw: &Keyword, cost: &[u32]) -> u32 {
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
            let a = c.additional[i.index()];
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
        Keyword::Contains(i) => 4 + of(c.contains[i.index()].node).saturating_mul(4),
        Keyword::AllOf(span) | Keyword::AnyOf(span) | Keyword::OneOf(span) => {
            sum(c.node_list(span))
        }
        Keyword::Not(id) | Keyword::Ref(id) => of(id),
        Keyword::If { cond, then, els } => of(cond).saturating_add(of(then).max(of(els))),
        Keyword::DynamicRef(i) => 10 + of(c.dynamic_refs[i.index()].target),
        Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_) => CAP,
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
pub(super) fn speculative_nodes(c: &Compiled, live: &[u32]) -> Vec<bool> {
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
                Keyword::Contains(j) => stack.push(c.contains[j.index()].node),
                Keyword::Properties(_)
                | Keyword::PatternProperties(_)
                | Keyword::AdditionalProperties(_)
                | Keyword::PropertyNames(_)
                | Keyword::DependentSchemas(_)
                | Keyword::PrefixItems(_)
                | Keyword::Items { .. }
                | Keyword::AllOf(_)
                | Keyword::Ref(_)
                | Keyword::DynamicRef(_)
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_)
                | crate::schema::assertion_keywords!() => {}
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

#[inline(never)]
pub(super) fn sort_keywords(c: &mut Compiled, cost: &[u32], live: &[u32]) {
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
            Keyword::False
            | Keyword::Const(_)
            | Keyword::Enum(_)
            | Keyword::MultipleOf(_)
            | Keyword::MaxLength(_)
            | Keyword::MinLength(_)
            | Keyword::Pattern(_)
            | Keyword::Format(_)
            | Keyword::MaxItems(_)
            | Keyword::MinItems(_)
            | Keyword::UniqueItems
            | Keyword::MaxProperties(_)
            | Keyword::MinProperties(_)
            | Keyword::Required(_)
            | Keyword::DependentRequired(_)
            | Keyword::Content(_)
            | crate::schema::bound_keywords!()
            | crate::schema::applicator_keywords!() => 1 + keyword_cost(c, k, cost),
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
pub(super) fn property_orders(c: &mut Compiled, cost: &[u32], live: &[u32]) {
    // Properties: an evaluation order beside the name order (kept for lookups).
    c.accel.property_order = (0..c.properties.len() as u32).collect();
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
    c.accel.deferred_in_name_order = vec![false; c.properties.len()];
    c.accel.property_rank = vec![0; c.properties.len()];
    for (span, speculative) in spans {
        c.accel.property_order[span.range()]
            .sort_by_key(|&i| cost[c.properties[i as usize].1.index()]);
        for (rank, &i) in c.accel.property_order[span.range()].iter().enumerate() {
            c.accel.property_rank[i as usize] = rank as u32;
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
        if let Some(first) = c.accel.deferred_in_name_order.get_mut(span.start as usize) {
            *first = !speculative || ascending;
        }
    }
}
