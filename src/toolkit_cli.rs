//! The `upgrade` and `lint` commands: plain argument structs and the functions that run
//! them (exit codes 0 clean, 1 findings or refused, 2 usage or unreadable input).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use toolschema::Draft;
use toolschema::lint::{Finding, fix, lint};

pub const USAGE: &str = "  toolschema upgrade SCHEMA [--draft 4|6|7|2019-09|2020-12] [--to 2020-12]
      print SCHEMA rewritten as 2020-12, accepting exactly the same instances (a schema
      without $schema is read under --draft, default 2020-12). Exit 1 when no exact
      2020-12 equivalent exists (the reason is printed), 2 on unreadable input
  toolschema lint [--fix] [--format text|json] FILE_OR_DIR...
  toolschema lint [--format text|json] -- COMMAND ARGS...
      lint schemas, MCP Tool files and tool lists (a directory: its .json files), or the
      tools a stdio MCP server lists. --fix writes the safe fixes (upgrades) back.
      Exit 0 when clean, 1 with findings, 2 on unreadable input";

/// `toolschema upgrade`.
pub struct UpgradeArgs {
    /// The schema file (`-` for stdin).
    pub schema: PathBuf,
    /// The draft of a schema without `$schema`.
    pub draft: Draft,
}

/// `toolschema lint`.
pub struct LintArgs {
    /// Files and directories to lint.
    pub paths: Vec<PathBuf>,
    /// A stdio MCP server to start and list the tools of (command and arguments).
    pub command: Vec<String>,
    /// Write the safe fixes back to the files.
    pub fix: bool,
    /// One JSON record per finding instead of text lines.
    pub json: bool,
}

/// Reads `--draft` values: `4`, `draft-04`, `draft4`, ..., `2019-09`, `2020-12`.
pub fn parse_draft(s: &str) -> Option<Draft> {
    let s = s.trim_start_matches("draft").trim_start_matches('-');
    Some(match s {
        "4" | "04" => Draft::Draft4,
        "6" | "06" => Draft::Draft6,
        "7" | "07" => Draft::Draft7,
        "2019-09" => Draft::Draft201909,
        "2020-12" => Draft::Draft202012,
        _ => return None,
    })
}

/// Hand-parsed `upgrade` arguments (the lead's clap port replaces this).
pub fn parse_upgrade(args: &[String]) -> Result<UpgradeArgs, String> {
    let mut schema = None;
    let mut draft = Draft::Draft202012;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--draft" => {
                let v = it.next().ok_or("--draft takes a draft")?;
                draft = parse_draft(v).ok_or_else(|| format!("unknown draft {v:?}"))?;
            }
            "--to" => {
                let v = it.next().ok_or("--to takes a draft")?;
                if parse_draft(v) != Some(Draft::Draft202012) {
                    return Err(format!("--to {v}: only 2020-12 is a target"));
                }
            }
            _ if schema.is_none() => schema = Some(PathBuf::from(a)),
            _ => return Err(format!("unexpected argument {a:?}")),
        }
    }
    Ok(UpgradeArgs {
        schema: schema.ok_or("upgrade needs a SCHEMA")?,
        draft,
    })
}

/// Hand-parsed `lint` arguments.
pub fn parse_lint(args: &[String]) -> Result<LintArgs, String> {
    let mut out = LintArgs {
        paths: Vec::new(),
        command: Vec::new(),
        fix: false,
        json: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--fix" => out.fix = true,
            "--format" => match it.next().map(String::as_str) {
                Some("json") => out.json = true,
                Some("text") => out.json = false,
                other => return Err(format!("unknown --format {other:?}: use text or json")),
            },
            "--" => {
                out.command = it.by_ref().cloned().collect();
                if out.command.is_empty() {
                    return Err("`--` must be followed by a command".into());
                }
            }
            _ => out.paths.push(PathBuf::from(a)),
        }
    }
    if out.paths.is_empty() && out.command.is_empty() {
        return Err("lint needs a FILE_OR_DIR or `-- COMMAND`".into());
    }
    if out.fix && !out.command.is_empty() {
        return Err("--fix applies to files, not to a live server".into());
    }
    Ok(out)
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

/// Runs `upgrade`: 0 printed, 1 refused, 2 unreadable.
pub fn upgrade(args: &UpgradeArgs) -> u8 {
    let schema = match read_json(&args.schema) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            return 2;
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

/// Runs `lint`: 0 clean, 1 findings, 2 unreadable input or a failed server.
pub fn lint_command(args: &LintArgs) -> u8 {
    let mut broken = false;
    let mut any = false;
    if !args.command.is_empty() {
        match list_tools(&args.command) {
            Ok(tools) => {
                let findings = lint(&Value::Array(tools));
                any |= !findings.is_empty();
                report(&args.command.join(" "), &findings, args.json);
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
        report(&file.display().to_string(), &findings, args.json);
    }
    if broken { 2 } else { u8::from(any) }
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
