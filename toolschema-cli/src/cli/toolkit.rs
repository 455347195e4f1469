//! `toolschema upgrade` and `toolschema lint`: the tool-author toolkit (the library parts
//! are `toolschema::upgrade` and `toolschema::lint`).

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
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
        match super::live::list_tools(&args.command, "toolschema-lint", ANSWER_WITHIN) {
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
