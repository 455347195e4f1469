//! MCP tools dispatch layer (feature `mcp`). STUB: replaced by the MCP issue's work.

/// Runs `toolschema serve`: an MCP server on stdio; returns the process exit code.
pub fn serve_main(tools_file: Option<&std::path::Path>) -> i32 {
    let _ = tools_file;
    eprintln!("toolschema serve: not built yet");
    2
}
