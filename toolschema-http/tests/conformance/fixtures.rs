//! The tools the official conformance suite's server scenarios call, as real handlers: each
//! does what its scenario's description asks (logging and progress go through the
//! `CallContext`, delays are real), not a canned wire answer.
//!
//! The sampling and elicitation scenarios use the fixtures of `talkback_tools.rs`.

use serde_json::json;
use std::thread::sleep;
use std::time::Duration;
use toolschema::mcp::{CallToolResult, Content, LogLevel, Tool};

/// A 1x1 red PNG.
pub const RED_PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// A WAV file of 8 silent 16-bit samples at 8 kHz.
pub const SILENT_WAV: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// How long `test_reconnection` works: past the server's SSE polling delay, so its stream's
/// connection closes before the answer and the client must resume it.
pub const RECONNECTION_WORK: Duration = Duration::from_millis(900);

fn no_args(name: &str, description: &str) -> toolschema::mcp::ToolBuilder {
    Tool::builder(name)
        .description(description)
        .input_schema(json!({"type": "object", "properties": {}}))
}

pub fn tools() -> Vec<Tool> {
    let tools = vec![
        no_args("test_simple_text", "Returns a simple text block")
            .handler(|_, _| {
                Ok(CallToolResult::text(
                    "This is a simple text response for testing.",
                ))
            })
            .build(),
        no_args("test_image_content", "Returns a 1x1 PNG image")
            .handler(|_, _| {
                Ok(CallToolResult::new().with_content(Content::image(RED_PIXEL_PNG, "image/png")))
            })
            .build(),
        no_args("test_audio_content", "Returns a short WAV clip")
            .handler(|_, _| {
                Ok(CallToolResult::new().with_content(Content::audio(SILENT_WAV, "audio/wav")))
            })
            .build(),
        no_args(
            "test_embedded_resource",
            "Returns an embedded text resource",
        )
        .handler(|_, _| {
            Ok(CallToolResult::new().with_content(Content::resource_text(
                "test://embedded-resource",
                Some("text/plain"),
                "This is an embedded resource content.",
            )))
        })
        .build(),
        no_args(
            "test_multiple_content_types",
            "Returns text, an image and an embedded resource",
        )
        .handler(|_, _| {
            Ok(CallToolResult::new()
                .with_content(Content::text("Multiple content types test:"))
                .with_content(Content::image(RED_PIXEL_PNG, "image/png"))
                .with_content(Content::resource_text(
                    "test://mixed-content-resource",
                    Some("application/json"),
                    json!({"test": "data", "value": 123}).to_string(),
                )))
        })
        .build(),
        no_args(
            "test_tool_with_logging",
            "Sends three info log entries while it works",
        )
        .handler(|_, ctx| {
            ctx.log(LogLevel::Info, "Tool execution started");
            sleep(Duration::from_millis(50));
            ctx.log(LogLevel::Info, "Tool processing data");
            sleep(Duration::from_millis(50));
            ctx.log(LogLevel::Info, "Tool execution completed");
            Ok(CallToolResult::text(
                "Logging tool finished: 3 log entries sent",
            ))
        })
        .build(),
        no_args("test_error_handling", "Always fails, as a tool error")
            .handler(|_, _| {
                Ok(CallToolResult::error(
                    "This tool intentionally returns an error for testing",
                ))
            })
            .build(),
        no_args(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100 while it works",
        )
        .handler(|_, ctx| {
            ctx.progress(0.0, Some(100.0), None);
            sleep(Duration::from_millis(50));
            ctx.progress(50.0, Some(100.0), None);
            sleep(Duration::from_millis(50));
            ctx.progress(100.0, Some(100.0), None);
            Ok(CallToolResult::text("Progress tool finished"))
        })
        .build(),
        Tool::builder("json_schema_2020_12_tool")
            .description("Tool with JSON Schema 2020-12 features")
            .input_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                    }
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"}
                },
                "additionalProperties": false
            }))
            .handler(|args, _| {
                let name = args["name"].as_str().unwrap_or("nobody");
                Ok(CallToolResult::text(format!("Hello, {name}")))
            })
            .build(),
        no_args(
            "test_reconnection",
            "Works longer than the server keeps an SSE connection open, so the client resumes",
        )
        .handler(|_, ctx| {
            let step = Duration::from_millis(50);
            let mut waited = Duration::ZERO;
            while waited < RECONNECTION_WORK && !ctx.is_cancelled() {
                sleep(step);
                waited += step;
            }
            Ok(CallToolResult::text("Reconnection test finished"))
        })
        .build(),
    ];
    tools
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .expect("the fixture tools are valid")
}
