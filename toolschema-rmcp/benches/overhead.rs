//! The per-call cost of the checks: one `tools/call` through `ValidatedRouter` against the
//! same call through rmcp's plain `ToolRouter`, same tool and arguments, no transport
//! (`cargo bench -p toolschema-rmcp`). The difference is what toolschema adds per call:
//! the argument check before the handler and the output check after it. The group
//! `arguments` compares the argument check alone with the runtime engine and with the
//! validator generated from `benches/schemas/args.json` (`ValidatedRouter::with_generated`).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::hint::black_box;
use toolschema_rmcp::testing::Client;
use toolschema_rmcp::{ProtocolVersion, ValidatedRouter};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Args {
    #[schemars(length(min = 1, max = 64))]
    city: String,
    #[schemars(range(min = 1, max = 7))]
    days: u8,
    unit: Option<Unit>,
    tags: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    city: String,
    #[schemars(range(min = -90.0, max = 60.0))]
    temperature: f64,
}

/// The validator generated from `Args`'s published input schema (the file is checked
/// equal to it before the benchmark runs).
#[toolschema_macros::validator(path = "benches/schemas/args.json")]
struct ArgsValidator;

struct Weather;

#[tool_router]
impl Weather {
    #[tool(description = "The forecast")]
    fn forecast(&self, Parameters(a): Parameters<Args>) -> Json<Out> {
        let _ = (a.days, a.unit.is_some(), a.tags.len());
        Json(Out {
            city: a.city,
            temperature: 18.5,
        })
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let client = rt.block_on(async { Client::new() });
    let plain: ToolRouter<Weather> = Weather::tool_router();
    let checked = ValidatedRouter::new(Weather::tool_router());
    let args = json!({"city": "Paris", "days": 3, "unit": "celsius", "tags": ["a", "b"]});
    let v = ProtocolVersion::V2025_11_25;
    let mut g = c.benchmark_group("tools_call");
    g.bench_function("plain_router", |b| {
        b.iter_batched(
            || client.context(&Weather, "forecast", args.clone(), v),
            |ctx| black_box(rt.block_on(plain.call(ctx))),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("validated_router", |b| {
        b.iter_batched(
            || client.context(&Weather, "forecast", args.clone(), v),
            |ctx| black_box(rt.block_on(checked.call(ctx))),
            BatchSize::SmallInput,
        )
    });
    // The added work alone, without rmcp's call: the argument check on the map and the
    // output check on a result, as ValidatedRouter does them.
    let checks = checked.checks();
    let tool = checked.get("forecast").expect("listed").clone();
    let result: rmcp::model::CallToolResponse =
        rmcp::model::CallToolResult::structured(json!({"city": "Paris", "temperature": 18.5}))
            .into();
    let mut map = args.as_object().cloned().expect("an object");
    g.bench_function("checks_only", |b| {
        b.iter(|| {
            let ok = checks.check_arguments(&tool, Some(&mut map), v).is_none();
            let out = checks.check_response(&tool, Ok(result.clone()), v);
            black_box((ok, out))
        })
    });
    g.bench_function("result_clone_only", |b| {
        b.iter(|| black_box(Ok::<_, ()>(result.clone())))
    });
    g.finish();

    // The argument check alone: the runtime engine, then the generated validator.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/schemas/args.json");
    if let Err(e) = toolschema_rmcp::testing::check_input_schema_file::<Args>(file) {
        panic!("{e}");
    }
    let generated =
        ValidatedRouter::new(Weather::tool_router()).with_generated::<ArgsValidator>("forecast");
    assert!(
        generated.problems().is_empty(),
        "{:?}",
        generated.problems()
    );
    let mut g = c.benchmark_group("arguments");
    for (name, router) in [("engine", &checked), ("generated", &generated)] {
        let checks = router.checks();
        g.bench_function(name, |b| {
            b.iter(|| black_box(checks.check_arguments(&tool, Some(&mut map), v).is_none()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
