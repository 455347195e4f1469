//! `anyOf`/`oneOf` over literals (merged into one `enum` node) and over distinct instance
//! types (a switch by type), and the fail-fast targets of their branches.

use super::*;

/// The subschemas the fail-fast path reaches through tables of its own (`oneOf`, `anyOf`,
/// `allOf` lists, type switches, object and array specs, the walks' property table) skip
/// forwards (see `Compiled::fail_fast_target`). The error path reads `node_lists` and
/// the keywords, whose nodes its locations name.
#[inline(never)]
pub(super) fn branch_targets(c: &mut Compiled) {
    c.accel.fail_fast_root = c.fail_fast_target(c.root);
    root_object_walk(c);
    if !c.nodes.iter().any(|n| n.shape == Shape::Forward) {
        c.accel.property_walk = walk_entries(c, |_, b| b);
        // (Left empty: `branches` then reads `node_lists`.)
        return;
    }
    c.accel.property_walk = walk_entries(c, Compiled::fail_fast_target);
    c.accel.branch_targets = c
        .node_lists
        .iter()
        .map(|&b| c.fail_fast_target(b))
        .collect();
    for k in 0..c.accel.type_switches.len() {
        for j in 0..6 {
            let b = c.accel.type_switches[k][j];
            c.accel.type_switches[k][j] = c.fail_fast_target(b);
        }
    }
    for k in 0..c.accel.object_specs.len() {
        let others = c.accel.object_specs[k].others;
        c.accel.object_specs[k].others = c.fail_fast_target(others);
    }
    for k in 0..c.accel.array_specs.len() {
        let item = c.accel.array_specs[k].item;
        c.accel.array_specs[k].item = c.fail_fast_target(item);
    }
}

/// For a node (past forwards) of one `enum` or `const` and nothing else but a `type`: its
/// values (a span of `values`) and its types, which only the values they admit pass.
/// `None` for any other node, under draft-4 integer typing, and for more than
/// `LITERALS_MAX` values or a value of more than `LITERAL_SIZE` parts: the values are
/// copied and compared by the callers, once per reference to the node (a hostile schema
/// names one large literal many times).
pub(super) fn literals(c: &Compiled, node: NodeId) -> Option<(Span, TypeSet)> {
    let n = c.nodes[c.fail_fast_target(node).index()];
    if n.types.is_strict() {
        return None;
    }
    let span = match c.keywords[n.body()] {
        [kw] => literal_values(kw)?,
        [] | [_, _, ..] => return None,
    };
    let small = span.len() <= LITERALS_MAX
        && c.values[span.range()].iter().all(|v| {
            let mut left = LITERAL_SIZE;
            fits(v, &mut left)
        });
    small.then_some((span, n.types))
}

/// The values a keyword admits when it admits only those it lists: an `enum`'s, or a
/// `const`'s one (a span of `values`); `None` for every other keyword. Decided here for
/// every analysis that reads literals (literal unions, property tests, excluded values).
pub(super) fn literal_values(kw: Keyword) -> Option<Span> {
    match kw {
        Keyword::Enum(span) => Some(span),
        Keyword::Const(i) => Some(Span {
            start: i.index() as u32,
            end: i.index() as u32 + 1,
        }),
        Keyword::False
        | Keyword::Type(_)
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
        | crate::schema::applicator_keywords!() => None,
    }
}

/// Parts (values, nested ones included) a literal may have to be merged or copied.
pub(super) const LITERAL_SIZE: u32 = 32;

/// Whether `v` has at most `left` parts (counting stops there: bounded work however
/// large `v` is).
pub(super) fn fits(v: &serde_json::Value, left: &mut u32) -> bool {
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
pub(super) const LITERALS_MAX: usize = 128;

/// For a `oneOf`/`anyOf` (alone in its node) whose branches are each an `enum` or a
/// `const` and nothing else (`{"anyOf": [{"const": "a", "title": "A"}, {"enum": ["b",
/// "c"]}]}`, documented choices as generators write them): the values a branch's types
/// admit, all branches' in order, the one set that decides the union. For `oneOf`, only
/// when no value is in two branches' sets: such a value fails the `oneOf`, which one
/// merged set cannot say.
pub(super) fn literal_union(c: &Compiled, span: Span, one: bool) -> Option<Vec<serde_json::Value>> {
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
                .filter(|v| crate::validate::admits(types, *v))
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
pub(super) fn literal_node(c: &mut Compiled, of: NodeId, values: Vec<serde_json::Value>) -> NodeId {
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
pub(super) fn type_switch(c: &Compiled, span: Span) -> Option<[NodeId; 6]> {
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
