//! The layout against serde_json: structure, number forms, equality and hashes through
//! [`Instance`], on every instance of the official suite and of the bench corpus; and
//! white-box checks of the slots and of duplicate keys.

use super::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Whether two instances hold the same value in the same forms (a number's `u64`, `i64`
/// or `f64` form and bits), checked through the trait only; each entry's summary is the
/// name's.
fn agree<'a, 'b, A: Instance<'a>, B: Instance<'b>>(a: A, b: B, at: &str) -> Result<(), String> {
    let fail = |what: &str| Err(format!("{at}: {what}"));
    if a.kind() != b.kind() {
        return fail(&format!("kind {:?} vs {:?}", a.kind(), b.kind()));
    }
    if a.json_type() != b.json_type() {
        return fail("json type");
    }
    match a.kind() {
        Kind::Null => {}
        Kind::Bool => {
            if a.as_bool() != b.as_bool() {
                return fail("bool");
            }
        }
        Kind::Number => {
            let (Some(x), Some(y)) = (a.as_number(), b.as_number()) else {
                return fail("no number");
            };
            let form = |n: &serde_json::Number| {
                (
                    n.as_u64(),
                    n.as_i64(),
                    n.is_f64(),
                    n.as_f64().map(f64::to_bits),
                )
            };
            if form(&x) != form(&y) {
                return fail(&format!("number {x} vs {y}"));
            }
        }
        Kind::String => {
            if a.as_str() != b.as_str() {
                return fail("string");
            }
        }
        Kind::Array => {
            let (Some(x), Some(y)) = (a.as_array(), b.as_array()) else {
                return fail("no array");
            };
            if x.len() != y.len() || x.iter().len() != x.len() {
                return fail("array length");
            }
            for (i, (p, q)) in x.iter().zip(y.iter()).enumerate() {
                agree(p, q, &format!("{at}/{i}"))?;
                let (Some(p), Some(q)) = (x.get(i), y.get(i)) else {
                    return fail("array get");
                };
                agree(p, q, &format!("{at}/{i}"))?;
            }
            if x.get(x.len()).is_some() {
                return fail("get past the end");
            }
        }
        Kind::Object => {
            let (Some(x), Some(y)) = (a.as_object(), b.as_object()) else {
                return fail("no object");
            };
            if x.len() != y.len() || x.entries().count() != x.len() {
                return fail("object length");
            }
            for (k, s, v) in x.entries() {
                if s != summary(k) {
                    return fail(&format!("summary of {k:?}"));
                }
                let Some(w) = y.get(k, s) else {
                    return fail(&format!("no key {k:?}"));
                };
                agree(v, w, &format!("{at}/{k}"))?;
                if !x.contains(k, s) {
                    return fail("contains");
                }
            }
            for (k, s, w) in y.entries() {
                match x.get(k, s) {
                    Some(v) if s == summary(k) => agree(v, w, &format!("{at}/{k} (get)"))?,
                    _ => return fail(&format!("entry {k:?}")),
                }
            }
            let absent = "\u{0}absent";
            if x.contains(absent, summary(absent)) {
                return fail("absent key found");
            }
        }
    }
    Ok(())
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

/// The instances of every test of the official suite (all dialects, optional tests too),
/// grouped as the suite groups them: each as compact and as pretty text.
fn suite_groups() -> Vec<Vec<String>> {
    let mut files = Vec::new();
    json_files(&shared().join("JSON-Schema-Test-Suite/tests"), &mut files);
    files.sort();
    assert!(files.len() > 300, "the suite: {} files", files.len());
    let mut groups = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        let Ok(Value::Array(file_groups)) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        for group in file_groups {
            let texts: Vec<String> = group["tests"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|t| {
                    [
                        serde_json::to_string(&t["data"]).expect("json"),
                        serde_json::to_string_pretty(&t["data"]).expect("json"),
                    ]
                })
                .collect();
            groups.push(texts);
        }
    }
    groups
}

fn corpus_instances() -> Vec<String> {
    let dir = shared().join("bench/corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("bench corpus")
        .flatten()
        .map(|e| e.path().join("instances.jsonl"))
        .filter(|p| p.is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "{} cases", cases.len());
    cases
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .expect("read")
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_suite_instance_agrees_with_serde_json_with_equality_and_hashes() {
    let state = crate::json::table_state();
    let mut doc = Document::new();
    let mut other = Document::new();
    let (mut instances, mut pairs) = (0, 0);
    for texts in suite_groups() {
        let values: Vec<Value> = texts
            .iter()
            .map(|t| serde_json::from_str(t).expect("serde_json reads the suite"))
            .collect();
        for (i, text) in texts.iter().enumerate() {
            let tree = doc.parse_str(text).expect("parses");
            let root = tree.root();
            let value = &values[i];
            agree(root, value, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(root.json_type(), crate::json::JsonType::of(value), "{text}");
            assert_eq!(
                tree.count_values(),
                crate::json::count_values(value),
                "{text}"
            );
            assert_eq!(
                hash(root, state),
                crate::json::hash_value(value, state),
                "{text}"
            );
            assert_eq!(hash(value, state), crate::json::hash_value(value, state));
            instances += 1;
            // Equality through the trait, both representations mixed, against json.rs.
            for (j, other_text) in texts.iter().enumerate() {
                let other_tree = other.parse_str(other_text).expect("parses");
                let expected = crate::json::equal(value, &values[j]);
                let o = other_tree.root();
                assert_eq!(equal(root, o), expected, "{text} == {other_text}");
                assert_eq!(equal(root, &values[j]), expected, "{text} == {other_text}");
                assert_eq!(equal(value, o), expected, "{text} == {other_text}");
                assert_eq!(equal(value, &values[j]), expected, "{text} == {other_text}");
                if expected {
                    assert_eq!(hash(root, state), hash(o, state), "{text} {other_text}");
                }
                pairs += 1;
            }
        }
    }
    assert!(instances > 10_000, "{instances} instances");
    assert!(pairs > 100_000, "{pairs} pairs");
}

#[test]
fn every_bench_corpus_instance_agrees_with_serde_json() {
    let state = crate::json::table_state();
    let mut doc = Document::new();
    let instances = corpus_instances();
    assert!(instances.len() > 1000, "{} instances", instances.len());
    for text in &instances {
        let value: Value = serde_json::from_str(text).expect("serde_json reads the corpus");
        let tree = doc.parse_str(text).expect("parses");
        agree(tree.root(), &value, "").unwrap_or_else(|e| panic!("{e}"));
        assert!(equal(tree.root(), &value));
        assert_eq!(
            hash(tree.root(), state),
            crate::json::hash_value(&value, state)
        );
    }
}

#[test]
fn slots_are_sixteen_bytes_and_children_contiguous() {
    assert_eq!(std::mem::size_of::<Slot>(), 16);
    assert_eq!(std::mem::size_of::<Node<'_>>(), 16);
    let mut doc = Document::new();
    let tree = doc
        .parse_str(r#" {"a": [1, 2, {"x": null}], "b\n": "t\u00e9xt", "c": true} "#)
        .expect("parses");
    // Root, 3 entries (6 slots), 3 items, 1 entry (2 slots).
    assert_eq!(tree.slot_count(), 1 + 6 + 3 + 2);
    let root = tree.root().as_object().expect("object");
    let keys: Vec<&str> = root.entries().map(|(k, _, _)| k).collect();
    assert_eq!(keys, ["a", "b\n", "c"]);
    let b = root.get("b\n", summary("b\n")).and_then(|v| v.as_str());
    assert_eq!(b, Some("t\u{e9}xt"));
    let a = root
        .get("a", summary("a"))
        .and_then(|v| v.as_array())
        .expect("a");
    assert_eq!(a.iter().nth(2).map(|n| n.kind()), Some(Kind::Object));
    assert_eq!(a.iter().rev().nth(2).map(|n| n.kind()), Some(Kind::Number));
    assert_eq!(a.get(0).and_then(|n| n.number_text()), Some("1"));
    // A string borrowed from the input points into it; an escaped one does not.
    let input = r#"["plain", "esc\"aped"]"#;
    let tree = doc.parse_str(input).expect("parses");
    let items = tree.root().as_array().expect("array");
    let plain = items.get(0).and_then(|n| n.as_str()).expect("plain");
    assert!(input.as_bytes().as_ptr_range().contains(&plain.as_ptr()));
    let escaped = items.get(1).and_then(|n| n.as_str()).expect("escaped");
    assert_eq!(escaped, "esc\"aped");
    assert!(!input.as_bytes().as_ptr_range().contains(&escaped.as_ptr()));
}

#[test]
fn numbers_take_serde_json_forms_and_keep_their_text() {
    let mut doc = Document::new();
    for text in [
        "0",
        "-0",
        "-0.0",
        "1.0",
        "-1",
        "1e2",
        "1E+2",
        "2.5e-3",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1e-400",
        "0.1",
        "1.7976931348623157e308",
        "4.9e-324",
        "9007199254740993",
    ] {
        let value: Value = serde_json::from_str(text).expect(text);
        let tree = doc.parse_str(text).expect(text);
        agree(tree.root(), &value, text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tree.root().number_text(), Some(text));
    }
    for text in ["1e400", "-1e400", "1e309"] {
        assert!(serde_json::from_str::<Value>(text).is_err());
        let err = doc.parse_str(text).expect_err(text);
        assert_eq!(err.kind, ParseErrorKind::NumberOutOfRange, "{text}");
        assert_eq!(err.offset, 0);
    }
}

#[test]
fn a_repeated_key_keeps_its_first_place_and_its_last_value() {
    let mut doc = Document::new();
    let text = r#"{"a": 1, "b": 2, "a": 3, "c": 4, "b": {"x": 5}, "a": 6}"#;
    let value: Value = serde_json::from_str(text).expect("json");
    let tree = doc.parse_str(text).expect("parses");
    agree(tree.root(), &value, text).unwrap_or_else(|e| panic!("{e}"));
    let o = tree.root().as_object().expect("object");
    let entries: Vec<(&str, Option<bool>)> = o
        .entries()
        .map(|(k, _, v)| (k, v.as_number().map(|n| n.as_u64() == Some(6))))
        .collect();
    assert_eq!(
        entries,
        [("a", Some(true)), ("b", None), ("c", Some(false))]
    );
    // Many entries (sorted), long names that share a summary, escaped spellings.
    let mut text = String::from("{");
    for i in 0..40 {
        text.push_str(&format!("\"same-start-{i:03}-same-end\": {i}, "));
    }
    text.push_str(r#""same-start-007-same-end": "last", "same-start-\u0030\u00307-same-end": 1}"#);
    let value: Value = serde_json::from_str(&text).expect("json");
    let tree = doc.parse_str(&text).expect("parses");
    agree(tree.root(), &value, "many").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tree.root().as_object().map(|o| o.len()), Some(40));
}

#[test]
fn names_that_share_a_summary_are_not_merged_and_cost_no_quadratic_time() {
    // 20,000 distinct names of one length, first and last eight bytes: one summary.
    let mut text = String::from("{");
    for i in 0..20_000 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"aaaaaaaa{i:08}aaaaaaaa\":{i}"));
    }
    text.push('}');
    let mut doc = Document::new();
    let tree = doc.parse_str(&text).expect("parses");
    let o = tree.root().as_object().expect("object");
    assert_eq!(o.len(), 20_000);
    let sums: std::collections::HashSet<u64> = o.entries().map(|(_, s, _)| s).collect();
    assert_eq!(sums.len(), 1, "the names were meant to share one summary");
    // Each is found by name, with its own value (the large object's index is searched by
    // summary and then name); strangers of the same summary are not.
    let sum = *sums.iter().next().expect("one summary");
    for i in (0..20_000).step_by(7) {
        let name = format!("aaaaaaaa{i:08}aaaaaaaa");
        let value = o.get(&name, sum).and_then(|v| v.as_number());
        assert_eq!(value.and_then(|n| n.as_u64()), Some(i), "{name}");
    }
    for stranger in ["aaaaaaaa-0000001aaaaaaaa", "aaaaaaaa00020000aaaaaaaa"] {
        assert_eq!(summary(stranger), sum);
        assert!(o.get(stranger, sum).is_none(), "{stranger}");
    }
}

#[test]
fn depth_is_bounded_as_serde_json_bounds_it() {
    let mut doc = Document::new();
    for depth in [126, 127, 128, 129] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let text = format!("{}0{}", open.repeat(depth), close.repeat(depth));
            let ours = doc.parse_str(&text).is_ok();
            let theirs = serde_json::from_str::<Value>(&text).is_ok();
            assert_eq!(ours, theirs, "depth {depth} {open}");
        }
    }
    let mut deep = Document::new().max_depth(10_000);
    let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(deep.parse_str(&text).is_ok());
    let text = format!("{}{}", "[".repeat(10_001), "]".repeat(10_001));
    assert_eq!(
        deep.parse_str(&text).map(|_| ()).map_err(|e| e.kind),
        Err(ParseErrorKind::TooDeep)
    );
}

#[test]
fn values_are_counted_as_json_rs_counts_them() {
    let mut doc = Document::new();
    let long = "x".repeat(10_000);
    let texts = [
        "1".to_string(),
        "[]".into(),
        r#"{"a": [1, 2, {"b": null}], "c": {}}"#.into(),
        format!(r#"["{long}", {{"k": "{long}"}}]"#),
        // Repeated keys: the dropped values are not counted.
        format!(r#"{{"a": [1, [2, 3], "{long}"], "b": 0, "a": {{"x": [4]}}, "a": 5}}"#),
        r#"{"a": 1, "a": 2, "a": {"a": 3, "a": [4, 5]}}"#.into(),
    ];
    for text in texts
        .iter()
        .map(String::as_str)
        .chain(corpus_instances().iter().map(String::as_str).take(2000))
    {
        let value: Value = serde_json::from_str(text).expect("json");
        let tree = doc.parse_str(text).expect("parses");
        assert_eq!(
            tree.count_values(),
            crate::json::count_values(&value),
            "{text}"
        );
    }
}

/// Objects of 0 to 300 entries whose names are drawn from a small set (many repeats) or a
/// large one (few), some long, some escaped: each as serde_json reads it.
#[test]
fn random_objects_with_repeated_names_read_as_serde_json_reads_them() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut doc = Document::new();
    for round in 0..400 {
        let n = (next() % 300) as usize;
        let names = [3, 20, 1000][round % 3];
        let mut text = String::from("{");
        for i in 0..n {
            if i > 0 {
                text.push(',');
            }
            let k = next() % names;
            match next() % 4 {
                0 => text.push_str(&format!("\"k{k}\"")),
                1 => text.push_str(&format!("\"a-long-shared-prefix-{k}-and-suffix\"")),
                2 => text.push_str(&format!("\"\\u006b{k}\"")),
                _ => text.push_str(&format!("\"k{k}\"")),
            }
            text.push_str(&format!(":[{i}]"));
        }
        text.push('}');
        let value: Value = serde_json::from_str(&text).expect("json");
        let tree = doc.parse_str(&text).expect("parses");
        agree(tree.root(), &value, &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            tree.count_values(),
            crate::json::count_values(&value),
            "{text}"
        );
    }
}

/// Random number texts (up to 25 integer and 25 fraction digits, exponents to ±400,
/// leading zeros in the fraction): the same value and form as serde_json's, or both refuse.
#[test]
fn random_numbers_read_as_serde_json_reads_them() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut doc = Document::new();
    for _ in 0..100_000 {
        let mut text = String::new();
        if next(2) == 0 {
            text.push('-');
        }
        let int_digits = 1 + next(25);
        text.push(char::from(b'1' + next(9) as u8));
        for _ in 1..int_digits {
            text.push(char::from(b'0' + next(10) as u8));
        }
        if int_digits == 1 && next(3) == 0 {
            text.replace_range(text.len() - 1.., "0");
        }
        if next(2) == 0 {
            text.push('.');
            for _ in 0..1 + next(25) {
                text.push(char::from(b'0' + next(10) as u8));
            }
        }
        if next(2) == 0 {
            text.push(['e', 'E'][next(2) as usize]);
            match next(3) {
                0 => text.push('-'),
                1 => text.push('+'),
                _ => {}
            }
            text.push_str(&next(400).to_string());
        }
        let theirs = serde_json::from_str::<Value>(&text);
        let ours = doc.parse_str(&text);
        match (&ours, &theirs) {
            (Ok(tree), Ok(value)) => {
                agree(tree.root(), value, &text).unwrap_or_else(|e| panic!("{e}"));
            }
            (Err(e), Err(_)) => assert_eq!(e.kind, ParseErrorKind::NumberOutOfRange, "{text}"),
            _ => panic!("{text}: {:?} vs {:?}", ours.map(|_| ()), theirs.map(|_| ())),
        }
    }
}

/// The probe finds serde_json's mode as this build has it (no `float_roundtrip` in the
/// crate's own tests), and the text it reads apart is read as serde_json reads it.
#[test]
fn the_float_mode_is_serde_json_s() {
    let probe = "9007199254740991.0";
    let value: Value = serde_json::from_str(probe).expect("json");
    let correct = value.as_f64() == Some(9_007_199_254_740_991.0);
    assert!(
        !correct,
        "this crate's tests build serde_json without float_roundtrip"
    );
    let mut doc = Document::new();
    let tree = doc.parse_str(probe).expect("parses");
    agree(tree.root(), &value, probe).unwrap_or_else(|e| panic!("{e}"));
}
