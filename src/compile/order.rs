//! Evaluation order: cheap, likely-failing checks first.
//!
//! Keywords of a node are independent (except `unevaluated*`, which stay last), and so are
//! the entries of `properties`, so their order is free. A failing `oneOf` branch should
//! fail on its cheap discriminator (`"version": {"const": 2}`) before it walks a large
//! sibling property; a static cost estimate per node orders both.

use crate::schema::{Compiled, Keyword, NodeId};

/// Caps the estimate so recursive schemas stay finite.
const CAP: u32 = 1_000_000;

/// A static estimate of what evaluating each node costs.
fn node_costs(c: &Compiled) -> Vec<u32> {
    let n = c.nodes.len();
    let local: Vec<u32> = (0..n)
        .map(|i| c.keywords_of(NodeId(i as u32)).len() as u32)
        .collect();
    let mut cost = local.clone();
    // A few rounds of relaxation through children: deep enough to tell a `const` from a
    // large object schema, and finite on recursive schemas.
    for _ in 0..4 {
        let prev = cost.clone();
        for (i, slot) in cost.iter_mut().enumerate() {
            let mut total = local[i];
            for kw in c.keywords_of(NodeId(i as u32)) {
                total = total.saturating_add(keyword_cost(c, kw, &prev));
            }
            *slot = total.min(CAP);
        }
    }
    cost
}

fn keyword_cost(c: &Compiled, kw: &Keyword, cost: &[u32]) -> u32 {
    let of = |id: NodeId| if id.is_none() { 0 } else { cost[id.index()] };
    let sum = |ids: &[NodeId]| ids.iter().fold(0u32, |a, &id| a.saturating_add(of(id)));
    match *kw {
        Keyword::False | Keyword::Type(_) | Keyword::Const(_) => 1,
        Keyword::Enum(span) => 1 + span.len() as u32 / 4,
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

/// Reorders each node's keywords and each `properties` by estimated cost, and marks the
/// nodes that hold assertions only.
pub(crate) fn optimize(c: &mut Compiled) {
    for i in 0..c.nodes.len() {
        let leaf = c
            .keywords_of(NodeId(i as u32))
            .iter()
            .all(Keyword::is_assertion);
        c.nodes[i].leaf = leaf;
        c.nodes[i].only_type = match c.keywords_of(NodeId(i as u32)) {
            [Keyword::Type(set)] if !set.is_strict() => Some(*set),
            _ => None,
        };
    }
    let cost = node_costs(c);
    // Keywords: stable sort by cost; `unevaluated*` (cost CAP) end up last.
    for i in 0..c.nodes.len() {
        let range = c.nodes[i].keywords.range();
        if range.len() < 2 {
            continue;
        }
        let mut pairs: Vec<(Keyword, &'static str)> = c.keywords[range.clone()]
            .iter()
            .copied()
            .zip(c.keyword_names[range.clone()].iter().copied())
            .collect();
        let unevaluated = |k: &Keyword| {
            matches!(
                k,
                Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_)
            )
        };
        pairs.sort_by_key(|(k, _)| (unevaluated(k), keyword_cost(c, k, &cost)));
        for (offset, (k, name)) in pairs.into_iter().enumerate() {
            c.keywords[range.start + offset] = k;
            c.keyword_names[range.start + offset] = name;
        }
    }
    // Properties: an evaluation order beside the name order (kept for lookups).
    c.property_order = (0..c.properties.len() as u32).collect();
    let mut spans = Vec::new();
    for kw in &c.keywords {
        if let Keyword::Properties(span) = kw {
            spans.push(*span);
        }
    }
    for span in spans {
        c.property_order[span.range()].sort_by_key(|&i| cost[c.properties[i as usize].1.index()]);
    }
}
