//! `toolschema`: check schemas, validate JSON, YAML and JSON Lines files, serve mock MCP
//! tools, and put a contract-checking proxy in front of an MCP server.
//!
//! The binary of the `toolschema-cli` crate (`cargo install --path toolschema-cli`); the
//! engine is the `toolschema` library, the HTTP transport and the proxy `toolschema-http`.
//!
//! ```text
//! $ toolschema validate --schema examples/weather/input_schema.json examples/weather/calls.jsonl
//! ```

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
