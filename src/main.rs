//! `toolschema`: check schemas, validate JSON and JSON Lines files, serve MCP tools.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::process::ExitCode;
use toolschema::{Options, Schema};

mod toolkit_cli;

const USAGE: &str = "usage:
  toolschema check SCHEMA
      compile SCHEMA and report (exit 0 when it compiles, 2 otherwise)
  toolschema validate --schema SCHEMA [--output text|flag|basic|detailed] FILE...
      validate each FILE (one JSON document; JSON Lines when it ends in .jsonl or
      .ndjson; `-` reads JSON Lines from stdin). Exit 0 when all are valid,
      1 when any is invalid, 2 on a bad schema, unreadable file or malformed JSON
  toolschema serve [--tools FILE_OR_DIR]... [--max-message-bytes N] [--page-size N]
      an MCP server on stdio: built-in demo tools, or the tools in the given files
      (arrays of MCP Tool objects, or one) and directories
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("check") => check(&args[1..]),
        Some("validate") => validate(&args[1..]),
        Some("serve") => serve(&args[1..]),
        Some("upgrade") => match toolkit_cli::parse_upgrade(&args[1..]) {
            Ok(a) => toolkit_cli::upgrade(&a),
            Err(e) => usage_error(&e),
        },
        Some("lint") => match toolkit_cli::parse_lint(&args[1..]) {
            Ok(a) => toolkit_cli::lint_command(&a),
            Err(e) => usage_error(&e),
        },
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}{}", toolkit_cli::USAGE);
            0
        }
        _ => {
            eprintln!("{USAGE}{}", toolkit_cli::USAGE);
            2
        }
    };
    ExitCode::from(code)
}

fn usage_error(e: &str) -> u8 {
    eprintln!("{e}\n{USAGE}{}", toolkit_cli::USAGE);
    2
}

fn read_schema(path: &str) -> Result<Schema, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{path}:{}: malformed JSON: {e}", e.line()))?;
    Options::new()
        .compile(&value)
        .map_err(|e| format!("{path}: invalid schema: {e}"))
}

fn check(args: &[String]) -> u8 {
    let [path] = args else {
        eprintln!("{USAGE}");
        return 2;
    };
    match read_schema(path) {
        Ok(_) => {
            println!("{path}: ok");
            0
        }
        Err(e) => {
            eprintln!("{e}");
            2
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Output {
    Text,
    Flag,
    Basic,
    Detailed,
}

struct Tally {
    invalid: bool,
    broken: bool,
}

fn validate(args: &[String]) -> u8 {
    let mut schema_path = None;
    let mut output = Output::Text;
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--schema" => schema_path = it.next(),
            "--output" => {
                output = match it.next().map(String::as_str) {
                    Some("text") => Output::Text,
                    Some("flag") => Output::Flag,
                    Some("basic") => Output::Basic,
                    Some("detailed") => Output::Detailed,
                    other => {
                        eprintln!("unknown --output {other:?}: use text, flag, basic or detailed");
                        return 2;
                    }
                }
            }
            _ => files.push(a.clone()),
        }
    }
    let (Some(schema_path), false) = (schema_path, files.is_empty()) else {
        eprintln!("{USAGE}");
        return 2;
    };
    let schema = match read_schema(schema_path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let mut tally = Tally {
        invalid: false,
        broken: false,
    };
    for file in &files {
        let lines = file == "-" || file.ends_with(".jsonl") || file.ends_with(".ndjson");
        if file == "-" {
            validate_lines(&schema, "-", std::io::stdin().lock(), output, &mut tally);
        } else {
            match std::fs::File::open(file) {
                Err(e) => {
                    eprintln!("{file}: cannot read: {e}");
                    tally.broken = true;
                }
                Ok(f) if lines => {
                    validate_lines(&schema, file, BufReader::new(f), output, &mut tally)
                }
                Ok(mut f) => {
                    let mut text = String::new();
                    match f.read_to_string(&mut text) {
                        Err(e) => {
                            eprintln!("{file}: cannot read: {e}");
                            tally.broken = true;
                        }
                        Ok(_) => match serde_json::from_str::<Value>(&text) {
                            Err(e) => {
                                eprintln!("{file}:{}: malformed JSON: {e}", e.line());
                                tally.broken = true;
                            }
                            Ok(v) => report(&schema, file, None, &v, output, &mut tally),
                        },
                    }
                }
            }
        }
    }
    if tally.broken {
        2
    } else if tally.invalid {
        1
    } else {
        0
    }
}

/// Streams JSON Lines: one line in memory at a time.
fn validate_lines(
    schema: &Schema,
    name: &str,
    reader: impl BufRead,
    output: Output,
    tally: &mut Tally,
) {
    for (i, line) in reader.lines().enumerate() {
        let n = i + 1;
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{name}:{n}: cannot read: {e}");
                tally.broken = true;
                return;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(&line) {
            Err(e) => {
                eprintln!("{name}:{n}: malformed JSON: {e}");
                tally.broken = true;
            }
            Ok(v) => report(schema, name, Some(n), &v, output, tally),
        }
    }
}

fn report(
    schema: &Schema,
    name: &str,
    line: Option<usize>,
    instance: &Value,
    output: Output,
    tally: &mut Tally,
) {
    let place = match line {
        Some(n) => format!("{name}:{n}"),
        None => name.to_string(),
    };
    let valid = schema.is_valid(instance);
    if !valid {
        tally.invalid = true;
    }
    match output {
        Output::Text => {
            if !valid {
                for e in schema.iter_errors(instance) {
                    println!("{place}: {e}");
                }
            }
        }
        Output::Flag | Output::Basic | Output::Detailed => {
            let doc = output_document(schema, instance, output);
            println!("{doc}");
        }
    }
}

fn output_document(schema: &Schema, instance: &Value, output: Output) -> Value {
    let evaluation = schema.evaluate(instance);
    match output {
        Output::Flag => evaluation.flag(),
        Output::Basic => evaluation.basic(),
        _ => evaluation.detailed(),
    }
}

fn serve(args: &[String]) -> u8 {
    let mut serve_args = toolschema::mcp::ServeArgs::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let number = |v: Option<&String>| v.and_then(|v| v.parse::<usize>().ok());
        match a.as_str() {
            "--tools" => match it.next() {
                Some(path) => serve_args.tools.push(path.into()),
                None => {
                    eprintln!("{USAGE}");
                    return 2;
                }
            },
            "--max-message-bytes" => match number(it.next()) {
                Some(n) => serve_args.max_message_bytes = Some(n),
                None => {
                    eprintln!("--max-message-bytes takes a number of bytes");
                    return 2;
                }
            },
            "--page-size" => match number(it.next()) {
                Some(n) => serve_args.page_size = Some(n),
                None => {
                    eprintln!("--page-size takes a number of tools");
                    return 2;
                }
            },
            _ => {
                eprintln!("{USAGE}");
                return 2;
            }
        }
    }
    let code = toolschema::mcp::serve_main(&serve_args);
    u8::try_from(code).unwrap_or(2)
}
