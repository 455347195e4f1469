//! The `toolschema` command line: one file per subcommand, each with its clap `Args` struct
//! and a `run` that returns the exit status.
//!
//! Adding a subcommand: `mod NAME;` below, a variant `Name(NAME::Args)` in [`Command`],
//! and its arm in [`main`].
//!
//! Exit status, for every subcommand: [`VALID`] 0, [`INVALID`] 1, [`USAGE`] 2 (clap's
//! own code for a usage error), [`ERROR`] 3.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod auth;
mod check;
mod config;
mod example;
mod input;
mod live;
mod mock;
mod pin;
mod proxy;
mod schema;
mod serve;
mod term;
mod toolkit;
mod validate;

/// Success: every schema compiles, every instance is valid.
pub const VALID: u8 = 0;
/// Some instance is invalid.
pub const INVALID: u8 = 1;
/// The command line is wrong.
pub const USAGE: u8 = 2;
/// A schema or an instance cannot be read or parsed, or a schema is invalid.
pub const ERROR: u8 = 3;

/// A JSON Schema validator (2020-12, 2019-09, draft-07/06/04) for the schemas MCP tools
/// publish, and an MCP server for tool lists.
///
/// Exit status: 0 valid, 1 invalid, 2 usage error, 3 a schema or an instance cannot be
/// read or parsed, or the schema is invalid.
#[derive(Parser, Debug)]
#[command(name = "toolschema", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// (Parsed once per process: boxing the proxy's many options would only add noise.)
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    Check(check::Args),
    Validate(validate::Args),
    Serve(serve::Args),
    Proxy(proxy::Args),
    Pin(pin::Args),
    Upgrade(toolkit::UpgradeArgs),
    Lint(toolkit::LintArgs),
}

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Proxy(args) => proxy::run(args),
        Command::Pin(args) => pin::run(args),
        Command::Upgrade(args) => toolkit::upgrade(args),
        Command::Lint(args) => toolkit::lint_command(args),
    };
    ExitCode::from(code)
}
