//! What an evaluation collects: nothing and a verdict (`FailFast`, for `is_valid`), the
//! errors (`Errors`), or errors and annotations (`Outcome`, for `evaluate`).

use super::*;

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

    /// Records errors a branch collector built (see `closest`), in order.
    fn extend(&mut self, errors: Vec<ValidationError>);

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

    /// Whether annotations are still kept: past `evaluate`'s output budget they are not,
    /// and callers skip building their values (a schema value cloned per instance value).
    #[inline(always)]
    fn keeps_annotations(&self) -> bool {
        Self::ANNOTATE
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
    fn extend(&mut self, _: Vec<ValidationError>) {}
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
    pub(super) seen: usize,
    pub(super) skip: usize,
    pub(super) max: usize,
    pub(super) errors: Vec<ValidationError>,
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

    fn extend(&mut self, errors: Vec<ValidationError>) {
        for e in errors {
            self.seen += 1;
            if self.seen > self.skip && self.errors.len() < self.max {
                self.errors.push(e);
            }
        }
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
    pub(super) output: std::rc::Rc<OutputBudget>,
}

/// The bytes of locations one `evaluate` may still keep, shared by the collectors of its
/// branches: every annotation holds its full locations, so a deep instance would take
/// memory quadratic in its depth. Past it the evaluation reports
/// `EvaluationBudgetExceeded` alone.
pub(super) struct OutputBudget {
    pub(super) left: std::cell::Cell<u64>,
    pub(super) exceeded: std::cell::Cell<bool>,
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

    fn extend(&mut self, errors: Vec<ValidationError>) {
        // (Their locations were counted against the output budget when the branch built them.)
        self.errors.extend(errors);
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
        // (The value too: a schema value annotates every instance value it applies to.)
        let size = (annotation.instance_location.len()
            + annotation.keyword_location.len()
            + annotation.absolute_keyword_location.len()
            + annotation.schema_location.len()) as u64
            + crate::output::value_bytes(&annotation.value);
        if self.output.spend(size) {
            self.annotations.push(annotation);
        }
    }

    fn keeps_annotations(&self) -> bool {
        !self.output.exceeded.get()
    }

    fn absorb(&mut self, branch: Self) {
        self.annotations.extend(branch.annotations);
    }
}
