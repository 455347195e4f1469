//! `toolschema proxy`: its options, read by hand until the CLI moves to clap.

use std::ffi::OsString;
use toolschema::mcp::contract::OutputPolicy;
use toolschema::mcp::proxy::ProxyConfig;

pub(crate) const USAGE: &str = "  toolschema proxy [--hide-broken-tools] [--no-upgrade-schemas]
                   [--on-bad-output error|log|pass] [--log FILE]
                   [--max-message-bytes N] [--max-server-message-bytes N] -- COMMAND [ARGS...]
      a contract-checking MCP proxy on stdio in front of the server COMMAND";

/// Parses the arguments after `proxy` into the configuration and the server command.
pub(crate) fn parse(args: &[OsString]) -> Result<(ProxyConfig, Vec<OsString>), String> {
    let mut config = ProxyConfig::default();
    let mut it = args.iter();
    let number = |v: Option<&OsString>, what: &str| {
        v.and_then(|v| v.to_str())
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{what} takes a number of bytes"))
    };
    while let Some(a) = it.next() {
        match a.to_str().unwrap_or("") {
            "--" => return Ok((config, it.cloned().collect())),
            "--hide-broken-tools" => config.contract.hide_broken_tools = true,
            "--upgrade-schemas" => config.contract.upgrade_schemas = true,
            "--no-upgrade-schemas" => config.contract.upgrade_schemas = false,
            "--on-bad-output" => {
                config.contract.on_bad_output = match it.next().and_then(|v| v.to_str()) {
                    Some("error") => OutputPolicy::ErrorResult,
                    Some("log") => OutputPolicy::Log,
                    Some("pass") => OutputPolicy::Pass,
                    _ => return Err("--on-bad-output takes error, log or pass".into()),
                }
            }
            "--log" => match it.next() {
                Some(path) => config.log = Some(path.into()),
                None => return Err("--log takes a file".into()),
            },
            "--max-message-bytes" => {
                config.max_message_bytes = number(it.next(), "--max-message-bytes")?
            }
            "--max-server-message-bytes" => {
                config.max_server_message_bytes = number(it.next(), "--max-server-message-bytes")?
            }
            other => {
                return Err(format!(
                    "unknown proxy option {other:?} (the server command goes after `--`)"
                ));
            }
        }
    }
    Err("no server command: put it after `--`".into())
}

/// Runs the command; the exit code is the server's.
pub(crate) fn main(args: &[OsString]) -> u8 {
    if matches!(args.first().and_then(|a| a.to_str()), Some("-h" | "--help")) {
        println!("usage:\n{USAGE}");
        return 0;
    }
    match parse(args) {
        Ok((config, command)) if !command.is_empty() => {
            let code = toolschema::mcp::proxy::run_stdio(&config, &command);
            u8::try_from(code).unwrap_or(1)
        }
        Ok(_) => {
            eprintln!("toolschema proxy: no server command: put it after `--`\nusage:\n{USAGE}");
            2
        }
        Err(e) => {
            eprintln!("toolschema proxy: {e}\nusage:\n{USAGE}");
            2
        }
    }
}
