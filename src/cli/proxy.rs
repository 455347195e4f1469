//! `toolschema proxy`: a contract-checking MCP proxy on stdio (the proxy itself is
//! `toolschema::mcp::proxy`).

use std::ffi::OsString;
use std::path::PathBuf;
use toolschema::mcp::contract::OutputPolicy;
use toolschema::mcp::proxy::ProxyConfig;

/// Put toolschema in front of an MCP server: start COMMAND, relay MCP on stdio both ways,
/// check every call's arguments and every result against the tools' schemas.
///
/// Tool schemas that declare draft-04/06/07 or 2019-09 are shown to the client as 2020-12;
/// invalid calls are refused before they reach the server; results that break their output
/// schema become an isError result (see --on-bad-output).
///
/// Exit status: the server's; 2 usage error.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Hide tools whose schemas fail to compile (default: list them, unvalidated)
    #[arg(long)]
    hide_broken_tools: bool,
    /// Show older-dialect schemas to the client as 2020-12 (the default)
    #[arg(long, overrides_with = "no_upgrade_schemas")]
    upgrade_schemas: bool,
    /// Leave tool schemas as the server wrote them
    #[arg(long)]
    no_upgrade_schemas: bool,
    /// What a result that breaks its output schema becomes
    #[arg(long, value_name = "POLICY", value_parser = ["error", "log", "pass"], default_value = "error")]
    on_bad_output: String,
    /// Append one JSON line per refused call or bad result to FILE (never values)
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// The largest message accepted from the client, in bytes (default 4 MiB)
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    max_message_bytes: Option<u64>,
    /// The largest message accepted from the server, in bytes (default 64 MiB)
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    max_server_message_bytes: Option<u64>,
    /// The server command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub fn run(args: Args) -> u8 {
    let mut config = ProxyConfig::default();
    config.contract.hide_broken_tools = args.hide_broken_tools;
    config.contract.upgrade_schemas = !args.no_upgrade_schemas;
    config.contract.on_bad_output = match args.on_bad_output.as_str() {
        "log" => OutputPolicy::Log,
        "pass" => OutputPolicy::Pass,
        _ => OutputPolicy::ErrorResult,
    };
    config.log = args.log;
    if let Some(n) = args.max_message_bytes {
        config.max_message_bytes = usize::try_from(n).unwrap_or(usize::MAX);
    }
    if let Some(n) = args.max_server_message_bytes {
        config.max_server_message_bytes = usize::try_from(n).unwrap_or(usize::MAX);
    }
    let code = toolschema::mcp::proxy::run_stdio(&config, &args.command);
    u8::try_from(code).unwrap_or(1)
}
