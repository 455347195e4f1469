//! Tools given a generated validator (`ToolChecks::with_generated`), called through
//! `testing::Client`: the same answers as the runtime engine's path, the generated verdict
//! used when it stands for the published schema, reported and ignored when it does not,
//! and the checked-in schema file kept equal to the parameter type.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolschema::{GeneratedValidator, Options, Schema};
use toolschema_rmcp::testing::{Client, check_input_schema_file, input_schema_text};
use toolschema_rmcp::{ProtocolVersion, ToolChecks, ValidatedRouter};

/// The parameters of `connect`; `tests/schemas/port.json` is its published input schema
/// (kept so by `the_schema_file_is_the_types_published_schema`).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Port {
    #[schemars(length(min = 1, max = 253))]
    host: String,
    port: u16,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    scheme: Option<String>,
}

const PORT_SCHEMA: &str = "tests/schemas/port.json";

#[toolschema_macros::validator(path = "tests/schemas/port.json")]
struct PortArgs;

/// A validator generated for another schema than `connect` publishes.
#[toolschema_macros::validator(schema = r#"{"type": "object"}"#)]
struct AnyObject;

/// The real generated validator of `port.json`, with its `is_valid` calls counted: a
/// wrapper, not a stand-in (every answer is `PortArgs`'s).
struct CountedPortArgs;
static COUNTED: AtomicUsize = AtomicUsize::new(0);

impl GeneratedValidator for CountedPortArgs {
    const SCHEMA: &'static str = PortArgs::SCHEMA;
    fn is_valid(instance: &Value) -> bool {
        COUNTED.fetch_add(1, Ordering::SeqCst);
        PortArgs::is_valid(instance)
    }
    fn schema() -> &'static Schema {
        PortArgs::schema()
    }
    fn options() -> Options {
        <PortArgs as GeneratedValidator>::options()
    }
}

/// A deliberately false validator that accepts everything, under `SCHEMA`: the calls it
/// lets through show whose verdict the checks take. Test-only, never a real validator.
struct AcceptsAll<const SAME_SCHEMA: bool>;

impl<const SAME_SCHEMA: bool> GeneratedValidator for AcceptsAll<SAME_SCHEMA> {
    const SCHEMA: &'static str = if SAME_SCHEMA {
        PortArgs::SCHEMA
    } else {
        r#"{"type": "object"}"#
    };
    fn is_valid(_: &Value) -> bool {
        true
    }
    fn schema() -> &'static Schema {
        PortArgs::schema()
    }
    fn options() -> Options {
        Options::new()
    }
}

#[derive(Clone)]
struct Server {
    tool_router: ValidatedRouter<Self>,
    calls: Arc<AtomicUsize>,
}

#[tool_router]
impl Server {
    fn new(wrap: impl FnOnce(ValidatedRouter<Self>) -> ValidatedRouter<Self>) -> Self {
        Self {
            tool_router: wrap(ValidatedRouter::new(Self::tool_router())),
            calls: Arc::default(),
        }
    }

    #[tool(description = "Connect")]
    fn connect(&self, Parameters(p): Parameters<Port>) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        format!("{}:{}", p.host, p.port)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {}

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25];

fn valid() -> Vec<Value> {
    vec![
        json!({"host": "a", "port": 80}),
        json!({"host": "example.org", "port": 65535, "scheme": "https"}),
        json!({"host": "a", "port": 0, "scheme": null}),
    ]
}

fn invalid() -> Vec<Value> {
    vec![
        json!({"host": "", "port": 80}),
        json!({"host": "a", "port": 70000}),
        json!({"host": "a", "port": -1}),
        json!({"host": "a", "port": 1.5}),
        json!({"host": "a"}),
        json!({"host": 1, "port": 80}),
        json!({"host": "a", "port": 80, "extra": true}),
        json!({"host": "a", "port": 80, "scheme": "HTTP"}),
        json!({"host": "x".repeat(254), "port": 80}),
        json!({}),
        Value::Null,
    ]
}

async fn call(server: &Server, client: &Client, args: &Value, v: ProtocolVersion) -> String {
    let answer = client
        .call(&server.tool_router, server, "connect", args.clone(), v)
        .await;
    format!("{answer:?}")
}

fn refused(answer: &str) -> bool {
    answer.starts_with("Err(") || answer.contains("is_error: Some(true)")
}

#[tokio::test]
async fn a_generated_validator_answers_exactly_as_the_runtime_engine() {
    // The published schema is the file the validator was generated from.
    let runtime = Server::new(|r| r);
    let generated = Server::new(|r| r.with_generated::<PortArgs>("connect"));
    assert!(generated.tool_router.problems().is_empty());
    let published =
        Value::Object((*runtime.tool_router.get("connect").unwrap().input_schema).clone());
    assert_eq!(PortArgs::mismatch(&published, &Options::new()), None);

    let client = Client::new();
    for v in VERSIONS {
        for args in valid() {
            let a = call(&runtime, &client, &args, v).await;
            let b = call(&generated, &client, &args, v).await;
            assert!(!refused(&a), "{args}: {a}");
            assert_eq!(a, b, "{args}");
        }
        for args in invalid() {
            let a = call(&runtime, &client, &args, v).await;
            let b = call(&generated, &client, &args, v).await;
            assert!(refused(&a), "{args}: {a}");
            // The same refusal, text and all: the errors are the engine's.
            assert_eq!(a, b, "{args}");
        }
    }
    assert_eq!(runtime.calls.load(Ordering::SeqCst), 2 * valid().len());
    assert_eq!(generated.calls.load(Ordering::SeqCst), 2 * valid().len());
}

#[tokio::test]
async fn the_generated_verdict_is_the_one_used() {
    let client = Client::new();
    // Every call asks the generated code first.
    let counted = Server::new(|r| r.with_generated::<CountedPortArgs>("connect"));
    assert!(counted.tool_router.problems().is_empty());
    let before = COUNTED.load(Ordering::SeqCst);
    let mut calls = 0;
    for args in valid().iter().chain(&invalid()) {
        call(&counted, &client, args, ProtocolVersion::V2025_11_25).await;
        calls += 1;
    }
    assert_eq!(COUNTED.load(Ordering::SeqCst) - before, calls);

    // Its acceptance is final: a validator that accepts everything lets an invalid call
    // (serde takes it, the schema does not) reach the handler.
    let bad = json!({"host": "", "port": 80});
    let lax = Server::new(|r| r.with_generated::<AcceptsAll<true>>("connect"));
    assert!(lax.tool_router.problems().is_empty());
    let answer = call(&lax, &client, &bad, ProtocolVersion::V2025_11_25).await;
    assert!(!refused(&answer), "{answer}");
    assert_eq!(lax.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_validator_for_another_schema_is_reported_and_never_decides() {
    let client = Client::new();
    let bad = json!({"host": "", "port": 80});
    // The same false validator under another schema: reported, not believed.
    let server = Server::new(|r| r.with_generated::<AcceptsAll<false>>("connect"));
    let problems = server.tool_router.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].tool, "connect");
    assert_eq!(problems[0].location, "/inputSchema");
    assert!(
        problems[0].reason.contains("AcceptsAll")
            && problems[0]
                .reason
                .contains("its schema is not the same JSON value")
            && problems[0].reason.contains("the runtime engine decides"),
        "{}",
        problems[0]
    );
    let runtime = Server::new(|r| r);
    for v in VERSIONS {
        let answer = call(&server, &client, &bad, v).await;
        assert!(refused(&answer), "{answer}");
        assert_eq!(answer, call(&runtime, &client, &bad, v).await);
        for args in valid() {
            assert!(!refused(&call(&server, &client, &args, v).await));
        }
    }
    assert_eq!(server.calls.load(Ordering::SeqCst), 2 * valid().len());

    // A real generated validator of another schema: reported too.
    let other = Server::new(|r| r.with_generated::<AnyObject>("connect"));
    assert_eq!(other.tool_router.problems().len(), 1);
    let answer = call(&other, &client, &bad, ProtocolVersion::V2025_11_25).await;
    assert!(refused(&answer), "{answer}");
}

#[tokio::test]
async fn options_that_change_verdicts_must_match() {
    let client = Client::new();
    // Generated with formats as annotations, checked with formats asserted.
    let checks = ToolChecks::new()
        .with_options(Options::new().assert_formats(true))
        .with_generated::<AcceptsAll<true>>("connect");
    let server = Server::new(|r| ValidatedRouter::with_checks(r.into_inner(), checks));
    let problems = server.tool_router.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].reason.contains("assert_formats"),
        "{}",
        problems[0]
    );
    let bad = json!({"host": "", "port": 80});
    let answer = call(&server, &client, &bad, ProtocolVersion::V2025_11_25).await;
    assert!(refused(&answer), "{answer}");
    assert_eq!(server.calls.load(Ordering::SeqCst), 0);

    // Options set after the validator was given count as well.
    let checks = ToolChecks::new()
        .with_generated::<PortArgs>("connect")
        .with_options(Options::new().step_budget(10, 1));
    let server = Server::new(|r| ValidatedRouter::with_checks(r.into_inner(), checks));
    let problems = server.tool_router.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].reason.contains("step_budget"),
        "{}",
        problems[0]
    );
}

#[test]
fn a_validator_for_a_tool_not_listed_is_reported() {
    let checks = ToolChecks::new().with_generated::<PortArgs>("conect");
    let problems = checks.prepare(std::iter::empty());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].tool, "conect");
    assert!(problems[0].reason.contains("not listed"), "{}", problems[0]);
}

#[test]
fn the_schema_file_is_the_types_published_schema() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PORT_SCHEMA);
    // Fails when `Port` changed and the file did not (TOOLSCHEMA_WRITE_SCHEMAS=1 writes it).
    check_input_schema_file::<Port>(&file).unwrap();
    // ... as it does for a file that drifted from the type.
    let mut drifted: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    drifted["properties"]["host"]["maxLength"] = json!(100);
    let copy =
        std::env::temp_dir().join(format!("toolschema-rmcp-port-{}.json", std::process::id()));
    std::fs::write(&copy, drifted.to_string()).unwrap();
    let err = check_input_schema_file::<Port>(&copy).unwrap_err();
    let _ = std::fs::remove_file(&copy);
    assert!(err.contains("/properties/host/maxLength"), "{err}");
    assert!(err.contains("TOOLSCHEMA_WRITE_SCHEMAS=1"), "{err}");
    // A missing file is an error that says how to write it.
    let err = check_input_schema_file::<Port>(copy.with_extension("missing")).unwrap_err();
    assert!(err.contains("cannot read"), "{err}");
    // The file is the text rmcp publishes, byte for byte as written.
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        input_schema_text::<Port>().unwrap()
    );
}

/// Doc comments, nested types (`$defs`), enums, options, maps and renames: what schemars
/// writes for a realistic tool.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
/// A deployment (this root description is not published).
struct Deploy {
    /// The service.
    service_name: String,
    target: Target,
    replicas: Option<u32>,
    labels: std::collections::HashMap<String, String>,
    ports: Vec<Port>,
    ratio: f64,
    mode: Mode,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Target {
    Cluster { name: String },
    Local,
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Mode {
    Named(String),
    Level(u8),
}

#[test]
fn the_codegen_schemars_input_is_the_schema_rmcp_publishes() {
    fn same<T: JsonSchema + 'static>() {
        let rmcp = input_schema_text::<T>().unwrap();
        let codegen = toolschema_codegen::input_schema_text::<T>().unwrap();
        assert_eq!(codegen, rmcp, "{}", std::any::type_name::<T>());
    }
    same::<Port>();
    same::<Deploy>();
    same::<std::collections::HashMap<String, u8>>();
    // rmcp refuses a parameter type whose root is not an object; so does the generator.
    assert!(input_schema_text::<u32>().is_err());
    assert!(toolschema_codegen::input_schema_text::<u32>().is_err());
    assert!(input_schema_text::<Mode>().is_err());
    assert!(toolschema_codegen::input_schema_text::<Mode>().is_err());
    // The validator generated from `port.json` is the one `generate_for::<Port>` writes.
    assert_eq!(
        toolschema_codegen::input_schema_text::<Port>().unwrap(),
        PortArgs::SCHEMA
    );
    let name = proc_macro2::Ident::new("PortArgs", proc_macro2::Span::call_site());
    let out = toolschema_codegen::generate_for::<Port>(&name, &Default::default()).unwrap();
    assert!(out.coverage.fully_generated(), "{:?}", out.coverage);
}
