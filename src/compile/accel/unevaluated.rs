//! `unevaluatedProperties` specs: the names and patterns a node's unconditional subschemas
//! evaluate, so that most properties get their answer from a lookup.

use super::*;

/// Nodes looked at per `unevaluatedProperties`: past it, what was found is kept (it is
/// evaluated) but a name not found is left to evaluation.
pub(super) const UNEVALUATED_NODES: usize = 256;

/// `Compiled::unevaluated`: for each node with `unevaluatedProperties`, the names and
/// patterns its unconditional subschemas evaluate (its own keywords, then `allOf`
/// branches and `$ref` targets, followed), whether one evaluates every property, and
/// whether a conditional one was met. (Schemas composed of `allOf` and `$ref` with
/// `unevaluatedProperties: false`, as 2020-12 generators write them, get an answer per
/// property from a lookup.)
pub(super) fn unevaluated_specs(c: &mut Compiled, live: &[u32]) {
    if !c
        .keywords
        .iter()
        .any(|k| matches!(k, Keyword::UnevaluatedProperties(_)))
    {
        return;
    }
    let mut out = Vec::new();
    for &i in live {
        if !c
            .keywords_of(NodeId(i))
            .iter()
            .any(|k| matches!(k, Keyword::UnevaluatedProperties(_)))
        {
            continue;
        }
        let mut spec = crate::schema::Unevaluated {
            complete: true,
            ..Default::default()
        };
        let mut names = Vec::new();
        let mut patterns = Vec::new();
        let mut seen: Vec<NodeId> = Vec::new();
        let mut stack = vec![(NodeId(i), true)];
        while let Some((n, top)) = stack.pop() {
            if seen.contains(&n) {
                continue;
            }
            if seen.len() == UNEVALUATED_NODES {
                spec.complete = false;
                break;
            }
            seen.push(n);
            for kw in c.keywords_of(n) {
                match *kw {
                    Keyword::Properties(span) => names.extend(
                        c.properties[span.range()]
                            .iter()
                            .map(|(name, _)| (crate::names::summary(name), name.clone())),
                    ),
                    Keyword::PatternProperties(span) => {
                        patterns.extend(c.pattern_properties[span.range()].iter().map(|&(p, _)| p))
                    }
                    Keyword::AdditionalProperties(_) => spec.all = true,
                    Keyword::UnevaluatedProperties(_) if !top => spec.all = true,
                    Keyword::AllOf(span) => {
                        stack.extend(c.node_list(span).iter().map(|&b| (b, false)))
                    }
                    Keyword::Ref(target) => stack.push((target, false)),
                    Keyword::AnyOf(_)
                    | Keyword::OneOf(_)
                    | Keyword::If { .. }
                    | Keyword::DependentSchemas(_)
                    | Keyword::DynamicRef(_) => spec.complete = false,
                    // Nothing evaluated among the object's properties: the node's own
                    // `unevaluatedProperties`, what applies to names or items, `not` (its
                    // annotations are dropped), assertions.
                    Keyword::UnevaluatedProperties(_)
                    | Keyword::PropertyNames(_)
                    | Keyword::PrefixItems(_)
                    | Keyword::Items { .. }
                    | Keyword::Contains(_)
                    | Keyword::UnevaluatedItems(_)
                    | Keyword::Not(_)
                    | crate::schema::assertion_keywords!() => {}
                }
            }
        }
        // (By summary, then name, once each: `Unevaluated::knows` searches them.)
        names.sort_unstable();
        names.dedup();
        spec.names = names.into();
        spec.patterns = patterns.into();
        out.push((NodeId(i), spec));
    }
    c.accel.unevaluated = out;
}
