//! Lookup tables: hashed property names, hashed `enum` values, the property walk's
//! entries. Accelerators like the others (`Compiled::accel`), none built under
//! `Options::shortcuts(false)`, where lookups search the semantic tables (`Names::Sorted`,
//! an `enum`'s values scanned).

use crate::schema::{Compiled, Keyword, NodeId, SCAN_LIMIT, Span};

/// The `property_walk` entries: each property's subschema as `child` gives it, and its
/// required mark.
pub(super) fn walk_entries(
    c: &Compiled,
    child: impl Fn(&Compiled, NodeId) -> NodeId,
) -> Vec<(NodeId, u32)> {
    c.properties
        .iter()
        .zip(&c.accel.property_required)
        .map(|(&(_, b), &required)| (child(c, b), u32::from(required)))
        .collect()
}

#[inline(never)]
pub(super) fn property_tables(c: &mut Compiled, live: &[u32]) {
    // Summaries for name lookups, sorted within each span (hash tables hold them mixed).
    c.accel.property_sigs = c
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
                Keyword::AdditionalProperties(a) => spans.push(c.additional[a.index()].properties),
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
    c.accel.property_tables = vec![(0, 0); c.properties.len()];
    // (Sized once: the tables of a large schema took a megabyte in steps.)
    let hashed: usize = spans
        .iter()
        .filter(|span| span.len() > SCAN_LIMIT)
        .map(|span| (span.len() * 2).next_power_of_two())
        .sum();
    c.accel.property_hash.reserve(hashed);
    for span in spans {
        if span.len() <= SCAN_LIMIT {
            c.accel.property_sigs[span.range()].sort_unstable();
            continue;
        }
        if c.accel.property_tables[span.start as usize] != (0, 0) {
            continue;
        }
        // By summary, then name (the order `find_sorted` searches), then index (the first of
        // equal names is found first, as in a scan).
        let names = &c.properties;
        c.accel.property_sigs[span.range()].sort_unstable_by(|&(s, i), &(t, j)| {
            s.cmp(&t)
                .then_with(|| names[i as usize].0.cmp(&names[j as usize].0))
                .then(i.cmp(&j))
        });
        let start = c.accel.property_hash.len();
        c.accel.property_tables[span.start as usize] = match hash_names(c, span) {
            Some(mask) => (start as u32, mask),
            None => {
                c.accel.property_hash.truncate(start);
                let mark = (
                    crate::schema::sorted_span(span),
                    crate::schema::SORTED_NAMES,
                );
                c.accel.property_hash.push(mark);
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
    let sigs = &c.accel.property_sigs[span.range()];
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
    let start = c.accel.property_hash.len();
    c.accel.property_hash.resize(start + size, (0, u32::MAX));
    let table = &mut c.accel.property_hash[start..];
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
    if c.accel.enum_tables.len() < c.values.len() {
        c.accel.enum_tables.resize(c.values.len(), (0, 0));
    }
    // Open addressing, at most half full.
    let size = (span.len() * 2).next_power_of_two();
    let mask = size - 1;
    let start = c.accel.enum_hash.len();
    c.accel.enum_hash.resize(start + size, (0, u32::MAX));
    for j in span.range() {
        let sig = crate::json::enum_signature(&c.values[j]);
        let mut slot = crate::json::table_slot(sig) & mask;
        while c.accel.enum_hash[start + slot].1 != u32::MAX {
            slot = (slot + 1) & mask;
        }
        c.accel.enum_hash[start + slot] = (sig, j as u32);
    }
    c.accel.enum_tables[span.start as usize] = (start as u32, mask as u32);
}
