//! Locations kept as linked lists on the call stack; strings are built only for errors.

use crate::compile::pointer;
use crate::schema::{Compiled, NodeId};

/// One step into the instance.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The instance location: a chain of steps, innermost first.
pub(crate) struct Path<'a> {
    seg: Option<Seg<'a>>,
    parent: Option<&'a Path<'a>>,
}

impl<'a> Path<'a> {
    pub(crate) fn root() -> Path<'static> {
        Path {
            seg: None,
            parent: None,
        }
    }

    #[inline(always)]
    pub(crate) fn push(&'a self, seg: Seg<'a>) -> Path<'a> {
        Path {
            seg: Some(seg),
            parent: Some(self),
        }
    }
}

/// A reference taken during evaluation: keyword locations restart below `entry`.
pub(crate) struct Hop<'a> {
    pub(crate) parent: Option<&'a Hop<'a>>,
    /// The node holding the reference, and the reference keyword's index.
    pub(crate) via: NodeId,
    pub(crate) via_keyword: usize,
    /// The node the reference landed on.
    pub(crate) entry: NodeId,
}

impl Hop<'static> {
    pub(crate) fn root(root: NodeId) -> Hop<'static> {
        Hop {
            parent: None,
            via: NodeId::NONE,
            via_keyword: 0,
            entry: root,
        }
    }
}

/// RFC 6901 pointer of `path` (plus `child`).
pub(crate) fn instance_pointer(path: &Path<'_>, child: Option<Seg<'_>>) -> String {
    let mut segs: Vec<Seg<'_>> = Vec::new();
    segs.extend(child);
    let mut p = Some(path);
    while let Some(link) = p {
        segs.extend(link.seg);
        p = link.parent;
    }
    let mut out = String::new();
    for seg in segs.iter().rev() {
        match seg {
            Seg::Key(k) => pointer::push(&mut out, k),
            Seg::Index(i) => {
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
    out
}

/// `node`'s pointer relative to `entry` (the node a reference landed on).
fn relative(c: &Compiled, node: NodeId, entry: NodeId) -> &str {
    let p = &c.node_info[node.index()].pointer;
    let e = &c.node_info[entry.index()].pointer;
    pointer::strip(p, e).unwrap_or(p)
}

/// The evaluation path to keyword `name` of `node`, through every reference taken.
pub(crate) fn keyword_pointer(c: &Compiled, hop: &Hop<'_>, node: NodeId, name: &str) -> String {
    let mut parts: Vec<(&str, &str)> = vec![(relative(c, node, hop.entry), name)];
    let mut h = hop;
    while let Some(parent) = h.parent {
        parts.push((
            relative(c, h.via, parent.entry),
            c.keyword_names[h.via_keyword],
        ));
        h = parent;
    }
    let mut out = String::new();
    for (rel, name) in parts.iter().rev() {
        out.push_str(rel);
        if *name != "false" {
            pointer::push(&mut out, name);
        }
    }
    out
}

/// Keyword `name` of `node` as its resource's URI plus a pointer fragment.
pub(crate) fn absolute_keyword_location(c: &Compiled, node: NodeId, name: &str) -> String {
    let resource = &c.resources[c.node(node).resource as usize];
    let full = &c.node_info[node.index()].pointer;
    let mut ptr = pointer::strip(full, &resource.root_pointer)
        .unwrap_or("")
        .to_string();
    if name != "false" {
        pointer::push(&mut ptr, name);
    }
    format!("{}#{}", resource.uri, pointer::to_fragment(&ptr))
}
