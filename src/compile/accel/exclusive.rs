//! Exclusive `oneOf`s: lists proven, at compile time, to have no instance match two
//! branches, so that the first match decides (`oneOf` then means `anyOf`).

use super::*;
use crate::json;
use crate::schema::{Dispatch, Filter};
use serde_json::Value;
use std::borrow::Cow;

/// Most value comparisons spent proving one `oneOf` exclusive (enough for hundreds of
/// tagged branches; a larger list is evaluated in full).
pub(super) const EXCLUSIVE_BUDGET: usize = 100_000;

/// Whether no instance can match two branches of the `oneOf` list `span`, so that the
/// first match decides it (`oneOf` then means `anyOf`). Sound, not complete: `false` when
/// unsure. A pair of branches cannot both match when
/// - both are pinned (`const`/`enum`) to values they do not share, or one is and the
///   other, of assertions only, certainly rejects all its values;
/// - or their types meet at most in objects, and either their filters on the dispatch's
///   property admit no value in common (the tag of a discriminated union) or one
///   requires a property the other forbids.
pub(super) fn exclusive(c: &Compiled, span: Span, dispatch: Option<&Dispatch>) -> bool {
    use crate::json::JsonType::Object;
    let branches = c.node_list(span);
    let pinned: Vec<Option<Cow<'_, [Value]>>> =
        branches.iter().map(|&b| pinned_values(c, b, 0)).collect();
    let mut budget = EXCLUSIVE_BUDGET;
    // Whether some value is in both lists; `None` when the budget runs out.
    let share = |x: &[Value], y: &[Value], budget: &mut usize| {
        *budget = budget.checked_sub(x.len().saturating_mul(y.len()))?;
        Some(x.iter().any(|v| y.iter().any(|w| json::equal(v, w))))
    };
    // Whether a branch of assertions only rejects every one of `values` (asked of each:
    // see `validate::leaf_rejects`); `None` when the budget runs out.
    let rejects_all = |node: NodeId, values: &[Value], budget: &mut usize| {
        let node = c.fail_fast_target(node);
        *budget = budget.checked_sub(values.len())?;
        Some(values.iter().all(|v| {
            crate::validate::leaf_rejects(c, node, v)
                && other_spelling(v).is_none_or(|w| crate::validate::leaf_rejects(c, node, &w))
        }))
    };
    for j in 0..branches.len() {
        for k in j + 1..branches.len() {
            match (&pinned[j], &pinned[k]) {
                (Some(x), Some(y)) => match share(x, y, &mut budget) {
                    Some(false) => continue,
                    Some(true) => {}
                    None => return false,
                },
                // A branch of literals beside one of assertions that none of them meets
                // (`{"enum": ["red", ..]}` and `{"pattern": "^#[0-9a-f]{6}$"}`).
                (Some(x), None) | (None, Some(x)) => {
                    let other = if pinned[j].is_some() {
                        branches[k]
                    } else {
                        branches[j]
                    };
                    match rejects_all(other, x, &mut budget) {
                        Some(true) => continue,
                        Some(false) => {}
                        None => return false,
                    }
                }
                (None, None) => {}
            }
            let (tj, tk) = (c.node(branches[j]).types, c.node(branches[k]).types);
            if tj.without(Object).overlaps(tk.without(Object)) {
                return false;
            }
            if !(tj.contains(Object) && tk.contains(Object)) {
                continue;
            }
            if let Some(d) = dispatch
                && filters_disjoint(&d.filters[j], &d.filters[k], &mut budget) == Some(true)
            {
                continue;
            }
            // A property one requires and the other forbids (`additionalProperties: false`).
            if !(requires_what_forbids(c, branches[j], branches[k], &mut budget)
                || requires_what_forbids(c, branches[k], branches[j], &mut budget))
            {
                return false;
            }
        }
    }
    true
}

/// A literal stands for every instance equal to it: an integral number both as an integer
/// and as a float (`1` and `1.0`, which draft 4's `type` tells apart). The spelling of `v`
/// not written, for such a number; `None` for any other value.
pub(super) fn other_spelling(v: &Value) -> Option<Value> {
    let Value::Number(n) = v else {
        return None;
    };
    if n.is_f64() {
        let f = n.as_f64()?;
        // (Integers serde_json keeps as such: past them a float is all there is.)
        if f.fract() != 0.0 || f.abs() >= 9.2e18 {
            return None;
        }
        return Some(Value::from(f as i64));
    }
    serde_json::Number::from_f64(n.as_f64()?).map(Value::Number)
}

/// Whether `a` requires of an object a property that `b` forbids.
pub(super) fn requires_what_forbids(
    c: &Compiled,
    a: NodeId,
    b: NodeId,
    budget: &mut usize,
) -> bool {
    let mut names = Vec::new();
    required_names(c, a, 0, &mut names);
    names.iter().any(|name| {
        *budget = budget.saturating_sub(1);
        *budget > 0 && forbids(c, b, name, 0)
    })
}

/// The names `node` requires of an object (its own `required`, through `$ref`s and
/// `allOf`).
pub(super) fn required_names<'c>(
    c: &'c Compiled,
    node: NodeId,
    depth: u32,
    out: &mut Vec<&'c str>,
) {
    if depth > MAX_DEPTH || !work() {
        return;
    }
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::Required(span) => {
                out.extend(c.strings[span.range()].iter().map(|s| s.as_ref()))
            }
            Keyword::Ref(t) => required_names(c, t, depth + 1, out),
            Keyword::AllOf(span) => {
                for &n in c.node_list(span) {
                    required_names(c, n, depth + 1, out);
                }
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
            | Keyword::Properties(_)
            | Keyword::PatternProperties(_)
            | Keyword::AdditionalProperties(_)
            | Keyword::PropertyNames(_)
            | Keyword::DependentSchemas(_)
            | Keyword::PrefixItems(_)
            | Keyword::Items { .. }
            | Keyword::Contains(_)
            | Keyword::AnyOf(_)
            | Keyword::OneOf(_)
            | Keyword::Not(_)
            | Keyword::If { .. }
            | Keyword::DynamicRef(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | Keyword::Content(_)
            | crate::schema::bound_keywords!() => {}
        }
    }
}

/// Whether `node` rejects every object that has property `name`: declared `false`, or
/// not declared under `additionalProperties: false` and no `patternProperties` (through
/// `$ref`s and `allOf`). (Patterns are not tried: that would build their engines now.)
pub(super) fn forbids(c: &Compiled, node: NodeId, name: &str, depth: u32) -> bool {
    if depth > MAX_DEPTH || !work() {
        return false;
    }
    c.keywords_of(node).iter().any(|kw| match *kw {
        Keyword::Properties(_) => declared_properties(c, kw)
            .iter()
            .any(|(n, child)| n.as_ref() == name && c.is_false_schema(*child)),
        Keyword::AdditionalProperties(i) => {
            let add = c.additional[i.index()];
            match declared_properties(c, kw)
                .iter()
                .find(|(n, _)| n.as_ref() == name)
            {
                Some((_, child)) => c.is_false_schema(*child),
                None => c.is_false_schema(add.node) && add.patterns.len() == 0,
            }
        }
        Keyword::Ref(t) => forbids(c, t, name, depth + 1),
        Keyword::AllOf(span) => c
            .node_list(span)
            .iter()
            .any(|&n| forbids(c, n, name, depth + 1)),
        Keyword::PatternProperties(_)
        | Keyword::PropertyNames(_)
        | Keyword::DependentSchemas(_)
        | Keyword::PrefixItems(_)
        | Keyword::Items { .. }
        | Keyword::Contains(_)
        | Keyword::AnyOf(_)
        | Keyword::OneOf(_)
        | Keyword::Not(_)
        | Keyword::If { .. }
        | Keyword::DynamicRef(_)
        | Keyword::UnevaluatedProperties(_)
        | Keyword::UnevaluatedItems(_)
        | crate::schema::assertion_keywords!() => false,
    })
}

/// Whether no object can pass both filters (`None` when the budget runs out).
pub(super) fn filters_disjoint(a: &Filter, b: &Filter, budget: &mut usize) -> Option<bool> {
    let (
        Filter::Accept {
            values: va,
            excluded: ea,
            required: ra,
        },
        Filter::Accept {
            values: vb,
            excluded: eb,
            required: rb,
        },
    ) = (a, b)
    else {
        // One of them rejects every object.
        return Some(true);
    };
    // An object without the property passes a filter that does not require it.
    if !ra && !rb {
        return Some(false);
    }
    // A value of the property passes both: it is listed by one (the other's list, if
    // any, holding it too) and excluded by neither.
    let listed = match (va, vb) {
        (Some(v), _) | (None, Some(v)) => v,
        (None, None) => return Some(false),
    };
    let lists = [va.as_deref(), vb.as_deref()];
    let cost = listed.len().saturating_mul(
        1 + ea.len() + eb.len() + lists.iter().flatten().map(|l| l.len()).sum::<usize>(),
    );
    *budget = budget.checked_sub(cost)?;
    let holds = |list: &[Value], x: &Value| list.iter().any(|w| json::equal(x, w));
    let passes_both = listed.iter().any(|x| {
        lists.iter().flatten().all(|list| holds(list, x)) && !holds(ea, x) && !holds(eb, x)
    });
    Some(!passes_both)
}
