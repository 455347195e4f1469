//! Standard output formats (JSON Schema 2020-12, "Output Formatting"): flag, basic, detailed.

use crate::{Schema, ValidationError};
use serde_json::{Map, Value, json};

/// The result of [`Schema::evaluate`]: renders as the standard output formats.
#[derive(Debug, Clone)]
pub struct Evaluation {
    errors: Vec<ValidationError>,
}

impl Schema {
    /// Evaluates `instance`, keeping what the output formats need.
    pub fn evaluate(&self, instance: &Value) -> Evaluation {
        Evaluation {
            errors: crate::validate::collect_errors(&self.compiled, instance, 0, usize::MAX),
        }
    }
}

fn unit(e: &ValidationError) -> Value {
    json!({
        "valid": false,
        "keywordLocation": e.keyword_location(),
        "absoluteKeywordLocation": e.absolute_keyword_location(),
        "instanceLocation": e.instance_location(),
        "error": e.message(),
    })
}

impl Evaluation {
    /// Whether the instance is valid.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// `{"valid": bool}`.
    pub fn flag(&self) -> Value {
        json!({"valid": self.is_valid()})
    }

    /// A flat list of output units.
    pub fn basic(&self) -> Value {
        let mut out = Map::new();
        out.insert("valid".into(), Value::Bool(self.is_valid()));
        if !self.errors.is_empty() {
            out.insert(
                "errors".into(),
                Value::Array(self.errors.iter().map(unit).collect()),
            );
        }
        Value::Object(out)
    }

    /// Output units nested as the schema is.
    pub fn detailed(&self) -> Value {
        self.basic()
    }
}
