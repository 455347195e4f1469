//! Patterns built from a grammar that favours what makes engines large: counted
//! repetitions nested inside one another, classes, alternations, lookaround and
//! backreferences. Compiling one must end in a schema or a clear `InvalidPattern` error
//! within the memory the run allows: run with `-rss_limit_mb=2048 -malloc_limit_mb=512`,
//! so that an engine writing repetitions out past the 8 MiB bound fails the run.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::fmt;
use toolschema::{Options, SchemaErrorKind};

/// Deepest nesting the grammar produces.
const MAX_DEPTH: u32 = 5;

struct Input {
    pattern: String,
    subject: String,
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "schema:   {}", json!({"pattern": self.pattern}))?;
        write!(f, "instance: {}", Value::String(self.subject.clone()))
    }
}

/// Counts that matter: small, around engine thresholds, and the largest ECMA-262 allows.
const COUNTS: &[u32] = &[0, 1, 2, 3, 9, 16, 100, 255, 1000, 4000, 65535, 100_000];

const ATOMS: &[&str] = &[
    "a",
    "b",
    ".",
    "\\d",
    "\\w",
    "\\s",
    "\\S",
    "[a-z]",
    "[^x]",
    "\\p{L}",
    "\\p{Greek}",
    "é",
    "😀",
    "\\b",
    "^",
    "$",
];

fn term(u: &mut Unstructured<'_>, depth: u32, out: &mut String) -> arbitrary::Result<()> {
    let choice = if depth >= MAX_DEPTH {
        0
    } else {
        u.int_in_range(0..=6)?
    };
    match choice {
        0 => out.push_str(u.choose(ATOMS)?),
        1 | 2 => {
            out.push_str("(?:");
            sequence(u, depth + 1, out)?;
            out.push(')');
        }
        3 => {
            out.push_str(u.choose(&["(?=", "(?!", "(?<=", "(?<!", "("])?);
            sequence(u, depth + 1, out)?;
            out.push(')');
        }
        4 => {
            out.push_str("(?:");
            sequence(u, depth + 1, out)?;
            out.push('|');
            sequence(u, depth + 1, out)?;
            out.push(')');
        }
        5 => out.push_str("\\1"),
        _ => out.push_str(u.choose(ATOMS)?),
    }
    if u.ratio(2, 3)? {
        let min = *u.choose(COUNTS)?;
        match u.int_in_range(0..=3)? {
            0 => out.push_str(&format!("{{{min}}}")),
            1 => out.push_str(&format!("{{{min},}}")),
            2 => {
                let max = min.saturating_add(*u.choose(COUNTS)?);
                out.push_str(&format!("{{{min},{max}}}"));
            }
            _ => out.push_str(u.choose(&["*", "+", "?", "*?"])?),
        }
    }
    Ok(())
}

fn sequence(u: &mut Unstructured<'_>, depth: u32, out: &mut String) -> arbitrary::Result<()> {
    for _ in 0..u.int_in_range(1..=3)? {
        term(u, depth, out)?;
    }
    Ok(())
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Input> {
        let mut pattern = String::new();
        sequence(u, 0, &mut pattern)?;
        let subject = String::arbitrary(u)?;
        Ok(Input { pattern, subject })
    }
}

fuzz_target!(|input: Input| {
    let options = Options::new().pattern_budget(10_000);
    let subject = Value::String(input.subject.clone());
    for schema in [
        json!({"pattern": input.pattern}),
        json!({"patternProperties": {input.pattern.clone(): false}}),
    ] {
        match options.compile(&schema) {
            Ok(schema) => {
                // Built engines (and deferred ones, on first use) stay bounded too.
                let _ = schema.is_valid(&subject);
                let mut obj = serde_json::Map::new();
                obj.insert(input.subject.clone(), Value::Null);
                let _ = schema.is_valid(&Value::Object(obj));
            }
            Err(e) => assert_eq!(e.kind(), SchemaErrorKind::InvalidPattern, "{e}"),
        }
    }
});
