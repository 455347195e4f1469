//! `toolschema`: check schemas, validate JSON, YAML and JSON Lines files, serve MCP tools.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
