//! Arbitrary bytes through `flat::Document::parse` and `serde_json::from_slice::<Value>`:
//! no panic; both accept or both refuse; when both accept, the values agree through
//! `flat::Instance` (kinds, JSON types, number forms and bits, strings, lengths, every key
//! found by name and summary, both ways) and `flat::equal` holds between them. One `Document` is
//! reused across runs, as a server reuses it.
//!
//! ```text
//! cd fuzz && cargo +nightly fuzz run -O flat corpus/flat -- -max_total_time=180
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::cell::RefCell;
use toolschema::flat::{self, Array, Document, Instance, Kind, Object};

/// serde_json's private key for a `RawValue` in a map.
const RAW_VALUE_TOKEN: &[u8] = b"$serde_json::private::RawValue";

/// Inputs past this are skipped (the parser is linear; longer inputs only slow the run).
const MAX_INPUT: usize = 64 * 1024;

thread_local! {
    static DOC: RefCell<Document> = RefCell::new(Document::new());
}

fn agree<'a, 'b, A: Instance<'a>, B: Instance<'b>>(a: A, b: B) -> Result<(), String> {
    if a.kind() != b.kind() || a.json_type() != b.json_type() {
        return Err(format!("kind {:?} vs {:?}", a.json_type(), b.json_type()));
    }
    match a.kind() {
        Kind::Null => Ok(()),
        Kind::Bool => (a.as_bool() == b.as_bool())
            .then_some(())
            .ok_or_else(|| "bool".into()),
        Kind::Number => {
            let form = |n: Option<serde_json::Number>| {
                n.map(|n| {
                    (
                        n.as_u64(),
                        n.as_i64(),
                        n.is_f64(),
                        n.as_f64().map(f64::to_bits),
                    )
                })
            };
            let (x, y) = (form(a.as_number()), form(b.as_number()));
            (x == y)
                .then_some(())
                .ok_or_else(|| format!("number {x:?} vs {y:?}"))
        }
        Kind::String => (a.as_str() == b.as_str())
            .then_some(())
            .ok_or_else(|| "string".into()),
        Kind::Array => {
            let (Some(x), Some(y)) = (a.as_array(), b.as_array()) else {
                return Err("array".into());
            };
            if x.len() != y.len() {
                return Err("array length".into());
            }
            x.iter().zip(y.iter()).try_for_each(|(p, q)| agree(p, q))
        }
        Kind::Object => {
            let (Some(x), Some(y)) = (a.as_object(), b.as_object()) else {
                return Err("object".into());
            };
            if x.len() != y.len() {
                return Err(format!("object length {} vs {}", x.len(), y.len()));
            }
            x.entries().try_for_each(|(k, s, v)| {
                if s != flat::summary(k) {
                    return Err(format!("summary of {k:?}"));
                }
                match y.get(k, s) {
                    Some(w) => agree(v, w),
                    None => Err(format!("key {k:?}")),
                }
            })
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let theirs = serde_json::from_slice::<Value>(data);
    DOC.with(|doc| {
        let mut doc = doc.borrow_mut();
        let ours = doc.parse(data);
        match (&ours, &theirs) {
            (Ok(tree), Ok(value)) => {
                let root = tree.root();
                if let Err(e) = agree(root, value) {
                    panic!("values differ ({e}) on {:?}", String::from_utf8_lossy(data));
                }
                // (And the other way: each of the `Value`'s keys looked up in the flat
                // object, by scan or, in a large one, through its sorted index.)
                if let Err(e) = agree(value, root) {
                    panic!("values differ ({e}) on {:?}", String::from_utf8_lossy(data));
                }
                assert!(
                    flat::equal(root, value),
                    "not equal: {:?}",
                    String::from_utf8_lossy(data)
                );
            }
            (Err(_), Err(_)) => {}
            // serde_json with `raw_value` (which the crate enables) reads a map whose first
            // key is its private token as a `RawValue`, and refuses one that is not: valid
            // JSON the flat parser rightly accepts (fuzz/KNOWN_DIFFERENCES.md).
            (Ok(_), Err(_))
                if data
                    .windows(RAW_VALUE_TOKEN.len())
                    .any(|w| w == RAW_VALUE_TOKEN) => {}
            (Ok(_), Err(e)) => panic!(
                "serde_json refuses ({e}), flat accepts: {:?}",
                String::from_utf8_lossy(data)
            ),
            (Err(e), Ok(_)) => panic!(
                "flat refuses ({e}), serde_json accepts: {:?}",
                String::from_utf8_lossy(data)
            ),
        }
        if let Err(e) = &ours {
            assert!(e.offset <= data.len(), "offset past the end");
        }
    });
});
