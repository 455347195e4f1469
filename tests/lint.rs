//! `toolschema::lint`: every rule fires on its documented example and not on its clean
//! twin; tool lists in both shapes; `fix`; and the whole corpus, findings per rule.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use toolschema::lint::{RULES, fix, lint, lint_schema, rule};

fn rules_of(doc: &Value) -> Vec<&'static str> {
    lint(doc).iter().map(|f| f.rule).collect()
}

fn deep(levels: usize) -> Value {
    let mut s = json!({"type": "object"});
    for _ in 0..levels {
        s = json!({"type": "object", "properties": {"a": s}});
    }
    s
}

#[test]
fn every_rule_fires_on_its_example_and_not_on_its_clean_twin() {
    for r in RULES {
        let (example, clean): (Value, Value) = if r.name == "caps-exceeded" {
            (deep(40), deep(20))
        } else {
            (
                serde_json::from_str(r.example).unwrap_or_else(|e| panic!("{}: {e}", r.name)),
                serde_json::from_str(r.clean).unwrap_or_else(|e| panic!("{}: {e}", r.name)),
            )
        };
        let found = rules_of(&example);
        assert!(
            found.contains(&r.name),
            "{}: example gave {found:?}",
            r.name
        );
        assert!(!r.reason.is_empty());
        let found_clean = lint(&clean);
        assert!(
            found_clean.is_empty(),
            "{}: the clean twin gave {:?}",
            r.name,
            found_clean
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        );
    }
    // Rule names are unique and stable.
    let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), RULES.len());
}

#[test]
fn locations_and_messages() {
    let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "strin"},
        "b": {"type": "string", "minLength": 5, "maxLength": 2},
        "c": {"$ref": "other.json#/x"}
    }}});
    let found = lint(&tool);
    let got: Vec<(&str, &str)> = found
        .iter()
        .map(|f| (f.rule, f.location.as_str()))
        .collect();
    assert!(
        got.contains(&("meta-schema-violation", "/inputSchema/properties/a/type")),
        "{got:?}"
    );
    assert!(
        got.contains(&(
            "unsatisfiable-subschema",
            "/inputSchema/properties/b/minLength"
        )),
        "{got:?}"
    );
    assert!(
        got.contains(&("non-fragment-ref", "/inputSchema/properties/c/$ref")),
        "{got:?}"
    );
    assert!(found.iter().all(|f| f.tool.as_deref() == Some("t")));
    // `false` only matters where a value must satisfy it.
    assert!(lint_schema(&json!({"properties": {"x": false}})).is_empty());
    assert_eq!(
        lint_schema(&json!({"allOf": [false]}))[0].rule,
        "unsatisfiable-subschema"
    );
    assert!(rule("unknown-format").is_some_and(|r| !r.fixable));
}

#[test]
fn duplicate_ids_are_warned_naming_both_locations() {
    let duplicates = |doc: &Value| -> Vec<toolschema::lint::Finding> {
        lint(doc)
            .into_iter()
            .filter(|f| f.rule == "duplicate-id")
            .collect()
    };
    let claimant = |t: &str| json!({"$id": "https://e.com/a", "type": t});
    // The same subschema twice, reached by a reference: accepted, warned.
    let same = json!({"type": "object", "properties": {
        "a": claimant("number"), "b": claimant("number"), "c": {"$ref": "https://e.com/a"}
    }});
    // Different subschemas no reference reaches: accepted, warned.
    let unreached =
        json!({"type": "object", "properties": {"a": claimant("number"), "b": claimant("string")}});
    // A repeated anchor.
    let anchors =
        json!({"type": "object", "$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}});
    for (doc, what, why) in [
        (
            &same,
            "the URI \"https://e.com/a\"",
            "the same subschema twice",
        ),
        (
            &unreached,
            "the URI \"https://e.com/a\"",
            "no reference reaches",
        ),
        (&anchors, "the anchor \"x\"", "the same subschema twice"),
    ] {
        let found = duplicates(doc);
        assert_eq!(found.len(), 1, "{doc}: {found:?}");
        let f = &found[0];
        assert_eq!(f.severity, toolschema::lint::Severity::Warning);
        let (a, b) = if what.contains("anchor") {
            ("/$defs/a", "/$defs/b")
        } else {
            ("/properties/a", "/properties/b")
        };
        assert!(f.location == a || f.location == b, "{f}");
        for needle in [what, why, &format!("{a:?}"), &format!("{b:?}")] {
            assert!(f.message.contains(needle), "{f} lacks {needle}");
        }
        // In a tool, under its input schema.
        let tool = json!({"name": "t", "inputSchema": doc});
        let in_tool = duplicates(&tool);
        assert_eq!(in_tool.len(), 1, "{in_tool:?}");
        assert_eq!(in_tool[0].location, format!("/inputSchema{}", f.location));
    }
    // Refused (a reference reaches two different subschemas): an error, not this warning.
    let reached = json!({"type": "object", "properties": {
        "a": claimant("number"), "b": claimant("string"), "c": {"$ref": "https://e.com/a"}
    }});
    assert!(duplicates(&reached).is_empty());
    assert!(rules_of(&reached).contains(&"schema-does-not-compile"));
    // No duplicate, no warning.
    let distinct = json!({"type": "object", "properties": {"a": claimant("number")}});
    assert!(duplicates(&distinct).is_empty());
}

#[test]
fn tool_lists_in_both_shapes() {
    let tools = json!([
        {"name": "ok", "inputSchema": {"type": "object"}},
        {"name": "bad name", "inputSchema": {"type": "array"}}
    ]);
    let a: Vec<(&str, String)> = lint(&tools)
        .into_iter()
        .map(|f| (f.rule, f.location))
        .collect();
    assert_eq!(
        a,
        [
            ("tool-name-charset", "/1/name".to_string()),
            ("input-root-not-object", "/1/inputSchema/type".to_string())
        ]
    );
    let wrapped = json!({"tools": tools});
    let b: Vec<String> = lint(&wrapped).into_iter().map(|f| f.location).collect();
    assert_eq!(b, ["/tools/1/name", "/tools/1/inputSchema/type"]);
}

#[test]
fn fix_upgrades_older_dialects() {
    let tool = json!({"name": "t", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"p": {"$ref": "#/definitions/p"}},
        "definitions": {"p": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}}
    }});
    assert_eq!(rules_of(&tool), ["dialect-not-2020-12"]);
    let (fixed, n) = fix(&tool);
    assert_eq!(n, 1);
    assert!(lint(&fixed).is_empty(), "{:?}", lint(&fixed));
    assert_eq!(fixed["inputSchema"]["properties"]["p"]["$ref"], "#/$defs/p");
    // What cannot upgrade exactly stays, and says why.
    let int4 = json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
                      "properties": {"n": {"type": "integer"}}});
    let (same, n) = fix(&int4);
    assert_eq!((same, n), (int4.clone(), 0));
    assert!(lint(&int4)[0].message.contains("not fixable"));
}

#[test]
fn corpus_findings_per_rule() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mcp-tools");
    let mut per_rule: BTreeMap<&str, usize> = RULES.iter().map(|r| (r.name, 0)).collect();
    let mut per_rule_tools: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tools = 0;
    let mut examples: BTreeMap<&str, String> = BTreeMap::new();
    let mut sources: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sources.sort();
    for source in sources.into_iter().filter(|p| p.is_dir()) {
        let mut files: Vec<_> = std::fs::read_dir(&source)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let tool: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            tools += 1;
            let found = lint(&tool);
            let mut seen = Vec::new();
            for finding in &found {
                *per_rule.get_mut(finding.rule).unwrap() += 1;
                if !seen.contains(&finding.rule) {
                    seen.push(finding.rule);
                    *per_rule_tools.entry(finding.rule).or_default() += 1;
                }
                examples.entry(finding.rule).or_insert_with(|| {
                    format!("{}: {finding}", f.strip_prefix(&dir).unwrap().display())
                });
            }
        }
    }
    println!("corpus: {tools} tools linted");
    println!("| rule | findings | tools |\n|---|---:|---:|");
    for (rule, n) in &per_rule {
        println!(
            "| {rule} | {n} | {} |",
            per_rule_tools.get(rule).unwrap_or(&0)
        );
    }
    for (rule, e) in &examples {
        println!("  e.g. {rule}: {e}");
    }
    assert_eq!(tools, 253);
}
