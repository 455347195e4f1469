//! The fail-fast evaluation of each node shape chosen at compile time (see
//! `compile::accel::shapes`): leaves, unions, tuples, typed arrays, plain objects, object
//! walks, property tests.

use super::*;

/// The fail-fast function of a shape called after the stack check.
#[inline(always)]
pub(super) fn shaped<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    shape: Shape,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    match shape {
        Shape::PlainObject => plain_object(c, node, instance, ctx, col),
        Shape::ItemsArray => items_array(c, node, instance, ctx, col),
        Shape::PropertyTest => property_test(c, node, instance, ctx, col),
        _ => union(c, node, instance, ctx, col),
    }
}

/// `shaped` for a node that enters another resource while a dynamic scope is kept: the
/// scope is extended first, as `eval_node` would (the meta-schemas' vocabularies, each a
/// resource of its own, keep their shapes).
#[inline(never)]
pub(super) fn shaped_in_resource<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let n = c.node(node);
    let scope = Scope::enter(n.resource, ctx.scope);
    let frame = Frame {
        scope: &scope,
        ..*ctx
    };
    shaped(c, node, n.shape, instance, Ctx(&frame), col)
}

/// A node of the type-switch shape (see `Shape::TypeSwitch`), fail-fast: the branch of
/// the instance's type, the only one that may match; or of the union shape: its `oneOf`,
/// `anyOf`, `allOf`, `if` or tuple (with its bounds), with no keyword loop.
#[inline(never)]
pub(super) fn union<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let n = c.node(node);
    if n.shape == Shape::TypeSwitch
        && let Some(branches) = c.type_switch(node)
    {
        let branch = branches[instance.kind() as usize];
        return !branch.is_none() && eval(c, branch, instance, ctx, col);
    }
    // (A step where one value may meet several subschemas, see `Budget`: counted for the
    // node, so a tuple's items, which meet one each, are counted once too.)
    if !ctx.budget.step() {
        return false;
    }
    match c.keywords[n.body()] {
        [Keyword::OneOf(span)] => one_of(c, span, instance, ctx),
        [Keyword::AnyOf(span)] => any_of_inline(c, span, instance, ctx),
        [Keyword::AllOf(span)] => all_of(c, span, instance, ctx),
        [Keyword::If { cond, then, els }] => if_then_else(c, cond, then, els, instance, ctx),
        [Keyword::Not(child)] => !valid_at(c, child, instance, ctx),
        [Keyword::Contains(i)] => match instance.as_array() {
            Some(items) => contains_count(c, i, items, ctx),
            _ => true,
        },
        [ref bounds @ .., Keyword::PrefixItems(span)] => match instance.as_array() {
            Some(items) => {
                for bound in bounds {
                    let within = match *bound {
                        Keyword::MinItems(min) => min_items(items.len(), min),
                        Keyword::MaxItems(max) => max_items(items.len(), max),
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
                        | Keyword::Content(_)
                        | crate::schema::bound_keywords!()
                        | crate::schema::applicator_keywords!() => {
                            return eval_node(c, node, instance, ctx, col);
                        }
                    };
                    if !within {
                        return false;
                    }
                }
                c.branches(span)
                    .iter()
                    .zip(items.iter())
                    .all(|(child, item)| eval(c, *child, item, ctx, col))
            }
            _ => true,
        },
        // (With `items` after the tuple: apart, so that the commoner tuple above keeps its
        // straight-line check.)
        ref body @ [.., Keyword::Items { .. }] => tuple(c, node, body, instance, ctx, col),
        _ => eval_node(c, node, instance, ctx, col),
    }
}

/// A tuple of the union shape with `items` after it (see `accel::shapes::is_tuple`), fail-fast:
/// its bounds, `prefixItems` and the `items` (or `additionalItems`), in the body's order.
#[inline(never)]
pub(super) fn tuple<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    body: &[Keyword],
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Some(items) = instance.as_array() else {
        return true;
    };
    for kw in body {
        let ok = match *kw {
            Keyword::MinItems(min) => min_items(items.len(), min),
            Keyword::MaxItems(max) => max_items(items.len(), max),
            Keyword::PrefixItems(span) => c
                .branches(span)
                .iter()
                .zip(items.iter())
                .all(|(child, item)| eval(c, *child, item, ctx, col)),
            Keyword::Items { node: child, skip } => items_from(c, child, skip, items, ctx, col),
            // (Not of the shape: the general loop decides.)
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
            | crate::schema::bound_keywords!() => return eval_node(c, node, instance, ctx, col),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// A node of the forward shape (see `Shape::Forward`), fail-fast: its target, by a call
/// with a small frame instead of `eval_node`'s. (Before the stack check: chains of such
/// nodes are short, see `accel::forwards::forward_chains`.)
#[inline(never)]
pub(super) fn forward<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    match c.accel.spec_of.get(node.index()) {
        Some(&target) if (target as usize) < c.nodes.len() => {
            eval(c, NodeId(target), instance, ctx, col)
        }
        _ => eval_node(c, node, instance, ctx, col),
    }
}

/// A node of the typed-array shape (see `Shape::TypedArray`), fail-fast: no context, no
/// dispatch through the general keyword loop.
#[inline(never)]
pub(super) fn typed_array<'a, I: Instance<'a>>(c: &Compiled, node: NodeId, instance: I) -> bool {
    typed_array_inline(c, node, instance)
}

/// [`typed_array`], inline: for the items of an array of typed arrays (the rings and
/// lines of GeoJSON), where a call per item costs as much as the check.
#[inline(always)]
pub(super) fn typed_array_inline<'a, I: Instance<'a>>(
    c: &Compiled,
    node: NodeId,
    instance: I,
) -> bool {
    let Some(items) = instance.as_array() else {
        return true;
    };
    let spec = c.array_spec(node);
    // (Every node of the shape has its spec; without one nothing is checked but by the
    // keywords themselves.)
    let Some(spec) = spec else {
        return valid_at_general(c, node, instance);
    };
    let len = items.len() as u64;
    if len < spec.min || len > spec.max {
        return false;
    }
    if spec.kind != u8::MAX {
        // (One kind of item, strings or numbers most often: a compare of tags.)
        return items
            .iter()
            .all(|item| item.kind() as usize as u8 == spec.kind);
    }
    all_admitted(spec.items, items)
}

/// Whether every item has a type in `set` (out of line: the integer test's registers
/// would make every typed array's frame larger).
#[inline(never)]
pub(super) fn all_admitted<'a, A: crate::flat::Array<'a>>(
    set: crate::json::TypeSet,
    items: A,
) -> bool {
    items.iter().all(|item| admits(set, item))
}

/// `node` evaluated by the general keyword loop, from an empty context.
#[cold]
pub(super) fn valid_at_general<'a, I: Instance<'a>>(
    c: &Compiled,
    node: NodeId,
    instance: I,
) -> bool {
    let path = location::Path::root();
    let scope = Scope::root(c.node(node).resource);
    let hop = Hop::root(node);
    let budget = Budget::new(c, instance);
    let frame = Frame {
        path: &path,
        scope: &scope,
        hop: &hop,
        stack_limit: stack_limit(),
        budget: &budget,
    };
    eval_node(c, node, instance, Ctx(&frame), &mut FailFast) && !budget.exceeded()
}

/// A node of the plain-object shape (see `Shape::PlainObject`), fail-fast: one walk over
/// the instance's keys, outside the general keyword loop.
#[inline(never)]
pub(super) fn plain_object<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Some(o) = instance.as_object() else {
        return true;
    };
    let spec = c.object_spec(node);
    // (Every node of the shape has its spec; without one, the general loop decides.)
    let Some(spec) = spec else {
        return eval_node(c, node, instance, ctx, col);
    };
    let len = o.len() as u64;
    if len < spec.min || len > spec.max {
        return false;
    }
    if spec.required.len() > 0 {
        let range = spec.required.range();
        let summaries = c.string_summaries.get(range.clone()).unwrap_or_default();
        if !json::has_all(o, &c.strings[range], summaries) {
            return false;
        }
    }
    match spec.walk {
        ObjectWalk::Few => return few_walk(c, spec, o, ctx, col),
        ObjectWalk::Keys => {}
        // (`{"type": "object", "additionalProperties": {}}`)
        ObjectWalk::Nothing => return true,
        ObjectWalk::Values => return dictionary(c, spec.others, o, ctx, col),
        ObjectWalk::Patterned { additional } => {
            return patterned_walk(c, additional, spec.names(c), o, ctx);
        }
        ObjectWalk::Named => return named_walk(c, spec, o, ctx, col),
    }
    keys_walk(c, spec, o, ctx, col)
}

/// The walk `ObjectWalk::Keys`: each key looked up in the spec's names, its value checked
/// against the name's schema or the other keys'.
#[inline(always)]
pub(super) fn keys_walk<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    spec: &crate::schema::ObjectSpec,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let others = spec.others;
    let table = spec.names(c);
    let mut met = 0;
    for (key, summary, value) in o.entries() {
        // (One call site of the inlined `eval` for both kinds of key.)
        let child = match table.find_in(c, key, summary) {
            Some(i) => {
                let (child, required) = c.accel.property_walk[i];
                met += required;
                child
            }
            None => others,
        };
        if !child.is_none() && !eval(c, child, value, ctx, col) {
            return false;
        }
    }
    met == spec.met
}

/// The walk `ObjectWalk::Few`: [`keys_walk`] with the names inline in the spec
/// (`ObjectSpec::few`), so that a key costs a few integer comparisons in the spec's own
/// cache lines and no table read, and a value whose schema is decided by its types is
/// tested there, with no read of its node. Each search starts past the name the previous
/// key matched: the names are sorted, as a serde_json `Map`'s keys are. (`keys_walk` on
/// the same spec is its slow twin: the tests compare them, see
/// `few_walk_agrees_with_keys_walk`.)
#[inline(always)]
pub(super) fn few_walk<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    spec: &crate::schema::ObjectSpec,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let few = &spec.few;
    let mut met = 0u16;
    let mut from = 0;
    for (key, summary, value) in o.entries_lazy() {
        let child = match few.find(c, key, summary, from) {
            Some(j) => {
                let bit = 1u16 << (j % crate::schema::FEW_NAMES);
                met |= few.required & bit;
                from = j + 1;
                if C::FAIL_FAST && few.typed & bit != 0 {
                    // (What `eval` does for a node of the shape `Empty` or `TypeUnion`.)
                    if !admits(few.types[j % crate::schema::FEW_NAMES], value) {
                        return false;
                    }
                    continue;
                }
                few.children[j % crate::schema::FEW_NAMES]
            }
            None => spec.others,
        };
        if !child.is_none() && !eval(c, child, value, ctx, col) {
            return false;
        }
    }
    met == few.required
}

/// The walk `ObjectWalk::Named`: every key against `propertyNames`, then the keys walk;
/// with no declared name (a dictionary), each key's name and value in one pass.
#[inline(never)]
pub(super) fn named_walk<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    spec: &crate::schema::ObjectSpec,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let key_names = spec.key_names;
    if spec.names.len() == 0 {
        let others = spec.others;
        return o.entries().all(|(key, _, value)| {
            name_valid(c, key_names, key, ctx)
                && (others.is_none() || eval(c, others, value, ctx, col))
        });
    }
    o.entries()
        .map(|(k, _, _)| k)
        .all(|key| name_valid(c, key_names, key, ctx))
        && keys_walk(c, spec, o, ctx, col)
}

/// A node of the property-test shape (see `Shape::PropertyTest`), fail-fast: the one
/// property looked up and compared with the literals, its kind of value decided once.
#[inline(never)]
pub(super) fn property_test<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Some(o) = instance.as_object() else {
        return true;
    };
    let at = c
        .accel
        .spec_of
        .get(node.index())
        .map_or(usize::MAX, |&i| i as usize);
    let Some(test) = c.accel.property_tests.get(at) else {
        return eval_node(c, node, instance, ctx, col);
    };
    let Some(value) = json::lookup_in(o, &test.name, c.accel.property_test_summaries.get(at))
    else {
        return !test.required;
    };
    let literals = c.values.get(test.values.range()).unwrap_or_default();
    match value.as_str() {
        Some(s) => literals
            .iter()
            .any(|v| matches!(v, Value::String(t) if crate::names::same(t, s))),
        _ => literals.iter().any(|v| value.equals(v)),
    }
}

/// The values of an object with no declared name, each against `others` (see
/// `ObjectWalk::Values`): no key is looked at. (Chosen at compile time: a check of the
/// table inside `plain_object` cost every object 1-4%.)
#[inline(never)]
pub(super) fn dictionary<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    others: NodeId,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    o.entries()
        .map(|(_, _, v)| v)
        .all(|value| eval(c, others, value, ctx, col))
}

/// Up to this many names, `properties` keeps the deferred values by position and goes
/// through the span in order; more, by rank (see `properties_by_rank`).
pub(super) const BY_POSITION: usize = 8;

/// `properties` of many names on the fail-fast path: the leaves as the instance's keys
/// come, then the others found, sorted by their rank in the evaluation order (a few keys
/// cost a few steps, however many names the schema declares; past `KEPT` found, the
/// declared names are gone through in order instead).
#[inline(never)]
pub(super) fn properties_by_rank<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    const KEPT: usize = 16;
    // (Inline storage, never spilled: pushes stop at `KEPT`.)
    let mut kept: smallvec::SmallVec<[(u32, NodeId, O::Value); KEPT]> = smallvec::SmallVec::new();
    let mut found = 0;
    let defer = |i: usize, child, value| {
        if found < KEPT {
            kept.push((c.accel.property_rank[i], child, value));
        }
        found += 1;
    };
    if !leaves_first(c, span, o, ctx, col, defer) {
        return false;
    }
    if found > KEPT {
        return deferred_in_order(c, span, ctx, col, |i| {
            json::lookup(o, c.properties[i].0.as_ref())
        });
    }
    // (Insertion sort: a handful of entries.)
    for j in 1..kept.len() {
        let mut k = j;
        while k > 0 && kept[k - 1].0 > kept[k].0 {
            kept.swap(k - 1, k);
            k -= 1;
        }
    }
    kept.iter()
        .all(|&(_, child, value)| eval(c, child, value, ctx, col))
}

/// The first pass of `properties` on the fail-fast path: each key found with a schema of
/// assertions only is checked as the instance's keys come; the others are handed to
/// `defer` (index in `properties`, schema, value). False when a value fails or a required
/// name counted by the walk is missing.
#[inline(always)]
pub(super) fn leaves_first<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
    mut defer: impl FnMut(usize, NodeId, O::Value),
) -> bool {
    let mut met = 0;
    let names = c.names_of(span);
    for (key, summary, value) in o.entries() {
        if let Some(i) = names.find_in(c, key, summary) {
            let (child, required) = c.accel.property_walk[i];
            met += required;
            if c.node(child).leaf {
                if !eval(c, child, value, ctx, col) {
                    return false;
                }
            } else {
                defer(i, child, value);
            }
        }
    }
    met == c.walk_required(span)
}

/// The second pass of `properties` on the fail-fast path: the schemas that are not
/// assertions only, in the span's evaluation order, against the values `value_of` gives.
#[inline(always)]
pub(super) fn deferred_in_order<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    ctx: Ctx<'_>,
    col: &mut C,
    value_of: impl Fn(usize) -> Option<I>,
) -> bool {
    for &i in &c.accel.property_order[span.range()] {
        let child = c.accel.property_walk[i as usize].0;
        if c.node(child).leaf {
            continue;
        }
        if let Some(value) = value_of(i as usize)
            && !eval(c, child, value, ctx, col)
        {
            return false;
        }
    }
    true
}

/// `additionalProperties` with `patternProperties` (and `properties`) on the fail-fast
/// path: each key against its declared schema, then every pattern that matches it, else
/// the other keys' schema; the required names met are counted on the way.
#[inline(never)]
pub(super) fn patterned_walk<'a, O: crate::flat::Object<'a>>(
    c: &Compiled,
    i: crate::schema::AdditionalId,
    names: crate::schema::Names<'_>,
    o: O,
    ctx: Ctx<'_>,
) -> bool {
    // (A step where one value may meet several subschemas; see `Budget`.)
    if !ctx.budget.step() {
        return false;
    }
    let a = c.additional[i.index()];
    let patterns = &c.pattern_properties[a.patterns.range()];
    let forbidden = c.is_false_schema(a.node);
    let mut met = 0;
    for (key, summary, value) in o.entries() {
        let mut matched = false;
        if let Some(j) = names.find_in(c, key, summary) {
            matched = true;
            let (child, required) = c.accel.property_walk[j];
            met += required;
            if !eval(c, child, value, ctx, &mut FailFast) {
                return false;
            }
            if c.accel.property_patterned.get(j) == Some(&false) {
                // (No pattern can match this declared name.)
                continue;
            }
        }
        for &(p, child) in patterns {
            match c.patterns[p.index()].find_name(key, ctx.budget) {
                MatchOutcome::NoMatch => {}
                MatchOutcome::Match => {
                    matched = true;
                    if !valid_at(c, child, value, ctx) {
                        return false;
                    }
                }
                MatchOutcome::BudgetExceeded => return false,
            }
        }
        if !matched && (forbidden || !valid_at(c, a.node, value, ctx)) {
            return false;
        }
    }
    met == c.walk_required(a.properties)
}

/// A node of assertions only with one keyword, the commonest once `type` is hoisted
/// (`{"type": "string", "enum": [..]}`), fail-fast: without `eval_leaf`'s loop, so with
/// a small frame.
#[inline(never)]
pub(super) fn leaf_one<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    at: usize,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Some(&kw) = c.keywords.get(at) else {
        return false;
    };
    match (kw, instance.kind()) {
        (Keyword::Enum(span), Kind::String) => {
            c.enum_has_string(span, instance.as_str().unwrap_or_default())
        }
        (Keyword::Const(i), Kind::String) => {
            let s = instance.as_str().unwrap_or_default();
            matches!(&c.values[i.index()], Value::String(t) if crate::names::same(s, t))
        }
        // (Other scalars inline too: `{"const": true}`, `{"const": 2}`.)
        (Keyword::Const(i), Kind::Bool) => {
            matches!(&c.values[i.index()], Value::Bool(t) if Some(*t) == instance.as_bool())
        }
        (Keyword::Const(i), Kind::Number) => match instance.as_number() {
            Some(x) => matches!(&c.values[i.index()], Value::Number(y) if json::num_eq(&x, y)),
            None => false,
        },
        (Keyword::MaxLength(max), Kind::String) => {
            max_length(instance.as_str().unwrap_or_default(), max)
        }
        (Keyword::MinLength(min), Kind::String) => {
            min_length(instance.as_str().unwrap_or_default(), min)
        }
        _ => assertion(c, node, at, kw, instance, ctx, col),
    }
}

/// The keywords `body` of a node of assertions only, fail-fast.
#[inline(never)]
pub(super) fn eval_leaf<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    body: std::ops::Range<usize>,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let start = body.start;
    // A string's two length bounds, the commonest pair of string assertions, in one go:
    // the byte length decides most strings, and the code points are counted at most once.
    // (Only a pass is decided here: a failure goes through the loop, which reports it.)
    if let (
        Some(s),
        [Keyword::MinLength(min), Keyword::MaxLength(max)]
        | [Keyword::MaxLength(max), Keyword::MinLength(min)],
    ) = (instance.as_str(), &c.keywords[body.clone()])
    {
        let len = s.len() as u64;
        if len <= *max && len >= min.saturating_mul(4) {
            return true;
        }
        if len >= *min {
            let n = code_points(s);
            if n >= *min && n <= *max {
                return true;
            }
        }
    }
    for (offset, kw) in c.keywords[body].iter().enumerate() {
        // The cheapest keywords of string and array leaves inline; the rest by call.
        let ok = match (*kw, instance.kind()) {
            (Keyword::Enum(span), Kind::String) => {
                let s = instance.as_str().unwrap_or_default();
                if span.len() <= ENUM_SCAN_LIMIT {
                    c.values[span.range()]
                        .iter()
                        .any(|v| matches!(v, Value::String(t) if crate::names::same(s, t)))
                } else {
                    // (A long one is looked up in its table, by a call.)
                    c.long_enum_has_string(span, s)
                }
            }
            (Keyword::Const(i), Kind::String) => {
                let s = instance.as_str().unwrap_or_default();
                matches!(&c.values[i.index()], Value::String(t) if crate::names::same(s, t))
            }
            (Keyword::MaxLength(max), Kind::String) => {
                max_length(instance.as_str().unwrap_or_default(), max)
            }
            (Keyword::MinLength(min), Kind::String) => {
                min_length(instance.as_str().unwrap_or_default(), min)
            }
            (Keyword::MinItems(min), Kind::Array) => {
                min_items(instance.as_array().map_or(0, |a| a.len()), min)
            }
            (Keyword::MaxItems(max), Kind::Array) => {
                max_items(instance.as_array().map_or(0, |a| a.len()), max)
            }
            (Keyword::MinProperties(min), Kind::Object) => {
                instance.as_object().is_some_and(|o| min_properties(o, min))
            }
            (Keyword::MaxProperties(max), Kind::Object) => {
                instance.as_object().is_some_and(|o| max_properties(o, max))
            }
            // A number against a bound: one comparison, mostly (see `Limit::admits`).
            (
                Keyword::Minimum(i)
                | Keyword::Maximum(i)
                | Keyword::ExclusiveMinimum(i)
                | Keyword::ExclusiveMaximum(i),
                Kind::Number,
            ) => match instance
                .as_number()
                .and_then(|x| c.limits.get(i.index()).and_then(|l| l.admits(*kw, &x)))
            {
                Some(ok) => ok,
                None => assertion(c, node, start + offset, *kw, instance, ctx, col),
            },
            _ => assertion(c, node, start + offset, *kw, instance, ctx, col),
        };
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::FEW_NAMES;
    use serde_json::json;

    /// A small deterministic generator (xorshift), so that a failure replays.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Names of every size class `names::summary` treats apart (empty, 1-3, 4-7 bytes, 8
    /// and more), and long names whose summaries are equal (same length, same first and
    /// last eight bytes): the few walk must compare their bytes.
    /// More names than `FEW_NAMES`, so that a schema may declare that many.
    const NAMES: [&str; 20] = [
        "",
        "a",
        "id",
        "url",
        "name",
        "query",
        "version",
        "repository",
        "abcdefgh_X_12345678",
        "abcdefgh_Y_12345678",
        "abcdefgh_Z_12345678",
        "\u{e9}t\u{e9}",
        "b",
        "body",
        "title",
        "labels",
        "issue_number",
        "state_reason",
        "Zulu",
        "milestone",
    ];

    /// Values of every kind, some passing the property schemas below and some not.
    fn value(rng: &mut Rng) -> serde_json::Value {
        match rng.below(7) {
            0 => json!("text"),
            1 => json!(""),
            2 => json!(3),
            3 => json!(null),
            4 => json!({"x": 1}),
            5 => json!({"x": "no"}),
            _ => json!([true]),
        }
    }

    fn property_schema(rng: &mut Rng) -> serde_json::Value {
        match rng.below(9) {
            // (Decided by types alone: the few walk tests them inline.)
            6 => json!({"type": "string"}),
            7 => json!({"type": ["integer", "null"]}),
            8 => json!({"anyOf": [{"type": "object"}, {"type": "string"}]}),
            0 => json!({"type": "string", "minLength": 1}),
            1 => json!({"type": "integer"}),
            2 => json!({}),
            3 => {
                json!({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]})
            }
            4 => json!({"$ref": "#/$defs/text"}),
            _ => json!({"enum": ["text", 3, null]}),
        }
    }

    /// The few walk and its slow twin, the keys walk on the same spec (the names looked up
    /// in `property_sigs`, their schemas read from `property_walk`, `required` counted),
    /// on the spec of the object at the root; `None` when the root is not of that walk.
    fn both_walks<'a, I: Instance<'a>>(c: &Compiled, instance: I) -> Option<(bool, bool)> {
        let spec = c.object_spec(c.fail_fast_root())?;
        if spec.walk != ObjectWalk::Few {
            return None;
        }
        let o = instance.as_object()?;
        let budget = Budget::new(c, instance);
        let frame = constant_frame(&budget);
        let few = few_walk(c, spec, o, Ctx(&frame), &mut FailFast);
        let keys = keys_walk(c, spec, o, Ctx(&frame), &mut FailFast);
        Some((few, keys))
    }

    /// `ObjectWalk::Few` against the walk it stands for (`keys_walk`) and against the
    /// reference configuration, on random objects of up to `FEW_NAMES` declared names,
    /// open and closed, with random `required` names, on a `Value` and on the flat layout.
    #[test]
    fn few_walk_agrees_with_keys_walk() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut few_seen = 0;
        let mut verdicts = [0usize; 2];
        let mut doc = crate::flat::Document::new();
        // Rounds 400.. add keywords an object node carries beside `properties`,
        // `required` and `additionalProperties` (bounds, patterns, names, dependencies,
        // unevaluated members): the fast configuration must still agree with the
        // reference one, both ways, on a `Value` and from bytes.
        let mut beside_verdicts = [0usize; 2];
        for round in 0..800 {
            let beside = round >= 400;
            // (Up to 8 names mostly, up to `FEW_NAMES` one time in four.)
            let count = 1 + if rng.below(4) == 0 {
                rng.below(FEW_NAMES)
            } else {
                rng.below(8)
            };
            let mut properties = serde_json::Map::new();
            while properties.len() < count {
                properties.insert(
                    NAMES[rng.below(NAMES.len())].to_owned(),
                    property_schema(&mut rng),
                );
            }
            let required: Vec<&String> = properties.keys().filter(|_| rng.below(3) == 0).collect();
            let additional = match rng.below(4) {
                0 => json!(false),
                1 => json!({"type": "integer"}),
                2 => json!({}),
                _ => json!(null),
            };
            let mut schema = json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "$defs": {"text": {"type": "string", "maxLength": 4}}
            });
            if !additional.is_null() {
                schema["additionalProperties"] = additional;
            }
            if beside {
                for _ in 0..1 + rng.below(2) {
                    let (keyword, value) = match rng.below(7) {
                        0 => ("minProperties", json!(1 + rng.below(3))),
                        1 => ("maxProperties", json!(rng.below(4))),
                        2 => ("patternProperties", json!({"^a": {"type": "string"}})),
                        3 => ("propertyNames", json!({"maxLength": 8})),
                        4 => ("dependentRequired", json!({"other": ["abc"]})),
                        5 => ("unevaluatedProperties", json!(false)),
                        _ => ("minProperties", json!(0)),
                    };
                    schema[keyword] = value;
                }
            }
            let fast = crate::Options::new().compile(&schema).unwrap();
            let reference = crate::Options::new()
                .shortcuts(false)
                .compile(&schema)
                .unwrap();
            for _ in 0..20 {
                let mut instance = serde_json::Map::new();
                // (Up to 10 keys mostly, as many as the largest walk now and then.)
                let keys = if rng.below(4) == 0 {
                    rng.below(FEW_NAMES + 3)
                } else {
                    rng.below(11)
                };
                for _ in 0..keys {
                    let name = match rng.below(4) {
                        // (Mostly declared names; some others, some near misses.)
                        0 => "other",
                        1 => "abcdefgh_W_12345678",
                        _ => NAMES[rng.below(NAMES.len())],
                    };
                    instance.insert(name.to_owned(), value(&mut rng));
                }
                let instance = serde_json::Value::Object(instance);
                let expected = reference.is_valid(&instance);
                if beside {
                    let text = serde_json::to_vec(&instance).unwrap();
                    assert_eq!(fast.is_valid(&instance), expected, "{schema} on {instance}");
                    assert_eq!(
                        fast.is_valid_json(&text),
                        Ok(expected),
                        "{schema} on {instance} (bytes)"
                    );
                    if let Some((few, keys)) = both_walks(&fast.compiled, &instance) {
                        assert_eq!(few, keys, "round {round}: {schema} on {instance}");
                    }
                    beside_verdicts[usize::from(expected)] += 1;
                    continue;
                }
                let Some((few, keys)) = both_walks(&fast.compiled, &instance) else {
                    continue;
                };
                few_seen += 1;
                verdicts[usize::from(expected)] += 1;
                // The walk is the whole check but for `type` and the bounds, which the
                // generated schemas do not have: all three agree.
                assert_eq!(few, keys, "round {round}: {schema} on {instance} (Value)");
                assert_eq!(
                    few, expected,
                    "round {round}: {schema} on {instance} (Value)"
                );
                assert_eq!(fast.is_valid(&instance), expected, "{schema} on {instance}");
                let text = serde_json::to_vec(&instance).unwrap();
                let tree = doc.parse(&text).unwrap();
                let (few, keys) = both_walks(&fast.compiled, tree.root()).unwrap();
                assert_eq!(few, keys, "round {round}: {schema} on {instance} (flat)");
                assert_eq!(
                    few, expected,
                    "round {round}: {schema} on {instance} (flat)"
                );
                // The same members in another order, as a document may hold them (the
                // walk's search starts where the sorted order says the next key is).
                let mut members: Vec<_> = instance.as_object().unwrap().iter().collect();
                let turn = rng.below(members.len().max(1));
                members.rotate_left(turn);
                if rng.below(2) == 0 {
                    members.reverse();
                }
                let text = format!(
                    "{{{}}}",
                    members
                        .iter()
                        .map(|(k, v)| format!("{}:{v}", serde_json::Value::from(k.as_str())))
                        .collect::<Vec<_>>()
                        .join(",")
                );
                let tree = doc.parse(text.as_bytes()).unwrap();
                let (few, keys) = both_walks(&fast.compiled, tree.root()).unwrap();
                assert_eq!(few, keys, "round {round}: {schema} on {text} (flat)");
                assert_eq!(few, expected, "round {round}: {schema} on {text} (flat)");
                assert_eq!(fast.is_valid_json(text.as_bytes()), Ok(expected), "{text}");
            }
        }
        // (Most generated schemas take the walk; both verdicts are well represented: about
        // one in eight instances is valid.)
        assert!(few_seen > 4000, "{few_seen}");
        assert!(verdicts.iter().all(|&n| n > 500), "{verdicts:?}");
        assert!(
            beside_verdicts.iter().all(|&n| n > 300),
            "{beside_verdicts:?}"
        );
    }

    /// Which objects get the few walk: a keys walk of one to `FEW_NAMES` names; more names
    /// keep the walk `Keys`, and the reference configuration builds no spec at all.
    #[test]
    fn few_names_only_for_a_few_names() {
        let walk = |n: usize, reference: bool| {
            let properties: serde_json::Map<_, _> = (0..n)
                .map(|i| (format!("p{i}"), json!({"type": "string"})))
                .collect();
            let schema =
                json!({"type": "object", "properties": properties, "additionalProperties": false});
            let s = crate::Options::new()
                .shortcuts(!reference)
                .compile(&schema)
                .unwrap();
            let c = &s.compiled;
            c.object_spec(c.fail_fast_root()).map(|spec| spec.walk)
        };
        for n in 1..=FEW_NAMES {
            assert_eq!(walk(n, false), Some(ObjectWalk::Few), "{n} names");
            assert_eq!(walk(n, true), None);
        }
        assert_eq!(walk(FEW_NAMES + 1, false), Some(ObjectWalk::Keys));
        assert_eq!(walk(FEW_NAMES + 1, true), None);
    }
}
