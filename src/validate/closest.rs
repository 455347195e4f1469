//! Errors of an `anyOf`/`oneOf` that no branch matches: the errors of the branch the
//! instance most plausibly meant, each at its own location, then one line at the union
//! naming that branch ([`ErrorKind::ClosestBranch`]). "Must match at least one of 2
//! schemas" at `/user/address` tells a model nothing it can fix; `/user/address/zip: must
//! match the pattern ...` does.
//!
//! The branch, in order of certainty:
//! 1. the one the instance's tag selects (see `tagged`);
//! 2. the only one that admits the value itself: every other fails at the union's own
//!    location on its type or on the one literal it allows (`anyOf: [Address, null]`);
//! 3. of those that admit it, the one whose errors lie deepest, then are fewest: the
//!    branch that got furthest into the value.
//!
//! When none stands out the union fails as before, every branch's errors as its causes.
//! Nothing here runs unless the union has failed: the fail-fast path is untouched.

use super::location::instance_pointer;
use super::tagged::{self, Tagged};
use super::{Collector, Ctx, eval};
use crate::error::{BranchChoice, ErrorKind, ValidationError};
use crate::flat::Instance;
use crate::schema::{Compiled, NodeId, Span};

/// Reports the failure of the `anyOf`/`oneOf` keyword `k` of `node`, none of whose
/// branches matched: through the closest branch, else as `fallback` with every branch's
/// errors as causes. Answers `false` (the keyword failed).
#[allow(clippy::too_many_arguments)]
pub(super) fn report<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    span: Span,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
    fallback: ErrorKind,
) -> bool {
    if C::FAIL_FAST {
        return false;
    }
    let children = c.node_list(span);
    match tagged::decide(c, node, k, span, instance, ctx, col) {
        Tagged::Reported => return false,
        Tagged::Selects(branch, property) => {
            if let Some(&child) = children.get(branch) {
                let mut b = col.branch();
                eval(c, child, instance, ctx, &mut b);
                let errors = b.take();
                let choice = BranchChoice::Tag { property };
                emit(c, node, k, ctx, col, children.len(), branch, choice, errors);
                return false;
            }
        }
        Tagged::Undecided => {}
    }
    let mut each: Vec<Vec<ValidationError>> = Vec::with_capacity(children.len());
    for child in children {
        let mut b = col.branch();
        eval(c, *child, instance, ctx, &mut b);
        each.push(b.take());
    }
    report_branches(c, node, k, ctx, col, each, fallback)
}

/// [`report`] with every branch already evaluated (`each`: the errors of each branch, in
/// order; none matched), as `evaluate` has them.
pub(super) fn report_branches<C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    ctx: Ctx<'_>,
    col: &mut C,
    mut each: Vec<Vec<ValidationError>>,
    fallback: ErrorKind,
) -> bool {
    let branches = each.len();
    match choose(&instance_pointer(ctx.path, None), &each) {
        Some((branch, choice)) => {
            let errors = std::mem::take(&mut each[branch]);
            emit(c, node, k, ctx, col, branches, branch, choice, errors);
        }
        None => {
            let causes = each.into_iter().flatten().collect();
            col.error(c, ctx, node, k, None, fallback, causes);
        }
    }
    false
}

/// [`report_branches`] when the tag selects `branch`.
#[allow(clippy::too_many_arguments)]
pub(super) fn report_tagged<C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    ctx: Ctx<'_>,
    col: &mut C,
    mut each: Vec<Vec<ValidationError>>,
    branch: usize,
    property: std::sync::Arc<str>,
) -> bool {
    let branches = each.len();
    let errors = std::mem::take(&mut each[branch]);
    let choice = BranchChoice::Tag { property };
    emit(c, node, k, ctx, col, branches, branch, choice, errors);
    false
}

/// The chosen branch's errors, then the line that names it.
#[allow(clippy::too_many_arguments)]
fn emit<C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    ctx: Ctx<'_>,
    col: &mut C,
    branches: usize,
    branch: usize,
    choice: BranchChoice,
    errors: Vec<ValidationError>,
) {
    col.extend(errors);
    let keyword = if c.keyword_names[k] == "anyOf" {
        "anyOf"
    } else {
        "oneOf"
    };
    let kind = ErrorKind::ClosestBranch {
        keyword,
        branch,
        branches,
        choice,
    };
    col.error(c, ctx, node, k, None, kind, Vec::new());
}

/// How many segments a JSON Pointer has.
fn depth(pointer: &str) -> usize {
    pointer.bytes().filter(|&b| b == b'/').count()
}

/// Whether `e`, of a branch applied at depth `at`, rejects the value itself.
fn rejects_value(e: &ValidationError, at: usize) -> bool {
    matches!(
        e.kind(),
        ErrorKind::Type { .. }
            | ErrorKind::FalseSchema
            | ErrorKind::Const { .. }
            | ErrorKind::Enum { .. }
    ) && depth(e.instance_location()) == at
}

/// How deep into the value `e` (and its causes) got: an error about a member that should
/// not be there counts at its parent (the branch did not describe it at all).
fn reach(e: &ValidationError) -> usize {
    let d = depth(e.instance_location());
    let own = match e.kind() {
        ErrorKind::AdditionalProperties
        | ErrorKind::UnevaluatedProperties
        | ErrorKind::AdditionalItems
        | ErrorKind::UnevaluatedItems
        | ErrorKind::PropertyNames => d.saturating_sub(1),
        _ => d,
    };
    e.causes().iter().map(reach).fold(own, usize::max)
}

/// The branch to report, and why; `None` when none stands out. `at` is the union's
/// instance location.
pub(crate) fn choose(at: &str, each: &[Vec<ValidationError>]) -> Option<(usize, BranchChoice)> {
    let at = depth(at);
    let admitting: Vec<usize> = (0..each.len())
        .filter(|&j| !each[j].is_empty() && !each[j].iter().any(|e| rejects_value(e, at)))
        .collect();
    match admitting.as_slice() {
        [] => None,
        [only] => Some((*only, BranchChoice::Type)),
        _ => {
            // Deepest reach, then fewest errors; a tie decides nothing.
            let score = |j: usize| {
                let r = each[j].iter().map(reach).max().unwrap_or(0);
                (r, std::cmp::Reverse(each[j].len()))
            };
            let mut best = admitting[0];
            let mut tied = false;
            for &j in &admitting[1..] {
                match score(j).cmp(&score(best)) {
                    std::cmp::Ordering::Greater => {
                        best = j;
                        tied = false;
                    }
                    std::cmp::Ordering::Equal => tied = true,
                    std::cmp::Ordering::Less => {}
                }
            }
            (!tied).then_some((best, BranchChoice::Deepest))
        }
    }
}
