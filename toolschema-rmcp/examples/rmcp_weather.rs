//! A weather MCP server on stdio, written with rmcp's macros, every call and result
//! checked by toolschema: `cargo run -p toolschema-rmcp --example rmcp_weather`.
//!
//! Two tools: `get_forecast`, whose schemas schemars derives from Rust types, and
//! `get_alerts`, whose schemas are written by hand. The only lines that differ from a
//! plain rmcp server are marked `toolschema:`.
//!
//! `get_forecast` has a validator generated at build time (`#[toolschema_macros::validator]`)
//! from `examples/schemas/forecast_args.json`, the input schema rmcp publishes for
//! `ForecastArgs`: a call it accepts runs without the engine's evaluation; a call it
//! refuses gets the engine's errors, as without it. The test at the end of this file
//! (`cargo test -p toolschema-rmcp --example rmcp_weather`) fails when `ForecastArgs`
//! changes and the file does not (`TOOLSCHEMA_WRITE_SCHEMAS=1` writes it again); a file that
//! drifted anyway is reported at start-up and the engine decides, never a stale verdict.
//!
//! `get_forecast` for the city "Mercury" has a bug on purpose: it reports 430 °C, which
//! its own output schema (at most 60) forbids, so the client gets an `isError` result
//! instead of the bad value. With `WEATHER_CALL_LOG=FILE`, each handler run appends the
//! tool's name to FILE (the end-to-end test uses it to prove a refused call never ran).

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::io::Write;
use std::sync::Arc;
use toolschema_rmcp::ValidatedRouter;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ForecastArgs {
    /// The city.
    #[schemars(length(min = 1, max = 64))]
    city: String,
    /// How many days ahead, 1 to 7.
    #[schemars(range(min = 1, max = 7))]
    days: u8,
    unit: Option<Unit>,
}

#[derive(Serialize, JsonSchema)]
struct Day {
    /// Degrees Celsius, as measured on Earth.
    #[schemars(range(min = -90.0, max = 60.0))]
    temperature: f64,
    condition: String,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    /// The unit asked for; temperatures are always Celsius.
    unit: String,
    days: Vec<Day>,
}

// toolschema: the generated validator of get_forecast's input schema.
#[toolschema_macros::validator(path = "examples/schemas/forecast_args.json")]
struct ForecastArgsValidator;

#[derive(Clone)]
struct Weather {
    tool_router: ValidatedRouter<Self>, // toolschema: was `ToolRouter<Self>`
}

/// Appends `tool` to `$WEATHER_CALL_LOG`, when set.
fn record(tool: &str) {
    if let Some(path) = std::env::var_os("WEATHER_CALL_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        let _ = writeln!(f, "{tool}");
    }
}

#[tool_router]
impl Weather {
    fn new() -> Self {
        let mut router = Self::tool_router();
        router.add_route(alerts_route());
        // toolschema: was `tool_router: router`
        let tool_router =
            ValidatedRouter::new(router).with_generated::<ForecastArgsValidator>("get_forecast");
        for problem in tool_router.problems() {
            eprintln!("toolschema: {problem}");
        }
        Self { tool_router }
    }

    #[tool(description = "The forecast of a city for the next days")]
    fn get_forecast(&self, Parameters(args): Parameters<ForecastArgs>) -> Json<Forecast> {
        record("get_forecast");
        // The deliberate bug: Mercury is not on Earth.
        let base = if args.city == "Mercury" { 430.0 } else { 18.0 };
        let days = (0..args.days)
            .map(|i| Day {
                temperature: base + f64::from(i),
                condition: "sunny".into(),
            })
            .collect();
        let unit = match args.unit {
            Some(Unit::Fahrenheit) => "fahrenheit",
            Some(Unit::Celsius) | None => "celsius",
        };
        Json(Forecast {
            city: args.city,
            unit: unit.into(),
            days,
        })
    }
}

/// `get_alerts`: schemas written by hand, a handler reading the JSON arguments.
fn alerts_route() -> ToolRoute<Weather> {
    let input = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "Two-letter region code"},
            "severity": {"enum": ["minor", "moderate", "severe"]}
        },
        "required": ["region"],
        "additionalProperties": false
    });
    let output = json!({
        "type": "object",
        "properties": {"alerts": {"type": "array", "items": {"type": "string"}}},
        "required": ["alerts"]
    });
    let tool = Tool::new(
        "get_alerts",
        "Weather alerts for a region",
        Arc::new(input.as_object().cloned().unwrap_or_default()),
    )
    .with_raw_output_schema(Arc::new(output.as_object().cloned().unwrap_or_default()));
    ToolRoute::new_dyn(tool, |ctx| {
        Box::pin(async move {
            record("get_alerts");
            let region = ctx
                .arguments
                .as_ref()
                .and_then(|a| a.get("region"))
                .and_then(|r| r.as_str())
                .unwrap_or_default()
                .to_string();
            let alerts = json!({"alerts": [format!("heat advisory in {region}")]});
            let mut result = CallToolResult::success(vec![ContentBlock::text(alerts.to_string())]);
            result.structured_content = Some(alerts);
            Ok(result.into())
        })
    })
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Weather {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Weather::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_file_is_forecast_args_published_schema() {
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/schemas/forecast_args.json"
        );
        toolschema_rmcp::testing::check_input_schema_file::<ForecastArgs>(file).unwrap();
        // So the generated validator decides get_forecast's calls.
        assert!(Weather::new().tool_router.problems().is_empty());
    }
}
