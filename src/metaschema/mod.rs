//! The official meta-schemas, embedded (see `PROVENANCE.md` and `LICENSE` here), and the
//! check of a schema against its dialect's meta-schema that reports every violation.

use crate::compile::dialect::draft_of_uri;
use crate::{Draft, Options, Schema, SchemaError, SchemaErrorKind};
use serde_json::{Value, json};
use std::sync::OnceLock;

/// Every embedded document: (`$id` without the empty fragment, text).
const DOCUMENTS: &[(&str, &str)] = &[
    (
        "http://json-schema.org/draft-04/schema",
        include_str!("draft4/schema.json"),
    ),
    (
        "http://json-schema.org/draft-06/schema",
        include_str!("draft6/schema.json"),
    ),
    (
        "http://json-schema.org/draft-07/schema",
        include_str!("draft7/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/schema",
        include_str!("draft2019-09/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/core",
        include_str!("draft2019-09/meta/core.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/applicator",
        include_str!("draft2019-09/meta/applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/validation",
        include_str!("draft2019-09/meta/validation.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/meta-data",
        include_str!("draft2019-09/meta/meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/format",
        include_str!("draft2019-09/meta/format.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/content",
        include_str!("draft2019-09/meta/content.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/schema",
        include_str!("draft2020-12/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/core",
        include_str!("draft2020-12/meta/core.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/applicator",
        include_str!("draft2020-12/meta/applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/unevaluated",
        include_str!("draft2020-12/meta/unevaluated.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/validation",
        include_str!("draft2020-12/meta/validation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/meta-data",
        include_str!("draft2020-12/meta/meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-annotation",
        include_str!("draft2020-12/meta/format-annotation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-assertion",
        include_str!("draft2020-12/meta/format-assertion.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/content",
        include_str!("draft2020-12/meta/content.json"),
    ),
];

/// At most this many violations are listed (the count says how many there were beyond).
const MAX_VIOLATIONS: usize = 1000;

fn index(draft: Draft) -> usize {
    match draft {
        Draft::Draft4 => 0,
        Draft::Draft6 => 1,
        Draft::Draft7 => 2,
        Draft::Draft201909 => 3,
        _ => 4,
    }
}

/// The compiled meta-schema of `draft`, built once.
fn meta_schema(draft: Draft) -> Result<&'static Schema, SchemaError> {
    static COMPILED: [OnceLock<Result<Schema, SchemaError>>; 5] = [const { OnceLock::new() }; 5];
    COMPILED[index(draft)]
        .get_or_init(|| {
            let mut options = Options::new();
            for (uri, text) in DOCUMENTS {
                let doc: Value = serde_json::from_str(text).map_err(|e| {
                    SchemaError::new(
                        SchemaErrorKind::InvalidKeyword,
                        "",
                        format!("the embedded meta-schema {uri} is not JSON: {e}"),
                    )
                })?;
                options = options.with_document(uri, doc);
            }
            options.compile(&json!({"$ref": DOCUMENTS[[0, 1, 2, 3, 10][index(draft)]].0}))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The draft that decides `schema`'s meta-schema: its `$schema`, else `default`; `None`
/// for a `$schema` that names no standard draft.
pub(crate) fn draft_of(schema: &Value, default: Draft) -> Option<Draft> {
    match schema.get("$schema") {
        Some(Value::String(s)) => draft_of_uri(s),
        Some(_) => None,
        None => Some(default),
    }
}

/// Every violation of `schema` against its dialect's meta-schema, each with the location
/// in `schema` (a JSON Pointer) and a message naming the meta-schema keyword.
pub(crate) fn violations(schema: &Value, default: Draft) -> Result<Vec<SchemaError>, SchemaError> {
    let Some(draft) = draft_of(schema, default) else {
        return Ok(Vec::new());
    };
    let meta = meta_schema(draft)?;
    let mut out: Vec<SchemaError> = Vec::new();
    for e in meta.iter_errors(schema).take(MAX_VIOLATIONS) {
        let keyword = e.keyword_location();
        let keyword = keyword.rsplit('/').next().unwrap_or_default();
        let v = SchemaError::new(
            SchemaErrorKind::MetaSchemaViolation,
            e.instance_location(),
            describe(&e, keyword),
        );
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(out)
}

/// Refuses `schema` when it violates its dialect's meta-schema, listing every violation.
pub(crate) fn check(schema: &Value, default: Draft) -> Result<(), SchemaError> {
    let found = violations(schema, default)?;
    let Some(first) = found.first() else {
        return Ok(());
    };
    let message = if found.len() == 1 {
        format!("not valid against its meta-schema: {}", first.message())
    } else {
        format!(
            "not valid against its meta-schema: {} violations, the first: {}",
            found.len(),
            first.message()
        )
    };
    let location = first.location().to_string();
    Err(
        SchemaError::new(SchemaErrorKind::MetaSchemaViolation, location, message)
            .with_violations(found),
    )
}

/// A violation's message: the failed meta-schema keyword, and for a failed `anyOf`/`oneOf`
/// what each branch wanted (`"type": "strin"` is neither a type name nor an array).
fn describe(e: &crate::ValidationError, keyword: &str) -> String {
    let mut why = format!("{} (meta-schema keyword {keyword:?})", e.message());
    let causes: Vec<String> = e
        .causes()
        .iter()
        .filter(|c| c.instance_location() == e.instance_location())
        .map(|c| c.message())
        .collect();
    if !causes.is_empty() {
        why.push_str(": ");
        why.push_str(&causes.join("; or "));
    }
    why
}
