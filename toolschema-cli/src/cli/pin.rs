//! `toolschema pin`: writes the pin file `proxy --pin` checks, from a live server's listing.

use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;
use toolschema_http::proxy::pin;

/// Start COMMAND, list its tools (every page) and write each tool's digest (SHA-256 of its
/// canonical JSON, without _meta) to FILE, replacing what it held: the definitions
/// `toolschema proxy --pin FILE` then accepts.
///
/// e.g. toolschema pin --out pins.json -- npx -y @modelcontextprotocol/server-filesystem /tmp
///
/// Exit status: 0 written, 3 the server cannot be started, does not answer in time or
/// cannot list its tools, or the file cannot be written.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The pin file to write
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Seconds the server has to answer each request (default 30)
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// The server command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub fn run(args: Args) -> u8 {
    match pin_server(&args) {
        Ok(n) => {
            eprintln!(
                "toolschema pin: {n} tool(s) pinned in {}",
                args.out.display()
            );
            super::VALID
        }
        Err(why) => {
            eprintln!("toolschema pin: {why}");
            super::ERROR
        }
    }
}

fn pin_server(args: &Args) -> Result<usize, String> {
    let tools = super::live::list_tools(
        &args.command,
        "toolschema-pin",
        Duration::from_secs(args.timeout),
    )?;
    let mut digests = BTreeMap::new();
    for t in &tools {
        let name = t
            .get("name")
            .and_then(Value::as_str)
            .ok_or("a listed tool has no name")?;
        digests.insert(name.to_string(), pin::digest(t));
    }
    pin::write(&args.out, &digests)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    Ok(digests.len())
}
