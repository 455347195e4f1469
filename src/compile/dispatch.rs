//! Discriminator dispatch for `oneOf`/`anyOf` over object schemas.
//!
//! Real schemas tag the branches of a `oneOf` with a property pinned by `const`/`enum`
//! (`"type": "Point"`, `"op": "and"`, `"resourceType": "Patient"`, `"version": 2`). For
//! each branch we derive, at compile time, a sound filter on that property: a branch whose
//! filter rejects the instance object cannot be valid, so it is never evaluated. Every
//! filter is an over-approximation of the branch: it only rejects what the branch rejects.
//!
//! The same filters, with the branches' types and pinned values, prove some `oneOf`s
//! exclusive (no instance matches two branches), so that the first match decides.

use crate::json;
use crate::schema::{Compiled, Dispatch, Filter, Keyword, NodeId, Span};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// How deep the derivation follows `$ref`, `allOf` and nested `oneOf`/`anyOf`.
const MAX_DEPTH: u32 = 8;

/// Most nodes the derivations below look at for one list. Depth alone does not bound
/// them: unions of references branch at every level, so a hostile schema of a few hundred
/// subschemas (eight levels of fifty-way `anyOf`s) would take minutes to compile. Past it
/// every derivation gives its "unknown" answer (no pin, any value, no name), which only
/// dispatches and proves less.
const WORK_PER_LIST: u32 = 20_000;

thread_local! {
    static WORK: std::cell::Cell<u32> = const { std::cell::Cell::new(WORK_PER_LIST) };
}

/// Takes one unit of the current list's work; `false` once it is spent.
fn work() -> bool {
    WORK.with(|w| match w.get() {
        0 => false,
        left => {
            w.set(left - 1);
            true
        }
    })
}

/// A fresh budget for the next list.
fn reset_work() {
    WORK.with(|w| w.set(WORK_PER_LIST));
}

/// The `properties` a keyword evaluates (its own, or the fused siblings of
/// `additionalProperties`).
fn declared_properties<'c>(c: &'c Compiled, kw: &Keyword) -> &'c [(Arc<str>, NodeId)] {
    match *kw {
        Keyword::Properties(span) => &c.properties[span.range()],
        Keyword::AdditionalProperties(i) => {
            &c.properties[c.additional[i as usize].properties.range()]
        }
        _ => &[],
    }
}

/// The values a property is pinned to by a node (`const`, `enum`, through `$ref`s):
/// borrowed from the schema's values unless two keywords intersect.
fn pinned_values(c: &Compiled, node: NodeId, depth: u32) -> Option<Cow<'_, [Value]>> {
    if depth > MAX_DEPTH || !work() {
        return None;
    }
    let mut out: Option<Cow<'_, [Value]>> = None;
    for kw in c.keywords_of(node) {
        let found = match *kw {
            Keyword::Const(i) => Some(Cow::Borrowed(std::slice::from_ref(&c.values[i as usize]))),
            Keyword::Enum(span) => Some(Cow::Borrowed(&c.values[span.range()])),
            Keyword::Ref(t) => pinned_values(c, t, depth + 1),
            _ => None,
        };
        if let Some(values) = found {
            out = Some(match out {
                None => values,
                // Both hold: keep the values in both.
                Some(prev) => Cow::Owned(common(prev.into_owned(), &values)),
            });
        }
    }
    out
}

/// Whether [`pinned_values`] finds values for `node`: the same walk (and work counted),
/// nothing copied.
fn is_pinned(c: &Compiled, node: NodeId, depth: u32) -> bool {
    if depth > MAX_DEPTH || !work() {
        return false;
    }
    let mut found = false;
    for kw in c.keywords_of(node) {
        found |= match *kw {
            Keyword::Const(_) | Keyword::Enum(_) => true,
            Keyword::Ref(t) => is_pinned(c, t, depth + 1),
            _ => false,
        };
    }
    found
}

/// The values of `x` that `y` also holds (JSON equality).
fn common(x: Vec<Value>, y: &[Value]) -> Vec<Value> {
    x.into_iter()
        .filter(|v| y.iter().any(|w| json::equal(v, w)))
        .collect()
}

fn intersect(a: Filter, b: Filter) -> Filter {
    match (a, b) {
        (Filter::Reject, _) | (_, Filter::Reject) => Filter::Reject,
        (
            Filter::Accept {
                values: v1,
                excluded: e1,
                required: r1,
            },
            Filter::Accept {
                values: v2,
                excluded: e2,
                required: r2,
            },
        ) => {
            let values = match (v1, v2) {
                (None, v) | (v, None) => v,
                (Some(x), Some(y)) => Some(common(x, &y)),
            };
            let mut excluded = e1;
            excluded.extend(e2);
            Filter::Accept {
                values,
                excluded,
                required: r1 || r2,
            }
        }
    }
}

/// `values` without those in `excluded`.
fn without(values: Vec<Value>, excluded: &[Value]) -> Vec<Value> {
    values
        .into_iter()
        .filter(|v| !excluded.iter().any(|w| json::equal(v, w)))
        .collect()
}

fn union(a: Filter, b: Filter) -> Filter {
    match (a, b) {
        (Filter::Reject, x) | (x, Filter::Reject) => x,
        (
            Filter::Accept {
                values: v1,
                excluded: e1,
                required: r1,
            },
            Filter::Accept {
                values: v2,
                excluded: e2,
                required: r2,
            },
        ) => {
            // What either accepts: listed values lose their exclusions first; an open side
            // keeps only the exclusions the other side does not accept.
            let (values, excluded) = match (v1, v2) {
                (Some(x), Some(y)) => {
                    let mut x = without(x, &e1);
                    x.extend(without(y, &e2));
                    (Some(x), Vec::new())
                }
                (Some(x), None) => {
                    let accepted = without(x, &e1);
                    (None, without(e2, &accepted))
                }
                (None, Some(y)) => {
                    let accepted = without(y, &e2);
                    (None, without(e1, &accepted))
                }
                (None, None) => (None, common(e1, &e2)),
            };
            Filter::Accept {
                values,
                excluded,
                required: r1 && r2,
            }
        }
    }
}

const ANY: Filter = Filter::Accept {
    values: None,
    excluded: Vec::new(),
    required: false,
};

/// The values a node certainly rejects: those of a `not` holding nothing but an `enum`
/// or a `const` (through `$ref`s). A `not` whose schema says more (`"not": {"enum":
/// ["a"], "minLength": 2}`) excludes nothing for certain.
fn excluded_values(c: &Compiled, node: NodeId, depth: u32) -> Vec<Value> {
    if depth > MAX_DEPTH || !work() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::Not(n) => match c.keywords_of(n) {
                [Keyword::Enum(span)] => out.extend_from_slice(&c.values[span.range()]),
                [Keyword::Const(i)] => out.push(c.values[*i as usize].clone()),
                _ => {}
            },
            Keyword::Ref(t) => out.extend(excluded_values(c, t, depth + 1)),
            _ => {}
        }
    }
    out
}

/// What `node` requires of property `prop` of an object instance.
fn filter(c: &Compiled, node: NodeId, prop: &str, depth: u32) -> Filter {
    if depth > MAX_DEPTH || !work() {
        return ANY;
    }
    let mut f = ANY;
    for kw in c.keywords_of(node) {
        let g = match *kw {
            Keyword::False => Filter::Reject,
            Keyword::Type(set) if !set.contains(crate::json::JsonType::Object) => Filter::Reject,
            Keyword::Const(i) if !c.values[i as usize].is_object() => Filter::Reject,
            Keyword::Properties(_) | Keyword::AdditionalProperties(_) => {
                let props = declared_properties(c, kw);
                match props.binary_search_by(|(n, _)| n.as_ref().cmp(prop)) {
                    Ok(i) => Filter::Accept {
                        values: pinned_values(c, props[i].1, depth + 1).map(Cow::into_owned),
                        excluded: excluded_values(c, props[i].1, depth + 1),
                        required: false,
                    },
                    Err(_) => ANY,
                }
            }
            Keyword::Required(span) => Filter::Accept {
                values: None,
                excluded: Vec::new(),
                required: c.strings[span.range()].iter().any(|s| s.as_ref() == prop),
            },
            Keyword::Ref(t) => filter(c, t, prop, depth + 1),
            Keyword::AllOf(span) => c
                .node_list(span)
                .iter()
                .fold(ANY, |acc, &n| intersect(acc, filter(c, n, prop, depth + 1))),
            Keyword::AnyOf(span) | Keyword::OneOf(span) => {
                c.node_list(span).iter().fold(Filter::Reject, |acc, &n| {
                    union(acc, filter(c, n, prop, depth + 1))
                })
            }
            _ => ANY,
        };
        f = intersect(f, g);
    }
    f
}

/// Property names a branch pins with `const`/`enum` (directly or through references).
fn pinned_names(c: &Compiled, node: NodeId, depth: u32, out: &mut Vec<Arc<str>>) {
    if depth > MAX_DEPTH || !work() {
        return;
    }
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::Properties(_) | Keyword::AdditionalProperties(_) => {
                for (name, child) in declared_properties(c, kw) {
                    if is_pinned(c, *child, depth + 1) && !out.contains(name) {
                        out.push(name.clone());
                    }
                }
            }
            Keyword::Ref(t) => pinned_names(c, t, depth + 1, out),
            Keyword::AllOf(span) | Keyword::AnyOf(span) | Keyword::OneOf(span) => {
                for &n in c.node_list(span) {
                    pinned_names(c, n, depth + 1, out);
                }
            }
            _ => {}
        }
    }
}

fn build(c: &Compiled, span: Span) -> Option<Dispatch> {
    let branches = c.node_list(span);
    if branches.len() < 2 {
        return None;
    }
    // The property pinned in the most branches.
    let mut counts: Vec<(Arc<str>, usize)> = Vec::new();
    for &b in branches {
        let mut names = Vec::new();
        pinned_names(c, b, 0, &mut names);
        for n in names {
            match counts.iter_mut().find(|(m, _)| *m == n) {
                Some((_, k)) => *k += 1,
                None => counts.push((n, 1)),
            }
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    // Of the properties pinned in two branches or more, the one that leaves the fewest
    // branches per value: JSON-RPC messages pin `"jsonrpc": "2.0"` in every branch,
    // which rules none out, beside the `method` that tells them apart.
    let mut budget = SPREAD_BUDGET;
    let mut best: Option<(Arc<str>, Vec<Filter>, Spread)> = None;
    // (The few most pinned are scored: each score derives a filter per branch, and
    // FHIR's hundred and more resource types pin several names each.)
    let candidates: Vec<Arc<str>> = counts
        .into_iter()
        .take_while(|(_, k)| *k >= 2)
        .take(CANDIDATES)
        .map(|(prop, _)| prop)
        .collect();
    let alone = candidates.len() == 1;
    for prop in candidates {
        let filters: Vec<Filter> = branches.iter().map(|&b| filter(c, b, &prop, 0)).collect();
        if alone {
            // (Nothing to compare it with.)
            best = Some((prop, filters, (0, 0)));
            break;
        }
        let Some(spread) = spread(&filters, &mut budget) else {
            break;
        };
        // (Fewer admitted per value is better; averages compared as fractions.)
        let better = best
            .as_ref()
            .is_none_or(|(_, _, (sum, seen))| spread.0 * (*seen).max(1) < *sum * spread.1.max(1));
        // One branch per value: no property can do better.
        let perfect = spread.0 == spread.1;
        if better {
            best = Some((prop, filters, spread));
        }
        if perfect {
            break;
        }
    }
    let (prop, filters, _) = best?;
    // Worth it only when some branch can be ruled out by the property.
    let useful = filters.iter().any(|f| match f {
        Filter::Reject => true,
        Filter::Accept {
            values,
            excluded,
            required,
        } => values.is_some() || !excluded.is_empty() || *required,
    });
    if !useful {
        return None;
    }
    // Two branches or more: index the strings each admits, so that a lookup replaces a
    // pass over every filter.
    let mut by_string: Vec<(u64, u32, (u32, u32))> = Vec::new();
    let mut texts: Vec<u8> = Vec::new();
    let mut open = Vec::new();
    if filters.len() >= INDEX_FROM {
        for (j, f) in filters.iter().enumerate() {
            match f {
                Filter::Reject => {}
                Filter::Accept { values: None, .. } => open.push(j as u32),
                Filter::Accept {
                    values: Some(values),
                    ..
                } => {
                    for (k, v) in values.iter().enumerate() {
                        // (Each string of a branch once.)
                        if let Value::String(text) = v
                            && !values[..k].contains(v)
                        {
                            // (A short string is never read: its signature is it.)
                            let from = texts.len() as u32;
                            if text.len() >= crate::names::EXACT_BELOW {
                                texts.extend_from_slice(text.as_bytes());
                            }
                            let at = (from, texts.len() as u32);
                            by_string.push((crate::names::signature(text), j as u32, at));
                        }
                    }
                }
            }
        }
        by_string.sort_by_key(|e| (e.0, e.1));
    }
    Some(Dispatch {
        property: prop,
        filters,
        by_string,
        texts: texts.into_boxed_slice(),
        open,
    })
}

/// Most properties scored when choosing a list's discriminating property (the most
/// often pinned first).
const CANDIDATES: usize = 4;

/// Most value comparisons spent choosing a list's discriminating property; past it the
/// best found so far is taken.
const SPREAD_BUDGET: usize = 100_000;

/// Branches admitted per listed value, summed; distinct listed values (see [`spread`]).
type Spread = (usize, usize);

/// How well a property's filters tell branches apart: (branches admitting each distinct
/// listed value, summed; how many distinct values), the sum as large as the branches
/// times one value when none is listed (nothing told apart by value). `None` when the
/// budget runs out.
fn spread(filters: &[Filter], budget: &mut usize) -> Option<Spread> {
    let mut seen: Vec<&Value> = Vec::new();
    for f in filters {
        if let Filter::Accept {
            values: Some(values),
            ..
        } = f
        {
            for v in values {
                *budget = budget.checked_sub(seen.len() + 1)?;
                if !seen.iter().any(|w| json::equal(v, w)) {
                    seen.push(v);
                }
            }
        }
    }
    if seen.is_empty() {
        return Some((filters.len(), 1));
    }
    let mut sum = 0;
    for v in &seen {
        *budget = budget.checked_sub(filters.len())?;
        sum += filters.iter().filter(|f| f.admits(Some(v))).count();
    }
    Some((sum, seen.len()))
}

/// From this many branches, a dispatch indexes the strings its branches admit (with two,
/// the lookup already costs less than the filters' comparisons: discriminated unions of
/// six branches -10.6% instructions).
const INDEX_FROM: usize = 2;

/// Most value comparisons spent proving one `oneOf` exclusive (enough for hundreds of
/// tagged branches; a larger list is evaluated in full).
const EXCLUSIVE_BUDGET: usize = 100_000;

/// Whether no instance can match two branches of the `oneOf` list `span`, so that the
/// first match decides it (`oneOf` then means `anyOf`). Sound, not complete: `false` when
/// unsure. A pair of branches cannot both match when
/// - both are pinned (`const`/`enum`) to values they do not share, or one is and the
///   other, of assertions only, certainly rejects all its values;
/// - or their types meet at most in objects, and either their filters on the dispatch's
///   property admit no value in common (the tag of a discriminated union) or one
///   requires a property the other forbids.
fn exclusive(c: &Compiled, span: Span, dispatch: Option<&Dispatch>) -> bool {
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
fn other_spelling(v: &Value) -> Option<Value> {
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
fn requires_what_forbids(c: &Compiled, a: NodeId, b: NodeId, budget: &mut usize) -> bool {
    let mut names = Vec::new();
    required_names(c, a, 0, &mut names);
    names.iter().any(|name| {
        *budget = budget.saturating_sub(1);
        *budget > 0 && forbids(c, b, name, 0)
    })
}

/// The names `node` requires of an object (its own `required`, through `$ref`s and
/// `allOf`).
fn required_names<'c>(c: &'c Compiled, node: NodeId, depth: u32, out: &mut Vec<&'c str>) {
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
            _ => {}
        }
    }
}

/// Whether `node` rejects every object that has property `name`: declared `false`, or
/// not declared under `additionalProperties: false` and no `patternProperties` (through
/// `$ref`s and `allOf`). (Patterns are not tried: that would build their engines now.)
fn forbids(c: &Compiled, node: NodeId, name: &str, depth: u32) -> bool {
    if depth > MAX_DEPTH || !work() {
        return false;
    }
    c.keywords_of(node).iter().any(|kw| match *kw {
        Keyword::Properties(_) => declared_properties(c, kw)
            .iter()
            .any(|(n, child)| n.as_ref() == name && c.is_false_schema(*child)),
        Keyword::AdditionalProperties(i) => {
            let add = c.additional[i as usize];
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
        _ => false,
    })
}

/// Whether no object can pass both filters (`None` when the budget runs out).
fn filters_disjoint(a: &Filter, b: &Filter, budget: &mut usize) -> Option<bool> {
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

/// Builds the dispatch table of every `oneOf`/`anyOf`, and marks the exclusive `oneOf`s.
/// Most nodes looked at to find one branch's presence filter.
const PRESENCE_CALLS: u32 = 64;

/// Most names a presence filter holds (more cost more lookups than they save).
const PRESENCE_MAX: usize = 4;

/// Names of which every object `node` accepts holds at least one: a name it requires; for
/// a `oneOf`/`anyOf`, one from each branch; none at all when it accepts no object.
/// `None` when not known (a branch that requires nothing, a dynamic reference, too deep,
/// too many names). Sound: an object holding none of the names fails `node`.
fn presence(c: &Compiled, node: NodeId, depth: u32, calls: &mut u32) -> Option<Vec<Arc<str>>> {
    use crate::json::JsonType::Object;
    // (Nested unions of references could otherwise be explored to every depth, each
    // level multiplying the nodes looked at: a budget per branch bounds the work.)
    if depth > MAX_DEPTH || *calls == 0 || !work() {
        return None;
    }
    *calls -= 1;
    // The keywords of a node all hold: the smallest set any of them gives.
    let mut best: Option<Vec<Arc<str>>> = None;
    let mut offer = |found: Option<Vec<Arc<str>>>| {
        if let Some(names) = found
            && best.as_ref().is_none_or(|b| names.len() < b.len())
        {
            best = Some(names);
        }
    };
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::False => offer(Some(Vec::new())),
            Keyword::Type(set) if !set.contains(Object) => offer(Some(Vec::new())),
            Keyword::Const(i) if !c.values[i as usize].is_object() => offer(Some(Vec::new())),
            Keyword::Enum(span) if c.values[span.range()].iter().all(|v| !v.is_object()) => {
                offer(Some(Vec::new()))
            }
            Keyword::Required(span) => offer(
                c.strings[span.range()]
                    .first()
                    .map(|name| vec![name.clone()]),
            ),
            Keyword::Ref(t) => offer(presence(c, t, depth + 1, calls)),
            Keyword::AllOf(span) => {
                for &n in c.node_list(span) {
                    offer(presence(c, n, depth + 1, calls));
                }
            }
            Keyword::AnyOf(span) | Keyword::OneOf(span) => {
                let mut names: Vec<Arc<str>> = Vec::new();
                let mut known = true;
                for &n in c.node_list(span) {
                    match presence(c, n, depth + 1, calls) {
                        Some(more) => {
                            for name in more {
                                if !names.contains(&name) {
                                    names.push(name);
                                }
                            }
                        }
                        None => known = false,
                    }
                    if !known || names.len() > PRESENCE_MAX {
                        known = false;
                        break;
                    }
                }
                if known {
                    offer(Some(names));
                }
            }
            _ => {}
        }
    }
    best.filter(|names| names.len() <= PRESENCE_MAX)
}

pub(crate) fn build_all(c: &mut Compiled, live: &[u32]) {
    c.list_dispatch = vec![u32::MAX; c.node_lists.len()];
    c.list_exclusive = vec![false; c.node_lists.len()];
    let mut spans = Vec::new();
    for i in live.iter().map(|&i| i as usize) {
        for kw in c.keywords_of(NodeId(i as u32)) {
            match *kw {
                Keyword::AnyOf(span) => spans.push((span, false)),
                Keyword::OneOf(span) => spans.push((span, true)),
                _ => {}
            }
        }
    }
    for (span, one_of) in spans {
        if span.len() == 0 {
            continue;
        }
        reset_work();
        let at = span.start as usize;
        if c.list_dispatch[at] == u32::MAX
            && let Some(d) = build(c, span)
        {
            c.dispatches.push(d);
            c.list_dispatch[at] = (c.dispatches.len() - 1) as u32;
        }
        if one_of && !c.list_exclusive[at] {
            let dispatch = c.dispatches.get(c.list_dispatch[at] as usize);
            c.list_exclusive[at] = exclusive(c, span, dispatch);
        }
        if c.list_presence.get(at) != Some(&true) {
            // Not for a branch that requires the dispatch's tag and lists its values: an
            // object the tag admits there was picked by it, its names are most likely
            // there too, and the lookups would be wasted.
            let dispatch = c.dispatches.get(c.list_dispatch[at] as usize);
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
            let found: Vec<Option<Box<[Arc<str>]>>> = c
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
                if c.presence.is_empty() {
                    c.presence = vec![None; c.node_lists.len()];
                    c.list_presence = vec![false; c.node_lists.len()];
                }
                for (j, names) in found.into_iter().enumerate() {
                    c.presence[at + j] = names;
                }
                c.list_presence[at] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::{Keyword, Schema};
    use serde_json::{Value, json};

    /// The span of the root's `oneOf` or `anyOf` list.
    fn root_list(c: &crate::schema::Compiled) -> Option<crate::schema::Span> {
        c.keywords_of(c.root).iter().find_map(|kw| match kw {
            Keyword::OneOf(span) | Keyword::AnyOf(span) => Some(*span),
            _ => None,
        })
    }

    /// Whether the root's `oneOf` was proven exclusive.
    fn exclusive(schema: Value) -> bool {
        let schema = Schema::compile(&schema).unwrap();
        let c = &schema.compiled;
        let span = root_list(c).unwrap();
        c.list_exclusive[span.start as usize]
    }

    #[test]
    fn exclusive_one_ofs_are_found() {
        let tagged = |a: Value, b: Value| {
            json!({"oneOf": [
                {"type": "object", "required": ["op"], "properties": {"op": a}},
                {"type": "object", "required": ["op"], "properties": {"op": b}}
            ]})
        };
        assert!(exclusive(
            json!({"oneOf": [{"const": 1}, {"enum": [2, "x"]}, {"const": "y"}]})
        ));
        assert!(exclusive(
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})
        ));
        assert!(exclusive(tagged(
            json!({"const": "a"}),
            json!({"enum": ["b", "c"]})
        )));
        // (The filters come from the dispatch, built for a property pinned in two
        // branches at least.)
        assert!(exclusive(json!({"oneOf": [
            {"type": "object", "required": ["op"], "properties": {"op": {"not": {"enum": ["a", "b"]}}}},
            {"type": "object", "required": ["op"], "properties": {"op": {"const": "a"}}},
            {"type": "object", "required": ["op"], "properties": {"op": {"const": "b"}}}
        ]})));
        assert!(exclusive(json!({"oneOf": [
            {"type": "object", "required": ["a"]},
            {"type": "object", "properties": {"b": {}}, "additionalProperties": false},
            {"type": "object", "allOf": [{"$ref": "#/$defs/c"}], "properties": {"a": false}}
        ], "$defs": {"c": {"required": ["c"], "properties": {"b": false}}}})));

        // No proof: a value both admit, a tag neither requires, other types both admit,
        // a pattern that may allow the required name.
        assert!(!exclusive(
            json!({"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]})
        ));
        assert!(!exclusive(json!({"oneOf": [
            {"type": "object", "required": ["op"], "properties": {"op": {"not": {"enum": ["a"]}}}},
            {"type": "object", "required": ["op"], "properties": {"op": {"const": "a"}}},
            {"type": "object", "required": ["op"], "properties": {"op": {"const": "b"}}}
        ]})));
        assert!(!exclusive(json!({"oneOf": [
            {"type": "object", "properties": {"op": {"const": "a"}}},
            {"type": "object", "properties": {"op": {"const": "b"}}}
        ]})));
        assert!(!exclusive(json!({"oneOf": [
            {"required": ["a"]},
            {"properties": {"b": {}}, "additionalProperties": false}
        ]})));
        assert!(!exclusive(json!({"oneOf": [
            {"type": "object", "required": ["a"]},
            {"type": "object", "additionalProperties": false, "patternProperties": {"^z": {}}}
        ]})));
        assert!(!exclusive(
            json!({"oneOf": [{"type": "number"}, {"type": "integer"}]})
        ));
    }

    /// The property the root's `anyOf`/`oneOf` dispatches on.
    fn dispatch_property(schema: Value) -> Option<String> {
        let schema = Schema::compile(&schema).unwrap();
        let c = &schema.compiled;
        let span = root_list(c)?;
        let d = c
            .dispatches
            .get(c.list_dispatch[span.start as usize] as usize)?;
        Some(d.property.to_string())
    }

    #[test]
    fn the_property_that_tells_branches_apart_is_chosen() {
        // JSON-RPC: every branch pins `jsonrpc` to the same value, `method` to its own.
        let request = |method: &str| {
            json!({"type": "object", "required": ["jsonrpc", "method"], "properties": {
                "jsonrpc": {"const": "2.0"}, "method": {"const": method}}})
        };
        let schema = json!({"anyOf": [request("a/list"), request("a/get"), request("b/call")]});
        assert_eq!(dispatch_property(schema).as_deref(), Some("method"));
        // Fewer branches pin `kind`, but it splits them better than `v`, which all share.
        let schema = json!({"oneOf": [
            {"properties": {"v": {"const": 1}, "kind": {"const": "x"}}},
            {"properties": {"v": {"const": 1}, "kind": {"const": "y"}}},
            {"properties": {"v": {"enum": [1]}}}
        ]});
        assert_eq!(dispatch_property(schema).as_deref(), Some("kind"));
        // Equal splits: the property pinned in more branches, then the first by name.
        let schema = json!({"oneOf": [
            {"properties": {"b": {"const": 1}, "a": {"const": 1}}},
            {"properties": {"b": {"const": 2}, "a": {"const": 2}}}
        ]});
        assert_eq!(dispatch_property(schema).as_deref(), Some("a"));
    }

    /// The presence filters of the root's `anyOf`/`oneOf` branches, names sorted.
    fn presence_of(schema: Value) -> Vec<Option<Vec<String>>> {
        let schema = Schema::compile(&schema).unwrap();
        let c = &schema.compiled;
        let span = root_list(c).unwrap();
        if c.list_presence.get(span.start as usize) != Some(&true) {
            return vec![None; span.len()];
        }
        c.presence[span.range()]
            .iter()
            .map(|p| {
                p.as_ref().map(|names| {
                    let mut names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
                    names.sort();
                    names
                })
            })
            .collect()
    }

    #[test]
    fn presence_filters_name_what_every_accepted_object_holds() {
        let names = |n: &[&str]| Some(n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            presence_of(json!({"oneOf": [
                {"required": ["date"]},
                {"required": ["timestamp", "x"]},
                {"type": "string"},
                {"properties": {"a": {}}},
                {"$ref": "#/$defs/either"},
                {"allOf": [{"required": ["p", "q"]}, {"oneOf": [{"type": "number"}, {"required": ["r"]}]}]}
            ], "$defs": {"either": {"anyOf": [{"required": ["geometry"]}, {"required": ["bbox"]}]}}})),
            vec![
                names(&["date"]),
                names(&["timestamp"]),
                // No object at all: any object is turned away.
                names(&[]),
                // Requires nothing: not known.
                None,
                names(&["bbox", "geometry"]),
                // The smallest of the conjuncts' sets (the first of equal ones).
                names(&["p"]),
            ]
        );
        // A branch that requires nothing makes its union unknown.
        assert_eq!(
            presence_of(
                json!({"anyOf": [{"anyOf": [{"required": ["a"]}, {}]}, {"required": ["b"]}]})
            ),
            vec![None, names(&["b"])]
        );
    }

    /// Under draft 4 a literal `1.0` still stands for the instance `1`, which `integer`
    /// accepts: such a `oneOf` is not exclusive (the proof once asked of `1.0` alone).
    #[test]
    fn integral_literals_are_asked_in_both_spellings() {
        let draft4 = |schema: Value| {
            let schema = crate::Options::new()
                .default_dialect(crate::Draft::Draft4)
                .compile(&schema)
                .unwrap();
            let c = &schema.compiled;
            c.list_exclusive[root_list(c).unwrap().start as usize]
        };
        assert!(!draft4(
            json!({"oneOf": [{"type": "integer"}, {"enum": [1.0]}]})
        ));
        assert!(!draft4(
            json!({"oneOf": [{"enum": [2.0, 0.5]}, {"type": "integer"}]})
        ));
        // A literal no integer equals is still told apart.
        assert!(draft4(
            json!({"oneOf": [{"type": "integer"}, {"enum": [1.5]}]})
        ));
    }
}
