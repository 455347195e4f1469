//! Object keywords: `properties` with `additionalProperties`, `patternProperties`,
//! `propertyNames`, `required`, `dependentSchemas`, `minProperties`/`maxProperties`.

use super::*;

/// Whether the property name `key` conforms to `node` (fail-fast). A node of string
/// assertions only (`{"pattern": "^.+$"}`, `{"maxLength": 64}`) reads the name in place;
/// any other goes through a string value.
#[inline]
pub(super) fn name_valid(c: &Compiled, node: NodeId, key: &str, ctx: Ctx<'_>) -> bool {
    let n = c.node(node);
    if !n.types.contains(JsonType::String) {
        return false;
    }
    if !n.leaf {
        return eval_key(c, node, key, ctx, &mut FailFast);
    }
    for kw in &c.keywords[n.body()] {
        let ok = match *kw {
            Keyword::Pattern(i) => {
                c.patterns[i.index()].find_in(key, ctx.budget) == MatchOutcome::Match
            }
            Keyword::MaxLength(max) => max_length(key, max),
            Keyword::MinLength(min) => min_length(key, min),
            Keyword::Enum(span) => c.enum_has_string(span, key),
            Keyword::Const(i) => matches!(&c.values[i.index()], Value::String(t) if t == key),
            // What a string cannot fail.
            Keyword::MultipleOf(_)
            | Keyword::Maximum(_)
            | Keyword::ExclusiveMaximum(_)
            | Keyword::Minimum(_)
            | Keyword::ExclusiveMinimum(_)
            | Keyword::MaxItems(_)
            | Keyword::MinItems(_)
            | Keyword::UniqueItems
            | Keyword::MaxProperties(_)
            | Keyword::MinProperties(_)
            | Keyword::Required(_)
            | Keyword::DependentRequired(_) => true,
            Keyword::False
            | Keyword::Type(_)
            | Keyword::Format(_)
            | Keyword::Content(_)
            | crate::schema::applicator_keywords!() => {
                return eval_key(c, node, key, ctx, &mut FailFast);
            }
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `required` on the fail-fast path: true when the sibling properties walk counts the
/// names instead, else each name looked up.
#[inline(never)]
pub(super) fn required_met<'a, O: crate::flat::Object<'a>>(
    c: &Compiled,
    span: crate::schema::Span,
    o: O,
) -> bool {
    c.accel.required_walked.get(span.start as usize) == Some(&true)
        || json::has_all(
            o,
            &c.strings[span.range()],
            c.string_summaries.get(span.range()).unwrap_or_default(),
        )
}

/// `additionalProperties` fused with its siblings: for each instance property, the
/// declared schema, the matching patterns' schemas, or else the additional schema.
#[allow(clippy::too_many_arguments)]
pub(super) fn additional_properties<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    i: crate::schema::AdditionalId,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let a = c.additional[i.index()];
    let patterns = &c.pattern_properties[a.patterns.range()];
    let forbidden = c.is_false_schema(a.node);
    let mut ok = true;
    // Required names met (the fail-fast path checks the sibling `required` this way).
    let mut met = 0;
    let names = c.names_of(a.properties);
    for (key, summary, value) in o.entries() {
        let path = ctx.path.push(Seg::Key(key));
        // The fail-fast path keeps no location (the unused `path` is optimised away).
        let here = if C::FAIL_FAST {
            ctx
        } else {
            Ctx(&Frame {
                path: &path,
                ..*ctx
            })
        };
        let mut item_ok = true;
        let mut matched = false;
        if let Some(j) = names.find_in_span(c, a.properties, key, summary) {
            matched = true;
            met += u32::from(c.accel.property_required.get(j) == Some(&true));
            item_ok = eval(c, c.properties[j].1, value, here, col);
        }
        for &(p, child) in patterns {
            if !item_ok && (C::FAIL_FAST || col.full()) {
                break;
            }
            match c.patterns[p.index()].find_name(key, ctx.budget) {
                MatchOutcome::NoMatch => {}
                MatchOutcome::Match => {
                    matched = true;
                    item_ok &= eval(c, child, value, here, col);
                }
                MatchOutcome::BudgetExceeded => {
                    matched = true;
                    item_ok = false;
                    if !C::FAIL_FAST {
                        let pattern = c.pattern_sources[p.index()].clone();
                        let kind = ErrorKind::PatternBudgetExceeded { pattern };
                        col.error(c, ctx, node, k, Some(Seg::Key(key)), kind, Vec::new());
                    }
                }
            }
        }
        if !matched {
            item_ok = if forbidden {
                if !C::FAIL_FAST {
                    let kind = ErrorKind::AdditionalProperties;
                    col.error(c, ctx, node, k, Some(Seg::Key(key)), kind, Vec::new());
                }
                false
            } else {
                eval(c, a.node, value, here, col)
            };
        }
        check!(ok, col, item_ok);
    }
    if C::FAIL_FAST {
        return met == c.walk_required(a.properties);
    }
    ok
}

/// `properties`: looks up each declared name in the instance.
#[inline]
pub(super) fn properties<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    if C::FAIL_FAST {
        if c.accel.deferred_in_name_order.get(span.start as usize) != Some(&false) {
            // The instance's key order is cheap enough first: one walk, each key looked
            // up by signature. (Also without accelerators: the plainest order, with no
            // required name counted on the way.)
            let mut met = 0;
            let names = c.names_of(span);
            for (key, summary, value) in o.entries() {
                if let Some(i) = names.find_in_span(c, span, key, summary) {
                    let (child, required) = c.walk_entry(i);
                    met += required;
                    if !eval(c, child, value, ctx, col) {
                        return false;
                    }
                }
            }
            return met == c.walk_required(span);
        }
        // First the properties whose schemas are assertions only, walking the instance;
        // then the others, cheapest first (a `oneOf` branch fails on its cheap
        // discriminator before it walks a large sibling).
        const KEPT: usize = 16;
        if span.len() > BY_POSITION {
            return properties_by_rank(c, span, o, ctx, col);
        }
        // The deferred values of a small span are kept here (by position in the span)
        // for the second pass.
        let mut kept: [Option<O::Value>; KEPT] = [None; KEPT];
        let mut deferred = false;
        let start = span.start as usize;
        let defer = |i: usize, _, value| {
            deferred = true;
            if let Some(slot) = kept.get_mut(i - start) {
                *slot = Some(value);
            }
        };
        if !leaves_first(c, span, o, ctx, col, defer) {
            return false;
        }
        return !deferred || deferred_in_order(c, span, ctx, col, |i| kept[i - start]);
    }
    if o.len() * 4 < span.len() {
        // Few keys against many declared names: walk the instance, search the names.
        let names = c.names_of(span);
        for (key, summary, value) in o.entries() {
            if let Some(i) = names.find_in_span(c, span, key, summary) {
                check!(
                    ok,
                    col,
                    eval_at!(c, c.properties[i].1, value, ctx, Seg::Key(key), col)
                );
            }
        }
        return ok;
    }
    const FOUND: usize = 16;
    if span.len() <= FOUND {
        // One walk of the instance finds the declared names by signature (no string
        // comparisons of a map lookup per name); then they are evaluated in the order.
        let mut found: [Option<(&str, O::Value)>; FOUND] = [None; FOUND];
        let names = c.names_of(span);
        for (key, summary, value) in o.entries() {
            if let Some(i) = names.find_in_span(c, span, key, summary)
                && let Some(slot) = found.get_mut(i - span.start as usize)
            {
                *slot = Some((key, value));
            }
        }
        for i in c.property_order(span) {
            if let Some(Some((key, value))) = found.get(i - span.start as usize) {
                let child = c.properties[i].1;
                check!(ok, col, eval_at!(c, child, *value, ctx, Seg::Key(key), col));
            }
        }
        return ok;
    }
    for i in c.property_order(span) {
        let (name, child) = &c.properties[i];
        if let Some(value) = json::lookup(o, name.as_ref()) {
            check!(
                ok,
                col,
                eval_at!(c, *child, value, ctx, Seg::Key(name), col)
            );
        }
    }
    ok
}

/// `minProperties`.
#[inline(always)]
pub(super) fn min_properties<'a, O: crate::flat::Object<'a>>(o: O, min: u64) -> bool {
    o.len() as u64 >= min
}

/// `maxProperties`.
#[inline(always)]
pub(super) fn max_properties<'a, O: crate::flat::Object<'a>>(o: O, max: u64) -> bool {
    o.len() as u64 <= max
}

/// `patternProperties`: every key against every pattern, each match's value against its
/// schema. A pattern that runs out of its backtracking budget fails the keyword.
#[inline(always)]
pub(super) fn pattern_properties<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    span: crate::schema::Span,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    for (key, _, value) in o.entries() {
        for &(p, child) in &c.pattern_properties[span.range()] {
            match c.patterns[p.index()].find_name(key, ctx.budget) {
                MatchOutcome::NoMatch => continue,
                MatchOutcome::Match => {
                    check!(ok, col, eval_at!(c, child, value, ctx, Seg::Key(key), col));
                }
                MatchOutcome::BudgetExceeded => {
                    ok = false;
                    if C::FAIL_FAST {
                        return false;
                    }
                    let pattern = c.pattern_sources[p.index()].clone();
                    col.error(
                        c,
                        ctx,
                        node,
                        k,
                        Some(Seg::Key(key)),
                        ErrorKind::PatternBudgetExceeded { pattern },
                        Vec::new(),
                    );
                }
            }
        }
    }
    ok
}

/// `propertyNames`: each key, as a string, against the schema (on the reporting paths,
/// the key's own errors are the causes of one error at the key).
#[inline(always)]
pub(super) fn property_names<'a, O: crate::flat::Object<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    child: NodeId,
    o: O,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    for key in o.entries().map(|(k, _, _)| k) {
        if !name_valid(c, child, key, ctx) {
            ok = false;
            if C::FAIL_FAST {
                return false;
            }
            let mut branch = col.branch();
            let path = ctx.path.push(Seg::Key(key));
            eval_key(
                c,
                child,
                key,
                Ctx(&Frame {
                    path: &path,
                    ..*ctx
                }),
                &mut branch,
            );
            let causes = branch.take();
            col.error(
                c,
                ctx,
                node,
                k,
                Some(Seg::Key(key)),
                ErrorKind::PropertyNames,
                causes,
            );
            if col.full() {
                return false;
            }
        }
    }
    ok
}

/// `dependentSchemas`: for each named property the object has, the whole object against
/// that property's schema.
#[inline(always)]
pub(super) fn dependent_schemas<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    instance: I,
    o: I::Object,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    for (name, child) in &c.dependent_schemas[span.range()] {
        if json::has(o, name.as_ref()) && !eval(c, *child, instance, ctx, col) {
            ok = false;
            if C::FAIL_FAST || col.full() {
                return false;
            }
        }
    }
    ok
}
