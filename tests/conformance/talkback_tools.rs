//! Fixture tools for the official conformance suite's server scenarios that talk back
//! (`@modelcontextprotocol/conformance`: tools-call-with-logging, tools-call-with-progress,
//! tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults,
//! elicitation-sep1330-enums). Names, arguments and behaviour are the ones the scenarios
//! describe; each is a real handler that logs, reports progress, samples or elicits
//! through its `CallContext`.
//!
//! Included with `#[path = "conformance/talkback_tools.rs"] mod talkback_tools;`.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::time::Duration;
use toolschema::mcp::{CallToolResult, LogLevel, Tool};

/// How long a fixture waits for the client's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// Every fixture of this file.
pub fn all() -> Vec<Tool> {
    vec![
        tool_with_logging(),
        tool_with_progress(),
        sampling(),
        elicitation(),
        elicitation_sep1034_defaults(),
        elicitation_sep1330_enums(),
    ]
}

/// `test_tool_with_logging`: three info entries ~50 ms apart, then a text.
pub fn tool_with_logging() -> Tool {
    Tool::builder("test_tool_with_logging")
        .description("Sends three log notifications while it runs")
        .input_schema(json!({"type": "object", "properties": {}}))
        .handler(|_, ctx| {
            ctx.log(LogLevel::Info, "Tool execution started");
            std::thread::sleep(Duration::from_millis(50));
            ctx.log(LogLevel::Info, "Tool processing data");
            std::thread::sleep(Duration::from_millis(50));
            ctx.log(LogLevel::Info, "Tool execution completed");
            Ok(CallToolResult::text(
                "Tool with logging executed successfully",
            ))
        })
        .build()
        .expect("a valid fixture")
}

/// `test_tool_with_progress`: progress 0, 50 and 100 of 100, ~50 ms apart.
pub fn tool_with_progress() -> Tool {
    Tool::builder("test_tool_with_progress")
        .description("Reports progress while it runs")
        .input_schema(json!({"type": "object", "properties": {}}))
        .handler(|_, ctx| {
            ctx.progress(0.0, Some(100.0), None);
            std::thread::sleep(Duration::from_millis(50));
            ctx.progress(50.0, Some(100.0), None);
            std::thread::sleep(Duration::from_millis(50));
            ctx.progress(100.0, Some(100.0), None);
            Ok(CallToolResult::text(
                "Tool with progress executed successfully",
            ))
        })
        .build()
        .expect("a valid fixture")
}

/// `test_sampling`: asks the client's LLM with the `prompt` argument; answers
/// `LLM response: <text>`, or an error result when the client cannot sample.
pub fn sampling() -> Tool {
    Tool::builder("test_sampling")
        .description("Requests LLM sampling from the client")
        .input_schema(json!({"type": "object",
            "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
            "required": ["prompt"]}))
        .handler(|args, ctx| {
            let prompt = args["prompt"].as_str().unwrap_or_default();
            let asked = ctx.create_message(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                    "maxTokens": 100}),
                ANSWER_TIMEOUT,
            );
            Ok(match asked {
                Ok(answer) => {
                    let text = match &answer["content"] {
                        Value::Array(blocks) => blocks
                            .iter()
                            .filter_map(|b| b["text"].as_str())
                            .collect::<Vec<_>>()
                            .join(""),
                        block => block["text"].as_str().unwrap_or_default().to_string(),
                    };
                    CallToolResult::text(format!("LLM response: {text}"))
                }
                Err(e) => CallToolResult::error(format!("sampling failed: {e}")),
            })
        })
        .build()
        .expect("a valid fixture")
}

fn elicited(
    prefix: &str,
    asked: Result<Value, toolschema::mcp::ClientRequestError>,
) -> CallToolResult {
    match asked {
        Ok(answer) => {
            let action = answer["action"].as_str().unwrap_or_default();
            let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
            CallToolResult::text(format!("{prefix}action={action}, content={content}"))
        }
        Err(e) => CallToolResult::error(format!("elicitation failed: {e}")),
    }
}

/// `test_elicitation`: asks the user for a username and an email with the `message`
/// argument; answers `User response: action=..., content={...}`.
pub fn elicitation() -> Tool {
    Tool::builder("test_elicitation")
        .description("Requests user input from the client")
        .input_schema(json!({"type": "object",
            "properties": {"message": {"type": "string", "description": "The message to show the user"}},
            "required": ["message"]}))
        .handler(|args, ctx| {
            let message = args["message"].as_str().unwrap_or_default();
            let asked = ctx.elicit(
                json!({"message": message, "requestedSchema": {"type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "User's response"},
                        "email": {"type": "string", "description": "User's email address"}},
                    "required": ["username", "email"]}}),
                ANSWER_TIMEOUT,
            );
            Ok(elicited("User response: ", asked))
        })
        .build()
        .expect("a valid fixture")
}

/// `test_elicitation_sep1034_defaults`: a form with a default for every primitive type.
pub fn elicitation_sep1034_defaults() -> Tool {
    Tool::builder("test_elicitation_sep1034_defaults")
        .description("Requests input with default values for every primitive type (SEP-1034)")
        .input_schema(json!({"type": "object", "properties": {}}))
        .handler(|_, ctx| {
            let asked = ctx.elicit(
                json!({"message": "Please review and update the form fields with defaults",
                    "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string", "description": "User name", "default": "John Doe"},
                        "age": {"type": "integer", "description": "User age", "default": 30},
                        "score": {"type": "number", "description": "User score", "default": 95.5},
                        "status": {"type": "string", "description": "User status",
                            "enum": ["active", "inactive", "pending"], "default": "active"},
                        "verified": {"type": "boolean", "description": "Verification status", "default": true}}}}),
                ANSWER_TIMEOUT,
            );
            Ok(elicited("Elicitation completed: ", asked))
        })
        .build()
        .expect("a valid fixture")
}

/// `test_elicitation_sep1330_enums`: a form with the five enum forms of SEP-1330.
pub fn elicitation_sep1330_enums() -> Tool {
    Tool::builder("test_elicitation_sep1330_enums")
        .description("Requests input with every enum form (SEP-1330)")
        .input_schema(json!({"type": "object", "properties": {}}))
        .handler(|_, ctx| {
            let asked = ctx.elicit(
                json!({"message": "Please select options from the enum fields",
                    "requestedSchema": {"type": "object", "properties": {
                        "untitledSingle": {"type": "string", "description": "Select one option",
                            "enum": ["option1", "option2", "option3"]},
                        "titledSingle": {"type": "string", "description": "Select one option with titles",
                            "oneOf": [{"const": "value1", "title": "First Option"},
                                {"const": "value2", "title": "Second Option"},
                                {"const": "value3", "title": "Third Option"}]},
                        "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                            "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"]},
                        "untitledMulti": {"type": "array", "description": "Select multiple options",
                            "minItems": 1, "maxItems": 3,
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                        "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                            "minItems": 1, "maxItems": 3,
                            "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                {"const": "value2", "title": "Second Choice"},
                                {"const": "value3", "title": "Third Choice"}]}}}}}),
                ANSWER_TIMEOUT,
            );
            Ok(elicited("Elicitation completed: ", asked))
        })
        .build()
        .expect("a valid fixture")
}
