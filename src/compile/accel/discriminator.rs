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

use super::unions::literal_values;
use crate::json;
use crate::schema::{Compiled, Dispatch, Filter, Keyword, NodeId, Span};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// From this many branches, a dispatch indexes the strings its branches admit (with two,
/// the lookup already costs less than the filters' comparisons: discriminated unions of
/// six branches -10.6% instructions).
pub(super) const INDEX_FROM: usize = 2;

/// How deep the derivation follows `$ref`, `allOf` and nested `oneOf`/`anyOf`.
pub(super) const MAX_DEPTH: u32 = 8;

/// Most nodes the derivations below look at for one list. Depth alone does not bound
/// them: unions of references branch at every level, so a hostile schema of a few hundred
/// subschemas (eight levels of fifty-way `anyOf`s) would take minutes to compile. Past it
/// every derivation gives its "unknown" answer (no pin, any value, no name), which only
/// dispatches and proves less.
pub(super) const WORK_PER_LIST: u32 = 20_000;

thread_local! {
    static WORK: std::cell::Cell<u32> = const { std::cell::Cell::new(WORK_PER_LIST) };
}

/// Takes one unit of the current list's work; `false` once it is spent.
pub(super) fn work() -> bool {
    WORK.with(|w| match w.get() {
        0 => false,
        left => {
            w.set(left - 1);
            true
        }
    })
}

/// A fresh budget for the next list.
pub(super) fn reset_work() {
    WORK.with(|w| w.set(WORK_PER_LIST));
}

/// The `properties` a keyword evaluates (its own, or the fused siblings of
/// `additionalProperties`).
pub(super) fn declared_properties<'c>(c: &'c Compiled, kw: &Keyword) -> &'c [(Arc<str>, NodeId)] {
    match *kw {
        Keyword::Properties(span) => &c.properties[span.range()],
        Keyword::AdditionalProperties(i) => {
            &c.properties[c.additional[i.index()].properties.range()]
        }
        Keyword::PatternProperties(_)
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
        | crate::schema::assertion_keywords!() => &[],
    }
}

/// What one keyword says about the values its node is pinned to: the one exhaustive list
/// [`pinned_values`] and [`is_pinned`] share.
enum Pin<'c> {
    /// `const` or `enum`: these values.
    Values(&'c [Value]),
    /// `$ref`: whatever its target pins.
    Through(NodeId),
    /// Nothing.
    Free,
}

fn pin(c: &Compiled, kw: Keyword) -> Pin<'_> {
    match kw {
        Keyword::Const(i) => Pin::Values(std::slice::from_ref(&c.values[i.index()])),
        Keyword::Enum(span) => Pin::Values(&c.values[span.range()]),
        Keyword::Ref(t) => Pin::Through(t),
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
        | Keyword::DynamicRef(_)
        | Keyword::UnevaluatedProperties(_)
        | Keyword::UnevaluatedItems(_)
        | Keyword::Content(_)
        | crate::schema::bound_keywords!() => Pin::Free,
    }
}

/// The values a property is pinned to by a node (`const`, `enum`, through `$ref`s):
/// borrowed from the schema's values unless two keywords intersect.
pub(super) fn pinned_values(c: &Compiled, node: NodeId, depth: u32) -> Option<Cow<'_, [Value]>> {
    if depth > MAX_DEPTH || !work() {
        return None;
    }
    let mut out: Option<Cow<'_, [Value]>> = None;
    for kw in c.keywords_of(node) {
        let found = match pin(c, *kw) {
            Pin::Values(values) => Some(Cow::Borrowed(values)),
            Pin::Through(t) => pinned_values(c, t, depth + 1),
            Pin::Free => None,
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
pub(super) fn is_pinned(c: &Compiled, node: NodeId, depth: u32) -> bool {
    if depth > MAX_DEPTH || !work() {
        return false;
    }
    let mut found = false;
    for kw in c.keywords_of(node) {
        found |= match pin(c, *kw) {
            Pin::Values(_) => true,
            Pin::Through(t) => is_pinned(c, t, depth + 1),
            Pin::Free => false,
        };
    }
    found
}

/// The values of `x` that `y` also holds (JSON equality).
pub(super) fn common(x: Vec<Value>, y: &[Value]) -> Vec<Value> {
    x.into_iter()
        .filter(|v| y.iter().any(|w| json::equal(v, w)))
        .collect()
}

pub(super) fn intersect(a: Filter, b: Filter) -> Filter {
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
pub(super) fn without(values: Vec<Value>, excluded: &[Value]) -> Vec<Value> {
    values
        .into_iter()
        .filter(|v| !excluded.iter().any(|w| json::equal(v, w)))
        .collect()
}

pub(super) fn union(a: Filter, b: Filter) -> Filter {
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

pub(super) const ANY: Filter = Filter::Accept {
    values: None,
    excluded: Vec::new(),
    required: false,
};

/// The values a node certainly rejects: those of a `not` holding nothing but an `enum`
/// or a `const` (through `$ref`s). A `not` whose schema says more (`"not": {"enum":
/// ["a"], "minLength": 2}`) excludes nothing for certain.
pub(super) fn excluded_values(c: &Compiled, node: NodeId, depth: u32) -> Vec<Value> {
    if depth > MAX_DEPTH || !work() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::Not(n) => {
                if let [kw] = *c.keywords_of(n)
                    && let Some(span) = literal_values(kw)
                {
                    out.extend_from_slice(&c.values[span.range()]);
                }
            }
            Keyword::Ref(t) => out.extend(excluded_values(c, t, depth + 1)),
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
            | Keyword::If { .. }
            | Keyword::DynamicRef(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | crate::schema::assertion_keywords!() => {}
        }
    }
    out
}

/// What `node` requires of property `prop` of an object instance.
pub(super) fn filter(c: &Compiled, node: NodeId, prop: &str, depth: u32) -> Filter {
    if depth > MAX_DEPTH || !work() {
        return ANY;
    }
    let mut f = ANY;
    for kw in c.keywords_of(node) {
        let g = match *kw {
            Keyword::False => Filter::Reject,
            Keyword::Type(set) if !set.contains(crate::json::JsonType::Object) => Filter::Reject,
            Keyword::Const(i) if !c.values[i.index()].is_object() => Filter::Reject,
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
            Keyword::Type(_)
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
            | Keyword::Not(_)
            | Keyword::If { .. }
            | Keyword::DynamicRef(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | Keyword::Content(_)
            | crate::schema::bound_keywords!() => ANY,
        };
        f = intersect(f, g);
    }
    f
}

/// Property names a branch pins with `const`/`enum` (directly or through references).
pub(super) fn pinned_names(c: &Compiled, node: NodeId, depth: u32, out: &mut Vec<Arc<str>>) {
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
            Keyword::PatternProperties(_)
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
            | crate::schema::assertion_keywords!() => {}
        }
    }
}

pub(super) fn build(c: &Compiled, span: Span) -> Option<Dispatch> {
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
pub(super) const CANDIDATES: usize = 4;

/// Most value comparisons spent choosing a list's discriminating property; past it the
/// best found so far is taken.
pub(super) const SPREAD_BUDGET: usize = 100_000;

/// Branches admitted per listed value, summed; distinct listed values (see [`spread`]).
pub(super) type Spread = (usize, usize);

/// How well a property's filters tell branches apart: (branches admitting each distinct
/// listed value, summed; how many distinct values), the sum as large as the branches
/// times one value when none is listed (nothing told apart by value). `None` when the
/// budget runs out.
pub(super) fn spread(filters: &[Filter], budget: &mut usize) -> Option<Spread> {
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
        sum += filters.iter().filter(|f| f.admits(Some(*v))).count();
    }
    Some((sum, seen.len()))
}

#[cfg(test)]
mod tests {
    use crate::schema::{Keyword, Schema};
    use serde_json::{Value, json};

    /// The span of the root's `oneOf` or `anyOf` list.
    fn root_list(c: &crate::schema::Compiled) -> Option<crate::schema::Span> {
        c.keywords_of(c.root).iter().find_map(|kw| match kw {
            Keyword::OneOf(span) | Keyword::AnyOf(span) => Some(*span),
            Keyword::Properties(_)
            | Keyword::PatternProperties(_)
            | Keyword::AdditionalProperties(_)
            | Keyword::PropertyNames(_)
            | Keyword::DependentSchemas(_)
            | Keyword::PrefixItems(_)
            | Keyword::Items { .. }
            | Keyword::Contains(_)
            | Keyword::AllOf(_)
            | Keyword::Not(_)
            | Keyword::If { .. }
            | Keyword::Ref(_)
            | Keyword::DynamicRef(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | crate::schema::assertion_keywords!() => None,
        })
    }

    /// Whether the root's `oneOf` was proven exclusive.
    fn exclusive(schema: Value) -> bool {
        let schema = Schema::compile(&schema).unwrap();
        let c = &schema.compiled;
        let span = root_list(c).unwrap();
        c.accel.list_exclusive[span.start as usize]
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
        let (d, _) = c.dispatch_of(span)?;
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
        if c.accel.list_presence.get(span.start as usize) != Some(&true) {
            return vec![None; span.len()];
        }
        c.accel.presence[span.range()]
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
            c.accel.list_exclusive[root_list(c).unwrap().start as usize]
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
