//! The schemas schemars (the version rmcp uses) derives for common Rust types compile, and
//! accept what serde accepts: every value serde serialises from the type validates, and
//! values serde refuses to deserialise are refused, with formats asserted.

use rmcp::handler::server::common::schema_for_type;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use toolschema::{Options, Schema};

fn compile<T: JsonSchema + 'static>() -> Schema {
    let schema = Value::Object((*schema_for_type::<T>()).clone());
    Options::new()
        .assert_formats(true)
        .compile(&schema)
        .unwrap_or_else(|e| panic!("{}: {e}\n{schema:#}", std::any::type_name::<T>()))
}

/// Every value serialises to JSON the schema accepts; every `refused` JSON is refused by
/// serde and by the schema alike; every `accepted` JSON by both accepted.
fn agree<T>(values: &[T], accepted: &[Value], refused: &[Value])
where
    T: JsonSchema + Serialize + DeserializeOwned + 'static,
{
    let schema = compile::<T>();
    let name = std::any::type_name::<T>();
    for v in values {
        let json = serde_json::to_value(v).unwrap();
        assert!(
            schema.is_valid(&json),
            "{name}: serialised {json} refused: {:?}",
            schema.validate(&json).err()
        );
        assert!(
            serde_json::from_value::<T>(json.clone()).is_ok(),
            "{name}: {json}"
        );
    }
    for json in accepted {
        assert!(
            serde_json::from_value::<T>(json.clone()).is_ok(),
            "{name}: serde refuses {json}"
        );
        assert!(schema.is_valid(json), "{name}: schema refuses {json}");
    }
    for json in refused {
        assert!(
            serde_json::from_value::<T>(json.clone()).is_err(),
            "{name}: serde accepts {json}"
        );
        assert!(!schema.is_valid(json), "{name}: schema accepts {json}");
    }
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Integers {
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    e: usize,
    f: i8,
    g: i16,
    h: i32,
    i: i64,
    j: isize,
}

#[test]
fn integers_of_every_width() {
    let max = Integers {
        a: u8::MAX,
        b: u16::MAX,
        c: u32::MAX,
        d: u64::MAX,
        e: usize::MAX,
        f: i8::MIN,
        g: i16::MIN,
        h: i32::MIN,
        i: i64::MIN,
        j: isize::MIN,
    };
    let ok = serde_json::to_value(&max).unwrap();
    let with = |key: &str, v: Value| {
        let mut o = ok.clone();
        o[key] = v;
        o
    };
    let refused: Vec<Value> = vec![
        with("a", json!(256)),
        with("a", json!(-1)),
        with("b", json!(65536)),
        // schemars gives u32 and u64 only `minimum: 0`: their upper bound is the format's.
        with("c", json!(4294967296u64)),
        with("d", json!(-1)),
        with("f", json!(-129)),
        with("g", json!(32768)),
        with("h", json!(2147483648u64)),
        with("h", json!(-2147483649i64)),
        with("i", json!(u64::MAX)),
        with("j", json!(u64::MAX)),
        with("a", json!("1")),
        with("a", json!(1.5)),
    ];
    agree(&[max], &[with("c", json!(0))], &refused);
}

#[test]
fn integer_formats_do_not_assert_by_default() {
    // As in the MCP SDKs, `format` annotates unless asked: `c: u32` is then only `minimum: 0`.
    let schema = Options::new()
        .compile(&Value::Object((*schema_for_type::<Integers>()).clone()))
        .unwrap();
    let mut v = serde_json::to_value(Integers {
        a: 0,
        b: 0,
        c: 0,
        d: 0,
        e: 0,
        f: 0,
        g: 0,
        h: 0,
        i: 0,
        j: 0,
    })
    .unwrap();
    v["c"] = json!(4294967296u64);
    assert!(schema.is_valid(&v));
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Floats {
    x: f32,
    y: f64,
}

#[test]
fn floats() {
    agree(
        &[
            Floats { x: 1.5, y: -2.25 },
            Floats {
                x: f32::MAX,
                y: f64::MAX,
            },
        ],
        &[json!({"x": 1, "y": 2})],
        &[json!({"x": "1", "y": 2}), json!({"x": 1})],
    );
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Inner {
    name: String,
    tags: Vec<String>,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Outer {
    id: u32,
    note: Option<String>,
    inner: Inner,
    list: Vec<Inner>,
    counts: HashMap<String, i64>,
    maybe_inner: Option<Inner>,
}

#[test]
fn structs_options_vecs_maps_nested() {
    let v = Outer {
        id: 7,
        note: None,
        inner: Inner {
            name: "a".into(),
            tags: vec!["x".into()],
        },
        list: vec![],
        counts: HashMap::from([("k".to_string(), -3)]),
        maybe_inner: Some(Inner {
            name: "b".into(),
            tags: vec![],
        }),
    };
    let base = json!({"id": 1, "inner": {"name": "n", "tags": []}, "list": [], "counts": {}});
    agree(
        &[v],
        &[
            base.clone(),
            json!({"id": 1, "note": null, "inner": {"name": "n", "tags": []}, "list": [], "counts": {}, "maybe_inner": null}),
            // Unknown fields are ignored by serde and allowed by the schema.
            json!({"id": 1, "inner": {"name": "n", "tags": [], "extra": 1}, "list": [], "counts": {}, "x": 2}),
        ],
        &[
            json!({"id": 1, "list": [], "counts": {}}),
            json!({"id": 1, "inner": {"name": "n", "tags": [1]}, "list": [], "counts": {}}),
            json!({"id": 1, "inner": {"name": "n", "tags": []}, "list": [{}], "counts": {}}),
            json!({"id": 1, "inner": {"name": "n", "tags": []}, "list": [], "counts": {"k": "v"}}),
            json!({"id": 1, "note": 5, "inner": {"name": "n", "tags": []}, "list": [], "counts": {}}),
        ],
    );
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: bool,
    #[serde(default)]
    b: Option<u8>,
}

#[test]
fn deny_unknown_fields() {
    agree(
        &[
            Strict {
                a: true,
                b: Some(3),
            },
            Strict { a: false, b: None },
        ],
        &[json!({"a": true})],
        &[
            json!({"a": true, "c": 1}),
            json!({"b": 1}),
            json!({"a": true, "b": 300}),
        ],
    );
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Paging {
    page: u16,
    per_page: Option<u8>,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Search {
    query: String,
    #[serde(flatten)]
    paging: Paging,
}

#[test]
fn flatten() {
    agree(
        &[Search {
            query: "q".into(),
            paging: Paging {
                page: 2,
                per_page: Some(10),
            },
        }],
        &[json!({"query": "q", "page": 1})],
        &[
            json!({"query": "q"}),
            json!({"query": "q", "page": 70000}),
            json!({"query": "q", "page": 1, "per_page": 256}),
        ],
    );
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct WithUnit {
    unit: Unit,
}

#[test]
fn unit_enums() {
    agree(
        &[
            WithUnit {
                unit: Unit::Celsius,
            },
            WithUnit {
                unit: Unit::Fahrenheit,
            },
        ],
        &[],
        &[
            json!({"unit": "kelvin"}),
            json!({"unit": "Celsius"}),
            json!({}),
        ],
    );
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { w: u16, h: u16 },
    Empty,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Draw {
    shape: Shape,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
enum External {
    Num(i32),
    Pair(u8, u8),
    Named { a: String },
    Bare,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(tag = "kind", content = "value")]
enum Adjacent {
    Code(u16),
    Text(String),
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
#[serde(untagged)]
enum Untagged {
    Id(u64),
    Name(String),
}

#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Enums {
    ext: External,
    adj: Adjacent,
    un: Untagged,
}

#[test]
fn tagged_enums() {
    agree(
        &[
            Draw {
                shape: Shape::Circle { radius: 1.0 },
            },
            Draw {
                shape: Shape::Rect { w: 1, h: 2 },
            },
            Draw {
                shape: Shape::Empty,
            },
        ],
        &[],
        &[
            json!({"shape": {"type": "circle"}}),
            json!({"shape": {"type": "rect", "w": 1, "h": 65536}}),
            json!({"shape": {"type": "hexagon"}}),
            json!({"shape": {"radius": 1.0}}),
        ],
    );
    agree(
        &[
            Enums {
                ext: External::Num(-1),
                adj: Adjacent::Code(404),
                un: Untagged::Id(1),
            },
            Enums {
                ext: External::Pair(1, 2),
                adj: Adjacent::Text("x".into()),
                un: Untagged::Name("n".into()),
            },
            Enums {
                ext: External::Named { a: "a".into() },
                adj: Adjacent::Code(0),
                un: Untagged::Id(0),
            },
            Enums {
                ext: External::Bare,
                adj: Adjacent::Code(0),
                un: Untagged::Id(0),
            },
        ],
        &[],
        &[
            json!({"ext": {"Num": 1, "Bare": null}, "adj": {"kind": "Code", "value": 1}, "un": 1}),
            json!({"ext": {"Pair": [1, 256]}, "adj": {"kind": "Code", "value": 1}, "un": 1}),
            json!({"ext": "Bare", "adj": {"kind": "Code", "value": 70000}, "un": 1}),
            json!({"ext": "Bare", "adj": {"kind": "Other", "value": 1}, "un": 1}),
            json!({"ext": "Bare", "adj": {"kind": "Code", "value": 1}, "un": true}),
        ],
    );
}

#[test]
fn a_tagged_enum_error_names_the_selected_branch_and_its_errors() {
    let schema = compile::<Draw>();
    let tool = toolschema::mcp::contract::CheckedTool::from_json(
        &json!({"name": "draw", "inputSchema": Value::Object((*schema_for_type::<Draw>()).clone())}),
        &Options::new(),
    );
    assert!(tool.problems().is_empty());
    let input = tool.input_schema().unwrap();
    let v = toolschema::mcp::contract::check_arguments(
        input,
        "draw",
        Some(&json!({"shape": {"type": "rect", "w": 1, "h": 65536}})),
    )
    .unwrap_err();
    let text = v.to_string();
    assert!(text.contains("selects branch /oneOf/1"), "{text}");
    assert!(text.contains("/shape/h: must be at most 65535"), "{text}");
    assert!(!text.contains("exactly one of"), "{text}");

    let v = toolschema::mcp::contract::check_arguments(
        input,
        "draw",
        Some(&json!({"shape": {"type": "hexagon-secret"}})),
    )
    .unwrap_err();
    let text = v.to_string();
    assert!(text.contains("/shape/type: must be one of"), "{text}");
    for tag in ["\"circle\"", "\"rect\"", "\"empty\""] {
        assert!(text.contains(tag), "{text}");
    }
    assert!(!text.contains("hexagon-secret"), "{text}");

    let v = toolschema::mcp::contract::check_arguments(input, "draw", Some(&json!({"shape": {}})))
        .unwrap_err();
    assert!(
        v.to_string()
            .contains("/shape: missing required property \"type\""),
        "{v}"
    );
    drop(schema);
}
