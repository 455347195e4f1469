//! The accelerators: tables and node forms built at compile time for the fail-fast path
//! (`is_valid`), each in the module named for it. None is built under
//! `Options::shortcuts(false)` (the reference configuration), where the general keyword
//! loop alone decides; every one is checked against that configuration by the suites.
//!
//! [`optimize`] runs them in order; [`live_nodes`] says which nodes they work on.

pub(super) mod all_of;
mod cost;
mod coverage;
mod discriminator;
mod exclusive;
mod forwards;
mod if_chains;
pub(super) mod lookups;
mod object_walk;
mod presence;
mod property_test;
mod shapes;
pub(super) mod summaries;
mod unevaluated;
mod unions;

use cost::*;
use coverage::*;
use discriminator::*;
use exclusive::*;
use forwards::*;
use if_chains::*;
use lookups::{enum_table, property_tables, walk_entries};
use object_walk::*;
use presence::*;
use property_test::*;
use shapes::*;
use unevaluated::*;
use unions::*;

use crate::json::{INSTANCE_KINDS, TypeSet};
use crate::schema::{
    ArraySpec, Compiled, DispatchId, ENUM_SCAN_LIMIT, FEW_NAMES, FewNames, Filter, Keyword, NodeId,
    ObjectSpec, ObjectWalk, Shape, Span,
};

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
                let a = c.additional[i.index()];
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
            Keyword::Contains(i) => f(c.contains[i.index()].node, false),
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
                let d = c.dynamic_refs[i.index()];
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
    // (Last of the shapes: every table below reads them.)
    covered_shapes(c, fused);
    branch_targets(c);
    few_names(c);
    patterned_names(c);
    unevaluated_specs(c, live);
    for spec in &mut c.accel.array_specs {
        spec.kind = spec.items.single_kind().unwrap_or(u8::MAX);
    }
    if conditions {
        if_chains(c);
    }
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

/// For every `oneOf`/`anyOf` list: its discriminator dispatch, whether it is exclusive
/// (`oneOf` only), and its branches' presence filters.
pub(crate) fn branch_lists(c: &mut Compiled, live: &[u32]) {
    c.accel.list_dispatch = vec![DispatchId::NONE; c.node_lists.len()];
    c.accel.list_exclusive = vec![false; c.node_lists.len()];
    let mut spans = Vec::new();
    for i in live.iter().map(|&i| i as usize) {
        for kw in c.keywords_of(NodeId(i as u32)) {
            match *kw {
                Keyword::AnyOf(span) => spans.push((span, false)),
                Keyword::OneOf(span) => spans.push((span, true)),
                Keyword::Properties(_)
                | Keyword::PatternProperties(_)
                | Keyword::AdditionalProperties(_)
                | Keyword::PropertyNames(_)
                | Keyword::DependentSchemas(_)
                | Keyword::PrefixItems(_)
                | Keyword::Items { .. }
                | Keyword::Contains(_)
                | Keyword::AllOf(_)
                | Keyword::Not(_)
                | Keyword::If { .. }
                | Keyword::Ref(_)
                | Keyword::DynamicRef(_)
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_)
                | crate::schema::assertion_keywords!() => {}
            }
        }
    }
    for (span, one_of) in spans {
        if span.len() == 0 {
            continue;
        }
        reset_work();
        let at = span.start as usize;
        if c.accel.list_dispatch[at] == DispatchId::NONE
            && let Some(d) = build(c, span)
        {
            c.accel.dispatches.push(d);
            c.accel.list_dispatch[at] = DispatchId::new(c.accel.dispatches.len() - 1);
        }
        if one_of && !c.accel.list_exclusive[at] {
            let dispatch = c.accel.dispatches.get(c.accel.list_dispatch[at].index());
            c.accel.list_exclusive[at] = exclusive(c, span, dispatch);
        }
        if c.accel.list_presence.get(at) != Some(&true) {
            // Not for a branch that requires the dispatch's tag and lists its values: an
            // object the tag admits there was picked by it, its names are most likely
            // there too, and the lookups would be wasted.
            let dispatch = c.accel.dispatches.get(c.accel.list_dispatch[at].index());
            let picked_by_tag = |j: usize| {
                dispatch.is_some_and(|d| {
                    matches!(
                        d.filters.get(j),
                        Some(Filter::Accept {
                            values: Some(_),
                            required: true,
                            ..
                        })
                    )
                })
            };
            let found: Vec<Option<Box<[std::sync::Arc<str>]>>> = c
                .node_list(span)
                .iter()
                .enumerate()
                .map(|(j, &b)| {
                    (!picked_by_tag(j))
                        .then(|| {
                            let mut calls = PRESENCE_CALLS;
                            presence(c, b, 0, &mut calls).map(Vec::into_boxed_slice)
                        })
                        .flatten()
                })
                .collect();
            // Branches that all need the same names are not told apart by them: each
            // fails on its own `required` as cheaply as the lookup would.
            let alike = found.windows(2).all(|w| match (&w[0], &w[1]) {
                (Some(a), Some(b)) => a.len() == b.len() && a.iter().all(|n| b.contains(n)),
                _ => false,
            });
            if found.iter().any(Option::is_some) && !alike {
                if c.accel.presence.is_empty() {
                    c.accel.presence = vec![None; c.node_lists.len()];
                    c.accel.list_presence = vec![false; c.node_lists.len()];
                }
                for (j, names) in found.into_iter().enumerate() {
                    c.accel.presence[at + j] = names;
                }
                c.accel.list_presence[at] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::Shape;
    use serde_json::json;

    /// The reference configuration builds no shortcut: every node keeps the general shape,
    /// all types and no hoisted `type`; the accelerator part of `Compiled` is empty (no
    /// dispatch, exclusivity, chain, spec, fused `required`, forward target, order or
    /// lookup table), and the verdicts are the same.
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
        assert!(!f.accel.dispatches.is_empty() && f.accel.fail_fast_root != f.root);
        assert!(r.nodes.iter().all(|n| n.shape == Shape::General
            && !n.typed
            && !n.leaf
            && n.types == crate::json::TypeSet::all()));
        // No accelerator at all: the general keyword loop acts on nothing but the semantic
        // tables (`Accelerators::is_empty` lists every table).
        assert!(r.accel.is_empty(), "{:?}", r.accel);
        assert!(!f.accel.is_empty() && !f.accel.enum_hash.is_empty());
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

    /// Without lookup tables, the keyword loop finds declared names by binary search of
    /// the sorted `properties` span (`Names::find_in_span`): spans past `SCAN_LIMIT`
    /// (hashed with shortcuts) and short ones, beside `additionalProperties`, give the
    /// verdicts and errors of the default configuration.
    #[test]
    fn names_are_found_without_lookup_tables() {
        let names: Vec<String> = (0..20).map(|i| format!("name{i:02}")).collect();
        let properties: serde_json::Map<String, serde_json::Value> = names
            .iter()
            .map(|n| (n.clone(), json!({"type": "integer"})))
            .collect();
        let schema = json!({
            "properties": {
                "long": {"properties": properties.clone(), "additionalProperties": false},
                "open": {"properties": properties},
                "short": {"properties": {"a": {"type": "string"}, "b": {"type": "null"}},
                          "additionalProperties": {"type": "boolean"}}
            }
        });
        let fast = crate::Options::new().compile(&schema).unwrap();
        let reference = crate::Options::new()
            .shortcuts(false)
            .compile(&schema)
            .unwrap();
        assert!(reference.compiled.accel.is_empty());
        assert!(crate::schema::SCAN_LIMIT < names.len());
        for instance in [
            json!({"long": {"name00": 1, "name19": 2, "name07": 3}}),
            json!({"long": {"name00": 1, "name19": "x"}}),
            json!({"long": {"name05": 1, "other": 2}}),
            json!({"open": {"name13": "x", "other": 2}}),
            json!({"open": {"name13": 4, "other": "y"}}),
            json!({"short": {"a": "x", "b": null, "c": true}}),
            json!({"short": {"a": 1}}),
            json!({"short": {"z": 1}}),
        ] {
            let verdict = fast.is_valid(&instance);
            assert_eq!(verdict, reference.is_valid(&instance), "{instance}");
            let errors = |s: &crate::Schema| -> Vec<String> {
                s.errors_unchecked(&instance)
                    .iter()
                    .map(|e| e.to_string())
                    .collect()
            };
            assert_eq!(errors(&fast), errors(&reference), "{instance}");
            assert_eq!(verdict, errors(&reference).is_empty(), "{instance}");
        }
    }
}
