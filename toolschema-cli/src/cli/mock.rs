//! `toolschema serve`: the demo tools, and the contract-checking mock for tool files.

use super::serve::ServeArgs;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toolschema::mcp::{CallToolResult, Content, LogLevel, Server, Tool, ToolError, from_arguments};

pub(super) fn serve_main(args: &ServeArgs) -> i32 {
    let tools = if args.tools.is_empty() {
        demo_tools()
    } else {
        args.tools.iter().try_fold(Vec::new(), |mut all, path| {
            all.extend(load_tools(path)?);
            Ok(all)
        })
    };
    let tools = match tools {
        Ok(t) => t,
        Err(e) => {
            eprintln!("toolschema serve: {e}");
            return 2;
        }
    };
    let mut builder = Server::builder("toolschema", env!("CARGO_PKG_VERSION"))
        .tools(tools)
        .trust_local_user(args.trust_local_user);
    // For tests and demos of pagination: `TOOLSCHEMA_MCP_PAGE_SIZE=2 toolschema serve`.
    let page_size = args.page_size.or_else(|| {
        std::env::var("TOOLSCHEMA_MCP_PAGE_SIZE")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    if let Some(n) = page_size {
        builder = builder.page_size(n);
    }
    // For tests of a client that stops reading: `TOOLSCHEMA_MCP_WRITE_TIMEOUT_MS=500`.
    if let Some(ms) = std::env::var("TOOLSCHEMA_MCP_WRITE_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        builder = builder.write_timeout(Duration::from_millis(ms));
    }
    if let Some(n) = args.max_message_bytes {
        builder = builder.max_message_bytes(n);
    }
    let server = match builder.build() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("toolschema serve: {e}");
            return 2;
        }
    };
    if let Some(http) = &args.http {
        return super::serve::serve_http_main(&server, http, args);
    }
    eprintln!(
        "toolschema serve: {} tool(s) on stdio",
        server.tools().len()
    );
    match server.serve_stdio() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("toolschema serve: cannot read stdin: {e}");
            1
        }
    }
}

/// Reads tools from a file (an array of Tool objects, or one) or a directory of such files.
fn load_tools(path: &Path) -> Result<Vec<Tool>, String> {
    let mut files = Vec::new();
    if path.is_dir() {
        collect_json(path, &mut files)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        files.sort();
    } else {
        files.push(path.to_path_buf());
    }
    let mut tools = Vec::new();
    let mut names = HashSet::new();
    let mut errors = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}:{}: malformed JSON: {e}", file.display(), e.line()))?;
        let items = match value {
            Value::Array(items) => items,
            other => vec![other],
        };
        for item in items {
            match mock_tool(&item, file, &names) {
                Ok(t) => {
                    names.insert(t.name().to_string());
                    tools.push(t);
                }
                Err(e) => errors.push(format!("{}: {e}", file.display())),
            }
        }
    }
    if !errors.is_empty() {
        return Err(format!(
            "{} tool definition(s) refused:\n  {}",
            errors.len(),
            errors.join("\n  ")
        ));
    }
    Ok(tools)
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_json(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// A tool from its JSON, answering its `x-response` (checked like any result) or a text
/// block naming it. A name already taken is qualified by the file's folder
/// (`server-github-legacy.create_branch`), so a whole corpus can be served at once.
fn mock_tool(item: &Value, file: &Path, taken: &HashSet<String>) -> Result<Tool, ToolError> {
    let mut item = item.clone();
    if let Some(name) = item.get("name").and_then(Value::as_str)
        && taken.contains(name)
    {
        let folder = file
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .unwrap_or("dup");
        let qualified = format!("{folder}.{name}");
        eprintln!(
            "toolschema serve: {}: tool {name:?} is already defined; serving it as {qualified:?}",
            file.display()
        );
        if let Some(obj) = item.as_object_mut() {
            obj.insert("name".into(), Value::from(qualified));
        }
    }
    let builder = Tool::from_json(&item)?;
    let name = item
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let (builder, derived) = match (item.get("x-response"), item.get("outputSchema")) {
        (Some(r), _) => {
            let result = CallToolResult::from_value(r)
                .map_err(|e| ToolError::new(&name, format!("x-response: {e}")))?;
            (builder.handler(move |_, _| Ok(result.clone())), None)
        }
        // No recorded answer: derive one from the output schema (best effort, checked below).
        (None, Some(schema)) => (builder, Some(super::example::example(schema, schema))),
        (None, None) => (builder, None),
    };
    let tool = builder.build()?;
    let Some(schema) = tool
        .output_schema()
        .filter(|_| item.get("x-response").is_none())
    else {
        return Ok(tool);
    };
    let result = match derived {
        Some(Ok(example)) if schema.is_valid(&example) => CallToolResult::structured(example),
        derived => {
            let why = match derived {
                Some(Err(super::example::NoExample::TooLarge)) => format!(
                    "an example of its output schema would hold more than {} values",
                    super::example::MAX_EXAMPLE_VALUES
                ),
                _ => "no example satisfies its output schema".to_string(),
            };
            eprintln!("toolschema serve: {}: tool {name:?}: {why}", file.display());
            CallToolResult::error(format!(
                "tool {name}: this mock has no x-response and no example of its output"
            ))
        }
    };
    Tool::from_json(&item)?
        .handler(move |_, _| Ok(result.clone()))
        .build()
}

fn demo_tools() -> Result<Vec<Tool>, String> {
    let tools = [echo(), calculate_stats(), get_weather(), slow()];
    tools
        .into_iter()
        .map(|t| t.map_err(|e| e.to_string()))
        .collect()
}

fn echo() -> Result<Tool, ToolError> {
    Tool::builder("echo")
        .title("Echo")
        .description("Answers the message it is given.")
        .input_schema(json!({
            "type": "object",
            "properties": {"message": {"type": "string", "description": "The text to echo back"}},
            "required": ["message"]
        }))
        .read_only_hint(true)
        .open_world_hint(false)
        .handler(|args, _| {
            let message = args
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            Ok(CallToolResult::text(message))
        })
        .build()
}

fn calculate_stats() -> Result<Tool, ToolError> {
    Tool::builder("calculate_stats")
        .title("Statistics")
        .description("The mean, median and count of a list of numbers.")
        .input_schema(json!({
            "type": "object",
            "properties": {"numbers": {"type": "array", "items": {"type": "number"}, "minItems": 1}},
            "required": ["numbers"]
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "mean": {"type": "number"},
                "median": {"type": "number"},
                "count": {"type": "integer", "minimum": 1}
            },
            "required": ["mean", "median", "count"]
        }))
        .read_only_hint(true)
        .idempotent_hint(true)
        .open_world_hint(false)
        .handler(|mut args, _| {
            let mut numbers: Vec<f64> = from_arguments(args["numbers"].take())?;
            if numbers.is_empty() {
                return Ok(CallToolResult::error("numbers must not be empty"));
            }
            numbers.sort_by(f64::total_cmp);
            let n = numbers.len();
            // Each term divided first, so that numbers near f64::MAX cannot overflow the sum:
            // |x / n| summed n times stays within the largest |x|.
            let mean = numbers.iter().map(|x| x / n as f64).sum::<f64>();
            let median = if n % 2 == 1 {
                numbers[n / 2]
            } else {
                numbers[n / 2 - 1] / 2.0 + numbers[n / 2] / 2.0
            };
            Ok(CallToolResult::structured(json!({"mean": mean, "median": median, "count": n})))
        })
        .build()
}

fn get_weather() -> Result<Tool, ToolError> {
    Tool::builder("get_weather")
        .title("Weather")
        .description("Current weather for a location (a deterministic fake: no network).")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "location": {"type": "string", "minLength": 1, "description": "City name"},
                "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}
            },
            "required": ["location"]
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "temperature": {"type": "number"},
                "condition": {"type": "string"},
                "humidity": {"type": "number", "minimum": 0, "maximum": 100}
            },
            "required": ["temperature", "condition", "humidity"]
        }))
        .read_only_hint(true)
        .handler(|args, _| {
            let location = args
                .get("location")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let units = args.get("units").and_then(Value::as_str);
            // FNV-1a: the same location always gets the same weather.
            let h = location.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            let celsius = (h % 46) as f64 - 10.0;
            let conditions = ["sunny", "cloudy", "rainy", "windy", "snowy", "foggy"];
            let condition = conditions[((h >> 8) % conditions.len() as u64) as usize];
            let humidity = 20 + (h >> 16) % 76;
            let temperature = if units == Some("fahrenheit") {
                celsius * 9.0 / 5.0 + 32.0
            } else {
                celsius
            };
            Ok(CallToolResult::structured(json!({
                "temperature": temperature, "condition": condition, "humidity": humidity
            })))
        })
        .build()
}

fn slow() -> Result<Tool, ToolError> {
    Tool::builder("slow")
        .title("Slow")
        .description("Waits, reporting progress; stops early when cancelled.")
        .input_schema(json!({
            "type": "object",
            "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 60, "default": 5}}
        }))
        .read_only_hint(true)
        .open_world_hint(false)
        .handler(|args, ctx| {
            let seconds = args.get("seconds").and_then(Value::as_f64);
            let step = Duration::from_millis(50);
            let steps = ((seconds.unwrap_or(5.0) * 1000.0) / 50.0).ceil().max(1.0) as u64;
            ctx.log(LogLevel::Info, "slow: started");
            for i in 1..=steps {
                if ctx.is_cancelled() {
                    return Ok(CallToolResult::error("cancelled"));
                }
                std::thread::sleep(step);
                if i % 4 == 0 || i == steps {
                    ctx.progress(i as f64, Some(steps as f64), Some("waiting"));
                }
            }
            Ok(CallToolResult::text(format!("waited {steps} steps"))
                .with_content(Content::text("done")))
        })
        .build()
}
