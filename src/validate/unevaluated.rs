//! `unevaluatedProperties` and `unevaluatedItems`, without allocating.
//!
//! Rather than collecting annotations into sets, each property (or item) asks the node's
//! other keywords, and the in-place subschemas that succeeded, whether they evaluated it.
//! Branches of `anyOf`/`oneOf`/`if` are re-checked for validity; everything reached through
//! `allOf`, `$ref` and siblings is valid whenever the node got this far.

use super::location::Seg;
use super::{Collector, Ctx, Frame, Scope, dynamic_target, eval, valid_at};
use crate::error::ErrorKind;
use crate::flat::{Array as _, Instance, Object as _};
use crate::pattern::MatchOutcome;
use crate::schema::{Compiled, Keyword, NodeId, assertion_keywords};

/// Context with the dynamic scope extended when `node` is in another resource.
fn enter<'a>(c: &Compiled, node: NodeId, scope: &'a Scope<'a>) -> Scope<'a> {
    let r = c.node(node).resource;
    if r != scope.resource {
        Scope::enter(r, scope)
    } else {
        *scope
    }
}

/// Whether `node` (valid against `instance`) evaluated property `key`.
/// `top` skips the node's own `unevaluatedProperties`.
fn evaluated_property<'a, I: Instance<'a>>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    o: I::Object,
    key: &str,
    ctx: Ctx<'_>,
    top: bool,
) -> bool {
    let scope = enter(c, node, ctx.scope);
    let frame = Frame {
        scope: &scope,
        ..*ctx
    };
    let ctx = Ctx(&frame);
    stacker::maybe_grow(super::RED_ZONE, super::STACK_SEGMENT, || {
        c.keywords_of(node).iter().any(|kw| match *kw {
            Keyword::Properties(span) => c.properties[span.range()]
                .binary_search_by(|(n, _)| n.as_ref().cmp(key))
                .is_ok(),
            Keyword::PatternProperties(span) => {
                c.pattern_properties[span.range()].iter().any(|&(p, _)| {
                    c.patterns[p.index()].find_name(key, ctx.budget) == MatchOutcome::Match
                })
            }
            Keyword::AdditionalProperties(_) => true,
            Keyword::UnevaluatedProperties(_) => !top,
            Keyword::AllOf(span) => c
                .node_list(span)
                .iter()
                .any(|&n| evaluated_property(c, n, instance, o, key, ctx, false)),
            Keyword::AnyOf(span) | Keyword::OneOf(span) => c.node_list(span).iter().any(|&n| {
                valid_at(c, n, instance, ctx)
                    && evaluated_property(c, n, instance, o, key, ctx, false)
            }),
            Keyword::If { cond, then, els } => {
                if valid_at(c, cond, instance, ctx) {
                    evaluated_property(c, cond, instance, o, key, ctx, false)
                        || (!then.is_none()
                            && evaluated_property(c, then, instance, o, key, ctx, false))
                } else {
                    !els.is_none() && evaluated_property(c, els, instance, o, key, ctx, false)
                }
            }
            Keyword::DependentSchemas(span) => {
                c.dependent_schemas[span.range()].iter().any(|(name, n)| {
                    crate::json::has(o, name.as_ref())
                        && evaluated_property(c, *n, instance, o, key, ctx, false)
                })
            }
            Keyword::Ref(target) => evaluated_property(c, target, instance, o, key, ctx, false),
            Keyword::DynamicRef(i) => {
                let target = dynamic_target(c, i, ctx.scope);
                evaluated_property(c, target, instance, o, key, ctx, false)
            }
            // No property evaluated: the value's or the items' keywords, `not` (whose
            // annotations are dropped), and the assertions.
            Keyword::PropertyNames(_)
            | Keyword::PrefixItems(_)
            | Keyword::Items { .. }
            | Keyword::Contains(_)
            | Keyword::UnevaluatedItems(_)
            | Keyword::Not(_)
            | assertion_keywords!() => false,
        })
    })
}

/// Whether `node` (valid against `items`) evaluated item `index`.
fn evaluated_item<'a, I: Instance<'a>>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    items: I::Array,
    index: usize,
    ctx: Ctx<'_>,
    top: bool,
) -> bool {
    let scope = enter(c, node, ctx.scope);
    let frame = Frame {
        scope: &scope,
        ..*ctx
    };
    let ctx = Ctx(&frame);
    stacker::maybe_grow(super::RED_ZONE, super::STACK_SEGMENT, || {
        c.keywords_of(node).iter().any(|kw| match *kw {
            Keyword::PrefixItems(span) => index < span.len(),
            Keyword::Items { skip, .. } => index >= skip as usize,
            // (2019-09's `contains` evaluates nothing for `unevaluatedItems`.)
            Keyword::Contains(i) => {
                let spec = c.contains[i.index()];
                spec.annotates
                    && items
                        .get(index)
                        .is_some_and(|item| valid_at(c, spec.node, item, ctx))
            }
            Keyword::UnevaluatedItems(_) => !top,
            Keyword::AllOf(span) => c
                .node_list(span)
                .iter()
                .any(|&n| evaluated_item(c, n, instance, items, index, ctx, false)),
            Keyword::AnyOf(span) | Keyword::OneOf(span) => c.node_list(span).iter().any(|&n| {
                valid_at(c, n, instance, ctx)
                    && evaluated_item(c, n, instance, items, index, ctx, false)
            }),
            Keyword::If { cond, then, els } => {
                if valid_at(c, cond, instance, ctx) {
                    evaluated_item(c, cond, instance, items, index, ctx, false)
                        || (!then.is_none()
                            && evaluated_item(c, then, instance, items, index, ctx, false))
                } else {
                    !els.is_none() && evaluated_item(c, els, instance, items, index, ctx, false)
                }
            }
            Keyword::DependentSchemas(span) => {
                let Some(o) = instance.as_object() else {
                    return false;
                };
                c.dependent_schemas[span.range()].iter().any(|(name, n)| {
                    crate::json::has(o, name.as_ref())
                        && evaluated_item(c, *n, instance, items, index, ctx, false)
                })
            }
            Keyword::Ref(target) => evaluated_item(c, target, instance, items, index, ctx, false),
            Keyword::DynamicRef(i) => {
                let target = dynamic_target(c, i, ctx.scope);
                evaluated_item(c, target, instance, items, index, ctx, false)
            }
            // No item evaluated: the properties' keywords, `not` (whose annotations are
            // dropped), and the assertions.
            Keyword::Properties(_)
            | Keyword::PatternProperties(_)
            | Keyword::AdditionalProperties(_)
            | Keyword::PropertyNames(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::Not(_)
            | assertion_keywords!() => false,
        })
    })
}

/// `unevaluatedProperties` of `node`, whose other keywords have been evaluated.
#[allow(clippy::too_many_arguments)]
pub(super) fn properties<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    child: NodeId,
    instance: I,
    o: I::Object,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let forbidden = c.is_false_schema(child);
    let known = c.unevaluated_of(node);
    let mut ok = true;
    for (key, _, value) in o.entries() {
        // (A lookup answers for the names the unconditional subschemas declare; the
        // conditional ones are asked only when it cannot.)
        let evaluated = match known.and_then(|k| k.knows(c, key, ctx.budget)) {
            Some(evaluated) => evaluated,
            None => evaluated_property(c, node, instance, o, key, ctx, true),
        };
        if evaluated {
            continue;
        }
        let item_ok = if forbidden {
            if !C::FAIL_FAST {
                col.error(
                    c,
                    ctx,
                    node,
                    k,
                    Some(Seg::Key(key)),
                    ErrorKind::UnevaluatedProperties,
                    Vec::new(),
                );
            }
            false
        } else {
            eval_at!(c, child, value, ctx, Seg::Key(key), col)
        };
        check!(ok, col, item_ok);
    }
    ok
}

/// `unevaluatedItems` of `node`, whose other keywords have been evaluated.
#[allow(clippy::too_many_arguments)]
pub(super) fn items<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    child: NodeId,
    instance: I,
    items: I::Array,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let forbidden = c.is_false_schema(child);
    let mut ok = true;
    for (index, value) in items.iter().enumerate() {
        if evaluated_item(c, node, instance, items, index, ctx, true) {
            continue;
        }
        let item_ok = if forbidden {
            if !C::FAIL_FAST {
                col.error(
                    c,
                    ctx,
                    node,
                    k,
                    Some(Seg::Index(index)),
                    ErrorKind::UnevaluatedItems,
                    Vec::new(),
                );
            }
            false
        } else {
            eval_at!(c, child, value, ctx, Seg::Index(index), col)
        };
        check!(ok, col, item_ok);
    }
    ok
}
