//! Schema resources and references: `$schema` (the dialect of a resource), `$id`,
//! `$anchor` and `$dynamicAnchor` registered, `$ref`/`$dynamicRef`/`$recursiveRef`
//! recorded and resolved, and the dynamic references the root's resource settles.

use super::*;

impl<'a> Compiler<'a> {
    pub(super) fn patch(&mut self, slot: RefSlot, target: NodeId) {
        match slot {
            RefSlot::Keyword(i) => self.out.keywords[i] = Keyword::Ref(target),
            RefSlot::Dynamic(i) | RefSlot::Recursive(i) => self.out.dynamic_refs[i].target = target,
        }
        if let RefSlot::Recursive(i) = slot {
            // Dynamic only when the target resource itself has `$recursiveAnchor: true`.
            let res = self.out.nodes[target.index()].resource.index();
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
            let res = self.out.nodes[target.index()].resource.index();
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
    pub(super) fn unresolved(&self, r: &PendingRef<'_>, why: String) -> SchemaError {
        let at = pointer::join(self.out.pointer_of(r.at), &[r.keyword]);
        SchemaError::new(SchemaErrorKind::UnresolvedReference, at, why)
    }

    /// Resolves a pending reference: `Some(node)`, or `None` when a registered document had
    /// to be loaded first.
    pub(super) fn resolve(&mut self, r: &PendingRef<'a>) -> Result<Option<NodeId>, SchemaError> {
        // `#...` (most references): the base as it is, no URI to build.
        let full;
        let base = self.bases[r.base.index()].clone();
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
                    self.load_doc(DocId::new(doc))?;
                }
                return Ok(None);
            }
            // The URI may be the `$id` of a registered document registered under another
            // URI, or of a resource embedded in one, which nothing has loaded yet: load
            // every registered document and resolve again once their resources are known
            // (after this round, which compiles them and whatever else is enqueued).
            let mut loading = !self.tasks.is_empty();
            for doc in 0..self.docs.len() {
                if !self.docs[doc].loaded {
                    self.load_doc(DocId::new(doc))?;
                    loading = true;
                }
            }
            if loading {
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
        // A registered document under a URI an embedded `$id` claims as well: it is a
        // claimant too (which of them the reference reaches is checked once all are known).
        if self.docs.len() > 1
            && let Some(doc) = self
                .docs
                .iter()
                .position(|d| !d.loaded && *d.uri == *resource_uri)
        {
            self.load_doc(DocId::new(doc))?;
            return Ok(None);
        }
        let fragment = pointer::percent_decode(fragment).ok_or_else(|| {
            self.unresolved(
                r,
                format!("{:?} has a malformed percent-escape", r.reference),
            )
        })?;
        let is_pointer = fragment.is_empty() || fragment.starts_with('/');
        if is_pointer && !pointer::is_valid(&fragment) {
            return Err(
                self.unresolved(r, format!("{:?} is not a valid JSON pointer", r.reference))
            );
        }
        // Every resource claiming the URI, in the order met: the first where the fragment
        // names something is the target (`check_duplicates` refuses the reference later if
        // another claimant names a different subschema there).
        let count = match self.claimants.is_empty() {
            true => 1,
            false => self.claimants.get(resource_uri).map_or(1, Vec::len),
        };
        for i in 0..count {
            if count > 1 {
                self.count_claimant_lookups(1, |c| {
                    let at = pointer::join(c.out.pointer_of(r.at), &[r.keyword]);
                    (at, format!("the URI {resource_uri:?}"))
                })?;
            }
            let claimant = match self.claimants.get(resource_uri) {
                Some(all) => all[i],
                None => resource,
            };
            let found = if is_pointer {
                self.pointer_target(claimant, &fragment)
            } else {
                self.anchors
                    .get(&(claimant, fragment.to_string()))
                    .map(|&(id, _)| id)
            };
            if found.is_some() {
                return Ok(found);
            }
        }
        Err(self.unresolved(
            r,
            if is_pointer {
                format!("{:?} resolves to nothing", r.reference)
            } else {
                format!(
                    "{:?} resolves to nothing: no anchor {fragment:?}",
                    r.reference
                )
            },
        ))
    }

    /// The node at a JSON pointer within a resource, minted if no keyword walk reached it
    /// (under an unknown keyword, say); `None` when the resource has no such location.
    fn pointer_target(&mut self, resource: u32, fragment: &str) -> Option<NodeId> {
        let rm = &self.resource_meta[resource as usize];
        let doc = rm.doc;
        let location = if rm.pointer.is_empty() {
            std::borrow::Cow::Borrowed(fragment)
        } else {
            std::borrow::Cow::Owned(format!("{}{}", rm.pointer, fragment))
        };
        if let Some(id) = self.node_at(doc, &location) {
            return Some(id);
        }
        let doc_value: &'a Value = self.docs[doc.index()].value;
        let target = pointer::resolve(doc_value, &location)?;
        // Compile it with the base and dialect of its nearest compiled ancestor.
        let meta = self.context_at(doc, &location, resource);
        Some(self.mint(
            doc,
            target,
            &location,
            meta.base,
            meta.resource,
            meta.dialect,
        ))
    }

    /// The context a location of `doc` (in `resource`) is compiled in: its node's, or its
    /// nearest compiled ancestor's, or the resource's URI under the default dialect.
    pub(super) fn context_at(&mut self, doc: DocId, location: &str, resource: u32) -> NodeMeta {
        if let Some(id) = self.node_at(doc, location) {
            return self.meta[id.index()];
        }
        let mut ancestor = pointer::parent(location);
        loop {
            match ancestor {
                Some(p) => {
                    if let Some(id) = self.node_at(doc, p) {
                        return self.meta[id.index()];
                    }
                    ancestor = pointer::parent(p);
                }
                None => {
                    return NodeMeta {
                        base: self.new_base(self.out.resources[resource as usize].uri.clone()),
                        resource,
                        dialect: Dialect::standard(self.options.default_draft),
                    };
                }
            }
        }
    }

    pub(super) fn intern_anchor(&mut self, name: &str) -> AnchorId {
        let next = AnchorId::new(self.anchor_names.len());
        *self.anchor_names.entry(name.to_string()).or_insert(next)
    }

    /// A new resource named `uri`. A URI already claimed gets a resource all the same
    /// (each claimant is compiled in place as what it is), listed among the URI's
    /// claimants: only a reference that could reach two different subschemas through it
    /// is refused (`check_duplicates`).
    pub(super) fn new_resource(&mut self, uri: Arc<str>, doc: DocId, ptr: &str) -> u32 {
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
        self.claim(uri, idx);
        idx
    }

    /// Registers `resource` under `uri`: the URI's resource, or one more claimant of it.
    fn claim(&mut self, uri: Arc<str>, resource: u32) {
        match self.resource_by_uri.get(&*uri) {
            None => {
                self.resource_by_uri.insert(uri, resource);
            }
            Some(&first) => self
                .claimants
                .entry(uri)
                .or_insert_with(|| vec![first])
                .push(resource),
        }
    }

    /// The task's resource: a document root without `$id` still is one (named by the
    /// document URI).
    pub(super) fn ensure_resource(&mut self, task: &Task<'a>) -> u32 {
        if task.resource != u32::MAX {
            return task.resource;
        }
        let uri = self.docs[task.doc.index()].uri.clone();
        self.new_resource(uri, task.doc, &task.pointer)
    }

    /// Reads `$schema` on a resource root and returns the dialect it selects.
    pub(super) fn dialect_of(
        &mut self,
        task: &Task<'a>,
        declared: &str,
    ) -> Result<Dialect, SchemaError> {
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
                    self.docs[rm.doc.index()].value.pointer(&rm.pointer)
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

    pub(super) fn compile_object(
        &mut self,
        task: &mut Task<'a>,
        map: &Keys<'a>,
    ) -> Result<(), SchemaError> {
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
            let resolved = uri::resolve(id, &self.bases[task.base.index()])
                .map_err(|why| invalid(&task.pointer, id_kw, &why))?;
            let (no_fragment, fragment) = uri::split_fragment(&resolved);
            if !fragment.is_empty() && d.at_least(Draft::Draft201909) {
                return Err(invalid(
                    &task.pointer,
                    id_kw,
                    "must not have a non-empty fragment",
                ));
            }
            // Before 2019-09, a fragment that is a JSON pointer (`"#/x"`,
            // `"http://e.com/a#/x"`) names no anchor (a `/` fragment is always read as a
            // pointer) and gives no URI of its own: the `id` is no identifier at all.
            let pointer_fragment =
                pointer::percent_decode(fragment).is_some_and(|f| f.starts_with('/'));
            if !pointer_fragment {
                if !fragment.is_empty() {
                    anchor_from_id = Some(fragment.to_string());
                }
                if !id.starts_with('#') {
                    let no_fragment: Arc<str> = Arc::from(no_fragment);
                    task.base = self.new_base(no_fragment.clone());
                    let r = self.new_resource(no_fragment.clone(), task.doc, &task.pointer);
                    if is_doc_root {
                        // A document root gets its resource here (it starts without one),
                        // and keeps the document's URI as well.
                        let doc_uri = self.docs[task.doc.index()].uri.clone();
                        if doc_uri != no_fragment {
                            self.claim(doc_uri, r);
                        }
                    }
                    task.resource = r;
                }
            }
        }
        task.resource = self.ensure_resource(task);
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
            if dynamic {
                let n = self.intern_anchor(&name);
                self.out.resources[resource as usize]
                    .dynamic_anchors
                    .push((n, task.node));
            }
            // An anchor defined again in one resource is one more claimant of it, as a
            // URI claimed twice is (see `new_resource`).
            let key = (resource, name);
            match self.anchors.get(&key) {
                None => {
                    self.anchors.insert(key, (task.node, dynamic));
                }
                Some(&first) => self
                    .anchor_claimants
                    .entry(key)
                    .or_insert_with(|| vec![first])
                    .push((task.node, dynamic)),
            }
        }

        // Definitions are schemas too: compile them so their `$id`s and anchors are known.
        // `definitions` is no keyword in 2020-12, but real schemas keep using it: walk it
        // there only when it holds nothing but schemas.
        for (defs_key, is_keyword) in [
            (Kw::Defs, d.at_least(Draft::Draft201909)),
            (Kw::Definitions, !d.at_least(Draft::Draft202012)),
        ] {
            let defs_kw = defs_key.name();
            match map.kw(defs_key) {
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
            self.add_ref(task, r, RefKind::Ref)?;
            return Ok(());
        }
        self.compile_keywords(task, map)
    }

    pub(super) fn add_ref(
        &mut self,
        task: &Task<'a>,
        reference: &'a str,
        kind: RefKind,
    ) -> Result<(), SchemaError> {
        let kw = kind.name();
        if self.options.refs_fragment_only && !reference.starts_with('#') {
            return Err(SchemaError::new(
                SchemaErrorKind::ForbiddenReference,
                pointer::join(&task.pointer, &[kw]),
                format!(
                    "{reference:?} is not a fragment reference (only \"#...\" references are allowed)"
                ),
            ));
        }
        let slot = match kind {
            RefKind::Ref => RefSlot::Keyword(self.push_keyword(Keyword::Ref(NodeId::NONE), kw)),
            RefKind::Dynamic => {
                let anchor = uri::split_fragment(reference).1;
                let anchor =
                    (!anchor.is_empty() && !anchor.starts_with('/')).then(|| anchor.to_string());
                let anchor = anchor.map(|a| self.intern_anchor(&a));
                self.out.dynamic_refs.push(DynamicRef {
                    target: NodeId::NONE,
                    anchor,
                });
                let i = self.out.dynamic_refs.len() - 1;
                self.push_keyword(Keyword::DynamicRef(DynamicRefId::new(i)), kw);
                RefSlot::Dynamic(i)
            }
            RefKind::Recursive => {
                let anchor = Some(self.intern_anchor(""));
                self.out.dynamic_refs.push(DynamicRef {
                    target: NodeId::NONE,
                    anchor,
                });
                let i = self.out.dynamic_refs.len() - 1;
                self.push_keyword(Keyword::DynamicRef(DynamicRefId::new(i)), kw);
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
pub(super) fn resolve_outermost_anchors(out: &mut Compiled) {
    if out.dynamic_refs.is_empty() {
        return;
    }
    let root = out.nodes[out.root.index()].resource.index();
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

/// The keyword of an `$id` keyword name (`id` in draft 4).
pub(super) fn id_kw_of(name: &str) -> Kw {
    if name == "id" { Kw::LegacyId } else { Kw::Id }
}

/// `$anchor` names: a letter or underscore, then letters, digits, `-`, `_`, `.`, `:`.
pub(super) fn is_anchor_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}
