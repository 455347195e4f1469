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
    let mut segs: smallvec::SmallVec<[Seg<'_>; 8]> = smallvec::SmallVec::new();
    segs.extend(child);
    let mut p = Some(path);
    while let Some(link) = p {
        segs.extend(link.seg);
        p = link.parent;
    }
    let len: usize = segs
        .iter()
        .map(|s| match s {
            Seg::Key(k) => k.len() + 1,
            Seg::Index(_) => 8,
        })
        .sum();
    let mut out = String::with_capacity(len);
    for seg in segs.iter().rev() {
        match seg {
            Seg::Key(k) => pointer::push(&mut out, k),
            Seg::Index(i) => {
                use std::fmt::Write as _;
                // Writing to a String cannot fail.
                let _ = write!(out, "/{i}");
            }
        }
    }
    out
}

/// `node`'s pointer relative to `entry` (the node a reference landed on).
fn relative(c: &Compiled, node: NodeId, entry: NodeId) -> &str {
    let p = c.pointer_of(node);
    let e = c.pointer_of(entry);
    pointer::strip(p, e).unwrap_or(p)
}

/// The evaluation path to keyword `name` of `node`, through every reference taken.
pub(crate) fn keyword_pointer(c: &Compiled, hop: &Hop<'_>, node: NodeId, name: &str) -> String {
    let mut parts: smallvec::SmallVec<[(&str, &str); 4]> = smallvec::SmallVec::new();
    parts.push((relative(c, node, hop.entry), name));
    let mut h = hop;
    while let Some(parent) = h.parent {
        parts.push((
            relative(c, h.via, parent.entry),
            c.keyword_names[h.via_keyword],
        ));
        h = parent;
    }
    let len: usize = parts
        .iter()
        .map(|(rel, name)| rel.len() + name.len() + 1)
        .sum();
    let mut out = String::with_capacity(len);
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
    let full = c.pointer_of(node);
    let ptr = pointer::strip(full, &resource.root_pointer).unwrap_or("");
    // One string, sized once: URI, '#', the node's pointer, the keyword.
    let mut out = String::with_capacity(resource.uri.len() + ptr.len() + name.len() + 8);
    out.push_str(&resource.uri);
    out.push('#');
    pointer::push_fragment(&mut out, ptr);
    if name != "false" {
        if name.contains(['~', '/']) {
            let mut step = String::new();
            pointer::push(&mut step, name);
            pointer::push_fragment(&mut out, &step);
        } else {
            out.push('/');
            pointer::push_fragment(&mut out, name);
        }
    }
    out
}
