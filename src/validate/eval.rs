//! The general keyword loop: a node's keywords in order, each evaluated and, on the
//! reporting paths, reported. Decides everything under `Options::shortcuts(false)`.

use super::*;

/// Evaluates `node` against a property name, as a JSON string.
pub(super) fn eval_key<C: Collector>(
    c: &Compiled,
    node: NodeId,
    key: &str,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    KEY_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            match &mut *slot {
                Value::String(s) => {
                    s.clear();
                    s.push_str(key);
                }
                other => *other = Value::String(key.to_string()),
            }
            let value = std::mem::take(&mut *slot);
            drop(slot);
            let ok = eval(c, node, &value, ctx, col);
            if let Ok(mut slot) = cell.try_borrow_mut() {
                *slot = value;
            }
            ok
        }
        Err(_) => eval(c, node, &Value::String(key.to_string()), ctx, col),
    })
}

pub(super) fn eval_node<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let n = c.node(node);
    if C::FAIL_FAST && !enters_resource(c, n, &ctx) {
        // A node that only refers elsewhere (`{"$ref": ...}`, maybe typed): go there
        // directly. (The dynamic scope, when kept, must see the node itself.)
        let body = n.body();
        if body.len() == 1 {
            match c.keywords[body.start] {
                Keyword::Ref(target) => return eval(c, target, instance, ctx, col),
                // (`{"$dynamicRef": "#meta"}`, at every subschema of a meta-schema.)
                Keyword::DynamicRef(i) => {
                    return eval(c, dynamic_target(c, i, ctx.scope), instance, ctx, col);
                }
                Keyword::Properties(_)
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
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_)
                | crate::schema::assertion_keywords!() => {}
            }
        }
    }
    // (A step where one value may meet several subschemas; see `Budget`.)
    if !ctx.budget.step() {
        return false;
    }
    // Entering another resource extends the dynamic scope (kept only when some
    // `$dynamicRef` reads it).
    let (pushed, frame);
    let ctx = if enters_resource(c, n, &ctx) {
        pushed = Scope::enter(n.resource, ctx.scope);
        frame = Frame {
            scope: &pushed,
            ..*ctx
        };
        Ctx(&frame)
    } else {
        ctx
    };
    let mark = col.checkpoint();
    let mut valid = true;
    // (The fail-fast path checked the types in `eval` already.)
    if !C::FAIL_FAST && n.typed && !admits(n.types, instance) {
        // The hoisted `type` failed: the keyword itself reports it.
        let k = n.keywords.start as usize;
        assertion(c, node, k, c.keywords[k], instance, ctx, col);
        valid = false;
        if col.full() {
            if C::ANNOTATE {
                col.rollback(mark);
            }
            return false;
        }
    }
    let body = n.body();
    let start = body.start;
    for (offset, kw) in c.keywords[body].iter().enumerate() {
        let k = start + offset;
        let ok = if C::FAIL_FAST {
            // The commonest cheap keywords inline, with no call.
            match *kw {
                Keyword::MinItems(min) => match instance.as_array() {
                    Some(a) => min_items(a.len(), min),
                    _ => true,
                },
                Keyword::MaxItems(max) => match instance.as_array() {
                    Some(a) => max_items(a.len(), max),
                    _ => true,
                },
                Keyword::Required(span) => match instance.as_object() {
                    Some(o) => required_met(c, span, o),
                    _ => true,
                },
                Keyword::Items { node: child, skip } => match instance.as_array() {
                    // `additionalItems: false` fails on any item too, with no report to make.
                    Some(items) => items_from(c, child, skip, items, ctx, col),
                    _ => true,
                },
                // The commonest applicators by small calls of their own (`eval_keyword`'s
                // frame and context copies cost more than a branch check).
                Keyword::OneOf(span) => one_of(c, span, instance, ctx),
                Keyword::AnyOf(span) => any_of(c, span, instance, ctx),
                Keyword::AllOf(span) => all_of(c, span, instance, ctx),
                Keyword::Not(child) => !valid_at(c, child, instance, ctx),
                Keyword::If { cond, then, els } => if_then_else(c, cond, then, els, instance, ctx),
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
                | Keyword::DependentRequired(_)
                | Keyword::Content(_)
                | crate::schema::bound_keywords!() => {
                    assertion(c, node, k, *kw, instance, ctx, col)
                }
                Keyword::Properties(_)
                | Keyword::PatternProperties(_)
                | Keyword::AdditionalProperties(_)
                | Keyword::PropertyNames(_)
                | Keyword::DependentSchemas(_)
                | Keyword::PrefixItems(_)
                | Keyword::Contains(_)
                | Keyword::Ref(_)
                | Keyword::DynamicRef(_)
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_) => eval_keyword(c, node, k, kw, instance, &ctx, col),
            }
        } else if kw.is_assertion() {
            assertion(c, node, k, *kw, instance, ctx, col)
        } else {
            eval_keyword(c, node, k, kw, instance, &ctx, col)
        };
        if C::ANNOTATE && ok && col.keeps_annotations() {
            applicator_annotation(c, node, k, *kw, instance, ctx, col);
        }
        if !ok {
            valid = false;
            if C::FAIL_FAST || col.full() {
                return false;
            }
        }
    }
    if C::ANNOTATE {
        if valid {
            for &a in &c.annotation_values[c.node_annotations[node.index()].range()] {
                if !col.keeps_annotations() {
                    break;
                }
                let (name, value) = c.annotation(a);
                // The content keywords annotate strings only.
                if name.starts_with("content") && instance.kind() != Kind::String {
                    continue;
                }
                col.annotate(c, ctx, node, name, value);
            }
        } else {
            col.rollback(mark);
        }
    }
    valid
}

#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn eval_keyword<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    kw: &Keyword,
    instance: I,
    ctx: &Ctx<'_>,
    col: &mut C,
) -> bool {
    // By reference: copying the keyword and context into every call cost more than the
    // keyword itself for the cheap ones.
    let (kw, ctx) = (*kw, *ctx);
    match kw {
        Keyword::Properties(span) => match instance.as_object() {
            Some(o) => properties(c, span, o, ctx, col),
            _ => true,
        },
        Keyword::PatternProperties(span) => match instance.as_object() {
            Some(o) => pattern_properties(c, node, k, span, o, ctx, col),
            _ => true,
        },
        Keyword::AdditionalProperties(i) => match instance.as_object() {
            Some(o) => additional_properties(c, node, k, i, o, ctx, col),
            _ => true,
        },
        Keyword::PropertyNames(child) => match instance.as_object() {
            Some(o) => property_names(c, node, k, child, o, ctx, col),
            _ => true,
        },
        Keyword::DependentSchemas(span) => match instance.as_object() {
            Some(o) => dependent_schemas(c, span, instance, o, ctx, col),
            _ => true,
        },
        Keyword::PrefixItems(span) => match instance.as_array() {
            Some(items) => prefix_items(c, span, items, ctx, col),
            _ => true,
        },
        Keyword::Items { node: child, skip } => match instance.as_array() {
            Some(items) => items_from_index(c, node, k, child, skip, items, ctx, col),
            _ => true,
        },
        Keyword::Contains(i) => match instance.as_array() {
            // (Fail-fast: counted until the answer is known, no location or annotation.)
            Some(items) if C::FAIL_FAST => contains_count(c, i, items, ctx),
            Some(items) => contains(c, node, k, i, items, ctx, col),
            _ => true,
        },
        Keyword::AllOf(span) => each_of(c, span, instance, ctx, col),
        Keyword::AnyOf(span) => any_of_reported(c, node, k, span, instance, ctx, col),
        Keyword::OneOf(span) => one_of_reported(c, node, k, span, instance, ctx, col),
        Keyword::Not(child) => {
            !valid_at(c, child, instance, ctx) || fail!(col, c, ctx, node, k, ErrorKind::Not)
        }
        Keyword::If { cond, then, els } => if_reported(c, cond, then, els, instance, ctx, col),
        Keyword::Ref(target) => follow(c, node, k, target, instance, ctx, col),
        Keyword::DynamicRef(i) => {
            let target = dynamic_target(c, i, ctx.scope);
            follow(c, node, k, target, instance, ctx, col)
        }
        Keyword::UnevaluatedProperties(child) => match instance.as_object() {
            Some(o) => unevaluated::properties(c, node, k, child, instance, o, ctx, col),
            _ => true,
        },
        Keyword::UnevaluatedItems(child) => match instance.as_array() {
            Some(items) => unevaluated::items(c, node, k, child, instance, items, ctx, col),
            _ => true,
        },
        assertion_keywords!() => assertion(c, node, k, kw, instance, ctx, col),
    }
}

/// `$ref` and `$dynamicRef`: the target evaluated where the reference stands (on the
/// reporting paths, with the hop recorded for the error's `keywordLocation`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn follow<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    target: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    if C::FAIL_FAST {
        return eval(c, target, instance, ctx, col);
    }
    let hop = Hop {
        parent: Some(ctx.hop),
        via: node,
        via_keyword: k,
        entry: target,
    };
    eval(c, target, instance, Ctx(&Frame { hop: &hop, ..*ctx }), col)
}

/// The assertion keywords: they look at the instance itself, never at a subschema.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn assertion<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    kw: Keyword,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    match kw {
        Keyword::False => fail!(col, c, ctx, node, k, ErrorKind::FalseSchema),
        Keyword::Type(set) => match type_verdict(set, instance) {
            Ok(()) => true,
            Err(found) => fail!(
                col,
                c,
                ctx,
                node,
                k,
                ErrorKind::Type {
                    expected: set,
                    found
                }
            ),
        },
        Keyword::Const(i) => {
            instance.equals(&c.values[i.index()])
                || fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::const_of(&c.values[i.index()])
                )
        }
        Keyword::Enum(span) => {
            let values = &c.values[span.range()];
            let found = match instance.kind() {
                // The commonest enum: strings, compared inline (no call per value).
                Kind::String => c.enum_has_string(span, instance.as_str().unwrap_or_default()),
                // Numbers against the number values only, with no walk per value; a long
                // enum's in its table.
                Kind::Number => match instance.as_number() {
                    Some(x) if span.len() > ENUM_SCAN_LIMIT => c.long_enum_has_number(span, &x),
                    Some(x) => values
                        .iter()
                        .any(|v| matches!(v, Value::Number(y) if json::num_eq(&x, y))),
                    None => false,
                },
                _ if span.len() > ENUM_SCAN_LIMIT => c.long_enum_has_value(span, instance),
                // Others against values of their kind only (no call per value of another).
                kind => values
                    .iter()
                    .any(|v| json::kind_index(v) == kind as usize && instance.equals(v)),
            };
            found || fail!(col, c, ctx, node, k, ErrorKind::enum_of(values))
        }
        Keyword::MultipleOf(i) => match instance.as_number() {
            Some(x) => {
                let m = &c.limits[i.index()];
                json::is_multiple_of_decimal(&x, &m.number, m.decimal)
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::MultipleOf {
                            multiple_of: m.number.clone()
                        }
                    )
            }
            _ => true,
        },
        Keyword::Maximum(i)
        | Keyword::ExclusiveMaximum(i)
        | Keyword::Minimum(i)
        | Keyword::ExclusiveMinimum(i) => {
            let Some(x) = instance.as_number() else {
                return true;
            };
            let decided = c.limits.get(i.index()).and_then(|l| l.admits(kw, &x));
            decided.unwrap_or_else(|| within_bound(c, kw, i, &x))
                || fail!(col, c, ctx, node, k, {
                    // (Built only when an error is collected.)
                    let limit = c.limits[i.index()].number.clone();
                    match kw {
                        Keyword::Maximum(_) => ErrorKind::Maximum { limit },
                        Keyword::ExclusiveMaximum(_) => ErrorKind::ExclusiveMaximum { limit },
                        Keyword::Minimum(_) => ErrorKind::Minimum { limit },
                        Keyword::ExclusiveMinimum(_)
                        | other_assertion_keywords!()
                        | applicator_keywords!() => ErrorKind::ExclusiveMinimum { limit },
                    }
                })
        }
        Keyword::MaxLength(max) => match instance.as_str() {
            Some(s) => {
                max_length(s, max)
                    || fail!(col, c, ctx, node, k, ErrorKind::MaxLength { limit: max })
            }
            _ => true,
        },
        Keyword::MinLength(min) => match instance.as_str() {
            Some(s) => {
                min_length(s, min)
                    || fail!(col, c, ctx, node, k, ErrorKind::MinLength { limit: min })
            }
            _ => true,
        },
        Keyword::Pattern(i) => match instance.as_str() {
            Some(s) => match c.patterns[i.index()].find_in(s, ctx.budget) {
                MatchOutcome::Match => true,
                MatchOutcome::NoMatch => {
                    fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::Pattern {
                            pattern: c.pattern_sources[i.index()].clone()
                        }
                    )
                }
                MatchOutcome::BudgetExceeded => fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::PatternBudgetExceeded {
                        pattern: c.pattern_sources[i.index()].clone()
                    }
                ),
            },
            _ => true,
        },
        Keyword::Format(i) => match instance.kind() {
            Kind::String => {
                let s = instance.as_str().unwrap_or_default();
                let f = &c.formats[i.index()];
                let ok = match f.custom {
                    Some(check) => check(s),
                    None => crate::format::check(&f.name, s).unwrap_or(true),
                };
                ok || !f.assert
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::Format {
                            format: f.name.clone()
                        }
                    )
            }
            // The numeric formats (`uint8`, `int64`, `float`, ...): see format::numeric.
            Kind::Number => {
                let f = &c.formats[i.index()];
                f.custom.is_some()
                    || instance
                        .as_number()
                        .is_none_or(|n| crate::format::check_number(&f.name, &n).unwrap_or(true))
                    || !f.assert
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::Format {
                            format: f.name.clone()
                        }
                    )
            }
            _ => true,
        },
        Keyword::Content(i) => match instance.as_str() {
            Some(s) => content(c, i, s, ctx, node, k, col),
            _ => true,
        },
        Keyword::MaxItems(max) => match instance.as_array() {
            Some(a) => {
                max_items(a.len(), max)
                    || fail!(col, c, ctx, node, k, ErrorKind::MaxItems { limit: max })
            }
            _ => true,
        },
        Keyword::MinItems(min) => match instance.as_array() {
            Some(a) => {
                min_items(a.len(), min)
                    || fail!(col, c, ctx, node, k, ErrorKind::MinItems { limit: min })
            }
            _ => true,
        },
        Keyword::UniqueItems => match instance.as_array() {
            Some(a) => match duplicate(a) {
                None => true,
                Some((first, second)) => fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::UniqueItems { first, second }
                ),
            },
            _ => true,
        },
        Keyword::MaxProperties(max) => match instance.as_object() {
            Some(o) => {
                max_properties(o, max)
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::MaxProperties { limit: max }
                    )
            }
            _ => true,
        },
        Keyword::MinProperties(min) => match instance.as_object() {
            Some(o) => {
                min_properties(o, min)
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::MinProperties { limit: min }
                    )
            }
            _ => true,
        },
        Keyword::Required(span) => match instance.as_object() {
            Some(o) => {
                let mut ok = true;
                for name in &c.strings[span.range()] {
                    if !json::has(o, name.as_ref()) {
                        ok = false;
                        if C::FAIL_FAST {
                            return false;
                        }
                        col.error(
                            c,
                            ctx,
                            node,
                            k,
                            None,
                            ErrorKind::Required {
                                property: name.clone(),
                            },
                            Vec::new(),
                        );
                    }
                }
                ok
            }
            _ => true,
        },
        Keyword::DependentRequired(span) => match instance.as_object() {
            Some(o) => {
                let mut ok = true;
                for (trigger, names) in &c.dependent_required[span.range()] {
                    if !json::has(o, trigger.as_ref()) {
                        continue;
                    }
                    for name in &c.strings[names.range()] {
                        if !json::has(o, name.as_ref()) {
                            ok = false;
                            if C::FAIL_FAST {
                                return false;
                            }
                            col.error(
                                c,
                                ctx,
                                node,
                                k,
                                None,
                                ErrorKind::DependentRequired {
                                    property: trigger.clone(),
                                    missing: name.clone(),
                                },
                                Vec::new(),
                            );
                        }
                    }
                }
                ok
            }
            _ => true,
        },
        // Never asked: `eval_node` sends these to `eval_keyword` (which lists the
        // assertions it hands over here), and nodes of assertions only have none. (Handing
        // them to `eval_keyword` from here cost krakend 1.3% more instructions: a second
        // caller changed what the compiler inlines.)
        applicator_keywords!() => {
            debug_assert!(false, "an applicator evaluated as an assertion");
            true
        }
    }
}

/// The annotation an applicator produces once it succeeded (the `evaluate` path only).
///
/// Names of properties found only in the instance are data, so the keywords that apply to
/// them (`patternProperties`, `additionalProperties`, `unevaluatedProperties`) annotate
/// `true` rather than listing them: output stays redaction-safe.
pub(super) fn applicator_annotation<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    kw: Keyword,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) {
    // The keywords whose success annotates, here (for the instances below); `contains`
    // annotates as it counts, the others not at all.
    match kw {
        Keyword::Properties(_)
        | Keyword::PatternProperties(_)
        | Keyword::AdditionalProperties(_)
        | Keyword::UnevaluatedProperties(_)
        | Keyword::PrefixItems(_)
        | Keyword::Items { .. }
        | Keyword::UnevaluatedItems(_) => {}
        Keyword::PropertyNames(_)
        | Keyword::DependentSchemas(_)
        | Keyword::Contains(_)
        | Keyword::AllOf(_)
        | Keyword::AnyOf(_)
        | Keyword::OneOf(_)
        | Keyword::Not(_)
        | Keyword::If { .. }
        | Keyword::Ref(_)
        | Keyword::DynamicRef(_)
        | assertion_keywords!() => return,
    }
    let name = c.keyword_names[k];
    let value = match (kw, instance.as_object(), instance.as_array()) {
        (Keyword::Properties(span), Some(o), _) => {
            let names: Vec<Value> = c.properties[span.range()]
                .iter()
                .filter(|(n, _)| json::has(o, n.as_ref()))
                .map(|(n, _)| Value::String(n.to_string()))
                .collect();
            Value::Array(names)
        }
        (Keyword::PatternProperties(span), Some(o), _) => {
            let any = o.entries().map(|(k, _, _)| k).any(|key| {
                c.pattern_properties[span.range()].iter().any(|&(p, _)| {
                    c.patterns[p.index()].find_name(key, ctx.budget) == MatchOutcome::Match
                })
            });
            if !any {
                return;
            }
            Value::Bool(true)
        }
        (Keyword::AdditionalProperties(i), Some(o), _) => {
            // The fused siblings annotate too.
            let a = c.additional[i.index()];
            let names = &c.properties[a.properties.range()];
            let declared: Vec<Value> = names
                .iter()
                .filter(|(n, _)| json::has(o, n.as_ref()))
                .map(|(n, _)| Value::String(n.to_string()))
                .collect();
            if !names.is_empty() {
                col.annotate(c, ctx, node, "properties", Value::Array(declared));
            }
            let by_pattern = |key: &str| {
                c.pattern_properties[a.patterns.range()]
                    .iter()
                    .any(|&(p, _)| {
                        c.patterns[p.index()].find_name(key, ctx.budget) == MatchOutcome::Match
                    })
            };
            if o.entries().map(|(k, _, _)| k).any(&by_pattern) {
                col.annotate(c, ctx, node, "patternProperties", Value::Bool(true));
            }
            let additional = o.entries().map(|(k, _, _)| k).any(|key| {
                names
                    .binary_search_by(|(n, _)| n.as_ref().cmp(key))
                    .is_err()
                    && !by_pattern(key)
            });
            if !additional {
                return;
            }
            Value::Bool(true)
        }
        (Keyword::UnevaluatedProperties(_), Some(o), _) if !o.is_empty() => Value::Bool(true),
        (Keyword::PrefixItems(span), _, Some(items)) if !items.is_empty() => {
            if items.len() <= span.len() {
                Value::Bool(true)
            } else {
                Value::from(span.len() - 1)
            }
        }
        (Keyword::Items { skip, .. }, _, Some(items)) if items.len() > skip as usize => {
            Value::Bool(true)
        }
        (Keyword::UnevaluatedItems(_), _, Some(items)) if !items.is_empty() => Value::Bool(true),
        // (Another kind of instance: nothing evaluated.)
        _ => return,
    };
    col.annotate(c, ctx, node, name, value);
}

/// `type`: whether `instance` has a type in `set`, else the type it was found to have.
#[inline(always)]
pub(crate) fn type_verdict<'a, I: Instance<'a>>(
    set: crate::json::TypeSet,
    instance: I,
) -> Result<(), JsonType> {
    let admitted = match instance.kind() {
        Kind::Null => set.contains(JsonType::Null),
        Kind::Bool => set.contains(JsonType::Boolean),
        Kind::String => set.contains(JsonType::String),
        Kind::Array => set.contains(JsonType::Array),
        Kind::Object => set.contains(JsonType::Object),
        // "number" admits every number; only "integer" alone needs the finer check.
        Kind::Number => set.contains(JsonType::Number),
    };
    if admitted {
        return Ok(());
    }
    let mut found = instance.json_type();
    if found == JsonType::Integer
        && set.is_strict()
        && let Some(n) = instance.as_number()
        && n.is_f64()
        // serde_json keeps integers beyond u64 only as floats: those were written as
        // integers, so only smaller floats (`1.0`) lose their integer type.
        && n.as_f64().is_some_and(|f| f.abs() < 18446744073709551616.0)
    {
        found = JsonType::Number;
    }
    if set.admits(found) {
        Ok(())
    } else {
        Err(found)
    }
}
