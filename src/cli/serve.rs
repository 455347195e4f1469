//! `toolschema serve`: an MCP server on stdio (the server itself is `toolschema::mcp`).

use std::path::PathBuf;

/// Run an MCP server on stdio: the built-in demo tools, or the tools in the given files.
///
/// Each --tools file holds an array of MCP Tool objects or one; a directory's .json files
/// are read recursively. Calls are validated against each tool's input schema and answered
/// with its `x-response`, an example derived from its output schema, or a text block.
///
/// Exit status: 0 when stdin closes, 2 usage error, 3 the tools cannot be loaded.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// A tool file or directory; repeatable (none serves the demo tools)
    #[arg(long, value_name = "FILE_OR_DIR")]
    tools: Vec<PathBuf>,
    /// The largest message accepted, in bytes (default 4 MiB)
    #[arg(long, value_name = "BYTES")]
    max_message_bytes: Option<usize>,
    /// Tools per `tools/list` page
    #[arg(long, value_name = "N")]
    page_size: Option<usize>,
}

pub fn run(args: Args) -> u8 {
    // (`..Default::default()`: fields the server gains keep their defaults here.)
    #[allow(clippy::needless_update)]
    let serve = toolschema::mcp::ServeArgs {
        tools: args.tools,
        max_message_bytes: args.max_message_bytes,
        page_size: args.page_size,
        ..Default::default()
    };
    match toolschema::mcp::serve_main(&serve) {
        0 => super::VALID,
        // serve_main's 2: the tool files cannot be read or are invalid.
        2 => super::ERROR,
        code => u8::try_from(code).unwrap_or(super::ERROR),
    }
}
