//! `toolschema upgrade` and `toolschema lint`: the tool-author toolkit (the library parts
//! are `toolschema::upgrade` and `toolschema::lint`).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use toolschema::Draft;
use toolschema::lint::{Finding, fix, lint};

/// Print a schema rewritten as 2020-12, accepting exactly the same instances.
///
/// A schema without `$schema` is read under --draft. Draft-04/06/07 and 2019-09 are
/// rewritten (`definitions`, tuple `items`, `dependencies`, boolean exclusive bounds,
/// `$recursiveRef`, ...); where no exact 2020-12 equivalent exists the upgrade is refused
/// with the reason rather than guessed.
///
/// Exit status: 0 printed, 1 no exact equivalent (the reason is printed), 2 usage error,
/// 3 the schema cannot be read or parsed.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct UpgradeArgs {
    /// The schema file (`-` for stdin)
    #[arg(value_name = "SCHEMA")]
    pub schema: PathBuf,
    /// The draft of a schema without `$schema`: 4, 6, 7, 2019-09, 2020-12
    #[arg(long, value_name = "DRAFT", value_parser = draft_arg, default_value = "2020-12")]
    pub draft: Draft,
    /// The target dialect (only 2020-12)
    #[arg(long, value_name = "DRAFT", value_parser = ["2020-12"], default_value = "2020-12")]
    pub to: String,
}

/// Lint schemas, MCP Tool files and tool lists for what MCP clients and SDKs refuse.
///
/// A JSON file with `inputSchema`/`outputSchema` is read as a tool, an array or
/// `{"tools": [...]}` as a tool list, anything else as a schema; a directory's .json
/// files are read recursively. `-- COMMAND ARGS...` starts a stdio MCP server, lists its
/// tools and lints them.
///
/// Exit status: 0 clean, 1 findings, 2 usage error, 3 an input cannot be read or the
/// server cannot be listed.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct LintArgs {
    /// Files and directories to lint
    #[arg(value_name = "FILE_OR_DIR", required_unless_present = "command")]
    pub paths: Vec<PathBuf>,
    /// Write the safe fixes (upgrades to 2020-12) back to the files
    #[arg(long, conflicts_with = "command")]
    pub fix: bool,
    /// text lines, or one JSON record per finding
    #[arg(long, value_name = "FORMAT", value_parser = ["text", "json"], default_value = "text")]
    pub format: String,
    /// A stdio MCP server to start and list the tools of, after `--`
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Reads `--draft` values: `4`, `draft-04`, `draft4`, ..., `2019-09`, `2020-12`.
fn draft_arg(s: &str) -> Result<Draft, String> {
    let t = s.trim_start_matches("draft").trim_start_matches('-');
    Ok(match t {
        "4" | "04" => Draft::Draft4,
        "6" | "06" => Draft::Draft6,
        "7" | "07" => Draft::Draft7,
        "2019-09" => Draft::Draft201909,
        "2020-12" => Draft::Draft202012,
        _ => {
            return Err(format!(
                "unknown draft {s:?}: use 4, 6, 7, 2019-09 or 2020-12"
            ));
        }
    })
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("-: cannot read: {e}"))?;
        s
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?
    };
    serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}: malformed JSON: {e}", path.display(), e.line()))
}

/// Runs `upgrade`: 0 printed, 1 refused, 3 unreadable.
pub fn upgrade(args: UpgradeArgs) -> u8 {
    let schema = match read_json(&args.schema) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            return super::ERROR;
        }
    };
    match toolschema::upgrade::upgrade(&schema, args.draft) {
        Ok(up) => {
            println!("{}", serde_json::to_string_pretty(&up).unwrap_or_default());
            0
        }
        Err(e) => {
            eprintln!("{}: cannot upgrade: {e}", args.schema.display());
            1
        }
    }
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            json_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
    Ok(())
}

fn report(source: &str, findings: &[Finding], json: bool) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for f in findings {
        let line = if json {
            json!({
                "file": source,
                "rule": f.rule,
                "severity": f.severity.as_str(),
                "location": f.location,
                "tool": f.tool,
                "message": f.message,
            })
            .to_string()
        } else {
            format!("{source}:{f}")
        };
        let _ = writeln!(out, "{line}");
    }
}

/// Runs `lint`: 0 clean, 1 findings, 3 unreadable input or a failed server.
pub fn lint_command(args: LintArgs) -> u8 {
    let json = args.format == "json";
    let mut broken = false;
    let mut any = false;
    if !args.command.is_empty() {
        match list_tools(&args.command) {
            Ok(tools) => {
                let findings = lint(&Value::Array(tools));
                any |= !findings.is_empty();
                report(&args.command.join(" "), &findings, json);
            }
            Err(e) => {
                eprintln!("{}: {e}", args.command.join(" "));
                broken = true;
            }
        }
    }
    let mut files = Vec::new();
    for p in &args.paths {
        if p.is_dir() {
            if let Err(e) = json_files(p, &mut files) {
                eprintln!("{}: cannot read: {e}", p.display());
                broken = true;
            }
        } else {
            files.push(p.clone());
        }
    }
    for file in files {
        let mut doc = match read_json(&file) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("{e}");
                broken = true;
                continue;
            }
        };
        if args.fix {
            let (fixed, n) = fix(&doc);
            if n > 0 {
                let text = serde_json::to_string_pretty(&fixed).unwrap_or_default() + "\n";
                if let Err(e) = std::fs::write(&file, text) {
                    eprintln!("{}: cannot write: {e}", file.display());
                    broken = true;
                } else {
                    eprintln!("{}: upgraded {n} schema(s) to 2020-12", file.display());
                    doc = fixed;
                }
            }
        }
        let findings = lint(&doc);
        any |= !findings.is_empty();
        report(&file.display().to_string(), &findings, json);
    }
    if broken { super::ERROR } else { u8::from(any) }
}

/// How long a server may take to answer one request.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// Starts `command`, initializes it as an MCP client over stdio, and collects every page
/// of `tools/list`; the server is killed afterwards.
fn list_tools(command: &[String]) -> Result<Vec<Value>, String> {
    let (program, rest) = command.split_first().ok_or("no command")?;
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let result = talk(&mut child);
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn talk(child: &mut std::process::Child) -> Result<Vec<Value>, String> {
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let mut send = |v: Value| -> Result<(), String> {
        writeln!(stdin, "{v}").map_err(|e| format!("cannot write to the server: {e}"))?;
        stdin
            .flush()
            .map_err(|e| format!("cannot write to the server: {e}"))
    };
    let await_answer = |id: u64| -> Result<Value, String> {
        loop {
            let msg = rx
                .recv_timeout(ANSWER_WITHIN)
                .map_err(|_| format!("no answer to request {id} within {ANSWER_WITHIN:?}"))?;
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                if let Some(err) = msg.get("error") {
                    return Err(format!("request {id} failed: {err}"));
                }
                return msg
                    .get("result")
                    .cloned()
                    .ok_or_else(|| format!("request {id}: an answer without result"));
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "toolschema-lint", "version": env!("CARGO_PKG_VERSION")}
        }}),
    )?;
    await_answer(1)?;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 2..10_000u64 {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}))?;
        let result = await_answer(id)?;
        tools.extend(result["tools"].as_array().into_iter().flatten().cloned());
        match result.get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => return Ok(tools),
        }
    }
    Err("more than 10,000 pages of tools".into())
}
