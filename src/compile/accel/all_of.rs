//! `allOf` fused for the fail-fast path: an object that must pass several schemas, each
//! with its own `properties`, is walked once instead of once per schema.
//!
//! Schemas compose by `allOf` ("a preset of version 3 is a preset of version 1 with these
//! properties too", the meta-schema's seven vocabularies), or by a `$ref` beside keywords
//! of the node's own (2019-09 and later): each branch walks the
//! instance's keys and looks each one up in its table. For a node whose `allOf` branches
//! (and `$ref` targets, followed) hold between them two walks or more, the compiler adds a
//! node that checks the same in one: one table of every name declared, each name's schema
//! the `allOf` of the schemas every branch applies to it (its own, or the branch's
//! `additionalProperties`), `required` merged, bounds the tightest, `items` merged the same
//! way; every other keyword (assertions, `anyOf`, `not`...) copied as it is. The fail-fast
//! path goes on to that node; the error path evaluates, and reports, the branches.

use crate::json::TypeSet;
use crate::schema::{
    Additional, AdditionalId, Compiled, Keyword, KeywordName, Node, NodeId, Shape, Span,
};
use smallvec::SmallVec;
use std::sync::Arc;

/// Most nodes (the node, its `allOf` branches and `$ref` targets) one fusion takes in.
const MAX_PARTS: usize = 32;

/// Most declared names one fused node holds (its table is a copy of the branches').
const MAX_NAMES: usize = 1024;

/// What the branches of one node hold between them.
struct Parts {
    seen: SmallVec<[NodeId; 8]>,
    types: Option<TypeSet>,
    /// Each walk: its `properties` and the schema of its other keys (`NONE`: none).
    walks: SmallVec<[(Span, NodeId); 4]>,
    required: SmallVec<[Arc<str>; 4]>,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    items: SmallVec<[NodeId; 4]>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique: bool,
    /// Keywords that need no sibling, kept as they are.
    copied: SmallVec<[(Keyword, KeywordName); 4]>,
    /// The node's own `unevaluatedProperties` schema (`NONE`: none).
    unevaluated: NodeId,
    /// Parts with nothing to merge, applied as they are (so that the shapes the compiler
    /// gives them, a union of literals or of types, still apply).
    whole: SmallVec<[NodeId; 4]>,
}

/// The parts of `node`, `None` when a keyword cannot be fused (one that reads its
/// siblings: `unevaluated*`, `prefixItems` and the `items` after it) or there are too
/// many.
fn parts(c: &Compiled, node: NodeId) -> Option<Parts> {
    let mut p = Parts {
        seen: SmallVec::new(),
        types: None,
        walks: SmallVec::new(),
        required: SmallVec::new(),
        min_properties: None,
        max_properties: None,
        items: SmallVec::new(),
        min_items: None,
        max_items: None,
        unique: false,
        copied: SmallVec::new(),
        unevaluated: NodeId::NONE,
        whole: SmallVec::new(),
    };
    let mut stack: SmallVec<[NodeId; 8]> = smallvec::smallvec![node];
    while let Some(n) = stack.pop() {
        // (`allOf` applies each schema once however often it is reached.)
        if p.seen.contains(&n) {
            continue;
        }
        if p.seen.len() == MAX_PARTS {
            return None;
        }
        p.seen.push(n);
        if n != node && !merges(c, n) {
            if !accepts_all(c, n) {
                p.whole.push(n);
            }
            continue;
        }
        for k in c.nodes[n.index()].keywords.range() {
            let kw = c.keywords[k];
            match kw {
                // A list of conditions alone is kept whole: `if_chains` may dispatch
                // it on one property.
                Keyword::AllOf(span) if conditions_only(c, span) => {
                    p.copied.push((kw, c.keyword_names[k]))
                }
                Keyword::AllOf(span) => stack.extend(c.node_list(span).iter().rev().copied()),
                Keyword::Ref(target) => stack.push(target),
                // (Draft-4 integers, where they can tell: left to the keyword.)
                Keyword::Type(set) if set.relaxed().is_strict() => return None,
                Keyword::Type(set) => {
                    let set = set.relaxed();
                    p.types = Some(p.types.map_or(set, |t| t.intersect(set)));
                }
                Keyword::Properties(span) => p.walks.push((span, NodeId::NONE)),
                Keyword::AdditionalProperties(i) => {
                    let a = c.additional[i.index()];
                    if a.patterns.len() > 0 {
                        return None;
                    }
                    p.walks.push((a.properties, a.node));
                }
                Keyword::Required(span) => {
                    for name in &c.strings[span.range()] {
                        if !p.required.contains(name) {
                            p.required.push(name.clone());
                        }
                    }
                }
                Keyword::MinProperties(m) => p.min_properties = p.min_properties.max(Some(m)),
                Keyword::MaxProperties(m) => {
                    p.max_properties = Some(p.max_properties.map_or(m, |x| x.min(m)));
                }
                Keyword::Items { node, skip: 0 } => p.items.push(node),
                Keyword::MinItems(m) => p.min_items = p.min_items.max(Some(m)),
                Keyword::MaxItems(m) => p.max_items = Some(p.max_items.map_or(m, |x| x.min(m))),
                Keyword::UniqueItems => p.unique = true,
                // The node's own, when what its parts evaluate is known from them alone.
                Keyword::UnevaluatedProperties(child) if n == node => p.unevaluated = child,
                Keyword::Items { .. }
                | Keyword::PrefixItems(_)
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_)
                | Keyword::DynamicRef(_) => return None,
                // What applies to the instance as it is, without what the walks and
                // bounds above gather: copied into the fused node as it stands.
                Keyword::False
                | Keyword::Const(_)
                | Keyword::Enum(_)
                | Keyword::MultipleOf(_)
                | crate::schema::bound_keywords!()
                | Keyword::MaxLength(_)
                | Keyword::MinLength(_)
                | Keyword::Pattern(_)
                | Keyword::Format(_)
                | Keyword::DependentRequired(_)
                | Keyword::Content(_)
                | Keyword::PatternProperties(_)
                | Keyword::PropertyNames(_)
                | Keyword::DependentSchemas(_)
                | Keyword::Contains(_)
                | Keyword::AnyOf(_)
                | Keyword::OneOf(_)
                | Keyword::Not(_)
                | Keyword::If { .. } => p.copied.push((kw, c.keyword_names[k])),
            }
        }
    }
    // `unevaluatedProperties` applies to the names no part declares, unless a kept
    // keyword may evaluate some (a branch taken, a pattern matched).
    let conditional = |kw: &Keyword| {
        matches!(
            kw,
            Keyword::AnyOf(_)
                | Keyword::OneOf(_)
                | Keyword::If { .. }
                | Keyword::AllOf(_)
                | Keyword::DependentSchemas(_)
                | Keyword::PatternProperties(_)
        )
    };
    if !p.unevaluated.is_none()
        && (p.copied.iter().any(|(kw, _)| conditional(kw))
            || p.whole
                .iter()
                .any(|&n| c.keywords_of(n).iter().any(conditional)))
    {
        return None;
    }
    Some(p)
}

/// Whether a part holds something to merge into the fused node or to follow: a walk,
/// `items`, an `allOf` or `$ref` (else it is applied whole).
fn merges(c: &Compiled, n: NodeId) -> bool {
    c.keywords_of(n).iter().any(|kw| {
        matches!(
            kw,
            Keyword::Properties(_)
                | Keyword::AdditionalProperties(_)
                | Keyword::Items { .. }
                | Keyword::PrefixItems(_)
                | Keyword::AllOf(_)
                | Keyword::Ref(_)
                | Keyword::DynamicRef(_)
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_)
        )
    })
}

/// Whether `a` sorts before `b` (byte order, as `str`'s): their first eight bytes
/// compared as one integer, which tells most names apart with no call.
fn before(a: &str, b: &str) -> bool {
    let head = |s: &str| {
        let mut word = [0u8; 8];
        let n = s.len().min(8);
        word[..n].copy_from_slice(&s.as_bytes()[..n]);
        u64::from_be_bytes(word)
    };
    match head(a).cmp(&head(b)) {
        std::cmp::Ordering::Equal => a < b,
        order => order.is_lt(),
    }
}

/// Whether every branch of `span` holds nothing but an `if` (and its `then`/`else`).
fn conditions_only(c: &Compiled, span: Span) -> bool {
    span.len() >= 2
        && c.node_list(span)
            .iter()
            .all(|&b| matches!(c.keywords_of(b), [Keyword::If { .. }]))
}

/// Whether a node accepts everything (`{}`, `true`, annotations only).
fn accepts_all(c: &Compiled, node: NodeId) -> bool {
    c.nodes[node.index()].keywords.len() == 0
}

/// What applies the schemas of `all` (left in any order, repeats dropped): one of them,
/// or a new `allOf` node, queued to be fused in its turn. `fallback` stands for none.
fn all_of(
    c: &mut Compiled,
    near: NodeId,
    all: &mut Vec<NodeId>,
    fallback: NodeId,
    fusion: &mut Fusion,
) -> NodeId {
    // (Most names are declared by one walk: nothing to merge.)
    if let [one] = all[..] {
        return one;
    }
    all.retain(|&n| !accepts_all(c, n));
    all.sort_unstable();
    all.dedup();
    if let Some(&no) = all.iter().find(|&&n| c.is_false_schema(n)) {
        return no;
    }
    match all.len() {
        0 => fallback,
        1 => all[0],
        _ => {
            // (One node per set of schemas: a recursive schema's fused items meet the
            // same set again, and must not add a node each time.)
            if let Some(&known) = fusion.made.get(all.as_slice()) {
                return known;
            }
            let start = c.node_lists.len() as u32;
            c.node_lists.extend_from_slice(all);
            let span = Span {
                start,
                end: c.node_lists.len() as u32,
            };
            let id = new_node(c, near, &[(Keyword::AllOf(span), "allOf")]);
            fusion.nodes_left = fusion.nodes_left.saturating_sub(1);
            fusion.queue.push(id);
            fusion.made.insert(all.clone(), id);
            id
        }
    }
}

/// A node of `keywords`, in `near`'s resource and at its location.
fn new_node(c: &mut Compiled, near: NodeId, keywords: &[(Keyword, KeywordName)]) -> NodeId {
    let start = c.keywords.len() as u32;
    for &(kw, name) in keywords {
        c.keywords.push(kw);
        c.keyword_names.push(name);
    }
    let node = Node {
        keywords: Span {
            start,
            end: c.keywords.len() as u32,
        },
        resource: c.nodes[near.index()].resource,
        types: TypeSet::all(),
        typed: false,
        leaf: false,
        shape: Shape::General,
    };
    c.append_node(node, near)
}

/// The work left and the budget.
struct Fusion {
    queue: Vec<NodeId>,
    /// Nodes that may still be added (fused nodes and `allOf`s of merged schemas).
    nodes_left: usize,
    /// Table entries that may still be copied.
    names_left: usize,
    /// The `allOf` nodes added, by their schemas (sorted).
    made: ahash::AHashMap<Vec<NodeId>, NodeId>,
}

/// Fuses every `allOf` worth it (see the module's comment): the pairs (node, fused node)
/// whose first the fail-fast path gives way to the second; the nodes added are live.
pub(crate) fn fuse_all_ofs(c: &mut Compiled, live: &mut Vec<u32>) -> Vec<(NodeId, NodeId)> {
    // (A dynamic scope kept must see each branch's resource entered.)
    if c.dynamic_scope {
        return Vec::new();
    }
    let queue: Vec<NodeId> = live
        .iter()
        .rev()
        .map(|&i| NodeId(i))
        .filter(|&n| {
            let keywords = c.keywords_of(n);
            // (`$ref` beside other keywords applies both, as an `allOf` of the two would.)
            keywords.iter().any(|k| matches!(k, Keyword::AllOf(_)))
                || (keywords.len() > 1 && keywords.iter().any(|k| matches!(k, Keyword::Ref(_))))
        })
        .collect();
    if queue.is_empty() {
        return Vec::new();
    }
    let first_added = c.nodes.len();
    // Bounded by the schema's own size: a schema cannot make its compiled form grow by
    // more than a fraction of itself through fusion.
    let mut fusion = Fusion {
        queue,
        nodes_left: 64 + c.nodes.len() / 2,
        names_left: 1024 + 2 * c.properties.len(),
        made: ahash::AHashMap::new(),
    };
    let mut pairs = Vec::new();
    while let Some(node) = fusion.queue.pop() {
        let Some(p) = parts(c, node) else {
            continue;
        };
        let names: usize = p.walks.iter().map(|(span, _)| span.len()).sum();
        // (With the node's own `unevaluatedProperties`, one walk is worth it too: the
        // fused walk answers each key by its table instead of asking the parts.)
        let worth = p.walks.len() >= 2 || p.items.len() >= 2 || !p.unevaluated.is_none();
        // (At most one node per name, one for the other keys, one for the items and the
        // fused node itself.)
        if !worth || names > MAX_NAMES || names > fusion.names_left || names + 3 > fusion.nodes_left
        {
            continue;
        }
        fusion.names_left -= names;
        let fused = build(c, node, p, &mut fusion);
        pairs.push((node, fused));
    }
    live.extend(first_added as u32..c.nodes.len() as u32);
    pairs
}

/// The fused node of `node`'s parts.
fn build(c: &mut Compiled, node: NodeId, p: Parts, fusion: &mut Fusion) -> NodeId {
    let mut keywords: Vec<(Keyword, KeywordName)> = Vec::new();
    if let Some(types) = p.types {
        keywords.push((Keyword::Type(types), "type"));
    }
    if !p.walks.is_empty() || !p.unevaluated.is_none() {
        // The walks' names merged in order (each span is sorted by name already), each
        // name's schema the `allOf` of what every walk applies to it: its own schema of
        // the name, else its other keys' schema.
        let others: smallvec::SmallVec<[NodeId; 8]> = p.walks.iter().map(|&(_, o)| o).collect();
        let mut cursor: smallvec::SmallVec<[u32; 8]> =
            p.walks.iter().map(|(span, _)| span.start).collect();
        let mut entries: Vec<(Arc<str>, NodeId)> = Vec::new();
        let mut all = Vec::new();
        loop {
            let mut least: Option<&Arc<str>> = None;
            for (w, (span, _)) in p.walks.iter().enumerate() {
                if cursor[w] < span.end {
                    let name = &c.properties[cursor[w] as usize].0;
                    if least.is_none_or(|l| before(name, l)) {
                        least = Some(name);
                    }
                }
            }
            let Some(name) = least.cloned() else {
                break;
            };
            all.clear();
            let mut fallback = NodeId::NONE;
            for (w, (span, _)) in p.walks.iter().enumerate() {
                let at = cursor[w];
                if at < span.end && crate::names::same(&c.properties[at as usize].0, &name) {
                    let child = c.properties[at as usize].1;
                    all.push(child);
                    if fallback.is_none() {
                        fallback = child;
                    }
                    cursor[w] += 1;
                } else if !others[w].is_none() {
                    all.push(others[w]);
                }
            }
            let child = all_of(c, node, &mut all, fallback, fusion);
            entries.push((name, child));
        }
        let start = c.properties.len() as u32;
        c.properties.extend(entries);
        let span = Span {
            start,
            end: c.properties.len() as u32,
        };
        all.clear();
        all.extend(others.iter().copied().filter(|o| !o.is_none()));
        // (A walk with other keys' schema evaluates every name: none is left unevaluated.)
        if all.is_empty() && !p.unevaluated.is_none() {
            all.push(p.unevaluated);
        }
        let open = all.iter().all(|&o| accepts_all(c, o));
        if open {
            if span.len() > 0 {
                keywords.push((Keyword::Properties(span), "properties"));
            }
        } else {
            let other = all_of(c, node, &mut all, NodeId::NONE, fusion);
            c.additional.push(Additional {
                node: other,
                properties: span,
                patterns: Span { start: 0, end: 0 },
            });
            let i = AdditionalId::new(c.additional.len() - 1);
            keywords.push((Keyword::AdditionalProperties(i), "additionalProperties"));
        }
    }
    if !p.required.is_empty() {
        let start = c.strings.len() as u32;
        c.strings.extend(p.required);
        let span = Span {
            start,
            end: c.strings.len() as u32,
        };
        keywords.push((Keyword::Required(span), "required"));
    }
    if let Some(m) = p.min_properties {
        keywords.push((Keyword::MinProperties(m), "minProperties"));
    }
    if let Some(m) = p.max_properties {
        keywords.push((Keyword::MaxProperties(m), "maxProperties"));
    }
    if let Some(&fallback) = p.items.first() {
        let mut all = p.items.to_vec();
        let item = all_of(c, node, &mut all, fallback, fusion);
        keywords.push((
            Keyword::Items {
                node: item,
                skip: 0,
            },
            "items",
        ));
    }
    if let Some(m) = p.min_items {
        keywords.push((Keyword::MinItems(m), "minItems"));
    }
    if let Some(m) = p.max_items {
        keywords.push((Keyword::MaxItems(m), "maxItems"));
    }
    if p.unique {
        keywords.push((Keyword::UniqueItems, "uniqueItems"));
    }
    keywords.extend(p.copied);
    if !p.whole.is_empty() {
        let start = c.node_lists.len() as u32;
        c.node_lists.extend_from_slice(&p.whole);
        let span = Span {
            start,
            end: c.node_lists.len() as u32,
        };
        keywords.push((Keyword::AllOf(span), "allOf"));
    }
    fusion.nodes_left = fusion.nodes_left.saturating_sub(1);
    new_node(c, node, &keywords)
}
