//! URIs and anchors claimed more than once (issue 52, part 2): a schema whose duplicates
//! no reference can tell apart compiles and means what each claimant says in place; a
//! reference that could reach two different subschemas is refused, naming both. And a
//! JSON-pointer fragment in an older draft's `id`/`$id` is no identifier at all.
//!
//! Every verdict is checked on every path, with and without the shortcuts.

mod support;

use serde_json::{Value, json};
use support::{check, compile, compile_with};
use toolschema::{Options, SchemaError, SchemaErrorKind};

const D4: &str = "http://json-schema.org/draft-04/schema#";
const D6: &str = "http://json-schema.org/draft-06/schema#";
const D7: &str = "http://json-schema.org/draft-07/schema#";
const D2019: &str = "https://json-schema.org/draft/2019-09/schema";
const D2020: &str = "https://json-schema.org/draft/2020-12/schema";

/// The `$schema` URI and `id` keyword of every dialect.
const DIALECTS: [(&str, &str); 5] = [
    (D4, "id"),
    (D6, "$id"),
    (D7, "$id"),
    (D2019, "$id"),
    (D2020, "$id"),
];

#[track_caller]
fn verdicts(options: &Options, schema: &Value, cases: &[(Value, bool)]) {
    let both =
        compile_with(options, schema).unwrap_or_else(|e| panic!("{schema} does not compile: {e}"));
    for (instance, expected) in cases {
        check(&both, instance, *expected);
    }
}

#[track_caller]
fn refused(options: &Options, schema: &Value) -> SchemaError {
    match compile_with(options, schema) {
        Ok(_) => panic!("{schema} compiled"),
        Err(e) => {
            assert_eq!(
                e.kind(),
                SchemaErrorKind::DuplicateIdentifier,
                "{schema}: {e}"
            );
            e
        }
    }
}

/// The error stands at `location` and names both claimants.
#[track_caller]
fn names_both(e: &SchemaError, location: &str, first: &str, second: &str) {
    assert_eq!(e.location(), location, "{e}");
    let quoted = |p: &str| match p {
        "" => "the root".to_string(),
        p => format!("{p:?}"),
    };
    let (a, b) = (quoted(first), quoted(second));
    let message = e.message();
    assert!(
        message.contains(&a) && message.contains(&b),
        "{e} does not name {a} and {b}"
    );
}

fn with(mut schema: Value, dialect: &str) -> Value {
    schema["$schema"] = json!(dialect);
    schema
}

#[test]
fn the_issue_example_compiles_in_every_dialect_with_jsonschema_rs_verdicts() {
    for (dialect, id) in DIALECTS {
        let schema = with(
            json!({"properties": {
                "a": {id: "http://e.com/a", "type": "number"},
                "b": {id: "http://e.com/a", "type": "number"}
            }}),
            dialect,
        );
        verdicts(
            &Options::new(),
            &schema,
            &[
                (json!({"a": 1, "b": 2.5}), true),
                (json!({}), true),
                (json!({"a": "x"}), false),
                (json!({"b": "x"}), false),
                (json!({"a": 1, "b": [1]}), false),
            ],
        );
    }
}

#[test]
fn identical_claimants_reached_by_a_reference_compile() {
    for (dialect, id) in DIALECTS {
        let claimant = json!({
            id: "http://e.com/a",
            "type": "object",
            "properties": {"x": {"type": "integer"}}
        });
        // The URI itself, a pointer under it.
        for reference in ["http://e.com/a", "http://e.com/a#/properties/x"] {
            let schema = with(
                json!({"properties": {"a": claimant, "b": claimant, "c": {"$ref": reference}}}),
                dialect,
            );
            let (good, bad) = if reference.ends_with("/x") {
                (json!(3), json!(3.5))
            } else {
                (json!({"x": 3}), json!({"x": "3"}))
            };
            verdicts(
                &Options::new(),
                &schema,
                &[
                    (json!({"c": good}), true),
                    (json!({"c": bad}), false),
                    (json!({"a": {"x": "s"}}), false),
                ],
            );
        }
    }
    // An anchor in the resource (`id: "#n"` before 2019-09, `$anchor` since).
    for (dialect, id) in DIALECTS {
        let anchor = if id == "id" || dialect == D6 || dialect == D7 {
            json!({id: "#n", "minimum": 0})
        } else {
            json!({"$anchor": "n", "minimum": 0})
        };
        let claimant = json!({id: "http://e.com/a", "definitions": {"n": anchor}});
        let schema = with(
            json!({"properties": {"a": claimant, "b": claimant, "c": {"$ref": "http://e.com/a#n"}}}),
            dialect,
        );
        verdicts(
            &Options::new(),
            &schema,
            &[(json!({"c": 1}), true), (json!({"c": -1}), false)],
        );
    }
    // A `$dynamicRef` to a URI claimed twice alike.
    let claimant = json!({"$id": "https://e.com/a", "$dynamicAnchor": "m", "type": "number"});
    verdicts(
        &Options::new(),
        &json!({"$defs": {"a": claimant, "b": claimant}, "properties": {"c": {"$dynamicRef": "https://e.com/a#m"}}}),
        &[(json!({"c": 1}), true), (json!({"c": "1"}), false)],
    );
}

#[test]
fn different_claimants_reached_by_a_reference_are_refused_naming_both() {
    for (dialect, id) in DIALECTS {
        let a = json!({id: "http://e.com/a", "type": "number", "properties": {"x": {"type": "integer"}}});
        let b = json!({id: "http://e.com/a", "type": "string", "properties": {"x": {"type": "boolean"}}});
        for reference in ["http://e.com/a", "http://e.com/a#/properties/x"] {
            let schema = with(
                json!({"properties": {"a": a, "b": b, "c": {"$ref": reference}}}),
                dialect,
            );
            let e = refused(&Options::new(), &schema);
            let pointer = if reference.ends_with("/x") {
                "/properties/x"
            } else {
                ""
            };
            names_both(
                &e,
                "/properties/c/$ref",
                &format!("/properties/a{pointer}"),
                &format!("/properties/b{pointer}"),
            );
        }
        // A reference relative to the base inside one claimant.
        let a = json!({id: "http://e.com/a", "definitions": {"q": {"type": "number"}}, "properties": {"p": {"$ref": "#/definitions/q"}}});
        let b = json!({id: "http://e.com/a", "definitions": {"q": {"type": "string"}}});
        let e = refused(
            &Options::new(),
            &with(json!({"properties": {"a": a, "b": b}}), dialect),
        );
        names_both(
            &e,
            "/properties/a/properties/p/$ref",
            "/properties/a/definitions/q",
            "/properties/b/definitions/q",
        );
    }
    // An anchor of a URI claimed twice, the same anchor in different claimants.
    let e = refused(
        &Options::new(),
        &json!({"$defs": {
            "a": {"$id": "https://e.com/a", "$defs": {"n": {"$anchor": "n", "type": "number"}}},
            "b": {"$id": "https://e.com/a", "$defs": {"n": {"$anchor": "n", "type": "string"}}}
        }, "$ref": "https://e.com/a#n"}),
    );
    names_both(&e, "/$ref", "/$defs/a/$defs/n", "/$defs/b/$defs/n");
    // `$dynamicRef`.
    let e = refused(
        &Options::new(),
        &json!({"$defs": {
            "a": {"$id": "https://e.com/a", "$dynamicAnchor": "m", "type": "number"},
            "b": {"$id": "https://e.com/a", "$dynamicAnchor": "m", "type": "string"}
        }, "properties": {"c": {"$dynamicRef": "https://e.com/a#m"}}}),
    );
    names_both(&e, "/properties/c/$dynamicRef", "/$defs/a", "/$defs/b");
}

#[test]
fn equal_values_in_different_contexts_are_different() {
    // The same text under draft-07 (where `unevaluatedProperties` is no keyword) and
    // 2020-12 (where it is).
    let claimant = json!({"$id": "https://e.com/a", "unevaluatedProperties": false});
    let schema = json!({
        "$defs": {
            "new": claimant,
            "old": {"$schema": D7, "$id": "https://e.com/old", "definitions": {"x": claimant}}
        },
        "properties": {"c": {"$ref": "https://e.com/a"}}
    });
    let e = refused(&Options::new(), &schema);
    names_both(
        &e,
        "/properties/c/$ref",
        "/$defs/new",
        "/$defs/old/definitions/x",
    );
    // Unreached, each means what its dialect says.
    let mut unreached = schema.clone();
    unreached["properties"] = json!({
        "n": {"$ref": "#/$defs/new"},
        "o": {"$ref": "https://e.com/old#/definitions/x"}
    });
    verdicts(
        &Options::new(),
        &unreached,
        &[
            (json!({"n": {}, "o": {}}), true),
            (json!({"n": {"x": 1}}), false),
            (json!({"o": {"x": 1}}), true),
        ],
    );
    // And bases: the same relative reference under claimants whose inner base differs.
    let a = json!({"$id": "https://e.com/a", "$defs": {"p": {"$id": "x/", "$defs": {"q": {"$ref": "t"}}}}});
    let b = json!({"$id": "https://e.com/a", "$defs": {"p": {"$id": "y/", "$defs": {"q": {"$ref": "t"}}}}});
    let e = refused(
        &Options::new(),
        &json!({"$defs": {
            "a": a, "b": b,
            "xt": {"$id": "https://e.com/x/t", "type": "number"},
            "yt": {"$id": "https://e.com/y/t", "type": "string"}
        }, "$ref": "https://e.com/a#/$defs/p/$defs/q"}),
    );
    names_both(
        &e,
        "/$ref",
        "/$defs/a/$defs/p/$defs/q",
        "/$defs/b/$defs/p/$defs/q",
    );
}

#[test]
fn unreached_different_claimants_compile_each_in_place() {
    for (dialect, id) in DIALECTS {
        // Each claimant has its own nested `id`, claimed twice too, and a pointer reference
        // of its own that only it can answer.
        let a = json!({id: "http://e.com/a", "properties": {
            "v": {id: "v.json", "type": "number"},
            "w": {"$ref": "#/definitions/only_a"}
        }, "definitions": {"only_a": {"type": "boolean"}}});
        let b =
            json!({id: "http://e.com/a", "properties": {"v": {id: "v.json", "type": "string"}}});
        let schema = with(json!({"properties": {"a": a, "b": b}}), dialect);
        verdicts(
            &Options::new(),
            &schema,
            &[
                (json!({"a": {"v": 1, "w": true}, "b": {"v": "x"}}), true),
                (json!({"a": {"v": "x"}}), false),
                (json!({"a": {"w": 1}}), false),
                (json!({"b": {"v": 1}}), false),
            ],
        );
    }
}

#[test]
fn a_child_id_resolving_to_the_root_uri() {
    for (dialect, id) in DIALECTS {
        let schema = with(
            json!({
                id: "http://e.com/root.json",
                "definitions": {"n": {"type": "number"}},
                "properties": {
                    "a": {id: "root.json", "type": "string"},
                    "b": {"$ref": "#/definitions/n"}
                }
            }),
            dialect,
        );
        verdicts(
            &Options::new(),
            &schema,
            &[
                (json!({"a": "x", "b": 1}), true),
                (json!({"b": "x"}), false),
                (json!({"a": 1}), false),
            ],
        );
        // A reference to the URI itself could reach either.
        let mut reached = schema.clone();
        reached["properties"]["c"] = json!({"$ref": "http://e.com/root.json"});
        let e = refused(&Options::new(), &reached);
        names_both(&e, "/properties/c/$ref", "", "/properties/a");
        assert!(e.message().contains("the root"), "{e}");
    }
}

#[test]
fn registered_documents_are_claimants_too() {
    let schema = json!({"properties": {
        "a": {"$id": "https://e.com/a", "type": "number"},
        "c": {"$ref": "https://e.com/a"}
    }});
    let same = Options::new().with_document(
        "https://e.com/a",
        json!({"$id": "https://e.com/a", "type": "number"}),
    );
    verdicts(
        &same,
        &schema,
        &[(json!({"c": 1}), true), (json!({"c": "1"}), false)],
    );
    let other = Options::new().with_document("https://e.com/a", json!({"type": "string"}));
    let e = refused(&other, &schema);
    assert_eq!(e.location(), "/properties/c/$ref", "{e}");
    assert!(
        e.message().contains("\"/properties/a\"") && e.message().contains("https://e.com/a#"),
        "{e}"
    );
    // Unreached, the registered document is never loaded.
    let unreached = json!({"properties": {"a": {"$id": "https://e.com/a", "type": "number"}}});
    verdicts(
        &other,
        &unreached,
        &[(json!({"a": 1}), true), (json!({"a": "1"}), false)],
    );
}

#[test]
fn repeated_anchors_follow_the_same_policy() {
    // `$anchor` (2019-09, 2020-12) and `id: "#name"` (draft-04 to draft-07).
    for (dialect, id) in DIALECTS {
        let anchor = |t: &str| {
            if dialect == D2019 || dialect == D2020 {
                json!({"$anchor": "x", "type": t})
            } else {
                json!({id: "#x", "type": t})
            }
        };
        let same = with(
            json!({"definitions": {"a": anchor("number"), "b": anchor("number")}, "properties": {"p": {"$ref": "#x"}}}),
            dialect,
        );
        verdicts(
            &Options::new(),
            &same,
            &[(json!({"p": 1}), true), (json!({"p": "s"}), false)],
        );
        let unreached = with(
            json!({"definitions": {"a": anchor("number"), "b": anchor("string")}, "properties": {"p": {"type": "null"}}}),
            dialect,
        );
        verdicts(
            &Options::new(),
            &unreached,
            &[(json!({"p": null}), true), (json!({"p": 1}), false)],
        );
        let mut reached = unreached.clone();
        reached["properties"]["p"] = json!({"$ref": "#x"});
        let e = refused(&Options::new(), &reached);
        names_both(&e, "/properties/p/$ref", "/definitions/a", "/definitions/b");
    }
}

#[test]
fn repeated_dynamic_anchors() {
    // Alike: a `$dynamicRef` reaching them, statically or dynamically, is fine.
    let alike = json!({
        "$defs": {
            "a": {"$dynamicAnchor": "m", "type": "number"},
            "b": {"$dynamicAnchor": "m", "type": "number"},
            "inner": {"$id": "https://e.com/inner", "$defs": {"d": {"$dynamicAnchor": "m", "type": "boolean"}}, "$dynamicRef": "#m"}
        },
        "properties": {"p": {"$ref": "https://e.com/inner"}, "q": {"$dynamicRef": "#m"}}
    });
    verdicts(
        &Options::new(),
        &alike,
        &[
            (json!({"p": 1, "q": 2}), true),
            (json!({"p": true}), false),
            (json!({"q": "s"}), false),
        ],
    );
    // Different, and only dynamically reachable (from another resource): refused.
    let mut different = alike.clone();
    different["$defs"]["b"]["type"] = json!("string");
    different["properties"] = json!({"p": {"$ref": "https://e.com/inner"}});
    let e = refused(&Options::new(), &different);
    let at = e.location().to_string();
    assert!(
        at == "/$defs/a/$dynamicAnchor" || at == "/$defs/b/$dynamicAnchor",
        "{e}"
    );
    names_both(&e, &at, "/$defs/a", "/$defs/b");
    // Different and named by no `$dynamicRef`: in place.
    let unreached = json!({"$defs": {
        "a": {"$dynamicAnchor": "m", "type": "number"},
        "b": {"$dynamicAnchor": "m", "type": "string"}
    }, "type": "object"});
    verdicts(
        &Options::new(),
        &unreached,
        &[(json!({}), true), (json!(1), false)],
    );
}

#[test]
fn pointer_fragments_in_older_ids_are_no_identifiers() {
    // The issue's example, in each older dialect, and as written (2020-12, where `id` is
    // no keyword).
    let mut schemas = vec![json!({"properties": {
        "a": {"id": "#/x", "type": "number"},
        "b": {"id": "#/x", "type": "number"}
    }})];
    for (dialect, id) in &DIALECTS[..3] {
        for value in ["#/x", "http://e.com/a#/x", "#%2Fx"] {
            schemas.push(with(
                json!({"properties": {
                    "a": {*id: value, "type": "number"},
                    "b": {*id: value, "type": "number"}
                }}),
                dialect,
            ));
        }
    }
    for schema in &schemas {
        verdicts(
            &Options::new(),
            schema,
            &[
                (json!({"a": 1, "b": 2}), true),
                (json!({"a": "x"}), false),
                (json!({"b": "x"}), false),
            ],
        );
    }
    // The URI part is no base either: a pointer reference below it stays the root's.
    for (dialect, id) in &DIALECTS[..3] {
        let schema = with(
            json!({
                "definitions": {"t": {"type": "integer"}},
                "properties": {"a": {*id: "http://e.com/other#/x", "items": {"$ref": "#/definitions/t"}}}
            }),
            dialect,
        );
        verdicts(
            &Options::new(),
            &schema,
            &[(json!({"a": [1]}), true), (json!({"a": ["x"]}), false)],
        );
        // And no reference reaches it by that URI.
        let mut reached = schema.clone();
        reached["properties"]["b"] = json!({"$ref": "http://e.com/other"});
        let e = compile(&reached).map(|_| ()).unwrap_err();
        assert_eq!(e.kind(), SchemaErrorKind::UnresolvedReference, "{e}");
    }
    // 2019-09 and 2020-12 refuse a non-empty fragment in `$id`, pointer or not.
    for dialect in [D2019, D2020] {
        for value in ["#/x", "http://e.com/a#/x", "#x"] {
            let e = compile(&with(json!({"properties": {"a": {"$id": value}}}), dialect))
                .map(|_| ())
                .unwrap_err();
            assert_eq!(e.kind(), SchemaErrorKind::InvalidKeyword, "{value}: {e}");
            assert_eq!(e.location(), "/properties/a/$id", "{e}");
        }
    }
}

/// CPU time this thread has used (user and system), from `/proc/thread-self/stat`.
fn thread_cpu() -> std::time::Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("Linux /proc");
    // After the command name (in parentheses): state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').expect("stat format") + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // Clock ticks are 1/100 s on Linux.
    std::time::Duration::from_millis(ticks * 10)
}

#[test]
fn many_claimants_and_many_references_are_bounded() {
    // 20,000 different claimants of one URI and 20,000 references to distinct pointers
    // under it: looking every claimant up for every reference is 400 million lookups
    // (minutes); the compiler stops at its bound with a clear error. A generous CPU-time
    // cap on this thread, not a timing.
    let n = 20_000;
    let mut defs = serde_json::Map::new();
    let big: serde_json::Map<String, Value> = (0..n)
        .map(|i| (format!("k{i}"), json!({"type": "integer"})))
        .collect();
    defs.insert(
        "a_big".into(),
        json!({"$id": "https://e.com/a", "definitions": big}),
    );
    for i in 0..n {
        defs.insert(
            format!("c{i}"),
            json!({"$id": "https://e.com/a", "title": format!("c{i}")}),
        );
    }
    let properties: serde_json::Map<String, Value> = (0..n)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"$ref": format!("https://e.com/a#/definitions/k{i}")}),
            )
        })
        .collect();
    let schema = json!({"$defs": defs, "properties": properties});
    let options = Options::new().limits(toolschema::Limits::none());
    let start = thread_cpu();
    let e = options.compile(&schema).map(|_| ()).unwrap_err();
    let spent = thread_cpu() - start;
    assert_eq!(e.kind(), SchemaErrorKind::DuplicateIdentifier, "{e}");
    assert!(e.message().contains("too many subschemas"), "{e}");
    assert!(
        spent < std::time::Duration::from_secs(20),
        "{spent:?} of CPU to refuse it"
    );
    // A hundred identical copies and a thousand references to them compile.
    let mut defs = serde_json::Map::new();
    let big: serde_json::Map<String, Value> = (0..1000)
        .map(|i| (format!("k{i}"), json!({"minimum": i})))
        .collect();
    for i in 0..100 {
        defs.insert(
            format!("c{i}"),
            json!({"$id": "https://e.com/a", "definitions": big}),
        );
    }
    let properties: serde_json::Map<String, Value> = (0..1000)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"$ref": format!("https://e.com/a#/definitions/k{i}")}),
            )
        })
        .collect();
    let schema = json!({"$defs": defs, "properties": properties});
    let both = compile_with(&Options::new().limits(toolschema::Limits::none()), &schema)
        .unwrap_or_else(|e| panic!("{e}"));
    check(&both, &json!({"p7": 7, "p999": 999}), true);
    check(&both, &json!({"p7": 6}), false);
}
