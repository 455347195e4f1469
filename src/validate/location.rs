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
    pub(crate) const fn root() -> Path<'static> {
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
    pub(crate) const fn root(root: NodeId) -> Hop<'static> {
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
    let parts = InstanceParts::of(path, child);
    let mut out = String::with_capacity(parts.len());
    parts.write(&mut out);
    out
}

/// The evaluation path to keyword `name` of `node`, through every reference taken.
pub(crate) fn keyword_pointer(c: &Compiled, hop: &Hop<'_>, node: NodeId, name: &str) -> String {
    let parts = KeywordParts::of(c, hop, node, name);
    let mut out = String::with_capacity(parts.len());
    parts.write(&mut out);
    out
}

/// Keyword `name` of `node` as its resource's URI plus a pointer fragment.
pub(crate) fn absolute_keyword_location(c: &Compiled, node: NodeId, name: &str) -> String {
    let parts = AbsoluteParts::of(c, node, name);
    let mut out = String::with_capacity(parts.len());
    parts.write(&mut out);
    out
}

/// An error's three locations (instance, keyword, absolute keyword) end to end in one
/// string sized once, and where the first two end: one allocation instead of three.
pub(crate) fn error_locations(
    c: &Compiled,
    path: &Path<'_>,
    child: Option<Seg<'_>>,
    hop: &Hop<'_>,
    node: NodeId,
    name: &str,
) -> (String, [u32; 2]) {
    let instance = InstanceParts::of(path, child);
    let keyword = KeywordParts::of(c, hop, node, name);
    let absolute = AbsoluteParts::of(c, node, name);
    let mut out = String::with_capacity(instance.len() + keyword.len() + absolute.len());
    instance.write(&mut out);
    let first = out.len();
    keyword.write(&mut out);
    let second = out.len();
    absolute.write(&mut out);
    // (Locations past 4 GiB cannot be: instances and schemas that large are refused.)
    let end = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (out, [end(first), end(second)])
}

/// The steps of an instance location, outermost last.
struct InstanceParts<'a> {
    segs: smallvec::SmallVec<[Seg<'a>; 8]>,
}

impl<'a> InstanceParts<'a> {
    fn of(path: &Path<'a>, child: Option<Seg<'a>>) -> InstanceParts<'a> {
        let mut segs: smallvec::SmallVec<[Seg<'a>; 8]> = smallvec::SmallVec::new();
        // (`push`, not `extend` from an `Option`: extend's generic reserve costs more than
        // the step itself.)
        if let Some(seg) = child {
            segs.push(seg);
        }
        let mut p = Some(path);
        while let Some(link) = p {
            if let Some(seg) = link.seg {
                segs.push(seg);
            }
            p = link.parent;
        }
        InstanceParts { segs }
    }

    /// Room for the pointer (escapes aside, which grow it a little).
    fn len(&self) -> usize {
        self.segs
            .iter()
            .map(|s| match s {
                Seg::Key(k) => k.len() + 1,
                Seg::Index(_) => 8,
            })
            .sum()
    }

    fn write(&self, out: &mut String) {
        for seg in self.segs.iter().rev() {
            match seg {
                Seg::Key(k) => pointer::push(out, k),
                Seg::Index(i) => {
                    use std::fmt::Write as _;
                    // Writing to a String cannot fail.
                    let _ = write!(out, "/{i}");
                }
            }
        }
    }
}

/// `node`'s pointer relative to `entry` (the node a reference landed on).
fn relative(c: &Compiled, node: NodeId, entry: NodeId) -> &str {
    let p = c.pointer_of(node);
    let e = c.pointer_of(entry);
    pointer::strip(p, e).unwrap_or(p)
}

/// The pieces of a keyword location: (pointer relative to the hop's entry, keyword),
/// innermost first.
struct KeywordParts<'c> {
    parts: smallvec::SmallVec<[(&'c str, &'c str); 4]>,
}

impl<'c> KeywordParts<'c> {
    fn of(c: &'c Compiled, hop: &Hop<'_>, node: NodeId, name: &'c str) -> KeywordParts<'c> {
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
        KeywordParts { parts }
    }

    fn len(&self) -> usize {
        self.parts
            .iter()
            .map(|(rel, name)| rel.len() + name.len() + 1)
            .sum()
    }

    fn write(&self, out: &mut String) {
        for (rel, name) in self.parts.iter().rev() {
            out.push_str(rel);
            if *name != "false" {
                pointer::push(out, name);
            }
        }
    }
}

/// The pieces of an absolute keyword location: resource URI, the node's pointer in the
/// resource, the keyword.
struct AbsoluteParts<'c> {
    uri: &'c str,
    ptr: &'c str,
    /// `ptr` needs no percent-encoding (every pointer of the schema is known not to).
    ptr_safe: bool,
    name: &'c str,
}

impl<'c> AbsoluteParts<'c> {
    fn of(c: &'c Compiled, node: NodeId, name: &'c str) -> AbsoluteParts<'c> {
        let resource = &c.resources[c.node(node).resource.index()];
        let full = c.pointer_of(node);
        let ptr = pointer::strip(full, &resource.root_pointer).unwrap_or("");
        let ptr_safe = *c
            .pointers_fragment_safe
            .get_or_init(|| pointer::fragment_safe(&c.pointer_text));
        AbsoluteParts {
            uri: &resource.uri,
            ptr,
            ptr_safe,
            name,
        }
    }

    /// URI, '#', the node's pointer, the keyword (and a little room for escapes).
    fn len(&self) -> usize {
        self.uri.len() + self.ptr.len() + self.name.len() + 8
    }

    fn write(&self, out: &mut String) {
        out.push_str(self.uri);
        out.push('#');
        if self.ptr_safe {
            out.push_str(self.ptr);
        } else {
            pointer::push_fragment(out, self.ptr);
        }
        let name = self.name;
        if name != "false" {
            if pointer::needs_escape(name) {
                let mut step = String::new();
                pointer::push(&mut step, name);
                pointer::push_fragment(out, &step);
            } else {
                out.push('/');
                pointer::push_fragment(out, name);
            }
        }
    }
}
