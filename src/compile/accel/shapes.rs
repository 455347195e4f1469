//! Node shapes (`Shape`): a node whose keywords fit a known form (a leaf of assertions, a
//! tuple, a plain object...) gets a dedicated fail-fast evaluation; also the types a node
//! admits, hoisted from its keywords.

use super::*;

/// The shape of `node` and its hoisted types, for shapes that depend on its children's
/// types (`Shape::TypedArray`, `Shape::TypeUnion`).
#[inline(never)]
pub(super) fn type_shape(c: &Compiled, node: NodeId) -> (Shape, TypeSet) {
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
            Keyword::False
            | Keyword::Type(_)
            | Keyword::Const(_)
            | Keyword::Enum(_)
            | Keyword::MultipleOf(_)
            | Keyword::MaxLength(_)
            | Keyword::MinLength(_)
            | Keyword::Pattern(_)
            | Keyword::Format(_)
            | Keyword::UniqueItems
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
            | Keyword::Items { .. }
            | Keyword::Content(_)
            | crate::schema::bound_keywords!() => false,
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

/// The last shapes, once every other is known (in one pass): nodes with no keyword to
/// dispatch, nodes of assertions only, and unions whose branches' types pick the branch.
#[inline(never)]
pub(super) fn settle_shapes(c: &mut Compiled, live: &[u32]) {
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
            c.accel.spec_of[i] = c.accel.type_switches.len() as u32;
            c.accel.type_switches.push(by_kind);
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
            c.accel.spec_of[i] = to.0;
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
pub(super) fn is_tuple(body: &[Keyword]) -> bool {
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

/// Whether `node` accepts every instance by its types alone, with no keyword to check.
pub(super) fn accepts_anything(c: &Compiled, node: NodeId) -> bool {
    let n = &c.nodes[node.index()];
    n.body().is_empty() && INSTANCE_KINDS.into_iter().all(|t| n.types.contains(t))
}

#[inline(never)]
pub(super) fn node_shapes(c: &mut Compiled, live: &[u32]) {
    // Arrays of type-only items and unions of types (need every node's hoisted type).
    c.accel.spec_of = vec![u32::MAX; c.nodes.len()];
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
                    | crate::schema::bound_keywords!() => {}
                }
            }
            c.accel.spec_of[i] = c.accel.array_specs.len() as u32;
            c.accel.array_specs.push(spec);
        }
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
pub(super) fn inferred_types(c: &mut Compiled, live: &[u32]) {
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
                Keyword::Const(v) => TypeSet::of_value(&c.values[v.index()]),
                Keyword::Enum(span) => c.values[span.range()]
                    .iter()
                    .fold(TypeSet::empty(), |a, v| a.union(TypeSet::of_value(v))),
                Keyword::Ref(_) | Keyword::AllOf(_) | Keyword::AnyOf(_) | Keyword::OneOf(_) => {
                    depends = true;
                    continue;
                }
                Keyword::Type(_)
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
                | Keyword::Properties(_)
                | Keyword::PatternProperties(_)
                | Keyword::AdditionalProperties(_)
                | Keyword::PropertyNames(_)
                | Keyword::DependentSchemas(_)
                | Keyword::PrefixItems(_)
                | Keyword::Items { .. }
                | Keyword::Contains(_)
                | Keyword::Not(_)
                | Keyword::If { .. }
                | Keyword::DynamicRef(_)
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_)
                | Keyword::Content(_)
                | crate::schema::bound_keywords!() => continue,
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
                    Keyword::Properties(_)
                    | Keyword::PatternProperties(_)
                    | Keyword::AdditionalProperties(_)
                    | Keyword::PropertyNames(_)
                    | Keyword::DependentSchemas(_)
                    | Keyword::PrefixItems(_)
                    | Keyword::Items { .. }
                    | Keyword::Contains(_)
                    | Keyword::Not(_)
                    | Keyword::If { .. }
                    | Keyword::DynamicRef(_)
                    | Keyword::UnevaluatedProperties(_)
                    | Keyword::UnevaluatedItems(_)
                    | crate::schema::assertion_keywords!() => continue,
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
pub(super) fn plain_objects(c: &mut Compiled, live: &[u32]) {
    // Objects checked by one walk (needs the walk orders above).
    for i in live.iter().map(|&i| i as usize) {
        let body = &c.keywords[c.nodes[i].body()];
        let mut walks = 0;
        let plain = body.iter().all(|k| match *k {
            Keyword::Properties(span) => {
                walks += 1;
                c.accel.deferred_in_name_order.get(span.start as usize) == Some(&true)
            }
            Keyword::AdditionalProperties(_) => {
                walks += 1;
                true
            }
            Keyword::Required(_) | Keyword::MinProperties(_) | Keyword::MaxProperties(_) => true,
            // (Not beside `patternProperties`: the patterned walk has no check of names.)
            Keyword::PropertyNames(_) => !body.iter().any(|k| {
                matches!(*k, Keyword::AdditionalProperties(a)
                    if c.additional[a.index()].patterns.len() > 0)
            }),
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
            | crate::schema::bound_keywords!() => false,
        });
        if plain && walks == 1 {
            c.nodes[i].shape = Shape::PlainObject;
        }
    }
}
