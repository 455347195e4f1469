//! Refuses reference cycles that never consume the instance (`{"$ref": "#"}`,
//! `a → allOf → b → a`): evaluating one would never end.

use crate::error::{SchemaError, SchemaErrorKind};
use crate::schema::{Compiled, Keyword, NodeId};

/// The nodes a node applies to the same instance location ("in place").
fn in_place_edges(c: &Compiled, node: NodeId, out: &mut Vec<NodeId>) {
    for kw in c.keywords_of(node) {
        match *kw {
            Keyword::AllOf(s) | Keyword::AnyOf(s) | Keyword::OneOf(s) => {
                out.extend_from_slice(c.node_list(s))
            }
            Keyword::Not(n) | Keyword::Ref(n) => out.push(n),
            Keyword::If { cond, then, els } => {
                out.extend([cond, then, els].into_iter().filter(|n| !n.is_none()));
            }
            Keyword::DependentSchemas(s) => {
                out.extend(c.dependent_schemas[s.range()].iter().map(|(_, n)| *n))
            }
            Keyword::DynamicRef(i) => {
                let d = c.dynamic_refs[i.index()];
                out.push(d.target);
                if let Some(name) = d.anchor {
                    for r in &c.resources {
                        out.extend(
                            r.dynamic_anchors
                                .iter()
                                .filter(|(n, _)| *n == name)
                                .map(|(_, id)| *id),
                        );
                    }
                }
            }
            // What applies to a part of the instance (a property, an item, a name) moves
            // on; assertions apply nothing.
            Keyword::Properties(_)
            | Keyword::PatternProperties(_)
            | Keyword::AdditionalProperties(_)
            | Keyword::PropertyNames(_)
            | Keyword::PrefixItems(_)
            | Keyword::Items { .. }
            | Keyword::Contains(_)
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | crate::schema::assertion_keywords!() => {}
        }
    }
}

/// Depth-first search with colours, iterative so that long chains cannot overflow the stack.
pub(crate) fn check(c: &Compiled) -> Result<(), SchemaError> {
    const WHITE: u8 = 0;
    const GREY: u8 = 1;
    const BLACK: u8 = 2;
    let n = c.nodes.len();
    let mut colour = vec![WHITE; n];
    // The successors of every node on the stack, end to end in one buffer: a node's
    // range is dropped when it leaves the stack.
    let mut pool: Vec<NodeId> = Vec::new();
    // Stack of (node, end of its successors in `pool`, next successor to visit).
    let mut stack: Vec<(NodeId, usize, usize)> = Vec::new();
    for start in 0..n {
        if colour[start] != WHITE {
            continue;
        }
        colour[start] = GREY;
        pool.clear();
        in_place_edges(c, NodeId(start as u32), &mut pool);
        stack.push((NodeId(start as u32), pool.len(), 0));
        while let Some(top) = stack.last_mut() {
            if top.2 == top.1 {
                colour[top.0.index()] = BLACK;
                stack.pop();
                let begin = stack.last().map_or(0, |below| below.1);
                pool.truncate(begin);
                continue;
            }
            let next = pool[top.2];
            top.2 += 1;
            if next.is_none() {
                continue;
            }
            match colour[next.index()] {
                WHITE => {
                    colour[next.index()] = GREY;
                    let begin = pool.len();
                    in_place_edges(c, next, &mut pool);
                    stack.push((next, pool.len(), begin));
                }
                GREY => {
                    let at = c.pointer_of(next);
                    return Err(SchemaError::new(
                        SchemaErrorKind::ReferenceCycle,
                        at.to_string(),
                        "references form a cycle that never consumes the instance (evaluation would never end)",
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}
