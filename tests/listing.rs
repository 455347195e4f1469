//! The one listing rule (`upgrade::for_listing`, `contract::listing_view`): a tool schema
//! declaring an older draft is shown as 2020-12 and enforced exactly as shown.
//!
//! The proof runs on every schema of the draft-04, -06, -07 and 2019-09 suites, each given
//! its draft's `$schema` as a tool would declare it: the schema a client is shown, compiled
//! as a 2020-12 client compiles it, and the schema the contract enforces give the same
//! verdict on every test; and that verdict is the suite's, but where the listing says it
//! widened a draft-04 `"integer"` and the test's instance holds a number like `1.0`.

#[path = "../suite/runner.rs"]
mod runner;

use serde_json::{Value, json};
use std::path::Path;
use toolschema::Options;
use toolschema::mcp::contract::{CheckedTool, listing_view};
use toolschema::mcp::{ProtocolVersion, Tool};
use toolschema::upgrade::{Listing, for_listing};

/// Whether `v` holds a number written with a zero fraction (`1.0`), which draft-04's
/// `integer` refuses and every later draft's admits.
fn has_integral_float(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(a) => a.iter().any(has_integral_float),
        Value::Object(o) => o.values().any(has_integral_float),
        _ => false,
    }
}

/// Whether `schema` references a document by URI (the suite's remotes): a tool schema
/// stands alone, and a remote's own dialect is not the listing's business.
fn references_remotes(schema: &Value) -> bool {
    schema.to_string().contains("localhost:1234")
}

#[derive(Default, Debug)]
struct Counts {
    upgraded: usize,
    widened: usize,
    as_declared: usize,
    cases: usize,
}

fn prove(folder: &str, uri: &str) -> Counts {
    let docs = runner::documents();
    let mut client = Options::new();
    let mut enforcing = Options::new();
    for (u, doc) in &docs {
        client = client.with_document(u, doc.clone());
        enforcing = enforcing.with_document(u, doc.clone());
    }
    let root = runner::suite_dir().join("tests").join(folder);
    let files = runner::json_files_below(&root);
    let mut c = Counts::default();
    let mut problems = Vec::new();
    for file in files {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        if name.starts_with("optional") {
            continue;
        }
        let groups: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for group in groups.as_array().unwrap() {
            let Value::Object(mut schema) = group["schema"].clone() else {
                continue;
            };
            if references_remotes(&group["schema"]) {
                continue;
            }
            schema.entry("$schema").or_insert_with(|| Value::from(uri));
            let schema = Value::Object(schema);
            let what = format!("{folder}/{name} :: {}", group["description"]);
            let widened = match for_listing(&schema) {
                Listing::Upgraded { widened, .. } => widened,
                Listing::AsDeclared(_) => {
                    c.as_declared += 1;
                    continue;
                }
                other => {
                    problems.push(format!("{what}: an older draft listed as {other:?}"));
                    continue;
                }
            };
            c.upgraded += 1;
            c.widened += usize::from(!widened.is_empty());
            let tool = json!({"name": "t", "inputSchema": schema});
            let view = listing_view(&tool).expect("an upgraded schema changes the listing");
            let shown = &view["inputSchema"];
            if shown.get("$schema").is_some() {
                problems.push(format!("{what}: the listing still declares a dialect"));
            }
            // What a 2020-12 client compiles, and what the contract enforces.
            let Ok(seen) = client.compile(shown) else {
                problems.push(format!(
                    "{what}: the shown schema does not compile: {shown}"
                ));
                continue;
            };
            let checked = CheckedTool::from_json(&view, &enforcing);
            let Some(enforced) = checked.input_schema() else {
                problems.push(format!("{what}: not enforced: {:?}", checked.problems()));
                continue;
            };
            for test in group["tests"].as_array().unwrap() {
                c.cases += 1;
                let data = &test["data"];
                let (s, e) = (seen.is_valid(data), enforced.is_valid(data));
                let expected = test["valid"].as_bool().unwrap();
                if s != e {
                    problems.push(format!(
                        "{what} :: {}: shown {s}, enforced {e}",
                        test["description"]
                    ));
                } else if s != expected && !(s && !widened.is_empty() && has_integral_float(data)) {
                    problems.push(format!(
                        "{what} :: {}: the listing answers {s}, the draft {expected}\n  {shown}",
                        test["description"]
                    ));
                }
            }
        }
    }
    println!("{folder}: {c:?}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(c.upgraded > 0 && c.cases > 0);
    c
}

#[test]
fn draft4_suite_is_enforced_as_listed() {
    let c = prove("draft4", "http://json-schema.org/draft-04/schema#");
    // The integer groups are widened, not refused.
    assert!(c.widened > 0, "{c:?}");
    assert_eq!(c.as_declared, 0, "{c:?}");
}

#[test]
fn draft6_suite_is_enforced_as_listed() {
    let c = prove("draft6", "http://json-schema.org/draft-06/schema#");
    assert_eq!((c.widened, c.as_declared), (0, 0), "{c:?}");
}

#[test]
fn draft7_suite_is_enforced_as_listed() {
    let c = prove("draft7", "http://json-schema.org/draft-07/schema#");
    assert_eq!((c.widened, c.as_declared), (0, 0), "{c:?}");
}

#[test]
fn draft2019_09_suite_is_enforced_as_listed() {
    let c = prove(
        "draft2019-09",
        "https://json-schema.org/draft/2019-09/schema",
    );
    assert_eq!(c.widened, 0, "{c:?}");
}

/// The rule as `Tool` (and so `serve --tools` and the library's `Server`) lists and enforces
/// it: a draft-04 tool is shown as 2020-12, and its `integer` admits `1.0` as shown.
#[test]
fn a_draft04_tool_is_listed_and_enforced_as_2020_12() {
    let tool = Tool::from_json(&json!({
        "name": "add",
        "inputSchema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
            "properties": {"a": {"type": "integer", "minimum": 0, "exclusiveMinimum": true},
                           "xs": {"type": "array", "items": [{"type": "string"}],
                                  "additionalItems": false}},
            "required": ["a"]},
        "outputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"sum": {"type": "integer"}}, "definitions": {"x": {}}}
    }))
    .unwrap()
    .build()
    .unwrap();
    let listed = tool.to_json(ProtocolVersion::V2025_11_25);
    assert_eq!(
        listed["inputSchema"],
        json!({"type": "object",
            "properties": {"a": {"type": "integer", "exclusiveMinimum": 0},
                           "xs": {"type": "array", "prefixItems": [{"type": "string"}], "items": false}},
            "required": ["a"]})
    );
    assert_eq!(
        listed["outputSchema"],
        json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "$defs": {"x": {}}})
    );
    let input = tool.input_schema();
    assert!(input.is_valid(&json!({"a": 1.0})));
    assert!(input.is_valid(&json!({"a": 2, "xs": ["x"]})));
    assert!(!input.is_valid(&json!({"a": 0})));
    assert!(!input.is_valid(&json!({"a": 1.5})));
    assert!(!input.is_valid(&json!({"a": 1, "xs": ["x", "y"]})));
    // Exactly the listed schema, compiled as a client would.
    let seen = Options::new().compile(&listed["inputSchema"]).unwrap();
    for v in [
        json!({"a": 1.0}),
        json!({"a": 0}),
        json!({"a": 3, "xs": [1]}),
        json!({}),
    ] {
        assert_eq!(seen.is_valid(&v), input.is_valid(&v), "{v}");
    }
}

#[test]
fn what_is_shown_as_it_is() {
    // 2020-12 (declared or not) is shown as it is.
    for s in [
        json!({"type": "object"}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
    ] {
        assert_eq!(for_listing(&s), Listing::Unchanged);
        assert_eq!(listing_view(&json!({"name": "t", "inputSchema": s})), None);
    }
    // No 2020-12 form: listed and enforced as declared, `$schema` kept, with the reason.
    let unknown = json!({"$schema": "https://example.com/my-dialect", "type": "object"});
    assert!(matches!(for_listing(&unknown), Listing::AsDeclared(e) if e.location == "/$schema"));
    let both = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
        "contains": {"type": "string"}, "unevaluatedItems": false});
    assert!(matches!(for_listing(&both), Listing::AsDeclared(_)));
    let tool = json!({"name": "t", "inputSchema": both});
    assert_eq!(listing_view(&tool), None);
}

/// Every corpus tool lists, and what is listed compiles.
#[test]
fn corpus_tools_list_and_compile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mcp-tools");
    let files = runner::json_files_below(&dir);
    let mut changed = 0;
    for f in &files {
        let tool: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        if tool.get("inputSchema").is_none() {
            continue;
        }
        let Some(view) = listing_view(&tool) else {
            continue;
        };
        changed += 1;
        let checked = CheckedTool::from_json(&view, &Options::new());
        assert!(
            checked.problems().is_empty(),
            "{}: {:?}",
            f.display(),
            checked.problems()
        );
        for key in ["inputSchema", "outputSchema"] {
            assert!(
                view.get(key).is_none_or(|s| s.get("$schema").is_none()),
                "{}",
                f.display()
            );
        }
    }
    println!("corpus: {changed} tools listed in another form");
}
