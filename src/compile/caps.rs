//! The caps of [`Limits`]: depth and object count, checked before anything compiles.

use crate::Limits;
use crate::error::{SchemaError, SchemaErrorKind};
use serde_json::Value;

/// What a schema document holds, counted by [`check`] for sizing the arena's tables up
/// front (growing them by doubling copies each one several times over).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Size {
    /// Objects: an upper bound on the subschemas.
    pub(crate) objects: usize,
    /// Members of all objects: an upper bound on keywords and named entries.
    pub(crate) members: usize,
    /// Items of all arrays: an upper bound on schema lists, `enum` values and `required`
    /// names.
    pub(crate) items: usize,
    /// Bytes of all strings: an upper bound on the annotation text.
    pub(crate) text: usize,
}

/// Checks `root` against `limits` without recursion (a deep document cannot overflow the
/// stack here), and returns what it holds (see [`Size`]).
pub(crate) fn check(root: &Value, limits: &Limits) -> Result<Size, SchemaError> {
    let mut size = Size::default();
    let max_values = limits.max_values();
    let mut values = 0usize;
    let mut stack: Vec<(&Value, usize)> = Vec::with_capacity(64);
    stack.push((root, 1));
    while let Some((value, depth)) = stack.pop() {
        // Every part counts toward one cap: arrays, `true` and scalars are no objects,
        // yet a schema of a million of them costs as much to compile.
        values += 1;
        if values > max_values {
            return Err(SchemaError::new(
                SchemaErrorKind::TooManySubschemas,
                "",
                format!("the schema has more than the maximum of {max_values} values"),
            ));
        }
        if depth > limits.max_depth {
            let at = locate(root, depth_predicate(limits.max_depth));
            return Err(SchemaError::new(
                SchemaErrorKind::DepthExceeded,
                at,
                format!("nesting exceeds the maximum depth of {}", limits.max_depth),
            ));
        }
        match value {
            Value::Object(map) => {
                size.objects += 1;
                size.members += map.len();
                if size.objects > limits.max_subschemas {
                    return Err(SchemaError::new(
                        SchemaErrorKind::TooManySubschemas,
                        "",
                        format!(
                            "the schema has more than the maximum of {} subschemas (objects)",
                            limits.max_subschemas
                        ),
                    ));
                }
                stack.extend(map.values().map(|v| (v, depth + 1)));
            }
            Value::Array(items) => {
                size.items += items.len();
                stack.extend(items.iter().map(|v| (v, depth + 1)))
            }
            Value::String(s) => size.text += s.len(),
            _ => {}
        }
    }
    Ok(size)
}

fn depth_predicate(max: usize) -> impl Fn(usize) -> bool {
    move |depth| depth > max
}

/// The JSON pointer of the first value for which `too_deep(depth)` holds.
fn locate(root: &Value, too_deep: impl Fn(usize) -> bool) -> String {
    let mut stack: Vec<(&Value, usize, String)> = vec![(root, 1, String::new())];
    while let Some((value, depth, ptr)) = stack.pop() {
        if too_deep(depth) {
            return ptr;
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    let mut p = ptr.clone();
                    super::pointer::push(&mut p, k);
                    stack.push((v, depth + 1, p));
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    stack.push((v, depth + 1, format!("{ptr}/{i}")));
                }
            }
            _ => {}
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_scalars() {
        let limits = Limits {
            max_depth: 2,
            max_subschemas: 100,
        };
        assert!(check(&json!({"type": "string"}), &limits).is_ok());
        let err = check(&json!({"properties": {"a": {}}}), &limits).unwrap_err();
        assert_eq!(err.kind(), SchemaErrorKind::DepthExceeded);
        assert_eq!(err.location(), "/properties/a");
        assert!(check(&json!({"enum": [1]}), &limits).is_err());
    }

    #[test]
    fn every_value_counts() {
        let limits = Limits {
            max_depth: 64,
            max_subschemas: 1,
        };
        let values = Limits::VALUES_PER_SUBSCHEMA;
        let fits = Value::Array(vec![Value::Bool(true); values - 1]);
        assert!(check(&fits, &limits).is_ok());
        let past = Value::Array(vec![Value::Bool(true); values]);
        let err = check(&past, &limits).unwrap_err();
        assert_eq!(err.kind(), SchemaErrorKind::TooManySubschemas);
    }

    #[test]
    fn objects_count() {
        let limits = Limits {
            max_depth: 64,
            max_subschemas: 2,
        };
        assert!(check(&json!({"properties": {}}), &limits).is_ok());
        assert!(check(&json!({"properties": {"a": {}}}), &limits).is_err());
    }
}
