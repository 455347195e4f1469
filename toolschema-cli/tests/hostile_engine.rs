//! Hostile input for the engine, one test per class of issue #37 (round two): each class is
//! closed by a bound, and each test drives inputs of its own past that bound. Memory classes
//! run the release binary as a child under an address-space cap (`prlimit --as`), so that a
//! bound that fails shows as an abort or an allocation failure, not as a slow machine.

use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use toolschema::{ErrorKind, Limits, Options, Schema, SchemaErrorKind};

/// Address space the child may map: far above what any bounded compile needs, far below
/// what the inputs below would take unbounded (gigabytes).
const AS_CAP: &str = "--as=536870912";

fn temp(name: &str, content: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toolschema-hostile-engine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// The binary under `prlimit` with the address-space cap and a CPU-time cap (seconds), fed
/// `stdin`.
fn capped(cpu_seconds: u32, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new("prlimit")
        .arg(AS_CAP)
        .arg(format!("--cpu={cpu_seconds}"))
        .arg(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit (util-linux) runs the binary");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Class: pattern compile memory. A pattern whose counted repetitions write out past the
/// 8 MiB bound is a compile error before any engine (dense DFA, `regex`, `fancy-regex`)
/// spends the memory, in `check` and at `serve --tools` startup.
#[test]
fn pattern_compile_memory_is_bounded() {
    let patterns = [
        // Four billion states written out, twenty bytes.
        "(?:b{65535}){65535}",
        "x(?:[0-9]{3000}){3000}",
        // Lookaround: the backtracking engine and its delegates.
        "(?<=q)(?:(?:c|d){2000}){900}",
        // Alternation and a class: past every fast path.
        "(?:[a-f]\\w{500}){2000}z|y",
        // A property class, found by the pattern_compile fuzz target (seconds to refuse).
        "\\p{L}{100000,100000}",
        // Nested three deep, each count small.
        "((((e{90}){90}){90}))",
    ];
    for pattern in patterns {
        // The library: a clear error, not an abort.
        let err = Schema::compile(&json!({ "pattern": pattern })).unwrap_err();
        assert!(
            err.to_string().contains("pattern compiles too large"),
            "{pattern}: {err}"
        );
        // The binary under a 512 MiB address-space cap.
        let schema = temp("pattern.json", &json!({ "pattern": pattern }).to_string());
        let out = capped(30, &["check", schema.to_str().unwrap()], "");
        assert_eq!(
            out.status.code(),
            Some(3),
            "{pattern}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("pattern compiles too large"),
            "{pattern}: {}",
            text(&out.stderr)
        );
    }
    // Under `patternProperties` of a tool: `serve` refuses the file at startup and exits.
    let tools = json!([{
        "name": "greedy",
        "inputSchema": {"type": "object", "patternProperties": {"(?:b{65535}){65535}": {}}}
    }]);
    let tools = temp("tools-pattern.json", &tools.to_string());
    let out = capped(30, &["serve", "--tools", tools.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("pattern compiles too large"));
    // Patterns below the bound still compile and match.
    let fine = Schema::compile(&json!({"pattern": "^(?:[a-f]\\w{20}){20}$|y"})).unwrap();
    assert!(fine.is_valid(&json!("y")));
    let long_run = Schema::compile(&json!({"pattern": "^[a-z]{1,1000000}$"})).unwrap();
    assert!(long_run.is_valid(&json!("abc")));
}

/// Class: mock example generation. Nested `minItems` multiply; the example is bounded in
/// total, and the tool is served with a startup warning instead of killing `serve`.
#[test]
fn mock_example_is_bounded() {
    let mut nested = json!({"type": "string", "minLength": 64});
    for _ in 0..9 {
        nested = json!({"type": "array", "minItems": 16, "items": nested});
    }
    // Copies of a large `const` multiply too.
    let big = Value::Array(vec![json!("k"); 5_000]);
    let tools = json!([
        {"name": "nested", "inputSchema": {"type": "object"},
         "outputSchema": {"type": "object", "required": ["a"], "properties": {"a": nested}}},
        {"name": "consts", "inputSchema": {"type": "object"},
         "outputSchema": {"type": "object", "required": ["a"], "properties": {"a": {
             "type": "array", "minItems": 16, "items": {"type": "array", "minItems": 16,
             "items": {"const": big}}}}}},
        {"name": "small", "inputSchema": {"type": "object"},
         "outputSchema": {"type": "object", "required": ["a"], "properties": {"a": {
             "type": "array", "minItems": 3, "items": {"type": "string"}}}}}
    ]);
    let tools = temp("tools-example.json", &tools.to_string());
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "small", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "nested", "arguments": {}}}),
    ];
    let stdin: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let out = capped(30, &["serve", "--tools", tools.to_str().unwrap()], &stdin);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for tool in ["nested", "consts"] {
        assert!(
            stderr.contains(&format!(
                "tool \"{tool}\": an example of its output schema would hold more than"
            )),
            "{stderr}"
        );
    }
    assert!(!stderr.contains("\"small\""), "{stderr}");
    let answers: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answer = |id: u64| answers.iter().find(|a| a["id"] == id).expect("answered");
    assert_eq!(
        answer(2)["result"]["structuredContent"],
        json!({"a": ["x", "x", "x"]})
    );
    assert_eq!(answer(3)["result"]["isError"], true);
}

/// Class: pattern work in the evaluation budget. Each string below makes the backtracking
/// engine spend its whole per-match budget; the matches are charged to the call, so every
/// path stops with `EvaluationBudgetExceeded` instead of running 2,000 full matches (before
/// the bound the `not` swallowed each match's own failure and the call ran on).
#[test]
fn pattern_work_counts_toward_the_step_budget() {
    let schema = Schema::compile(&json!({"items": {"not": {"pattern": "^(x|x)*(?=y)z"}}})).unwrap();
    let hostile = Value::Array(vec![json!(format!("{}!", "x".repeat(30))); 2_000]);
    assert!(!schema.is_valid(&hostile));
    let errors = schema.validate(&hostile).unwrap_err();
    let kinds: Vec<&ErrorKind> = errors.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds, [&ErrorKind::EvaluationBudgetExceeded]);
    let iterated: Vec<_> = schema.iter_errors(&hostile).collect();
    assert_eq!(iterated.len(), 1);
    assert_eq!(*iterated[0].kind(), ErrorKind::EvaluationBudgetExceeded);
    let evaluation = schema.evaluate(&hostile);
    assert!(!evaluation.is_valid());
    assert_eq!(
        *evaluation.errors()[0].kind(),
        ErrorKind::EvaluationBudgetExceeded
    );

    // Linear-time patterns are charged by the byte: 200 patterns over one 4 MiB string are
    // cut short, where one pattern over it is not.
    let long = json!("a".repeat(4 << 20));
    let many: Vec<Value> = (0..200)
        .map(|i| json!({"pattern": format!("(?:b|c{{{i}}})d|a$")}))
        .collect();
    let all = Schema::compile(&json!({ "allOf": many })).unwrap();
    assert!(!all.is_valid(&long));
    let kinds: Vec<ErrorKind> = all
        .validate(&long)
        .unwrap_err()
        .iter()
        .map(|e| e.kind().clone())
        .collect();
    assert_eq!(kinds, [ErrorKind::EvaluationBudgetExceeded]);
    let one = Schema::compile(&json!({"pattern": "(?:b|c)d|a$"})).unwrap();
    assert!(one.is_valid(&long));

    // Legitimate use is never cut short: 20,000 strings through a backreference each.
    let fine = Schema::compile(&json!({"items": {"pattern": "^([a-z])[a-z0-9]*\\1$"}})).unwrap();
    let many = Value::Array(vec![json!("abc12defa"); 20_000]);
    assert!(fine.is_valid(&many));
    assert!(fine.validate(&many).is_ok());
    assert!(fine.evaluate(&many).is_valid());
}

/// Class: hash collisions in long `enum` tables. Values whose old signatures were all equal
/// (arrays of one length, long strings with the same ends and length) must compile and be
/// looked up in bounded time: `check` runs under a CPU-time cap it took 40 s to pass before.
#[test]
fn enum_tables_resist_collisions() {
    let pairs: Vec<Value> = (0..200_000).map(|i| json!([i, "x"])).collect();
    let ends: Vec<Value> = (0..200_000)
        .map(|i| json!(format!("prefix__{i:08}__suffix")))
        .collect();
    for (name, values, member, stranger) in [
        ("pairs", pairs, json!([199_999, "x"]), json!([200_000, "x"])),
        (
            "ends",
            ends,
            json!("prefix__00123456__suffix"),
            json!("prefix__99999999__suffix"),
        ),
    ] {
        let doc = json!({ "enum": values });
        let path = temp(&format!("enum-{name}.json"), &doc.to_string());
        let out = capped(8, &["check", path.to_str().unwrap()], "");
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let schema = Schema::compile(&doc).unwrap();
        assert!(schema.is_valid(&member), "{name}");
        assert!(!schema.is_valid(&stranger), "{name}");
        // A short string never meets a long one's keyed hash as an equal.
        assert!(!schema.is_valid(&json!("x")), "{name}");
    }
}

/// Class: every part of a schema counts toward a size cap, arrays and `true` subschemas
/// included (`Limits::max_values`, 100 per subschema: 1,000,000 by default).
#[test]
fn every_value_counts_toward_the_size_cap() {
    assert_eq!(Limits::default().max_values(), 1_000_000);
    let trues = json!({"allOf": Value::Array(vec![json!(true); 1_000_000])});
    let err = Schema::compile(&trues).unwrap_err();
    assert_eq!(err.kind(), SchemaErrorKind::TooManySubschemas);
    assert!(err.to_string().contains("1000000 values"), "{err}");
    let arrays = json!({"enum": Value::Array(vec![json!([[[]]]); 400_000])});
    let err = Schema::compile(&arrays).unwrap_err();
    assert_eq!(err.kind(), SchemaErrorKind::TooManySubschemas);
    // Below the cap, and with the caps lifted, they compile.
    assert!(Schema::compile(&json!({"allOf": Value::Array(vec![json!(true); 900_000])})).is_ok());
    assert!(
        Options::new()
            .limits(Limits::none())
            .compile(&trues)
            .is_ok()
    );
}

/// Class: hash collisions in property-name tables. Long names that share their first eight
/// bytes, last eight bytes and length had one signature each: looking a key up walked them
/// all, in `properties` tables and in `unevaluatedProperties`' names alike. A table whose
/// names crowd it is searched by name instead: `validate` runs under a CPU-time cap far
/// above the bounded work (under a second), which each family below overran with the
/// bounds lifted (`names::LONGEST_RUN`, `names::LARGEST_GROUP`).
#[test]
fn property_name_tables_resist_collisions() {
    // Same 8-byte head, 8-byte tail and length; the middle tells them apart.
    let name = |i: usize| format!("head-of-{i:09}-tail-end");
    let names = 100_000;
    let declared: serde_json::Map<String, Value> =
        (0..names).map(|i| (name(i), json!(true))).collect();
    let closed = json!({ "properties": declared, "additionalProperties": false });
    let unevaluated =
        json!({ "allOf": [{ "properties": declared }], "unevaluatedProperties": false });
    let keys: serde_json::Map<String, Value> = (0..64_000)
        .map(|j| (name(j * 3 % names), json!(j)))
        .collect();
    let good = Value::Object(keys.clone());
    let mut bad = keys;
    // A stranger of the same head, tail and length.
    bad.insert("head-of-x00000000-tail-end".into(), json!(0));
    let bad = Value::Object(bad);
    let (good_text, bad_text) = (good.to_string(), bad.to_string());
    let good_path = temp("names-good.json", &good_text);
    let bad_path = temp("names-bad.json", &bad_text);
    for (what, doc) in [("closed", &closed), ("unevaluated", &unevaluated)] {
        for shortcuts in [true, false] {
            let schema = Options::default()
                .shortcuts(shortcuts)
                .compile(doc)
                .unwrap();
            assert!(schema.is_valid(&good), "{what} {shortcuts}");
            assert!(!schema.is_valid(&bad), "{what} {shortcuts}");
            let errors: Vec<_> = schema.iter_errors(&bad).collect();
            assert_eq!(errors.len(), 1, "{what} {shortcuts}");
            // From the text: the flat object's lookups are searched, not scanned (each of
            // the 100,000 declared names looked up in 64,000 keys took seconds).
            assert_eq!(schema.is_valid_json(good_text.as_bytes()), Ok(true));
            assert_eq!(schema.is_valid_json(bad_text.as_bytes()), Ok(false));
            let Err(toolschema::JsonValidationError::Invalid(errors)) =
                schema.validate_json(bad_text.as_bytes())
            else {
                panic!("{what} {shortcuts}: the stranger is reported");
            };
            assert_eq!(errors.len(), 1, "{what} {shortcuts}");
            assert!(schema.is_valid(&json!({"head-of-000099999-tail-end": 1})));
            assert!(!schema.is_valid(&json!({"head-of-000100000-tail-end": 1})));
        }
        let path = temp(&format!("names-{what}.json"), &doc.to_string());
        let path = path.to_str().unwrap();
        let out = capped(
            8,
            &["validate", "--schema", path, good_path.to_str().unwrap()],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
        let out = capped(
            8,
            &["validate", "--schema", path, bad_path.to_str().unwrap()],
            "",
        );
        assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("x00000000"), "{what}");
    }
    // Distinct signatures in consecutive slots: one run of 131,072 occupied slots, which
    // every stranger homed at its start walked (131,072 keys).
    let mut salt = 0;
    let declared: serde_json::Map<String, Value> = (0..131_072)
        .map(|slot| (crowding_name(slot, &mut salt), json!(true)))
        .collect();
    let strangers: serde_json::Map<String, Value> = (0..131_072)
        .map(|j| (crowding_name(0, &mut salt), json!(j)))
        .collect();
    assert_eq!(declared.len(), 131_072);
    assert_eq!(strangers.len(), 131_072);
    let doc = json!({ "properties": declared, "additionalProperties": { "type": "integer" } });
    let schema = Schema::compile(&doc).unwrap();
    let mut instance = strangers.clone();
    instance.extend(
        declared
            .keys()
            .take(1000)
            .map(|k| (k.clone(), json!("any"))),
    );
    let instance = Value::Object(instance);
    assert!(schema.is_valid(&instance));
    let mut wrong = strangers;
    wrong.insert(crowding_name(0, &mut salt), json!("not an integer"));
    assert!(!schema.is_valid(&Value::Object(wrong)));
    let path = temp("names-run.json", &doc.to_string());
    let instance_path = temp("names-run-instance.json", &instance.to_string());
    let args = [
        "validate",
        "--schema",
        path.to_str().unwrap(),
        instance_path.to_str().unwrap(),
    ];
    let out = capped(8, &args, "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// Class: names looked up one by one in a large object read from text. `required` and
/// `dependentRequired` look each listed name up in the instance; in a flat object that was a
/// scan, so 60,000 names against 60,000 keys (names of one summary) cost 3.6 billion
/// comparisons on the paths that validate from text (`is_valid_json`, the CLI). Large flat
/// objects are now searched through a sorted index: the CLI answers under the CPU cap.
#[test]
fn listed_names_in_large_objects_cost_no_quadratic_time() {
    let name = |i: usize| format!("head-of-{i:09}-tail-end");
    let names: Vec<String> = (0..60_000).map(name).collect();
    let dependent: serde_json::Map<String, Value> = names[..20_000]
        .iter()
        .map(|n| (n.clone(), json!([names[0]])))
        .collect();
    let schema = json!({ "required": names, "dependentRequired": dependent });
    let mut keys: serde_json::Map<String, Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), json!(i)))
        .collect();
    let good = Value::Object(keys.clone()).to_string();
    keys.remove(&name(59_999));
    let bad = Value::Object(keys).to_string();
    for shortcuts in [true, false] {
        let compiled = Options::default()
            .shortcuts(shortcuts)
            .compile(&schema)
            .unwrap();
        assert_eq!(
            compiled.is_valid_json(good.as_bytes()),
            Ok(true),
            "{shortcuts}"
        );
        assert_eq!(
            compiled.is_valid_json(bad.as_bytes()),
            Ok(false),
            "{shortcuts}"
        );
    }
    let schema_path = temp("listed-schema.json", &schema.to_string());
    let good_path = temp("listed-good.json", &good);
    let bad_path = temp("listed-bad.json", &bad);
    let args = |instance: &PathBuf| {
        [
            "validate".to_string(),
            "--schema".to_string(),
            schema_path.to_str().unwrap().to_string(),
            instance.to_str().unwrap().to_string(),
        ]
    };
    let run = |instance: &PathBuf| {
        let args = args(instance);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        capped(8, &args, "")
    };
    let out = run(&good_path);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = run(&bad_path);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("000059999"),
        "{}",
        text(&out.stdout)
    );
}

/// A 24-byte ASCII name whose signature (`names::signature`, unkeyed) falls in `slot` of
/// any name table of up to 2^24 slots: the signature picked, then `names::mix` and
/// `names::summary` inverted, retried (`salt`) until the head is ASCII. Each call gives
/// a new signature.
fn crowding_name(slot: u64, salt: &mut u64) -> String {
    const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
    // The inverse of MUL modulo 2^64 (Newton's iteration).
    let mut inv = MUL;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(MUL.wrapping_mul(inv)));
    }
    let tail = *b"-end-tag";
    loop {
        *salt += 1;
        let sig = slot | (*salt << 24);
        let mixed = sig ^ (sig >> 29) ^ (sig >> 58);
        let summary = mixed.wrapping_mul(inv);
        if summary >> 63 == 0 {
            continue;
        }
        let head = (summary ^ u64::from_le_bytes(tail).rotate_left(23) ^ 24u64.rotate_left(53))
            & !(1 << 63);
        let head = head.to_le_bytes();
        if head.iter().all(|b| b.is_ascii()) {
            let head = std::str::from_utf8(&head).unwrap();
            return format!("{head}--mid---{}", std::str::from_utf8(&tail).unwrap());
        }
    }
}
