//! `toolschema proxy`: a contract-checking MCP proxy on stdio or Streamable HTTP (the proxy
//! itself is `toolschema_http::proxy`).

use super::serve::HttpArgs;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;
use toolschema::mcp::contract::OutputPolicy;
use toolschema_http::proxy::{ClientSide, ProxyConfig, ServerSide};

/// Put toolschema in front of an MCP server: start COMMAND, relay MCP on stdio both ways,
/// check every call's arguments and every result against the tools' schemas.
///
/// Either side may be Streamable HTTP instead of stdio:
///   --listen 127.0.0.1:8080   serve clients at http://127.0.0.1:8080/mcp (as serve --http:
///                             same allow-lists, limits, status codes); each MCP session
///                             gets its own COMMAND child, started at initialize and ended
///                             with the session; stateless 2026-07-28 requests share one
///                             pooled child
///   --upstream URL            forward to a remote Streamable HTTP server (http:// only, no
///                             TLS) instead of starting COMMAND
/// e.g. toolschema proxy --listen 127.0.0.1:0 -- npx @modelcontextprotocol/server-filesystem /tmp
///      toolschema proxy --upstream http://127.0.0.1:3001/mcp
///
/// Tool schemas that declare draft-04/06/07 or 2019-09 are shown to the client as 2020-12;
/// invalid calls are refused before they reach the server; results that break their output
/// schema become an isError result (see --on-bad-output).
///
/// Exit status: the server's (stdio); 0 after --upstream's client leaves or --listen's
/// SIGINT/SIGTERM; 2 usage error or a server that cannot start.
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
    /// Serve clients over Streamable HTTP on HOST:PORT (endpoint /mcp; port 0 picks a
    /// free port, printed on stderr) instead of stdio
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// Forward to this Streamable HTTP server (http://HOST:PORT/PATH) instead of COMMAND
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream: Option<String>,
    /// With --upstream: seconds allowed to connect, for each answer's headers, and of
    /// silence on an answer's SSE stream (default 60)
    #[arg(long, value_name = "SECONDS", requires = "upstream", value_parser = clap::value_parser!(u64).range(1..))]
    upstream_timeout: Option<u64>,
    /// With --listen: also allow this Host header name (repeatable; `*` allows any)
    #[arg(long, value_name = "HOST", requires = "listen")]
    allow_host: Vec<String>,
    /// With --listen: also allow this Origin, e.g. https://app.example.com (repeatable)
    #[arg(long, value_name = "ORIGIN", requires = "listen")]
    allow_origin: Vec<String>,
    /// With --listen: the largest request body (default 4 MiB)
    #[arg(long, value_name = "BYTES", requires = "listen")]
    max_body_bytes: Option<usize>,
    /// With --listen: the most sessions (each with its own server child) at once (default 64)
    #[arg(long, value_name = "N", requires = "listen")]
    max_sessions: Option<usize>,
    /// With --listen: the most SSE streams per session (default 32)
    #[arg(long, value_name = "N", requires = "listen")]
    max_streams: Option<usize>,
    /// The server command and its arguments, after `--` (unless --upstream)
    #[arg(
        last = true,
        required_unless_present = "upstream",
        value_name = "COMMAND"
    )]
    command: Vec<OsString>,
    #[command(flatten)]
    auth: super::auth::AuthArgs,
}

pub fn run(args: Args) -> u8 {
    if args.auth.given() && args.listen.is_none() {
        eprintln!("toolschema proxy: the --auth-* flags need --listen (stdio has no tokens)");
        return super::USAGE;
    }
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
    if let Some(s) = args.upstream_timeout {
        config.upstream_timeout = Duration::from_secs(s);
    }
    let client = match args.listen {
        None => ClientSide::Stdio,
        Some(addr) => {
            let listen = HttpArgs {
                addr,
                allow_hosts: args.allow_host,
                allow_origins: args.allow_origin,
                max_body_bytes: args.max_body_bytes,
                max_sessions: args.max_sessions,
                max_streams: args.max_streams,
                auth: None,
            };
            let options = match args.auth.apply(listen.options()) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("toolschema proxy: {e}");
                    return super::USAGE;
                }
            };
            ClientSide::Listen {
                addr: listen.addr,
                options,
            }
        }
    };
    let server = match args.upstream {
        Some(url) => ServerSide::Upstream(url),
        None => ServerSide::Command(args.command),
    };
    let code = toolschema_http::proxy::run(&config, client, server);
    u8::try_from(code).unwrap_or(1)
}
