//! Presence filters: names of which every object a branch accepts holds one, so that a
//! `oneOf`/`anyOf` branch is skipped by a lookup when the object holds none of them.

use super::*;
use std::sync::Arc;

/// Most nodes looked at to find one branch's presence filter.
pub(super) const PRESENCE_CALLS: u32 = 64;

/// Most names a presence filter holds (more cost more lookups than they save).
pub(super) const PRESENCE_MAX: usize = 4;

/// Names of which every object `node` accepts holds at least one: a name it requires; for
/// a `oneOf`/`anyOf`, one from each branch; none at all when it accepts no object.
/// `None` when not known (a branch that requires nothing, a dynamic reference, too deep,
/// too many names). Sound: an object holding none of the names fails `node`.
pub(super) fn presence(
    c: &Compiled,
    node: NodeId,
    depth: u32,
    calls: &mut u32,
) -> Option<Vec<Arc<str>>> {
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
            Keyword::Const(i) if !c.values[i.index()].is_object() => offer(Some(Vec::new())),
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
            | Keyword::Properties(_)
            | Keyword::PatternProperties(_)
            | Keyword::AdditionalProperties(_)
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
            | crate::schema::bound_keywords!() => {}
        }
    }
    best.filter(|names| names.len() <= PRESENCE_MAX)
}
