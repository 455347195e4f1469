//! Discriminator dispatch for `oneOf`/`anyOf` over object schemas.
//!
//! Real schemas tag the branches of a `oneOf` with a property pinned by `const`/`enum`
//! (`"type": "Point"`, `"op": "and"`, `"resourceType": "Patient"`, `"version": 2`). For
//! each branch we derive, at compile time, a sound filter on that property: a branch whose
//! filter rejects the instance object cannot be valid, so it is never evaluated. Every
//! filter is an over-approximation of the branch: it only rejects what the branch rejects.

use crate::json;
use crate::schema::{Compiled, Dispatch, Filter, Keyword, NodeId, Span};
use serde_json::Value;
use std::sync::Arc;

/// How deep the derivation follows `$ref`, `allOf` and nested `oneOf`/`anyOf`.
const MAX_DEPTH: u32 = 8;

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

/// The values a property is pinned to by a node (`const`, `enum`, through `$ref`s).
fn pinned_values(c: &Compiled, node: NodeId, depth: u32) -> Option<Vec<Value>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut out: Option<Vec<Value>> = None;
    for kw in c.keywords_of(node) {
        let found = match *kw {
            Keyword::Const(i) => Some(vec![c.values[i as usize].clone()]),
            Keyword::Enum(span) => Some(c.values[span.range()].to_vec()),
            Keyword::Ref(t) => pinned_values(c, t, depth + 1),
            _ => None,
        };
        if let Some(values) = found {
            out = Some(match out {
                None => values,
                // Both hold: keep the values in both.
                Some(prev) => common(prev, &values),
            });
        }
    }
    out
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
    if depth > MAX_DEPTH {
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
    if depth > MAX_DEPTH {
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
                        values: pinned_values(c, props[i].1, depth + 1),
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
    if depth > MAX_DEPTH {
        return;
    }
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::Properties(_) | Keyword::AdditionalProperties(_) => {
                for (name, child) in declared_properties(c, kw) {
                    if pinned_values(c, *child, depth + 1).is_some() && !out.contains(name) {
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
    let (prop, count) = counts.into_iter().next()?;
    if count < 2 {
        return None;
    }
    let filters: Vec<Filter> = branches.iter().map(|&b| filter(c, b, &prop, 0)).collect();
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
    // Many branches: index the strings each admits, so that a lookup replaces a pass
    // over every filter.
    let mut by_string: Vec<(u64, u32, Arc<str>)> = Vec::new();
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
                    for v in values {
                        if let Value::String(text) = v
                            && !by_string.iter().any(|e| e.1 == j as u32 && *e.2 == **text)
                        {
                            by_string.push((
                                crate::names::signature(text),
                                j as u32,
                                Arc::from(text.as_str()),
                            ));
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
        open,
    })
}

/// From this many branches, a dispatch indexes the strings its branches admit.
const INDEX_FROM: usize = 8;

/// Builds the dispatch table of every `oneOf`/`anyOf`.
pub(crate) fn build_all(c: &mut Compiled, live: &[u32]) {
    c.list_dispatch = vec![u32::MAX; c.node_lists.len()];
    let mut spans = Vec::new();
    for i in live.iter().map(|&i| i as usize) {
        for kw in c.keywords_of(NodeId(i as u32)) {
            if let Keyword::AnyOf(span) | Keyword::OneOf(span) = kw {
                spans.push(*span);
            }
        }
    }
    for span in spans {
        if span.len() == 0 || c.list_dispatch[span.start as usize] != u32::MAX {
            continue;
        }
        if let Some(d) = build(c, span) {
            c.dispatches.push(d);
            c.list_dispatch[span.start as usize] = (c.dispatches.len() - 1) as u32;
        }
    }
}
