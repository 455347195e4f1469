//! The evaluator: one `match` over keywords, generic over what it collects.
//!
//! [`is_valid`] runs it with a collector that records nothing and stops at the first
//! failure; [`collect_errors`] runs the same code with a collector that builds
//! [`ValidationError`]s. Locations are kept as linked lists on the call stack (instance
//! path, dynamic scope, reference hops), so the fail-fast path never touches the heap.

/// One part of a keyword failed (`$part` is false): stop at once when failing fast or when
/// the collector is full, else go on with the keyword marked failed.
macro_rules! check {
    ($ok:ident, $col:expr, $part:expr) => {
        if !$part {
            $ok = false;
            if C::FAIL_FAST || $col.full() {
                return false;
            }
        }
    };
}

mod location;

use crate::error::{ErrorKind, ValidationError};
use crate::flat::{Array as _, Instance, Kind, Object as _};
use crate::json::{self, JsonType};
use crate::pattern::MatchOutcome;
use crate::schema::{
    Compiled, DynamicRefId, ENUM_SCAN_LIMIT, Keyword, LimitId, NodeId, ObjectWalk, ResourceId,
    Shape, applicator_keywords, assertion_keywords, other_assertion_keywords,
};
use location::{Hop, Path, Seg};
use serde_json::Value;
use std::cell::RefCell;
use std::cmp::Ordering;

/// Below this much free stack, evaluation continues on a freshly allocated segment, so an
/// instance of any depth gets an answer instead of overflowing the stack.
const RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// The resources evaluation has entered, innermost first (for `$dynamicRef`).
#[derive(Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub(crate) resource: ResourceId,
    pub(crate) parent: Option<&'a Scope<'a>>,
    /// The resource of the outermost entry (where evaluation started), which a
    /// `$dynamicRef` looks in first: its anchor, when it has one, wins.
    pub(crate) outermost: ResourceId,
}

impl<'a> Scope<'a> {
    /// A scope of one resource.
    pub(crate) const fn root(resource: ResourceId) -> Scope<'a> {
        Scope {
            resource,
            parent: None,
            outermost: resource,
        }
    }

    /// `parent` with `resource` entered.
    pub(crate) fn enter(resource: ResourceId, parent: &'a Scope<'a>) -> Scope<'a> {
        Scope {
            resource,
            parent: Some(parent),
            outermost: parent.outermost,
        }
    }
}

/// Where evaluation stands: instance location, dynamic scope, and the last reference hop.
#[derive(Clone, Copy)]
pub(crate) struct Frame<'a> {
    pub(crate) path: &'a Path<'a>,
    pub(crate) scope: &'a Scope<'a>,
    pub(crate) hop: &'a Hop<'a>,
    /// Below this stack address the current stack segment runs into its red zone.
    pub(crate) stack_limit: usize,
    /// The evaluation's step budget, shared by every frame of one call.
    pub(crate) budget: &'a Budget<'a>,
}

/// How many node evaluations one call may make. Evaluation without memoising does the
/// work of a subschema again each time it is applied to the same value, so a schema that
/// applies one recursive subschema twice per level (two `oneOf` branches, an `allOf` of
/// two references) doubles the work at every level of the instance. The budget starts at
/// [`crate::EVALUATION_STEPS_MIN`] (or `Options::step_budget`'s); spent, it is set once to
/// [`crate::EVALUATION_STEPS_PER_VALUE`] per value of the instance (counted then, so a
/// large legitimate instance is never cut short and a small one pays nothing). Spent
/// again, every node fails at once and the call reports `EvaluationBudgetExceeded`.
pub(crate) struct Budget<'a> {
    left: std::cell::Cell<u64>,
    /// The instance, when a `Value` (counted when the budget first runs out).
    root: Option<&'a Value>,
    /// Otherwise its values, counted while it was parsed.
    values: usize,
    /// (steps before the instance is counted, steps per value), from the options.
    limits: (u64, u64),
    refilled: std::cell::Cell<bool>,
    exceeded: std::cell::Cell<bool>,
}

impl<'a> Budget<'a> {
    #[inline(always)]
    pub(crate) fn new<I: Instance<'a>>(c: &Compiled, root: I) -> Budget<'a> {
        let (root, values) = match root.as_value() {
            Some(v) => (Some(v), 0),
            None => (None, root.count_values()),
        };
        Budget {
            left: std::cell::Cell::new(c.step_budget.0),
            root,
            values,
            limits: c.step_budget,
            refilled: std::cell::Cell::new(false),
            exceeded: std::cell::Cell::new(false),
        }
    }

    /// Takes one step; `false` once the budget is exceeded.
    #[inline(always)]
    fn step(&self) -> bool {
        match self.left.get() {
            0 => self.refill(),
            left => {
                self.left.set(left - 1);
                true
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn refill(&self) -> bool {
        if self.refilled.replace(true) {
            self.exceeded.set(true);
            return false;
        }
        let values = self.root.map_or(self.values, json::count_values) as u64;
        let (min, per_value) = self.limits;
        let more = values.saturating_mul(per_value).saturating_sub(min);
        if more == 0 {
            self.exceeded.set(true);
            return false;
        }
        self.left.set(more - 1);
        true
    }

    pub(crate) fn exceeded(&self) -> bool {
        self.exceeded.get()
    }
}

/// Pattern work counts toward the call's budget (see `pattern::Meter`).
impl crate::pattern::Meter for Budget<'_> {
    fn charge(&self, steps: u64) -> bool {
        let left = self.left.get();
        if steps <= left {
            self.left.set(left - steps);
            return true;
        }
        // (The remainder comes out of the refill, if there is one.)
        self.left.set(0);
        self.refill() && self.charge(steps - left - 1)
    }
}

/// The error of a call that ran out of its budget, alone at the root.
fn budget_exceeded() -> ValidationError {
    ValidationError::new(
        (String::new(), [0, 0]),
        ErrorKind::EvaluationBudgetExceeded,
        Vec::new(),
    )
}

/// The evaluation context, passed to every call: one pointer to its frame, so it travels
/// in a register (a four-word context by value was copied to the stack at every call).
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a>(pub(crate) &'a Frame<'a>);

impl<'a> std::ops::Deref for Ctx<'a> {
    type Target = Frame<'a>;

    #[inline(always)]
    fn deref(&self) -> &Frame<'a> {
        self.0
    }
}

/// Evaluates `$node` against `$value`, one step (`$seg`) below `$ctx`'s instance location.
/// The fail-fast path reports no location, so it keeps none.
macro_rules! eval_at {
    ($c:expr, $node:expr, $value:expr, $ctx:expr, $seg:expr, $col:expr) => {
        if C::FAIL_FAST {
            eval($c, $node, $value, $ctx, $col)
        } else {
            let path = $ctx.path.push($seg);
            eval(
                $c,
                $node,
                $value,
                Ctx(&Frame {
                    path: &path,
                    ..*$ctx
                }),
                $col,
            )
        }
    };
}

// (After `eval_at`, which it uses.)
mod unevaluated;

/// Evaluates the root node against `instance` with `col`, from an empty context.
#[inline]
fn run_root<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    instance: I,
    col: &mut C,
    budget: &Budget<'_>,
) -> bool {
    let path = Path::root();
    let scope = Scope::root(c.node(c.root).resource);
    let hop = Hop::root(c.root);
    let frame = Frame {
        path: &path,
        scope: &scope,
        hop: &hop,
        stack_limit: stack_limit(),
        budget,
    };
    eval(c, c.root, instance, Ctx(&frame), col)
}

/// Every error, and the annotations of what succeeded.
pub(crate) fn outcome<'a, I: Instance<'a>>(c: &Compiled, instance: I) -> Outcome {
    let mut out = Outcome {
        errors: Vec::new(),
        annotations: Vec::new(),
        output: std::rc::Rc::new(OutputBudget {
            left: std::cell::Cell::new(crate::EVALUATION_OUTPUT_BYTES),
            exceeded: std::cell::Cell::new(false),
        }),
    };
    let budget = Budget::new(c, instance);
    run_root(c, instance, &mut out, &budget);
    if budget.exceeded() || out.output.exceeded.get() {
        // Whatever was gathered is partial: the budget error alone, at the root.
        out.annotations = Vec::new();
        out.errors = vec![budget_exceeded()];
    }
    out
}

/// The root frame of a fail-fast evaluation that keeps no scope. The fail-fast path reads
/// no location, and no scope when none is kept: the context points at constants instead
/// of links built per call (a fifth of a small call).
#[inline(always)]
fn constant_frame<'b>(budget: &'b Budget<'b>) -> Frame<'b> {
    static PATH: Path<'static> = Path::root();
    static SCOPE: Scope<'static> = Scope::root(ResourceId::FIRST);
    static HOP: Hop<'static> = Hop::root(NodeId::NONE);
    Frame {
        path: &PATH,
        scope: &SCOPE,
        hop: &HOP,
        stack_limit: stack_limit(),
        budget,
    }
}

/// Whether `instance` conforms to the compiled schema.
pub(crate) fn is_valid<'a, I: Instance<'a>>(c: &Compiled, instance: I) -> bool {
    let budget = Budget::new(c, instance);
    if c.dynamic_scope {
        return run_root(c, instance, &mut FailFast, &budget) && !budget.exceeded();
    }
    let frame = constant_frame(&budget);
    // (Past a root that only forwards: `{"$ref": "#/$defs/Request", "$defs": ...}`.)
    let start = c.fail_fast_root();
    let root = c.node(start);
    // An object at the root, as every tool's arguments are: straight to its walk, without
    // `eval`'s dispatch over the shapes or its stack check (the red zone holds this frame).
    let ok = if root.shape == Shape::PlainObject {
        admits(root.types, instance) && plain_object(c, start, instance, Ctx(&frame), &mut FailFast)
    } else {
        eval(c, start, instance, Ctx(&frame), &mut FailFast)
    };
    // (A budget exceeded inside a `not` may have made it pass: the answer is `false`.)
    ok && !budget.exceeded()
}

/// Whether `node`, a node of assertions only, certainly rejects `instance`: its types do
/// not admit it, or one of its keywords fails it, a `pattern` only when no match can start
/// with the string's first byte (no regular expression is built or run: the compiler asks
/// this of literals, and most patterns' engines are built on first use). `false` for any
/// other node and when unsure.
pub(crate) fn leaf_rejects<'a, I: Instance<'a>>(c: &Compiled, node: NodeId, instance: I) -> bool {
    let n = c.node(node);
    if !n.leaf {
        return false;
    }
    if !admits(n.types, instance) {
        return true;
    }
    let budget = Budget::new(c, instance);
    let frame = constant_frame(&budget);
    let body = n.body();
    let start = body.start;
    c.keywords[body]
        .iter()
        .enumerate()
        .any(|(offset, &kw)| match (kw, instance.as_str()) {
            (Keyword::Pattern(i), Some(s)) => c
                .patterns
                .get(i.index())
                .is_some_and(|p| p.rules_out_name(s)),
            (Keyword::Pattern(_), _) => false,
            _ => {
                let failed = !assertion(
                    c,
                    node,
                    start + offset,
                    kw,
                    instance,
                    Ctx(&frame),
                    &mut FailFast,
                );
                failed && !budget.exceeded()
            }
        })
}

/// Keyword `k` of `node` alone, failing fast, from a fresh context (the generated
/// validators' way into the engine: `codegen::keyword`).
pub(crate) fn keyword_valid(c: &Compiled, node: NodeId, k: usize, instance: &Value) -> bool {
    let Some(&kw) = c.keywords.get(k) else {
        return false;
    };
    let budget = Budget::new(c, instance);
    let frame = constant_frame(&budget);
    let ok = if kw.is_assertion() {
        assertion(c, node, k, kw, instance, Ctx(&frame), &mut FailFast)
    } else {
        eval_keyword(c, node, k, &kw, instance, &Ctx(&frame), &mut FailFast)
    };
    ok && !budget.exceeded()
}

/// `node` alone, failing fast, from a fresh context (`codegen::node`).
pub(crate) fn node_valid(c: &Compiled, node: NodeId, instance: &Value) -> bool {
    if node.index() >= c.nodes.len() {
        return false;
    }
    let budget = Budget::new(c, instance);
    let frame = constant_frame(&budget);
    eval(c, node, instance, Ctx(&frame), &mut FailFast) && !budget.exceeded()
}

/// `maxLength` (for `codegen`).
#[inline(always)]
pub(crate) fn max_length_of(s: &str, max: u64) -> bool {
    max_length(s, max)
}

/// `minLength` (for `codegen`).
#[inline(always)]
pub(crate) fn min_length_of(s: &str, min: u64) -> bool {
    min_length(s, min)
}

/// Errors number `skip` to `skip + max - 1` of `instance`, in evaluation order.
pub(crate) fn collect_errors<'a, I: Instance<'a>>(
    c: &Compiled,
    instance: I,
    skip: usize,
    max: usize,
) -> Vec<ValidationError> {
    let mut errors = Errors {
        seen: 0,
        skip,
        max,
        errors: Vec::new(),
    };
    let budget = Budget::new(c, instance);
    run_root(c, instance, &mut errors, &budget);
    if budget.exceeded() {
        // What was collected may be wrong (a `not` over an exceeded subschema passes): the
        // budget error alone, once.
        return if skip == 0 && max > 0 {
            vec![budget_exceeded()]
        } else {
            Vec::new()
        };
    }
    errors.errors
}

/// Whether `instance` conforms to `node`, in the given context, collecting nothing.
#[inline]
pub(crate) fn valid_at<'a, I: Instance<'a>>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
) -> bool {
    eval(c, node, instance, ctx, &mut FailFast)
}

/// Evaluates `node` against `instance`.
///
/// The node's hoisted `type` is checked here, inline at every call site, so a subschema
/// like `{"type": "number"}` costs no call at all on the fail-fast path. Before recursing,
/// the stack pointer is compared with the segment's limit; below it, evaluation continues
/// on a fresh segment.
#[inline(always)]
pub(crate) fn eval<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    if C::FAIL_FAST {
        let n = c.node(node);
        if !admits(n.types, instance) {
            return false;
        }
        let shape = n.shape;
        if shape.decided_by_types() {
            // The types, checked above, decide: no keyword, or a union of types.
            return true;
        }
        if shape == Shape::Leaf {
            // Assertions only: no scope, no stack check, no annotations to roll back.
            let body = n.body();
            if body.len() == 1 {
                return leaf_one(c, node, body.start, instance, ctx, col);
            }
            return eval_leaf(c, node, body, instance, ctx, col);
        }
        if shape == Shape::TypedArray {
            return typed_array(c, node, instance);
        }
        if shape == Shape::Forward {
            return forward(c, node, instance, ctx, col);
        }
    } else if !C::ANNOTATE {
        // Collecting errors: a node whose fail-fast check is cheap and bounded (types, then
        // assertions on this instance alone, no subschema) is answered by it when it
        // passes, as most do; only a failing one is evaluated again to report.
        let n = c.node(node);
        if (n.shape.decided_by_types() || n.shape == Shape::Leaf)
            && admits(n.types, instance)
            && (n.shape != Shape::Leaf
                || eval_leaf(c, node, n.body(), instance, ctx, &mut FailFast))
        {
            return true;
        }
    }
    eval_deep(c, node, instance, ctx, col)
}

/// The rest of `eval`, by a call: the stack check, then the node's shaped function or the
/// keyword loop. (Apart from the checks inlined at every call site, so that those sites
/// keep small frames: a leaf's check saves no register.)
#[inline(never)]
fn eval_deep<'a, I: Instance<'a>, C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: I,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let marker = 0u8;
    if (&raw const marker as usize) < ctx.stack_limit {
        return stacker::grow(STACK_SEGMENT, || {
            let frame = Frame {
                stack_limit: stack_limit(),
                ..*ctx
            };
            eval_node(c, node, instance, Ctx(&frame), col)
        });
    }
    if C::FAIL_FAST {
        let n = c.node(node);
        if n.shape.after_stack_check() {
            if enters_resource(c, n, &ctx) {
                // (The dynamic scope, when kept, must see the node itself.)
                return shaped_in_resource(c, node, instance, ctx, col);
            }
            return shaped(c, node, n.shape, instance, ctx, col);
        }
    }
    eval_node(c, node, instance, ctx, col)
}

/// Whether evaluating node `n` extends the dynamic scope (kept only when some
/// `$dynamicRef` reads it): the shortcuts that skip `eval_node` must not skip that.
#[inline(always)]
fn enters_resource(c: &Compiled, n: &crate::schema::Node, ctx: &Ctx<'_>) -> bool {
    c.dynamic_scope && n.resource != ctx.scope.resource
}

/// The lowest stack address evaluation may reach on the current segment before it moves
/// to a fresh one (the red zone fits the frames of one nesting level many times over).
///
/// Asking the system costs more than a small validation; the answer is kept per thread
/// with the stack address it was computed at, and reused from any address between the
/// limit and that one: such an address is on the same stack.
fn stack_limit() -> usize {
    thread_local! {
        /// (limit, the stack address it was computed at); (0, 0) when not yet known.
        static KNOWN: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
    }
    let marker = 0u8;
    let here = &raw const marker as usize;
    KNOWN.with(|known| {
        let (limit, at) = known.get();
        if limit < here && here <= at {
            return limit;
        }
        let limit = system_stack_limit(here);
        if limit != usize::MAX {
            known.set((limit, here));
        }
        limit
    })
}

#[cold]
fn system_stack_limit(here: usize) -> usize {
    match stacker::remaining_stack() {
        Some(remaining) => here.saturating_sub(remaining) + RED_ZONE,
        // Unknown: move to a segment of known size at the first level.
        None => usize::MAX,
    }
}

thread_local! {
    /// A reusable string value for evaluating `propertyNames` without allocating per key.
    static KEY_SCRATCH: RefCell<Value> = const { RefCell::new(Value::Null) };
}

/// A keyword failed: record it (unless failing fast) and evaluate to `false`. The causes,
/// when given, are only computed when they are recorded.
macro_rules! fail {
    ($col:expr, $c:expr, $ctx:expr, $node:expr, $k:expr, $kind:expr) => {
        fail!($col, $c, $ctx, $node, $k, $kind, Vec::new())
    };
    ($col:expr, $c:expr, $ctx:expr, $node:expr, $k:expr, $kind:expr, $causes:expr) => {{
        if !C::FAIL_FAST {
            $col.error($c, $ctx, $node, $k, None, $kind, $causes);
        }
        false
    }};
}

/// Whether `instance` has a type in `set` (`"number"` admits integers; an integer-only set
/// admits `1.0`).
#[inline(always)]
pub(crate) fn admits<'a, I: Instance<'a>>(set: crate::json::TypeSet, instance: I) -> bool {
    // The type's bit comes from a table indexed by the instance's tag (a jump on the tag
    // mispredicts on mixed arrays), so the common case is a load and a test.
    let tag = instance.kind() as usize;
    set.contains(json::INSTANCE_KINDS[tag])
        || (tag == 2
            && set.contains(JsonType::Integer)
            && instance.json_type() == JsonType::Integer)
}

/// Where a `$dynamicRef` (or `$recursiveRef`) lands in the current dynamic scope: the
/// outermost resource that defines the anchor, else the static target.
pub(crate) fn dynamic_target(c: &Compiled, i: DynamicRefId, scope: &Scope<'_>) -> NodeId {
    let d = c.dynamic_refs[i.index()];
    let Some(name) = d.anchor else {
        return d.target;
    };
    let anchored = |resource: ResourceId| {
        c.resources[resource.index()]
            .dynamic_anchors
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, id)| id)
    };
    // The outermost entry that has the anchor wins: the outermost of all first (the
    // meta-schemas' root, every time), before walking the whole scope.
    if let Some(id) = anchored(scope.outermost) {
        return id;
    }
    let mut found = d.target;
    let mut s = Some(scope);
    while let Some(link) = s {
        if let Some(&(_, id)) = c.resources[link.resource.index()]
            .dynamic_anchors
            .iter()
            .find(|(n, _)| *n == name)
        {
            found = id;
        }
        s = link.parent;
    }
    found
}

mod array;
mod closest;
mod collect;
mod eval;
mod logic;
mod number;
mod object;
mod shapes;
mod string;
mod tagged;

use array::*;
pub(crate) use collect::*;
pub(crate) use eval::type_verdict;
use eval::*;
use logic::*;
use number::*;
use object::*;
use shapes::*;
use string::*;
