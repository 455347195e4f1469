//! URIs and plain-name anchors claimed more than once.
//!
//! The specification lets a validator refuse a URI that identifies two schemas, but a
//! schema whose duplicates no reference can tell apart has one meaning: each claimant is
//! compiled in place as what it is, and only a reference that could reach two different
//! subschemas through a URI or anchor claimed twice is refused. Claimants are the same
//! when their values are equal as JSON and they are read in the same context (dialect,
//! base URI, and, when their resources hold dynamic anchors, the same resource text).

use super::*;

/// The most claimants the compiler looks at, in all, to resolve and check references to
/// URIs and anchors claimed more than once: a schema of thousands of claimants and
/// thousands of references to them would otherwise cost their product. Legitimate
/// schemas stay far below (a hundred claimants of one URI with a thousand distinct
/// references to it look at 100,000).
pub(super) const MAX_CLAIMANT_LOOKUPS: usize = 1_000_000;

/// A URI or anchor claimed more than once that the compile accepted (for `lint`).
#[derive(Debug, Clone)]
pub(crate) struct Duplicate {
    /// `the URI "..."` or `the anchor "..."`.
    pub what: String,
    /// Where it is claimed first and where again, as the error messages name them.
    pub first: String,
    pub other: String,
    /// The second claimant's location in the root document (a JSON pointer), or `None`
    /// when it is in a registered document.
    pub location: Option<String>,
    /// The claimants are the same subschema in the same context (else no reference
    /// reaches them).
    pub identical: bool,
}

/// A subschema a reference could reach, with the context its meaning depends on.
struct Candidate<'a> {
    doc: DocId,
    location: String,
    value: &'a Value,
    meta: NodeMeta,
}

impl<'a> Compiler<'a> {
    /// Counts `n` more claimants looked at; past [`MAX_CLAIMANT_LOOKUPS`], the schema is
    /// refused at the location `what` gives (with what is claimed).
    pub(super) fn count_claimant_lookups(
        &mut self,
        n: usize,
        what: impl FnOnce(&Self) -> (String, String),
    ) -> Result<(), SchemaError> {
        self.claimant_lookups = self.claimant_lookups.saturating_add(n);
        if self.claimant_lookups <= MAX_CLAIMANT_LOOKUPS {
            return Ok(());
        }
        let (at, claimed) = what(self);
        Err(SchemaError::new(
            SchemaErrorKind::DuplicateIdentifier,
            at,
            format!(
                "{claimed} is claimed by too many subschemas for the references to it to be checked (past {MAX_CLAIMANT_LOOKUPS} claimants looked at in all); give each its own $id or anchor"
            ),
        ))
    }

    /// Refuses every reference that could reach two different subschemas through a URI
    /// or anchor claimed more than once, naming both; and a `$dynamicAnchor` defined
    /// twice in one resource with different subschemas when a `$dynamicRef` names it.
    pub(super) fn check_duplicates(&mut self) -> Result<(), SchemaError> {
        let mut refs: Vec<(&'a str, BaseId, NodeId, &'static str)> = self
            .resolved
            .iter()
            .map(|(&(reference, base), &(_, at, keyword))| (reference, base, at, keyword))
            .collect();
        // (The map's order is random: report the first in the document's order.)
        refs.sort_unstable_by_key(|&(reference, base, at, keyword)| {
            (at.index(), keyword, reference, base.index())
        });
        // (What a reference can reach depends on its URI and fragment alone.)
        let mut checked: ahash::AHashSet<(String, String)> = ahash::AHashSet::new();
        for (reference, base, at, keyword) in refs {
            let Some((what, candidates, examined)) = self.candidates(reference, base, &mut checked)
            else {
                continue;
            };
            self.count_claimant_lookups(examined, |c| {
                (
                    pointer::join(c.out.pointer_of(at), &[keyword]),
                    what.clone(),
                )
            })?;
            let Some((first, rest)) = candidates.split_first() else {
                continue;
            };
            if let Some(other) = rest.iter().find(|c| !self.same(first, c)) {
                return Err(SchemaError::new(
                    SchemaErrorKind::DuplicateIdentifier,
                    pointer::join(self.out.pointer_of(at), &[keyword]),
                    format!(
                        "{reference:?} could reach two different subschemas: {what} is claimed at {} and at {}",
                        self.describe(first),
                        self.describe(other)
                    ),
                ));
            }
        }
        let mut repeated: Vec<(&String, Vec<NodeId>)> = self
            .anchor_claimants
            .iter()
            .map(|((_, name), all)| {
                let dynamic = all.iter().filter(|(_, d)| *d).map(|&(n, _)| n).collect();
                (name, dynamic)
            })
            .filter(|(_, dynamic): &(_, Vec<NodeId>)| dynamic.len() > 1)
            .collect();
        repeated.sort_unstable_by_key(|(_, nodes)| nodes[0].index());
        let repeated: Vec<(String, Vec<NodeId>)> = repeated
            .into_iter()
            .map(|(name, nodes)| (name.clone(), nodes))
            .collect();
        for (name, nodes) in repeated {
            let Some(&id) = self.anchor_names.get(&name) else {
                continue;
            };
            if !self.out.dynamic_refs.iter().any(|d| d.anchor == Some(id)) {
                continue;
            }
            self.count_claimant_lookups(nodes.len(), |c| {
                let at = c.out.pointer_of(nodes[0]);
                (
                    pointer::join(at, &["$dynamicAnchor"]),
                    format!("the $dynamicAnchor {name:?}"),
                )
            })?;
            let candidates: Vec<Candidate<'a>> = nodes
                .iter()
                .filter_map(|&n| self.node_candidate(n))
                .collect();
            let Some((first, rest)) = candidates.split_first() else {
                continue;
            };
            if let Some(other) = rest.iter().find(|c| !self.same(first, c)) {
                return Err(SchemaError::new(
                    SchemaErrorKind::DuplicateIdentifier,
                    pointer::join(&other.location, &["$dynamicAnchor"]),
                    format!(
                        "the $dynamicAnchor {name:?} is defined at {} and at {} in one schema resource with different subschemas, and a $dynamicRef names it",
                        self.describe(first),
                        self.describe(other)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every subschema `reference` (from `base`) could reach when its URI or anchor is
    /// claimed more than once (with how to name what is claimed, and how many claimants
    /// and candidates were looked at); `None` when only one
    /// thing can answer it, or when the URI and fragment it names are in `checked`
    /// already (they are added).
    fn candidates(
        &mut self,
        reference: &str,
        base: BaseId,
        checked: &mut ahash::AHashSet<(String, String)>,
    ) -> Option<(String, Vec<Candidate<'a>>, usize)> {
        let base_uri = self.bases[base.index()].clone();
        let full;
        let (resource_uri, fragment) = match uri::plain_fragment(reference, &base_uri) {
            Some(fragment) => (&*base_uri, fragment),
            None => {
                full = uri::resolve(reference, &base_uri).ok()?;
                uri::split_fragment(&full)
            }
        };
        let fragment = pointer::percent_decode(fragment)?.into_owned();
        let first = *self.resource_by_uri.get(resource_uri)?;
        let claimants = match self.claimants.get(resource_uri) {
            Some(all) => all.clone(),
            None => vec![first],
        };
        let is_pointer = fragment.is_empty() || fragment.starts_with('/');
        let repeated_anchor = |c: &Compiler<'a>, r: u32| {
            c.anchor_claimants
                .get(&(r, fragment.clone()))
                .map(|all| all.iter().map(|&(n, _)| n).collect::<Vec<_>>())
        };
        if claimants.len() == 1 && (is_pointer || repeated_anchor(self, first).is_none()) {
            return None;
        }
        // A reference whose candidates were checked already (from another base, in other
        // words) costs nothing more.
        if !checked.insert((resource_uri.to_string(), fragment.clone())) {
            return None;
        }
        let mut out = Vec::new();
        for &claimant in &claimants {
            if is_pointer {
                let rm = &self.resource_meta[claimant as usize];
                let (doc, location) = (rm.doc, format!("{}{}", rm.pointer, fragment));
                if let Some(value) = pointer::resolve(self.docs[doc.index()].value, &location) {
                    let meta = self.context_at(doc, &location, claimant);
                    out.push(Candidate {
                        doc,
                        location,
                        value,
                        meta,
                    });
                }
            } else {
                let nodes = repeated_anchor(self, claimant).unwrap_or_else(|| {
                    self.anchors
                        .get(&(claimant, fragment.clone()))
                        .map(|&(n, _)| n)
                        .into_iter()
                        .collect()
                });
                out.extend(nodes.into_iter().filter_map(|n| self.node_candidate(n)));
            }
        }
        let what = match (is_pointer, claimants.len() > 1) {
            (true, _) => format!("the URI {resource_uri:?}"),
            (false, true) => format!("the URI {resource_uri:?} (with its anchor {fragment:?})"),
            (false, false) => format!("the anchor {fragment:?}"),
        };
        let examined = claimants.len() + out.len();
        Some((what, out, examined))
    }

    /// A compiled node as a candidate.
    fn node_candidate(&self, node: NodeId) -> Option<Candidate<'a>> {
        let meta = self.meta[node.index()];
        let doc = self.resource_meta.get(meta.resource as usize)?.doc;
        let location = self.out.pointer_of(node).to_string();
        let value = pointer::resolve(self.docs[doc.index()].value, &location)?;
        Some(Candidate {
            doc,
            location,
            value,
            meta,
        })
    }

    /// Whether two candidates mean the same: one location, or equal values read in the
    /// same dialect from the same base URI, in resources whose dynamic anchors agree.
    fn same(&self, a: &Candidate<'a>, b: &Candidate<'a>) -> bool {
        if a.doc == b.doc && a.location == b.location {
            return true;
        }
        a.value == b.value
            && a.meta.dialect == b.meta.dialect
            && self.bases[a.meta.base.index()] == self.bases[b.meta.base.index()]
            && self.same_dynamic_anchors(a.meta.resource, b.meta.resource)
    }

    /// A `$dynamicRef` met inside either resource resolves alike: the same resource, or
    /// neither has a dynamic (or recursive) anchor, or their texts are equal.
    fn same_dynamic_anchors(&self, a: u32, b: u32) -> bool {
        if a == b {
            return true;
        }
        let plain = |r: u32| {
            self.out
                .resources
                .get(r as usize)
                .is_some_and(|res| res.dynamic_anchors.is_empty())
        };
        if plain(a) && plain(b) {
            return true;
        }
        let text = |r: u32| {
            let rm = self.resource_meta.get(r as usize)?;
            pointer::resolve(self.docs[rm.doc.index()].value, &rm.pointer)
        };
        text(a).is_some() && text(a) == text(b)
    }

    /// A candidate's location for a message: a JSON pointer, with the document's URI
    /// when it is a registered document.
    fn describe(&self, c: &Candidate<'a>) -> String {
        match (c.doc.index(), c.location.is_empty()) {
            (0, true) => "the root".to_string(),
            (0, false) => format!("{:?}", c.location),
            (d, _) => format!("{:?}", format!("{}#{}", self.docs[d].uri, c.location)),
        }
    }

    /// Every URI and anchor claimed more than once, each later claimant against the first.
    pub(super) fn duplicate_notes(&mut self) -> Vec<Duplicate> {
        let mut groups: Vec<(String, Vec<Candidate<'a>>)> = Vec::new();
        let mut uris: Vec<(Arc<str>, Vec<u32>)> = self
            .claimants
            .iter()
            .map(|(u, all)| (u.clone(), all.clone()))
            .collect();
        uris.sort_unstable();
        for (uri, claimants) in uris {
            let mut candidates = Vec::new();
            for r in claimants {
                let rm = &self.resource_meta[r as usize];
                let (doc, location) = (rm.doc, rm.pointer.clone());
                if let Some(value) = pointer::resolve(self.docs[doc.index()].value, &location) {
                    let meta = self.context_at(doc, &location, r);
                    candidates.push(Candidate {
                        doc,
                        location,
                        value,
                        meta,
                    });
                }
            }
            groups.push((format!("the URI {uri:?}"), candidates));
        }
        let mut anchors: Vec<(String, Vec<NodeId>)> = self
            .anchor_claimants
            .iter()
            .map(|((_, name), all)| (name.clone(), all.iter().map(|&(n, _)| n).collect()))
            .collect();
        anchors.sort_unstable_by_key(|(_, nodes)| nodes.first().map(|n| n.index()));
        for (name, nodes) in anchors {
            let candidates = nodes
                .into_iter()
                .filter_map(|n| self.node_candidate(n))
                .collect();
            groups.push((format!("the anchor {name:?}"), candidates));
        }
        let mut notes = Vec::new();
        for (what, candidates) in groups {
            let Some((first, rest)) = candidates.split_first() else {
                continue;
            };
            for other in rest {
                notes.push(Duplicate {
                    what: what.clone(),
                    first: self.describe(first),
                    other: self.describe(other),
                    location: (other.doc.index() == 0).then(|| other.location.clone()),
                    identical: self.same(first, other),
                });
            }
        }
        notes
    }
}
