//! The compiler: a worklist over schema locations that fills the arena.
//!
//! A [`NodeId`] is minted when a location is first enqueued, so forward and recursive
//! references need no patching beyond the placeholder each `$ref` gets until the
//! references are resolved, after every location of the loaded documents is known.

mod accel;
mod applicators;
mod caps;
mod cycles;
pub(crate) mod dialect;
mod duplicates;
mod keys;
mod keywords;
pub(crate) mod pointer;
mod refs;
pub(crate) mod uri;

use crate::error::{SchemaError, SchemaErrorKind};
use crate::json::{JsonType, Num, TypeSet};
use crate::options::{Draft, Options};
use crate::pattern::Pattern;
use crate::schema::*;
use ahash::AHashMap;
use dialect::{Dialect, vocab};
pub(crate) use duplicates::Duplicate;
use hashbrown::HashTable;
use keys::{Keys, Kw};
use serde_json::{Number, Value};
use std::sync::Arc;

/// Compiles `root` under `options`.
pub(crate) fn compile(root: &Value, options: &Options) -> Result<Compiled, SchemaError> {
    compile_noting(root, options, None)
}

/// `compile`, also listing in `notes` the URIs and anchors claimed more than once that
/// the compile accepted (for `lint`).
pub(crate) fn compile_noting(
    root: &Value,
    options: &Options,
    notes: Option<&mut Vec<Duplicate>>,
) -> Result<Compiled, SchemaError> {
    let size = caps::check(root, &options.limits)?;
    let mut c = Compiler::new(root, options)?;
    c.reserve(size);
    let root_id = c.load_root()?;
    c.run()?;
    if !c.claimants.is_empty() || !c.anchor_claimants.is_empty() {
        c.check_duplicates()?;
        if let Some(notes) = notes {
            *notes = c.duplicate_notes();
        }
    }
    c.out.root = root_id;
    // (The reference configuration resolves every dynamic reference at run time, but the
    // cycle check judges the statically resolved ones alike in both configurations.)
    let dynamic = (!options.shortcuts).then(|| c.out.dynamic_refs.clone());
    refs::resolve_outermost_anchors(&mut c.out);
    // Without references the nodes form a tree: no cycle to look for.
    if !c.resolved.is_empty() || !c.out.dynamic_refs.is_empty() {
        cycles::check(&c.out)?;
    }
    if let Some(dynamic) = dynamic {
        // The reference configuration: the semantic tables and no accelerator (see
        // `Options::shortcuts`); the general keyword loop decides alone.
        c.out.dynamic_refs = dynamic;
        c.out.dynamic_scope = c.out.dynamic_refs.iter().any(|d| d.anchor.is_some());
        accel::summaries::name_summaries(&mut c.out);
        debug_assert!(c.out.accel.is_empty());
        c.out.shrink_to_fit();
        return Ok(c.out);
    }
    c.out.dynamic_scope = c.out.dynamic_refs.iter().any(|d| d.anchor.is_some());
    let mut live = accel::live_nodes(&c.out, c.definitions > 0);
    let fused = match c.all_ofs {
        true => accel::all_of::fuse_all_ofs(&mut c.out, &mut live),
        false => Vec::new(),
    };
    accel::optimize(&mut c.out, &live, c.conditions, &fused);
    accel::branch_lists(&mut c.out, &live);
    accel::summaries::name_summaries(&mut c.out);
    c.out.shrink_to_fit();
    Ok(c.out)
}

/// One loaded document.
struct Doc<'a> {
    /// Its URI (normalized, no fragment).
    uri: Arc<str>,
    value: &'a Value,
    loaded: bool,
}

/// A location waiting to be compiled into `node`.
struct Task<'a> {
    node: NodeId,
    doc: DocId,
    value: &'a Value,
    /// The node's pointer: empty while the task waits, filled (in a kept buffer) while it
    /// compiles.
    pointer: String,
    base: BaseId,
    resource: u32,
    dialect: Dialect,
}

side_table_id!(
    /// A base URI: an entry of `Compiler::bases`. Nodes, tasks and references hold it
    /// rather than an `Arc` of their own: cloning and dropping an `Arc` per node were two
    /// atomic read-modify-writes each, which on this class of machine cost more wall
    /// time than anything else the compiler did for a node.
    BaseId(u32)
);

side_table_id!(
    /// A loaded document: an entry of `Compiler::docs`.
    DocId(u32)
);

/// Compile-time facts about a node that locations and lazy references need.
#[derive(Clone, Copy)]
struct NodeMeta {
    base: BaseId,
    resource: u32,
    dialect: Dialect,
}

/// Compile-time facts about a resource.
struct ResourceMeta {
    doc: DocId,
    pointer: String,
    /// Its root has `$recursiveAnchor: true` (2019-09).
    recursive_anchor: bool,
}

/// A reference waiting for every location to be known.
struct PendingRef<'a> {
    /// Index of the keyword to patch (`Ref`), or of the dynamic-ref entry.
    slot: RefSlot,
    reference: &'a str,
    base: BaseId,
    /// Where the reference stands, for errors: the node and the keyword (joined only when
    /// an error needs them).
    at: NodeId,
    keyword: &'static str,
}

/// Which reference keyword a reference is.
#[derive(Clone, Copy)]
enum RefKind {
    Ref,
    Dynamic,
    Recursive,
}

impl RefKind {
    /// The keyword's name.
    fn name(self) -> &'static str {
        match self {
            RefKind::Ref => Kw::Ref.name(),
            RefKind::Dynamic => Kw::DynamicRef.name(),
            RefKind::Recursive => Kw::RecursiveRef.name(),
        }
    }
}

#[derive(Clone, Copy)]
enum RefSlot {
    Keyword(usize),
    Dynamic(usize),
    /// `$recursiveRef`: dynamic by the empty anchor name when its target has `$recursiveAnchor`.
    Recursive(usize),
}

struct Compiler<'a> {
    options: &'a Options,
    out: Compiled,
    docs: Vec<Doc<'a>>,
    tasks: Vec<Task<'a>>,
    meta: Vec<NodeMeta>,
    resource_meta: Vec<ResourceMeta>,
    /// Location → node, by the address of the location's value in its (borrowed, so
    /// unmoving) document: distinct locations of every loaded document are distinct
    /// values, and an address hashes and compares in a few instructions where a pointer's
    /// text took tens.
    location_to_node: AHashMap<usize, NodeId>,
    /// The members of `$defs` and `definitions` by their pointer (and document): what
    /// most references name, found without walking the document.
    definitions_by_pointer: HashTable<(DocId, NodeId)>,
    /// One random state for every map (making one per map costs more than a small
    /// schema's whole compile step).
    hasher: ahash::RandomState,
    resource_by_uri: AHashMap<Arc<str>, u32>,
    anchors: AHashMap<(u32, String), (NodeId, bool)>,
    anchor_names: AHashMap<String, AnchorId>,
    pending: Vec<PendingRef<'a>>,
    /// The base URIs met so far (one per document and per `$id`), see [`BaseId`].
    bases: Vec<Arc<str>>,
    /// Resolved references by their text and base, since a schema names the same
    /// definitions over and over; with the first place each stands (node and keyword),
    /// for the check of references to a URI or anchor claimed more than once.
    resolved: AHashMap<(&'a str, BaseId), (NodeId, NodeId, &'static str)>,
    /// URIs claimed by more than one resource: every claimant, in the order met (the
    /// first is the one `resource_by_uri` holds). Empty for almost every schema.
    claimants: AHashMap<Arc<str>, Vec<u32>>,
    /// Plain-name anchors defined more than once in one resource: every claimant (node,
    /// dynamic), in the order met (the first is the one `anchors` holds).
    anchor_claimants: AHashMap<(u32, String), Vec<(NodeId, bool)>>,
    pattern_cache: AHashMap<String, PatternId>,
    /// How many definitions (`$defs`/`definitions` members) were compiled.
    definitions: usize,
    /// Some `if` was compiled (`accel::if_chains` looks for chains of them then).
    conditions: bool,
    /// Some `allOf`, or some `$ref` beside keywords that walk the instance's properties
    /// or items, was compiled (`fuse` looks for some to fuse then).
    all_ofs: bool,
    /// The buffer a compiling task's pointer is copied into, kept across tasks.
    task_pointer: String,
    /// Bytes of JSON pointers kept for the nodes so far (each node keeps its location).
    location_bytes: usize,
    /// Claimants looked at so far to resolve and check references to URIs and anchors
    /// claimed more than once (bounded by [`duplicates::MAX_CLAIMANT_LOOKUPS`]).
    claimant_lookups: usize,
}

/// Under any caps, the node locations a schema keeps may add up to this much: a long key
/// above many subschemas would otherwise be copied into each of their locations.
const MAX_LOCATION_BYTES: usize = 64 << 20;

fn invalid(location: &str, keyword: &str, why: &str) -> SchemaError {
    SchemaError::new(
        SchemaErrorKind::InvalidKeyword,
        pointer::join(location, &[keyword]),
        format!("invalid \"{keyword}\": {why}"),
    )
}

/// A non-negative integer (`2.0` counts, as the spec says).
fn non_negative(value: &Value) -> Option<u64> {
    let n = value.as_number()?;
    if let Some(u) = n.as_u64() {
        return Some(u);
    }
    let f = n.as_f64()?;
    if f >= 0.0 && f.fract() == 0.0 {
        Some(if f > u64::MAX as f64 {
            u64::MAX
        } else {
            f as u64
        })
    } else {
        None
    }
}

impl<'a> Compiler<'a> {
    fn new(root: &'a Value, options: &'a Options) -> Result<Compiler<'a>, SchemaError> {
        let mut docs = vec![Doc {
            uri: shared(uri::DEFAULT_BASE),
            value: root,
            loaded: false,
        }];
        for (u, value) in &options.documents {
            let normalized = uri::normalize(u).map_err(|why| {
                SchemaError::new(
                    SchemaErrorKind::UnresolvedReference,
                    "",
                    format!("registered document: {why}"),
                )
            })?;
            let (no_fragment, _) = uri::split_fragment(&normalized);
            docs.push(Doc {
                uri: Arc::from(no_fragment),
                value,
                loaded: false,
            });
        }
        let hasher = ahash::RandomState::new();
        Ok(Compiler {
            options,
            out: Compiled {
                nodes: Vec::new(),
                keywords: Vec::new(),
                keyword_names: Vec::new(),
                node_pointers: Vec::new(),
                pointer_text: String::new(),
                pointers_fragment_safe: Box::default(),
                root: NodeId(0),
                values: Vec::new(),
                limits: Vec::new(),
                strings: Vec::new(),
                properties: Vec::new(),
                pattern_properties: Vec::new(),
                additional: Vec::new(),
                dependent_required: Vec::new(),
                dependent_schemas: Vec::new(),
                node_lists: Vec::new(),
                contains: Vec::new(),
                dynamic_refs: Vec::new(),
                dynamic_scope: false,
                step_budget: options.step_budget,
                patterns: Vec::new(),
                pattern_sources: Vec::new(),
                formats: Vec::new(),
                contents: Vec::new(),
                resources: Vec::new(),
                node_annotations: Vec::new(),
                annotation_values: Vec::new(),
                annotation_others: Vec::new(),
                annotation_text: String::new(),
                accel: Accelerators::default(),
                string_summaries: Vec::new(),
            },
            docs,
            tasks: Vec::new(),
            meta: Vec::new(),
            resource_meta: Vec::new(),
            location_to_node: AHashMap::with_hasher(hasher.clone()),
            definitions_by_pointer: HashTable::new(),
            resource_by_uri: AHashMap::with_hasher(hasher.clone()),
            anchors: AHashMap::with_hasher(hasher.clone()),
            anchor_names: AHashMap::with_hasher(hasher.clone()),
            pending: Vec::new(),
            bases: Vec::new(),
            resolved: AHashMap::with_hasher(hasher.clone()),
            claimants: AHashMap::with_hasher(hasher.clone()),
            anchor_claimants: AHashMap::with_hasher(hasher.clone()),
            pattern_cache: AHashMap::with_hasher(hasher.clone()),
            definitions: 0,
            conditions: false,
            all_ofs: false,
            hasher,
            task_pointer: String::with_capacity(128),
            location_bytes: 0,
            claimant_lookups: 0,
        })
    }

    /// Sizes the tables for what the root document holds: growing them by doubling
    /// copied each one several times over (a sixth of a small schema's compile).
    /// Over-estimates are trimmed by `Compiled::shrink_to_fit`.
    fn reserve(&mut self, size: caps::Size) {
        // Most objects of a schema are subschemas; keywords average under two per node.
        const MAX: usize = 1 << 20;
        let nodes = size.objects.min(MAX);
        let members = size.members.min(MAX);
        let items = size.items.min(MAX);
        self.out.nodes.reserve(nodes);
        self.out.node_pointers.reserve(nodes);
        self.out.node_annotations.reserve(nodes);
        self.meta.reserve(nodes);
        self.out.keywords.reserve(members.min(nodes * 2));
        self.out.keyword_names.reserve(members.min(nodes * 2));
        // The tables that not every schema uses, too: a small schema's tables grew by
        // doubling from a few entries, a reallocation each (a tenth of its compile), where
        // one allocation (and, when much is spare, one trim) does.
        self.out.properties.reserve(nodes);
        self.out.annotation_values.reserve(members.min(nodes));
        self.out.node_lists.reserve(items);
        self.out.strings.reserve(items.min(members));
        self.out.annotation_text.reserve(size.text.min(MAX * 16));
        // A location takes some fifty bytes on average (25 to 107 over the bench corpus);
        // what is left over is given back (`Compiled::shrink_to_fit`).
        self.out
            .pointer_text
            .reserve(nodes.saturating_mul(48).min(MAX * 16));
        self.tasks.reserve(nodes.min(64));
        self.location_to_node.reserve(nodes);
    }

    fn new_base(&mut self, uri: Arc<str>) -> BaseId {
        self.bases.push(uri);
        BaseId::new(self.bases.len() - 1)
    }

    fn load_root(&mut self) -> Result<NodeId, SchemaError> {
        self.load_doc(DocId::new(0))
    }

    /// Enqueues a document's root; its locations are compiled by the next `run` round.
    fn load_doc(&mut self, doc: DocId) -> Result<NodeId, SchemaError> {
        let d = &mut self.docs[doc.index()];
        d.loaded = true;
        let (uri, value) = (d.uri.clone(), d.value);
        let base = self.new_base(uri);
        let dialect = Dialect::standard(self.options.default_draft);
        Ok(self.mint(doc, value, "", base, u32::MAX, dialect))
    }

    /// The node for a location, minting it (and enqueuing its compilation) if new.
    fn mint(
        &mut self,
        doc: DocId,
        value: &'a Value,
        pointer: &str,
        base: BaseId,
        resource: u32,
        dialect: Dialect,
    ) -> NodeId {
        let start = self.out.pointer_text.len();
        self.out.pointer_text.push_str(pointer);
        self.mint_appended(doc, value, start, base, resource, dialect)
    }

    /// `mint` for a location whose pointer the caller has appended to the pointer text
    /// from `start` on: kept as the new node's, or taken back when the node exists.
    fn mint_appended(
        &mut self,
        doc: DocId,
        value: &'a Value,
        start: usize,
        base: BaseId,
        resource: u32,
        dialect: Dialect,
    ) -> NodeId {
        let id = NodeId::new(self.out.nodes.len());
        let text = &mut self.out.pointer_text;
        match self
            .location_to_node
            .entry(std::ptr::from_ref(value) as usize)
        {
            std::collections::hash_map::Entry::Occupied(known) => {
                text.truncate(start);
                return *known.get();
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id);
            }
        }
        // Spans are 32-bit: past 4 GiB of pointers (only without caps) the node gets an
        // empty one and the run loop refuses the schema (see `over_location_cap`).
        let span = match (u32::try_from(start), u32::try_from(text.len())) {
            (Ok(start), Ok(end)) => Span { start, end },
            _ => {
                text.truncate(start);
                self.location_bytes = usize::MAX;
                Span { start: 0, end: 0 }
            }
        };
        self.out.node_pointers.push(span);
        self.out.nodes.push(Node {
            keywords: Span { start: 0, end: 0 },
            resource: ResourceId::new(resource as usize),
            types: TypeSet::all(),
            typed: false,
            leaf: false,
            shape: Shape::General,
        });
        self.out.node_annotations.push(Span { start: 0, end: 0 });
        self.meta.push(NodeMeta {
            base,
            resource,
            dialect,
        });
        self.tasks.push(Task {
            node: id,
            doc,
            value,
            pointer: String::new(),
            base,
            resource,
            dialect,
        });
        id
    }

    /// Counts `len` more bytes of kept locations; true when that passes the cap (which
    /// applies under any `Limits` but `Limits::none()`) or what 32-bit spans can address.
    fn over_location_cap(&mut self, len: usize) -> bool {
        self.location_bytes = self.location_bytes.saturating_add(len);
        self.location_bytes > u32::MAX as usize
            || (self.location_bytes > MAX_LOCATION_BYTES
                && self.options.limits != crate::Limits::none())
    }

    /// The node compiled (or enqueued) for a location, if any.
    fn node_at(&self, doc: DocId, pointer: &str) -> Option<NodeId> {
        let hash = self.hasher.hash_one(pointer);
        let definition = self.definitions_by_pointer.find(hash, |&(d, n)| {
            d == doc && self.out.pointer_of(n) == pointer
        });
        if let Some(&(_, id)) = definition {
            return Some(id);
        }
        let value = pointer::resolve(self.docs.get(doc.index())?.value, pointer)?;
        self.location_to_node
            .get(&(std::ptr::from_ref(value) as usize))
            .copied()
    }

    fn run(&mut self) -> Result<(), SchemaError> {
        loop {
            while let Some(task) = self.tasks.pop() {
                self.compile_task(task)?;
                if self.over_location_cap(0) {
                    return Err(SchemaError::new(
                        SchemaErrorKind::TooLarge,
                        "",
                        if self.location_bytes > u32::MAX as usize {
                            "the locations of the schema's subschemas exceed 4 GiB (long property names above many subschemas)".to_string()
                        } else {
                            format!(
                                "the locations of the schema's subschemas exceed {} MiB (long property names above many subschemas); Limits::none() lifts this for trusted schemas",
                                MAX_LOCATION_BYTES >> 20
                            )
                        },
                    ));
                }
            }
            if self.pending.is_empty() {
                return Ok(());
            }
            let pending = std::mem::take(&mut self.pending);
            let mut progressed = false;
            for r in pending {
                let key = (r.reference, r.base);
                let known = self.resolved.get(&key).map(|&(target, _, _)| target);
                let target = match known {
                    Some(target) => Some(target),
                    None => self.resolve(&r)?,
                };
                match target {
                    Some(target) => {
                        progressed = true;
                        self.resolved.insert(key, (target, r.at, r.keyword));
                        self.patch(r.slot, target)
                    }
                    None => self.pending.push(r),
                }
            }
            if !progressed && self.tasks.is_empty() {
                // Unreachable in practice: an unresolved reference either loads a document
                // (making tasks) or is an error. Guard against looping regardless.
                let r = &self.pending[0];
                return Err(self.unresolved(r, format!("{:?} resolves to nothing", r.reference)));
            }
        }
    }

    fn push_keyword(&mut self, kw: Keyword, name: KeywordName) -> usize {
        self.out.keywords.push(kw);
        self.out.keyword_names.push(name);
        self.out.keywords.len() - 1
    }

    fn compile_task(&mut self, mut task: Task<'a>) -> Result<(), SchemaError> {
        // The task's pointer, copied into a buffer kept across tasks.
        let mut pointer = std::mem::take(&mut self.task_pointer);
        pointer.clear();
        pointer.push_str(self.out.pointer_of(task.node));
        task.pointer = pointer;
        let compiled = self.compile_node(&mut task);
        self.task_pointer = task.pointer;
        compiled
    }

    fn compile_node(&mut self, task: &mut Task<'a>) -> Result<(), SchemaError> {
        let value = task.value;
        let start = self.out.keywords.len() as u32;
        match value {
            Value::Bool(true) => task.resource = self.ensure_resource(task),
            Value::Bool(false) => {
                task.resource = self.ensure_resource(task);
                self.push_keyword(Keyword::False, "false");
            }
            Value::Object(map) => {
                let mut keys = Keys::empty();
                keys.read(map);
                self.compile_object(task, &keys)?
            }
            _ => {
                return Err(SchemaError::new(
                    SchemaErrorKind::InvalidKeyword,
                    task.pointer.to_string(),
                    "a schema must be an object or a boolean",
                ));
            }
        }
        let end = self.out.keywords.len() as u32;
        let node = &mut self.out.nodes[task.node.index()];
        node.keywords = Span { start, end };
        node.resource = ResourceId::new(task.resource as usize);
        let meta = &mut self.meta[task.node.index()];
        meta.resource = task.resource;
        meta.base = task.base;
        meta.dialect = task.dialect;
        Ok(())
    }

    /// The node for the member of the task's value at `segments` (which the caller has
    /// in hand as `value`), minted if new.
    fn child(&mut self, task: &Task<'a>, segments: &[&str], value: &'a Value) -> NodeId {
        // Past the cap on kept locations, build no more of them: the run loop refuses the
        // schema before anything else is compiled.
        let len = task.pointer.len() + segments.iter().map(|s| s.len() + 1).sum::<usize>();
        // Written straight after the pointers kept so far (taken back if the node exists).
        let start = self.out.pointer_text.len();
        if !self.over_location_cap(len) {
            let text = &mut self.out.pointer_text;
            text.push_str(&task.pointer);
            for s in segments {
                pointer::push(text, s);
            }
        }
        self.mint_appended(
            task.doc,
            value,
            start,
            task.base,
            task.resource,
            task.dialect,
        )
    }

    fn schema_list(
        &mut self,
        task: &Task<'a>,
        kw: &str,
        value: &'a Value,
    ) -> Result<Span, SchemaError> {
        let Value::Array(items) = value else {
            return Err(invalid(&task.pointer, kw, "must be an array of schemas"));
        };
        if items.is_empty() {
            return Err(invalid(
                &task.pointer,
                kw,
                "must be a non-empty array of schemas",
            ));
        }
        let start = self.out.node_lists.len() as u32;
        let mut digits = [0u8; 20];
        for (i, item) in items.iter().enumerate() {
            let id = self.child(task, &[kw, decimal(i, &mut digits)], item);
            self.out.node_lists.push(id);
        }
        Ok(Span {
            start,
            end: self.out.node_lists.len() as u32,
        })
    }

    fn schema_list_allow_empty(
        &mut self,
        task: &Task<'a>,
        kw: &str,
        value: &'a Value,
    ) -> Result<Span, SchemaError> {
        match value {
            Value::Array(items) if items.is_empty() => {
                let start = self.out.node_lists.len() as u32;
                Ok(Span { start, end: start })
            }
            _ => self.schema_list(task, kw, value),
        }
    }
}

/// One `Arc` per process for the strings every compile uses (the default base URI, the
/// empty pointer): a reference count instead of an allocation and a free per compile.
fn shared(s: &'static str) -> Arc<str> {
    static DEFAULT_BASE: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    static EMPTY: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    let cell = match s {
        "" => &EMPTY,
        uri::DEFAULT_BASE => &DEFAULT_BASE,
        _ => return Arc::from(s),
    };
    cell.get_or_init(|| Arc::from(s)).clone()
}

/// `n` in decimal, written into `buf`.
fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[at..]).unwrap_or("0")
}
