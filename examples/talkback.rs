//! An MCP server on stdio whose tools talk back: they log, report progress, ask the
//! client's LLM (sampling) and ask the user (elicitation), plus `research`, a tool that
//! runs only as a task (2025-11-25).
//!
//! The tools are the conformance fixtures of `tests/conformance/talkback_tools.rs`; the
//! Python SDK interop test (`tests/talkback_interop.rs`) drives this server.
//!
//! ```sh
//! cargo run --example talkback
//! ```

#[path = "../tests/conformance/talkback_tools.rs"]
mod talkback_tools;

use std::time::Duration;
use toolschema::mcp::{CallToolResult, Server, TaskSupport, Tool};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let research = Tool::builder("research")
        .description("Researches a topic in the background (run it as a task)")
        .input_schema(
            serde_json::json!({"properties": {"topic": {"type": "string"}}, "required": ["topic"]}),
        )
        .task_support(TaskSupport::Required)
        .handler(|args, ctx| {
            for step in 1..=3 {
                if ctx.is_cancelled() {
                    return Ok(CallToolResult::text("stopped"));
                }
                ctx.progress(f64::from(step), Some(3.0), Some("researching"));
                std::thread::sleep(Duration::from_millis(50));
            }
            Ok(CallToolResult::text(format!(
                "findings on {}",
                args["topic"]
            )))
        })
        .build()?;
    let server = Server::builder("talkback-example", "1.0")
        .tools(talkback_tools::all())
        .tool(research)
        .build()?;
    server.serve_stdio()?;
    Ok(())
}
