//! The flat parser on malformed and hostile text: the error kind, byte offset, line and
//! column; the same inputs accepted and refused as `serde_json::from_slice::<Value>`;
//! depth and size bounds. (Agreement of the values on the whole suite and corpus is in
//! the crate's unit tests, `src/flat/tests.rs`, where `json.rs` is at hand.) And
//! `Schema::is_valid_json`, the evaluator on the flat tree, against its reference form on
//! the text `Value` hides: numbers written as floats, integers past `u64`, escaped keys,
//! keys given twice.

use serde_json::Value;
use toolschema::flat::{
    self, Array, DEFAULT_MAX_DEPTH, Document, Instance, Kind, Object, ParseErrorKind,
};

fn err(input: &[u8]) -> (ParseErrorKind, usize) {
    let mut doc = Document::new();
    match doc.parse(input) {
        Ok(_) => panic!("accepted {:?}", String::from_utf8_lossy(input)),
        Err(e) => (e.kind, e.offset),
    }
}

/// Every malformed input of the table: its error and offset, and serde_json refuses it.
#[test]
fn malformed_text_is_an_error_at_the_right_offset() {
    use ParseErrorKind::*;
    let table: &[(&[u8], ParseErrorKind, usize)] = &[
        (b"", UnexpectedEnd, 0),
        (b"   ", UnexpectedEnd, 3),
        (b"[1, 2", UnexpectedEnd, 5),
        (b"{\"a\": 1", UnexpectedEnd, 7),
        (b"{\"a\"", UnexpectedEnd, 4),
        (b"{\"a\" 1}", ExpectedColon, 5),
        (b"\"abc", UnexpectedEnd, 4),
        (b"\"ab\\", UnexpectedEnd, 4),
        (b"[1,]", ExpectedValue, 3),
        (b"[1 2]", ExpectedCommaOrBracket, 3),
        (b"{\"a\":1 \"b\":2}", ExpectedCommaOrBrace, 7),
        (b"{\"a\":1,}", ExpectedKey, 7),
        (b"{1:2}", ExpectedKey, 1),
        (b"]", ExpectedValue, 0),
        (b"\"\\x\"", InvalidEscape, 2),
        (b"\"\\u12G4\"", InvalidEscape, 5),
        (b"\"\\u12", UnexpectedEnd, 5),
        (b"\"\\ud800\"", LoneSurrogate, 7),
        (b"\"\\ud800", UnexpectedEnd, 7),
        (b"\"\\udc00\"", LoneSurrogate, 3),
        (b"\"\\ud800\\u0041\"", LoneSurrogate, 9),
        (b"\"\\ud800\\ud800\"", LoneSurrogate, 9),
        (b"\"a\x01b\"", ControlCharacter, 2),
        (b"\"tab\there\"", ControlCharacter, 4),
        (b"[\"\xff\"]", InvalidUtf8, 2),
        (b"\"\xc3\"", InvalidUtf8, 1),
        (b"\"\xed\xa0\x80\"", InvalidUtf8, 1),
        (b"\xef\xbb\xbf{}", ExpectedValue, 0),
        (b"1 2", TrailingCharacters, 2),
        (b"[1] x", TrailingCharacters, 4),
        (b"{} {}", TrailingCharacters, 3),
        (b"nul", UnexpectedEnd, 3),
        (b"nulx", ExpectedValue, 3),
        (b"True", ExpectedValue, 0),
        (b"NaN", ExpectedValue, 0),
        (b"01", InvalidNumber, 1),
        (b"-01", InvalidNumber, 2),
        (b"-", UnexpectedEnd, 1),
        (b"-a", InvalidNumber, 1),
        (b"1.", UnexpectedEnd, 2),
        (b"1.e3", InvalidNumber, 2),
        (b"1e", UnexpectedEnd, 2),
        (b"1e+", UnexpectedEnd, 3),
        (b"+1", ExpectedValue, 0),
        (b".5", ExpectedValue, 0),
        (b"1e400", NumberOutOfRange, 0),
        (b"[0, -1e400]", NumberOutOfRange, 4),
        (b"1e99999999999", NumberOutOfRange, 0),
        (b"[1, /* c */ 2]", ExpectedValue, 4),
    ];
    for &(input, kind, offset) in table {
        let text = String::from_utf8_lossy(input);
        assert_eq!(err(input), (kind, offset), "{text:?}");
        assert!(
            serde_json::from_slice::<Value>(input).is_err(),
            "serde_json accepts {text:?}"
        );
    }
}

#[test]
fn errors_give_line_and_column() {
    let mut doc = Document::new();
    let e = doc.parse_str("{\n  \"a\": tru\n}").map(|_| ()).unwrap_err();
    assert_eq!(
        (e.kind, e.offset, e.line, e.column),
        (ParseErrorKind::ExpectedValue, 12, 2, 11)
    );
    assert_eq!(
        e.to_string(),
        "expected a value at line 2 column 11 (byte 12)"
    );
    let e = doc.parse_str("[1,\n\n2,").map(|_| ()).unwrap_err();
    assert_eq!((e.line, e.column), (3, 3));
}

/// Valid text, tricky or large, read as serde_json reads it.
#[test]
fn valid_text_reads_as_serde_json_reads_it() {
    let long_digits = format!("1{}", "0".repeat(400));
    let tiny = format!("0.{}1", "0".repeat(10_000));
    let inputs: Vec<String> = vec![
        "-0".into(),
        "-0.0".into(),
        "0e400".into(),
        "1e-400".into(),
        "0.1e-999999999999".into(),
        "123456789012345678901234567890".into(),
        "18446744073709551619.5".into(),
        "-9223372036854775808".into(),
        "[1.0, 1, -1, 2.5e1]".into(),
        format!("{long_digits}e-400"),
        tiny,
        r#""\ud83d\ude00 \u00e9 \/ \b\f\n\r\t \\ \"""#.into(),
        r#"{"a\u0062": 1, "ab": 2, "": null, "x": {"ab": [true, false]}}"#.into(),
        " \t\r\n[ ] ".into(),
        "\"\u{7f}\u{10FFFF}é漢\"".into(),
    ];
    let mut doc = Document::new();
    for text in &inputs {
        let value: Value = serde_json::from_str(text).expect(text);
        let tree = doc.parse_str(text).expect(text);
        let root = tree.root();
        assert!(flat::equal(root, &value), "{text}");
        assert_eq!(root.json_type(), toolschema::JsonType::of(&value), "{text}");
    }
    // `"a\u0062"` then `"ab"`: one key, the last value, in the first place.
    let tree = doc
        .parse_str(r#"{"a\u0062": 1, "ab": 2, "": null}"#)
        .expect("parses");
    let o = tree.root().as_object().expect("object");
    assert_eq!(o.len(), 2);
    let ab = o.get("ab", flat::summary("ab")).and_then(|v| v.as_number());
    assert_eq!(ab.and_then(|n| n.as_u64()), Some(2));
    assert_eq!(o.entries().next().map(|(k, _, _)| k), Some("ab"));
}

#[test]
fn nesting_past_the_bound_is_refused_without_recursion() {
    let million = 1_000_000;
    let text = format!("{}{}", "[".repeat(million), "]".repeat(million));
    let (kind, offset) = err(text.as_bytes());
    assert_eq!(kind, ParseErrorKind::TooDeep);
    assert_eq!(offset, DEFAULT_MAX_DEPTH as usize);
    // A bound past the depth: parsed by the loop, no stack used per level.
    let mut doc = Document::new().max_depth(2 * million as u32);
    let tree = doc.parse_str(&text).expect("a million levels");
    let mut node = tree.root();
    let mut depth = 0;
    while let Some(items) = node.as_array() {
        depth += 1;
        match items.get(0) {
            Some(next) => node = next,
            None => break,
        }
    }
    assert_eq!(depth, million);
    let objects = format!("{}1{}", "{\"a\":".repeat(million), "}".repeat(million));
    assert_eq!(
        Document::new()
            .parse_str(&objects)
            .map(|_| ())
            .map_err(|e| e.kind),
        Err(ParseErrorKind::TooDeep)
    );
}

#[test]
fn a_document_is_reused_and_can_be_shrunk() {
    let mut doc = Document::new();
    let big = format!("[{}0]", "\"some text\",".repeat(10_000));
    assert_eq!(
        doc.parse_str(&big)
            .map(|t| t.root().as_array().map(|a| a.len())),
        Ok(Some(10_001))
    );
    let grown = doc.scratch_bytes();
    assert!(grown > 160_000, "{grown}");
    assert_eq!(
        doc.parse_str("{\"a\":1}").map(|t| t.root().kind()),
        Ok(Kind::Object)
    );
    assert_eq!(doc.scratch_bytes(), grown, "cleared, not freed");
    doc.shrink_to(1024);
    assert!(doc.scratch_bytes() < 1024);
    // An error leaves the document usable.
    assert!(doc.parse_str("[1, 2").is_err());
    assert_eq!(
        doc.parse_str("true").map(|t| t.root().as_bool()),
        Ok(Some(true))
    );
}

/// `is_valid_json` against `is_valid_json_reference` (serde_json's `Value`, `is_valid`)
/// and `validate_json`, in both configurations; the shared verdict.
#[track_caller]
fn from_text(schema: &Value, draft: toolschema::Draft, text: &str) -> bool {
    let mut verdict = None;
    for shortcuts in [true, false] {
        let s = toolschema::Options::new()
            .default_dialect(draft)
            .shortcuts(shortcuts)
            .compile(schema)
            .expect("compiles");
        let fast = s.is_valid_json(text.as_bytes());
        let reference = s.is_valid_json_reference(text.as_bytes());
        assert_eq!(
            fast, reference,
            "{schema} on {text} (shortcuts {shortcuts})"
        );
        let v = fast.expect("well formed");
        assert_eq!(s.validate_json(text.as_bytes()).is_ok(), v, "{text}");
        assert!(
            verdict.is_none_or(|w| w == v),
            "configurations differ on {text}"
        );
        verdict = Some(v);
    }
    verdict.unwrap_or_default()
}

#[test]
fn is_valid_json_agrees_with_its_reference_on_what_value_hides() {
    use serde_json::json;
    use toolschema::Draft::{Draft4, Draft202012};
    let integers = json!({"type": "integer"});
    // Draft 4: `1.0` is not an integer; later drafts: it is.
    assert!(!from_text(&integers, Draft4, "1.0"));
    assert!(from_text(&integers, Draft202012, "1.0"));
    assert!(from_text(&integers, Draft202012, "1e2"));
    assert!(!from_text(&integers, Draft202012, "1.5"));
    // Integers past u64 (floats to serde_json), still integers.
    assert!(from_text(
        &integers,
        Draft202012,
        "123456789012345678901234567890"
    ));
    assert!(from_text(
        &integers,
        Draft4,
        "-123456789012345678901234567890"
    ));
    let one_of = json!({"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 2}]});
    assert!(!from_text(&one_of, Draft202012, "1.0"));
    assert!(from_text(&one_of, Draft4, "1.0"));
    assert!(from_text(&json!({"enum": [1, "a"]}), Draft202012, "1.0"));
    assert!(from_text(&json!({"const": 10}), Draft202012, "1e1"));
    assert!(from_text(&json!({"multipleOf": 0.1}), Draft202012, "0.3"));
    // Escaped keys and strings are their unescaped names.
    let object = json!({
        "properties": {"name": {"const": "é"}, "n\u{0}": {"type": "null"}},
        "required": ["name"],
        "additionalProperties": false
    });
    assert!(from_text(
        &object,
        Draft202012,
        r#"{"n\u0061me": "\u00e9", "n\u0000": null}"#
    ));
    assert!(!from_text(&object, Draft202012, r#"{"nam\u0065": "x"}"#));
    assert!(from_text(
        &json!({"required": ["é"]}),
        Draft202012,
        r#"{"\u00e9": 1}"#
    ));
    assert!(from_text(
        &json!({"propertyNames": {"maxLength": 1}}),
        Draft202012,
        r#"{"\ud83d\ude00": 1}"#
    ));
    // A key given twice: the last value counts, as serde_json keeps it.
    let count = json!({"properties": {"n": {"maximum": 3}}});
    assert!(from_text(&count, Draft202012, r#"{"n": 10, "n": 1}"#));
    assert!(!from_text(&count, Draft202012, r#"{"n": 1, "n": 10}"#));
    assert!(from_text(
        &json!({"maxProperties": 1}),
        Draft202012,
        r#"{"a": 1, "a": 2}"#
    ));
    assert!(from_text(
        &json!({"uniqueItems": true}),
        Draft202012,
        r#"[{"a": 1, "b": 2}, {"b": 2, "a": 1, "a": 3}]"#
    ));
    assert!(!from_text(
        &json!({"uniqueItems": true}),
        Draft202012,
        r#"[{"a": 1, "b": 2}, {"b": 2, "a": 3, "a": 1}, 1.0, 1]"#
    ));
    // Objects past the scan length, nested arrays, unevaluated keywords.
    let mut many = serde_json::Map::new();
    for i in 0..40 {
        many.insert(format!("key{i}"), json!({"type": "integer"}));
    }
    let wide = json!({"properties": many, "unevaluatedProperties": false});
    let text: Vec<String> = (0..40).map(|i| format!(r#""key{i}": {i}.0"#)).collect();
    assert!(from_text(
        &wide,
        Draft202012,
        &format!("{{{}}}", text.join(","))
    ));
    assert!(!from_text(
        &wide,
        Draft202012,
        &format!("{{{}, \"x\": 1}}", text.join(","))
    ));
}
