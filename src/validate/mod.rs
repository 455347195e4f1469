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
use crate::json::{self, JsonType};
use crate::pattern::MatchOutcome;
use crate::schema::{
    Compiled, ENUM_SCAN_LIMIT, Keyword, NodeId, ObjectWalk, Shape, applicator_keywords,
    assertion_keywords, other_assertion_keywords,
};
use location::{Hop, Path, Seg};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::cmp::Ordering;

/// Below this much free stack, evaluation continues on a freshly allocated segment, so an
/// instance of any depth gets an answer instead of overflowing the stack.
const RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// The resources evaluation has entered, innermost first (for `$dynamicRef`).
#[derive(Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub(crate) resource: u32,
    pub(crate) parent: Option<&'a Scope<'a>>,
    /// The resource of the outermost entry (where evaluation started), which a
    /// `$dynamicRef` looks in first: its anchor, when it has one, wins.
    pub(crate) outermost: u32,
}

impl<'a> Scope<'a> {
    /// A scope of one resource.
    pub(crate) const fn root(resource: u32) -> Scope<'a> {
        Scope {
            resource,
            parent: None,
            outermost: resource,
        }
    }

    /// `parent` with `resource` entered.
    pub(crate) fn enter(resource: u32, parent: &'a Scope<'a>) -> Scope<'a> {
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
    root: &'a Value,
    /// (steps before the instance is counted, steps per value), from the options.
    limits: (u64, u64),
    refilled: std::cell::Cell<bool>,
    exceeded: std::cell::Cell<bool>,
}

impl<'a> Budget<'a> {
    pub(crate) fn new(c: &Compiled, root: &'a Value) -> Budget<'a> {
        Budget {
            left: std::cell::Cell::new(c.step_budget.0),
            root,
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
        let values = json::count_values(self.root) as u64;
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

/// What an evaluation collects.
pub(crate) trait Collector {
    /// Stop at the first failure (nothing to report but the answer).
    const FAIL_FAST: bool;

    /// Records a failed keyword. `child` names an instance location below `ctx.path` when
    /// the error is about one property or item.
    #[allow(clippy::too_many_arguments)]
    fn error(
        &mut self,
        c: &Compiled,
        ctx: Ctx<'_>,
        node: NodeId,
        keyword: usize,
        child: Option<Seg<'_>>,
        kind: ErrorKind,
        causes: Vec<ValidationError>,
    );

    /// Whether the collector wants no more errors.
    fn full(&self) -> bool;

    /// A fresh collector of the same kind, for branches whose errors may be discarded.
    fn branch(&self) -> Self;

    /// The branch's errors, taken.
    fn take(&mut self) -> Vec<ValidationError>;

    /// Collect annotations (the `evaluate` path): branches are all evaluated, and what
    /// failed subschemas annotated is dropped.
    const ANNOTATE: bool = false;

    /// How many annotations are held (to roll back to when a subschema fails).
    #[inline(always)]
    fn checkpoint(&self) -> usize {
        0
    }

    /// Drops annotations collected after `mark`.
    #[inline(always)]
    fn rollback(&mut self, _mark: usize) {}

    /// Records an annotation of keyword `name` of `node`.
    #[inline(always)]
    fn annotate(
        &mut self,
        _c: &Compiled,
        _ctx: Ctx<'_>,
        _node: NodeId,
        _name: &str,
        _value: Value,
    ) {
    }

    /// Keeps the annotations of a branch that succeeded.
    #[inline(always)]
    fn absorb(&mut self, _branch: Self)
    where
        Self: Sized,
    {
    }
}

/// Collects nothing: the `is_valid` path.
pub(crate) struct FailFast;

impl Collector for FailFast {
    const FAIL_FAST: bool = true;
    #[inline(always)]
    fn error(
        &mut self,
        _: &Compiled,
        _: Ctx<'_>,
        _: NodeId,
        _: usize,
        _: Option<Seg<'_>>,
        _: ErrorKind,
        _: Vec<ValidationError>,
    ) {
    }
    #[inline(always)]
    fn full(&self) -> bool {
        true
    }
    #[inline(always)]
    fn branch(&self) -> Self {
        FailFast
    }
    #[inline(always)]
    fn take(&mut self) -> Vec<ValidationError> {
        Vec::new()
    }
}

/// Collects errors `skip..skip + max` in evaluation order.
pub(crate) struct Errors {
    seen: usize,
    skip: usize,
    max: usize,
    errors: Vec<ValidationError>,
}

impl Collector for Errors {
    const FAIL_FAST: bool = false;

    #[allow(clippy::too_many_arguments)]
    fn error(
        &mut self,
        c: &Compiled,
        ctx: Ctx<'_>,
        node: NodeId,
        keyword: usize,
        child: Option<Seg<'_>>,
        kind: ErrorKind,
        causes: Vec<ValidationError>,
    ) {
        self.seen += 1;
        if self.seen <= self.skip || self.errors.len() >= self.max {
            return;
        }
        let name = c.keyword_names[keyword];
        let locations = location::error_locations(c, ctx.path, child, ctx.hop, node, name);
        self.errors
            .push(ValidationError::new(locations, kind, causes));
    }

    fn full(&self) -> bool {
        self.errors.len() >= self.max
    }

    fn branch(&self) -> Self {
        Errors {
            seen: 0,
            skip: 0,
            max: usize::MAX,
            errors: Vec::new(),
        }
    }

    fn take(&mut self) -> Vec<ValidationError> {
        std::mem::take(&mut self.errors)
    }
}

/// One annotation, located (the `evaluate` path).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawAnnotation {
    pub(crate) instance_location: String,
    pub(crate) keyword_location: String,
    pub(crate) absolute_keyword_location: String,
    pub(crate) schema_location: String,
    pub(crate) keyword: String,
    pub(crate) value: Value,
}

/// Collects every error and the annotations of what succeeded.
pub(crate) struct Outcome {
    pub(crate) errors: Vec<ValidationError>,
    pub(crate) annotations: Vec<RawAnnotation>,
    output: std::rc::Rc<OutputBudget>,
}

/// The bytes of locations one `evaluate` may still keep, shared by the collectors of its
/// branches: every annotation holds its full locations, so a deep instance would take
/// memory quadratic in its depth. Past it the evaluation reports
/// `EvaluationBudgetExceeded` alone.
struct OutputBudget {
    left: std::cell::Cell<u64>,
    exceeded: std::cell::Cell<bool>,
}

impl OutputBudget {
    /// Takes `n` bytes; `false` (and exceeded from then on) when short.
    fn spend(&self, n: u64) -> bool {
        match self.left.get().checked_sub(n) {
            Some(left) if !self.exceeded.get() => {
                self.left.set(left);
                true
            }
            _ => {
                self.exceeded.set(true);
                false
            }
        }
    }
}

impl Collector for Outcome {
    const FAIL_FAST: bool = false;
    const ANNOTATE: bool = true;

    fn error(
        &mut self,
        c: &Compiled,
        ctx: Ctx<'_>,
        node: NodeId,
        keyword: usize,
        child: Option<Seg<'_>>,
        kind: ErrorKind,
        causes: Vec<ValidationError>,
    ) {
        if self.output.exceeded.get() {
            return;
        }
        let name = c.keyword_names[keyword];
        let locations = location::error_locations(c, ctx.path, child, ctx.hop, node, name);
        if self.output.spend(locations.0.len() as u64) {
            self.errors
                .push(ValidationError::new(locations, kind, causes));
        }
    }

    fn full(&self) -> bool {
        false
    }

    fn branch(&self) -> Self {
        Outcome {
            errors: Vec::new(),
            annotations: Vec::new(),
            output: self.output.clone(),
        }
    }

    fn take(&mut self) -> Vec<ValidationError> {
        std::mem::take(&mut self.errors)
    }

    fn checkpoint(&self) -> usize {
        self.annotations.len()
    }

    fn rollback(&mut self, mark: usize) {
        self.annotations.truncate(mark);
    }

    fn annotate(&mut self, c: &Compiled, ctx: Ctx<'_>, node: NodeId, name: &str, value: Value) {
        if self.output.exceeded.get() {
            return;
        }
        let annotation = RawAnnotation {
            instance_location: location::instance_pointer(ctx.path, None),
            keyword_location: location::keyword_pointer(c, ctx.hop, node, name),
            absolute_keyword_location: location::absolute_keyword_location(c, node, name),
            schema_location: format!(
                "#{}",
                crate::compile::pointer::to_fragment(c.pointer_of(node))
            ),
            keyword: name.to_string(),
            value,
        };
        let size = annotation.instance_location.len()
            + annotation.keyword_location.len()
            + annotation.absolute_keyword_location.len()
            + annotation.schema_location.len();
        if self.output.spend(size as u64) {
            self.annotations.push(annotation);
        }
    }

    fn absorb(&mut self, branch: Self) {
        self.annotations.extend(branch.annotations);
    }
}

/// Evaluates the root node against `instance` with `col`, from an empty context.
#[inline]
fn run_root<C: Collector>(
    c: &Compiled,
    instance: &Value,
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
pub(crate) fn outcome(c: &Compiled, instance: &Value) -> Outcome {
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
    static SCOPE: Scope<'static> = Scope::root(0);
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
pub(crate) fn is_valid(c: &Compiled, instance: &Value) -> bool {
    let budget = Budget::new(c, instance);
    if c.dynamic_scope {
        return run_root(c, instance, &mut FailFast, &budget) && !budget.exceeded();
    }
    let frame = constant_frame(&budget);
    // (Past a root that only forwards: `{"$ref": "#/$defs/Request", "$defs": ...}`.)
    let start = c.fail_fast_root;
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
pub(crate) fn leaf_rejects(c: &Compiled, node: NodeId, instance: &Value) -> bool {
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
        .any(|(offset, &kw)| match (kw, instance) {
            (Keyword::Pattern(i), Value::String(s)) => c
                .patterns
                .get(i as usize)
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

/// Errors number `skip` to `skip + max - 1` of `instance`, in evaluation order.
pub(crate) fn collect_errors(
    c: &Compiled,
    instance: &Value,
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
pub(crate) fn valid_at(c: &Compiled, node: NodeId, instance: &Value, ctx: Ctx<'_>) -> bool {
    eval(c, node, instance, ctx, &mut FailFast)
}

/// Evaluates `node` against `instance`.
///
/// The node's hoisted `type` is checked here, inline at every call site, so a subschema
/// like `{"type": "number"}` costs no call at all on the fail-fast path. Before recursing,
/// the stack pointer is compared with the segment's limit; below it, evaluation continues
/// on a fresh segment.
#[inline(always)]
pub(crate) fn eval<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
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
fn eval_deep<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
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

/// The fail-fast function of a shape called after the stack check.
#[inline(always)]
fn shaped<C: Collector>(
    c: &Compiled,
    node: NodeId,
    shape: Shape,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    match shape {
        Shape::PlainObject => plain_object(c, node, instance, ctx, col),
        Shape::ItemsArray => items_array(c, node, instance, ctx, col),
        Shape::PropertyTest => property_test(c, node, instance, ctx, col),
        _ => union(c, node, instance, ctx, col),
    }
}

/// `shaped` for a node that enters another resource while a dynamic scope is kept: the
/// scope is extended first, as `eval_node` would (the meta-schemas' vocabularies, each a
/// resource of its own, keep their shapes).
#[inline(never)]
fn shaped_in_resource<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let n = c.node(node);
    let scope = Scope::enter(n.resource, ctx.scope);
    let frame = Frame {
        scope: &scope,
        ..*ctx
    };
    shaped(c, node, n.shape, instance, Ctx(&frame), col)
}

/// A node of the type-switch shape (see `Shape::TypeSwitch`), fail-fast: the branch of
/// the instance's type, the only one that may match; or of the union shape: its `oneOf`,
/// `anyOf`, `allOf`, `if` or tuple (with its bounds), with no keyword loop.
#[inline(never)]
fn union<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let n = c.node(node);
    if n.shape == Shape::TypeSwitch
        && let Some(branches) = c.type_switch(node)
    {
        let branch = branches[json::kind_index(instance)];
        return !branch.is_none() && eval(c, branch, instance, ctx, col);
    }
    // (A step where one value may meet several subschemas, see `Budget`: counted for the
    // node, so a tuple's items, which meet one each, are counted once too.)
    if !ctx.budget.step() {
        return false;
    }
    match c.keywords[n.body()] {
        [Keyword::OneOf(span)] => one_of(c, span, instance, ctx),
        [Keyword::AnyOf(span)] => any_of_inline(c, span, instance, ctx),
        [Keyword::AllOf(span)] => all_of(c, span, instance, ctx),
        [Keyword::If { cond, then, els }] => if_then_else(c, cond, then, els, instance, ctx),
        [Keyword::Not(child)] => !valid_at(c, child, instance, ctx),
        [Keyword::Contains(i)] => match instance {
            Value::Array(items) => contains_count(c, i, items, ctx),
            _ => true,
        },
        [ref bounds @ .., Keyword::PrefixItems(span)] => match instance {
            Value::Array(items) => {
                let len = items.len() as u64;
                for bound in bounds {
                    match *bound {
                        Keyword::MinItems(min) if len < min => return false,
                        Keyword::MaxItems(max) if len > max => return false,
                        Keyword::MinItems(_) | Keyword::MaxItems(_) => {}
                        _ => return eval_node(c, node, instance, ctx, col),
                    }
                }
                c.branches(span)
                    .iter()
                    .zip(items)
                    .all(|(child, item)| eval(c, *child, item, ctx, col))
            }
            _ => true,
        },
        // (With `items` after the tuple: apart, so that the commoner tuple above keeps its
        // straight-line check.)
        ref body @ [.., Keyword::Items { .. }] => tuple(c, node, body, instance, ctx, col),
        _ => eval_node(c, node, instance, ctx, col),
    }
}

/// A tuple of the union shape with `items` after it (see `accel::shapes::is_tuple`), fail-fast:
/// its bounds, `prefixItems` and the `items` (or `additionalItems`), in the body's order.
#[inline(never)]
fn tuple<C: Collector>(
    c: &Compiled,
    node: NodeId,
    body: &[Keyword],
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let len = items.len() as u64;
    for kw in body {
        let ok = match *kw {
            Keyword::MinItems(min) => len >= min,
            Keyword::MaxItems(max) => len <= max,
            Keyword::PrefixItems(span) => c
                .branches(span)
                .iter()
                .zip(items)
                .all(|(child, item)| eval(c, *child, item, ctx, col)),
            Keyword::Items { node: child, skip } => items_from(c, child, skip, items, ctx, col),
            // (Not of the shape: the general loop decides.)
            _ => return eval_node(c, node, instance, ctx, col),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `contains` (number `i` of the schema's) on the fail-fast path: items are counted until
/// the answer is known (no location, no annotation).
#[inline(never)]
fn contains_count(c: &Compiled, i: u32, items: &[Value], ctx: Ctx<'_>) -> bool {
    let Some(spec) = c.contains.get(i as usize) else {
        return false;
    };
    let mut count = 0u64;
    for item in items {
        if valid_at(c, spec.node, item, ctx) {
            count += 1;
            if spec.max.is_some_and(|max| count > max) {
                return false;
            }
            if spec.max.is_none() && count >= spec.min {
                return true;
            }
        }
    }
    count >= spec.min
}

/// A node of the forward shape (see `Shape::Forward`), fail-fast: its target, by a call
/// with a small frame instead of `eval_node`'s. (Before the stack check: chains of such
/// nodes are short, see `accel::forwards::forward_chains`.)
#[inline(never)]
fn forward<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    match c.spec_of.get(node.index()) {
        Some(&target) if (target as usize) < c.nodes.len() => {
            eval(c, NodeId(target), instance, ctx, col)
        }
        _ => eval_node(c, node, instance, ctx, col),
    }
}

/// A node of the items-array shape (see `Shape::ItemsArray`), fail-fast: its bounds, then
/// each item against the items' schema, with no keyword loop.
#[inline(never)]
fn items_array<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let spec = c.array_spec(node);
    // (Every node of the shape has its spec; without one, the general loop decides.)
    let Some(spec) = spec else {
        return eval_node(c, node, instance, ctx, col);
    };
    let len = items.len() as u64;
    if len < spec.min || len > spec.max {
        return false;
    }
    if spec.unique {
        // (Apart: arrays of typed arrays, the hot path of GeoJSON, lose an instruction per
        // item to register allocation when the check shares their function.)
        return unique_items_array(c, spec, items, ctx, col);
    }
    let child = spec.item;
    let of = c.node(child);
    let marker = 0u8;
    if of.shape == Shape::PlainObject
        && !enters_resource(c, of, &ctx)
        && (&raw const marker as usize) >= ctx.stack_limit
    {
        // Arrays of objects: the items' shape (and room on the stack, the same for every
        // item) is settled once, not per item as `eval` would.
        return items
            .iter()
            .all(|item| admits(of.types, item) && plain_object(c, child, item, ctx, col));
    }
    if of.shape == Shape::TypedArray {
        // Arrays of typed arrays (GeoJSON rings): inline, no call per item (as in the
        // node loop's `items`; a shared function for both was slower, see BENCHMARKS.md).
        items
            .iter()
            .all(|item| admits(of.types, item) && typed_array_inline(c, child, item))
    } else {
        items.iter().all(|item| eval(c, child, item, ctx, col))
    }
}

/// `items_array` for `uniqueItems: true`: no two items equal, then each item.
#[inline(never)]
fn unique_items_array<C: Collector>(
    c: &Compiled,
    spec: &crate::schema::ArraySpec,
    items: &[Value],
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    duplicate(items).is_none() && items.iter().all(|item| eval(c, spec.item, item, ctx, col))
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

/// Whether the property name `key` conforms to `node` (fail-fast). A node of string
/// assertions only (`{"pattern": "^.+$"}`, `{"maxLength": 64}`) reads the name in place;
/// any other goes through a string value.
#[inline]
fn name_valid(c: &Compiled, node: NodeId, key: &str, ctx: Ctx<'_>) -> bool {
    let n = c.node(node);
    if !n.types.contains(JsonType::String) {
        return false;
    }
    if !n.leaf {
        return eval_key(c, node, key, ctx, &mut FailFast);
    }
    for kw in &c.keywords[n.body()] {
        let ok = match *kw {
            Keyword::Pattern(i) => {
                c.patterns[i as usize].find_in(key, ctx.budget) == MatchOutcome::Match
            }
            Keyword::MaxLength(max) => {
                key.len() as u64 <= max || json::char_count(key) as u64 <= max
            }
            Keyword::MinLength(min) => {
                key.len() as u64 >= min && json::char_count(key) as u64 >= min
            }
            Keyword::Enum(span) => c.enum_has_string(span, key),
            Keyword::Const(i) => matches!(&c.values[i as usize], Value::String(t) if t == key),
            // What a string cannot fail.
            Keyword::MultipleOf(_)
            | Keyword::Maximum(_)
            | Keyword::ExclusiveMaximum(_)
            | Keyword::Minimum(_)
            | Keyword::ExclusiveMinimum(_)
            | Keyword::MaxItems(_)
            | Keyword::MinItems(_)
            | Keyword::UniqueItems
            | Keyword::MaxProperties(_)
            | Keyword::MinProperties(_)
            | Keyword::Required(_)
            | Keyword::DependentRequired(_) => true,
            _ => return eval_key(c, node, key, ctx, &mut FailFast),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Evaluates `node` against a property name, as a JSON string.
fn eval_key<C: Collector>(
    c: &Compiled,
    node: NodeId,
    key: &str,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    KEY_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            match &mut *slot {
                Value::String(s) => {
                    s.clear();
                    s.push_str(key);
                }
                other => *other = Value::String(key.to_string()),
            }
            let value = std::mem::take(&mut *slot);
            drop(slot);
            let ok = eval(c, node, &value, ctx, col);
            if let Ok(mut slot) = cell.try_borrow_mut() {
                *slot = value;
            }
            ok
        }
        Err(_) => eval(c, node, &Value::String(key.to_string()), ctx, col),
    })
}

fn eval_node<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let n = c.node(node);
    if C::FAIL_FAST && !enters_resource(c, n, &ctx) {
        // A node that only refers elsewhere (`{"$ref": ...}`, maybe typed): go there
        // directly. (The dynamic scope, when kept, must see the node itself.)
        let body = n.body();
        if body.len() == 1 {
            match c.keywords[body.start] {
                Keyword::Ref(target) => return eval(c, target, instance, ctx, col),
                // (`{"$dynamicRef": "#meta"}`, at every subschema of a meta-schema.)
                Keyword::DynamicRef(i) => {
                    return eval(c, dynamic_target(c, i, ctx.scope), instance, ctx, col);
                }
                _ => {}
            }
        }
    }
    // (A step where one value may meet several subschemas; see `Budget`.)
    if !ctx.budget.step() {
        return false;
    }
    // Entering another resource extends the dynamic scope (kept only when some
    // `$dynamicRef` reads it).
    let (pushed, frame);
    let ctx = if enters_resource(c, n, &ctx) {
        pushed = Scope::enter(n.resource, ctx.scope);
        frame = Frame {
            scope: &pushed,
            ..*ctx
        };
        Ctx(&frame)
    } else {
        ctx
    };
    let mark = col.checkpoint();
    let mut valid = true;
    // (The fail-fast path checked the types in `eval` already.)
    if !C::FAIL_FAST && n.typed && !admits(n.types, instance) {
        // The hoisted `type` failed: the keyword itself reports it.
        let k = n.keywords.start as usize;
        assertion(c, node, k, c.keywords[k], instance, ctx, col);
        valid = false;
        if col.full() {
            if C::ANNOTATE {
                col.rollback(mark);
            }
            return false;
        }
    }
    let body = n.body();
    let start = body.start;
    for (offset, kw) in c.keywords[body].iter().enumerate() {
        let k = start + offset;
        let ok = if C::FAIL_FAST {
            // The commonest cheap keywords inline, with no call.
            match *kw {
                Keyword::MinItems(min) => {
                    !matches!(instance, Value::Array(a) if (a.len() as u64) < min)
                }
                Keyword::MaxItems(max) => {
                    !matches!(instance, Value::Array(a) if a.len() as u64 > max)
                }
                Keyword::Required(span) => match instance {
                    Value::Object(o) => required_met(c, span, o),
                    _ => true,
                },
                Keyword::Items { node: child, skip } => match instance {
                    // `additionalItems: false` fails on any item too, with no report to make.
                    Value::Array(items) => items_from(c, child, skip, items, ctx, col),
                    _ => true,
                },
                // The commonest applicators by small calls of their own (`eval_keyword`'s
                // frame and context copies cost more than a branch check).
                Keyword::OneOf(span) => one_of(c, span, instance, ctx),
                Keyword::AnyOf(span) => any_of(c, span, instance, ctx),
                Keyword::AllOf(span) => all_of(c, span, instance, ctx),
                Keyword::Not(child) => !valid_at(c, child, instance, ctx),
                Keyword::If { cond, then, els } => if_then_else(c, cond, then, els, instance, ctx),
                _ if kw.is_assertion() => assertion(c, node, k, *kw, instance, ctx, col),
                _ => eval_keyword(c, node, k, kw, instance, &ctx, col),
            }
        } else if kw.is_assertion() {
            assertion(c, node, k, *kw, instance, ctx, col)
        } else {
            eval_keyword(c, node, k, kw, instance, &ctx, col)
        };
        if C::ANNOTATE && ok {
            applicator_annotation(c, node, k, *kw, instance, ctx, col);
        }
        if !ok {
            valid = false;
            if C::FAIL_FAST || col.full() {
                return false;
            }
        }
    }
    if C::ANNOTATE {
        if valid {
            for &a in &c.annotation_values[c.node_annotations[node.index()].range()] {
                let (name, value) = c.annotation(a);
                // The content keywords annotate strings only.
                if name.starts_with("content") && !instance.is_string() {
                    continue;
                }
                col.annotate(c, ctx, node, name, value);
            }
        } else {
            col.rollback(mark);
        }
    }
    valid
}

/// `oneOf` on the fail-fast path: exactly one branch matches.
#[inline(never)]
fn one_of(c: &Compiled, span: crate::schema::Span, instance: &Value, ctx: Ctx<'_>) -> bool {
    one_of_matches(c, span, instance, ctx) == 1
}

/// How many branches of `oneOf` match, counting to 2 at most (those the dispatch rules
/// out are skipped; the second match ends the search, or the first in an exclusive list).
#[inline(always)]
fn one_of_matches(
    c: &Compiled,
    span: crate::schema::Span,
    instance: &Value,
    ctx: Ctx<'_>,
) -> usize {
    let children = c.branches(span);
    let pick = Dispatched::new(c, span, instance);
    // (No other branch can match once one has, when the list is exclusive.)
    let enough = if c.list_exclusive.get(span.start as usize) == Some(&true) {
        1
    } else {
        2
    };
    let mut matched = 0;
    match pick.indexed() {
        Some(branches) => {
            for j in branches {
                if pick.present(j) && valid_at(c, children[j], instance, ctx) {
                    matched += 1;
                    if matched == enough {
                        break;
                    }
                }
            }
        }
        None => {
            for (j, child) in children.iter().enumerate() {
                if pick.may_match(j) && valid_at(c, *child, instance, ctx) {
                    matched += 1;
                    if matched == enough {
                        break;
                    }
                }
            }
        }
    }
    matched
}

/// `anyOf` on the fail-fast path.
#[inline(never)]
fn any_of(c: &Compiled, span: crate::schema::Span, instance: &Value, ctx: Ctx<'_>) -> bool {
    any_of_inline(c, span, instance, ctx)
}

/// `any_of`, inline in `union` (a lone `anyOf` saves a frame).
#[inline(always)]
fn any_of_inline(c: &Compiled, span: crate::schema::Span, instance: &Value, ctx: Ctx<'_>) -> bool {
    let children = c.branches(span);
    let pick = Dispatched::new(c, span, instance);
    match pick.indexed() {
        Some(mut branches) => {
            branches.any(|j| pick.present(j) && valid_at(c, children[j], instance, ctx))
        }
        None => children
            .iter()
            .enumerate()
            .any(|(j, child)| pick.may_match(j) && valid_at(c, *child, instance, ctx)),
    }
}

/// `if`/`then`/`else` on the fail-fast path: the branch the condition picks.
#[inline(never)]
fn if_then_else(
    c: &Compiled,
    cond: NodeId,
    then: NodeId,
    els: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
) -> bool {
    if then.is_none() && els.is_none() {
        return true;
    }
    let branch = if valid_at(c, cond, instance, ctx) {
        then
    } else {
        els
    };
    branch.is_none() || valid_at(c, branch, instance, ctx)
}

/// `allOf` on the fail-fast path.
#[inline(never)]
fn all_of(c: &Compiled, span: crate::schema::Span, instance: &Value, ctx: Ctx<'_>) -> bool {
    let children = c.branches(span);
    if let Some(chain) = c.if_chain(span)
        && let Value::Object(o) = instance
    {
        return if_chain(c, children, chain, o, instance, ctx);
    }
    children
        .iter()
        .all(|child| valid_at(c, *child, instance, ctx))
}

/// An `allOf` with a chain of conditions on one property (see `IfChain`), for an object:
/// with that property, each arm's condition holds exactly when its value is one of the
/// arm's literals (the property's other keywords, none, and `required` of it, met);
/// without, the branches are evaluated as they are.
#[inline(never)]
fn if_chain(
    c: &Compiled,
    children: &[NodeId],
    chain: &crate::schema::IfChain,
    o: &Map<String, Value>,
    instance: &Value,
    ctx: Ctx<'_>,
) -> bool {
    let Some(value) = json::get_key(o, chain.key.as_ref()) else {
        return children
            .iter()
            .all(|child| valid_at(c, *child, instance, ctx));
    };
    // (One loop per kind of value, its comparison inline.)
    match value {
        Value::String(s) => if_chain_arms(
            c,
            children,
            chain,
            instance,
            ctx,
            |v| matches!(v, Value::String(t) if crate::names::same(t, s)),
        ),
        Value::Number(x) => if_chain_arms(
            c,
            children,
            chain,
            instance,
            ctx,
            |v| matches!(v, Value::Number(y) if json::num_eq(x, y)),
        ),
        _ => if_chain_arms(c, children, chain, instance, ctx, |v| {
            std::mem::discriminant(v) == std::mem::discriminant(value) && json::equal(v, value)
        }),
    }
}

/// `if_chain`'s walk of the branches, `is` telling whether a literal is the value.
#[inline(always)]
fn if_chain_arms(
    c: &Compiled,
    children: &[NodeId],
    chain: &crate::schema::IfChain,
    instance: &Value,
    ctx: Ctx<'_>,
    is: impl Fn(&Value) -> bool,
) -> bool {
    let mut arms = chain.arms.iter().peekable();
    for (j, &child) in children.iter().enumerate() {
        let next = match arms.next_if(|arm| arm.branch as usize == j) {
            Some(arm) => {
                if c.values[arm.values.range()].iter().any(&is) {
                    arm.then
                } else {
                    arm.els
                }
            }
            None => child,
        };
        if !next.is_none() && !valid_at(c, next, instance, ctx) {
            return false;
        }
    }
    true
}

/// `items` (from index `skip`) on the fail-fast path of the general keyword loop (out of
/// line: inlined, its table reads were hoisted into every node's loop).
#[inline(never)]
fn items_from<C: Collector>(
    c: &Compiled,
    child: NodeId,
    skip: u32,
    items: &[Value],
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let items = items.get(skip as usize..).unwrap_or_default();
    // (One look past a forward for all the items.)
    let child = c.fail_fast_target(child);
    let of = c.node(child);
    if of.body().is_empty() {
        // Items of a type only (`{"type": "number"}`): one test each.
        items.iter().all(|item| admits(of.types, item))
    } else if of.shape == Shape::TypedArray {
        items
            .iter()
            .all(|item| admits(of.types, item) && typed_array_inline(c, child, item))
    } else {
        let marker = 0u8;
        if C::FAIL_FAST
            && of.shape == Shape::PlainObject
            && !enters_resource(c, of, &ctx)
            && (&raw const marker as usize) >= ctx.stack_limit
        {
            // (As in `items_array`.)
            return items
                .iter()
                .all(|item| admits(of.types, item) && plain_object(c, child, item, ctx, col));
        }
        items.iter().all(|item| eval(c, child, item, ctx, col))
    }
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

#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn eval_keyword<C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    kw: &Keyword,
    instance: &Value,
    ctx: &Ctx<'_>,
    col: &mut C,
) -> bool {
    // By reference: copying the keyword and context into every call cost more than the
    // keyword itself for the cheap ones.
    let (kw, ctx) = (*kw, *ctx);
    match kw {
        Keyword::Properties(span) => match instance {
            Value::Object(o) => properties(c, span, o, ctx, col),
            _ => true,
        },
        Keyword::PatternProperties(span) => match instance {
            Value::Object(o) => {
                let mut ok = true;
                for (key, value) in o {
                    for &(p, child) in &c.pattern_properties[span.range()] {
                        match c.patterns[p as usize].find_name(key, ctx.budget) {
                            MatchOutcome::NoMatch => continue,
                            MatchOutcome::Match => {
                                check!(ok, col, eval_at!(c, child, value, ctx, Seg::Key(key), col));
                            }
                            MatchOutcome::BudgetExceeded => {
                                ok = false;
                                if C::FAIL_FAST {
                                    return false;
                                }
                                let pattern = c.pattern_sources[p as usize].clone();
                                col.error(
                                    c,
                                    ctx,
                                    node,
                                    k,
                                    Some(Seg::Key(key)),
                                    ErrorKind::PatternBudgetExceeded { pattern },
                                    Vec::new(),
                                );
                            }
                        }
                    }
                }
                ok
            }
            _ => true,
        },
        Keyword::AdditionalProperties(i) => match instance {
            Value::Object(o) => additional_properties(c, node, k, i, o, ctx, col),
            _ => true,
        },
        Keyword::PropertyNames(child) => match instance {
            Value::Object(o) => {
                let mut ok = true;
                for key in o.keys() {
                    if !name_valid(c, child, key, ctx) {
                        ok = false;
                        if C::FAIL_FAST {
                            return false;
                        }
                        let mut branch = col.branch();
                        let path = ctx.path.push(Seg::Key(key));
                        eval_key(
                            c,
                            child,
                            key,
                            Ctx(&Frame {
                                path: &path,
                                ..*ctx
                            }),
                            &mut branch,
                        );
                        let causes = branch.take();
                        col.error(
                            c,
                            ctx,
                            node,
                            k,
                            Some(Seg::Key(key)),
                            ErrorKind::PropertyNames,
                            causes,
                        );
                        if col.full() {
                            return false;
                        }
                    }
                }
                ok
            }
            _ => true,
        },
        Keyword::DependentSchemas(span) => match instance {
            Value::Object(o) => {
                let mut ok = true;
                for (name, child) in &c.dependent_schemas[span.range()] {
                    if json::has_key(o, name.as_ref()) && !eval(c, *child, instance, ctx, col) {
                        ok = false;
                        if C::FAIL_FAST || col.full() {
                            return false;
                        }
                    }
                }
                ok
            }
            _ => true,
        },
        Keyword::PrefixItems(span) => match instance {
            Value::Array(items) => {
                let mut ok = true;
                for (i, (child, item)) in c.node_list(span).iter().zip(items).enumerate() {
                    check!(ok, col, eval_at!(c, *child, item, ctx, Seg::Index(i), col));
                }
                ok
            }
            _ => true,
        },
        Keyword::Items { node: child, skip } => match instance {
            Value::Array(items) => {
                let mut ok = true;
                let forbidden = c.keyword_names[k] == "additionalItems" && c.is_false_schema(child);
                for (i, item) in items.iter().enumerate().skip(skip as usize) {
                    let item_ok = if forbidden {
                        if !C::FAIL_FAST {
                            col.error(
                                c,
                                ctx,
                                node,
                                k,
                                Some(Seg::Index(i)),
                                ErrorKind::AdditionalItems,
                                Vec::new(),
                            );
                        }
                        false
                    } else {
                        eval_at!(c, child, item, ctx, Seg::Index(i), col)
                    };
                    check!(ok, col, item_ok);
                }
                ok
            }
            _ => true,
        },
        Keyword::Contains(i) => match instance {
            // (Fail-fast: counted until the answer is known, no location or annotation.)
            Value::Array(items) if C::FAIL_FAST => contains_count(c, i, items, ctx),
            Value::Array(items) => {
                let spec = c.contains[i as usize];
                let mut count = 0u64;
                let mut matched: Vec<Value> = Vec::new();
                for (idx, item) in items.iter().enumerate() {
                    let path = ctx.path.push(Seg::Index(idx));
                    if C::ANNOTATE {
                        let mut branch = col.branch();
                        if eval(
                            c,
                            spec.node,
                            item,
                            Ctx(&Frame {
                                path: &path,
                                ..*ctx
                            }),
                            &mut branch,
                        ) {
                            col.absorb(branch);
                            count += 1;
                            matched.push(Value::from(idx));
                        }
                        continue;
                    }
                    if valid_at(
                        c,
                        spec.node,
                        item,
                        Ctx(&Frame {
                            path: &path,
                            ..*ctx
                        }),
                    ) {
                        count += 1;
                        if spec.max.is_none_or(|max| count > max) && count >= spec.min {
                            break;
                        }
                    }
                }
                if C::ANNOTATE {
                    col.annotate(c, ctx, node, "contains", Value::Array(matched));
                }
                if count < spec.min {
                    let kind = if spec.min == 1 && c.keyword_names[k] == "contains" {
                        ErrorKind::Contains
                    } else {
                        ErrorKind::MinContains { limit: spec.min }
                    };
                    return fail!(col, c, ctx, node, k, kind);
                }
                match spec.max {
                    Some(max) if count > max => {
                        fail!(col, c, ctx, node, k, ErrorKind::MaxContains { limit: max })
                    }
                    _ => true,
                }
            }
            _ => true,
        },
        Keyword::AllOf(span) => {
            let mut ok = true;
            for child in c.node_list(span) {
                check!(ok, col, eval(c, *child, instance, ctx, col));
            }
            ok
        }
        Keyword::AnyOf(span) if C::ANNOTATE => {
            let children = c.node_list(span);
            let (matched, causes) = annotate_branches(c, children, instance, ctx, col);
            let kind = ErrorKind::AnyOf {
                branches: children.len(),
            };
            matched > 0 || fail!(col, c, ctx, node, k, kind, causes)
        }
        Keyword::OneOf(span) if C::ANNOTATE => {
            let children = c.node_list(span);
            let (matched, causes) = annotate_branches(c, children, instance, ctx, col);
            let causes = if matched == 0 { causes } else { Vec::new() };
            let kind = ErrorKind::OneOf {
                branches: children.len(),
                matched,
            };
            matched == 1 || fail!(col, c, ctx, node, k, kind, causes)
        }
        Keyword::If { cond, then, els } if C::ANNOTATE => {
            let mut branch = col.branch();
            let next = if eval(c, cond, instance, ctx, &mut branch) {
                col.absorb(branch);
                then
            } else {
                els
            };
            next.is_none() || eval(c, next, instance, ctx, col)
        }
        Keyword::AnyOf(span) => {
            if any_of(c, span, instance, ctx) {
                return true;
            }
            let children = c.node_list(span);
            let kind = ErrorKind::AnyOf {
                branches: children.len(),
            };
            fail!(
                col,
                c,
                ctx,
                node,
                k,
                kind,
                branch_errors(c, children, instance, ctx, col)
            )
        }
        Keyword::OneOf(span) => {
            let matched = one_of_matches(c, span, instance, ctx);
            if matched == 1 {
                return true;
            }
            let children = c.node_list(span);
            let kind = ErrorKind::OneOf {
                branches: children.len(),
                matched,
            };
            let causes = |col: &C| match matched {
                0 => branch_errors(c, children, instance, ctx, col),
                _ => Vec::new(),
            };
            fail!(col, c, ctx, node, k, kind, causes(col))
        }
        Keyword::Not(child) => {
            !valid_at(c, child, instance, ctx) || fail!(col, c, ctx, node, k, ErrorKind::Not)
        }
        Keyword::If { cond, then, els } => {
            if then.is_none() && els.is_none() {
                return true;
            }
            let branch = if valid_at(c, cond, instance, ctx) {
                then
            } else {
                els
            };
            branch.is_none() || eval(c, branch, instance, ctx, col)
        }
        Keyword::Ref(target) if C::FAIL_FAST => eval(c, target, instance, ctx, col),
        Keyword::Ref(target) => {
            let hop = Hop {
                parent: Some(ctx.hop),
                via: node,
                via_keyword: k,
                entry: target,
            };
            eval(c, target, instance, Ctx(&Frame { hop: &hop, ..*ctx }), col)
        }
        Keyword::DynamicRef(i) => {
            let target = dynamic_target(c, i, ctx.scope);
            let hop = Hop {
                parent: Some(ctx.hop),
                via: node,
                via_keyword: k,
                entry: target,
            };
            eval(c, target, instance, Ctx(&Frame { hop: &hop, ..*ctx }), col)
        }
        Keyword::UnevaluatedProperties(child) => match instance {
            Value::Object(o) => unevaluated::properties(c, node, k, child, instance, o, ctx, col),
            _ => true,
        },
        Keyword::UnevaluatedItems(child) => match instance {
            Value::Array(items) => unevaluated::items(c, node, k, child, instance, items, ctx, col),
            _ => true,
        },
        assertion_keywords!() => assertion(c, node, k, kw, instance, ctx, col),
    }
}

/// Whether `instance` has a type in `set` (`"number"` admits integers; an integer-only set
/// admits `1.0`).
#[inline(always)]
pub(crate) fn admits(set: crate::json::TypeSet, instance: &Value) -> bool {
    // The type's bit comes from a table indexed by the instance's tag (a jump on the tag
    // mispredicts on mixed arrays), so the common case is a load and a test.
    let tag = json::kind_index(instance);
    set.contains(json::INSTANCE_KINDS[tag])
        || (tag == 2
            && set.contains(JsonType::Integer)
            && matches!(instance, Value::Number(n) if json::is_integer(n)))
}

/// A node of the typed-array shape (see `Shape::TypedArray`), fail-fast: no context, no
/// dispatch through the general keyword loop.
#[inline(never)]
fn typed_array(c: &Compiled, node: NodeId, instance: &Value) -> bool {
    typed_array_inline(c, node, instance)
}

/// [`typed_array`], inline: for the items of an array of typed arrays (the rings and
/// lines of GeoJSON), where a call per item costs as much as the check.
#[inline(always)]
fn typed_array_inline(c: &Compiled, node: NodeId, instance: &Value) -> bool {
    let Value::Array(items) = instance else {
        return true;
    };
    let spec = c.array_spec(node);
    // (Every node of the shape has its spec; without one nothing is checked but by the
    // keywords themselves.)
    let Some(spec) = spec else {
        return valid_at_general(c, node, instance);
    };
    let len = items.len() as u64;
    if len < spec.min || len > spec.max {
        return false;
    }
    if spec.kind != u8::MAX {
        // (One kind of item, strings or numbers most often: a compare of tags.)
        return items
            .iter()
            .all(|item| json::kind_index(item) as u8 == spec.kind);
    }
    all_admitted(spec.items, items)
}

/// Whether every item has a type in `set` (out of line: the integer test's registers
/// would make every typed array's frame larger).
#[inline(never)]
fn all_admitted(set: crate::json::TypeSet, items: &[Value]) -> bool {
    items.iter().all(|item| admits(set, item))
}

/// `node` evaluated by the general keyword loop, from an empty context.
#[cold]
fn valid_at_general(c: &Compiled, node: NodeId, instance: &Value) -> bool {
    let path = location::Path::root();
    let scope = Scope::root(c.node(node).resource);
    let hop = Hop::root(node);
    let budget = Budget::new(c, instance);
    let frame = Frame {
        path: &path,
        scope: &scope,
        hop: &hop,
        stack_limit: stack_limit(),
        budget: &budget,
    };
    eval_node(c, node, instance, Ctx(&frame), &mut FailFast) && !budget.exceeded()
}

/// A node of the plain-object shape (see `Shape::PlainObject`), fail-fast: one walk over
/// the instance's keys, outside the general keyword loop.
#[inline(never)]
fn plain_object<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Value::Object(o) = instance else {
        return true;
    };
    let spec = c.object_spec(node);
    // (Every node of the shape has its spec; without one, the general loop decides.)
    let Some(spec) = spec else {
        return eval_node(c, node, instance, ctx, col);
    };
    let len = o.len() as u64;
    if len < spec.min || len > spec.max {
        return false;
    }
    if spec.required.len() > 0
        && !c.strings[spec.required.range()]
            .iter()
            .all(|name| json::has_key(o, name.as_ref()))
    {
        return false;
    }
    match spec.walk {
        ObjectWalk::Keys => {}
        // (`{"type": "object", "additionalProperties": {}}`)
        ObjectWalk::Nothing => return true,
        ObjectWalk::Values => return dictionary(c, spec.others, o, ctx, col),
        ObjectWalk::Patterned { additional } => {
            return patterned_walk(c, additional, spec.names(c), o, ctx);
        }
        ObjectWalk::Named => return named_walk(c, spec, o, ctx, col),
    }
    keys_walk(c, spec, o, ctx, col)
}

/// The walk `ObjectWalk::Keys`: each key looked up in the spec's names, its value checked
/// against the name's schema or the other keys'.
#[inline(always)]
fn keys_walk<C: Collector>(
    c: &Compiled,
    spec: &crate::schema::ObjectSpec,
    o: &Map<String, Value>,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let others = spec.others;
    let table = spec.names(c);
    let mut met = 0;
    for (key, value) in o {
        // (One call site of the inlined `eval` for both kinds of key.)
        let child = match table.find(c, key) {
            Some(i) => {
                let (child, required) = c.property_walk[i];
                met += required;
                child
            }
            None => others,
        };
        if !child.is_none() && !eval(c, child, value, ctx, col) {
            return false;
        }
    }
    met == spec.met
}

/// The walk `ObjectWalk::Named`: every key against `propertyNames`, then the keys walk;
/// with no declared name (a dictionary), each key's name and value in one pass.
#[inline(never)]
fn named_walk<C: Collector>(
    c: &Compiled,
    spec: &crate::schema::ObjectSpec,
    o: &Map<String, Value>,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let key_names = spec.key_names;
    if spec.names.len() == 0 {
        let others = spec.others;
        return o.iter().all(|(key, value)| {
            name_valid(c, key_names, key, ctx)
                && (others.is_none() || eval(c, others, value, ctx, col))
        });
    }
    o.keys().all(|key| name_valid(c, key_names, key, ctx)) && keys_walk(c, spec, o, ctx, col)
}

/// A node of the property-test shape (see `Shape::PropertyTest`), fail-fast: the one
/// property looked up and compared with the literals, its kind of value decided once.
#[inline(never)]
fn property_test<C: Collector>(
    c: &Compiled,
    node: NodeId,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Value::Object(o) = instance else {
        return true;
    };
    let Some(test) = c
        .spec_of
        .get(node.index())
        .and_then(|&i| c.property_tests.get(i as usize))
    else {
        return eval_node(c, node, instance, ctx, col);
    };
    let Some(value) = json::get(o, &test.name) else {
        return !test.required;
    };
    let literals = c.values.get(test.values.range()).unwrap_or_default();
    match value {
        Value::String(s) => literals
            .iter()
            .any(|v| matches!(v, Value::String(t) if crate::names::same(t, s))),
        _ => literals.iter().any(|v| json::equal(v, value)),
    }
}

/// The values of an object with no declared name, each against `others` (see
/// `ObjectWalk::Values`): no key is looked at. (Chosen at compile time: a check of the
/// table inside `plain_object` cost every object 1-4%.)
#[inline(never)]
fn dictionary<C: Collector>(
    c: &Compiled,
    others: NodeId,
    o: &Map<String, Value>,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    o.values().all(|value| eval(c, others, value, ctx, col))
}

/// Up to this many names, `properties` keeps the deferred values by position and goes
/// through the span in order; more, by rank (see `properties_by_rank`).
const BY_POSITION: usize = 8;

/// `properties` of many names on the fail-fast path: the leaves as the instance's keys
/// come, then the others found, sorted by their rank in the evaluation order (a few keys
/// cost a few steps, however many names the schema declares; past `KEPT` found, the
/// declared names are gone through in order instead).
#[inline(never)]
fn properties_by_rank<C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    o: &Map<String, Value>,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    const KEPT: usize = 16;
    // (Inline storage, never spilled: pushes stop at `KEPT`.)
    let mut kept: smallvec::SmallVec<[(u32, NodeId, &Value); KEPT]> = smallvec::SmallVec::new();
    let mut found = 0;
    let defer = |i: usize, child, value| {
        if found < KEPT {
            kept.push((c.property_rank[i], child, value));
        }
        found += 1;
    };
    if !leaves_first(c, span, o, ctx, col, defer) {
        return false;
    }
    if found > KEPT {
        return deferred_in_order(c, span, ctx, col, |i| o.get(c.properties[i].0.as_ref()));
    }
    // (Insertion sort: a handful of entries.)
    for j in 1..kept.len() {
        let mut k = j;
        while k > 0 && kept[k - 1].0 > kept[k].0 {
            kept.swap(k - 1, k);
            k -= 1;
        }
    }
    kept.iter()
        .all(|&(_, child, value)| eval(c, child, value, ctx, col))
}

/// The first pass of `properties` on the fail-fast path: each key found with a schema of
/// assertions only is checked as the instance's keys come; the others are handed to
/// `defer` (index in `properties`, schema, value). False when a value fails or a required
/// name counted by the walk is missing.
#[inline(always)]
fn leaves_first<'v, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    o: &'v Map<String, Value>,
    ctx: Ctx<'_>,
    col: &mut C,
    mut defer: impl FnMut(usize, NodeId, &'v Value),
) -> bool {
    let mut met = 0;
    let names = c.names_of(span);
    for (key, value) in o {
        if let Some(i) = names.find(c, key) {
            let (child, required) = c.property_walk[i];
            met += required;
            if c.node(child).leaf {
                if !eval(c, child, value, ctx, col) {
                    return false;
                }
            } else {
                defer(i, child, value);
            }
        }
    }
    met == c.walk_required(span)
}

/// The second pass of `properties` on the fail-fast path: the schemas that are not
/// assertions only, in the span's evaluation order, against the values `value_of` gives.
#[inline(always)]
fn deferred_in_order<'v, C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    ctx: Ctx<'_>,
    col: &mut C,
    value_of: impl Fn(usize) -> Option<&'v Value>,
) -> bool {
    for &i in &c.property_order[span.range()] {
        let child = c.property_walk[i as usize].0;
        if c.node(child).leaf {
            continue;
        }
        if let Some(value) = value_of(i as usize)
            && !eval(c, child, value, ctx, col)
        {
            return false;
        }
    }
    true
}

/// `additionalProperties` with `patternProperties` (and `properties`) on the fail-fast
/// path: each key against its declared schema, then every pattern that matches it, else
/// the other keys' schema; the required names met are counted on the way.
#[inline(never)]
fn patterned_walk(
    c: &Compiled,
    i: u32,
    names: crate::schema::Names<'_>,
    o: &Map<String, Value>,
    ctx: Ctx<'_>,
) -> bool {
    // (A step where one value may meet several subschemas; see `Budget`.)
    if !ctx.budget.step() {
        return false;
    }
    let a = c.additional[i as usize];
    let patterns = &c.pattern_properties[a.patterns.range()];
    let forbidden = c.is_false_schema(a.node);
    let mut met = 0;
    for (key, value) in o {
        let mut matched = false;
        if let Some(j) = names.find(c, key) {
            matched = true;
            let (child, required) = c.property_walk[j];
            met += required;
            if !eval(c, child, value, ctx, &mut FailFast) {
                return false;
            }
            if c.property_patterned.get(j) == Some(&false) {
                // (No pattern can match this declared name.)
                continue;
            }
        }
        for &(p, child) in patterns {
            match c.patterns[p as usize].find_name(key, ctx.budget) {
                MatchOutcome::NoMatch => {}
                MatchOutcome::Match => {
                    matched = true;
                    if !valid_at(c, child, value, ctx) {
                        return false;
                    }
                }
                MatchOutcome::BudgetExceeded => return false,
            }
        }
        if !matched && (forbidden || !valid_at(c, a.node, value, ctx)) {
            return false;
        }
    }
    met == c.walk_required(a.properties)
}

/// `required` on the fail-fast path: true when the sibling properties walk counts the
/// names instead, else each name looked up.
#[inline(never)]
fn required_met(c: &Compiled, span: crate::schema::Span, o: &Map<String, Value>) -> bool {
    c.required_walked.get(span.start as usize) == Some(&true)
        || c.strings[span.range()]
            .iter()
            .all(|name| json::has_key(o, name.as_ref()))
}

/// A node of assertions only with one keyword, the commonest once `type` is hoisted
/// (`{"type": "string", "enum": [..]}`), fail-fast: without `eval_leaf`'s loop, so with
/// a small frame.
#[inline(never)]
fn leaf_one<C: Collector>(
    c: &Compiled,
    node: NodeId,
    at: usize,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let Some(&kw) = c.keywords.get(at) else {
        return false;
    };
    match (kw, instance) {
        (Keyword::Enum(span), Value::String(s)) => c.enum_has_string(span, s),
        (Keyword::Const(i), Value::String(s)) => {
            matches!(&c.values[i as usize], Value::String(t) if crate::names::same(s, t))
        }
        // (Other scalars inline too: `{"const": true}`, `{"const": 2}`.)
        (Keyword::Const(i), Value::Bool(b)) => {
            matches!(&c.values[i as usize], Value::Bool(t) if t == b)
        }
        (Keyword::Const(i), Value::Number(x)) => {
            matches!(&c.values[i as usize], Value::Number(y) if json::num_eq(x, y))
        }
        // (As in `eval_leaf`: the byte length decides most cases.)
        (Keyword::MaxLength(max), Value::String(s)) => {
            s.len() as u64 <= max || code_points(s) <= max
        }
        (Keyword::MinLength(min), Value::String(s)) => {
            s.len() as u64 >= min.saturating_mul(4)
                || (s.len() as u64 >= min && code_points(s) >= min)
        }
        _ => assertion(c, node, at, kw, instance, ctx, col),
    }
}

/// The keywords `body` of a node of assertions only, fail-fast.
#[inline(never)]
fn eval_leaf<C: Collector>(
    c: &Compiled,
    node: NodeId,
    body: std::ops::Range<usize>,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let start = body.start;
    // A string's two length bounds, the commonest pair of string assertions, in one go:
    // the byte length decides most strings, and the code points are counted at most once.
    // (Only a pass is decided here: a failure goes through the loop, which reports it.)
    if let (
        Value::String(s),
        [Keyword::MinLength(min), Keyword::MaxLength(max)]
        | [Keyword::MaxLength(max), Keyword::MinLength(min)],
    ) = (instance, &c.keywords[body.clone()])
    {
        let len = s.len() as u64;
        if len <= *max && len >= min.saturating_mul(4) {
            return true;
        }
        if len >= *min {
            let n = code_points(s);
            if n >= *min && n <= *max {
                return true;
            }
        }
    }
    for (offset, kw) in c.keywords[body].iter().enumerate() {
        // The cheapest keywords of string and array leaves inline; the rest by call.
        let ok = match (*kw, instance) {
            (Keyword::Enum(span), Value::String(s)) => {
                if span.len() <= ENUM_SCAN_LIMIT {
                    c.values[span.range()]
                        .iter()
                        .any(|v| matches!(v, Value::String(t) if crate::names::same(s, t)))
                } else {
                    // (A long one is looked up in its table, by a call.)
                    c.long_enum_has_string(span, s)
                }
            }
            (Keyword::Const(i), Value::String(s)) => {
                matches!(&c.values[i as usize], Value::String(t) if crate::names::same(s, t))
            }
            // A string has no more code points than bytes, and at least a quarter: the
            // byte length decides most cases; counting is a small call of its own.
            (Keyword::MaxLength(max), Value::String(s)) => {
                s.len() as u64 <= max || code_points(s) <= max
            }
            (Keyword::MinLength(min), Value::String(s)) => {
                s.len() as u64 >= min.saturating_mul(4)
                    || (s.len() as u64 >= min && code_points(s) >= min)
            }
            (Keyword::MinItems(min), Value::Array(a)) => a.len() as u64 >= min,
            (Keyword::MaxItems(max), Value::Array(a)) => a.len() as u64 <= max,
            (Keyword::MinProperties(min), Value::Object(o)) => o.len() as u64 >= min,
            (Keyword::MaxProperties(max), Value::Object(o)) => o.len() as u64 <= max,
            // A number against a bound: one comparison, mostly (see `Limit::admits`).
            (
                Keyword::Minimum(i)
                | Keyword::Maximum(i)
                | Keyword::ExclusiveMinimum(i)
                | Keyword::ExclusiveMaximum(i),
                Value::Number(x),
            ) => match c.limits.get(i as usize).and_then(|l| l.admits(*kw, x)) {
                Some(ok) => ok,
                None => assertion(c, node, start + offset, *kw, instance, ctx, col),
            },
            _ => assertion(c, node, start + offset, *kw, instance, ctx, col),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// The code points of `s` (kept out of line: it is rarely needed).
#[inline(never)]
fn code_points(s: &str) -> u64 {
    json::char_count(s) as u64
}

/// Whether the number `x` meets `kw`, one of the four bounds, of limit `i`. (Kept off the
/// leaves' inline paths: there it made every call dearer, `leaf_one`'s by its registers,
/// +0.8% on cspell, which has no bound, and in the leaf loop the instance's float
/// conversions were hoisted out of the loop and run for instances of every type, +35% on
/// `{"minProperties": 1, "maxProperties": 3}`.)
#[inline(always)]
fn within_bound(c: &Compiled, kw: Keyword, i: u32, x: &serde_json::Number) -> bool {
    let Some(limit) = c.limits.get(i as usize) else {
        return false;
    };
    let ord = json::cmp_num(json::Num::of(x), limit.num);
    match kw {
        Keyword::Maximum(_) => ord != Ordering::Greater,
        Keyword::ExclusiveMaximum(_) => ord == Ordering::Less,
        Keyword::Minimum(_) => ord != Ordering::Less,
        Keyword::ExclusiveMinimum(_) => ord == Ordering::Greater,
        // (Asked of the bounds only.)
        other_assertion_keywords!() | applicator_keywords!() => false,
    }
}

/// The assertion keywords: they look at the instance itself, never at a subschema.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn assertion<C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    kw: Keyword,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    match kw {
        Keyword::False => fail!(col, c, ctx, node, k, ErrorKind::FalseSchema),
        Keyword::Type(set) => {
            let admitted = match instance {
                Value::Null => set.contains(JsonType::Null),
                Value::Bool(_) => set.contains(JsonType::Boolean),
                Value::String(_) => set.contains(JsonType::String),
                Value::Array(_) => set.contains(JsonType::Array),
                Value::Object(_) => set.contains(JsonType::Object),
                // "number" admits every number; only "integer" alone needs the finer check.
                Value::Number(_) => set.contains(JsonType::Number),
            };
            if admitted {
                return true;
            }
            let mut found = JsonType::of(instance);
            if found == JsonType::Integer
                && set.is_strict()
                && let Value::Number(n) = instance
                && n.is_f64()
                // serde_json keeps integers beyond u64 only as floats: those were written as
                // integers, so only smaller floats (`1.0`) lose their integer type.
                && n.as_f64().is_some_and(|f| f.abs() < 18446744073709551616.0)
            {
                found = JsonType::Number;
            }
            set.admits(found)
                || fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::Type {
                        expected: set,
                        found
                    }
                )
        }
        Keyword::Const(i) => {
            json::equal(instance, &c.values[i as usize])
                || fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::const_of(&c.values[i as usize])
                )
        }
        Keyword::Enum(span) => {
            let values = &c.values[span.range()];
            let found = match instance {
                // The commonest enum: strings, compared inline (no call per value).
                Value::String(s) => c.enum_has_string(span, s),
                // Numbers against the number values only, with no walk per value; a long
                // enum's in its table.
                Value::Number(x) if span.len() > ENUM_SCAN_LIMIT => c.long_enum_has_number(span, x),
                Value::Number(x) => values
                    .iter()
                    .any(|v| matches!(v, Value::Number(y) if json::num_eq(x, y))),
                _ if span.len() > ENUM_SCAN_LIMIT => c.long_enum_has_value(span, instance),
                // Others against values of their kind only (no call per value of another).
                _ => values.iter().any(|v| {
                    std::mem::discriminant(v) == std::mem::discriminant(instance)
                        && json::equal(instance, v)
                }),
            };
            found || fail!(col, c, ctx, node, k, ErrorKind::enum_of(values))
        }
        Keyword::MultipleOf(i) => match instance {
            Value::Number(x) => {
                let m = &c.limits[i as usize];
                json::is_multiple_of_decimal(x, &m.number, m.decimal)
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::MultipleOf {
                            multiple_of: m.number.clone()
                        }
                    )
            }
            _ => true,
        },
        Keyword::Maximum(i)
        | Keyword::ExclusiveMaximum(i)
        | Keyword::Minimum(i)
        | Keyword::ExclusiveMinimum(i) => {
            let Value::Number(x) = instance else {
                return true;
            };
            let decided = c.limits.get(i as usize).and_then(|l| l.admits(kw, x));
            decided.unwrap_or_else(|| within_bound(c, kw, i, x))
                || fail!(col, c, ctx, node, k, {
                    // (Built only when an error is collected.)
                    let limit = c.limits[i as usize].number.clone();
                    match kw {
                        Keyword::Maximum(_) => ErrorKind::Maximum { limit },
                        Keyword::ExclusiveMaximum(_) => ErrorKind::ExclusiveMaximum { limit },
                        Keyword::Minimum(_) => ErrorKind::Minimum { limit },
                        Keyword::ExclusiveMinimum(_)
                        | other_assertion_keywords!()
                        | applicator_keywords!() => ErrorKind::ExclusiveMinimum { limit },
                    }
                })
        }
        Keyword::MaxLength(max) => match instance {
            // A string has no more code points than bytes.
            Value::String(s) => {
                s.len() as u64 <= max
                    || json::char_count(s) as u64 <= max
                    || fail!(col, c, ctx, node, k, ErrorKind::MaxLength { limit: max })
            }
            _ => true,
        },
        Keyword::MinLength(min) => match instance {
            // At most four bytes per code point: a long enough string needs no count.
            Value::String(s) => {
                s.len() as u64 >= min.saturating_mul(4)
                    || (s.len() as u64 >= min && json::char_count(s) as u64 >= min)
                    || fail!(col, c, ctx, node, k, ErrorKind::MinLength { limit: min })
            }
            _ => true,
        },
        Keyword::Pattern(i) => match instance {
            Value::String(s) => match c.patterns[i as usize].find_in(s, ctx.budget) {
                MatchOutcome::Match => true,
                MatchOutcome::NoMatch => {
                    fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::Pattern {
                            pattern: c.pattern_sources[i as usize].clone()
                        }
                    )
                }
                MatchOutcome::BudgetExceeded => fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::PatternBudgetExceeded {
                        pattern: c.pattern_sources[i as usize].clone()
                    }
                ),
            },
            _ => true,
        },
        Keyword::Format(i) => match instance {
            Value::String(s) => {
                let f = &c.formats[i as usize];
                let ok = match f.custom {
                    Some(check) => check(s),
                    None => crate::format::check(&f.name, s).unwrap_or(true),
                };
                ok || !f.assert
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::Format {
                            format: f.name.clone()
                        }
                    )
            }
            _ => true,
        },
        Keyword::Content(i) => match instance {
            Value::String(s) => content(c, i, s, ctx, node, k, col),
            _ => true,
        },
        Keyword::MaxItems(max) => match instance {
            Value::Array(a) => {
                a.len() as u64 <= max
                    || fail!(col, c, ctx, node, k, ErrorKind::MaxItems { limit: max })
            }
            _ => true,
        },
        Keyword::MinItems(min) => match instance {
            Value::Array(a) => {
                a.len() as u64 >= min
                    || fail!(col, c, ctx, node, k, ErrorKind::MinItems { limit: min })
            }
            _ => true,
        },
        Keyword::UniqueItems => match instance {
            Value::Array(a) => match duplicate(a) {
                None => true,
                Some((first, second)) => fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::UniqueItems { first, second }
                ),
            },
            _ => true,
        },
        Keyword::MaxProperties(max) => match instance {
            Value::Object(o) => {
                o.len() as u64 <= max
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::MaxProperties { limit: max }
                    )
            }
            _ => true,
        },
        Keyword::MinProperties(min) => match instance {
            Value::Object(o) => {
                o.len() as u64 >= min
                    || fail!(
                        col,
                        c,
                        ctx,
                        node,
                        k,
                        ErrorKind::MinProperties { limit: min }
                    )
            }
            _ => true,
        },
        Keyword::Required(span) => match instance {
            Value::Object(o) => {
                let mut ok = true;
                for name in &c.strings[span.range()] {
                    if !json::has_key(o, name.as_ref()) {
                        ok = false;
                        if C::FAIL_FAST {
                            return false;
                        }
                        col.error(
                            c,
                            ctx,
                            node,
                            k,
                            None,
                            ErrorKind::Required {
                                property: name.clone(),
                            },
                            Vec::new(),
                        );
                    }
                }
                ok
            }
            _ => true,
        },
        Keyword::DependentRequired(span) => match instance {
            Value::Object(o) => {
                let mut ok = true;
                for (trigger, names) in &c.dependent_required[span.range()] {
                    if !json::has_key(o, trigger.as_ref()) {
                        continue;
                    }
                    for name in &c.strings[names.range()] {
                        if !json::has_key(o, name.as_ref()) {
                            ok = false;
                            if C::FAIL_FAST {
                                return false;
                            }
                            col.error(
                                c,
                                ctx,
                                node,
                                k,
                                None,
                                ErrorKind::DependentRequired {
                                    property: trigger.clone(),
                                    missing: name.clone(),
                                },
                                Vec::new(),
                            );
                        }
                    }
                }
                ok
            }
            _ => true,
        },
        // Never asked: `eval_node` sends these to `eval_keyword` (which lists the
        // assertions it hands over here), and nodes of assertions only have none. (Handing
        // them to `eval_keyword` from here cost krakend 1.3% more instructions: a second
        // caller changed what the compiler inlines.)
        applicator_keywords!() => {
            debug_assert!(false, "an applicator evaluated as an assertion");
            true
        }
    }
}

/// `additionalProperties` fused with its siblings: for each instance property, the
/// declared schema, the matching patterns' schemas, or else the additional schema.
#[allow(clippy::too_many_arguments)]
fn additional_properties<C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    i: u32,
    o: &Map<String, Value>,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let a = c.additional[i as usize];
    let patterns = &c.pattern_properties[a.patterns.range()];
    let forbidden = c.is_false_schema(a.node);
    let mut ok = true;
    // Required names met (the fail-fast path checks the sibling `required` this way).
    let mut met = 0;
    let names = c.names_of(a.properties);
    for (key, value) in o {
        let path = ctx.path.push(Seg::Key(key));
        // The fail-fast path keeps no location (the unused `path` is optimised away).
        let here = if C::FAIL_FAST {
            ctx
        } else {
            Ctx(&Frame {
                path: &path,
                ..*ctx
            })
        };
        let mut item_ok = true;
        let mut matched = false;
        if let Some(j) = names.find(c, key) {
            matched = true;
            met += u32::from(c.property_required[j]);
            item_ok = eval(c, c.properties[j].1, value, here, col);
        }
        for &(p, child) in patterns {
            if !item_ok && (C::FAIL_FAST || col.full()) {
                break;
            }
            match c.patterns[p as usize].find_name(key, ctx.budget) {
                MatchOutcome::NoMatch => {}
                MatchOutcome::Match => {
                    matched = true;
                    item_ok &= eval(c, child, value, here, col);
                }
                MatchOutcome::BudgetExceeded => {
                    matched = true;
                    item_ok = false;
                    if !C::FAIL_FAST {
                        let pattern = c.pattern_sources[p as usize].clone();
                        let kind = ErrorKind::PatternBudgetExceeded { pattern };
                        col.error(c, ctx, node, k, Some(Seg::Key(key)), kind, Vec::new());
                    }
                }
            }
        }
        if !matched {
            item_ok = if forbidden {
                if !C::FAIL_FAST {
                    let kind = ErrorKind::AdditionalProperties;
                    col.error(c, ctx, node, k, Some(Seg::Key(key)), kind, Vec::new());
                }
                false
            } else {
                eval(c, a.node, value, here, col)
            };
        }
        check!(ok, col, item_ok);
    }
    if C::FAIL_FAST {
        return met == c.walk_required(a.properties);
    }
    ok
}

/// `properties`: looks up each declared name in the instance.
#[inline]
fn properties<C: Collector>(
    c: &Compiled,
    span: crate::schema::Span,
    o: &Map<String, Value>,
    ctx: Ctx<'_>,
    col: &mut C,
) -> bool {
    let mut ok = true;
    if C::FAIL_FAST {
        if c.deferred_in_name_order.get(span.start as usize) == Some(&true) {
            // The instance's key order is cheap enough first: one walk, each key looked
            // up by signature.
            let mut met = 0;
            let names = c.names_of(span);
            for (key, value) in o {
                if let Some(i) = names.find(c, key) {
                    let (child, required) = c.property_walk[i];
                    met += required;
                    if !eval(c, child, value, ctx, col) {
                        return false;
                    }
                }
            }
            return met == c.walk_required(span);
        }
        // First the properties whose schemas are assertions only, walking the instance;
        // then the others, cheapest first (a `oneOf` branch fails on its cheap
        // discriminator before it walks a large sibling).
        const KEPT: usize = 16;
        if span.len() > BY_POSITION {
            return properties_by_rank(c, span, o, ctx, col);
        }
        // The deferred values of a small span are kept here (by position in the span)
        // for the second pass.
        let mut kept: [Option<&Value>; KEPT] = [None; KEPT];
        let mut deferred = false;
        let start = span.start as usize;
        let defer = |i: usize, _, value| {
            deferred = true;
            if let Some(slot) = kept.get_mut(i - start) {
                *slot = Some(value);
            }
        };
        if !leaves_first(c, span, o, ctx, col, defer) {
            return false;
        }
        return !deferred || deferred_in_order(c, span, ctx, col, |i| kept[i - start]);
    }
    if o.len() * 4 < span.len() {
        // Few keys against many declared names: walk the instance, search the names.
        let names = c.names_of(span);
        for (key, value) in o {
            if let Some(i) = names.find(c, key) {
                check!(
                    ok,
                    col,
                    eval_at!(c, c.properties[i].1, value, ctx, Seg::Key(key), col)
                );
            }
        }
        return ok;
    }
    const FOUND: usize = 16;
    if span.len() <= FOUND {
        // One walk of the instance finds the declared names by signature (no string
        // comparisons of a map lookup per name); then they are evaluated in the order.
        let mut found: [Option<(&String, &Value)>; FOUND] = [None; FOUND];
        let names = c.names_of(span);
        for (key, value) in o {
            if let Some(i) = names.find(c, key)
                && let Some(slot) = found.get_mut(i - span.start as usize)
            {
                *slot = Some((key, value));
            }
        }
        for &i in &c.property_order[span.range()] {
            if let Some(Some((key, value))) = found.get(i as usize - span.start as usize) {
                let child = c.properties[i as usize].1;
                check!(ok, col, eval_at!(c, child, *value, ctx, Seg::Key(key), col));
            }
        }
        return ok;
    }
    for &i in &c.property_order[span.range()] {
        let (name, child) = &c.properties[i as usize];
        if let Some((key, value)) = o.get_key_value(name.as_ref()) {
            check!(ok, col, eval_at!(c, *child, value, ctx, Seg::Key(key), col));
        }
    }
    ok
}

/// The annotation an applicator produces once it succeeded (the `evaluate` path only).
///
/// Names of properties found only in the instance are data, so the keywords that apply to
/// them (`patternProperties`, `additionalProperties`, `unevaluatedProperties`) annotate
/// `true` rather than listing them: output stays redaction-safe.
fn applicator_annotation<C: Collector>(
    c: &Compiled,
    node: NodeId,
    k: usize,
    kw: Keyword,
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) {
    // The keywords whose success annotates, here (for the instances below); `contains`
    // annotates as it counts, the others not at all.
    match kw {
        Keyword::Properties(_)
        | Keyword::PatternProperties(_)
        | Keyword::AdditionalProperties(_)
        | Keyword::UnevaluatedProperties(_)
        | Keyword::PrefixItems(_)
        | Keyword::Items { .. }
        | Keyword::UnevaluatedItems(_) => {}
        Keyword::PropertyNames(_)
        | Keyword::DependentSchemas(_)
        | Keyword::Contains(_)
        | Keyword::AllOf(_)
        | Keyword::AnyOf(_)
        | Keyword::OneOf(_)
        | Keyword::Not(_)
        | Keyword::If { .. }
        | Keyword::Ref(_)
        | Keyword::DynamicRef(_)
        | assertion_keywords!() => return,
    }
    let name = c.keyword_names[k];
    let value = match (kw, instance) {
        (Keyword::Properties(span), Value::Object(o)) => {
            let names: Vec<Value> = c.properties[span.range()]
                .iter()
                .filter(|(n, _)| json::has_key(o, n.as_ref()))
                .map(|(n, _)| Value::String(n.to_string()))
                .collect();
            Value::Array(names)
        }
        (Keyword::PatternProperties(span), Value::Object(o)) => {
            let any = o.keys().any(|key| {
                c.pattern_properties[span.range()].iter().any(|&(p, _)| {
                    c.patterns[p as usize].find_name(key, ctx.budget) == MatchOutcome::Match
                })
            });
            if !any {
                return;
            }
            Value::Bool(true)
        }
        (Keyword::AdditionalProperties(i), Value::Object(o)) => {
            // The fused siblings annotate too.
            let a = c.additional[i as usize];
            let names = &c.properties[a.properties.range()];
            let declared: Vec<Value> = names
                .iter()
                .filter(|(n, _)| json::has_key(o, n.as_ref()))
                .map(|(n, _)| Value::String(n.to_string()))
                .collect();
            if !names.is_empty() {
                col.annotate(c, ctx, node, "properties", Value::Array(declared));
            }
            let by_pattern = |key: &str| {
                c.pattern_properties[a.patterns.range()]
                    .iter()
                    .any(|&(p, _)| {
                        c.patterns[p as usize].find_name(key, ctx.budget) == MatchOutcome::Match
                    })
            };
            if o.keys().any(|key| by_pattern(key)) {
                col.annotate(c, ctx, node, "patternProperties", Value::Bool(true));
            }
            let additional = o.keys().any(|key| {
                names
                    .binary_search_by(|(n, _)| n.as_ref().cmp(key.as_str()))
                    .is_err()
                    && !by_pattern(key)
            });
            if !additional {
                return;
            }
            Value::Bool(true)
        }
        (Keyword::UnevaluatedProperties(_), Value::Object(o)) if !o.is_empty() => Value::Bool(true),
        (Keyword::PrefixItems(span), Value::Array(items)) if !items.is_empty() => {
            if items.len() <= span.len() {
                Value::Bool(true)
            } else {
                Value::from(span.len() - 1)
            }
        }
        (Keyword::Items { skip, .. }, Value::Array(items)) if items.len() > skip as usize => {
            Value::Bool(true)
        }
        (Keyword::UnevaluatedItems(_), Value::Array(items)) if !items.is_empty() => {
            Value::Bool(true)
        }
        // (Another kind of instance: nothing evaluated.)
        _ => return,
    };
    col.annotate(c, ctx, node, name, value);
}

/// A branch's presence filter (`Compiled::presence`).
type Presence = Option<Box<[std::sync::Arc<str>]>>;

/// The branches of a `oneOf`/`anyOf` that its discriminator leaves possible.
struct Dispatched<'c, 'v> {
    dispatch: Option<&'c crate::schema::Dispatch>,
    found: Option<&'v Value>,
    /// The list's presence filters and the object they test, when it has some.
    presence: Option<(&'c [Presence], &'v Map<String, Value>)>,
}

impl<'c, 'v> Dispatched<'c, 'v> {
    #[inline]
    fn new(c: &'c Compiled, span: crate::schema::Span, instance: &'v Value) -> Dispatched<'c, 'v> {
        let d = c
            .list_dispatch
            .get(span.start as usize)
            .copied()
            .unwrap_or(u32::MAX);
        let Value::Object(o) = instance else {
            return Dispatched {
                dispatch: None,
                found: None,
                presence: None,
            };
        };
        let presence = if c.list_presence.get(span.start as usize) == Some(&true) {
            c.presence.get(span.range()).map(|p| (p, o))
        } else {
            None
        };
        match c.dispatches.get(d as usize) {
            Some(d) => Dispatched {
                dispatch: Some(d),
                found: json::get_key(o, d.property.as_ref()),
                presence,
            },
            None => Dispatched {
                dispatch: None,
                found: None,
                presence,
            },
        }
    }

    /// Whether branch `j` may match (false only when it certainly does not).
    #[inline]
    fn may_match(&self, j: usize) -> bool {
        self.dispatch
            .and_then(|d| d.filters.get(j))
            .is_none_or(|f| f.admits(self.found))
            && self.present(j)
    }

    /// Whether the object holds one of the names branch `j` needs one of (true when the
    /// branch has no presence filter).
    #[inline]
    fn present(&self, j: usize) -> bool {
        match self.presence {
            Some((filters, o)) => match filters.get(j) {
                Some(Some(names)) => json::has_any_key(o, names),
                _ => true,
            },
            None => true,
        }
    }

    /// The branches that may match, from the dispatch's string index, when it has one and
    /// the property holds a string (each branch once).
    #[inline]
    fn indexed(&self) -> Option<impl Iterator<Item = usize> + 'c>
    where
        'v: 'c,
    {
        match (self.dispatch, self.found) {
            (Some(d), Some(Value::String(s))) => d.for_string(s),
            _ => None,
        }
    }
}

/// Evaluates every branch keeping the annotations of those that match: (matches, the
/// errors of the others).
fn annotate_branches<C: Collector>(
    c: &Compiled,
    children: &[NodeId],
    instance: &Value,
    ctx: Ctx<'_>,
    col: &mut C,
) -> (usize, Vec<ValidationError>) {
    let mut matched = 0;
    let mut causes = Vec::new();
    for child in children {
        let mut branch = col.branch();
        if eval(c, *child, instance, ctx, &mut branch) {
            matched += 1;
            col.absorb(branch);
        } else {
            causes.extend(branch.take());
        }
    }
    (matched, causes)
}

/// The errors of every branch, for an `anyOf`/`oneOf` that none matched.
fn branch_errors<C: Collector>(
    c: &Compiled,
    children: &[NodeId],
    instance: &Value,
    ctx: Ctx<'_>,
    col: &C,
) -> Vec<ValidationError> {
    let mut branch = col.branch();
    for child in children {
        eval(c, *child, instance, ctx, &mut branch);
    }
    branch.take()
}

/// Where a `$dynamicRef` (or `$recursiveRef`) lands in the current dynamic scope: the
/// outermost resource that defines the anchor, else the static target.
pub(crate) fn dynamic_target(c: &Compiled, i: u32, scope: &Scope<'_>) -> NodeId {
    let d = c.dynamic_refs[i as usize];
    let Some(name) = d.anchor else {
        return d.target;
    };
    let anchored = |resource: u32| {
        c.resources[resource as usize]
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
        if let Some(&(_, id)) = c.resources[link.resource as usize]
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

/// Strings or numbers up to which `duplicate` compares pairs (by signature).
const PAIRWISE: usize = 16;

/// The first pair of equal items, if any.
fn duplicate(items: &[Value]) -> Option<(usize, usize)> {
    // Pairs compared directly up to a size where hashing costs less: a few items by
    // equality alone, which ends at their first difference (so do objects and arrays, up
    // to eight: their signatures are their lengths, alike in most arrays); more strings
    // or numbers by their signatures first (`json::value_signature`: a few instructions,
    // equal for equal items), the items only where those meet.
    let scalars = !matches!(items.first(), Some(Value::Object(_) | Value::Array(_)));
    if items.len() <= if scalars { 4 } else { 8 } {
        // (The pair whose second item comes first, as the hashed search reports it.)
        for j in 1..items.len() {
            for i in 0..j {
                // (Two strings inline, the commonest; anything else by a call.)
                let same = match (&items[i], &items[j]) {
                    (Value::String(a), Value::String(b)) => crate::names::same(a, b),
                    (a, b) => json::equal(a, b),
                };
                if same {
                    return Some((i, j));
                }
            }
        }
        return None;
    }
    duplicate_past_few(items, scalars)
}

/// `duplicate` past a few items (out of line: the small arrays' path keeps a small frame).
#[inline(never)]
fn duplicate_past_few(items: &[Value], scalars: bool) -> Option<(usize, usize)> {
    if scalars && items.len() <= PAIRWISE {
        let mut signatures = [0u64; PAIRWISE];
        for (s, item) in signatures.iter_mut().zip(items) {
            *s = json::value_signature(item);
        }
        for j in 1..items.len() {
            for i in 0..j {
                if signatures[i] == signatures[j] && json::equal(&items[i], &items[j]) {
                    return Some((i, j));
                }
            }
        }
        return None;
    }
    // Large arrays: each item's hash looked up in a table of the earlier distinct items';
    // items are compared only where hashes meet. The table is kept per thread: no
    // allocation in steady state (its room is given back after an array over about
    // 700,000 items).
    thread_local! {
        static TABLE: RefCell<Vec<(u32, u32)>> = const { RefCell::new(Vec::new()) };
    }
    if u32::try_from(items.len()).is_err() {
        // (Four billion items and more: indices of a word.)
        return duplicate_by_hashing(items, &mut Vec::new(), usize::MAX, |j| j, |i| i);
    }
    let Ok(mut table) =
        TABLE.with(|cell| cell.try_borrow_mut().map(|mut b| std::mem::take(&mut *b)))
    else {
        return duplicate_by_hashing(
            items,
            &mut Vec::new(),
            u32::MAX,
            |j| j as u32,
            |i| i as usize,
        );
    };
    let found = duplicate_by_hashing(items, &mut table, u32::MAX, |j| j as u32, |i| i as usize);
    if table.capacity() <= 1 << 20 {
        let _ = TABLE.with(|cell| cell.try_borrow_mut().map(|mut b| *b = table));
    }
    found
}

/// The first pair of equal items (by the later item's position, then the earlier's),
/// through an open-addressing table in `table` of the first item of each value seen:
/// (the hash's high half, the item's index as `to` makes it; `empty` in a free slot).
fn duplicate_by_hashing<I: Copy + Eq>(
    items: &[Value],
    table: &mut Vec<(u32, I)>,
    empty: I,
    to: impl Fn(usize) -> I,
    from: impl Fn(I) -> usize,
) -> Option<(usize, usize)> {
    // (Keys drawn once per process: see `json::hash_value`. They keep the slots of
    // distinct items from being chosen by an instance too: the table stays fast.)
    static STATE: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
    let state = STATE.get_or_init(ahash::RandomState::new);
    // At most two thirds full: an empty slot ends every probe.
    let size = items
        .len()
        .saturating_add(items.len() / 2)
        .next_power_of_two();
    let mask = size - 1;
    table.clear();
    table.resize(size, (0, empty));
    for (j, item) in items.iter().enumerate() {
        let hash = json::hash_value(item, state);
        let tag = (hash >> 32) as u32;
        let mut slot = hash as usize & mask;
        loop {
            let (t, i) = table[slot];
            if i == empty {
                table[slot] = (tag, to(j));
                break;
            }
            if t == tag && json::equal(&items[from(i)], item) {
                return Some((from(i), j));
            }
            slot = (slot + 1) & mask;
        }
    }
    None
}

/// `contentEncoding: base64` and `contentMediaType: application/json`, when they assert.
fn content<C: Collector>(
    c: &Compiled,
    i: u32,
    s: &str,
    ctx: Ctx<'_>,
    node: NodeId,
    k: usize,
    col: &mut C,
) -> bool {
    let check = &c.contents[i as usize];
    let decoded: std::borrow::Cow<'_, [u8]> = match &check.encoding {
        Some(enc) => match base64_decode(s) {
            Some(bytes) => std::borrow::Cow::Owned(bytes),
            None => {
                return fail!(
                    col,
                    c,
                    ctx,
                    node,
                    k,
                    ErrorKind::ContentEncoding {
                        encoding: enc.clone()
                    }
                );
            }
        },
        None => std::borrow::Cow::Borrowed(s.as_bytes()),
    };
    match &check.media_type {
        Some(mt) if serde_json::from_slice::<serde::de::IgnoredAny>(&decoded).is_err() => {
            fail!(
                col,
                c,
                ctx,
                node,
                k,
                ErrorKind::ContentMediaType {
                    media_type: mt.clone()
                }
            )
        }
        _ => true,
    }
}

/// Standard base64 (RFC 4648 section 4, with padding; padding only at the end).
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).ok()
}
