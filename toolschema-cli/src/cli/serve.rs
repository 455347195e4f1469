//! `toolschema serve`: an MCP server on stdio or Streamable HTTP (the server itself is
//! `toolschema::mcp`, the HTTP transport `toolschema_http`; the tools are [`super::mock`]'s).

use std::path::PathBuf;
use toolschema::mcp::Server;
use toolschema_http::metrics::Metrics;
use toolschema_http::{HttpOptions, HttpServer};

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
    #[command(flatten)]
    auth: super::auth::ServeAuthArgs,
    /// With --http: serve Prometheus metrics at http://HOST:PORT/metrics (port 0 picks
    /// one, printed)
    #[arg(long, value_name = "HOST:PORT", requires = "http")]
    metrics: Option<String>,
    /// With --http: also serve the metrics at this path of the --http listener (e.g.
    /// /metrics), behind its Host/Origin check and, with --auth-*, its bearer token
    #[arg(long, value_name = "PATH", requires = "http")]
    metrics_path: Option<String>,
}

pub fn run(args: Args) -> u8 {
    if args.auth.http.given() && args.http.is_none() {
        eprintln!("toolschema serve: the --auth-* flags need --http (stdio has no tokens)");
        return super::USAGE;
    }
    let auth = match args.auth.http.options() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("toolschema serve: {e}");
            return super::USAGE;
        }
    };
    let serve = ServeArgs {
        trust_local_user: args.auth.trust_local_user,
        tools: args.tools,
        max_message_bytes: args.max_message_bytes,
        page_size: args.page_size,
        http: args.http.map(|addr| HttpArgs {
            addr,
            allow_hosts: args.allow_host,
            allow_origins: args.allow_origin,
            max_body_bytes: args.max_body_bytes,
            max_sessions: args.max_sessions,
            max_streams: args.max_streams,
            auth,
        }),
        metrics: args.metrics,
        metrics_path: args.metrics_path,
    };
    match super::mock::serve_main(&serve) {
        0 => super::VALID,
        // serve_main's 2: the tool files cannot be read or are invalid.
        2 => super::ERROR,
        code => u8::try_from(code).unwrap_or(super::ERROR),
    }
}

/// What `toolschema serve` was asked for.
#[derive(Debug, Clone, Default)]
pub struct ServeArgs {
    /// Tool files or directories (each an array of Tool objects, or one); none serves the
    /// built-in demo tools.
    pub tools: Vec<PathBuf>,
    /// The largest message accepted, in bytes (default: the server's 4 MiB).
    pub max_message_bytes: Option<usize>,
    /// Tools per `tools/list` page (default: the server's).
    pub page_size: Option<usize>,
    /// Serve Streamable HTTP instead of stdio.
    pub http: Option<HttpArgs>,
    /// Callers without a verified token may call tools that need one.
    pub trust_local_user: bool,
    /// With `http`: serve Prometheus metrics on this address (`/metrics`).
    pub metrics: Option<String>,
    /// With `http`: serve the metrics at this path of the HTTP listener too.
    pub metrics_path: Option<String>,
}

/// What `serve --http` and `proxy --listen` were asked for (they share the flags).
#[derive(Debug, Clone, Default)]
pub struct HttpArgs {
    /// The address to bind, `HOST:PORT`.
    pub addr: String,
    /// More hosts allowed in `Host` (and origins' hosts).
    pub allow_hosts: Vec<String>,
    /// More origins allowed in `Origin`.
    pub allow_origins: Vec<String>,
    /// The largest request body, in bytes.
    pub max_body_bytes: Option<usize>,
    /// The most sessions at once.
    pub max_sessions: Option<usize>,
    /// The most streams per session.
    pub max_streams: Option<usize>,
    /// Authorization (OAuth resource server), when asked for.
    pub auth: Option<toolschema_http::auth::AuthOptions>,
}

impl HttpArgs {
    /// The endpoint's options these flags ask for: the defaults, with each flag given
    /// applied.
    pub fn options(&self) -> HttpOptions {
        let mut options = HttpOptions::new();
        for h in &self.allow_hosts {
            options = options.allow_host(h);
        }
        for o in &self.allow_origins {
            options = options.allow_origin(o);
        }
        if let Some(n) = self.max_body_bytes {
            options = options.max_body_bytes(n);
        }
        if let Some(n) = self.max_sessions {
            options = options.max_sessions(n);
        }
        if let Some(n) = self.max_streams {
            options = options.max_streams(n);
        }
        if let Some(auth) = &self.auth {
            options = options.auth(auth.clone());
        }
        options
    }
}

/// Serves `server` as `toolschema serve --http` asks; the process exit code.
pub fn serve_http_main(server: &Server, args: &HttpArgs, serve: &ServeArgs) -> i32 {
    let mut bound = match HttpServer::bind(server, args.addr.as_str(), args.options()) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("toolschema serve: cannot listen on {}: {e}", args.addr);
            return 1;
        }
    };
    if let Some(p) = &serve.metrics_path
        && (!p.starts_with('/') || *p == "/mcp")
    {
        eprintln!(
            "toolschema serve: --metrics-path {p:?}: a path such as /metrics, not the MCP endpoint's"
        );
        return 2;
    }
    if serve.metrics.is_some() || serve.metrics_path.is_some() {
        let metrics = Metrics::new();
        if let Some(addr) = &serve.metrics {
            match metrics.serve(addr) {
                Ok(a) => eprintln!("toolschema serve: metrics on http://{a}/metrics"),
                Err(e) => {
                    eprintln!("toolschema serve: cannot serve metrics on {addr}: {e}");
                    return 1;
                }
            }
        }
        bound = bound.metrics(metrics, serve.metrics_path.as_deref());
    }
    eprintln!(
        "toolschema serve: {} tool(s) on http://{}/mcp",
        server.tools().len(),
        bound.local_addr()
    );
    match bound.run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("toolschema serve: {e}");
            1
        }
    }
}
