//! The compiler: a worklist over schema locations that fills the arena.
//!
//! A [`NodeId`] is minted when a location is first enqueued, so forward and recursive
//! references need no patching beyond the placeholder each `$ref` gets until the
//! references are resolved, after every location of the loaded documents is known.

mod accel;
mod caps;
mod cycles;
pub(crate) mod dialect;
mod keys;
pub(crate) mod pointer;
mod tables;
pub(crate) mod uri;

use crate::error::{SchemaError, SchemaErrorKind};
use crate::json::{JsonType, Num, TypeSet};
use crate::options::{Draft, Options};
use crate::pattern::Pattern;
use crate::schema::*;
use ahash::AHashMap;
use dialect::{Dialect, vocab};
use hashbrown::HashTable;
use keys::{Keys, Kw};
use serde_json::{Number, Value};
use std::sync::Arc;

/// Compiles `root` under `options`.
pub(crate) fn compile(root: &Value, options: &Options) -> Result<Compiled, SchemaError> {
    let size = caps::check(root, &options.limits)?;
    let mut c = Compiler::new(root, options)?;
    c.reserve(size);
    let root_id = c.load_root()?;
    c.run()?;
    c.out.root = root_id;
    // (The reference configuration resolves every dynamic reference at run time, but the
    // cycle check judges the statically resolved ones alike in both configurations.)
    let dynamic = (!options.shortcuts).then(|| c.out.dynamic_refs.clone());
    resolve_outermost_anchors(&mut c.out);
    // Without references the nodes form a tree: no cycle to look for.
    if !c.resolved.is_empty() || !c.out.dynamic_refs.is_empty() {
        cycles::check(&c.out)?;
    }
    if let Some(dynamic) = dynamic {
        // The reference configuration: the tables the general keyword loop reads, and
        // nothing else (see `Options::shortcuts`).
        c.out.dynamic_refs = dynamic;
        c.out.dynamic_scope = c.out.dynamic_refs.iter().any(|d| d.anchor.is_some());
        tables::reference_tables(&mut c.out);
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
    c.out.shrink_to_fit();
    Ok(c.out)
}

/// Resolves, once and for all, each `$dynamicRef` (or `$recursiveRef`) whose anchor the
/// root's resource defines.
///
/// The dynamic scope always starts at the root's resource, and the outermost resource in
/// it that defines the anchor wins: when that is the root's, no run can resolve such a
/// reference elsewhere (the meta-schemas' `#meta`, a recursive schema's extension point).
/// With no reference left to look at the scope, evaluation keeps none and takes the
/// shortcuts that skip nodes. (The keyword stays a `$dynamicRef`: as a `$ref`, the
/// dispatch analysis would follow each one back into the root's union, which cost cql2
/// a fifth more compile time for 2% less validation time.)
fn resolve_outermost_anchors(out: &mut Compiled) {
    if out.dynamic_refs.is_empty() {
        return;
    }
    let root = out.nodes[out.root.index()].resource as usize;
    if let Some(resource) = out.resources.get(root) {
        for d in &mut out.dynamic_refs {
            if let Some(name) = d.anchor
                && let Some(&(_, node)) = resource.dynamic_anchors.iter().find(|(n, _)| *n == name)
            {
                d.target = node;
                d.anchor = None;
            }
        }
    }
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
    doc: u32,
    value: &'a Value,
    /// The node's pointer: empty while the task waits, filled (in a kept buffer) while it
    /// compiles.
    pointer: String,
    base: BaseId,
    resource: u32,
    dialect: Dialect,
}

/// A base URI: an index into `Compiler::bases`. Nodes, tasks and references hold it
/// rather than an `Arc` of their own: cloning and dropping an `Arc` per node were two
/// atomic read-modify-writes each, which on this class of machine cost more wall time
/// than anything else the compiler did for a node.
type BaseId = u32;

/// Compile-time facts about a node that locations and lazy references need.
#[derive(Clone, Copy)]
struct NodeMeta {
    base: BaseId,
    resource: u32,
    dialect: Dialect,
}

/// Compile-time facts about a resource.
struct ResourceMeta {
    doc: u32,
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
    definitions_by_pointer: HashTable<(u32, NodeId)>,
    /// One random state for every map (making one per map costs more than a small
    /// schema's whole compile step).
    hasher: ahash::RandomState,
    resource_by_uri: AHashMap<Arc<str>, u32>,
    anchors: AHashMap<(u32, String), (NodeId, bool)>,
    anchor_names: AHashMap<String, u32>,
    pending: Vec<PendingRef<'a>>,
    /// The base URIs met so far (one per document and per `$id`), see [`BaseId`].
    bases: Vec<Arc<str>>,
    /// Resolved references by their text and base, since a schema names the same
    /// definitions over and over.
    resolved: AHashMap<(&'a str, BaseId), NodeId>,
    pattern_cache: AHashMap<String, u32>,
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
                fail_fast_root: NodeId(0),
                values: Vec::new(),
                limits: Vec::new(),
                strings: Vec::new(),
                properties: Vec::new(),
                property_order: Vec::new(),
                property_sigs: Vec::new(),
                property_tables: Vec::new(),
                spec_of: Vec::new(),
                array_specs: Vec::new(),
                type_switches: Vec::new(),
                object_specs: Vec::new(),
                property_tests: Vec::new(),
                property_hash: Vec::new(),
                enum_tables: Vec::new(),
                enum_hash: Vec::new(),
                property_required: Vec::new(),
                walk_required: Vec::new(),
                required_walked: Vec::new(),
                deferred_in_name_order: Vec::new(),
                pattern_properties: Vec::new(),
                additional: Vec::new(),
                dependent_required: Vec::new(),
                dependent_schemas: Vec::new(),
                node_lists: Vec::new(),
                branch_targets: Vec::new(),
                property_walk: Vec::new(),
                property_patterned: Vec::new(),
                property_rank: Vec::new(),
                list_dispatch: Vec::new(),
                list_exclusive: Vec::new(),
                presence: Vec::new(),
                list_presence: Vec::new(),
                dispatches: Vec::new(),
                contains: Vec::new(),
                unevaluated: Vec::new(),
                if_chains: None,
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
            pattern_cache: AHashMap::with_hasher(hasher.clone()),
            definitions: 0,
            conditions: false,
            all_ofs: false,
            hasher,
            task_pointer: String::with_capacity(128),
            location_bytes: 0,
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
        (self.bases.len() - 1) as BaseId
    }

    fn load_root(&mut self) -> Result<NodeId, SchemaError> {
        self.load_doc(0)
    }

    /// Enqueues a document's root; its locations are compiled by the next `run` round.
    fn load_doc(&mut self, doc: u32) -> Result<NodeId, SchemaError> {
        let d = &mut self.docs[doc as usize];
        d.loaded = true;
        let (uri, value) = (d.uri.clone(), d.value);
        let base = self.new_base(uri);
        let dialect = Dialect::standard(self.options.default_draft);
        Ok(self.mint(doc, value, "", base, u32::MAX, dialect))
    }

    /// The node for a location, minting it (and enqueuing its compilation) if new.
    fn mint(
        &mut self,
        doc: u32,
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
        doc: u32,
        value: &'a Value,
        start: usize,
        base: BaseId,
        resource: u32,
        dialect: Dialect,
    ) -> NodeId {
        let id = NodeId(self.out.nodes.len() as u32);
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
            resource,
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
    fn node_at(&self, doc: u32, pointer: &str) -> Option<NodeId> {
        let hash = self.hasher.hash_one(pointer);
        let definition = self.definitions_by_pointer.find(hash, |&(d, n)| {
            d == doc && self.out.pointer_of(n) == pointer
        });
        if let Some(&(_, id)) = definition {
            return Some(id);
        }
        let value = pointer::resolve(self.docs.get(doc as usize)?.value, pointer)?;
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
                let known = self.resolved.get(&key).copied();
                let target = match known {
                    Some(target) => Some(target),
                    None => self.resolve(&r)?,
                };
                match target {
                    Some(target) => {
                        progressed = true;
                        self.resolved.insert(key, target);
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

    fn patch(&mut self, slot: RefSlot, target: NodeId) {
        match slot {
            RefSlot::Keyword(i) => self.out.keywords[i] = Keyword::Ref(target),
            RefSlot::Dynamic(i) | RefSlot::Recursive(i) => self.out.dynamic_refs[i].target = target,
        }
        if let RefSlot::Recursive(i) = slot {
            // Dynamic only when the target resource itself has `$recursiveAnchor: true`.
            let res = self.out.nodes[target.index()].resource as usize;
            if !self
                .resource_meta
                .get(res)
                .is_some_and(|r| r.recursive_anchor)
            {
                self.out.dynamic_refs[i].anchor = None;
            }
        }
        if let RefSlot::Dynamic(i) = slot
            && let Some(name) = self.out.dynamic_refs[i].anchor
        {
            // Dynamic only when the static target is itself a `$dynamicAnchor` of that name.
            let res = self.out.nodes[target.index()].resource as usize;
            let is_dynamic_anchor = self.out.resources[res]
                .dynamic_anchors
                .iter()
                .any(|&(n, node)| n == name && node == target);
            if !is_dynamic_anchor {
                self.out.dynamic_refs[i].anchor = None;
            }
        }
    }

    /// An unresolved-reference error at `r`.
    fn unresolved(&self, r: &PendingRef<'_>, why: String) -> SchemaError {
        let at = pointer::join(self.out.pointer_of(r.at), &[r.keyword]);
        SchemaError::new(SchemaErrorKind::UnresolvedReference, at, why)
    }

    /// Resolves a pending reference: `Some(node)`, or `None` when a registered document had
    /// to be loaded first.
    fn resolve(&mut self, r: &PendingRef<'a>) -> Result<Option<NodeId>, SchemaError> {
        // `#...` (most references): the base as it is, no URI to build.
        let full;
        let base = self.bases[r.base as usize].clone();
        let (resource_uri, fragment) = match uri::plain_fragment(r.reference, &base) {
            Some(fragment) => (&*base, fragment),
            None => {
                full = uri::resolve(r.reference, &base).map_err(|why| self.unresolved(r, why))?;
                uri::split_fragment(&full)
            }
        };
        let Some(&resource) = self.resource_by_uri.get(resource_uri) else {
            if let Some(doc) = self.docs.iter().position(|d| *d.uri == *resource_uri) {
                // Loaded in this round already: its resources are known after the next one.
                if !self.docs[doc].loaded {
                    self.load_doc(doc as u32)?;
                }
                return Ok(None);
            }
            return Err(self.unresolved(
                r,
                format!(
                    "{:?} resolves to nothing: no document or $id has the URI {resource_uri:?}",
                    r.reference
                ),
            ));
        };
        let fragment = pointer::percent_decode(fragment).ok_or_else(|| {
            self.unresolved(
                r,
                format!("{:?} has a malformed percent-escape", r.reference),
            )
        })?;
        if fragment.is_empty() || fragment.starts_with('/') {
            if !pointer::is_valid(&fragment) {
                return Err(
                    self.unresolved(r, format!("{:?} is not a valid JSON pointer", r.reference))
                );
            }
            let rm = &self.resource_meta[resource as usize];
            let doc = rm.doc;
            let location = if rm.pointer.is_empty() {
                fragment
            } else {
                std::borrow::Cow::Owned(format!("{}{}", rm.pointer, fragment))
            };
            if let Some(id) = self.node_at(doc, &location) {
                return Ok(Some(id));
            }
            let doc_value: &'a Value = self.docs[doc as usize].value;
            let Some(target) = pointer::resolve(doc_value, &location) else {
                return Err(self.unresolved(r, format!("{:?} resolves to nothing", r.reference)));
            };
            // A location no keyword walk reached (under an unknown keyword, say): compile it
            // with the base and dialect of its nearest compiled ancestor.
            let mut ancestor = pointer::parent(&location);
            let meta = loop {
                match ancestor {
                    Some(p) => {
                        if let Some(id) = self.node_at(doc, p) {
                            break self.meta[id.index()];
                        }
                        ancestor = pointer::parent(p);
                    }
                    None => {
                        break NodeMeta {
                            base: self.new_base(self.out.resources[resource as usize].uri.clone()),
                            resource,
                            dialect: Dialect::standard(self.options.default_draft),
                        };
                    }
                }
            };
            return Ok(Some(self.mint(
                doc,
                target,
                &location,
                meta.base,
                meta.resource,
                meta.dialect,
            )));
        }
        match self.anchors.get(&(resource, fragment.to_string())) {
            Some(&(id, _)) => Ok(Some(id)),
            None => Err(self.unresolved(
                r,
                format!(
                    "{:?} resolves to nothing: no anchor {fragment:?}",
                    r.reference
                ),
            )),
        }
    }

    fn push_keyword(&mut self, kw: Keyword, name: KeywordName) -> usize {
        self.out.keywords.push(kw);
        self.out.keyword_names.push(name);
        self.out.keywords.len() - 1
    }

    fn intern_anchor(&mut self, name: &str) -> u32 {
        let next = self.anchor_names.len() as u32;
        *self.anchor_names.entry(name.to_string()).or_insert(next)
    }

    fn new_resource(
        &mut self,
        uri: Arc<str>,
        doc: u32,
        ptr: &str,
        location: &str,
    ) -> Result<u32, SchemaError> {
        if self.resource_by_uri.contains_key(&*uri) {
            return Err(SchemaError::new(
                SchemaErrorKind::DuplicateIdentifier,
                location.to_string(),
                format!("the URI {uri:?} is claimed by more than one schema resource"),
            ));
        }
        let idx = self.out.resources.len() as u32;
        self.out.resources.push(Resource {
            uri: uri.clone(),
            dynamic_anchors: Vec::new(),
            root_pointer: if ptr.is_empty() {
                shared("")
            } else {
                Arc::from(ptr)
            },
        });
        self.resource_meta.push(ResourceMeta {
            doc,
            pointer: ptr.to_string(),
            recursive_anchor: false,
        });
        self.resource_by_uri.insert(uri, idx);
        Ok(idx)
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
            Value::Bool(true) => task.resource = self.ensure_resource(task)?,
            Value::Bool(false) => {
                task.resource = self.ensure_resource(task)?;
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
        node.resource = task.resource;
        let meta = &mut self.meta[task.node.index()];
        meta.resource = task.resource;
        meta.base = task.base;
        meta.dialect = task.dialect;
        Ok(())
    }

    /// The task's resource: a document root without `$id` still is one (named by the
    /// document URI).
    fn ensure_resource(&mut self, task: &Task<'a>) -> Result<u32, SchemaError> {
        if task.resource != u32::MAX {
            return Ok(task.resource);
        }
        let uri = self.docs[task.doc as usize].uri.clone();
        self.new_resource(uri, task.doc, &task.pointer, &task.pointer)
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

    fn limit(&mut self, n: &Number) -> u32 {
        let num = Num::of(n);
        // (Float to integer casts saturate: far limits stay past every `i64`.)
        let (floor, ceil, float) = match num {
            Num::Int(i) => (i, i, Some(i as f64).filter(|_| i.unsigned_abs() <= 1 << 53)),
            Num::Float(f) => (f.floor() as i128, f.ceil() as i128, Some(f)),
        };
        self.out.limits.push(Limit {
            number: n.clone(),
            num,
            decimal: None,
            floor,
            ceil,
            float,
        });
        (self.out.limits.len() - 1) as u32
    }

    /// The compiled pattern `source` (shared by every keyword that uses it); `location`
    /// names the keyword for an error, built only then.
    fn pattern(
        &mut self,
        source: &str,
        location: impl FnOnce() -> String,
    ) -> Result<u32, SchemaError> {
        if let Some(&i) = self.pattern_cache.get(source) {
            return Ok(i);
        }
        let p = Pattern::new(source, self.options.pattern_budget).map_err(|why| {
            SchemaError::new(
                SchemaErrorKind::InvalidPattern,
                location(),
                format!(
                    "invalid regular expression {:?}: {why}",
                    crate::error::clip(source)
                ),
            )
        })?;
        let i = self.out.patterns.len() as u32;
        self.out.patterns.push(p);
        self.out.pattern_sources.push(Arc::from(source));
        self.pattern_cache.insert(source.to_string(), i);
        Ok(i)
    }

    /// Reads `$schema` on a resource root and returns the dialect it selects.
    fn dialect_of(&mut self, task: &Task<'a>, declared: &str) -> Result<Dialect, SchemaError> {
        if let Some(draft) = dialect::draft_of_uri(declared) {
            return Ok(Dialect::standard(draft));
        }
        // A registered meta-schema: its `$vocabulary` decides.
        let normalized = uri::normalize(declared).unwrap_or_else(|_| declared.to_string());
        let (no_fragment, _) = uri::split_fragment(&normalized);
        let meta = self
            .docs
            .iter()
            .find(|d| *d.uri == *no_fragment)
            .map(|d| d.value)
            .or_else(|| {
                self.resource_by_uri.get(no_fragment).and_then(|&r| {
                    let rm = &self.resource_meta[r as usize];
                    self.docs[rm.doc as usize].value.pointer(&rm.pointer)
                })
            });
        let Some(meta) = meta else {
            return Err(SchemaError::new(
                SchemaErrorKind::UnknownDialect,
                pointer::join(&task.pointer, &["$schema"]),
                format!(
                    "unknown dialect {declared:?}: not a known draft nor a registered meta-schema"
                ),
            ));
        };
        let base_draft = meta
            .get("$schema")
            .and_then(Value::as_str)
            .and_then(dialect::draft_of_uri)
            .unwrap_or(self.options.default_draft);
        let Some(Value::Object(vocabularies)) = meta.get("$vocabulary") else {
            return Ok(Dialect::standard(base_draft));
        };
        let mut flags = 0u16;
        let mut draft = base_draft;
        for (v, required) in vocabularies {
            match dialect::vocab_of_uri(v) {
                Some((d, flag)) => {
                    draft = d;
                    let mut flag = flag.unwrap_or(0);
                    if d == Draft::Draft201909
                        && flag == vocab::FORMAT_ANNOTATION
                        && required == &Value::Bool(true)
                    {
                        flag |= vocab::FORMAT_ASSERTION;
                    }
                    flags |= flag;
                }
                None if required == &Value::Bool(true) => {
                    return Err(SchemaError::new(
                        SchemaErrorKind::UnknownDialect,
                        pointer::join(&task.pointer, &["$schema"]),
                        format!(
                            "the meta-schema {declared:?} requires the unknown vocabulary {v:?}"
                        ),
                    ));
                }
                None => {}
            }
        }
        Ok(Dialect {
            draft,
            vocab: flags,
        })
    }

    fn compile_object(&mut self, task: &mut Task<'a>, map: &Keys<'a>) -> Result<(), SchemaError> {
        let is_doc_root = task.pointer.is_empty();
        // `$schema` counts on resource roots only.
        let id_kw_guess = task.dialect.id_keyword();
        if let Some(s) = map.kw(Kw::Schema)
            && (is_doc_root || map.has(Kw::Id) || map.has(id_kw_of(id_kw_guess)))
        {
            let Value::String(declared) = s else {
                return Err(invalid(&task.pointer, "$schema", "must be a string"));
            };
            task.dialect = self.dialect_of(task, declared)?;
        }
        let d = task.dialect;
        let has_ref = map.has(Kw::Ref);
        let ref_only = d.ref_overrides_siblings() && has_ref;

        // `$id`: a new resource and base URI.
        let id_kw = d.id_keyword();
        let mut anchor_from_id: Option<String> = None;
        if !ref_only && let Some(idv) = map.kw(id_kw_of(id_kw)) {
            let Value::String(id) = idv else {
                return Err(invalid(&task.pointer, id_kw, "must be a string"));
            };
            let resolved = uri::resolve(id, &self.bases[task.base as usize])
                .map_err(|why| invalid(&task.pointer, id_kw, &why))?;
            let (no_fragment, fragment) = uri::split_fragment(&resolved);
            if !fragment.is_empty() {
                if d.at_least(Draft::Draft201909) {
                    return Err(invalid(
                        &task.pointer,
                        id_kw,
                        "must not have a non-empty fragment",
                    ));
                }
                anchor_from_id = Some(fragment.to_string());
            }
            let is_plain_fragment = id.starts_with('#');
            if !is_plain_fragment {
                let no_fragment: Arc<str> = Arc::from(no_fragment);
                task.base = self.new_base(no_fragment.clone());
                if is_doc_root {
                    // A document root gets its resource here (it starts without one).
                    let doc_uri = self.docs[task.doc as usize].uri.clone();
                    let r = self.new_resource(
                        no_fragment.clone(),
                        task.doc,
                        &task.pointer,
                        &task.pointer,
                    )?;
                    if doc_uri != no_fragment && !self.resource_by_uri.contains_key(&*doc_uri) {
                        self.resource_by_uri.insert(doc_uri, r);
                    }
                    task.resource = r;
                } else {
                    task.resource =
                        self.new_resource(no_fragment, task.doc, &task.pointer, &task.pointer)?;
                }
            }
        }
        task.resource = self.ensure_resource(task)?;
        let resource = task.resource;

        // Anchors.
        let mut anchors: Vec<(String, bool)> = Vec::new();
        if let Some(a) = anchor_from_id {
            anchors.push((a, false));
        }
        if !ref_only && d.at_least(Draft::Draft201909) {
            if let Some(a) = map.kw(Kw::Anchor) {
                let Some(a) = a.as_str().filter(|a| is_anchor_name(a)) else {
                    return Err(invalid(
                        &task.pointer,
                        "$anchor",
                        "must be a plain name (letters, digits, '-', '_', '.', ':')",
                    ));
                };
                anchors.push((a.to_string(), false));
            }
            if d.draft == Draft::Draft202012
                && let Some(a) = map.kw(Kw::DynamicAnchor)
            {
                let Some(a) = a.as_str().filter(|a| is_anchor_name(a)) else {
                    return Err(invalid(
                        &task.pointer,
                        "$dynamicAnchor",
                        "must be a plain name",
                    ));
                };
                anchors.push((a.to_string(), true));
            }
            if d.draft == Draft::Draft201909
                && let Some(v) = map.kw(Kw::RecursiveAnchor)
            {
                match v {
                    Value::Bool(b) => {
                        // Only a resource root's `$recursiveAnchor` counts.
                        let is_resource_root =
                            *self.resource_meta[resource as usize].pointer == *task.pointer;
                        if *b && is_resource_root {
                            self.resource_meta[resource as usize].recursive_anchor = true;
                            let name = self.intern_anchor("");
                            self.out.resources[resource as usize]
                                .dynamic_anchors
                                .push((name, task.node));
                        }
                    }
                    _ => {
                        return Err(invalid(
                            &task.pointer,
                            "$recursiveAnchor",
                            "must be a boolean",
                        ));
                    }
                }
            }
        }
        for (name, dynamic) in anchors {
            if self.anchors.contains_key(&(resource, name.clone())) {
                return Err(SchemaError::new(
                    SchemaErrorKind::DuplicateIdentifier,
                    task.pointer.to_string(),
                    format!("the anchor {name:?} is defined more than once in one schema resource"),
                ));
            }
            if dynamic {
                let n = self.intern_anchor(&name);
                self.out.resources[resource as usize]
                    .dynamic_anchors
                    .push((n, task.node));
            }
            self.anchors.insert((resource, name), (task.node, dynamic));
        }

        // Definitions are schemas too: compile them so their `$id`s and anchors are known.
        // `definitions` is no keyword in 2020-12, but real schemas keep using it: walk it
        // there only when it holds nothing but schemas.
        for defs_kw in ["$defs", "definitions"] {
            let is_keyword = match defs_kw {
                "$defs" => d.at_least(Draft::Draft201909),
                _ => !d.at_least(Draft::Draft202012),
            };
            let defs_value = if defs_kw == "$defs" {
                map.kw(Kw::Defs)
            } else {
                map.kw(Kw::Definitions)
            };
            match defs_value {
                Some(Value::Object(defs))
                    if is_keyword || defs.values().all(|v| v.is_object() || v.is_boolean()) =>
                {
                    self.definitions += defs.len();
                    for (name, def) in defs {
                        let id = self.child(task, &[defs_kw, name], def);
                        let pointer = self.out.pointer_of(id);
                        let hash = self.hasher.hash_one(pointer);
                        let (doc, out, hasher) = (task.doc, &self.out, &self.hasher);
                        // (Kept once: the first node minted there.)
                        self.definitions_by_pointer
                            .entry(
                                hash,
                                |&(d, n)| d == doc && out.pointer_of(n) == pointer,
                                |&(_, n)| hasher.hash_one(out.pointer_of(n)),
                            )
                            .or_insert((doc, id));
                    }
                }
                Some(_) if is_keyword => {
                    return Err(invalid(
                        &task.pointer,
                        defs_kw,
                        "must be an object of schemas",
                    ));
                }
                _ => {}
            }
        }

        if ref_only {
            let r = map
                .kw(Kw::Ref)
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(&task.pointer, "$ref", "must be a string"))?;
            self.add_ref(task, r, "$ref")?;
            return Ok(());
        }
        self.compile_keywords(task, map)
    }

    fn add_ref(
        &mut self,
        task: &Task<'a>,
        reference: &'a str,
        kw: &'static str,
    ) -> Result<(), SchemaError> {
        if self.options.refs_fragment_only && !reference.starts_with('#') {
            return Err(SchemaError::new(
                SchemaErrorKind::ForbiddenReference,
                pointer::join(&task.pointer, &[kw]),
                format!(
                    "{reference:?} is not a fragment reference (only \"#...\" references are allowed)"
                ),
            ));
        }
        let slot = match kw {
            "$ref" => RefSlot::Keyword(self.push_keyword(Keyword::Ref(NodeId::NONE), kw)),
            "$dynamicRef" => {
                let anchor = uri::split_fragment(reference).1;
                let anchor =
                    (!anchor.is_empty() && !anchor.starts_with('/')).then(|| anchor.to_string());
                let anchor = anchor.map(|a| self.intern_anchor(&a));
                self.out.dynamic_refs.push(DynamicRef {
                    target: NodeId::NONE,
                    anchor,
                });
                let i = self.out.dynamic_refs.len() - 1;
                self.push_keyword(Keyword::DynamicRef(i as u32), kw);
                RefSlot::Dynamic(i)
            }
            _ => {
                let anchor = Some(self.intern_anchor(""));
                self.out.dynamic_refs.push(DynamicRef {
                    target: NodeId::NONE,
                    anchor,
                });
                let i = self.out.dynamic_refs.len() - 1;
                self.push_keyword(Keyword::DynamicRef(i as u32), kw);
                RefSlot::Recursive(i)
            }
        };
        self.pending.push(PendingRef {
            slot,
            reference,
            base: task.base,
            at: task.node,
            keyword: kw,
        });
        Ok(())
    }

    fn compile_keywords(&mut self, task: &Task<'a>, map: &Keys<'a>) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let d = task.dialect;
        let validation = d.has(vocab::VALIDATION);
        let applicator = d.has(vocab::APPLICATOR);
        self.record_annotations(task, map);

        // Cheap, likely-failing checks first.
        if validation {
            if let Some(t) = map.kw(Kw::Type) {
                let mut set = TypeSet::empty();
                let mut add = |v: &Value| -> Result<(), SchemaError> {
                    let ty = v.as_str().and_then(JsonType::from_name).ok_or_else(|| {
                        invalid(ptr, "type", "must be a type name or an array of type names")
                    })?;
                    // The meta-schemas require unique type names.
                    if set.contains(ty) {
                        return Err(invalid(ptr, "type", "names a type twice"));
                    }
                    set = set.with(ty);
                    Ok(())
                };
                match t {
                    Value::Array(items) if items.is_empty() => {
                        return Err(invalid(ptr, "type", "must name at least one type"));
                    }
                    Value::Array(items) => items.iter().try_for_each(&mut add)?,
                    other => add(other)?,
                }
                if d.draft == Draft::Draft4 {
                    // Draft 4: `1.0` is a number, not an integer.
                    set = set.strict_integers();
                }
                self.push_keyword(Keyword::Type(set), "type");
            }
            if d.at_least(Draft::Draft6)
                && let Some(c) = map.kw(Kw::Const)
            {
                self.out.values.push(c.clone());
                let i = (self.out.values.len() - 1) as u32;
                self.push_keyword(Keyword::Const(i), "const");
            }
            if let Some(e) = map.kw(Kw::Enum) {
                let Value::Array(items) = e else {
                    return Err(invalid(ptr, "enum", "must be an array"));
                };
                let start = self.out.values.len() as u32;
                self.out.values.extend(items.iter().cloned());
                let span = Span {
                    start,
                    end: self.out.values.len() as u32,
                };
                if span.len() > crate::schema::ENUM_SCAN_LIMIT && self.options.shortcuts {
                    tables::enum_table(&mut self.out, span);
                }
                self.push_keyword(Keyword::Enum(span), "enum");
            }
            self.compile_numeric(task, map)?;
            for (kw, make) in [
                (Kw::MinLength, Keyword::MinLength as fn(u64) -> Keyword),
                (Kw::MaxLength, Keyword::MaxLength),
                (Kw::MinItems, Keyword::MinItems),
                (Kw::MaxItems, Keyword::MaxItems),
                (Kw::MinProperties, Keyword::MinProperties),
                (Kw::MaxProperties, Keyword::MaxProperties),
            ] {
                if let Some(v) = map.kw(kw) {
                    let kw = kw.name();
                    let n = non_negative(v)
                        .ok_or_else(|| invalid(ptr, kw, "must be a non-negative integer"))?;
                    self.push_keyword(make(n), kw);
                }
            }
            if let Some(p) = map.kw(Kw::Pattern) {
                let Value::String(source) = p else {
                    return Err(invalid(ptr, "pattern", "must be a string"));
                };
                let i = self.pattern(source, || pointer::join(ptr, &["pattern"]))?;
                self.push_keyword(Keyword::Pattern(i), "pattern");
            }
            if let Some(r) = map.kw(Kw::Required) {
                let Value::Array(items) = r else {
                    return Err(invalid(ptr, "required", "must be an array of strings"));
                };
                let start = self.out.strings.len() as u32;
                for item in items {
                    let s = item
                        .as_str()
                        .ok_or_else(|| invalid(ptr, "required", "must be an array of strings"))?;
                    self.out.strings.push(Arc::from(s));
                }
                // The meta-schemas require unique names: compared pairwise when the list
                // is short (most are), through a set otherwise.
                let names = &self.out.strings[start as usize..];
                let repeated = if names.len() <= 16 {
                    (1..names.len()).any(|j| names[..j].contains(&names[j]))
                } else {
                    let mut seen = ahash::AHashSet::with_capacity(names.len());
                    !names.iter().all(|n| seen.insert(n))
                };
                if repeated {
                    return Err(invalid(ptr, "required", "names a property twice"));
                }
                let span = Span {
                    start,
                    end: self.out.strings.len() as u32,
                };
                if span.len() > 0 {
                    self.push_keyword(Keyword::Required(span), "required");
                }
            }
            if d.at_least(Draft::Draft201909)
                && let Some(dr) = map.kw(Kw::DependentRequired)
            {
                let Value::Object(deps) = dr else {
                    return Err(invalid(
                        ptr,
                        "dependentRequired",
                        "must be an object of string arrays",
                    ));
                };
                self.dependent_required(ptr, "dependentRequired", deps.iter())?;
            }
        }
        if let Some(f) = map.kw(Kw::Format) {
            let Value::String(name) = f else {
                return Err(invalid(ptr, "format", "must be a string"));
            };
            let custom = self
                .options
                .custom_formats
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, f)| *f);
            let asserts = self.options.assert_formats || d.has(vocab::FORMAT_ASSERTION);
            let known = custom.is_some() || crate::format::check(name, "").is_some();
            if asserts && known {
                self.out.formats.push(FormatCheck {
                    name: Arc::from(name.as_str()),
                    assert: true,
                    custom,
                });
                let i = (self.out.formats.len() - 1) as u32;
                self.push_keyword(Keyword::Format(i), "format");
            }
        }
        if self.options.assert_content && d.at_least(Draft::Draft7) {
            let encoding = map
                .kw(Kw::ContentEncoding)
                .and_then(Value::as_str)
                .filter(|e| *e == "base64");
            let media = map
                .kw(Kw::ContentMediaType)
                .and_then(Value::as_str)
                .filter(|m| *m == "application/json");
            if encoding.is_some() || media.is_some() {
                self.out.contents.push(ContentCheck {
                    encoding: encoding.map(Arc::from),
                    media_type: media.map(Arc::from),
                });
                let i = (self.out.contents.len() - 1) as u32;
                self.push_keyword(Keyword::Content(i), "contentMediaType");
            }
        }

        // References.
        if let Some(r) = map.kw(Kw::Ref) {
            let r = r
                .as_str()
                .ok_or_else(|| invalid(ptr, "$ref", "must be a string"))?;
            self.add_ref(task, r, "$ref")?;
            // (An `allOf` of the reference and the node, to `fuse`.)
            self.all_ofs |= [
                Kw::Properties,
                Kw::AdditionalProperties,
                Kw::Items,
                Kw::UnevaluatedProperties,
            ]
            .into_iter()
            .any(|kw| map.has(kw));
        }
        if d.draft == Draft::Draft202012
            && let Some(r) = map.kw(Kw::DynamicRef)
        {
            let r = r
                .as_str()
                .ok_or_else(|| invalid(ptr, "$dynamicRef", "must be a string"))?;
            self.add_ref(task, r, "$dynamicRef")?;
        }
        if d.draft == Draft::Draft201909
            && let Some(r) = map.kw(Kw::RecursiveRef)
        {
            let r = r
                .as_str()
                .ok_or_else(|| invalid(ptr, "$recursiveRef", "must be a string"))?;
            // Draft 2019-09 defines the keyword for "#" alone and lets implementations
            // refuse other values (core, 8.2.4.2.1): refused, rather than read as "#".
            if r != "#" {
                return Err(invalid(
                    ptr,
                    "$recursiveRef",
                    "must be \"#\" (draft 2019-09 defines no other value)",
                ));
            }
            self.add_ref(task, r, "$recursiveRef")?;
        }

        if applicator {
            self.compile_object_applicators(task, map)?;
            self.compile_array_applicators(task, map)?;
            for (kw, make) in [
                (Kw::AllOf, Keyword::AllOf as fn(Span) -> Keyword),
                (Kw::AnyOf, Keyword::AnyOf),
                (Kw::OneOf, Keyword::OneOf),
            ] {
                if let Some(v) = map.kw(kw) {
                    self.all_ofs |= kw == Kw::AllOf;
                    let kw = kw.name();
                    let span = self.schema_list(task, kw, v)?;
                    self.push_keyword(make(span), kw);
                }
            }
            if let Some(not) = map.kw(Kw::Not) {
                let id = self.child(task, &["not"], not);
                self.push_keyword(Keyword::Not(id), "not");
            }
            if d.at_least(Draft::Draft7) {
                // `then`/`else` without `if` do nothing, but may still hold resources.
                let then = match map.kw(Kw::Then) {
                    Some(v) => self.child(task, &["then"], v),
                    None => NodeId::NONE,
                };
                let els = match map.kw(Kw::Else) {
                    Some(v) => self.child(task, &["else"], v),
                    None => NodeId::NONE,
                };
                if let Some(v) = map.kw(Kw::If) {
                    // Kept even without `then`/`else`: its annotations reach `unevaluated*`.
                    let cond = self.child(task, &["if"], v);
                    self.push_keyword(Keyword::If { cond, then, els }, "if");
                    self.conditions = true;
                }
            }
        }
        if validation && matches!(map.kw(Kw::UniqueItems), Some(Value::Bool(true))) {
            self.push_keyword(Keyword::UniqueItems, "uniqueItems");
        } else if let Some(u) = map.kw(Kw::UniqueItems)
            && !u.is_boolean()
        {
            return Err(invalid(ptr, "uniqueItems", "must be a boolean"));
        }
        if d.has(vocab::UNEVALUATED) && d.at_least(Draft::Draft201909) {
            if let Some(v) = map.kw(Kw::UnevaluatedProperties) {
                let id = self.child(task, &["unevaluatedProperties"], v);
                self.push_keyword(Keyword::UnevaluatedProperties(id), "unevaluatedProperties");
            }
            if let Some(v) = map.kw(Kw::UnevaluatedItems) {
                let id = self.child(task, &["unevaluatedItems"], v);
                self.push_keyword(Keyword::UnevaluatedItems(id), "unevaluatedItems");
            }
        }
        Ok(())
    }

    /// Keeps the node's annotation keywords (meta-data, format, content, unknown keywords)
    /// for the `evaluate` path.
    fn record_annotations(&mut self, task: &Task<'a>, map: &Keys<'a>) {
        let start = self.out.annotation_values.len() as u32;
        for &(k, v) in map.annotations() {
            // `contentSchema` only annotates alongside `contentMediaType`.
            if k == "contentSchema" && !map.has(Kw::ContentMediaType) {
                continue;
            }
            let name = self.text(k);
            let value = match v {
                Value::String(text) => self.text(text),
                other => self.other_annotation(other.clone()),
            };
            self.out.annotation_values.push(Annotation { name, value });
        }
        let end = self.out.annotation_values.len() as u32;
        self.out.node_annotations[task.node.index()] = Span { start, end };
    }

    /// The string `s`, appended to the annotation text (while its offsets fit in `u32`).
    fn text(&mut self, s: &str) -> AnnotationValue {
        let text = &mut self.out.annotation_text;
        let (start, end) = (text.len(), text.len().saturating_add(s.len()));
        match (u32::try_from(start), u32::try_from(end)) {
            (Ok(start), Ok(end)) => {
                text.push_str(s);
                AnnotationValue::Text(Span { start, end })
            }
            _ => self.other_annotation(Value::String(s.to_string())),
        }
    }

    /// An annotation value kept as it is, in `annotation_others`.
    fn other_annotation(&mut self, v: Value) -> AnnotationValue {
        let others = &mut self.out.annotation_others;
        others.push(v);
        AnnotationValue::Other(u32::try_from(others.len() - 1).unwrap_or(u32::MAX))
    }

    fn compile_numeric(&mut self, task: &Task<'a>, map: &Keys<'a>) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let num = |kw: Kw| -> Result<Option<&Number>, SchemaError> {
            match map.kw(kw) {
                None => Ok(None),
                Some(Value::Number(n)) => Ok(Some(n)),
                Some(_) => Err(invalid(ptr, kw.name(), "must be a number")),
            }
        };
        if let Some(m) = num(Kw::MultipleOf)? {
            if m.as_f64().is_none_or(|f| f <= 0.0) {
                return Err(invalid(
                    ptr,
                    "multipleOf",
                    "must be a number greater than 0",
                ));
            }
            let i = self.limit(m);
            self.out.limits[i as usize].decimal = crate::json::decimal(m);
            self.push_keyword(Keyword::MultipleOf(i), "multipleOf");
        }
        if task.dialect.draft == Draft::Draft4 {
            // Draft 4: boolean `exclusiveMaximum`/`exclusiveMinimum` modify their siblings.
            let flag = |kw: Kw| -> Result<bool, SchemaError> {
                match map.kw(kw) {
                    None => Ok(false),
                    Some(Value::Bool(b)) => Ok(*b),
                    Some(_) => Err(invalid(ptr, kw.name(), "must be a boolean in draft 4")),
                }
            };
            if let Some(m) = num(Kw::Maximum)? {
                let i = self.limit(m);
                let kw = if flag(Kw::ExclusiveMaximum)? {
                    Keyword::ExclusiveMaximum(i)
                } else {
                    Keyword::Maximum(i)
                };
                self.push_keyword(kw, "maximum");
            }
            if let Some(m) = num(Kw::Minimum)? {
                let i = self.limit(m);
                let kw = if flag(Kw::ExclusiveMinimum)? {
                    Keyword::ExclusiveMinimum(i)
                } else {
                    Keyword::Minimum(i)
                };
                self.push_keyword(kw, "minimum");
            }
            return Ok(());
        }
        for (kw, make) in [
            (Kw::Maximum, Keyword::Maximum as fn(u32) -> Keyword),
            (Kw::ExclusiveMaximum, Keyword::ExclusiveMaximum),
            (Kw::Minimum, Keyword::Minimum),
            (Kw::ExclusiveMinimum, Keyword::ExclusiveMinimum),
        ] {
            if let Some(m) = num(kw)? {
                let i = self.limit(m);
                self.push_keyword(make(i), kw.name());
            }
        }
        Ok(())
    }

    fn dependent_required<'m>(
        &mut self,
        ptr: &str,
        kw: &'static str,
        deps: impl Iterator<Item = (&'m String, &'m Value)>,
    ) -> Result<(), SchemaError> {
        let start = self.out.dependent_required.len() as u32;
        for (name, list) in deps {
            let Value::Array(items) = list else {
                return Err(invalid(
                    ptr,
                    kw,
                    "each dependency must be an array of strings",
                ));
            };
            let s_start = self.out.strings.len() as u32;
            for item in items {
                let s = item.as_str().ok_or_else(|| {
                    invalid(ptr, kw, "each dependency must be an array of strings")
                })?;
                self.out.strings.push(Arc::from(s));
            }
            let span = Span {
                start: s_start,
                end: self.out.strings.len() as u32,
            };
            self.out
                .dependent_required
                .push((Arc::from(name.as_str()), span));
        }
        let span = Span {
            start,
            end: self.out.dependent_required.len() as u32,
        };
        if span.len() > 0 {
            self.push_keyword(Keyword::DependentRequired(span), kw);
        }
        Ok(())
    }

    fn compile_object_applicators(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let d = task.dialect;
        let mut props_span = Span { start: 0, end: 0 };
        let mut patterns_span = Span { start: 0, end: 0 };
        if let Some(p) = map.kw(Kw::Properties) {
            let Value::Object(props) = p else {
                return Err(invalid(ptr, "properties", "must be an object of schemas"));
            };
            let start = self.out.properties.len() as u32;
            for (k, v) in props {
                let entry = (
                    Arc::from(k.as_str()),
                    self.child(task, &["properties", k], v),
                );
                self.out.properties.push(entry);
            }
            // In key order already, unless serde_json keeps insertion order.
            self.out.properties[start as usize..].sort_by(|a, b| a.0.cmp(&b.0));
            props_span = Span {
                start,
                end: self.out.properties.len() as u32,
            };
            // With `additionalProperties`, one pass over the instance does all three.
            if props_span.len() > 0 && !map.has(Kw::AdditionalProperties) {
                self.push_keyword(Keyword::Properties(props_span), "properties");
            }
        }
        if let Some(p) = map.kw(Kw::PatternProperties) {
            let Value::Object(pats) = p else {
                return Err(invalid(
                    ptr,
                    "patternProperties",
                    "must be an object of schemas",
                ));
            };
            let mut entries = Vec::with_capacity(pats.len());
            for (k, v) in pats {
                let pi = self.pattern(k, || pointer::join(ptr, &["patternProperties", k]))?;
                entries.push((pi, self.child(task, &["patternProperties", k], v)));
            }
            let start = self.out.pattern_properties.len() as u32;
            self.out.pattern_properties.extend(entries);
            patterns_span = Span {
                start,
                end: self.out.pattern_properties.len() as u32,
            };
            if patterns_span.len() > 0 && !map.has(Kw::AdditionalProperties) {
                self.push_keyword(
                    Keyword::PatternProperties(patterns_span),
                    "patternProperties",
                );
            }
        }
        if let Some(v) = map.kw(Kw::AdditionalProperties) {
            let node = self.child(task, &["additionalProperties"], v);
            self.out.additional.push(Additional {
                node,
                properties: props_span,
                patterns: patterns_span,
            });
            let i = (self.out.additional.len() - 1) as u32;
            self.push_keyword(Keyword::AdditionalProperties(i), "additionalProperties");
        }
        if d.at_least(Draft::Draft6)
            && let Some(v) = map.kw(Kw::PropertyNames)
        {
            let node = self.child(task, &["propertyNames"], v);
            self.push_keyword(Keyword::PropertyNames(node), "propertyNames");
        }
        // `dependencies` (both forms) is the keyword before 2019-09 and is kept as a
        // compatibility keyword after it, as the optional suite expects.
        let dep_keywords: &[&'static str] = if d.at_least(Draft::Draft201909) {
            &["dependentSchemas", "dependencies"]
        } else {
            &["dependencies"]
        };
        for &dep_schemas_kw in dep_keywords {
            self.dependent_schemas(task, map, dep_schemas_kw)?;
        }
        Ok(())
    }

    fn dependent_schemas(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
        dep_schemas_kw: &'static str,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let deps_kw = if dep_schemas_kw == "dependencies" {
            Kw::Dependencies
        } else {
            Kw::DependentSchemas
        };
        if let Some(ds) = map.kw(deps_kw) {
            let Value::Object(deps) = ds else {
                return Err(invalid(ptr, dep_schemas_kw, "must be an object"));
            };
            let mut entries = Vec::new();
            let mut required = Vec::new();
            for (k, v) in deps {
                if dep_schemas_kw == "dependencies" && v.is_array() {
                    required.push((k, v));
                } else {
                    entries.push((
                        Arc::from(k.as_str()),
                        self.child(task, &[dep_schemas_kw, k], v),
                    ));
                }
            }
            if !required.is_empty() {
                self.dependent_required(ptr, "dependencies", required.into_iter())?;
            }
            let start = self.out.dependent_schemas.len() as u32;
            self.out.dependent_schemas.extend(entries);
            let span = Span {
                start,
                end: self.out.dependent_schemas.len() as u32,
            };
            if span.len() > 0 {
                self.push_keyword(Keyword::DependentSchemas(span), dep_schemas_kw);
            }
        }
        Ok(())
    }

    fn compile_array_applicators(
        &mut self,
        task: &Task<'a>,
        map: &Keys<'a>,
    ) -> Result<(), SchemaError> {
        let ptr: &str = &task.pointer;
        let d = task.dialect;
        if d.draft == Draft::Draft202012 {
            let mut prefix_len = 0u32;
            if let Some(p) = map.kw(Kw::PrefixItems) {
                let span = self.schema_list(task, "prefixItems", p)?;
                prefix_len = span.len() as u32;
                self.push_keyword(Keyword::PrefixItems(span), "prefixItems");
            }
            if let Some(items) = map.kw(Kw::Items) {
                if !(items.is_object() || items.is_boolean()) {
                    return Err(invalid(ptr, "items", "must be a schema"));
                }
                let node = self.child(task, &["items"], items);
                self.push_keyword(
                    Keyword::Items {
                        node,
                        skip: prefix_len,
                    },
                    "items",
                );
            }
        } else {
            match map.kw(Kw::Items) {
                Some(list @ Value::Array(_)) => {
                    let span = self.schema_list_allow_empty(task, "items", list)?;
                    let prefix_len = span.len() as u32;
                    self.push_keyword(Keyword::PrefixItems(span), "items");
                    if let Some(v) = map.kw(Kw::AdditionalItems) {
                        let node = self.child(task, &["additionalItems"], v);
                        self.push_keyword(
                            Keyword::Items {
                                node,
                                skip: prefix_len,
                            },
                            "additionalItems",
                        );
                    }
                }
                Some(v) if v.is_object() || v.is_boolean() => {
                    let node = self.child(task, &["items"], v);
                    self.push_keyword(Keyword::Items { node, skip: 0 }, "items");
                }
                Some(_) => {
                    return Err(invalid(
                        ptr,
                        "items",
                        "must be a schema or an array of schemas",
                    ));
                }
                None => {}
            }
        }
        if d.at_least(Draft::Draft6)
            && let Some(v) = map.kw(Kw::Contains)
        {
            let node = self.child(task, &["contains"], v);
            let (mut min, mut max) = (1u64, None);
            if d.at_least(Draft::Draft201909) && d.has(vocab::VALIDATION) {
                if let Some(v) = map.kw(Kw::MinContains) {
                    min = non_negative(v).ok_or_else(|| {
                        invalid(ptr, "minContains", "must be a non-negative integer")
                    })?;
                }
                if let Some(v) = map.kw(Kw::MaxContains) {
                    max = Some(non_negative(v).ok_or_else(|| {
                        invalid(ptr, "maxContains", "must be a non-negative integer")
                    })?);
                }
            }
            self.out.contains.push(Contains { node, min, max });
            let i = (self.out.contains.len() - 1) as u32;
            self.push_keyword(Keyword::Contains(i), "contains");
        }
        Ok(())
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

/// `$anchor` names: a letter or underscore, then letters, digits, `-`, `_`, `.`, `:`.
/// The keyword of an `$id` keyword name (`id` in draft 4).
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

fn id_kw_of(name: &str) -> Kw {
    if name == "id" { Kw::LegacyId } else { Kw::Id }
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

fn is_anchor_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}
