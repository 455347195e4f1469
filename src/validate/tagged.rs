//! Errors of a `oneOf`/`anyOf` whose branches are told apart by one property (a tag):
//! serde's internally tagged enums, as schemars derives them, compile to
//! `{"oneOf": [{"properties": {"type": {"const": "circle"}, ...}, "required": ["type"]}, ...]}`.
//! "Must match exactly one of 3 schemas" tells a model nothing it can fix; the branch its
//! tag selects, and that branch's own errors (`/radius: must be at least 0`), do. When
//! the tag selects no branch, the error lists the tag values the branches accept: they come
//! from the schema, so they are safe to show (the instance's own tag value is not).
//!
//! The branches' filters on the tag are the compiler's discriminator dispatch
//! (`schema::Dispatch`): nothing is computed here until an error is reported.

use super::location::Seg;
use super::{Collector, Ctx};
use crate::error::ErrorKind;
use crate::flat::Instance;
use crate::json;
use crate::schema::{Compiled, Filter, NodeId, Span};
use serde_json::Value;
use std::sync::Arc;

/// What a union's tag tells about its failure.
pub(super) enum Tagged {
    /// The tag selects this branch (the tag property named).
    Selects(usize, Arc<str>),
    /// The tag is missing or selects no branch: reported (the allowed values listed).
    Reported,
    /// No tag, or it does not decide.
    Undecided,
}

/// What the tag of the `oneOf`/`anyOf` keyword `k` of `node` (its branches in `span`, none
/// of which matched `instance`) tells, reporting a missing or unknown tag. Always
/// `Undecided` when failing fast.
pub(super) fn decide<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    span: Span,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> Tagged {
    if C::FAIL_FAST {
        return Tagged::Undecided;
    }
    let Some(o) = instance.as_object() else {
        return Tagged::Undecided;
    };
    let Some((d, summary)) = c.dispatch_of(span) else {
        return Tagged::Undecided;
    };
    let found = json::lookup_key_in(o, &d.property, summary);
    let mut selected = d
        .filters
        .iter()
        .enumerate()
        .filter(|(_, f)| f.admits(found))
        .map(|(j, _)| j);
    match (selected.next(), selected.next()) {
        (Some(j), None) => Tagged::Selects(j, d.property.clone()),
        (None, _) => {
            // The tag values the branches accept, when every branch lists its own.
            let mut allowed: Vec<Value> = Vec::new();
            for f in &d.filters {
                match f {
                    Filter::Reject => {}
                    Filter::Accept {
                        values: Some(values),
                        ..
                    } => {
                        for v in values {
                            if !allowed.iter().any(|a| json::equal(a, v)) {
                                allowed.push(v.clone());
                            }
                        }
                    }
                    Filter::Accept { values: None, .. } => return Tagged::Undecided,
                }
            }
            if allowed.is_empty() {
                return Tagged::Undecided;
            }
            match found {
                None => {
                    let kind = ErrorKind::Required {
                        property: d.property.clone(),
                    };
                    col.error(c, ctx, node, k, None, kind, Vec::new());
                }
                Some(_) => {
                    let kind = ErrorKind::enum_of(&allowed);
                    let at = Some(Seg::Key(&d.property));
                    col.error(c, ctx, node, k, at, kind, Vec::new());
                }
            }
            Tagged::Reported
        }
        // Several branches accept the tag: it does not decide.
        (Some(_), Some(_)) => Tagged::Undecided,
    }
}
