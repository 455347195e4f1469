//! Showing clients that know only 2020-12 a schema written for an older draft.
//!
//! A `$schema` naming draft-04, draft-06, draft-07 or 2019-09 is rewritten by the schema
//! toolkit's upgrader ([`toolschema::upgrade::upgrade`]), which accepts exactly the same
//! instances or refuses. Where it refuses, the body is shown without its `$schema` only when
//! every keyword is read the same way in both drafts (the rule below); any other schema is
//! left as it is. That rule reads draft-04's `"integer"` as 2020-12's, which also accepts
//! `1.0`: the client's view is then wider, never narrower, and the proxy itself still checks
//! calls and results under the schema's own draft.

use serde_json::{Map, Value};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Old {
    Draft4,
    Draft6,
    Draft7,
    Draft201909,
}

fn declared(uri: &str) -> Option<Old> {
    let uri = uri.trim_end_matches('#');
    let uri = uri
        .strip_prefix("http://")
        .or_else(|| uri.strip_prefix("https://"))?;
    match uri {
        "json-schema.org/draft-04/schema" => Some(Old::Draft4),
        "json-schema.org/draft-06/schema" => Some(Old::Draft6),
        "json-schema.org/draft-07/schema" => Some(Old::Draft7),
        "json-schema.org/draft/2019-09/schema" => Some(Old::Draft201909),
        _ => None,
    }
}

/// The schema a 2020-12-only client should see, or `None` to show it as it is.
///
/// The one place the proxy rewrites a dialect: point it at the real upgrader when there is
/// one.
pub(crate) fn upgrade_for_client(schema: &Value) -> Option<Value> {
    let obj = schema.as_object()?;
    let draft = declared(obj.get("$schema")?.as_str()?)?;
    let as_draft = match draft {
        Old::Draft4 => toolschema::Draft::Draft4,
        Old::Draft6 => toolschema::Draft::Draft6,
        Old::Draft7 => toolschema::Draft::Draft7,
        Old::Draft201909 => toolschema::Draft::Draft201909,
    };
    if let Ok(Value::Object(mut upgraded)) = toolschema::upgrade::upgrade(schema, as_draft) {
        // 2020-12 is what a schema without `$schema` means to MCP clients.
        upgraded.remove("$schema");
        return Some(Value::Object(upgraded));
    }
    same_meaning_body(obj, draft)
}

/// The body without `$schema` when every keyword means the same in `draft` and 2020-12.
fn same_meaning_body(obj: &Map<String, Value>, draft: Old) -> Option<Value> {
    let mut body = obj.clone();
    body.remove("$schema");
    same_meaning(&body, draft).then_some(Value::Object(body))
}

/// Keywords whose meaning is identical in `draft` and in 2020-12, by how their value is
/// read: `None` for a keyword that is not identical (the schema is then left alone).
fn kind(keyword: &str, draft: Old) -> Option<Kind> {
    use Kind::*;
    let since6 = draft >= Old::Draft6;
    let since7 = draft >= Old::Draft7;
    let since2019 = draft >= Old::Draft201909;
    Some(match keyword {
        // The same assertions in every draft.
        "type" | "enum" | "required" | "multipleOf" | "maximum" | "minimum" | "maxLength"
        | "minLength" | "pattern" | "maxItems" | "minItems" | "uniqueItems" | "maxProperties"
        | "minProperties" | "format" => Value,
        // Numbers from draft-06 on; booleans modifying `maximum`/`minimum` in draft-04.
        "exclusiveMaximum" | "exclusiveMinimum" if since6 => Value,
        "const" if since6 => Value,
        "contentMediaType" | "contentEncoding" if since7 => Value,
        "dependentRequired" | "maxContains" | "minContains" if since2019 => Value,
        // Annotations: they never change what validates.
        "title" | "description" | "default" | "examples" | "$comment" | "readOnly"
        | "writeOnly" | "deprecated" => Value,
        // Applicators taking one schema; `items` only in its single-schema form.
        "not" | "additionalProperties" => Schema,
        "items" => SingleItems,
        "contains" | "propertyNames" if since6 => Schema,
        "if" | "then" | "else" if since7 => Schema,
        "unevaluatedProperties" if since2019 => Schema,
        // Applicators taking a list or a map of schemas.
        "allOf" | "anyOf" | "oneOf" => List,
        "properties" | "patternProperties" => Map,
        "dependentSchemas" if since2019 => Map,
        // Containers that references point into; a pointer resolves the same way.
        "definitions" => Map,
        "$defs" if since2019 => Map,
        "$ref" => Ref,
        _ => return None,
    })
}

enum Kind {
    Value,
    Schema,
    SingleItems,
    List,
    Map,
    Ref,
}

/// Every keyword of 2020-12 and of the older drafts: one that [`kind`] does not accept for
/// the declared draft is read differently by one side (or ignored by one and applied by
/// the other), so meeting it leaves the schema alone.
const KNOWN: [&str; 62] = [
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "id",
    "definitions",
    "dependencies",
    "additionalItems",
    "$recursiveRef",
];

fn same_meaning(schema: &Map<String, Value>, draft: Old) -> bool {
    // Draft-04 to 07 ignore a `$ref`'s siblings; 2020-12 applies them. Annotations alone
    // beside a `$ref` change nothing.
    if schema.contains_key("$ref")
        && draft < Old::Draft201909
        && schema.keys().any(|k| {
            !matches!(
                k.as_str(),
                "$ref" | "title" | "description" | "$comment" | "default" | "examples"
            )
        })
    {
        return false;
    }
    schema
        .iter()
        .all(|(keyword, value)| match kind(keyword, draft) {
            Some(Kind::Value) => true,
            Some(Kind::Schema) => subschema(value, draft),
            Some(Kind::SingleItems) => value.is_object() && subschema(value, draft),
            Some(Kind::List) => value
                .as_array()
                .is_some_and(|a| a.iter().all(|s| subschema(s, draft))),
            Some(Kind::Map) => value
                .as_object()
                .is_some_and(|m| m.values().all(|s| subschema(s, draft))),
            // Fragment pointers resolve identically; anything else depends on base URIs.
            Some(Kind::Ref) => value
                .as_str()
                .is_some_and(|r| r == "#" || r.starts_with("#/")),
            // Keywords neither dialect knows are ignored by both, unless 2020-12 or the old
            // draft gives them a meaning.
            None => !KNOWN.contains(&keyword.as_str()) && !keyword.starts_with('$'),
        })
}

fn subschema(value: &Value, draft: Old) -> bool {
    match value {
        Value::Object(m) => same_meaning(m, draft),
        // Boolean schemas exist from draft-06 on (draft-04 knows `false` only as the value
        // of `additionalProperties`, which means the same).
        Value::Bool(_) => draft >= Old::Draft6 || *value == Value::Bool(false),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{Old, declared, upgrade_for_client};
    use serde_json::{Map, Value, json};

    fn split(schema: &Value) -> (&Map<String, Value>, Old) {
        let obj = schema.as_object().unwrap();
        (obj, declared(obj["$schema"].as_str().unwrap()).unwrap())
    }

    #[test]
    fn drops_a_draft07_dollar_schema_when_the_body_means_the_same() {
        let zod = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"path": {"type": "string"}, "tail": {"type": "number", "description": "n"},
                           "edits": {"type": "array", "items": {"type": "object", "properties": {
                               "oldText": {"type": "string"}}, "required": ["oldText"],
                               "additionalProperties": false}}},
            "required": ["path"],
            "additionalProperties": false
        });
        let mut expected = zod.clone();
        expected.as_object_mut().unwrap().remove("$schema");
        assert_eq!(upgrade_for_client(&zod), Some(expected));
    }

    #[test]
    fn rewrites_what_the_upgrader_can_prove() {
        let tuple = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                           "items": [{"type": "string"}], "additionalItems": false});
        assert_eq!(
            upgrade_for_client(&tuple),
            Some(json!({"prefixItems": [{"type": "string"}], "items": false}))
        );
        let deps = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                          "dependencies": {"a": ["b"]}});
        assert_eq!(
            upgrade_for_client(&deps),
            Some(json!({"dependentRequired": {"a": ["b"]}}))
        );
    }

    #[test]
    fn the_fallback_rule_leaves_every_schema_whose_meaning_changes() {
        for schema in [
            // Tuple `items` is `prefixItems` in 2020-12.
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "additionalItems": false}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}),
            // `$ref` siblings are ignored before 2019-09.
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a",
                   "type": "string", "definitions": {"a": {}}}),
            // Boolean exclusive bounds of draft-04.
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 3, "exclusiveMaximum": true}),
            // Keywords draft-04 ignores but 2020-12 applies.
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "const": 3}),
            json!({"$schema": "http://json-schema.org/draft-06/schema#", "if": {"type": "string"}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": [{}]}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$id": "x"}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$schema": "x"}}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "id": "urn:x"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "other.json"}),
        ] {
            let (obj, draft) = split(&schema);
            assert_eq!(super::same_meaning_body(obj, draft), None, "{schema}");
        }
    }

    #[test]
    fn leaves_schemas_without_an_old_dialect() {
        assert_eq!(upgrade_for_client(&json!({"type": "object"})), None);
        let now =
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"});
        assert_eq!(upgrade_for_client(&now), None);
    }

    #[test]
    fn draft04_and_2019_09_bodies_that_mean_the_same() {
        let d4 = json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
                        "properties": {"n": {"type": "integer", "minimum": 0}}, "additionalProperties": false});
        assert!(upgrade_for_client(&d4).is_some());
        let d2019 = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
                           "$ref": "#/$defs/a", "required": ["x"], "$defs": {"a": {"minProperties": 1}}});
        assert!(upgrade_for_client(&d2019).is_some());
    }
}
