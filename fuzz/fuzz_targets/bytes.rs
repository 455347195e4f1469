//! `Schema::is_valid_json` (the evaluator on the flat tree) against serde_json's `Value`
//! and `is_valid`, on the same text: a schema from the keyword grammar under a dialect of
//! every draft, compiled with and without shortcuts, and the near-miss instance written
//! out as text in the forms JSON allows and `Value` hides: integers as floats (`1.0`,
//! `1e0`), integers past `u64`, keys and strings with `\u` escapes, a key given twice
//! (the last value wins), an object's keys in another order than the `Value`'s,
//! whitespace. Every text the flat parser accepts must give one verdict on both paths;
//! `validate_json` must report exactly the errors of `validate`, and `evaluate_json` the
//! errors and annotations of `evaluate`, in the same order when the text's keys are in the
//! `Value`'s order, as the same items when they are not (at every level of causes).
//!
//! ```sh
//! cd fuzz && cargo +nightly fuzz run -O bytes corpus/bytes seeds/validate -- -max_total_time=180
//! ```

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolschema::{Draft, Evaluation, JsonValidationError, Options};
use toolschema_fuzz::DialectCase;

#[derive(Debug)]
struct Input {
    case: DialectCase,
    /// How the instance is written (choices drawn as the writer goes).
    style: Vec<u8>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Input> {
        Ok(Input {
            case: u.arbitrary()?,
            style: u.arbitrary()?,
        })
    }
}

/// Writes `v` as JSON text, each choice taken from `style`; `reordered` is set when some
/// object's keys are written in another order than the `Value`'s.
fn write(v: &Value, style: &mut Unstructured<'_>, out: &mut String, reordered: &mut bool) {
    let pick = |style: &mut Unstructured<'_>, n: u8| style.int_in_range(0..=n).unwrap_or(0);
    if pick(style, 7) == 0 {
        out.push_str(" \n");
    }
    match v {
        Value::Number(n) => match (n.as_i64(), pick(style, 4)) {
            (Some(i), 1) => out.push_str(&format!("{i}.0")),
            (Some(i), 2) => out.push_str(&format!("{i}e0")),
            (Some(i), 3) if i >= 0 => out.push_str(&format!("{i}00000000000000000000000")),
            (Some(i), 4) => out.push_str(&format!("{i}.000000000000000000001")),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => string(s, style, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, style, out, reordered);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            let mut first = true;
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if entries.len() > 1 && pick(style, 3) == 0 {
                entries.reverse();
                *reordered = true;
            }
            for (k, v) in entries {
                if !first {
                    out.push(',');
                }
                first = false;
                if pick(style, 5) == 0 {
                    // The key twice: a value that loses first.
                    string(k, style, out);
                    out.push_str(":[null,{\"x\":1}],");
                }
                string(k, style, out);
                out.push(':');
                write(v, style, out, reordered);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A string, some of its characters as `\u` escapes.
fn string(s: &str, style: &mut Unstructured<'_>, out: &mut String) {
    if style.int_in_range(0..=3u8).unwrap_or(0) != 0 {
        out.push_str(&Value::from(s).to_string());
        return;
    }
    out.push('"');
    for ch in s.chars() {
        let mut units = [0u16; 2];
        for unit in ch.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    }
    out.push('"');
}

fuzz_target!(|input: Input| {
    let draft = match input.case.draft {
        0 => Draft::Draft4,
        1 => Draft::Draft6,
        2 => Draft::Draft7,
        3 => Draft::Draft201909,
        _ => Draft::Draft202012,
    };
    let options = Options::new().default_dialect(draft);
    let schema = &input.case.case.schema.0;
    let mut text = String::new();
    let mut reordered = false;
    write(
        &input.case.case.instance.0,
        &mut Unstructured::new(&input.style),
        &mut text,
        &mut reordered,
    );
    let Ok(value) = serde_json::from_str::<Value>(&text) else {
        // (Not expected of this writer; then the flat parser must refuse the text too.)
        let any = toolschema::Schema::compile(&serde_json::json!({})).expect("compiles");
        assert!(
            any.is_valid_json(text.as_bytes()).is_err(),
            "the flat parser accepts what serde_json refuses: {text}"
        );
        return;
    };
    for shortcuts in [true, false] {
        let Ok(compiled) = options.clone().shortcuts(shortcuts).compile(schema) else {
            return;
        };
        let expected = compiled.is_valid(&value);
        let flat = compiled.is_valid_json(text.as_bytes());
        assert_eq!(
            flat,
            Ok(expected),
            "is_valid_json disagrees (shortcuts {shortcuts}) on {text}\nschema {schema}"
        );
        // The errors: exactly `validate`'s, or the same ones when the keys were reordered.
        let errors = match compiled.validate_json(text.as_bytes()) {
            Ok(()) => Vec::new(),
            Err(JsonValidationError::Invalid(errors)) => {
                errors.iter().map(|e| text_of(e, reordered)).collect()
            }
            Err(JsonValidationError::Malformed(e)) => {
                panic!("validate_json refuses what is_valid_json read: {e}\n{text}")
            }
        };
        let reference = match compiled.validate(&value) {
            Ok(()) => Vec::new(),
            Err(errors) => errors.iter().map(|e| text_of(e, reordered)).collect(),
        };
        assert_eq!(
            errors.is_empty(),
            expected,
            "validate_json disagrees (shortcuts {shortcuts}) on {text}\nschema {schema}"
        );
        assert_eq!(
            ordered(errors, reordered),
            ordered(reference, reordered),
            "validate_json reports other errors (shortcuts {shortcuts}) on {text}\nschema {schema}"
        );
        let evaluated = compiled
            .evaluate_json(text.as_bytes())
            .expect("evaluate_json reads what is_valid_json read");
        let evaluation = compiled.evaluate(&value);
        assert_eq!(
            ordered(items(&evaluated, reordered), reordered),
            ordered(items(&evaluation, reordered), reordered),
            "evaluate_json differs (shortcuts {shortcuts}) on {text}\nschema {schema}"
        );
        if !reordered {
            assert_eq!(evaluated.verbose(), evaluation.verbose());
        }
    }
});

fn debug(e: &toolschema::ValidationError) -> String {
    format!("{e:?}")
}

/// An error as text: as `Debug` prints it, or, when the text's key order was not the
/// `Value`'s, with its causes (which follow the instance's key order) sorted at every
/// level.
fn text_of(e: &toolschema::ValidationError, reordered: bool) -> String {
    if !reordered {
        return debug(e);
    }
    let mut causes: Vec<String> = e.causes().iter().map(|c| text_of(c, true)).collect();
    causes.sort();
    format!(
        "{:?} {:?} {:?} {:?} [{}]",
        e.instance_location(),
        e.keyword_location(),
        e.absolute_keyword_location(),
        e.kind(),
        causes.join(", ")
    )
}

/// An evaluation's errors and annotations, as text.
fn items(e: &Evaluation, reordered: bool) -> Vec<String> {
    let mut out: Vec<String> = e.errors().iter().map(|e| text_of(e, reordered)).collect();
    out.extend(e.annotations().iter().map(|a| format!("{a:?}")));
    out
}

/// `items` as they are, or sorted when the text's key order was not the `Value`'s.
fn ordered(mut items: Vec<String>, reordered: bool) -> Vec<String> {
    if reordered {
        items.sort();
    }
    items
}
