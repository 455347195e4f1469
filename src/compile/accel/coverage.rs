//! The rule every shape keeps: a node's shape implements every keyword of its body.
//!
//! Each shape is chosen by its own pass, from the body's form at that moment, and some
//! passes change a shape later (an items array becomes a typed array once its items'
//! `$ref` is found to be decided by types). A pass that forgot a keyword would have the
//! fail-fast path skip it: `uniqueItems` beside `items` of a `$ref` to `{"type":
//! "string"}` once accepted `["a", "a"]`. So once every shape is settled, [`covered_shapes`]
//! checks each node's whole body against what its shape's fail-fast function implements
//! (one exhaustive list per shape, beside that function's own `match`) and against what
//! its spec recorded, and gives a node with a keyword left over the shape that does
//! implement it: the items-array shape for a typed array, the general keyword loop
//! otherwise.

use super::*;

/// Gives every node whose shape does not implement its whole body (see the module's
/// comment) a shape that does. Returns how many nodes were changed (none, unless a pass
/// broke the rule).
#[inline(never)]
pub(super) fn covered_shapes(c: &mut Compiled, fused: &[(NodeId, NodeId)]) -> usize {
    let mut changed = 0;
    // A forward decided by its target's types is checked against that target: a round
    // per link of a chain at most.
    for _ in 0..=MAX_FORWARDS + 1 {
        let mut more = false;
        for i in 0..c.nodes.len() {
            let node = NodeId(i as u32);
            if covers(c, node, fused) {
                continue;
            }
            let was = c.nodes[i].shape;
            c.nodes[i].shape = Shape::General;
            if was == Shape::TypedArray {
                c.nodes[i].shape = Shape::ItemsArray;
                if !items_array_covers(c, node) {
                    c.nodes[i].shape = Shape::General;
                }
            }
            changed += 1;
            more = true;
        }
        if !more {
            break;
        }
    }
    changed
}

/// Whether the shape of `node` implements every keyword of its body.
fn covers(c: &Compiled, node: NodeId, fused: &[(NodeId, NodeId)]) -> bool {
    let n = c.nodes[node.index()];
    let body = &c.keywords[n.body()];
    match n.shape {
        Shape::General => true,
        Shape::Empty => body.is_empty(),
        Shape::Leaf => body.iter().all(Keyword::is_assertion),
        Shape::TypeUnion => type_union_covers(c, node),
        Shape::TypedArray => typed_array_covers(c, node),
        Shape::ItemsArray => items_array_covers(c, node),
        Shape::PlainObject => plain_object_covers(c, node),
        Shape::PropertyTest => literal_test(c, node).is_some(),
        Shape::TypeSwitch => match *body {
            [Keyword::AnyOf(span) | Keyword::OneOf(span)] => {
                type_switch(c, span).is_some() && c.type_switch(node).is_some()
            }
            _ => false,
        },
        // (`validate::union` matches these forms and leaves any other body to the loop.)
        Shape::Union => {
            matches!(
                body,
                [Keyword::AnyOf(_)
                    | Keyword::OneOf(_)
                    | Keyword::AllOf(_)
                    | Keyword::PrefixItems(_)
                    | Keyword::If { .. }
                    | Keyword::Not(_)
                    | Keyword::Contains(_)]
            ) || is_tuple(body)
        }
        Shape::Forward => {
            let target = c.accel.spec_of.get(node.index()).copied();
            let target = target.filter(|&t| (t as usize) < c.nodes.len());
            // A fused node checks every keyword of the node (see `all_of`).
            fused
                .iter()
                .any(|&(from, to)| from == node && Some(to.0) == target)
                || match *body {
                    [Keyword::Ref(t)] => target.is_some_and(|to| reaches(c, t, NodeId(to))),
                    [Keyword::AllOf(span)] if span.len() == 1 => {
                        target.is_some_and(|to| reaches(c, c.node_list(span)[0], NodeId(to)))
                    }
                    // A union of literals goes on to one `enum` of them all.
                    [Keyword::AnyOf(_) | Keyword::OneOf(_)] => target
                        .is_some_and(|to| matches!(c.keywords_of(NodeId(to)), [Keyword::Enum(_)])),
                    _ => false,
                }
        }
    }
}

/// Whether the fail-fast path may go from a forward to `to` in place of `first`, its
/// reference: `to` is `first` or lies past forwards (nodes of one `$ref` or one-branch
/// `allOf`) that check no type `to` does not (see `forwards::forward_targets`).
fn reaches(c: &Compiled, first: NodeId, to: NodeId) -> bool {
    let mut at = first;
    for _ in 0..=MAX_FORWARDS + 1 {
        if at == to {
            return true;
        }
        let n = c.nodes[at.index()];
        if n.typed || n.types.is_strict() {
            return false;
        }
        at = match c.keywords[n.body()] {
            [Keyword::Ref(t)] => t,
            [Keyword::AllOf(span)] if span.len() == 1 => c.node_list(span)[0],
            _ => return false,
        };
    }
    false
}

/// The same instances admitted (`number` holds the integers, however written).
fn same_types(a: TypeSet, b: TypeSet) -> bool {
    !a.is_strict() && !b.is_strict() && a.intersect(TypeSet::all()) == b.intersect(TypeSet::all())
}

/// A node of a type only: no keyword, types that need no finer check.
fn type_only(c: &Compiled, node: NodeId) -> bool {
    let n = c.nodes[node.index()];
    n.body().is_empty() && !n.types.is_strict()
}

/// A node the types decide (`Shape::TypeUnion`): its body is a union of types only, a
/// `not` of a type only, or a reference (or one-branch `allOf`) to a node the types
/// decide; and its types are what that body admits.
fn type_union_covers(c: &Compiled, node: NodeId) -> bool {
    let n = c.nodes[node.index()];
    match c.keywords[n.body()] {
        [Keyword::AnyOf(span) | Keyword::OneOf(span)] => {
            let one = matches!(c.keywords[n.body()], [Keyword::OneOf(_)]);
            let branches = c.node_list(span);
            let types = |j: usize| c.nodes[branches[j].index()].types;
            !n.typed
                && branches.iter().all(|&b| type_only(c, b))
                && (!one
                    || (0..branches.len())
                        .all(|j| (j + 1..branches.len()).all(|k| !types(j).overlaps(types(k)))))
                && same_types(
                    n.types,
                    (0..branches.len()).fold(TypeSet::empty(), |a, j| a.union(types(j))),
                )
        }
        [Keyword::Not(child)] => {
            !n.typed
                && type_only(c, child)
                && c.nodes[child.index()]
                    .types
                    .complement()
                    .is_some_and(|rest| same_types(n.types, rest))
        }
        [Keyword::Ref(t)] => decided_target(c, n, t),
        [Keyword::AllOf(span)] if span.len() == 1 => decided_target(c, n, c.node_list(span)[0]),
        _ => false,
    }
}

/// Whether a node that only refers to `t` is decided by its types: the references from
/// `t` on (each `$ref` or one-branch `allOf` alone, maybe typed) end on a node the types
/// decide, and the node admits the types every node of that chain admits (no more: the
/// chain rejects the rest; no fewer: the node declares no `type` of its own).
fn decided_target(c: &Compiled, n: crate::schema::Node, t: NodeId) -> bool {
    if n.typed {
        return false;
    }
    let mut set = TypeSet::all();
    let mut at = t;
    for _ in 0..=MAX_FORWARDS + 1 {
        let a = c.nodes[at.index()];
        if a.types.is_strict() {
            return false;
        }
        set = set.intersect(a.types);
        if a.shape.decided_by_types() || type_only(c, at) {
            return same_types(n.types, set);
        }
        at = match c.keywords[a.body()] {
            [Keyword::Ref(x)] => x,
            [Keyword::AllOf(span)] if span.len() == 1 => c.node_list(span)[0],
            _ => return false,
        };
    }
    false
}

/// What a node of the items-array shape checks (see `validate::items_array`): its body is
/// `minItems`, `maxItems`, `uniqueItems` and one `items` from the first item, and its
/// spec holds each of them.
fn items_array_covers(c: &Compiled, node: NodeId) -> bool {
    let Some(spec) = c.array_spec(node) else {
        return false;
    };
    let body = &c.keywords[c.nodes[node.index()].body()];
    let mut items = 0;
    let mut unique = false;
    let mut min = 0;
    let mut max = u64::MAX;
    for kw in body {
        match *kw {
            Keyword::MinItems(m) => min = min.max(m),
            Keyword::MaxItems(m) => max = max.min(m),
            Keyword::UniqueItems => unique = true,
            Keyword::Items {
                node: item,
                skip: 0,
            } if item == spec.item => items += 1,
            Keyword::False
            | Keyword::Type(_)
            | Keyword::Const(_)
            | Keyword::Enum(_)
            | Keyword::MultipleOf(_)
            | Keyword::MaxLength(_)
            | Keyword::MinLength(_)
            | Keyword::Pattern(_)
            | Keyword::Format(_)
            | Keyword::MaxProperties(_)
            | Keyword::MinProperties(_)
            | Keyword::Required(_)
            | Keyword::DependentRequired(_)
            | Keyword::Properties(_)
            | Keyword::PatternProperties(_)
            | Keyword::AdditionalProperties(_)
            | Keyword::PropertyNames(_)
            | Keyword::DependentSchemas(_)
            | Keyword::PrefixItems(_)
            | Keyword::Items { .. }
            | Keyword::Contains(_)
            | Keyword::AllOf(_)
            | Keyword::AnyOf(_)
            | Keyword::OneOf(_)
            | Keyword::Not(_)
            | Keyword::If { .. }
            | Keyword::Ref(_)
            | Keyword::DynamicRef(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | Keyword::Content(_)
            | crate::schema::bound_keywords!() => return false,
        }
    }
    items == 1 && spec.unique == unique && spec.min == min && spec.max == max
}

/// What a node of the typed-array shape checks (see `validate::typed_array`): the bounds
/// and the items' types, nothing else — no `uniqueItems` — and its items' schema is
/// decided by those types.
fn typed_array_covers(c: &Compiled, node: NodeId) -> bool {
    let Some(spec) = c.array_spec(node) else {
        return false;
    };
    let item = c.nodes[spec.item.index()];
    items_array_covers(c, node)
        && !spec.unique
        && (item.shape.decided_by_types() || type_only(c, spec.item))
        && same_types(spec.items, item.types)
}

/// What a node of the plain-object shape checks (see `validate::plain_object`): one walk
/// (`properties`, or `additionalProperties` with its siblings), `required`, the bounds,
/// `propertyNames` (not beside patterns, which the named walk does not try).
fn plain_object_covers(c: &Compiled, node: NodeId) -> bool {
    if c.object_spec(node).is_none() {
        return false;
    }
    let body = &c.keywords[c.nodes[node.index()].body()];
    let mut walks = 0;
    let mut names = false;
    let mut patterns = false;
    for kw in body {
        match *kw {
            Keyword::Properties(_) => walks += 1,
            Keyword::AdditionalProperties(a) => {
                walks += 1;
                patterns |= c.additional[a.index()].patterns.len() > 0;
            }
            Keyword::PropertyNames(_) => names = true,
            Keyword::Required(_) | Keyword::MinProperties(_) | Keyword::MaxProperties(_) => {}
            Keyword::False
            | Keyword::Type(_)
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
            | Keyword::DependentRequired(_)
            | Keyword::PatternProperties(_)
            | Keyword::DependentSchemas(_)
            | Keyword::PrefixItems(_)
            | Keyword::Items { .. }
            | Keyword::Contains(_)
            | Keyword::AllOf(_)
            | Keyword::AnyOf(_)
            | Keyword::OneOf(_)
            | Keyword::Not(_)
            | Keyword::If { .. }
            | Keyword::Ref(_)
            | Keyword::DynamicRef(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | Keyword::Content(_)
            | crate::schema::bound_keywords!() => return false,
        }
    }
    walks == 1 && !(names && patterns)
}

#[cfg(test)]
mod tests {
    use crate::schema::{Keyword, Shape};
    use serde_json::json;

    /// A shape forced on a node whose body holds a keyword it does not implement is put
    /// back: the check does not trust the passes that chose the shapes.
    #[test]
    fn a_shape_that_misses_a_keyword_is_put_back() {
        let schema = crate::Schema::compile(&json!({
            "type": "array",
            "uniqueItems": true,
            "minItems": 1,
            "items": {"type": "string"}
        }))
        .unwrap();
        let mut c = std::sync::Arc::try_unwrap(schema.compiled).unwrap();
        let root = c.root;
        // (The items array keeps its shape: it implements `uniqueItems`.)
        assert_eq!(c.nodes[root.index()].shape, Shape::ItemsArray);
        assert_eq!(super::covered_shapes(&mut c, &[]), 0);
        // Told it is a typed array (which checks no uniqueness), and its spec told so
        // too, it goes back to the items-array shape.
        c.nodes[root.index()].shape = Shape::TypedArray;
        assert_eq!(super::covered_shapes(&mut c, &[]), 1);
        assert_eq!(c.nodes[root.index()].shape, Shape::ItemsArray);
        let spec = c.accel.spec_of[root.index()] as usize;
        c.accel.array_specs[spec].unique = false;
        assert_eq!(super::covered_shapes(&mut c, &[]), 1);
        assert_eq!(c.nodes[root.index()].shape, Shape::General);
        // A node decided by its types that has an assertion to check.
        let schema = crate::Schema::compile(&json!({"type": "string", "maxLength": 2})).unwrap();
        let mut c = std::sync::Arc::try_unwrap(schema.compiled).unwrap();
        let root = c.root;
        assert!(matches!(
            c.keywords_of(root),
            [Keyword::Type(_), Keyword::MaxLength(2)]
        ));
        c.nodes[root.index()].shape = Shape::Empty;
        assert_eq!(super::covered_shapes(&mut c, &[]), 1);
        assert_eq!(c.nodes[root.index()].shape, Shape::General);
    }
}
