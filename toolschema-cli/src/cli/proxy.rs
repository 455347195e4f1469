//! `toolschema proxy`: a contract-checking MCP proxy on stdio or Streamable HTTP (the proxy
//! itself is `toolschema_http::proxy`).

use super::serve::HttpArgs;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use toolschema::mcp::contract::OutputPolicy;
use toolschema_http::metrics::Metrics;
use toolschema_http::proxy::pin::Pins;
use toolschema_http::proxy::policy::ToolPolicy;
use toolschema_http::proxy::{ClientSide, ProxyConfig, ServerSide};
use toolschema_http::trace::Tracing;

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
/// In production (see the README):
///   --metrics HOST:PORT       Prometheus metrics (OpenTelemetry MCP names) at /metrics
///   --pin FILE                tool definitions pinned by digest (`toolschema pin` writes
///                             the file); a changed tool is hidden and its calls refused
///   --allow/--deny PATTERN    which tools clients see and call (globs)
///   --config FILE             every option from a TOML file (keys are the flags' names)
/// e.g. {"command": "toolschema", "args": ["proxy", "--config", "/etc/toolschema/fs.toml"]}
///
/// Exit status: the server's (stdio); 0 after --upstream's client leaves or --listen's
/// SIGINT/SIGTERM; 2 usage error or a server that cannot start.
#[derive(clap::Args, Debug, Default, Serialize, Deserialize)]
#[command(verbatim_doc_comment)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Args {
    /// Read options from this TOML file, keyed by the flags' names (e.g. listen =
    /// "127.0.0.1:8080", allow = ["read_*"], command = ["npx", "-y", "..."]); flags given
    /// here win over the file
    #[arg(long, value_name = "FILE")]
    #[serde(skip)]
    config: Option<PathBuf>,
    /// Hide tools whose schemas fail to compile (default: list them, unvalidated)
    #[arg(long)]
    hide_broken_tools: bool,
    /// Show older-dialect schemas to the client as 2020-12 (the default)
    #[arg(long, overrides_with = "no_upgrade_schemas")]
    upgrade_schemas: bool,
    /// Leave tool schemas as the server wrote them
    #[arg(long)]
    no_upgrade_schemas: bool,
    /// What a result that breaks its output schema becomes (default error)
    #[arg(long, value_name = "POLICY", value_parser = ["error", "log", "pass"])]
    on_bad_output: Option<String>,
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
    #[arg(long, value_name = "URL")]
    upstream: Option<String>,
    /// With --upstream: seconds allowed to connect, for each answer's headers, and of
    /// silence on an answer's SSE stream (default 60)
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    upstream_timeout: Option<u64>,
    /// With --listen: also allow this Host header name (repeatable; `*` allows any)
    #[arg(long, value_name = "HOST")]
    allow_host: Vec<String>,
    /// With --listen: also allow this Origin, e.g. https://app.example.com (repeatable)
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// With --listen: the largest request body (default 4 MiB)
    #[arg(long, value_name = "BYTES")]
    max_body_bytes: Option<usize>,
    /// With --listen: the most sessions (each with its own server child) at once (default 64)
    #[arg(long, value_name = "N")]
    max_sessions: Option<usize>,
    /// With --listen: the most SSE streams per session (default 32)
    #[arg(long, value_name = "N")]
    max_streams: Option<usize>,
    /// Serve Prometheus metrics at http://HOST:PORT/metrics (port 0 picks one, printed)
    #[arg(long, value_name = "HOST:PORT")]
    metrics: Option<String>,
    /// With --listen: also serve the metrics at this path of the listener (e.g. /metrics),
    /// behind its Host/Origin check and, with --auth-*, its bearer token
    #[arg(long, value_name = "PATH")]
    metrics_path: Option<String>,
    /// Export one span per request to this OpenTelemetry collector (OTLP over HTTP/protobuf,
    /// e.g. http://127.0.0.1:4318), in the trace of the client's _meta traceparent
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// Pin tool definitions in FILE (JSON, written by `toolschema pin` or here at first
    /// sight): a tool whose definition changed is hidden and its calls refused
    #[arg(long, value_name = "FILE")]
    pin: Option<PathBuf>,
    /// Only show and pass calls to tools whose name matches this glob (repeatable)
    #[arg(long, value_name = "PATTERN")]
    allow: Vec<String>,
    /// Hide tools whose name matches this glob and refuse their calls (repeatable; wins
    /// over --allow)
    #[arg(long, value_name = "PATTERN")]
    deny: Vec<String>,
    /// The server command and its arguments, after `--` (unless --upstream); in a
    /// --config file, `command = [...]`
    #[arg(last = true, value_name = "COMMAND")]
    #[serde(with = "os_strings")]
    command: Vec<OsString>,
    #[command(flatten)]
    #[serde(flatten)]
    auth: super::auth::AuthArgs,
}

/// The command line's options, the --config file's under them; the command (after `--`,
/// else the file's `command`). `Err` says what is wrong.
fn resolve(args: Args) -> Result<Args, String> {
    let Some(path) = args.config.clone() else {
        return Ok(args);
    };
    let command_line = args.command.clone();
    let (cli_log, cli_pin, cli_policy) = (
        args.log.is_some(),
        args.pin.is_some(),
        args.auth.policy().is_some(),
    );
    let mut merged: Args = super::config::merge(&path, &args)?;
    // The file's own relative paths are read from its directory, not from wherever the
    // MCP client happens to start the proxy (a pin file found anew in another directory
    // would pin every tool again, rug pulls included).
    let dir = path.parent().unwrap_or(Path::new(""));
    let rebase = |p: &mut Option<PathBuf>, from_cli: bool| {
        if !from_cli && let Some(rel) = p.as_ref().filter(|p| p.is_relative()) {
            *p = Some(dir.join(rel));
        }
    };
    rebase(&mut merged.log, cli_log);
    rebase(&mut merged.pin, cli_pin);
    rebase(merged.auth.policy_mut(), cli_policy);
    merged.config = Some(path);
    if !command_line.is_empty() {
        // As given (the merge saw it as UTF-8, lossily).
        merged.command = command_line;
    }
    Ok(merged)
}

/// The server command in a config file: an array of strings.
mod os_strings {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::ffi::OsString;

    pub fn serialize<S: Serializer>(v: &[OsString], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|a| a.to_string_lossy()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<OsString>, D::Error> {
        Ok(Vec::<String>::deserialize(d)?
            .into_iter()
            .map(OsString::from)
            .collect())
    }
}

/// What clap checked for flags alone, checked again once a config file is laid under them.
fn validate(args: &Args) -> Result<(), String> {
    if args.upstream.is_some() && !args.command.is_empty() {
        return Err("--upstream and a server COMMAND cannot be used together".into());
    }
    if args.upstream.is_none() && args.command.is_empty() {
        return Err("a server COMMAND (after `--`) or --upstream URL is required".into());
    }
    let listen_only = [
        ("--allow-host", !args.allow_host.is_empty()),
        ("--allow-origin", !args.allow_origin.is_empty()),
        ("--max-body-bytes", args.max_body_bytes.is_some()),
        ("--max-sessions", args.max_sessions.is_some()),
        ("--max-streams", args.max_streams.is_some()),
        ("--metrics-path", args.metrics_path.is_some()),
    ];
    if args.listen.is_none()
        && let Some((flag, _)) = listen_only.iter().find(|(_, given)| *given)
    {
        return Err(format!("{flag} requires --listen"));
    }
    // The ranges clap checks on the flags, for values that came from the file.
    for (key, value) in [
        ("max-message-bytes", args.max_message_bytes),
        ("max-server-message-bytes", args.max_server_message_bytes),
        ("upstream-timeout", args.upstream_timeout),
    ] {
        if value == Some(0) {
            return Err(format!("{key} 0: must be at least 1"));
        }
    }
    if let Some(p) = &args.on_bad_output
        && !["error", "log", "pass"].contains(&p.as_str())
    {
        return Err(format!("on-bad-output {p:?}: one of error, log, pass"));
    }
    if args.auth.given() && args.listen.is_none() {
        return Err("the --auth-* flags need --listen (stdio has no tokens)".into());
    }
    if args.upstream_timeout.is_some() && args.upstream.is_none() {
        return Err("--upstream-timeout requires --upstream".into());
    }
    if let Some(p) = &args.metrics_path
        && (!p.starts_with('/') || p == "/mcp")
    {
        return Err(format!(
            "--metrics-path {p:?}: a path such as /metrics, not the MCP endpoint's"
        ));
    }
    Ok(())
}

pub fn run(args: Args) -> u8 {
    let args = match resolve(args).and_then(|a| validate(&a).map(|()| a)) {
        Ok(a) => a,
        Err(why) => {
            eprintln!("toolschema proxy: {why}");
            return super::USAGE;
        }
    };
    let mut config = ProxyConfig::default();
    match ToolPolicy::new(&args.allow, &args.deny) {
        Ok(p) => config.contract.policy = p,
        Err(why) => {
            eprintln!("toolschema proxy: {why}");
            return super::USAGE;
        }
    }
    if let Some(path) = &args.pin {
        match Pins::open(path) {
            Ok(p) => config.contract.pins = Some(Arc::new(p)),
            Err(e) => {
                eprintln!("toolschema proxy: --pin: {e}");
                return super::USAGE;
            }
        }
    }
    if args.metrics.is_some() || args.metrics_path.is_some() {
        let metrics = Metrics::new();
        if let Some(addr) = &args.metrics {
            match metrics.serve(addr) {
                Ok(bound) => eprintln!("toolschema proxy: metrics on http://{bound}/metrics"),
                Err(e) => {
                    eprintln!("toolschema proxy: cannot serve metrics on {addr}: {e}");
                    return super::USAGE;
                }
            }
        }
        config.metrics = Some(metrics);
        config.metrics_path = args.metrics_path.clone();
    }
    config.contract.hide_broken_tools = args.hide_broken_tools;
    config.contract.upgrade_schemas = !args.no_upgrade_schemas;
    config.contract.on_bad_output = match args.on_bad_output.as_deref().unwrap_or("error") {
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
    let tracing = match &args.otlp_endpoint {
        None => None,
        Some(url) => match Tracing::otlp(url, "toolschema-proxy") {
            Ok(t) => Some(t),
            Err(why) => {
                eprintln!("toolschema proxy: {why}");
                return super::USAGE;
            }
        },
    };
    config.tracing = tracing.clone();
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
    if let Some(t) = tracing {
        t.shutdown();
    }
    u8::try_from(code).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config file skips clap's own checks: the same bounds hold for its values.
    #[test]
    fn values_from_a_config_file_are_held_to_the_flags_ranges() {
        let dir = std::env::temp_dir().join(format!("toolschema-proxy-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (i, key) in [
            "max-message-bytes",
            "max-server-message-bytes",
            "upstream-timeout",
        ]
        .iter()
        .enumerate()
        {
            let file = dir.join(format!("{i}.toml"));
            std::fs::write(
                &file,
                format!("{key} = 0\nupstream = \"http://127.0.0.1:1/mcp\"\n"),
            )
            .unwrap();
            let args = Args {
                config: Some(file),
                ..Args::default()
            };
            let resolved = resolve(args).unwrap();
            let err = validate(&resolved).unwrap_err();
            assert!(err.contains(key), "{err}");
        }
        let file = dir.join("ok.toml");
        std::fs::write(
            &file,
            "upstream-timeout = 5\nupstream = \"http://127.0.0.1:1/mcp\"\n",
        )
        .unwrap();
        let args = Args {
            config: Some(file),
            ..Args::default()
        };
        assert!(validate(&resolve(args).unwrap()).is_ok());
    }

    /// Relative paths in a config file are the file's directory's; on the command line,
    /// the working directory's.
    #[test]
    fn a_config_files_relative_paths_are_read_from_its_directory() {
        let dir = std::env::temp_dir().join(format!("toolschema-proxy-rel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("proxy.toml");
        std::fs::write(
            &file,
            "pin = \"pins.json\"\nlog = \"logs/audit.jsonl\"\nauth-policy = \"/etc/policy.json\"\ncommand = [\"true\"]\n",
        )
        .unwrap();
        let args = Args {
            config: Some(file.clone()),
            ..Args::default()
        };
        let r = resolve(args).unwrap();
        assert_eq!(r.pin, Some(dir.join("pins.json")));
        assert_eq!(r.log, Some(dir.join("logs/audit.jsonl")));
        assert_eq!(r.auth.policy(), Some(Path::new("/etc/policy.json")));
        let args = Args {
            config: Some(file),
            pin: Some(PathBuf::from("here.json")),
            ..Args::default()
        };
        assert_eq!(resolve(args).unwrap().pin, Some(PathBuf::from("here.json")));
    }
}
