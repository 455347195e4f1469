//! `toolschema serve`: an MCP server on stdio or Streamable HTTP (the server itself is
//! `toolschema::mcp`).

use std::path::PathBuf;

/// Run an MCP server on stdio (or Streamable HTTP with --http): the built-in demo tools, or
/// the tools in the given files.
///
/// Each --tools file holds an array of MCP Tool objects or one; a directory's .json files
/// are read recursively. Calls are validated against each tool's input schema and answered
/// with its `x-response`, an example derived from its output schema, or a text block.
///
/// With --http HOST:PORT the server listens there (endpoint /mcp; port 0 picks a free
/// port, printed on stderr). Only localhost, 127.0.0.1 and [::1] are accepted in the Host
/// and Origin headers unless --allow-host / --allow-origin add more; bind 127.0.0.1 unless
/// something in front of the server checks who connects.
///
/// Exit status: 0 when stdin closes, 1 the address cannot be bound, 2 usage error, 3 the
/// tools cannot be loaded.
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
    /// Serve Streamable HTTP on HOST:PORT instead of stdio (e.g. 127.0.0.1:8080)
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<String>,
    /// With --http: also allow this Host header name (repeatable; `*` allows any)
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
    /// With --http: also allow this Origin, e.g. https://app.example.com (repeatable)
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// With --http: the largest request body (default 4 MiB)
    #[arg(long, value_name = "BYTES", requires = "http")]
    max_body_bytes: Option<usize>,
    /// With --http: the most sessions at once (default 64)
    #[arg(long, value_name = "N", requires = "http")]
    max_sessions: Option<usize>,
    /// With --http: the most SSE streams per session (default 32)
    #[arg(long, value_name = "N", requires = "http")]
    max_streams: Option<usize>,
}

pub fn run(args: Args) -> u8 {
    // (`..Default::default()`: fields the server gains keep their defaults here.)
    #[allow(clippy::needless_update)]
    let serve = toolschema::mcp::ServeArgs {
        tools: args.tools,
        max_message_bytes: args.max_message_bytes,
        page_size: args.page_size,
        http: args.http.map(|addr| toolschema::mcp::HttpArgs {
            addr,
            allow_hosts: args.allow_host,
            allow_origins: args.allow_origin,
            max_body_bytes: args.max_body_bytes,
            max_sessions: args.max_sessions,
            max_streams: args.max_streams,
        }),
        ..Default::default()
    };
    match toolschema::mcp::serve_main(&serve) {
        0 => super::VALID,
        // serve_main's 2: the tool files cannot be read or are invalid.
        2 => super::ERROR,
        code => u8::try_from(code).unwrap_or(super::ERROR),
    }
}
