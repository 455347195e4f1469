//! Lookup tables the keyword loop reads in both configurations: hashed property names,
//! hashed `enum` values, the root's property walk; and `reference_tables`, all the
//! reference configuration (`Options::shortcuts(false)`) builds.

use crate::schema::{Compiled, Keyword, NodeId, SCAN_LIMIT, Span};

/// The `property_walk` entries: each property's subschema as `child` gives it, and its
/// required mark.
pub(super) fn walk_entries(
    c: &Compiled,
    child: impl Fn(&Compiled, NodeId) -> NodeId,
) -> Vec<(NodeId, u32)> {
    c.properties
        .iter()
        .zip(&c.property_required)
        .map(|(&(_, b), &required)| (child(c, b), u32::from(required)))
        .collect()
}

#[inline(never)]
pub(super) fn property_tables(c: &mut Compiled, live: &[u32]) {
    // Summaries for name lookups, sorted within each span (hash tables hold them mixed).
    c.property_sigs = c
        .properties
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (crate::names::summary(name), i as u32))
        .collect();
    let mut spans: smallvec::SmallVec<[_; 8]> = smallvec::SmallVec::new();
    for i in live.iter().map(|&i| i as usize) {
        for kw in c.keywords_of(NodeId(i as u32)) {
            match *kw {
                Keyword::Properties(span) => spans.push(span),
                Keyword::AdditionalProperties(a) => spans.push(c.additional[a as usize].properties),
                Keyword::PatternProperties(_)
                | Keyword::PropertyNames(_)
                | Keyword::DependentSchemas(_)
                | Keyword::PrefixItems(_)
                | Keyword::Items { .. }
                | Keyword::Contains(_)
                | Keyword::AllOf(_)
                | Keyword::AnyOf(_)
                | Keyword::OneOf(_)
                | Keyword::Not(_)
                | Keyword::If { .. }
                | Keyword::Ref(_)
                | Keyword::DynamicRef(_)
                | Keyword::UnevaluatedProperties(_)
                | Keyword::UnevaluatedItems(_)
                | crate::schema::assertion_keywords!() => {}
            }
        }
    }
    c.property_tables = vec![(0, 0); c.properties.len()];
    // (Sized once: the tables of a large schema took a megabyte in steps.)
    let hashed: usize = spans
        .iter()
        .filter(|span| span.len() > SCAN_LIMIT)
        .map(|span| (span.len() * 2).next_power_of_two())
        .sum();
    c.property_hash.reserve(hashed);
    for span in spans {
        if span.len() <= SCAN_LIMIT {
            c.property_sigs[span.range()].sort_unstable();
            continue;
        }
        if c.property_tables[span.start as usize] != (0, 0) {
            continue;
        }
        // By summary, then name (the order `find_sorted` searches), then index (the first of
        // equal names is found first, as in a scan).
        let names = &c.properties;
        c.property_sigs[span.range()].sort_unstable_by(|&(s, i), &(t, j)| {
            s.cmp(&t)
                .then_with(|| names[i as usize].0.cmp(&names[j as usize].0))
                .then(i.cmp(&j))
        });
        let start = c.property_hash.len();
        c.property_tables[span.start as usize] = match hash_names(c, span) {
            Some(mask) => (start as u32, mask),
            None => {
                c.property_hash.truncate(start);
                let mark = (
                    crate::schema::sorted_span(span),
                    crate::schema::SORTED_NAMES,
                );
                c.property_hash.push(mark);
                (start as u32, 0)
            }
        };
    }
}

/// The hash table of the names of `span` (over SCAN_LIMIT), appended to `property_hash`:
/// its mask, or `None` when a schema made its names crowd it (a signature shared by more
/// than `LARGEST_GROUP` names, a run of occupied slots longer than `LONGEST_RUN`), where
/// every lookup of a key meeting the crowd would walk it all. Building stops there too.
pub(super) fn hash_names(c: &mut Compiled, span: Span) -> Option<u32> {
    use crate::names::{LARGEST_GROUP, LONGEST_RUN};
    let sigs = &c.property_sigs[span.range()];
    // (Sorted by summary: a group is a run of equal ones.)
    let mut group = 0;
    for (k, &(summary, _)) in sigs.iter().enumerate() {
        group = if k > 0 && sigs[k - 1].0 == summary {
            group + 1
        } else {
            1
        };
        if group > LARGEST_GROUP {
            return None;
        }
    }
    // Open addressing, at most half full: about one probe per lookup.
    let size = (span.len() * 2).next_power_of_two();
    let mask = size - 1;
    let start = c.property_hash.len();
    c.property_hash.resize(start + size, (0, u32::MAX));
    let table = &mut c.property_hash[start..];
    for &(summary, i) in sigs {
        let sig = crate::names::mix(summary);
        let mut slot = sig as usize & mask;
        let mut probes = 0;
        while table[slot].1 != u32::MAX {
            slot = (slot + 1) & mask;
            probes += 1;
            if probes > LONGEST_RUN {
                return None;
            }
        }
        table[slot] = (sig, i);
    }
    // A run no insertion walked can still be long (names whose slots follow each other):
    // measured from an empty slot, which a half-full table has.
    let empty = table.iter().position(|e| e.1 == u32::MAX)?;
    let mut run = 0;
    for k in 1..=size {
        if table[(empty + k) & mask].1 == u32::MAX {
            run = 0;
        } else {
            run += 1;
            if run > LONGEST_RUN {
                return None;
            }
        }
    }
    u32::try_from(mask).ok()
}

/// The hash table of the `enum` values `span`, longer than `ENUM_SCAN_LIMIT` (see
/// `Compiled::enum_has_string`), made as the keyword compiles.
pub(crate) fn enum_table(c: &mut Compiled, span: Span) {
    if c.enum_tables.len() < c.values.len() {
        c.enum_tables.resize(c.values.len(), (0, 0));
    }
    // Open addressing, at most half full.
    let size = (span.len() * 2).next_power_of_two();
    let mask = size - 1;
    let start = c.enum_hash.len();
    c.enum_hash.resize(start + size, (0, u32::MAX));
    for j in span.range() {
        let sig = crate::json::enum_signature(&c.values[j]);
        let mut slot = crate::json::table_slot(sig) & mask;
        while c.enum_hash[start + slot].1 != u32::MAX {
            slot = (slot + 1) & mask;
        }
        c.enum_hash[start + slot] = (sig, j as u32);
    }
    c.enum_tables[span.start as usize] = (start as u32, mask as u32);
}

/// The tables the general keyword loop reads, for the reference configuration (see
/// `Options::shortcuts`): name lookups, and evaluation in compiled order. No shape, type
/// hoisting, cost order, fused `required`, forward skipping or other shortcut is made;
/// every node keeps the general shape and all types.
pub(crate) fn reference_tables(c: &mut Compiled) {
    let all: Vec<u32> = (0..c.nodes.len() as u32).collect();
    property_tables(c, &all);
    let n = c.properties.len();
    c.property_order = (0..n as u32).collect();
    c.property_rank = vec![0; n];
    for i in all.iter().map(|&i| i as usize) {
        for kw in &c.keywords[c.nodes[i].keywords.range()] {
            if let Keyword::Properties(span) = *kw {
                for (rank, j) in span.range().enumerate() {
                    c.property_rank[j] = rank as u32;
                }
            }
        }
    }
    // The fail-fast `properties` walks the instance's keys and looks each one up: the
    // plainest order, with no required name counted on the way.
    c.deferred_in_name_order = vec![true; n];
    c.property_required = vec![false; n];
    c.walk_required = vec![0; n];
    c.required_walked = vec![false; c.strings.len()];
    c.property_patterned = vec![false; n];
    c.property_walk = walk_entries(c, |_, b| b);
    c.fail_fast_root = c.root;
}
