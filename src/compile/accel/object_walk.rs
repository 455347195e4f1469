//! Object specs: one walk of an object's keys that checks `properties`, `patternProperties`,
//! `additionalProperties` and `required` together, and the walk of the root object.

use super::*;

/// `property_patterned`: for the names of each `properties` beside `additionalProperties`
/// and `patternProperties`, whether a pattern may match them. (A declared key of krakend's
/// objects passes `^[@$_#]`'s first-byte test in no pattern: the walk need not try them.)
pub(super) fn patterned_names(c: &mut Compiled) {
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
                .any(|&(p, _)| !c.patterns[p.index()].rules_out_name(name));
        }
    }
    c.accel.property_patterned = patterned;
}

/// A `fail_fast_root` past typed forwards when they end on a node of the plain-object
/// shape (`{"type": "object", "allOf": [{"$ref": "#/definitions/base"}]}`): a forward
/// checks its types and goes on to its target, nothing else, so `is_valid` may check
/// their types and walk the object at once. Where the types differ from the walk node's,
/// the root is a copy of it with their intersection (the node itself may be reached
/// elsewhere).
pub(super) fn root_object_walk(c: &mut Compiled) {
    let mut start = c.accel.fail_fast_root;
    let mut types = TypeSet::all();
    // (Forwards form no cycle, `cycles::check` refuses those; bounded regardless.)
    for _ in 0..16 {
        let n = c.nodes[start.index()];
        if n.shape == Shape::PlainObject && start != c.accel.fail_fast_root {
            // (`intersect` keeps no draft-4 integer typing: such a node is not gone past.)
            if n.types.is_strict() {
                return;
            }
            let types = types.intersect(n.types);
            if types == n.types {
                c.accel.fail_fast_root = start;
                return;
            }
            let copy = c.append_node(crate::schema::Node { types, ..n }, start);
            c.accel.spec_of[copy.index()] = c.accel.spec_of[start.index()];
            c.accel.fail_fast_root = copy;
            return;
        }
        match c.accel.spec_of.get(start.index()) {
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

/// The `ObjectSpec` of every node of the plain-object shape (needs the fused `required`).
#[inline(never)]
pub(super) fn object_specs(c: &mut Compiled, live: &[u32]) {
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
            few: FewNames::NONE,
        };
        for kw in &c.keywords[body] {
            match *kw {
                Keyword::Properties(span) => spec.names = span,
                Keyword::AdditionalProperties(a) => {
                    let add = c.additional[a.index()];
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
                    if c.accel.required_walked.get(span.start as usize) != Some(&true) =>
                {
                    spec.required = span;
                }
                Keyword::MinProperties(m) => spec.min = spec.min.max(m),
                Keyword::MaxProperties(m) => spec.max = spec.max.min(m),
                Keyword::PropertyNames(child) => spec.key_names = child,
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
                | Keyword::Required(_)
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
                | crate::schema::bound_keywords!() => {}
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
        c.accel.spec_of[i] = c.accel.object_specs.len() as u32;
        c.accel.object_specs.push(spec);
    }
}

/// The walks of a few names (`ObjectWalk::Few`): a keys walk of at most `FEW_NAMES`
/// declared names gets them inline in its spec, sorted by their bytes, with the
/// subschemas the fail-fast path goes on to (so after `branch_targets`, which makes
/// `property_walk`) and the types of those decided by types alone. Under
/// `shortcuts(false)` no spec is made at all; the walk `Keys` stays for more names.
#[inline(never)]
pub(super) fn few_names(c: &mut Compiled) {
    let mut order: smallvec::SmallVec<[usize; FEW_NAMES]> = smallvec::SmallVec::new();
    for k in 0..c.accel.object_specs.len() {
        let spec = c.accel.object_specs[k];
        let n = spec.names.len();
        if spec.walk != ObjectWalk::Keys || n == 0 || n > FEW_NAMES {
            continue;
        }
        // (In a serde_json `Map`'s order: `str`'s `Ord` is the bytes'.)
        order.clear();
        order.extend(spec.names.range());
        order.sort_by(|&a, &b| c.properties[a].0.cmp(&c.properties[b].0));
        let mut few = FewNames::NONE;
        for (j, &i) in order.iter().enumerate() {
            let Some(&(child, required)) = c.accel.property_walk.get(i) else {
                // (Every name has its entry; without one, the walk `Keys` stays.)
                few.len = 0;
                break;
            };
            few.summaries[j] = crate::names::summary(&c.properties[i].0);
            few.filter |= FewNames::filter_bit(few.summaries[j]);
            few.children[j] = child;
            few.names[j] = i as u32;
            few.required |= u16::from(required != 0) << j;
            if let Some(node) = c.nodes.get(child.index()).filter(|_| !child.is_none())
                && node.shape.decided_by_types()
            {
                few.types[j] = node.types;
                few.typed |= 1 << j;
            }
            few.len = j as u8 + 1;
        }
        if usize::from(few.len) == n {
            c.accel.object_specs[k].few = few;
            c.accel.object_specs[k].walk = ObjectWalk::Few;
        }
    }
}

/// Lets the fail-fast walk of an object's keys (`properties`, or `additionalProperties`
/// with its siblings) check the node's `required` by counting the required names it meets,
/// when they are all declared and distinct: no separate lookup per name.
#[inline(never)]
pub(super) fn fuse_required(c: &mut Compiled, live: &[u32]) {
    c.accel.property_required = vec![false; c.properties.len()];
    c.accel.walk_required = vec![0; c.properties.len()];
    c.accel.required_walked = vec![false; c.strings.len()];
    let mut found: smallvec::SmallVec<[usize; 16]> = smallvec::SmallVec::new();
    for i in live.iter().map(|&i| i as usize) {
        let mut required = None;
        let mut walked = None;
        for kw in c.keywords_of(NodeId(i as u32)) {
            match *kw {
                Keyword::Required(span) => required = Some(span),
                Keyword::Properties(span) => walked = Some(span),
                Keyword::AdditionalProperties(a) => {
                    walked = Some(c.additional[a.index()].properties)
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
                | Keyword::MaxItems(_)
                | Keyword::MinItems(_)
                | Keyword::UniqueItems
                | Keyword::MaxProperties(_)
                | Keyword::MinProperties(_)
                | Keyword::DependentRequired(_)
                | Keyword::PatternProperties(_)
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
                | crate::schema::bound_keywords!() => {}
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
        if found.is_empty() || c.accel.walk_required[walked.start as usize] != 0 {
            continue;
        }
        for &j in &found {
            c.accel.property_required[j] = true;
        }
        c.accel.walk_required[walked.start as usize] = found.len() as u32;
        c.accel.required_walked[required.start as usize] = true;
    }
}
